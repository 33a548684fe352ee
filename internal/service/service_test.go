package service

import (
	"testing"
	"time"
)

// TestToday: the date kept for a day changes with the day, before 1970
// as after.
func TestToday(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 23, 59, 59, 0, time.UTC)
	s := New(Config{Now: func() time.Time { return now }})
	for _, step := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 11, 22, 23, 59, 59, 0, time.UTC), "2026-11-22"},
		{time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), "2026-11-23"},
		{time.Date(2026, 11, 23, 9, 0, 0, 0, time.FixedZone("X", -10*3600)), "2026-11-23"},
		{time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), "2026-11-22"}, // a clock set back
		{time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), "1969-12-31"},
		{time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), "1969-12-31"},
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), "1970-01-01"},
	} {
		now = step.at
		if got := s.today().String(); got != step.want {
			t.Errorf("today() at %v = %s, want %s", step.at, got, step.want)
		}
	}
}
