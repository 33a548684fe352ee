package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/adcamp/adcamp/client/signing"
)

// buildBinary builds cmd/adcamp into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "adcamp")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// freeAddr returns a loopback address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startProcess runs the binary's serve command and waits until it is ready.
func startProcess(t *testing.T, bin, addr string, args ...string) *exec.Cmd {
	t.Helper()
	return startProcessEnv(t, bin, addr, nil, args...)
}

// startProcessEnv is startProcess with env added to the process's
// environment.
func startProcessEnv(t *testing.T, bin, addr string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--production-addr", addr, "--sandbox-addr", "", "--console-addr", "", "--operator-addr", "",
		"--metrics-addr", "", "--log-level", "error"}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return cmd
			}
		}
	}
	t.Fatal("serve did not become ready")
	return nil
}

// signedClient sends Scheme A requests with one credential.
type signedClient struct {
	base, key, secret string
	http              *http.Client
}

func (c *signedClient) do(method, path, body string, header ...string) (int, map[string]any, error) {
	req, err := http.NewRequest(method, c.base+"/api/v1/open"+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	signing.SignRequest(req, signing.SchemeA, c.key, c.secret, []byte(body), time.Now())
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var env map[string]any
	err = json.NewDecoder(resp.Body).Decode(&env)
	data, _ := env["data"].(map[string]any)
	return resp.StatusCode, data, err
}

// TestCrashSafety kills serve with SIGKILL under concurrent writes and
// restarts it: every write answered 2xx is there, nothing answered as
// failed was stored, and the database passes an integrity check.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and kills a server process")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	dd := "--data-dir=" + dir
	acc := mustJSON(t, "accounts", "create", "--name", "Crash", dd)["id"].(string)
	k := mustJSON(t, "keys", "create", "--account", acc, "--env", "production", dd)
	addr := freeAddr(t)
	proc := startProcess(t, bin, addr, dd)
	c := &signedClient{base: "http://" + addr, key: k["api_key"].(string), secret: k["api_secret"].(string),
		http: &http.Client{Timeout: 5 * time.Second}}

	type ack struct {
		version float64
		name    string
	}
	var mu sync.Mutex
	acked := map[string]ack{} // campaign id -> last acknowledged write
	var refused []string      // names of creates answered 400
	stop := make(chan struct{})
	// The kill is paced by what was acknowledged, not by the clock: it
	// comes once killAfter campaigns were created, with the writers still
	// writing, however fast or slow the machine is.
	const killAfter = 40
	enough := make(chan struct{})
	var enoughOnce sync.Once
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("w%d-%d", w, i)
				if i%5 == 4 {
					if status, _, err := c.do("POST", "/campaigns", `{"name":"bad-`+name+`","budget_daily":0,"marketplace":"US"}`); err == nil && status == 400 {
						mu.Lock()
						refused = append(refused, "bad-"+name)
						mu.Unlock()
					}
					continue
				}
				status, d, err := c.do("POST", "/campaigns", `{"name":"`+name+`","budget_daily":1,"marketplace":"US"}`)
				if err != nil || status != 201 {
					continue
				}
				id := d["id"].(string)
				mu.Lock()
				acked[id] = ack{d["version"].(float64), name}
				if len(acked) >= killAfter {
					enoughOnce.Do(func() { close(enough) })
				}
				mu.Unlock()
				status, d, err = c.do("PUT", "/campaigns/"+id, `{"name":"`+name+`-v2"}`, "If-Match", `"1"`)
				if err == nil && status == 200 {
					mu.Lock()
					acked[id] = ack{d["version"].(float64), name + "-v2"}
					mu.Unlock()
				}
			}
		})
	}
	select {
	case <-enough:
	case <-time.After(2 * time.Minute): // a bound on a stuck server, not a pace
		close(stop)
		wg.Wait()
		t.Fatalf("only %d campaigns were created in two minutes; want %d before the kill", len(acked), killAfter)
	}
	proc.Process.Signal(syscall.SIGKILL)
	proc.Wait()
	close(stop)
	wg.Wait()

	startProcess(t, bin, addr, dd)
	for id, a := range acked {
		status, d, err := c.do("GET", "/campaigns/"+id, "")
		if err != nil || status != 200 {
			t.Errorf("acknowledged campaign %s: GET = %d, %v", id, status, err)
			continue
		}
		if v := d["version"].(float64); v < a.version || (v == a.version && d["name"] != a.name) {
			t.Errorf("campaign %s is at version %v named %v; version %v named %s was acknowledged", id, v, d["name"], a.version, a.name)
		}
	}
	names := map[string]bool{}
	for page := 1; ; page++ {
		status, d, err := c.do("GET", fmt.Sprintf("/campaigns?page=%d&page_size=100", page), "")
		if err != nil || status != 200 {
			t.Fatalf("list after restart: %d, %v", status, err)
		}
		items := d["items"].([]any)
		for _, it := range items {
			names[it.(map[string]any)["name"].(string)] = true
		}
		if len(items) < 100 {
			break
		}
	}
	for _, n := range refused {
		if names[n] {
			t.Errorf("campaign %s was refused with 400 but is stored", n)
		}
	}
	t.Logf("%d campaigns acknowledged, %d stored, %d refused creates absent", len(acked), len(names), len(refused))

	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "adcamp.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var result bytes.Buffer
	rows, err := db.QueryContext(context.Background(), "PRAGMA integrity_check")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		result.WriteString(s)
	}
	rows.Close()
	if result.String() != "ok" {
		t.Errorf("integrity_check = %q, want ok", result.String())
	}

	// The change history: no change without its record, no record
	// without its change. Every campaign has its create and one update
	// record per version after the first; every record names a campaign
	// that is there (nothing was deleted).
	for _, check := range []struct{ what, query string }{
		{"campaigns without their create record", `SELECT count(*) FROM campaigns c WHERE NOT EXISTS (
			SELECT 1 FROM changes WHERE entity_id = c.id AND operation = 'create')`},
		{"campaigns whose versions and update records disagree", `SELECT count(*) FROM campaigns c WHERE c.version - 1 <> (
			SELECT count(*) FROM changes WHERE entity_id = c.id AND operation = 'update')`},
		{"records of campaigns not stored", `SELECT count(*) FROM changes ch WHERE ch.entity_type = 'campaign'
			AND NOT EXISTS (SELECT 1 FROM campaigns WHERE id = ch.entity_id)`},
	} {
		var n int
		if err := db.QueryRow(check.query).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d (%v), want none", check.what, n, err)
		}
	}
	var records int
	db.QueryRow(`SELECT count(*) FROM changes WHERE entity_type = 'campaign'`).Scan(&records)
	t.Logf("%d change records of campaigns, each with its change", records)
}
