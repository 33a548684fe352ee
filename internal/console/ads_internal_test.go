package console

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAdopt: a problem of a field the form does not show is listed with
// the form's message, in a stable order, not lost.
func TestAdopt(t *testing.T) {
	t.Parallel()
	f := formOf(map[string]string{})
	f.errors = map[string]string{"name": "N", "zeta": "Z", "alpha": "A"}
	f.Error = "Some fields need another look: see the messages below them."
	f.adopt([]string{"name", "budget_daily"})
	if !cmp.Equal(f.Others, []string{"alpha: A", "zeta: Z"}) || !cmp.Equal(f.errors, map[string]string{"name": "N"}) || f.Error == "This was not saved:" {
		t.Errorf("adopt = others %q, errors %v, %q", f.Others, f.errors, f.Error)
	}
	g := formOf(map[string]string{})
	g.errors = map[string]string{"status": "B"}
	g.adopt([]string{"name"})
	if !cmp.Equal(g.Others, []string{"Status: B"}) || g.Error != "This was not saved:" {
		t.Errorf("adopt of a form with no problem of its own = %q, %q", g.Others, g.Error)
	}
}

// TestGrouped: thousands grouped for people.
func TestGrouped(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}
