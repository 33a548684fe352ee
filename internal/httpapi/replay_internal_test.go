package httpapi

import (
	"encoding/json"
	"maps"
	"testing"
)

// TestHeaderJSON: what replay protection keeps of an answer's headers decodes to the
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
