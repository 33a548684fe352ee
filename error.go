package adcamp

import (
	"errors"
	"fmt"
	"unicode/utf8"
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
	CodeHeadersTooLarge        Code = "HEADERS_TOO_LARGE"
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
	// Refusals of a credential whose signature verified (scoped keys).
	CodeInsufficientScope Code = "INSUFFICIENT_SCOPE"
	CodeIPNotAllowed      Code = "IP_NOT_ALLOWED"
)

// FieldIssue names one invalid field or parameter and what is wrong with it.
type FieldIssue struct {
	Field string `json:"field"`
	Issue string `json:"issue"`
	// Kind says what is wrong in a word a program can test, and Param is
	// the one value the problem turns on (a limit, a date), so that a door
	// that words its own messages (the console, in its forms' words) need
	// not read the API's. Neither is part of the API's answer; either may
	// be empty.
	Kind  IssueKind `json:"-"`
	Param string    `json:"-"`
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

// Bounds on what an error echoes: a request of a megabyte can name
// thousands of unknown fields, or one field a megabyte long, and every
// error answer is also kept for replays.
const (
	// MaxIssues is how many issues an error lists in its details; its
	// message gives the count of all.
	MaxIssues = 100
	// maxFieldLen and maxIssueLen bound, in bytes, the field name and
	// the text of one issue as reported.
	maxFieldLen = 100
	maxIssueLen = 300
)

// Add records a problem with field.
func (is *Issues) Add(field, format string, args ...any) {
	*is = append(*is, FieldIssue{Field: field, Issue: fmt.Sprintf(format, args...)})
}

// Err returns a VALIDATION_ERROR listing every issue (the first MaxIssues
// of them), or nil if there is none. A field is named once, with its
// first issue: a value of the wrong type is not also reported as, say,
// empty.
func (is Issues) Err() error { return is.ErrUpTo(MaxIssues) }

// ErrUpTo is Err listing at most max issues in its details.
func (is Issues) ErrUpTo(max int) error {
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
	details, total := Capped(kept, max)
	msg := "1 field is invalid"
	if total > 1 {
		msg = fmt.Sprintf("%d fields are invalid", total)
	}
	msg += ": " + details[0].Field + " " + details[0].Issue
	switch {
	case total > len(details):
		msg += fmt.Sprintf(" (details list the first %d)", len(details))
	case total > 1:
		msg += " (see details for the rest)"
	}
	return &Error{Code: CodeValidation, Message: msg, Details: details}
}

// Capped returns the first max issues, each with its field name and text
// shortened to a bound, and how many there were in all.
func Capped(issues []FieldIssue, max int) ([]FieldIssue, int) {
	out := make([]FieldIssue, 0, min(len(issues), max))
	for _, i := range issues[:min(len(issues), max)] {
		out = append(out, FieldIssue{Field: shorten(i.Field, maxFieldLen), Issue: shorten(i.Issue, maxIssueLen), Kind: i.Kind, Param: i.Param})
	}
	return out, len(issues)
}

// shorten cuts s to at most n bytes, at a character boundary, marking the
// cut with an ellipsis.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
