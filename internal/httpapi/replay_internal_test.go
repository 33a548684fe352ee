package httpapi

import (
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"testing"
)

// TestHeaderJSON: what replay protection keeps of an answer's headers decodes to the
// same headers, whatever their characters.
func TestHeaderJSON(t *testing.T) {
	t.Parallel()
	for _, h := range []map[string]string{
		{},
		{"Content-Type": "application/json"},
		{"Content-Type": "application/json", "Etag": `"3"`, "Location": "/api/v1/open/campaigns/cmp_01"},
		{"X-Odd": `back\slash "quoted" <tag> & ~`, "A": ""},
		{"X-Unicode": "café ☕", "X-Control": "a\tb\x00"},
	} {
		b := headerJSON(h)
		var got map[string]string
		if err := json.Unmarshal(b, &got); err != nil || !maps.Equal(got, h) {
			t.Errorf("headerJSON(%q) = %s, which decodes to %q, %v", h, b, got, err)
		}
	}
}

// TestHeaderKeysCanonical: the keys get indexes http.Header with are in
// the canonical form the request's headers are stored under, so that get
// finds what Header.Get would.
func TestHeaderKeysCanonical(t *testing.T) {
	t.Parallel()
	for _, key := range []string{headerAPIKey, headerTimestamp, headerSignature,
		headerContentType, headerIfMatch, headerIdempotencyKey, headerExpect, headerRequestID} {
		if c := http.CanonicalHeaderKey(key); c != key {
			t.Errorf("header key %q: canonical form is %q", key, c)
		}
		h := http.Header{}
		h.Set(strings.ToLower(key), "v")
		if got := get(h, key); got != "v" {
			t.Errorf("get(h, %q) = %q after h.Set(%q, \"v\")", key, got, strings.ToLower(key))
		}
	}
	for _, h := range replayedHeaders {
		if c := http.CanonicalHeaderKey(h.name); c != h.key || replayedKey(h.name) != c {
			t.Errorf("kept header %q: key %q, canonical form %q", h.name, h.key, c)
		}
	}
	if got := replayedKey("x-other"); got != "X-Other" {
		t.Errorf(`replayedKey("x-other") = %q, want "X-Other"`, got)
	}
}
