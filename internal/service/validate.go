package service

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/adcamp/adcamp"
)

// checkText checks a required name-like string (already trimmed): 1 to
// maxLen code points, no control characters.
func checkText(issues *adcamp.Issues, field, s string, maxLen int) {
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		issues.Add(field, "must not be empty")
	case n > maxLen:
		issues.Add(field, "must be at most %d characters (got %d)", maxLen, n)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		issues.Add(field, "must not contain control characters")
	}
}

// checkMoney parses a money amount that must be > 0 and ≤ adcamp.MaxMoney.
func checkMoney(issues *adcamp.Issues, field, text string) adcamp.Money {
	m, err := adcamp.ParseMoney(text)
	switch {
	case err != nil:
		issues.Add(field, "%v", err)
	case m <= 0:
		issues.Add(field, "must be greater than 0")
	case m > adcamp.MaxMoney:
		issues.Add(field, "must be at most %s", adcamp.MaxMoney)
	}
	return m
}

// checkDate checks a YYYY-MM-DD calendar date.
func checkDate(issues *adcamp.Issues, field, s string) string {
	if _, err := time.Parse(adcamp.DateLayout, s); err != nil || len(s) != len(adcamp.DateLayout) {
		issues.Add(field, "must be a date written YYYY-MM-DD")
		return ""
	}
	return s
}

// checkMarketplace returns the upper-case site code if it is configured.
func (s *Service) checkMarketplace(issues *adcamp.Issues, field, code string) string {
	code = strings.ToUpper(strings.TrimSpace(code))
	if _, ok := slices.BinarySearch(s.marketplaces, code); !ok {
		issues.Add(field, "must be one of %s", strings.Join(s.marketplaces, ", "))
		return ""
	}
	return code
}

// requireValue reports a missing or null required field.
func requireValue[T any](issues *adcamp.Issues, field string, o adcamp.Optional[T]) bool {
	switch {
	case !o.Set:
		issues.Add(field, "is required")
	case o.Null:
		issues.Add(field, "must not be null")
	default:
		return true
	}
	return false
}

// notNull reports a field that may be omitted but not null.
func notNull[T any](issues *adcamp.Issues, field string, o adcamp.Optional[T]) bool {
	if o.Set && o.Null {
		issues.Add(field, "must not be null")
		return false
	}
	return o.Set
}

// today is the current date in UTC. A list asks for it once for every
// campaign, so the text of the day is kept until the day changes.
func (s *Service) today() string {
	now := s.Now()
	day := now.Unix() / secondsPerDay
	if now.Unix() < 0 && now.Unix()%secondsPerDay != 0 {
		day-- // floor, before 1970
	}
	if d := s.day.Load(); d != nil && d.day == day {
		return d.text
	}
	d := &cachedDay{day: day, text: now.Format(adcamp.DateLayout)}
	s.day.Store(d)
	return d.text
}

const secondsPerDay = 24 * 60 * 60

// cachedDay is a day, counted from 1970-01-01 UTC, and its date.
type cachedDay struct {
	day  int64
	text string
}
