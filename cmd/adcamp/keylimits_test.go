package main

import (
	"strings"
	"testing"
)

func TestKeysScopesAndLimits(t *testing.T) {
	t.Parallel()
	dd := "--data-dir=" + t.TempDir()
	acc := mustJSON(t, "accounts", "create", "--name", "Acme", dd)
	id, _ := acc["id"].(string)
	k := mustJSON(t, "keys", "create", "--account", id, "--env", "sandbox", dd,
		"--scope", "campaigns=read,reports=read", "--expires-in", "30d", "--allow-ip", "203.0.113.0/24", "--allow-ip", "::1", "--rate-limit", "5")
	scopes, _ := k["scopes"].(map[string]any)
	if scopes["campaigns"] != "read" || scopes["reports"] != "read" || scopes["history"] != "write" || scopes["webhooks"] != "write" {
		t.Errorf("keys create --scope: scopes = %v", k["scopes"])
	}
	if ips, _ := k["allowed_ips"].([]any); len(ips) != 2 || ips[0] != "203.0.113.0/24" || ips[1] != "::1/128" {
		t.Errorf("keys create --allow-ip: allowed_ips = %v", k["allowed_ips"])
	}
	if k["expires_at"] == nil || k["rate_limit"] != float64(5) {
		t.Errorf("keys create: expires_at = %v, rate_limit = %v", k["expires_at"], k["rate_limit"])
	}
	key, _ := k["api_key"].(string)
	u := mustJSON(t, "keys", "update", key, dd, "--scope", "history=none", "--no-expiry", "--allow-any-ip", "--rate-limit", "0")
	scopes, _ = u["scopes"].(map[string]any)
	if scopes["campaigns"] != "read" || scopes["history"] != "none" || u["expires_at"] != nil || u["rate_limit"] != float64(0) {
		t.Errorf("keys update = %v", u)
	}
	out, err := runCLI(t, "keys", "list", "--account", id, dd)
	if err != nil || !strings.Contains(out, "campaigns=read,reports=read,history=none,webhooks=write") || !strings.Contains(out, "any address") {
		t.Errorf("keys list = %q, %v", out, err)
	}
	for _, bad := range [][]string{
		{"keys", "create", "--account", id, "--env", "sandbox", "--scope", "campaigns=admin"},
		{"keys", "create", "--account", id, "--env", "sandbox", "--expires-in", "soon"},
		{"keys", "create", "--account", id, "--env", "sandbox", "--allow-ip", "300.1.1.1/8"},
		{"keys", "update", key},
		{"keys", "update", key, "--expires-at", "2020-01-01T00:00:00Z"},
	} {
		if _, err := runCLI(t, append(bad, dd)...); err == nil {
			t.Errorf("adcamp %v succeeded, want an error", bad)
		}
	}
	// Each change is in the history, as the other key operations are.
	changes, err := runCLI(t, "keys", "list", "--account", id, dd, "--json")
	if err != nil || !strings.Contains(changes, `"history": "none"`) {
		t.Errorf("keys list --json = %s, %v", changes, err)
	}
}
