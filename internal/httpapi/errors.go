package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/adcamp/adcamp"
)

// statusOf is the one table from error code to HTTP status.
var statusOf = map[adcamp.Code]int{
	adcamp.CodeValidation:             http.StatusBadRequest,
	adcamp.CodeInvalidJSON:            http.StatusBadRequest,
	adcamp.CodeUnsupportedMediaType:   http.StatusUnsupportedMediaType,
	adcamp.CodePayloadTooLarge:        http.StatusRequestEntityTooLarge,
	adcamp.CodeHeadersTooLarge:        http.StatusRequestHeaderFieldsTooLarge,
	adcamp.CodeNotFound:               http.StatusNotFound,
	adcamp.CodeMethodNotAllowed:       http.StatusMethodNotAllowed,
	adcamp.CodeInvalidStateTransition: http.StatusConflict,
	adcamp.CodeDuplicateKeyword:       http.StatusConflict,
	adcamp.CodeIdempotencyKeyReused:   http.StatusConflict,
	adcamp.CodeConflict:               http.StatusConflict,
	adcamp.CodePreconditionFailed:     http.StatusPreconditionFailed,
	adcamp.CodeRateLimited:            http.StatusTooManyRequests,
	adcamp.CodeInternal:               http.StatusInternalServerError,
	adcamp.CodeUnavailable:            http.StatusServiceUnavailable,
	adcamp.CodeUnauthorized:           http.StatusUnauthorized,
	adcamp.CodeTimestampExpired:       http.StatusUnauthorized,
	adcamp.CodeInvalidSignature:       http.StatusUnauthorized,
	adcamp.CodeSignatureInvalid:       http.StatusUnauthorized,
	adcamp.CodeAPIKeyDisabled:         http.StatusForbidden,
	adcamp.CodeInsufficientScope:      http.StatusForbidden,
	adcamp.CodeIPNotAllowed:           http.StatusForbidden,
}

type errorBody struct {
	Code      adcamp.Code `json:"code"`
	Message   string      `json:"message"`
	Details   any         `json:"details,omitempty"`
	RequestID string      `json:"request_id,omitempty"` // always set, but on the items of a 207
}

// writeError is the one place that turns an error into a response. An
// *adcamp.Error is shown as it is; anything else is logged in full and
// shown as a generic INTERNAL_ERROR.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *adcamp.Error
	if !errors.As(err, &e) {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			// The client went away; nobody reads this answer.
			e = &adcamp.Error{Code: adcamp.CodeInternal, Message: "request canceled"}
		} else {
			s.log.ErrorContext(r.Context(), "internal error", "request_id", requestID(w), "err", err)
			e = &adcamp.Error{Code: adcamp.CodeInternal, Message: "an internal error occurred; quote the request id if you report it"}
		}
	}
	status, ok := statusOf[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	switch {
	case w.Header().Get("Retry-After") != "":
	case e.Code == adcamp.CodeUnavailable:
		// The database is down or restarting: a client should come back
		// in a moment, not at once.
		w.Header().Set("Retry-After", "1")
	case e.Code == adcamp.CodeRateLimited:
		// A limit without a clock of its own (the report jobs an account
		// may have running): come back when one may have ended.
		w.Header().Set("Retry-After", "10")
	}
	s.log.DebugContext(r.Context(), "request failed", "request_id", requestID(w), "code", e.Code, "status", status)
	writeJSON(w, status, struct {
		Success bool      `json:"success"`
		Error   errorBody `json:"error"`
	}{false, errorBody{e.Code, e.Message, e.Details, requestID(w)}})
}

func requestID(w http.ResponseWriter) string { return get(w.Header(), headerRequestID) }

// errorf is shorthand for returning a coded error from a handler.
func errorf(code adcamp.Code, format string, args ...any) error {
	return adcamp.Errorf(code, format, args...)
}
