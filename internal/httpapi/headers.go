package httpapi

import (
	"net/http"

	"github.com/adcamp/adcamp/client/signing"
)

// The headers the server reads on every request, in the canonical form
// http.Header stores them under. Header.Get canonicalizes its key at every
// call, which took 2.6 % of a create's instructions in the handler
// (callgrind, bench/instructions.sh); get indexes the map directly.
var (
	headerAPIKey    = http.CanonicalHeaderKey(signing.HeaderAPIKey)
	headerTimestamp = http.CanonicalHeaderKey(signing.HeaderTimestamp)
	headerSignature = http.CanonicalHeaderKey(signing.HeaderSignature)
)

const (
	headerContentType    = "Content-Type"
	headerIfMatch        = "If-Match"
	headerIdempotencyKey = "Idempotency-Key"
	headerExpect         = "Expect"
	headerRequestID      = "X-Request-Id"
)

// get is h.Get(key) for a key in canonical form.
func get(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
