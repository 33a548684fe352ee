package service

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"testing"

	"github.com/adcamp/adcamp"
)

// TestHeaderJSON: what save stores as an answer's headers decodes to the
// same headers, whatever their characters.
func TestHeaderJSON(t *testing.T) {
	for _, h := range []map[string]string{
		{},
		{"Content-Type": "application/json"},
		{"Content-Type": "application/json", "Etag": `"3"`, "Location": "/api/v1/open/campaigns/cmp_01"},
		{"X-Odd": `back\slash "quoted" <tag> & ~`, "A": ""},
		{"X-Unicode": "café ☕", "X-Control": "a\tb\x00"},
	} {
		b, err := headerJSON(h)
		if err != nil {
			t.Fatalf("headerJSON(%q) = %v", h, err)
		}
		var got map[string]string
		if err := json.Unmarshal(b, &got); err != nil || !maps.Equal(got, h) {
			t.Errorf("headerJSON(%q) = %s, which decodes to %q, %v", h, b, got, err)
		}
	}
}

// TestKeyForHash: a request's hash is the one earlier versions stored,
// so that records written before an upgrade still tell a retry from a
// reused key.
func TestKeyForHash(t *testing.T) {
	s := New(Config{})
	key := &adcamp.APIKey{ID: "ak_live_x", AccountID: "acc_1", Environment: adcamp.Production}
	body := []byte(`{"name":"x"}`)
	k, err := s.KeyFor(key, "", "sig", "PUT", "/campaigns/cmp_1", "validate_only=true", `"3"`, body)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %s?%s\nIf-Match: %s\n", "PUT", "/campaigns/cmp_1", "validate_only=true", `"3"`)
	h.Write(body)
	if want := h.Sum(nil); string(k.hash) != string(want) {
		t.Errorf("KeyFor hash = %x, want %x", k.hash, want)
	}
}
