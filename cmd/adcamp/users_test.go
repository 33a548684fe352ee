package main

import (
	"strings"
	"testing"
)

// TestUsersCreateOfAnotherAccountsInvitee: users create for a user whom
// another account invited, who has no password yet, adds them but prints
// no link (whoever held it could sign in to the other account); the
// first invitation keeps working, and reset-password, the operator's own
// tool, still makes a link.
func TestUsersCreateOfAnotherAccountsInvitee(t *testing.T) {
	dd := "--data-dir=" + t.TempDir()
	a := mustJSON(t, "accounts", "create", "--name", "A", dd)["id"].(string)
	b := mustJSON(t, "accounts", "create", "--name", "B", dd)["id"].(string)
	c := mustJSON(t, "accounts", "create", "--name", "C", dd)["id"].(string)
	first := mustJSON(t, "users", "create", "--account", b, "--email", "cfo@b.example", "--role", "owner", dd)
	linkB, _ := first["set_password_url"].(string)
	if !strings.Contains(linkB, "/set-password?token=") {
		t.Fatalf("users create of a new user = %v, want a link", first)
	}

	out, err := runCLI(t, "users", "create", "--account", a, "--email", "cfo@b.example", "--role", "viewer", dd)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "token=") || !strings.Contains(out, "cfo@b.example is now a viewer of account "+a) ||
		!strings.Contains(out, "invited to another account too") || !strings.Contains(out, "reset-password --email cfo@b.example") {
		t.Errorf("users create of another account's invitee printed:\n%s\nwant the membership, no link, and why", out)
	}
	v := mustJSON(t, "users", "create", "--account", c, "--email", "cfo@b.example", "--role", "viewer", dd)
	if _, ok := v["set_password_url"]; ok || v["password_set"] != false || v["account_id"] != c {
		t.Errorf("users create --json of another account's invitee = %v, want no set_password_url", v)
	}

	reset := mustJSON(t, "users", "reset-password", "--email", "cfo@b.example", dd)
	if link, _ := reset["set_password_url"].(string); !strings.Contains(link, "/set-password?token=") || link == linkB {
		t.Errorf("users reset-password = %v, want a new link", reset)
	}
}
