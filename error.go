package adcamp

import (
	"errors"
	"fmt"
)

// Code is the machine-readable kind of an error the API reports. The set
// is small and stable; internal/httpapi maps each to one HTTP status in
// exactly one table, and the SDK maps them back.
type Code string

// Error codes.
const (
	CodeValidation             Code = "VALIDATION_ERROR"
	CodeInvalidJSON            Code = "INVALID_JSON"
	CodeUnsupportedMediaType   Code = "UNSUPPORTED_MEDIA_TYPE"
	CodePayloadTooLarge        Code = "PAYLOAD_TOO_LARGE"
	CodeNotFound               Code = "NOT_FOUND"
	CodeMethodNotAllowed       Code = "METHOD_NOT_ALLOWED"
	CodeInvalidStateTransition Code = "INVALID_STATE_TRANSITION"
	CodeDuplicateKeyword       Code = "DUPLICATE_KEYWORD"
	CodeIdempotencyKeyReused   Code = "IDEMPOTENCY_KEY_REUSED"
	CodeConflict               Code = "CONFLICT"
	CodePreconditionFailed     Code = "PRECONDITION_FAILED"
	CodeRateLimited            Code = "RATE_LIMITED"
	CodeInternal               Code = "INTERNAL_ERROR"
	CodeUnavailable            Code = "SERVICE_UNAVAILABLE"

	// Authentication codes (CONTRACT §2).
	CodeUnauthorized     Code = "UNAUTHORIZED"
	CodeTimestampExpired Code = "TIMESTAMP_EXPIRED"
	CodeInvalidSignature Code = "INVALID_SIGNATURE" // Scheme A wording, and --signing auto
	CodeSignatureInvalid Code = "SIGNATURE_INVALID" // Scheme B wording, with --signing b
	CodeAPIKeyDisabled   Code = "API_KEY_DISABLED"
)

// FieldIssue names one invalid field or parameter and what is wrong with it.
type FieldIssue struct {
	Field string `json:"field"`
	Issue string `json:"issue"`
}

// Error is an error the API reports to its caller: a code from the list
// above, a human-readable message and optional details. Any other error
// is internal and is reported as INTERNAL_ERROR without its text.
type Error struct {
	Code    Code
	Message string
	// Details is []FieldIssue for VALIDATION_ERROR and a small object
	// (map[string]any) for authentication errors; nil otherwise.
	Details any
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err if it is (or wraps) an *Error, and
// INTERNAL_ERROR otherwise.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// NotFound returns the error for a resource that does not exist for the
// caller, which is also the answer for another tenant's resource.
func NotFound(kind, id string) *Error {
	return Errorf(CodeNotFound, "%s %q not found", kind, id)
}

// Issues collects field problems so that validation can report every bad
// field at once. The zero value is ready to use.
type Issues []FieldIssue

// Add records a problem with field.
func (is *Issues) Add(field, format string, args ...any) {
	*is = append(*is, FieldIssue{Field: field, Issue: fmt.Sprintf(format, args...)})
}

// Err returns a VALIDATION_ERROR listing every issue, or nil if there is
// none. A field is named once, with its first issue: a value of the wrong
// type is not also reported as, say, empty.
func (is Issues) Err() error {
	if len(is) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(is))
	kept := is[:0:0]
	for _, i := range is {
		if !seen[i.Field] {
			seen[i.Field] = true
			kept = append(kept, i)
		}
	}
	is = kept
	msg := "1 field is invalid"
	if len(is) > 1 {
		msg = fmt.Sprintf("%d fields are invalid", len(is))
	}
	msg += ": " + is[0].Field + " " + is[0].Issue
	if len(is) > 1 {
		msg += " (see details for the rest)"
	}
	return &Error{Code: CodeValidation, Message: msg, Details: []FieldIssue(is)}
}
