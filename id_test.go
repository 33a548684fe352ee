package adcamp

import (
	"strings"
	"testing"
	"time"
)

// TestNewID: an id is its prefix and a lower-case ULID that ValidID
// accepts, ids of later milliseconds sort after earlier ones, and no two
// are the same.
func TestNewID(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)
	seen := map[string]bool{}
	prev := ""
	for i := range 50 {
		id := NewID(PrefixCampaign, at.Add(time.Duration(i)*time.Millisecond))
		if rest, ok := strings.CutPrefix(id, PrefixCampaign); !ok || rest != strings.ToLower(rest) || len(rest) != 26 {
			t.Fatalf("NewID = %q, want %q and 26 lower-case characters", id, PrefixCampaign)
		}
		if !ValidID(PrefixCampaign, id) {
			t.Fatalf("ValidID(%q) = false", id)
		}
		if seen[id] || id <= prev {
			t.Fatalf("NewID = %q after %q: want a new, greater id", id, prev)
		}
		seen[id], prev = true, id
	}
}

// TestNewChangeID: change ids are lower case, carry the time they are
// made at (to the millisecond), and increase even within a millisecond.
func TestNewChangeID(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)
	prev := ""
	for range 20 {
		id, occurred := NewChangeID(at)
		if rest, ok := strings.CutPrefix(id, PrefixChange); !ok || rest != strings.ToLower(rest) || len(rest) != 26 {
			t.Fatalf("NewChangeID = %q, want %q and 26 lower-case characters", id, PrefixChange)
		}
		if !occurred.Equal(at) {
			t.Fatalf("NewChangeID(%v) carries %v", at, occurred)
		}
		if id <= prev {
			t.Fatalf("NewChangeID = %q after %q: want a greater id", id, prev)
		}
		if bound := ChangeIDBound(at); id < bound {
			t.Fatalf("NewChangeID = %q below ChangeIDBound(%v) = %q", id, at, bound)
		}
		prev = id
	}
}
