package adcampapi_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// repoRoot is the repository's root, where openapi.yaml and cmd/adcamp are.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "openapi.yaml")); err != nil {
		t.Fatalf("no openapi.yaml at the repository root %s: %v", root, err)
	}
	return root
}

// adcampBinary returns the adcamp binary: $ADCAMP_BIN when set (CI builds it
// once), else one built from the repository for this test.
func adcampBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("ADCAMP_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "adcamp")
	cmd := exec.Command("go", "build", "-C", repoRoot(t), "-o", bin, "./cmd/adcamp")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/adcamp: %v\n%s", err, out)
	}
	return bin
}

// server is a running adcamp serve over a fresh data directory, with an
// account that has a channel account and a sandbox key.
type server struct {
	bin, dataDir     string
	sandbox, prod    string // base URLs, with the /api/v1/open prefix
	accountID        string
	channelAccountID int64
	key, secret      string
}

// startServer starts adcamp serve on ports the system picks, reads the
// addresses from the "listening" lines it logs, and sets up an account
// with the admin commands, as an operator would.
func startServer(t *testing.T) *server {
	t.Helper()
	s := &server{bin: adcampBinary(t), dataDir: t.TempDir()}
	cmd := exec.Command(s.bin, "serve", "--data-dir", s.dataDir,
		"--production-addr", "127.0.0.1:0", "--sandbox-addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("adcamp serve exited with %v", err)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Error("adcamp serve did not stop within 30 s of SIGTERM")
		}
		wg.Wait()
	})
	urls := make(chan map[string]string, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		found := map[string]string{}
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct{ Msg, Env, URL string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				found[line.Env] = line.URL
				if len(found) == 2 {
					urls <- found
				}
			}
		}
	}()
	select {
	case u := <-urls:
		s.sandbox, s.prod = u["sandbox"], u["production"]
	case <-time.After(60 * time.Second):
		t.Fatal("adcamp serve logged no listening addresses within 60 s")
	}

	var account struct{ ID string }
	s.admin(t, &account, "accounts", "create", "--name", "Acme", "--json")
	s.accountID = account.ID
	var ca struct{ ID int64 }
	s.admin(t, &ca, "channel-accounts", "create", "--account", s.accountID, "--marketplace", "DE", "--name", "Acme DE", "--json")
	s.channelAccountID = ca.ID
	var key struct {
		APIKey    string `json:"api_key"`
		APISecret string `json:"api_secret"`
	}
	s.admin(t, &key, "keys", "create", "--account", s.accountID, "--env", "sandbox", "--json")
	s.key, s.secret = key.APIKey, key.APISecret
	if s.accountID == "" || s.channelAccountID == 0 || s.key == "" || s.secret == "" {
		t.Fatalf("admin commands gave account %q, channel account %d, key %q", s.accountID, s.channelAccountID, s.key)
	}
	return s
}

// admin runs an admin command against the server's data and decodes its
// JSON output into out.
func (s *server) admin(t *testing.T, out any, args ...string) {
	t.Helper()
	cmd := exec.Command(s.bin, append(args, "--data-dir", s.dataDir)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("adcamp %v: %v\n%s", args, err, stderr.Bytes())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("adcamp %v printed %s: %v", args, stdout, err)
	}
}

// signer signs requests as the spec says, with plain crypto/hmac: the
// RequestEditorFn handed to the generated client.
type signer struct {
	key, secret string
	scheme      string // "a" or "b"
	mu          sync.Mutex
	last        int64
}

// stringToSign is Scheme A (timestamp + METHOD + path + body) or Scheme B
// (METHOD \n path \n timestamp \n md5hex(body)).
func stringToSign(scheme, timestamp, method, path string, body []byte) string {
	if scheme == "b" {
		sum := md5.Sum(body)
		return method + "\n" + path + "\n" + timestamp + "\n" + hex.EncodeToString(sum[:])
	}
	return timestamp + method + path + string(body)
}

func sign(secret, msg string) string {
	m := hmac.New(sha256.New, []byte(secret))
	io.WriteString(m, msg)
	return hex.EncodeToString(m.Sum(nil))
}

// edit signs req. Each request gets a timestamp later than the last, so
// that two equal changes are never taken for a replay of one another.
func (s *signer) edit(_ context.Context, req *http.Request) error {
	var body []byte
	if req.GetBody != nil {
		rc, err := req.GetBody()
		if err != nil {
			return err
		}
		if body, err = io.ReadAll(rc); err != nil {
			return err
		}
	}
	s.mu.Lock()
	ts := max(time.Now().Unix(), s.last+1)
	s.last = ts
	s.mu.Unlock()
	timestamp := strconv.FormatInt(ts, 10)
	req.Header.Set("X-API-Key", s.key)
	req.Header.Set("X-Timestamp", timestamp)
	req.Header.Set("X-Signature", sign(s.secret, stringToSign(s.scheme, timestamp, req.Method, req.URL.EscapedPath(), body)))
	return nil
}

// TestSignerVectors checks the test's signer against the repository's
// published signing vectors, so that what the live test proves rests on a
// signer known to be right.
func TestSignerVectors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "client", "signing", "testdata", "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []struct {
			Name, Scheme, Secret string
			PathForm             string `json:"path_form"`
			StringToSign         string `json:"string_to_sign"`
			Signature            string
			Request              struct{ Method, Path, Timestamp, Body string }
		}
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range file.Vectors {
		if v.PathForm != "full" {
			continue // the relative form is Scheme A's other spelling; the signer sends full paths
		}
		n++
		msg := stringToSign(v.Scheme, v.Request.Timestamp, v.Request.Method, v.Request.Path, []byte(v.Request.Body))
		if msg != v.StringToSign {
			t.Errorf("%s: string to sign %q, want %q", v.Name, msg, v.StringToSign)
		}
		if got := sign(v.Secret, msg); got != v.Signature {
			t.Errorf("%s: signature %s, want %s", v.Name, got, v.Signature)
		}
	}
	if n < 5 {
		t.Fatalf("checked %d vectors; vectors.json has more", n)
	}
}
