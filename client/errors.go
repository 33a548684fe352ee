package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error codes the API answers with (Error.Code).
const (
	CodeValidation             = "VALIDATION_ERROR"
	CodeInvalidJSON            = "INVALID_JSON"
	CodeUnsupportedMediaType   = "UNSUPPORTED_MEDIA_TYPE"
	CodePayloadTooLarge        = "PAYLOAD_TOO_LARGE"
	CodeHeadersTooLarge        = "HEADERS_TOO_LARGE"
	CodeNotFound               = "NOT_FOUND"
	CodeMethodNotAllowed       = "METHOD_NOT_ALLOWED"
	CodeInvalidStateTransition = "INVALID_STATE_TRANSITION"
	CodeDuplicateKeyword       = "DUPLICATE_KEYWORD"
	CodeIdempotencyKeyReused   = "IDEMPOTENCY_KEY_REUSED"
	CodeConflict               = "CONFLICT"
	CodePreconditionFailed     = "PRECONDITION_FAILED"
	CodeRateLimited            = "RATE_LIMITED"
	CodeInternal               = "INTERNAL_ERROR"
	CodeUnavailable            = "SERVICE_UNAVAILABLE"
	CodeUnauthorized           = "UNAUTHORIZED"
	CodeTimestampExpired       = "TIMESTAMP_EXPIRED"
	CodeInvalidSignature       = "INVALID_SIGNATURE" // signing modes auto and a
	CodeSignatureInvalid       = "SIGNATURE_INVALID" // signing mode b
	CodeAPIKeyDisabled         = "API_KEY_DISABLED"
	CodeInsufficientScope      = "INSUFFICIENT_SCOPE" // the key's scope does not cover the operation
	CodeIPNotAllowed           = "IP_NOT_ALLOWED"     // the client address is outside the key's ranges
)

// Error is a failure the API answered with. Every method of Client that
// gets an error response returns an *Error; use [errors.As] or the Is*
// predicates ([IsNotFound], [IsDuplicateKeyword], ...) to inspect it.
type Error struct {
	// StatusCode is the HTTP status (or, for an item of a keyword batch,
	// the status the item would have had alone).
	StatusCode int
	// Code is one of the Code* constants; empty if the response was not
	// the API's error envelope (for example from a proxy).
	Code string
	// Message is the API's human-readable explanation.
	Message string
	// Details lists the bad fields of a VALIDATION_ERROR, INVALID_JSON or
	// DUPLICATE_KEYWORD, every one of them at once.
	Details []FieldIssue
	// AuthDetails holds the details of an authentication error:
	// server_time, server_time_iso, skew_seconds and, in the sandbox,
	// expected_strings_to_sign; required_scope and granted_scope of an
	// INSUFFICIENT_SCOPE; client_ip of an IP_NOT_ALLOWED. Numbers are
	// json.Number.
	AuthDetails map[string]any
	// RequestID identifies the request; quote it when reporting a problem.
	RequestID string
	// RetryAfter is the wait the server asked for (Retry-After), if any.
	RetryAfter time.Duration
}

// FieldIssue names one invalid field or query parameter and what is wrong
// with it, as a phrase that follows the field name ("must not be empty").
type FieldIssue struct {
	Field string `json:"field"`
	Issue string `json:"issue"`
}

var oneLine = strings.NewReplacer("\r", `\r`, "\n", `\n`)

// Error returns a one-line description with the status, code, message and
// request id.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("adcamp: ")
	b.WriteString(strconv.Itoa(e.StatusCode))
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + oneLine.Replace(e.Message))
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

// ServerTime returns the server's clock given in an authentication
// error's details, if there is one.
func (e *Error) ServerTime() (time.Time, bool) {
	n, ok := e.AuthDetails["server_time"].(json.Number)
	if !ok {
		return time.Time{}, false
	}
	sec, err := n.Int64()
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}

// wireError is the error object of the API's envelope.
type wireError struct {
	Code      string          `json:"code"`
	Message   string          `json:"message"`
	Details   json.RawMessage `json:"details"`
	RequestID string          `json:"request_id"`
}

// toError converts a wire error; status and requestID fill what it lacks.
func (w *wireError) toError(status int, requestID string) *Error {
	e := &Error{StatusCode: status, Code: w.Code, Message: w.Message, RequestID: w.RequestID}
	if e.RequestID == "" {
		e.RequestID = requestID
	}
	d := bytes.TrimSpace(w.Details)
	switch {
	case len(d) > 0 && d[0] == '[':
		json.Unmarshal(d, &e.Details) // best effort: the code and message stand alone
	case len(d) > 0 && d[0] == '{':
		dec := json.NewDecoder(bytes.NewReader(d))
		dec.UseNumber()
		dec.Decode(&e.AuthDetails)
	}
	return e
}

// responseError builds the error for a non-2xx response with body raw.
func responseError(resp *http.Response, raw []byte, now time.Time) *Error {
	var env struct {
		Error *wireError `json:"error"`
	}
	requestID := resp.Header.Get("X-Request-Id")
	var e *Error
	if json.Unmarshal(raw, &env) == nil && env.Error != nil && env.Error.Code != "" {
		e = env.Error.toError(resp.StatusCode, requestID)
	} else {
		e = &Error{StatusCode: resp.StatusCode, Message: nonAPIMessage(resp.StatusCode, raw), RequestID: requestID}
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		e.Message = fmt.Sprintf("%s to %q, which the client does not follow (a signed request is for the host it "+
			"was signed for): if that is the API, make it the base URL", http.StatusText(resp.StatusCode), resp.Header.Get("Location"))
	}
	e.RetryAfter, _ = retryAfter(resp.Header, now)
	return e
}

// nonAPIMessage describes a response that is not the API's envelope.
func nonAPIMessage(status int, raw []byte) string {
	msg := http.StatusText(status)
	snippet := strings.TrimSpace(string(raw))
	if len(snippet) > 200 {
		snippet = snippet[:200] + "..."
	}
	if snippet != "" {
		msg += ": " + snippet
	}
	return msg
}

func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e
	}
	return nil
}

// ErrorCode returns the API error code of err, or "" if err is not (and
// does not wrap) an *Error.
func ErrorCode(err error) string {
	if e := asError(err); e != nil {
		return e.Code
	}
	return ""
}

func hasCode(err error, codes ...string) bool {
	e := asError(err)
	if e == nil {
		return false
	}
	for _, c := range codes {
		if e.Code == c {
			return true
		}
	}
	return false
}

func hasStatus(err error, status int) bool {
	e := asError(err)
	return e != nil && e.StatusCode == status
}

// IsNotFound reports whether err says the resource does not exist for
// this account and environment (404).
func IsNotFound(err error) bool {
	return hasCode(err, CodeNotFound) || hasStatus(err, http.StatusNotFound)
}

// IsConflict reports whether err is any 409: a duplicate keyword, a
// forbidden state transition (such as changing an ended campaign), ...
func IsConflict(err error) bool { return hasStatus(err, http.StatusConflict) }

// IsDuplicateKeyword reports whether err is a 409 DUPLICATE_KEYWORD.
func IsDuplicateKeyword(err error) bool { return hasCode(err, CodeDuplicateKeyword) }

// IsInvalidStateTransition reports whether err is a 409
// INVALID_STATE_TRANSITION (an ended campaign, or a transition that is
// not allowed).
func IsInvalidStateTransition(err error) bool { return hasCode(err, CodeInvalidStateTransition) }

// IsPreconditionFailed reports whether err says the entity's version is
// no longer the one given as IfMatch (412): fetch it again and retry.
func IsPreconditionFailed(err error) bool {
	return hasCode(err, CodePreconditionFailed) || hasStatus(err, http.StatusPreconditionFailed)
}

// IsValidation reports whether err says the request was invalid (400
// VALIDATION_ERROR or INVALID_JSON); Error.Details lists each bad field.
func IsValidation(err error) bool { return hasCode(err, CodeValidation, CodeInvalidJSON) }

// IsUnauthorized reports whether the request was refused by
// authentication: any 401, or a disabled key's 403 API_KEY_DISABLED.
func IsUnauthorized(err error) bool {
	return hasStatus(err, http.StatusUnauthorized) || hasCode(err, CodeAPIKeyDisabled)
}

// IsForbidden reports whether the key may not do what was asked: 403
// INSUFFICIENT_SCOPE (Error.AuthDetails["required_scope"] names the scope
// needed) or IP_NOT_ALLOWED. Retrying does not help.
func IsForbidden(err error) bool { return hasCode(err, CodeInsufficientScope, CodeIPNotAllowed) }

// IsTimestampExpired reports whether err is a 401 TIMESTAMP_EXPIRED: the
// client's clock is more than 300 s from the server's even after the
// client's own correction.
func IsTimestampExpired(err error) bool { return hasCode(err, CodeTimestampExpired) }

// IsRateLimited reports whether err is a 429 that outlasted the client's
// retries; Error.RetryAfter says how long the server asked to wait.
func IsRateLimited(err error) bool {
	return hasCode(err, CodeRateLimited) || hasStatus(err, http.StatusTooManyRequests)
}
