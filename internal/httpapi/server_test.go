package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
)

// TestPanicBecomes500: a panicking handler is answered 500 INTERNAL_ERROR
// in the envelope, and the server goes on serving.
func TestPanicBecomes500(t *testing.T) {
	t.Parallel()
	s, err := New(nil, nil, adcamp.Production, slog.New(slog.DiscardHandler))
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
	t.Parallel()
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

// TestRequestIDsAreRandom: no part of an id is the process's, and no
// two ids are related: the difference of consecutive ids (as numbers) is
// not a constant, as it would be for a counter under any fixed bijection
// of the form a×n ^ mask.
func TestRequestIDsAreRandom(t *testing.T) {
	t.Parallel()
	prefixes, steps := map[string]bool{}, map[uint64]bool{}
	var prev uint64
	for i := range 1000 {
		id := newRequestID()
		prefixes[id[4:16]] = true
		n, err := strconv.ParseUint(id[16:], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			steps[(n^prev)&0xff] = true
		}
		prev = n
	}
	if len(prefixes) < 990 {
		t.Errorf("1000 ids have %d distinct first 12 digits, want them all (nearly) distinct", len(prefixes))
	}
	if len(steps) < 200 {
		t.Errorf("the low byte of consecutive ids XORed takes %d values, want about 256", len(steps))
	}
}
