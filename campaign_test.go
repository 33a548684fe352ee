package adcamp

import "testing"

// TestCanTransition: active and paused move freely between each other and
// to ended; ended is final; staying is allowed; anything else is not a
// status.
func TestCanTransition(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		from, to Status
		want     bool
	}{
		{StatusActive, StatusActive, true},
		{StatusActive, StatusPaused, true},
		{StatusActive, StatusEnded, true},
		{StatusPaused, StatusActive, true},
		{StatusPaused, StatusPaused, true},
		{StatusPaused, StatusEnded, true},
		{StatusEnded, StatusEnded, true},
		{StatusEnded, StatusActive, false},
		{StatusEnded, StatusPaused, false},
		{StatusActive, "archived", false},
		{"archived", StatusActive, false},
	} {
		if got := CanTransition(tc.from, tc.to); got != tc.want {
			t.Errorf("CanTransition(%s, %s) = %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
}

// TestEffectiveStatus: a campaign whose end date has passed (UTC) reads
// as ended, whatever is stored; on its end date it still runs.
func TestEffectiveStatus(t *testing.T) {
	t.Parallel()
	today := Date{2026, 11, 24}
	for _, tc := range []struct {
		stored Status
		end    Date
		want   Status
	}{
		{StatusActive, Date{}, StatusActive},
		{StatusPaused, Date{}, StatusPaused},
		{StatusActive, Date{2026, 11, 24}, StatusActive},
		{StatusActive, Date{2026, 11, 23}, StatusEnded},
		{StatusPaused, Date{2025, 12, 31}, StatusEnded},
		{StatusEnded, Date{2027, 1, 1}, StatusEnded},
	} {
		c := Campaign{Status: tc.stored, EndDate: tc.end}
		if got := c.EffectiveStatus(today); got != tc.want {
			t.Errorf("EffectiveStatus(stored %s, end %s) on %s = %s, want %s", tc.stored, tc.end, today, got, tc.want)
		}
	}
}
