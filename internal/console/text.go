package console

// Values written for people: times, durations, counts, money, dates,
// statuses.

import (
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
)

// formatTime writes a time for people: "2026-11-22 09:30 UTC". Its date
// is written as every date of the console is, and as its date fields
// take them: YYYY-MM-DD, the API's way, the same in every language.
func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// ago writes a duration in the past for people: "just now", "5 minutes
// ago", "3 days ago".
func ago(d time.Duration) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit + " ago"
		}
		return strconv.Itoa(n) + " " + unit + "s ago"
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour")
	}
	return plural(int(d/(24*time.Hour)), "day")
}

func itoa(n int) string { return strconv.Itoa(n) }

// counted writes a count for people: "1 keyword", "3 keywords".
func counted(n int64, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + one + "s"
}

// money writes an amount for people: "$25.00".
func money(m adcamp.Money) string { return "$" + m.String() }

// dateText writes a date, or "" for none.
func dateText(d adcamp.Date) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}

// statusName is a status for people: "Active".
func statusName(s adcamp.Status) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(string(s[:1])) + string(s[1:])
}
