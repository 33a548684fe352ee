package adcamp

import (
	"errors"
	"strconv"
)

// Money is an amount in US dollars held as an exact integer number of
// cents. It is written to JSON as a number with two decimals (12.50).
type Money int64

// MaxMoney bounds every amount the API accepts: 1,000,000.00 USD.
const MaxMoney Money = 1_000_000_00

var (
	errMoneySyntax    = errors.New("must be a JSON number")
	errMoneyPrecision = errors.New("must have at most two decimal places")
	errMoneyRange     = errors.New("is too large")
)

// ParseMoney converts the text of a JSON number (as sent, e.g. "12.5",
// "1e2", "7.250") into cents. It is exact: it never goes through a float.
// A value with a non-zero digit beyond the cent is an error, as is one
// whose magnitude exceeds what the API could ever accept.
func ParseMoney(s string) (Money, error) {
	if len(s) == 0 || len(s) > 64 {
		return 0, errMoneySyntax
	}
	neg := false
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	mant, exp := s, 0
	if i := indexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 20 || e < -20 {
			return 0, errMoneySyntax
		}
		mant, exp = s[:i], e
	}
	intPart, frac := mant, ""
	for i := 0; i < len(mant); i++ {
		if mant[i] == '.' {
			intPart, frac = mant[:i], mant[i+1:]
			break
		}
	}
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) || (frac == "" && len(mant) > len(intPart)) {
		return 0, errMoneySyntax
	}
	// digits * 10^(exp - len(frac)) is the value in dollars; shift to cents.
	digits := trimLeftZeros(intPart + frac)
	shift := exp - len(frac) + 2
	for shift < 0 {
		if digits[len(digits)-1] != '0' {
			return 0, errMoneyPrecision
		}
		digits, shift = digits[:len(digits)-1], shift+1
		if digits == "" {
			digits = "0"
		}
	}
	if len(digits)+shift > 15 {
		return 0, errMoneyRange
	}
	n, _ := strconv.ParseInt(digits, 10, 64)
	for ; shift > 0; shift-- {
		n *= 10
	}
	if neg {
		n = -n
	}
	return Money(n), nil
}

// String formats m as dollars with two decimals, e.g. "12.50".
func (m Money) String() string { return string(m.AppendText(nil)) }

// AppendText appends m formatted as by String.
func (m Money) AppendText(b []byte) []byte {
	n := int64(m)
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	b = strconv.AppendInt(b, n/100, 10)
	c := n % 100
	return append(b, '.', byte('0'+c/10), byte('0'+c%10))
}

// MarshalJSON writes m as a JSON number with two decimals.
func (m Money) MarshalJSON() ([]byte, error) { return m.AppendText(nil), nil }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func trimLeftZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	if s == "" {
		return "0"
	}
	return s
}

func indexAny(s, chars string) int {
	for i := 0; i < len(s); i++ {
		for j := 0; j < len(chars); j++ {
			if s[i] == chars[j] {
				return i
			}
		}
	}
	return -1
}
