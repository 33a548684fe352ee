// Package signing computes and checks the request signatures of the
// Campaign Advertising Open API. The server and the Go SDK both use it, and
// both are tested against the vectors in testdata/vectors.json.
//
// Every request carries three headers: X-API-Key, X-Timestamp (Unix seconds
// as a decimal string) and X-Signature, the lower-case hex HMAC-SHA256 of a
// string to sign keyed with the API secret. Two schemes define that string:
//
//	Scheme A: timestamp + METHOD + path + body            (no separators)
//	Scheme B: METHOD + "\n" + PATH + "\n" + timestamp + "\n" + hex(md5(body))
//
// The path is the request path as sent, without host or query. In Scheme A
// it may be the full path (/api/v1/open/campaigns) or the path relative to
// the API prefix (/campaigns); Scheme B always uses the full path.
package signing

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Header names.
const (
	HeaderAPIKey    = "X-API-Key"
	HeaderTimestamp = "X-Timestamp"
	HeaderSignature = "X-Signature"
)

// Scheme names a way of building the string to sign.
type Scheme string

// The two schemes.
const (
	SchemeA Scheme = "a"
	SchemeB Scheme = "b"
)

// Prefixes under which the API is served. Canonical is the one documented;
// Short is the spec's other spelling, served by the same handlers.
const (
	PrefixCanonical = "/api/v1/open"
	PrefixShort     = "/v1"
)

// StringToSign returns the string to sign for scheme over the given parts.
// timestamp is the X-Timestamp header exactly as sent; method is upper
// case; path has no query; body is the exact bytes of the body.
func StringToSign(scheme Scheme, timestamp, method, path string, body []byte) []byte {
	b := make([]byte, 0, len(timestamp)+len(method)+len(path)+max(len(body), 3+2*md5.Size))
	b = appendHead(b, scheme, timestamp, method, path, body)
	if scheme == SchemeB {
		return b
	}
	return append(b, body...)
}

// appendHead appends the string to sign of scheme to b, but for Scheme A's
// body, which it leaves to the caller: all of Scheme B, and Scheme A's
// timestamp, method and path.
func appendHead(b []byte, scheme Scheme, timestamp, method, path string, body []byte) []byte {
	if scheme == SchemeB {
		sum := md5.Sum(body)
		b = append(b, method...)
		b = append(b, '\n')
		b = append(b, path...)
		b = append(b, '\n')
		b = append(b, timestamp...)
		b = append(b, '\n')
		return hex.AppendEncode(b, sum[:])
	}
	b = append(b, timestamp...)
	b = append(b, method...)
	return append(b, path...)
}

// Sign returns the lower-case hex HMAC-SHA256 of msg keyed with secret.
func Sign(secret string, msg []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(msg)
	return hex.EncodeToString(m.Sum(nil))
}

// DecodeSignature parses an X-Signature value: 64 hex digits, either case.
func DecodeSignature(s string) (sig [sha256.Size]byte, ok bool) {
	if len(s) != 2*sha256.Size {
		return sig, false
	}
	_, err := hex.Decode(sig[:], []byte(s))
	return sig, err == nil
}

// Verify reports whether sig is the HMAC-SHA256 of msg keyed with secret.
// The comparison takes the same time wherever the first difference lies.
func Verify(secret string, msg []byte, sig [sha256.Size]byte) bool {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(msg)
	var sum [sha256.Size]byte
	return hmac.Equal(m.Sum(sum[:0]), sig[:])
}

// Verifier checks the signatures made with one secret, as Verify does, with
// less work for each: it keeps HMAC states keyed with the secret for reuse
// (sparing the hashing of the key), and feeds the string to sign to the
// HMAC in parts (sparing a copy of the body). It is safe for concurrent
// use; a server keeps one per secret it holds.
type Verifier struct {
	secret []byte
	states sync.Pool // of *keyState
}

// maxKeptHead bounds the buffer a Verifier keeps for each of its HMAC states.
const maxKeptHead = 4 << 10

type keyState struct {
	mac  hash.Hash
	head []byte // the string to sign but for Scheme A's body
}

// NewVerifier returns the Verifier of secret.
func NewVerifier(secret string) *Verifier {
	k := &Verifier{secret: []byte(secret)}
	k.states.New = func() any { return &keyState{mac: hmac.New(sha256.New, k.secret)} }
	return k
}

// Verify reports whether sig is the signature, under scheme, of the request
// with the given parts (see StringToSign). The comparison takes the same
// time wherever the first difference lies.
func (k *Verifier) Verify(sig [sha256.Size]byte, scheme Scheme, timestamp, method, path string, body []byte) bool {
	st := k.states.Get().(*keyState)
	defer func() {
		if cap(st.head) > maxKeptHead { // a rare long path: let it go
			st.head = nil
		}
		k.states.Put(st)
	}()
	st.head = appendHead(st.head[:0], scheme, timestamp, method, path, body)
	st.mac.Reset()
	st.mac.Write(st.head)
	if scheme != SchemeB {
		st.mac.Write(body)
	}
	var sum [sha256.Size]byte
	return hmac.Equal(st.mac.Sum(sum[:0]), sig[:])
}

// RelativePath strips the API prefix from a full request path, for the
// prefix-relative form of Scheme A. It reports false if path has neither
// prefix.
func RelativePath(path string) (string, bool) {
	for _, p := range []string{PrefixCanonical, PrefixShort} {
		if rest, ok := strings.CutPrefix(path, p); ok && strings.HasPrefix(rest, "/") {
			return rest, true
		}
	}
	return "", false
}

// RequestPath returns the path of r exactly as the client sent it (escaped,
// without host or query). A request target in absolute form
// (http://host/path?query, as sent to proxies and accepted by net/http
// servers, and as httptest.NewRequest keeps it) yields just its path.
func RequestPath(r *http.Request) string {
	p := r.RequestURI
	if p == "" { // a client-side request
		p = r.URL.RequestURI()
	}
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	if !strings.HasPrefix(p, "/") {
		if _, rest, ok := strings.Cut(p, "://"); ok {
			// The authority ends at the first slash; an empty path is "/",
			// which is what a client sends in origin form.
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				p = rest[i:]
			} else {
				p = "/"
			}
		}
	}
	return p
}

// Timestamp formats t as the X-Timestamp header value.
func Timestamp(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// SignRequest sets the three authentication headers on a client request
// whose body is body (nil for none), signing with scheme at time now.
func SignRequest(r *http.Request, scheme Scheme, apiKey, secret string, body []byte, now time.Time) {
	ts := Timestamp(now)
	method := r.Method
	if method == "" { // net/http sends GET for an empty Method
		method = http.MethodGet
	}
	msg := StringToSign(scheme, ts, method, RequestPath(r), body)
	r.Header.Set(HeaderAPIKey, apiKey)
	r.Header.Set(HeaderTimestamp, ts)
	r.Header.Set(HeaderSignature, Sign(secret, msg))
}
