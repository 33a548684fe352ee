package console

import (
	"strings"
	"testing"
)

// TestFormRoutesAreGated fails for a route of an account that takes a
// POST (a form or a button that changes something) registered without a
// gate: its page would not know whether to show its form, and would ask
// the service itself, or not at all.
func TestFormRoutesAreGated(t *testing.T) {
	t.Parallel()
	s := &Server{}
	table := s.routes()
	gated, seen := 0, map[string]bool{}
	for _, r := range table.routes {
		if seen[r.pattern] {
			t.Errorf("route %q is registered twice", r.pattern)
		}
		seen[r.pattern] = true
		method, path, _ := strings.Cut(r.pattern, " ")
		switch {
		case r.account && method == "POST" && r.gate == none:
			t.Errorf("route %q changes an account's data but has no gate: register it with the gate of what it changes (gate.go)", r.pattern)
		case !r.account && r.gate != none:
			t.Errorf("route %q is not an account's but has a gate", r.pattern)
		case r.account && !strings.HasPrefix(path, "/accounts/{account}/"):
			t.Errorf("route %q is an account's but not under /accounts/{account}/", r.pattern)
		case r.gate != none:
			gated++
		}
	}
	// A route whose GET is a form is gated as one: it has a POST, and
	// the gate of its GET says it is a form.
	for _, r := range table.routes {
		method, path, _ := strings.Cut(r.pattern, " ")
		if method == "GET" && r.gate.form && !seen["POST "+path] {
			t.Errorf("route %q is gated as a form but takes no POST", r.pattern)
		}
	}
	if gated == 0 {
		t.Fatal("no route is gated")
	}
}
