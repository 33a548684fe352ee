package service

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
)

// AuthRequest is what authentication needs from an HTTP request.
type AuthRequest struct {
	Environment adcamp.Environment // of the listener that received it
	APIKey      string             // X-API-Key
	Timestamp   string             // X-Timestamp
	Signature   string             // X-Signature
	Method      string
	Path        string // escaped path as sent, without the query
	Body        []byte // exact bytes received
	// ReadBody, if set, reads the body into Body once the headers, the
	// timestamp and the key have passed: a request refused before costs
	// no body read. Its error is returned as it is.
	ReadBody func() ([]byte, error)
	// ClientAddr is the client's address (the connection's, or the one
	// trusted proxies forwarded), checked against a key's allowed ranges.
	ClientAddr netip.Addr
	// Scope is what the operation requires of the key; Route names it
	// ("GET /api/v1/open/campaigns"), for messages and the key's trail.
	Scope adcamp.Scope
	Route string
	// Repeated names an authentication header the request carries more
	// than once, which is refused: which one would count is ambiguous.
	Repeated string
}

// maxEchoBody caps how much of a body a sandbox signature mismatch echoes.
const maxEchoBody = 4096

// Authenticate checks a signed request in the order of CONTRACT §2 and
// returns the credential it was signed with. The body is read (ReadBody)
// between the key's check and the signature's.
func (s *Keys) Authenticate(ctx context.Context, r AuthRequest) (*adcamp.APIKey, error) {
	now := s.Now()
	for _, h := range [...]struct{ name, value string }{
		{signing.HeaderAPIKey, r.APIKey}, {signing.HeaderTimestamp, r.Timestamp}, {signing.HeaderSignature, r.Signature},
	} {
		if h.value == "" {
			return nil, authError(adcamp.CodeUnauthorized, now, nil, "missing %s header", h.name)
		}
		if h.name == r.Repeated {
			return nil, authError(adcamp.CodeUnauthorized, now, nil, "the %s header must be sent once", h.name)
		}
	}
	if err := s.checkTimestamp(r.Timestamp, now); err != nil {
		return nil, err
	}
	ts, _ := strconv.ParseInt(r.Timestamp, 10, 64)
	skew := &[]int64{ts - now.Unix()}[0]

	cred, cached, err := s.lookupKey(ctx, r.APIKey, r.Environment, now, false)
	if err != nil {
		return nil, err
	}
	if cred == nil {
		return nil, authError(adcamp.CodeUnauthorized, now, skew, "unknown API key for the %s environment", r.Environment)
	}
	if r.ReadBody != nil {
		if r.Body, err = r.ReadBody(); err != nil {
			return nil, err
		}
	}
	scheme := s.verify(cred, r, now)
	if (scheme == "" || cred.key.Disabled) && cached {
		// What the cache holds would refuse the request: the key may have
		// been rolled or enabled by another process since. Read it afresh,
		// so that a grant takes effect on the next request.
		if cred, _, err = s.lookupKey(ctx, r.APIKey, r.Environment, now, true); err != nil {
			return nil, err
		}
		if cred == nil {
			return nil, authError(adcamp.CodeUnauthorized, now, skew, "unknown API key for the %s environment", r.Environment)
		}
		scheme = s.verify(cred, r, now)
	}
	k := cred.key
	if scheme == "" {
		code := adcamp.CodeInvalidSignature
		if s.signing == SigningB {
			code = adcamp.CodeSignatureInvalid
		}
		e := authError(code, now, skew, "signature does not match")
		if r.Environment == adcamp.Sandbox {
			expected := s.candidates(r)
			texts := make([]string, len(expected))
			for i, c := range expected {
				texts[i] = echo(c.msg)
			}
			e.Message += fmt.Sprintf("; the server expected the HMAC-SHA256 of one of these strings to sign: %q", texts)
			e.Details.(map[string]any)["expected_strings_to_sign"] = texts
		}
		return nil, e
	}
	if k.Disabled {
		if scheme == signing.SchemeB {
			return nil, authError(adcamp.CodeAPIKeyDisabled, now, skew, "API key is disabled")
		}
		return nil, authError(adcamp.CodeUnauthorized, now, skew, "API key is disabled")
	}
	if err := checkKeyLimits(&k.APIKey, r, now, skew); err != nil {
		return nil, err
	}
	s.recordUse(k.ID, now, r.ClientAddr, r.Route)
	pub := k.APIKey
	return &pub, nil
}

// IsAuthError reports whether err is an authentication failure (401 or
// 403 of CONTRACT §2), as opposed to, say, a body too large to read.
func IsAuthError(err error) bool {
	switch adcamp.ErrorCode(err) {
	case adcamp.CodeUnauthorized, adcamp.CodeTimestampExpired, adcamp.CodeInvalidSignature,
		adcamp.CodeSignatureInvalid, adcamp.CodeAPIKeyDisabled, adcamp.CodeInsufficientScope, adcamp.CodeIPNotAllowed:
		return true
	}
	return false
}

// SignatureVerified reports whether err refuses a request whose signature
// verified (a disabled, expired or restricted key): a failure that tells
// nothing of a guess.
func SignatureVerified(err error) bool {
	switch adcamp.ErrorCode(err) {
	case adcamp.CodeAPIKeyDisabled, adcamp.CodeInsufficientScope, adcamp.CodeIPNotAllowed:
		return true
	case adcamp.CodeUnauthorized: // an expired key's
		var e *adcamp.Error
		if errors.As(err, &e) {
			d, _ := e.Details.(map[string]any)
			_, expired := d["expired_at"]
			return expired
		}
	}
	return false
}

func (s *core) checkTimestamp(text string, now time.Time) error {
	if len(text) > 19 || strings.TrimLeft(text, "0123456789") != "" {
		return authError(adcamp.CodeTimestampExpired, now, nil,
			"X-Timestamp must be Unix time in whole seconds, as a decimal integer; server time is %d", now.Unix())
	}
	ts, _ := strconv.ParseInt(text, 10, 64)
	if ts >= 100_000_000_000 { // 12 or more digits: year 5138 in seconds, 1973 in ms
		return authError(adcamp.CodeTimestampExpired, now, nil,
			"X-Timestamp looks like milliseconds; send whole seconds (server time is %d)", now.Unix())
	}
	skew := ts - now.Unix()
	if max(skew, -skew) > int64(s.maxSkew/time.Second) {
		dir := "behind"
		if skew > 0 {
			dir = "ahead of"
		}
		return authError(adcamp.CodeTimestampExpired, now, &skew,
			"X-Timestamp is %d seconds %s server time %d; at most %d are allowed",
			max(skew, -skew), dir, now.Unix(), int64(s.maxSkew/time.Second))
	}
	return nil
}

type candidate struct {
	scheme signing.Scheme
	msg    []byte
}

// candidates lists the strings to sign that the deployment accepts for r.
func (s *core) candidates(r AuthRequest) []candidate {
	var out []candidate
	if s.signing != SigningB {
		out = append(out, candidate{signing.SchemeA, signing.StringToSign(signing.SchemeA, r.Timestamp, r.Method, r.Path, r.Body)})
		if rel, ok := signing.RelativePath(r.Path); ok {
			out = append(out, candidate{signing.SchemeA, signing.StringToSign(signing.SchemeA, r.Timestamp, r.Method, rel, r.Body)})
		}
	}
	if s.signing != SigningA {
		out = append(out, candidate{signing.SchemeB, signing.StringToSign(signing.SchemeB, r.Timestamp, r.Method, r.Path, r.Body)})
	}
	return out
}

// verify returns the scheme whose string to sign matches the signature
// under one of the credential's live secrets, or "" if none does. The
// strings are tried in the order of candidates, each only if the ones
// before it did not match.
func (s *core) verify(c *liveKey, r AuthRequest, now time.Time) signing.Scheme {
	sig, ok := signing.DecodeSignature(r.Signature)
	if !ok || len(c.secrets) == 0 {
		return ""
	}
	secrets := c.secrets[:1]
	if len(c.secrets) > 1 && c.key.PreviousExpiresAt != nil && now.Before(*c.key.PreviousExpiresAt) {
		secrets = c.secrets
	}
	matches := func(scheme signing.Scheme, path string) bool {
		for _, secret := range secrets {
			if secret.Verify(sig, scheme, r.Timestamp, r.Method, path, r.Body) {
				return true
			}
		}
		return false
	}
	if s.signing != SigningB {
		if matches(signing.SchemeA, r.Path) {
			return signing.SchemeA
		}
		if rel, ok := signing.RelativePath(r.Path); ok && matches(signing.SchemeA, rel) {
			return signing.SchemeA
		}
	}
	if s.signing != SigningA && matches(signing.SchemeB, r.Path) {
		return signing.SchemeB
	}
	return ""
}

// authError builds an authentication error whose details carry the
// server's time and, when the timestamp parsed, the measured skew.
func authError(code adcamp.Code, now time.Time, skew *int64, format string, args ...any) *adcamp.Error {
	details := map[string]any{
		"server_time":     now.Unix(),
		"server_time_iso": now.Format(time.RFC3339),
	}
	if skew != nil {
		details["skew_seconds"] = *skew
	}
	return &adcamp.Error{Code: code, Message: fmt.Sprintf(format, args...), Details: details}
}

// echo renders a string to sign for a sandbox error, shortening a long body.
func echo(msg []byte) string {
	if len(msg) <= maxEchoBody {
		return string(msg)
	}
	return string(msg[:maxEchoBody]) + fmt.Sprintf("…[%d more bytes]", len(msg)-maxEchoBody)
}
