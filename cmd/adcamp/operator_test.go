package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/adcamp/adcamp/internal/service"
)

func TestOperatorKeyCommands(t *testing.T) {
	t.Parallel()
	dd := "--data-dir=" + t.TempDir()
	k := mustJSON(t, "operator-keys", "create", "--name", "ad server", dd)
	id, _ := k["api_key"].(string)
	secret, _ := k["api_secret"].(string)
	if !strings.HasPrefix(id, "opk_") || !strings.HasPrefix(secret, "ops_") || k["name"] != "ad server" {
		t.Fatalf("operator-keys create = %v", k)
	}
	out, err := runCLI(t, "operator-keys", "list", dd)
	if err != nil || !strings.Contains(out, id) || strings.Contains(out, secret) || !strings.Contains(out, "enabled") {
		t.Errorf("operator-keys list = %q, %v; want the key, enabled, without its secret", out, err)
	}
	if v := mustJSON(t, "operator-keys", "disable", id, dd); v["disabled"] != true {
		t.Errorf("operator-keys disable = %v", v)
	}
	out, _ = runCLI(t, "operator-keys", "list", "--json", dd)
	var keys []map[string]any
	if err := json.Unmarshal([]byte(out), &keys); err != nil || len(keys) != 1 || keys[0]["disabled"] != true {
		t.Errorf("operator-keys list --json = %s, %v", out, err)
	}
	if v := mustJSON(t, "operator-keys", "enable", id, dd); v["disabled"] != false {
		t.Errorf("operator-keys enable = %v", v)
	}
	if v := mustJSON(t, "operator-keys", "delete", id, dd); v["deleted"] != true {
		t.Errorf("operator-keys delete = %v", v)
	}
	if _, err := runCLI(t, "operator-keys", "delete", id, dd); err == nil {
		t.Errorf("deleting a deleted operator key succeeded")
	}
	if _, err := runCLI(t, "operator-keys", "create", dd); err == nil || exitCode(err) != 2 {
		t.Errorf("operator-keys create without --name = %v, want a usage error", err)
	}
}

func TestAccountsUpdateTimeZone(t *testing.T) {
	t.Parallel()
	dd := "--data-dir=" + t.TempDir()
	acc := mustJSON(t, "accounts", "create", "--name", "Acme", dd)
	if acc["time_zone"] != "UTC" {
		t.Errorf("a new account's time_zone = %v, want UTC", acc["time_zone"])
	}
	id := acc["id"].(string)
	if v := mustJSON(t, "accounts", "update", id, "--time-zone", "Asia/Seoul", dd); v["time_zone"] != "Asia/Seoul" {
		t.Errorf("accounts update = %v, want time_zone Asia/Seoul", v)
	}
	for _, bad := range []string{"Mars/Olympus", "Local"} {
		if _, err := runCLI(t, "accounts", "update", id, "--time-zone", bad, dd); err == nil || !strings.Contains(err.Error(), "time-zone") {
			t.Errorf("accounts update --time-zone %s = %v, want an error naming --time-zone", bad, err)
		}
	}
}

// TestServeOperatorListener: serve binds the operator listener apart from
// the account listeners; its routes are not on them, nor theirs on it.
func TestServeOperatorListener(t *testing.T) {
	t.Parallel()
	dd := "--data-dir=" + t.TempDir()
	addrs, _ := startServeOut(t, dd, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "", "--operator-addr", "127.0.0.1:0")
	op, ok := addrs["operator"]
	if !ok {
		t.Fatalf("serve's listeners = %v, want an operator listener", addrs)
	}
	get := func(addr, path string) int {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := get(op, "/operator/v1/time"); s != http.StatusOK {
		t.Errorf("GET /operator/v1/time on the operator listener = %d, want 200", s)
	}
	if s := get(addrs["production"], "/operator/v1/time"); s != http.StatusNotFound {
		t.Errorf("GET /operator/v1/time on the production listener = %d, want 404", s)
	}
	if s := get(op, "/api/v1/open/time"); s != http.StatusNotFound {
		t.Errorf("GET /api/v1/open/time on the operator listener = %d, want 404", s)
	}
	addrs, _ = startServeOut(t, dd, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "", "--operator-addr", "")
	if _, ok := addrs["operator"]; ok {
		t.Errorf("--operator-addr \"\" still bound %v", addrs)
	}
}

// TestServeSandboxSimulatorFlags: --sandbox-simulator and --sandbox-seed
// reach the service; a seed that is not a number is a usage error.
func TestServeSandboxSimulatorFlags(t *testing.T) {
	c := &cli{lookup: func(string) (string, bool) { return "", false }, stdout: io.Discard, stderr: io.Discard}
	for _, tc := range []struct {
		args []string
		on   bool
		seed uint64
	}{
		{nil, true, service.DefaultSimulatorSeed},
		{[]string{"--sandbox-simulator=false"}, false, service.DefaultSimulatorSeed},
		{[]string{"--sandbox-seed", "42"}, true, 42},
	} {
		cfg, err := c.serveFlags(tc.args)
		if err != nil {
			t.Fatalf("serveFlags(%q): %v", tc.args, err)
		}
		if cfg.simulator != tc.on || cfg.simulatorSeed != tc.seed {
			t.Errorf("serveFlags(%q) = simulator %v, seed %d; want %v, %d", tc.args, cfg.simulator, cfg.simulatorSeed, tc.on, tc.seed)
		}
	}
	if _, err := c.serveFlags([]string{"--sandbox-seed", "x"}); exitCode(err) != 2 {
		t.Errorf("serveFlags(--sandbox-seed x) = %v, want a usage error", err)
	}
}
