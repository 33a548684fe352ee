package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// writeJSON renders v completely before writing anything, so that an
// encoding failure becomes a clean 500 rather than half a body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"success":false,"error":{"code":"INTERNAL_ERROR","message":"response could not be encoded","request_id":` +
			strconv.Quote(requestID(w)) + `}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// writeData writes the success envelope around data.
func writeData(w http.ResponseWriter, status int, data any) {
	writeJSON(w, status, struct {
		Success bool `json:"success"`
		Data    any  `json:"data"`
	}{true, data})
}

// timeJSON formats times as RFC 3339 in UTC with a Z, to the second.
func timeJSON(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// etag is the entity tag of a version: its decimal form in quotes.
func etag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }
