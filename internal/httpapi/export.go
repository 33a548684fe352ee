package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/adcamp/adcamp"
)

// What the operator listener (internal/operatorapi) shares with the API:
// the envelope, the one error adapter and the request ids, so that both
// answer alike.

// HeaderRequestID is the header carrying a response's request id.
const HeaderRequestID = headerRequestID

// NewRequestID returns a new request id ("req_" and 24 hex digits).
func NewRequestID() string { return newRequestID() }

// WriteData writes the success envelope around data.
func WriteData(w http.ResponseWriter, status int, data any) { writeData(w, status, data) }

// WriteError writes err in the error envelope, as the API does; an error
// that is not an *adcamp.Error is logged to log and shown as INTERNAL_ERROR.
func WriteError(log *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	(&Server{log: log}).writeError(w, r, err)
}

// StatusOf is the HTTP status of an error code (500 for one unknown).
func StatusOf(code adcamp.Code) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}
