package service

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/adcamp/adcamp"
)

// checkText checks a required name-like string (already trimmed): 1 to
// maxLen code points, at least one of them visible; no control
// characters, and none of the invisible ones that make two texts look
// alike or reorder what is shown around them (see invisible).
func checkText(issues *adcamp.Issues, field, s string, maxLen int) {
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		issues.AddKind(field, adcamp.IssueEmpty, "", "must not be empty")
	case n > maxLen:
		issues.AddKind(field, adcamp.IssueTooLong, strconv.Itoa(maxLen), "must be at most %d characters (got %d)", maxLen, n)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		issues.AddKind(field, adcamp.IssueControl, "", "must not contain control characters")
	case strings.IndexFunc(s, invisible) >= 0:
		r, _ := utf8.DecodeRuneInString(s[strings.IndexFunc(s, invisible):])
		issues.AddKind(field, adcamp.IssueInvisible, "", "must not contain invisible formatting characters (found U+%04X; bidirectional controls, "+
			"zero-width characters, line and paragraph separators and U+FEFF are refused)", r)
	case strings.IndexFunc(s, visible) < 0:
		issues.AddKind(field, adcamp.IssueNotVisible, "", "must contain at least one visible character")
	}
}

// invisible reports the formatting characters refused in names and
// keyword texts: bidirectional controls (U+061C, U+200E, U+200F,
// U+202A–U+202E, U+2066–U+2069), zero-width characters (U+180E,
// U+200B–U+200D, U+2060–U+2064, U+FEFF) and the line and paragraph
// separators (U+2028, U+2029).
func invisible(r rune) bool {
	switch {
	case r == 0x061C, r == 0x180E, r == 0xFEFF:
		return true
	case r >= 0x200B && r <= 0x200F, r >= 0x2028 && r <= 0x202E, r >= 0x2060 && r <= 0x2064, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// visible reports whether r shows on its own: a letter, digit,
// punctuation mark or symbol (not a space, nor a combining mark, which
// needs a character to sit on), but for the letters drawn blank (the
// Hangul fillers) and the blank Braille pattern.
func visible(r rune) bool {
	switch r {
	case 0x115F, 0x1160, 0x2800, 0x3164, 0xFFA0:
		return false
	}
	return unicode.In(r, unicode.L, unicode.N, unicode.P, unicode.S)
}

// checkNotes checks a campaign's notes: free text of at most
// adcamp.MaxNotes characters, which may hold line breaks and tabs but no
// other control characters. Surrounding white space is not kept, and
// notes of white space alone are no notes ("").
func checkNotes(issues *adcamp.Issues, s string) string {
	s = strings.TrimSpace(s)
	switch n := utf8.RuneCountInString(s); {
	case n > adcamp.MaxNotes:
		issues.AddKind("notes", adcamp.IssueTooLong, strconv.Itoa(adcamp.MaxNotes), "must be at most %d characters (got %d)", adcamp.MaxNotes, n)
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' }) >= 0:
		issues.AddKind("notes", adcamp.IssueControl, "", "must not contain control characters other than line breaks and tabs")
	}
	return s
}

// checkMoney parses a money amount that must be > 0 and ≤ adcamp.MaxMoney.
func checkMoney(issues *adcamp.Issues, field, text string) adcamp.Money {
	m, err := adcamp.ParseMoney(text)
	switch {
	case err != nil:
		issues.AddKind(field, adcamp.MoneyIssue(err), adcamp.MaxMoney.String(), "%v", err)
	case m <= 0:
		issues.AddKind(field, adcamp.IssueNotPositive, "", "must be greater than 0")
	case m > adcamp.MaxMoney:
		issues.AddKind(field, adcamp.IssueTooLarge, adcamp.MaxMoney.String(), "must be at most %s", adcamp.MaxMoney)
	}
	return m
}

// Campaign dates lie between minDate and maxDate: a year such as 0001 or
// 9999 is a typing mistake, not a plan.
var (
	minDate = adcamp.Date{Year: 2000, Month: 1, Day: 1}
	maxDate = adcamp.Date{Year: 2100, Month: 12, Day: 31}
)

// checkDate reads a YYYY-MM-DD calendar date from minDate to maxDate.
func checkDate(issues *adcamp.Issues, field, s string) adcamp.Date {
	d, err := adcamp.ParseDate(s)
	switch {
	case err != nil:
		issues.AddKind(field, adcamp.IssueNotDate, "", "%v", err)
	case d.Before(minDate) || maxDate.Before(d):
		issues.AddKind(field, adcamp.IssueDateRange, minDate.String()+" to "+maxDate.String(), "must be a date from %s to %s", minDate, maxDate)
	}
	return d
}

// checkOneOf checks a value against the allowed ones, which the message
// lists.
func checkOneOf[T ~string](issues *adcamp.Issues, field string, v T, allowed []T) bool {
	if slices.Contains(allowed, v) {
		return true
	}
	issues.AddKind(field, adcamp.IssueNotOneOf, joinValues(allowed), "must be one of %s", joinValues(allowed))
	return false
}

// checkFilter checks a list filter: empty (no filter) or an allowed value.
func checkFilter[T ~string](issues *adcamp.Issues, field string, v T, allowed []T) {
	if v != "" {
		checkOneOf(issues, field, v, allowed)
	}
}

// joinValues lists values for a message: "active, paused, ended".
func joinValues[T ~string](vs []T) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}

// checkMarketplace returns the upper-case site code if it is configured.
func (s *core) checkMarketplace(issues *adcamp.Issues, field, code string) string {
	code = strings.ToUpper(strings.TrimSpace(code))
	if _, ok := slices.BinarySearch(s.marketplaces, code); !ok {
		issues.AddKind(field, adcamp.IssueNotOneOf, strings.Join(s.marketplaces, ", "), "must be one of %s", strings.Join(s.marketplaces, ", "))
		return ""
	}
	return code
}

// requireValue reports a missing or null required field.
func requireValue[T any](issues *adcamp.Issues, field string, o adcamp.Optional[T]) bool {
	switch {
	case !o.Set:
		issues.AddKind(field, adcamp.IssueRequired, "", "is required")
	case o.Null:
		issues.AddKind(field, adcamp.IssueRequired, "", "must not be null")
	default:
		return true
	}
	return false
}

// notNull reports a field that may be omitted but not null.
func notNull[T any](issues *adcamp.Issues, field string, o adcamp.Optional[T]) bool {
	if o.Set && o.Null {
		issues.AddKind(field, adcamp.IssueRequired, "", "must not be null")
		return false
	}
	return o.Set
}

// today is the current date in UTC. A list asks for it once for every
// campaign, so the day is kept until it changes.
func (s *core) today() adcamp.Date {
	now := s.Now()
	day := now.Unix() / secondsPerDay
	if now.Unix() < 0 && now.Unix()%secondsPerDay != 0 {
		day-- // floor, before 1970
	}
	if d := s.day.Load(); d != nil && d.day == day {
		return d.date
	}
	d := &cachedDay{day: day, date: adcamp.DateOf(now)}
	s.day.Store(d)
	return d.date
}

const secondsPerDay = 24 * 60 * 60

// cachedDay is a day, counted from 1970-01-01 UTC, and its date.
type cachedDay struct {
	day  int64
	date adcamp.Date
}
