package console_test

import (
	"strings"
	"testing"
)

// Tests of what a first-time user meets: messages in plain words, the
// environment kept from page to page, the roles described once.

// TestUsedSetupLink: a setup link that no longer works says what helps.
// Once someone can sign in, restarting serve prints no new link: the
// page says to sign in, or to ask an owner; before, a restart does.
func TestUsedSetupLink(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	p := c.get("/setup?token=wrong").wantStatus(404)
	p.wantText("main", "not valid").wantText("main", "Restart adcamp serve")
	e.owner()
	p = c.get("/setup?token=wrong").wantStatus(404)
	p.wantText("main", "set up already").wantText("main", "Sign in").wantText("main", "ask an owner")
	if got := p.text("main"); strings.Contains(got, "Restart") || strings.Contains(got, "restart") {
		t.Errorf("once a user exists the setup link's page still advises a restart: %q", got)
	}
}
