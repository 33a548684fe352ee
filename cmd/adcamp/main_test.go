package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/service"
)

// runCLI runs the program with args and a clean environment.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, noEnv, strings.NewReader(""), &out, &errOut)
	if errOut.Len() > 0 {
		t.Logf("stderr of %v:\n%s", args, errOut.String())
	}
	return out.String(), err
}

// noEnv is a clean environment, but for the console's and the metrics'
// listeners, which are off unless a test asks for them (--console-addr,
// --metrics-addr): their default addresses are fixed ports, which tests
// running at once would compete for.
func noEnv(name string) (string, bool) {
	return "", name == "ADCAMP_CONSOLE_ADDR" || name == "ADCAMP_METRICS_ADDR" || name == "ADCAMP_OPERATOR_ADDR"
}

// mustJSON runs a command that must succeed and decodes its --json output.
func mustJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, err := runCLI(t, append(args, "--json")...)
	if err != nil {
		t.Fatalf("adcamp %v: %v", args, err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("adcamp %v printed %q: %v", args, out, err)
	}
	return v
}

func TestAdminCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dd := "--data-dir=" + dir
	acc := mustJSON(t, "accounts", "create", "--name", "Acme", "--email", "ops@acme.test", dd)
	id, _ := acc["id"].(string)
	if !strings.HasPrefix(id, "acc_") || acc["name"] != "Acme" {
		t.Fatalf("accounts create = %v", acc)
	}
	info, err := os.Stat(filepath.Join(dir, "master.key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("master.key: %v, mode %v; want a 0600 file", err, info.Mode())
	}

	ca := mustJSON(t, "channel-accounts", "create", "--account", id, "--marketplace", "jp", "--name", "Acme JP", dd)
	if ca["id"] != float64(1) || ca["marketplace"] != "JP" {
		t.Errorf("channel-accounts create = %v, want integer id 1 on JP", ca)
	}

	mustJSON(t, "channel-accounts", "create", "--account", id, "--marketplace", "US", "--name", "Acme US", dd)
	out, err := runCLI(t, "channel-accounts", "list", "--account", id, dd)
	if err != nil || !strings.Contains(out, "Acme JP") || !strings.Contains(out, "Acme US") {
		t.Errorf("channel-accounts list = %q, %v", out, err)
	}
	out, _ = runCLI(t, "channel-accounts", "list", "--account", id, "--json", dd)
	var cas []map[string]any
	if err := json.Unmarshal([]byte(out), &cas); err != nil || len(cas) != 2 || cas[0]["name"] != "Acme US" {
		t.Errorf("channel-accounts list --json = %s (%v), want both, newest first", out, err)
	}

	k := mustJSON(t, "keys", "create", "--account", id, "--env", "sandbox", dd)
	key, _ := k["api_key"].(string)
	secret, _ := k["api_secret"].(string)
	if !strings.HasPrefix(key, "ak_test_") || !strings.HasPrefix(secret, "sk_test_") || k["environment"] != "sandbox" || k["account_id"] != id {
		t.Errorf("keys create = %v", k)
	}
	live := mustJSON(t, "keys", "create", "--account", id, "--env", "production", dd)
	if !strings.HasPrefix(live["api_key"].(string), "ak_live_") || !strings.HasPrefix(live["api_secret"].(string), "sk_live_") {
		t.Errorf("production key = %v", live)
	}

	// The secret is stored encrypted: it is nowhere in the data files.
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte(strings.TrimPrefix(secret, "sk_test_"))) {
			t.Errorf("%s holds the secret in clear", f)
		}
	}

	out, err = runCLI(t, "keys", "list", "--account", id, dd)
	if err != nil || !strings.Contains(out, key) || !strings.Contains(out, "enabled") || strings.Contains(out, secret) {
		t.Errorf("keys list = %q, %v", out, err)
	}
	if d := mustJSON(t, "keys", "disable", key, dd); d["disabled"] != true {
		t.Errorf("keys disable = %v", d)
	}
	if d := mustJSON(t, "keys", "enable", key, dd); d["disabled"] != false {
		t.Errorf("keys enable = %v", d)
	}
	rolled := mustJSON(t, "keys", "roll", key, "--grace", "1h", dd)
	if rolled["api_key"] != key || rolled["api_secret"] == secret || rolled["previous_secret_expires_at"] == nil {
		t.Errorf("keys roll = %v", rolled)
	}
	for _, grace := range []string{"-1s", "721h"} {
		if _, err := runCLI(t, "keys", "roll", key, "--grace", grace, dd); err == nil || exitCode(err) != 2 {
			t.Errorf("keys roll --grace %s: %v, want a usage error", grace, err)
		}
	}
	now := mustJSON(t, "keys", "roll", key, "--grace", "0", dd)
	if now["previous_secret_expires_at"] != nil {
		t.Errorf("keys roll --grace 0 = %v; want the old secret revoked at once (no expiry)", now)
	}
	if _, err := runCLI(t, "keys", "delete", key, dd); err != nil {
		t.Errorf("keys delete: %v", err)
	}
	if _, err := runCLI(t, "keys", "disable", key, dd); err == nil {
		t.Error("disabling a deleted key succeeded")
	}
}

func TestCommandLineErrors(t *testing.T) {
	t.Parallel()
	dd := "--data-dir=" + t.TempDir()
	tests := []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"frobnicate"}, 2},
		{[]string{"keys"}, 2},
		{[]string{"campaigns"}, 2},
		{[]string{"keys", "create", "--env", "sandbox", dd}, 2},
		{[]string{"keys", "create", "--account", "acc_x", "--env", "staging", dd}, 2},
		{[]string{"keys", "disable", dd}, 2},
		{[]string{"accounts", "create", dd}, 2},
		{[]string{"serve", "--signing", "c", dd}, 2},
		{[]string{"serve", "--rate-limit", "-1", dd}, 2},
		{[]string{"serve", "--tls-cert", "x", dd}, 2},
		{[]string{"keys", "create", "--account", "acc_missing", "--env", "sandbox", dd}, 1},
		{[]string{"channel-accounts", "create", "--account", "acc_missing", "--marketplace", "US", "--name", "x", dd}, 1},
	}
	for _, tt := range tests {
		_, err := runCLI(t, tt.args...)
		if err == nil || exitCode(err) != tt.code {
			t.Errorf("adcamp %v: error %v (exit %d), want exit %d", tt.args, err, exitCode(err), tt.code)
		}
	}
}

// TestMasterKeyNeverRegenerated: a data directory that has a database but
// lost its master key is refused rather than given a new key.
func TestMasterKeyNeverRegenerated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustJSON(t, "accounts", "create", "--name", "Acme", "--data-dir", dir)
	os.Remove(filepath.Join(dir, "master.key"))
	if _, err := runCLI(t, "accounts", "create", "--name", "Acme", "--data-dir", dir); err == nil || !strings.Contains(err.Error(), "master key") {
		t.Errorf("with the master key gone: %v, want a master key error", err)
	}
}

// within polls cond until it holds or bound has passed, and reports which.
func within(bound time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(bound); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// TestServe runs the real serve command: both environments, admin
// commands while it runs, and a clean exit when its context ends.
func TestServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dd := "--data-dir=" + dir
	acc := mustJSON(t, "accounts", "create", "--name", "Acme", dd)["id"].(string)

	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan map[string]string, 1)
	done := make(chan error, 1)
	c := &cli{lookup: noEnv, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		ready: func(m map[string]string) { addrs <- m }}
	go func() {
		done <- c.run(ctx, []string{"serve", dd, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "127.0.0.1:0",
			"--metrics-addr", "127.0.0.1:0"})
	}()
	var bound map[string]string
	select {
	case bound = <-addrs:
	case err := <-done:
		t.Fatalf("serve exited: %v", err)
	case <-time.After(60 * time.Second): // generous: -race, beside the browser tests, on 2 cores
		t.Fatal("serve did not start")
	}

	k := mustJSON(t, "keys", "create", "--account", acc, "--env", "sandbox", dd)
	get := func(env adcamp.Environment) int {
		req, _ := http.NewRequest("GET", "http://"+bound[string(env)]+"/api/v1/open/campaigns", nil)
		signing.SignRequest(req, signing.SchemeA, k["api_key"].(string), k["api_secret"].(string), nil, time.Now())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get(adcamp.Sandbox); got != 200 {
		t.Errorf("sandbox request with a key made while serving = %d, want 200", got)
	}
	if got := get(adcamp.Production); got != 401 {
		t.Errorf("sandbox key on the production listener = %d, want 401", got)
	}
	// The metrics are on their own listener, never on an API listener.
	for name, want := range map[string]int{"metrics": 200, string(adcamp.Production): 404, string(adcamp.Sandbox): 404} {
		resp, err := http.Get("http://" + bound[name] + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || (want == 200) != strings.Contains(string(body), "adcamp_http_requests_total") {
			t.Errorf("GET /metrics on the %s listener = %d; want %d", name, resp.StatusCode, want)
		}
	}
	if _, err := runCLI(t, "keys", "disable", k["api_key"].(string), dd); err != nil {
		t.Fatal(err)
	}
	if !within(service.KeyCacheTTL+500*time.Millisecond, func() bool { return get(adcamp.Sandbox) == 401 }) {
		t.Errorf("requests were still served %v after keys disable", service.KeyCacheTTL+500*time.Millisecond)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v on shutdown, want nil", err)
		}
	case <-time.After(35 * time.Second):
		t.Fatal("serve did not stop")
	}
	if _, err := http.Get("http://" + bound[string(adcamp.Sandbox)] + "/healthz"); err == nil {
		t.Error("the sandbox listener still answers after shutdown")
	}
}

func TestServeOneEnvironment(t *testing.T) {
	t.Parallel()
	_, err := runCLI(t, "serve", "--data-dir", t.TempDir(), "--production-addr", "", "--sandbox-addr", "")
	if err == nil || !errors.Is(err, errUsage) {
		t.Errorf("serve with both listeners off: %v, want a usage error", err)
	}
}

func TestEnvironmentVariables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := func(name string) (string, bool) {
		switch name {
		case "ADCAMP_DATA_DIR":
			return dir, true
		case "ADCAMP_SANDBOX_ADDR":
			return "", true // set but empty: sandbox off
		}
		return "", false
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"accounts", "create", "--name", "Env"}, env, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "adcamp.db")); err != nil {
		t.Errorf("ADCAMP_DATA_DIR was not used: %v", err)
	}
	c := &cli{lookup: env, stderr: io.Discard}
	cfg, err := c.serveFlags(nil)
	if err != nil || cfg.sandboxAddr != "" || cfg.productionAddr != "127.0.0.1:8080" || cfg.store.dataDir != dir {
		t.Errorf("serveFlags from the environment = %+v, %v", cfg, err)
	}
	cfg, _ = c.serveFlags([]string{"--sandbox-addr", "127.0.0.1:9"})
	if cfg.sandboxAddr != "127.0.0.1:9" {
		t.Errorf("a flag did not override the environment: %q", cfg.sandboxAddr)
	}
}

// TestWrongMasterKeyRefused: a master key that is not the database's
// stops every command, serve included, with a message that says so,
// instead of serving and answering 500 to every request.
func TestWrongMasterKeyRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dd := "--data-dir=" + dir
	acc := mustJSON(t, "accounts", "create", "--name", "Acme", dd)["id"].(string)
	mustJSON(t, "keys", "create", "--account", acc, "--env", "sandbox", dd)
	other := strings.Repeat("ab", 32)
	env := func(name string) (string, bool) {
		if name == "ADCAMP_MASTER_KEY" {
			return other, true
		}
		return "", false
	}
	for _, args := range [][]string{
		{"keys", "list", "--account", acc, dd},
		{"accounts", "create", "--name", "Other", dd},
		{"serve", dd, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "127.0.0.1:0", "--metrics-addr", "", "--console-addr", ""},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := run(ctx, args, env, strings.NewReader(""), io.Discard, io.Discard)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "master key") {
			t.Errorf("adcamp %s with another master key: %v, want it refused for the master key", args[0], err)
		}
	}
	if _, err := runCLI(t, "keys", "list", "--account", acc, dd); err != nil {
		t.Errorf("with the right key again: %v", err)
	}
}

// TestDatabasePasswordNeverShown: a database URL's password appears in no
// help and no error, from the flag or from ADCAMP_DATABASE_URL, in its
// user information or as a parameter.
func TestDatabasePasswordNeverShown(t *testing.T) {
	t.Parallel()
	for _, url := range []string{
		"postgres://u:s3cr3t@127.0.0.1:1/db?connect_timeout=1",
		"postgres://u@127.0.0.1:1/db?password=s3cr3t&sslmode=bogus",
		"postgres://u:s3cr3t@127.0.0.1:1/db?sslmode=bogus",
		"postgres://u:s3cr3t@[::1/db",
	} {
		env := func(name string) (string, bool) {
			switch name {
			case "ADCAMP_DATABASE_URL":
				return url, true
			case "ADCAMP_MASTER_KEY":
				return strings.Repeat("ab", 32), true
			}
			return "", false
		}
		for _, args := range [][]string{{"serve", "-h"}, {"keys", "list", "-h"}, {"keys", "list", "--account", "acc_x"},
			{"keys", "list", "--account", "acc_x", "--database-url", url}} {
			var out, errOut bytes.Buffer
			err := run(context.Background(), args, env, strings.NewReader(""), &out, &errOut)
			if all := out.String() + errOut.String() + fmt.Sprint(err); strings.Contains(all, "s3cr3t") {
				t.Errorf("adcamp %v with the URL %s shows the password:\n%s", args, url, all)
			}
		}
	}
}

// TestReadableMasterKeyWarned: a master.key that others may read is
// warned about, every time it is used.
func TestReadableMasterKeyWarned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dd := "--data-dir=" + dir
	mustJSON(t, "accounts", "create", "--name", "Acme", dd)
	if err := os.Chmod(filepath.Join(dir, "master.key"), 0o644); err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	if err := run(context.Background(), []string{"accounts", "create", "--name", "B", dd}, noEnv, nil, io.Discard, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "warning") || !strings.Contains(errOut.String(), "chmod 600") {
		t.Errorf("stderr = %q, want a warning about the master key's mode", errOut.String())
	}
}

// TestHelp: every command and group answers -h with its help on stdout
// and exit status 0; a mistake is still a usage error.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"help"}, {"-h"}, {"serve", "-h"}, {"serve", "--help"},
		{"accounts", "-h"}, {"channel-accounts", "-h"}, {"keys", "-h"}, {"keys", "help"},
		{"campaigns", "-h"}, {"ad-groups", "-h"}, {"keywords", "-h"},
		{"accounts", "create", "-h"}, {"keys", "create", "-h"}, {"keys", "roll", "-h"}, {"channel-accounts", "list", "-h"},
		{"campaigns", "list", "-h"}, {"campaigns", "update", "--help"}, {"keywords", "create", "-h"}, {"ad-groups", "get", "-h"},
		{"channel-accounts", "list", "--api", "-h"},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, noEnv, strings.NewReader(""), &out, &errOut)
		if err != nil || !strings.Contains(out.String(), "adcamp") || errOut.Len() > 0 {
			t.Errorf("adcamp %v: %v (exit %d), stdout %d bytes, stderr %q; want help on stdout, exit 0",
				args, err, exitCode(err), out.Len(), errOut.String())
		}
	}
	for _, args := range [][]string{{"keys"}, {"keys", "frob"}, {"keys", "create", "--bogus"}, {"campaigns", "list", "--bogus"}} {
		if _, err := runCLI(t, args...); exitCode(err) != 2 || err == nil {
			t.Errorf("adcamp %v: %v, want a usage error (exit 2)", args, err)
		}
	}
}
