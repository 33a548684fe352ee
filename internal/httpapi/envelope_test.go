package httpapi_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/httpapi"
)

// rawAnswer sends raw bytes on a new connection to srv, written whole
// before anything is read (as Python's http.client does), and reads one
// answer.
func rawAnswer(t *testing.T, addr, request string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatalf("writing the request: %v", err)
	}
	if body != nil {
		if _, err := io.Copy(conn, body); err != nil {
			t.Fatalf("writing the body: %v", err)
		}
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	return resp, raw
}

// wantEnvelope checks an answer read off the wire: its status, the
// envelope with code, and the headers every answer carries.
func wantEnvelope(t *testing.T, what string, resp *http.Response, raw []byte, status int, code adcamp.Code) {
	t.Helper()
	var env struct {
		Success bool
		Error   struct {
			Code      string `json:"code"`
			RequestID string `json:"request_id"`
		}
	}
	if err := json.Unmarshal(raw, &env); err != nil || resp.StatusCode != status || env.Error.Code != string(code) {
		t.Errorf("%s: %d %q, want %d with the envelope of %s", what, resp.StatusCode, raw, status, code)
		return
	}
	if id := resp.Header.Get("X-Request-Id"); id == "" || id != env.Error.RequestID || resp.Header.Get("Date") == "" {
		t.Errorf("%s: X-Request-Id %q (envelope %q), Date %q; want both", what, id, env.Error.RequestID, resp.Header.Get("Date"))
	}
}

// TestEveryAnswerAnEnvelope: answers that net/http or its mux would give
// in their own words come in the envelope: headers too large for the API
// (below the server's own limit), unclean paths (which the mux would
// redirect), OPTIONS * and CONNECT.
func TestEveryAnswerAnEnvelope(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	h, err := httpapi.New(e.svc.Ads, e.svc.Keys, adcamp.Production, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.MaxHeaderBytes = httpapi.ServerMaxHeaderBytes
	srv.Config.DisableGeneralOptionsHandler = true
	srv.Start()
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()

	big := strings.Repeat("a", 100<<10)
	resp, raw := rawAnswer(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: "+big+"\r\n\r\n", nil)
	wantEnvelope(t, "100 KB of headers", resp, raw, 431, adcamp.CodeHeadersTooLarge)

	for _, target := range []string{"/api/v1/open//campaigns", "//healthz", "/api/v1/open/campaigns/../time", "/api/v1/open/./time", "/v1/time/."} {
		resp, raw := rawAnswer(t, addr, "GET "+target+" HTTP/1.1\r\nHost: x\r\n\r\n", nil)
		wantEnvelope(t, "GET "+target, resp, raw, 404, adcamp.CodeNotFound)
	}
	resp, raw = rawAnswer(t, addr, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", nil)
	wantEnvelope(t, "OPTIONS *", resp, raw, 404, adcamp.CodeNotFound)
	resp, raw = rawAnswer(t, addr, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", nil)
	wantEnvelope(t, "CONNECT", resp, raw, 404, adcamp.CodeNotFound)
}

// TestRefusalsAreReadable: a client that writes its whole body before it
// reads (as Python's http.client does) gets the answer to a request
// refused before its body was read: a 413 for a body of several MiB, a
// 401 for a bad key.
func TestRefusalsAreReadable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	addr := strings.TrimPrefix(e.servers[adcamp.Production].URL, "http://")
	head := func(key string, length int) string {
		ts := signing.Timestamp(e.clock.Now())
		return fmt.Sprintf("POST /api/v1/open/campaigns HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
			"X-API-Key: %s\r\nX-Timestamp: %s\r\nX-Signature: %s\r\nContent-Length: %d\r\n\r\n",
			key, ts, strings.Repeat("0", 64), length)
	}
	const size = 6 << 20
	resp, raw := rawAnswer(t, addr, head(prod.key, size), strings.NewReader(strings.Repeat(" ", size)))
	wantEnvelope(t, "a body of 6 MiB", resp, raw, 413, adcamp.CodePayloadTooLarge)
	resp, raw = rawAnswer(t, addr, head("ak_live_nobody", 900<<10), strings.NewReader(strings.Repeat(" ", 900<<10)))
	wantEnvelope(t, "a bad key with a body of 900 KiB", resp, raw, 401, adcamp.CodeUnauthorized)
}

// TestHeadersCheckedBeforeBody: the headers, the timestamp and the key
// are checked before the body is read: a request that fails them is
// answered so whatever its body, which costs no read of it.
func TestHeadersCheckedBeforeBody(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	addr := strings.TrimPrefix(e.servers[adcamp.Production].URL, "http://")
	const size = 2 << 20 // over the 1 MiB a body may have
	for _, c := range []struct {
		key, ts string
		code    adcamp.Code
	}{
		{"ak_live_nobody", signing.Timestamp(e.clock.Now()), adcamp.CodeUnauthorized},
		{prod.key, signing.Timestamp(e.clock.Now().Add(-time.Hour)), adcamp.CodeTimestampExpired},
		{prod.key, "", adcamp.CodeUnauthorized},
	} {
		head := fmt.Sprintf("POST /api/v1/open/campaigns HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
			"X-API-Key: %s\r\nX-Timestamp: %s\r\nX-Signature: %s\r\nContent-Length: %d\r\n\r\n", c.key, c.ts, strings.Repeat("0", 64), size)
		resp, raw := rawAnswer(t, addr, head, strings.NewReader(strings.Repeat(" ", size)))
		wantEnvelope(t, string(c.code)+" with a body of 2 MiB", resp, raw, 401, c.code)
	}
}
