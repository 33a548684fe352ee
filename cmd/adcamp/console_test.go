package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startServeOut is startServe that also returns what serve printed (in
// logbuf_test.go's lockedBuffer).
func startServeOut(t *testing.T, args ...string) (map[string]string, *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan map[string]string, 1)
	done := make(chan error, 1)
	out := &lockedBuffer{}
	c := &cli{lookup: noEnv, stdin: strings.NewReader(""), stdout: out, stderr: io.Discard,
		ready: func(m map[string]string) { addrs <- m }}
	go func() { done <- c.run(ctx, append([]string{"serve"}, args...)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case m := <-addrs:
		return m, out
	case err := <-done:
		done <- nil // for the cleanup, which waits for serve to end
		t.Fatalf("serve exited: %v", err)
	case <-time.After(60 * time.Second): // generous: -race, beside the browser tests, on 2 cores
		t.Fatal("serve did not start")
	}
	return nil, nil
}

var setupLinkRE = regexp.MustCompile(`https?://\S+/setup\?token=\S+`)

// TestServeConsole: serve prints the console's address and, while nobody
// can sign in, a setup link that works; once someone can, no link.
func TestServeConsole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	addrs, out := startServeOut(t, "--data-dir", dir, "--production-addr", "", "--sandbox-addr", "127.0.0.1:0", "--console-addr", "127.0.0.1:0")
	console := addrs["console"]
	if !strings.Contains(out.String(), "adcamp console: http://"+console+"/") {
		t.Errorf("serve printed %q, want the console's address %s", out.String(), console)
	}
	link := setupLinkRE.FindString(out.String())
	if link == "" {
		t.Fatalf("serve printed no setup link:\n%s", out.String())
	}
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar, Timeout: 10 * time.Second}).PostForm(link, url.Values{"account_name": {"Acme"}, "email": {"owner@example.com"},
		"password": {"a calm and long passphrase"}, "password_again": {"a calm and long passphrase"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasSuffix(resp.Request.URL.Path, "/api-keys") {
		t.Fatalf("the setup link's form answered %d at %s, want the API keys page", resp.StatusCode, resp.Request.URL)
	}
	_, out2 := startServeOut(t, "--data-dir", dir, "--production-addr", "", "--sandbox-addr", "127.0.0.1:0", "--console-addr", "127.0.0.1:0")
	if setupLinkRE.MatchString(out2.String()) {
		t.Errorf("a second serve, with a user, printed a setup link:\n%s", out2.String())
	}
}

// TestConsoleOverTLS: with --tls-cert the console is HTTPS, and its
// session cookie Secure with the __Host- prefix.
func TestConsoleOverTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile := writeCert(t, dir)
	addrs, out := startServeOut(t, "--data-dir", dir, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "",
		"--console-addr", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	link := setupLinkRE.FindString(out.String())
	if !strings.HasPrefix(link, "https://"+addrs["console"]+"/setup?token=") {
		t.Fatalf("setup link %q, want https on the console's address", link)
	}
	pool := x509.NewCertPool()
	pemBytes, _ := os.ReadFile(certFile)
	pool.AppendCertsFromPEM(pemBytes)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(link, url.Values{"account_name": {"Acme"}, "email": {"owner@example.com"},
		"password": {"a calm and long passphrase"}, "password_again": {"a calm and long passphrase"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		cookie = c
	}
	if cookie == nil || cookie.Name != "__Host-adcamp_session" || !cookie.Secure || !cookie.HttpOnly {
		t.Errorf("the console's cookie over TLS = %+v, want __Host-adcamp_session, Secure, HttpOnly", cookie)
	}
	if resp, err := http.Get("http://" + addrs["console"] + "/sign-in"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Error("the console answered plain HTTP on its TLS listener")
		}
	}
}

// TestUsersCommands: users create prints a one-time set-password link
// (never asks for a password), reset-password a new one.
func TestUsersCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dd := "--data-dir=" + dir
	acc := mustJSON(t, "accounts", "create", "--name", "Acme", dd)["id"].(string)
	out, err := runCLI(t, "users", "create", "--account", acc, "--email", "Dev@Example.com", "--role", "developer", dd)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "dev@example.com is now a developer of account "+acc) ||
		!strings.Contains(out, "http://127.0.0.1:8082/set-password?token=") {
		t.Errorf("users create printed %q, want the membership and a set-password link on the default console address", out)
	}
	v := mustJSON(t, "users", "create", "--account", acc, "--email", "viewer@example.com", "--role", "viewer",
		"--console-url", "https://console.example.com/", dd)
	if link, _ := v["set_password_url"].(string); !strings.HasPrefix(link, "https://console.example.com/set-password?token=") ||
		v["role"] != "viewer" || v["account_id"] != acc {
		t.Errorf("users create --json = %v", v)
	}
	if _, err := runCLI(t, "users", "create", "--account", acc, "--email", "x@example.com", "--role", "admin", dd); !errors.Is(err, errUsage) {
		t.Errorf("users create --role admin = %v, want a usage error", err)
	}
	if _, err := runCLI(t, "users", "create", "--account", acc, "--email", "dev@example.com", "--role", "viewer", dd); err == nil ||
		!strings.Contains(err.Error(), "member of the account already") {
		t.Errorf("users create of a member = %v, want a refusal", err)
	}
	if _, err := runCLI(t, "users", "create", "--account", "acc_nope", "--email", "y@example.com", "--role", "viewer", dd); err == nil {
		t.Error("users create in a missing account succeeded")
	}
	out, err = runCLI(t, "users", "reset-password", "--email", "dev@example.com", dd)
	if err != nil || !strings.Contains(out, "/set-password?token=") || !strings.Contains(out, "Earlier links") {
		t.Errorf("users reset-password = %q, %v", out, err)
	}
}
