package adcamp

import (
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Date
		ok   bool
	}{
		{"2026-11-24", Date{2026, time.November, 24}, true},
		{"2024-02-29", Date{2024, time.February, 29}, true},
		{"2025-02-29", Date{}, false},
		{"2026-04-31", Date{}, false},
		{"2026-13-01", Date{}, false},
		{"2026-00-10", Date{}, false},
		{"2026-01-00", Date{}, false},
		{"2026-1-01", Date{}, false},
		{"2026/01/01", Date{}, false},
		{"20260101", Date{}, false},
		{"2026-01-01T00:00:00Z", Date{}, false},
		{"+026-01-01", Date{}, false},
		{"", Date{}, false},
	} {
		got, err := ParseDate(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseDate(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("ParseDate(%q).String() = %q", tc.in, got.String())
		}
	}
}

func TestDateOrder(t *testing.T) {
	t.Parallel()
	days := []string{"2025-12-31", "2026-01-01", "2026-01-02", "2026-02-01", "2027-01-01"}
	for i, a := range days {
		for j, b := range days {
			da, _ := ParseDate(a)
			db, _ := ParseDate(b)
			if got, want := da.Before(db), i < j; got != want {
				t.Errorf("%s.Before(%s) = %v, want %v", a, b, got, want)
			}
			if got, want := da.Compare(db), cmpInt(i, j); got != want {
				t.Errorf("%s.Compare(%s) = %d, want %d", a, b, got, want)
			}
		}
	}
	if !(Date{}).IsZero() || (Date{}).String() != "" {
		t.Errorf("the zero Date is not empty")
	}
	if got := DateOf(time.Date(2026, 3, 1, 23, 30, 0, 0, time.FixedZone("x", -3600))); got.String() != "2026-03-02" {
		t.Errorf("DateOf(23:30 at -01:00) = %s, want the UTC date 2026-03-02", got)
	}
}
