package adcamp

import (
	"errors"
	"fmt"
	"time"
)

// Date is a calendar date without a time of day or a zone, as start_date
// and end_date are: written YYYY-MM-DD, compared as days. The zero Date
// means "no date" (a JSON null).
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateLayout is how a Date is written (time's reference layout).
const DateLayout = "2006-01-02"

var errDateSyntax = errors.New("must be a date written YYYY-MM-DD")

// ParseDate reads a date written exactly YYYY-MM-DD that exists in the
// calendar ("2026-02-30" does not).
func ParseDate(s string) (Date, error) {
	if len(s) != len(DateLayout) || s[4] != '-' || s[7] != '-' {
		return Date{}, errDateSyntax
	}
	num := func(part string) int {
		n := 0
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return -1
			}
			n = n*10 + int(part[i]-'0')
		}
		return n
	}
	d := Date{num(s[:4]), time.Month(num(s[5:7])), num(s[8:])}
	if d.Year < 0 || d.Month < 1 || d.Month > 12 || d.Day < 1 || d.Day > daysIn(d.Month, d.Year) {
		return Date{}, errDateSyntax
	}
	return d, nil
}

// daysIn is the number of days of month m in year y.
func daysIn(m time.Month, y int) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// DateOf is the date of t in UTC.
func DateOf(t time.Time) Date {
	y, m, d := t.UTC().Date()
	return Date{y, m, d}
}

// IsZero reports whether d is the zero Date, "no date".
func (d Date) IsZero() bool { return d == Date{} }

// String writes d as YYYY-MM-DD, and the zero Date as "".
func (d Date) String() string {
	b, _ := d.AppendText(nil)
	return string(b)
}

// AppendText appends d as String writes it.
func (d Date) AppendText(b []byte) ([]byte, error) {
	if d.IsZero() {
		return b, nil
	}
	if d.Year < 0 || d.Year > 9999 {
		return fmt.Appendf(b, "%04d-%02d-%02d", d.Year, int(d.Month), d.Day), nil
	}
	two := func(v int) { b = append(b, byte('0'+v/10), byte('0'+v%10)) }
	two(d.Year / 100)
	two(d.Year % 100)
	b = append(b, '-')
	two(int(d.Month))
	b = append(b, '-')
	two(d.Day)
	return b, nil
}

// MarshalText writes d as String does.
func (d Date) MarshalText() ([]byte, error) { return d.AppendText(nil) }

// UnmarshalText reads what MarshalText wrote; empty text is the zero Date.
func (d *Date) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*d = Date{}
		return nil
	}
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Compare returns -1, 0 or +1 as d is before, on or after e.
func (d Date) Compare(e Date) int {
	switch {
	case d.Year != e.Year:
		return cmpInt(d.Year, e.Year)
	case d.Month != e.Month:
		return cmpInt(int(d.Month), int(e.Month))
	}
	return cmpInt(d.Day, e.Day)
}

// Before reports whether d is an earlier day than e.
func (d Date) Before(e Date) bool { return d.Compare(e) < 0 }

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
