package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
)

// TestPanicBecomes500: a panicking handler is answered 500 INTERNAL_ERROR
// in the envelope, and the server goes on serving.
func TestPanicBecomes500(t *testing.T) {
	s, err := New(nil, adcamp.Production, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	s.mux.HandleFunc("GET /boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	srv := httptest.NewServer(s)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/boom")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Success bool
		Error   struct{ Code, Message, RequestID string }
	}
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 500 || body.Success || body.Error.Code != "INTERNAL_ERROR" {
		t.Fatalf("GET /boom = %d %+v (%v), want 500 INTERNAL_ERROR", resp.StatusCode, body, err)
	}
	if body.Error.Message == "boom" || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("the 500 shows the panic or lacks a request id: %+v", body)
	}
	resp, err = http.Get(srv.URL + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after a panic, /healthz = %v, %v; want 200", resp, err)
	}
	resp.Body.Close()
}

// TestRequestIDsAreUnique: request ids have their documented form and do
// not repeat (the counter behind them goes through a bijection), nor count
// up visibly from one request to the next.
func TestRequestIDsAreUnique(t *testing.T) {
	const n = 200_000
	seen := make(map[string]bool, n)
	prev := ""
	for i := range n {
		id := newRequestID()
		if len(id) != 28 || id[:4] != "req_" || strings.Trim(id[4:], "0123456789abcdef") != "" {
			t.Fatalf("newRequestID() = %q, want req_ and 24 lower-case hex digits", id)
		}
		if seen[id] {
			t.Fatalf("newRequestID() repeated %q after %d ids", id, i)
		}
		seen[id] = true
		if i > 0 && id[16:26] == prev[16:26] { // as a plain counter's would, most of the time
			t.Errorf("consecutive ids %s and %s differ only in their last digits", prev, id)
		}
		prev = id
	}
}
