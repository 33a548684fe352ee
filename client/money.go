package client

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Money is an amount in US dollars held as an exact integer number of
// cents. It is written to JSON as a number with two decimals (12.50) and
// read from JSON exactly, without going through a float.
//
// Build one with [Cents], [USD] (for amounts written in code) or
// [ParseMoney] (for amounts from input).
type Money int64

// Cents returns the amount of n cents: Cents(1250) is 12.50 USD.
func Cents(n int64) Money { return Money(n) }

// USD returns the amount written as a decimal number of dollars, such as
// "12.50", "12.5" or "7". It is meant for amounts written in code and
// panics if s is not an exact amount; use [ParseMoney] for input.
func USD(s string) Money {
	m, err := ParseMoney(s)
	if err != nil {
		panic("client.USD(" + strconv.Quote(s) + "): " + err.Error())
	}
	return m
}

// Errors returned by ParseMoney, wrapped with the offending text.
var (
	// ErrMoneySyntax means the text is not a decimal number.
	ErrMoneySyntax = errors.New("not a decimal number")
	// ErrMoneyPrecision means the amount has a non-zero digit beyond the cent.
	ErrMoneyPrecision = errors.New("more than two decimal places")
	// ErrMoneyRange means the amount does not fit in an int64 of cents.
	ErrMoneyRange = errors.New("out of range")
)

// ParseMoney parses a decimal number of dollars in JSON number syntax
// ("12.5", "12.50", "-3", "1250e-2") into an exact amount. Zeros beyond
// the cent are accepted ("12.500"); any other digit there is an error.
func ParseMoney(s string) (Money, error) {
	m, err := parseMoney(s)
	if err != nil {
		return 0, fmt.Errorf("client: parse money %q: %w", s, err)
	}
	return m, nil
}

func parseMoney(s string) (Money, error) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	mant, exp, err := splitExponent(s)
	if err != nil {
		return 0, err
	}
	intPart, frac, hasDot := strings.Cut(mant, ".")
	if !isDigits(intPart) || (hasDot && !isDigits(frac)) {
		return 0, ErrMoneySyntax
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return 0, nil
	}
	n, err := scaleCents(digits, exp-len(frac)+2)
	if neg {
		n = -n
	}
	return Money(n), err
}

// splitExponent splits "1.5e-3" into "1.5" and -3.
func splitExponent(s string) (string, int, error) {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return s, 0, nil
	}
	e := strings.TrimPrefix(s[i+1:], "+")
	if len(e) > 6 || len(e) == 0 || (e[0] != '-' && !isDigits(e)) || (e[0] == '-' && !isDigits(e[1:])) {
		return "", 0, ErrMoneySyntax
	}
	n, err := strconv.Atoi(e)
	if err != nil {
		return "", 0, ErrMoneySyntax
	}
	return s[:i], n, nil
}

// scaleCents returns digits × 10^scale, where digits has no leading zero;
// a negative scale may only drop zeros.
func scaleCents(digits string, scale int) (int64, error) {
	for ; scale < 0; scale++ {
		if digits[len(digits)-1] != '0' {
			return 0, ErrMoneyPrecision
		}
		digits = digits[:len(digits)-1]
	}
	if len(digits)+scale > 19 {
		return 0, ErrMoneyRange
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", scale), 10, 64)
	if err != nil {
		return 0, ErrMoneyRange
	}
	return n, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Cents returns the amount as a whole number of cents.
func (m Money) Cents() int64 { return int64(m) }

// String formats the amount as dollars with two decimals: "12.50".
func (m Money) String() string { return string(m.appendDecimal(nil)) }

func (m Money) appendDecimal(b []byte) []byte {
	n := uint64(m)
	if m < 0 {
		b = append(b, '-')
		n = -n
	}
	b = strconv.AppendUint(b, n/100, 10)
	c := n % 100
	return append(b, '.', byte('0'+c/10), byte('0'+c%10))
}

// MarshalJSON writes the amount as a JSON number with two decimals.
func (m Money) MarshalJSON() ([]byte, error) { return m.appendDecimal(nil), nil }

// UnmarshalJSON reads a JSON number exactly; null leaves m unchanged.
// A JSON string, even "12.50", is an error, as it is for the API.
func (m *Money) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	v, err := ParseMoney(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}
