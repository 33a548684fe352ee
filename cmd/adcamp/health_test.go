package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/sqlite"
)

// serving is serve run in the background, stopped by stop; done is
// closed when it has returned err.
type serving struct {
	addrs map[string]string
	stop  context.CancelFunc
	done  chan struct{}
	err   error
}

func serveInBackground(t *testing.T, args ...string) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{stop: cancel, done: make(chan struct{})}
	ready := make(chan map[string]string, 1)
	c := &cli{lookup: noEnv, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		ready: func(m map[string]string) { ready <- m }}
	go func() { s.err = c.run(ctx, append([]string{"serve"}, args...)); close(s.done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(60 * time.Second):
		}
	})
	select {
	case s.addrs = <-ready:
	case <-s.done:
		t.Fatalf("serve exited: %v", s.err)
	}
	return s
}

// status answers the status and body of a GET.
func status(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHealthEndpoints: on the metrics listener, /livez answers while the
// process serves and /readyz while its database is at the schema it
// carries; the metrics carry the build's version.
func TestHealthEndpoints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := serveInBackground(t, "--data-dir", dir, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "", "--metrics-addr", "127.0.0.1:0")
	base := "http://" + s.addrs["metrics"]
	for _, path := range []string{"/livez", "/readyz"} {
		if code, body := status(base + path); code != 200 {
			t.Errorf("GET %s = %d %s, want 200", path, code, body)
		}
	}
	_, metrics := status(base + "/metrics")
	want := regexp.MustCompile(`adcamp_build_info\{commit="[^"]+",goversion="` + regexp.QuoteMeta(runtime.Version()) + `",version="[^"]+"\} 1`)
	if !want.MatchString(metrics) {
		t.Errorf("the metrics have no adcamp_build_info with the Go version %s", runtime.Version())
	}
	if !strings.Contains(metrics, "\nadcamp_day_journal_entries 0\n") {
		t.Errorf("the metrics have no adcamp_day_journal_entries 0 on a new server")
	}

	// A newer adcamp migrates the database under this process.
	// The process writes in the background (purges, jobs): wait for its
	// lock as it would wait for ours.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, 1)`); err != nil {
		t.Fatal(err)
	}
	if code, body := status(base + "/readyz"); code != 503 || !strings.Contains(body, "newer than this adcamp") {
		t.Errorf("GET /readyz on a newer database = %d %s, want 503 saying why", code, body)
	}
	if code, _ := status(base + "/livez"); code != 200 {
		t.Errorf("GET /livez on a newer database = %d, want 200: the process is up", code)
	}
}

// TestGracefulShutdown: once told to stop, serve answers 503 on /readyz,
// finishes the request in flight, and returns; with --shutdown-timeout,
// a request that never ends does not keep it from returning.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, client := account(t, dir)
	s := serveInBackground(t, "--data-dir", dir, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "", "--metrics-addr", "127.0.0.1:0")
	c := client(s.addrs[string(adcamp.Production)])

	body := `{"name":"In flight","budget_daily":5,"marketplace":"US"}`
	answer, rest := startRequest(t, c, body)
	s.stop()
	if !within(30*time.Second, func() bool {
		code, b := status("http://" + s.addrs["metrics"] + "/readyz")
		return code == 503 && strings.Contains(b, "shutting down")
	}) {
		t.Error("/readyz did not answer 503 while serve drained")
	}
	rest()
	resp := <-answer
	if resp == nil || resp.StatusCode != 201 {
		t.Fatalf("the request in flight at shutdown = %v, want 201", resp)
	}
	if <-s.done; s.err != nil {
		t.Errorf("serve returned %v, want nil", s.err)
	}

	s = serveInBackground(t, "--data-dir", dir, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "", "--shutdown-timeout", "1s")
	startRequest(t, client(s.addrs[string(adcamp.Production)]), body) // its body never comes
	s.stop()
	select {
	case <-s.done:
		if s.err != nil {
			t.Errorf("serve returned %v, want nil", s.err)
		}
	case <-time.After(20 * time.Second): // the default timeout is 30 s
		t.Fatal("serve did not return with --shutdown-timeout 1s while a request hung")
	}
}

// startRequest sends a signed POST /campaigns without its body, and
// waits for the server's 100 Continue: the handler is running, reading
// the body. It returns the answer to come and a function that sends the
// body.
func startRequest(t *testing.T, c *signedClient, body string) (<-chan *http.Response, func()) {
	t.Helper()
	req, _ := http.NewRequest("POST", c.base+"/api/v1/open/campaigns", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Expect", "100-continue")
	signing.SignRequest(req, signing.SchemeA, c.key, c.secret, []byte(body), time.Now())
	pr, pw := io.Pipe()
	req.Body, req.ContentLength = pr, int64(len(body))
	conn, err := net.Dial("tcp", req.URL.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go req.Write(conn)
	r := bufio.NewReader(conn)
	if cont, err := http.ReadResponse(r, req); err != nil || cont.StatusCode != http.StatusContinue {
		t.Fatalf("before the body: %v, %v; want 100 Continue", cont, err)
	}
	answer := make(chan *http.Response, 1)
	go func() {
		resp, err := http.ReadResponse(r, req)
		if err != nil {
			answer <- nil
			return
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		answer <- resp
	}()
	return answer, func() { io.WriteString(pw, body); pw.Close() }
}

// TestVersion: adcamp version names the build and its Go version.
func TestVersion(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "version")
	if err != nil || !strings.HasPrefix(out, "adcamp ") || !strings.Contains(out, runtime.Version()) {
		t.Errorf("adcamp version = %q, %v", out, err)
	}
	out, _ = runCLI(t, "version", "--json")
	var b buildInfo
	if err := json.Unmarshal([]byte(out), &b); err != nil || b.GoVersion != runtime.Version() || b.Version == "" || b.Commit == "" {
		t.Errorf("adcamp version --json = %q (%v)", out, err)
	}
}

// TestOperatorCommandsHelp: the operator's commands answer -h with their
// flags, and a mistake with a usage error.
func TestOperatorCommandsHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"backup", "-h"}, {"restore", "-h"}, {"migrate", "-h"}, {"version", "-h"}} {
		out, err := runCLI(t, args...)
		if err != nil || !strings.Contains(out, "Usage of adcamp "+args[0]) {
			t.Errorf("adcamp %v = %q, %v; want its flags", args, out, err)
		}
	}
	for _, args := range [][]string{{"backup"}, {"restore"}, {"backup", "--to", "x", "extra"}, {"version", "extra"},
		{"serve", "--backup-every", "10s"}, {"serve", "--backup-keep", "0"}, {"serve", "--shutdown-timeout", "-1s"}} {
		if _, err := runCLI(t, args...); exitCode(err) != 2 {
			t.Errorf("adcamp %v = %v, want a usage error", args, err)
		}
	}
}
