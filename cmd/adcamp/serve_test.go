package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/httpapi"
)

// startServe runs serve with args in the background and returns the
// bound addresses; the server stops when the test ends.
func startServe(t *testing.T, args ...string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan map[string]string, 1)
	done := make(chan error, 1)
	c := &cli{lookup: noEnv, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
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
		return m
	case err := <-done:
		done <- nil // for the cleanup, which waits for serve to end
		t.Fatalf("serve exited: %v", err)
	case <-time.After(60 * time.Second): // generous: -race, beside the browser tests, on 2 cores
		t.Fatal("serve did not start")
	}
	return nil
}

// TestTLSVersions: with --tls-cert/--tls-key, TLS 1.2 and 1.3 connect and
// TLS 1.1 is refused.
func TestTLSVersions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile := writeCert(t, dir)
	addrs := startServe(t, "--data-dir", dir, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "",
		"--tls-cert", certFile, "--tls-key", keyFile)
	addr := addrs[string(adcamp.Production)]
	pool := x509.NewCertPool()
	pem, _ := os.ReadFile(certFile)
	pool.AppendCertsFromPEM(pem)

	for _, v := range []struct {
		name    string
		version uint16
		ok      bool
	}{{"TLS 1.1", tls.VersionTLS11, false}, {"TLS 1.2", tls.VersionTLS12, true}, {"TLS 1.3", tls.VersionTLS13, true}} {
		cfg := &tls.Config{RootCAs: pool, MinVersion: v.version, MaxVersion: v.version, ServerName: "127.0.0.1"}
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 5 * time.Second}
		resp, err := client.Get("https://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		if !v.ok && (err == nil || !strings.Contains(err.Error(), "protocol version")) {
			t.Errorf("%s: error %v, want the server to refuse the protocol version", v.name, err)
		}
		if got := err == nil && resp.StatusCode == 200; got != v.ok {
			t.Errorf("%s: connected = %v (%v), want %v", v.name, got, err, v.ok)
		}
	}
	// Plain HTTP on the TLS port gets nothing useful.
	if resp, err := http.Get("http://" + addr + "/healthz"); err == nil && resp.StatusCode == 200 {
		t.Error("plain HTTP was served on the TLS listener")
	}
}

func writeCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "adcamp test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	return certFile, keyFile
}

// TestSlowClientsAreCutOff: a client that dribbles its headers or its
// body loses the connection when the timeouts run out, and oversized
// headers are refused; the server goes on serving.
func TestSlowClientsAreCutOff(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, "body too slow", http.StatusRequestTimeout)
			return
		}
		w.Write([]byte("ok"))
	})
	srv := newHTTPServer(h, slog.New(slog.DiscardHandler), timeouts{header: 200 * time.Millisecond,
		read: 400 * time.Millisecond, write: time.Second, idle: time.Second})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	defer srv.Close()
	addr := l.Addr().String()

	cutOff := func(name, send string) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, send)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		start := time.Now()
		reply, _ := io.ReadAll(c) // returns when the server closes
		if time.Since(start) >= 5*time.Second {
			t.Errorf("%s: the connection stayed open", name)
		}
		if strings.Contains(string(reply), "200 OK") {
			t.Errorf("%s: answered 200: %q", name, reply)
		}
	}
	cutOff("slow headers", "POST / HTTP/1.1\r\nHost: x\r\n")
	cutOff("slow body", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\":")

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", httpapi.ServerMaxHeaderBytes+4096)+"\r\n\r\n")
	status, _ := bufio.NewReader(c).ReadString('\n')
	c.Close()
	if !strings.Contains(status, "431") {
		t.Errorf("oversized headers answered %q, want 431", status)
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the slow clients, GET / = %v, %v", resp, err)
	}
	resp.Body.Close()
}

// TestMaxConnections: with --max-connections N, a listener holds N
// connections at most; another waits until one closes.
func TestMaxConnections(t *testing.T) {
	t.Parallel()
	addrs := startServe(t, "--data-dir", t.TempDir(), "--production-addr", "127.0.0.1:0", "--sandbox-addr", "",
		"--max-connections", "1")
	addr := addrs[string(adcamp.Production)]
	held, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	// A request on it, so the server has surely accepted it.
	io.WriteString(held, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	if line, err := bufio.NewReader(held).ReadString('\n'); err != nil || !strings.Contains(line, "200") {
		t.Fatalf("first connection: %q, %v", line, err)
	}
	other := &http.Client{Timeout: 500 * time.Millisecond, Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := other.Get("http://" + addr + "/healthz"); err == nil {
		resp.Body.Close()
		t.Fatal("a second connection was served while the first was open")
	}
	held.Close()
	other.Timeout = 5 * time.Second
	resp, err := other.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("once the first connection closed: %v", err)
	}
	resp.Body.Close()
}

// TestServeAnswersInTheEnvelope: serve's HTTP servers leave to the API
// what net/http would answer itself (OPTIONS *, headers between the API's
// limit and the server's), so that it answers in its envelope.
func TestServeAnswersInTheEnvelope(t *testing.T) {
	t.Parallel()
	addrs := startServe(t, "--data-dir", t.TempDir(), "--production-addr", "127.0.0.1:0", "--sandbox-addr", "")
	addr := addrs[string(adcamp.Production)]
	for name, send := range map[string]string{
		"OPTIONS *":         "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
		"100 KB of headers": "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 100<<10) + "\r\n\r\n",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, send)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		c.Close()
		if resp.Header.Get("X-Request-Id") == "" || !strings.Contains(string(body), `"success":false`) {
			t.Errorf("%s: %d %q, want the envelope", name, resp.StatusCode, body)
		}
	}
}
