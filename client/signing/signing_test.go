package signing_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client/signing"
)

// vectorFile is the layout of testdata/vectors.json, which
// testdata/generate_vectors.py writes independently of this package.
type vectorFile struct {
	Description string   `json:"description"`
	Vectors     []vector `json:"vectors"`
}

type vector struct {
	Name     string `json:"name"`
	Scheme   string `json:"scheme"`    // "a" or "b"
	PathForm string `json:"path_form"` // "full" or "relative"
	APIKey   string `json:"api_key"`
	Secret   string `json:"secret"`
	Request  struct {
		Method      string `json:"method"`
		Path        string `json:"path"`
		Query       string `json:"query"`
		Timestamp   string `json:"timestamp"`
		ContentType string `json:"content_type"`
		Body        string `json:"body"`
	} `json:"request"`
	StringToSign string `json:"string_to_sign"`
	Signature    string `json:"signature"`
}

// body returns the request body, nil when there is none.
func (v *vector) body() []byte {
	if v.Request.Body == "" {
		return nil
	}
	return []byte(v.Request.Body)
}

// signedPath returns the path that goes into the string to sign.
func (v *vector) signedPath(tb testing.TB) string {
	tb.Helper()
	if v.PathForm == "relative" {
		rel, ok := signing.RelativePath(v.Request.Path)
		if !ok {
			tb.Fatalf("%s: RelativePath(%q) = %q, false, want a relative path, true", v.Name, v.Request.Path, rel)
		}
		return rel
	}
	return v.Request.Path
}

// target returns the request target: the path and, if any, the query.
func (v *vector) target() string {
	if v.Request.Query == "" {
		return v.Request.Path
	}
	return v.Request.Path + "?" + v.Request.Query
}

func (v *vector) time(tb testing.TB) time.Time {
	tb.Helper()
	ts, err := strconv.ParseInt(v.Request.Timestamp, 10, 64)
	if err != nil {
		tb.Fatalf("%s: bad timestamp %q: %v", v.Name, v.Request.Timestamp, err)
	}
	return time.Unix(ts, 0)
}

func loadVectors(tb testing.TB) []vector {
	tb.Helper()
	data, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		tb.Fatal(err)
	}
	var f vectorFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		tb.Fatalf("testdata/vectors.json: %v", err)
	}
	if len(f.Vectors) == 0 {
		tb.Fatal("testdata/vectors.json has no vectors")
	}
	return f.Vectors
}

// TestVectorsCoverage checks that the published vectors cover what the
// contract promises they do, so that a regenerated file cannot quietly
// drop a case.
func TestVectorsCoverage(t *testing.T) {
	vs := loadVectors(t)
	seen := map[string]bool{}
	names := map[string]bool{}
	for _, v := range vs {
		if names[v.Name] {
			t.Errorf("duplicate vector name %q", v.Name)
		}
		names[v.Name] = true
		if len(v.Signature) != 64 || strings.ToLower(v.Signature) != v.Signature {
			t.Errorf("%s: signature %q is not 64 lower-case hex digits", v.Name, v.Signature)
		}
		if v.Scheme == "b" && v.PathForm != "full" {
			t.Errorf("%s: scheme b with path_form %q, want full", v.Name, v.PathForm)
		}
		if !strings.HasPrefix(v.APIKey, "ak_test_") || !strings.HasPrefix(v.Secret, "sk_test_") {
			t.Errorf("%s: credential %q/%q is not a sandbox key", v.Name, v.APIKey, v.Secret)
		}
		if (v.Request.Body == "") != (v.Request.ContentType == "") {
			t.Errorf("%s: content_type %q with body %q", v.Name, v.Request.ContentType, v.Request.Body)
		}
		seen["scheme "+v.Scheme] = true
		seen["scheme "+v.Scheme+" "+v.PathForm] = true
		seen["method "+v.Request.Method] = true
		seen["secret "+v.Secret] = true
		for _, p := range []string{signing.PrefixCanonical, signing.PrefixShort} {
			if strings.HasPrefix(v.Request.Path, p+"/") {
				seen["prefix "+p] = true
			}
		}
		if v.Request.Method == http.MethodGet && v.Request.Body == "" && v.Request.Query != "" {
			seen["GET with query"] = true
		}
		for _, r := range v.Request.Body {
			if r > 0x7f {
				seen["non-ASCII body"] = true
			}
		}
		if strings.Contains(v.Request.Path, "%") {
			seen["escaped path"] = true
		}
	}
	for _, want := range []string{
		"scheme a full", "scheme a relative", "scheme b full",
		"method GET", "method POST", "method PUT", "method DELETE",
		"prefix " + signing.PrefixCanonical, "prefix " + signing.PrefixShort,
		"GET with query", "non-ASCII body", "escaped path",
	} {
		if !seen[want] {
			t.Errorf("no vector covers %s", want)
		}
	}
	nsecrets := 0
	for k := range seen {
		if strings.HasPrefix(k, "secret ") {
			nsecrets++
		}
	}
	if nsecrets < 2 {
		t.Errorf("vectors use %d secrets, want at least 2", nsecrets)
	}
}

func TestVectors(t *testing.T) {
	vs := loadVectors(t)
	for i, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			scheme := signing.Scheme(v.Scheme)
			path := v.signedPath(t)
			msg := signing.StringToSign(scheme, v.Request.Timestamp, v.Request.Method, path, v.body())
			if string(msg) != v.StringToSign {
				t.Errorf("StringToSign(%q, %q, %q, %q, %q) = %q, want %q",
					scheme, v.Request.Timestamp, v.Request.Method, path, v.Request.Body, msg, v.StringToSign)
			}
			if got := signing.Sign(v.Secret, msg); got != v.Signature {
				t.Errorf("Sign(%q, %q) = %s, want %s", v.Secret, msg, got, v.Signature)
			}
			// The published string to sign alone must give the signature.
			if got := signing.Sign(v.Secret, []byte(v.StringToSign)); got != v.Signature {
				t.Errorf("Sign(%q, %q) = %s, want %s", v.Secret, v.StringToSign, got, v.Signature)
			}

			sig, ok := signing.DecodeSignature(v.Signature)
			if !ok {
				t.Fatalf("DecodeSignature(%q) = _, false, want true", v.Signature)
			}
			if !signing.Verify(v.Secret, msg, sig) {
				t.Errorf("Verify(%q, %q, %x) = false, want true", v.Secret, msg, sig)
			}
			key := signing.NewVerifier(v.Secret)
			if !key.Verify(sig, scheme, v.Request.Timestamp, v.Request.Method, path, v.body()) {
				t.Errorf("NewKey(%q).Verify(%x, %s, %q, %q, %q, %q) = false, want true",
					v.Secret, sig, scheme, v.Request.Timestamp, v.Request.Method, path, v.Request.Body)
			}
			upper := strings.ToUpper(v.Signature)
			usig, ok := signing.DecodeSignature(upper)
			if !ok || usig != sig {
				t.Errorf("DecodeSignature(%q) = %x, %v, want %x, true", upper, usig, ok, sig)
			}
			if !signing.Verify(v.Secret, msg, usig) {
				t.Errorf("Verify(%q, %q, %X) = false, want true", v.Secret, msg, usig)
			}

			// Every one-bit change of the signature is rejected.
			for bit := range 8 * sha256.Size {
				bad := sig
				bad[bit/8] ^= 1 << (bit % 8)
				if signing.Verify(v.Secret, msg, bad) {
					t.Errorf("Verify(%q, %q, %x) = true (bit %d flipped), want false", v.Secret, msg, bad, bit)
				}
				if key.Verify(bad, scheme, v.Request.Timestamp, v.Request.Method, path, v.body()) {
					t.Errorf("NewKey(%q).Verify(%x, ...) = true (bit %d flipped), want false", v.Secret, bad, bit)
				}
			}

			// So is a signature made with any other secret, including the
			// secret without its "sk_test_" prefix: the key is the whole string.
			other := vs[(i+1)%len(vs)].Secret
			for _, wrong := range []string{
				"", v.Secret + "x", v.Secret[:len(v.Secret)-1], strings.TrimPrefix(v.Secret, "sk_test_"),
				strings.ToUpper(v.Secret), other,
			} {
				if wrong == v.Secret {
					continue
				}
				if signing.Verify(wrong, msg, sig) {
					t.Errorf("Verify(%q, %q, %x) = true, want false", wrong, msg, sig)
				}
				if signing.NewVerifier(wrong).Verify(sig, scheme, v.Request.Timestamp, v.Request.Method, path, v.body()) {
					t.Errorf("NewKey(%q).Verify(%x, ...) = true, want false", wrong, sig)
				}
			}

			// And the signature does not cover another message: the query,
			// the other path form, or a changed body.
			for _, m := range [][]byte{
				append(bytes.Clone(msg), 'x'),
				signing.StringToSign(scheme, v.Request.Timestamp, v.Request.Method, v.target()+"?x", v.body()),
				signing.StringToSign(scheme, v.Request.Timestamp, v.Request.Method, path, append([]byte(v.Request.Body), ' ')),
				signing.StringToSign(scheme, v.Request.Timestamp+"0", v.Request.Method, path, v.body()),
				signing.StringToSign(scheme, v.Request.Timestamp, strings.ToLower(v.Request.Method), path, v.body()),
			} {
				if signing.Verify(v.Secret, m, sig) {
					t.Errorf("Verify(%q, %q, %x) = true, want false", v.Secret, m, sig)
				}
			}
			if v.Scheme == "a" {
				otherPath := v.Request.Path
				if v.PathForm == "full" {
					otherPath, _ = signing.RelativePath(v.Request.Path)
				}
				m := signing.StringToSign(scheme, v.Request.Timestamp, v.Request.Method, otherPath, v.body())
				if signing.Verify(v.Secret, m, sig) {
					t.Errorf("Verify(%q, %q, %x) = true, want false", v.Secret, m, sig)
				}
			}
		})
	}
}

func TestStringToSignSchemeB(t *testing.T) {
	// md5("") = d41d8cd98f00b204e9800998ecf8427e; nil and empty bodies agree.
	const want = "GET\n/api/v1/open/campaigns\n1795000000\nd41d8cd98f00b204e9800998ecf8427e"
	for _, body := range [][]byte{nil, {}} {
		got := signing.StringToSign(signing.SchemeB, "1795000000", "GET", "/api/v1/open/campaigns", body)
		if string(got) != want {
			t.Errorf("StringToSign(b, 1795000000, GET, /api/v1/open/campaigns, %q) = %q, want %q", body, got, want)
		}
	}
	// md5("abc") = 900150983cd24fb0d6963f7d28e17f72.
	got := signing.StringToSign(signing.SchemeB, "1", "POST", "/v1/campaigns", []byte("abc"))
	if want := "POST\n/v1/campaigns\n1\n900150983cd24fb0d6963f7d28e17f72"; string(got) != want {
		t.Errorf("StringToSign(b, 1, POST, /v1/campaigns, \"abc\") = %q, want %q", got, want)
	}
}

func TestSign(t *testing.T) {
	// RFC 4231 test case 2: key "Jefe".
	const want = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
	if got := signing.Sign("Jefe", []byte("what do ya want for nothing?")); got != want {
		t.Errorf("Sign(%q, %q) = %s, want %s", "Jefe", "what do ya want for nothing?", got, want)
	}
}

func TestDecodeSignature(t *testing.T) {
	const lower = "3d395b966fa57c8cde6e1bf01f8bf5320b9244bb44850108be56654c90e22cfc"
	var want [sha256.Size]byte
	if _, err := hex.Decode(want[:], []byte(lower)); err != nil {
		t.Fatal(err)
	}
	mixed := []byte(lower)
	for i := range mixed {
		if i%2 == 0 {
			mixed[i] = bytes.ToUpper(mixed[i : i+1])[0]
		}
	}
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"lower case", lower, true},
		{"upper case", strings.ToUpper(lower), true},
		{"mixed case", string(mixed), true},
		{"empty", "", false},
		{"too short", lower[:63], false},
		{"one byte short", lower[:62], false},
		{"too long", lower + "0", false},
		{"one byte long", lower + "00", false},
		{"sha-512 length", lower + lower, false},
		{"non-hex last", lower[:63] + "g", false},
		{"non-hex first", "z" + lower[1:], false},
		{"space", lower[:31] + " " + lower[32:], false},
		{"0x prefix", "0x" + lower[2:], false},
		{"surrounding spaces", " " + lower[1:63] + " ", false},
		{"base64", "PTlbluZvpXyM3m4b8B+L9TILkku0SFAQi+VmVMkOLPw=", false},
		{"non-ASCII 64 bytes", strings.Repeat("é", 32), false},
		{"NUL", lower[:63] + "\x00", false},
	}
	for _, tt := range tests {
		got, ok := signing.DecodeSignature(tt.in)
		if ok != tt.ok {
			t.Errorf("DecodeSignature(%q) = %x, %v, want ok %v (%s)", tt.in, got, ok, tt.ok, tt.name)
			continue
		}
		if ok && got != want {
			t.Errorf("DecodeSignature(%q) = %x, true, want %x, true (%s)", tt.in, got, want, tt.name)
		}
	}
}

func TestRelativePath(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"/api/v1/open/campaigns", "/campaigns", true},
		{"/api/v1/open/campaigns/cmp_01k3m8qz7v4r2xw9ty5hbn6cde", "/campaigns/cmp_01k3m8qz7v4r2xw9ty5hbn6cde", true},
		{"/v1/campaigns", "/campaigns", true},
		{"/v1/campaigns/cmp_01k3m8qz7v4r2xw9ty5hbn6cde", "/campaigns/cmp_01k3m8qz7v4r2xw9ty5hbn6cde", true},
		{"/api/v1/open/campaigns/spring%2F2026%20caf%C3%A9", "/campaigns/spring%2F2026%20caf%C3%A9", true},
		{"/api/v1/open/", "/", true},
		{"/v1/", "/", true},
		{"/v1/v1/campaigns", "/v1/campaigns", true},
		{"/api/v1/open", "", false},
		{"/v1", "", false},
		{"/v1x/campaigns", "", false},
		{"/v10/campaigns", "", false},
		{"/api/v1/openx/campaigns", "", false},
		{"/api/v1/campaigns", "", false},
		{"/api/v2/open/campaigns", "", false},
		{"/campaigns", "", false},
		{"/V1/campaigns", "", false},
		{"v1/campaigns", "", false},
		{"//v1/campaigns", "", false},
		{"/", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := signing.RelativePath(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RelativePath(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRequestPath(t *testing.T) {
	client := func(method, url string) *http.Request {
		r, err := http.NewRequest(method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	server := func(method, target string) *http.Request {
		return httptest.NewRequest(method, target, nil)
	}
	stripped := server("GET", "/api/v1/open/campaigns/spring%2F2026?page=2")
	stripped.URL.Path = "/campaigns/spring/2026" // as http.StripPrefix would leave it
	stripped.URL.RawPath = ""

	tests := []struct {
		name string
		r    *http.Request
		want string
	}{
		{"server, no query", server("GET", "/api/v1/open/campaigns"), "/api/v1/open/campaigns"},
		{"server, query stripped", server("GET", "/api/v1/open/campaigns?page=2&page_size=20"), "/api/v1/open/campaigns"},
		{"server, empty query", server("GET", "/v1/campaigns?"), "/v1/campaigns"},
		{"server, escaped path kept", server("GET", "/api/v1/open/campaigns/spring%2F2026%20caf%C3%A9?x=%2F"), "/api/v1/open/campaigns/spring%2F2026%20caf%C3%A9"},
		{"server, lower-case escapes kept", server("GET", "/v1/campaigns/caf%c3%a9"), "/v1/campaigns/caf%c3%a9"},
		{"server, unclean path kept", server("GET", "/v1//campaigns/./x"), "/v1//campaigns/./x"},
		{"server, absolute form", server("GET", "http://api.example.com/api/v1/open/campaigns?page=2"), "/api/v1/open/campaigns"},
		{"server, absolute form with port and escapes", server("DELETE", "https://api.example.com:8443/v1/campaigns/caf%C3%A9%20x"), "/v1/campaigns/caf%C3%A9%20x"},
		{"server, absolute form without path", server("GET", "http://api.example.com?page=2"), "/"},
		{"server, path rewritten after routing", stripped, "/api/v1/open/campaigns/spring%2F2026"},
		{"client, query stripped", client("GET", "https://api.example.com/api/v1/open/campaigns?page=2"), "/api/v1/open/campaigns"},
		{"client, escaped slash kept", client("GET", "https://api.example.com/api/v1/open/campaigns/spring%2F2026%20caf%C3%A9"), "/api/v1/open/campaigns/spring%2F2026%20caf%C3%A9"},
		{"client, escaped UTF-8 kept", client("GET", "https://api.example.com/v1/campaigns/caf%C3%A9%20%E2%98%95?page=1"), "/v1/campaigns/caf%C3%A9%20%E2%98%95"},
		{"client, lower-case escapes kept", client("GET", "https://api.example.com/v1/campaigns/caf%c3%a9"), "/v1/campaigns/caf%c3%a9"},
		{"client, empty path", client("GET", "https://api.example.com"), "/"},
		{"client, empty path with query", client("GET", "https://api.example.com?page=2"), "/"},
	}
	for _, tt := range tests {
		if got := signing.RequestPath(tt.r); got != tt.want {
			t.Errorf("RequestPath(%s %s) = %q, want %q (%s)", tt.r.Method, tt.r.URL, got, tt.want, tt.name)
		}
	}
}

func TestTimestamp(t *testing.T) {
	for _, tt := range []struct {
		t    time.Time
		want string
	}{
		{time.Unix(1795000000, 0), "1795000000"},
		{time.Unix(1795000000, 999_999_999), "1795000000"},
		{time.Unix(1795000000, 0).In(time.FixedZone("X", -7*3600)), "1795000000"},
		{time.Unix(0, 0), "0"},
	} {
		if got := signing.Timestamp(tt.t); got != tt.want {
			t.Errorf("Timestamp(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

// TestSignRequest signs each vector's request, built the ways a client and
// a test would build it, and checks the headers against the vector.
// SignRequest always signs the full path, so relative-path vectors are
// checked with the full-path form they share a request with.
func TestSignRequest(t *testing.T) {
	for _, v := range loadVectors(t) {
		if v.PathForm != "full" {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			builds := map[string]func() *http.Request{
				"http.NewRequest": func() *http.Request {
					r, err := http.NewRequest(v.Request.Method, "https://api.example.com"+v.target(), bytes.NewReader(v.body()))
					if err != nil {
						t.Fatal(err)
					}
					return r
				},
				"httptest.NewRequest origin form": func() *http.Request {
					return httptest.NewRequest(v.Request.Method, v.target(), bytes.NewReader(v.body()))
				},
				"httptest.NewRequest absolute form": func() *http.Request {
					return httptest.NewRequest(v.Request.Method, "http://api.example.com"+v.target(), bytes.NewReader(v.body()))
				},
			}
			for how, build := range builds {
				r := build()
				if v.Request.ContentType != "" {
					r.Header.Set("Content-Type", v.Request.ContentType)
				}
				signing.SignRequest(r, signing.Scheme(v.Scheme), v.APIKey, v.Secret, v.body(), v.time(t))
				for _, h := range []struct{ name, want string }{
					{signing.HeaderAPIKey, v.APIKey},
					{signing.HeaderTimestamp, v.Request.Timestamp},
					{signing.HeaderSignature, v.Signature},
				} {
					if got := r.Header.Values(h.name); len(got) != 1 || got[0] != h.want {
						t.Errorf("%s: SignRequest(%s %s) header %s = %q, want [%q]", how, r.Method, v.target(), h.name, got, h.want)
					}
				}
			}
		})
	}
}

// TestSignRequestOverwrites checks that signing again replaces the headers
// rather than adding second values.
func TestSignRequestOverwrites(t *testing.T) {
	for _, v := range loadVectors(t) {
		if v.PathForm != "full" {
			continue
		}
		r := httptest.NewRequest(v.Request.Method, v.target(), nil)
		r.Header.Add(signing.HeaderSignature, strings.Repeat("0", 64))
		r.Header.Add(signing.HeaderTimestamp, "1")
		signing.SignRequest(r, signing.SchemeB, "ak_test_other", "sk_test_other", nil, time.Unix(2, 0))
		signing.SignRequest(r, signing.Scheme(v.Scheme), v.APIKey, v.Secret, v.body(), v.time(t))
		for _, h := range []struct{ name, want string }{
			{signing.HeaderAPIKey, v.APIKey},
			{signing.HeaderTimestamp, v.Request.Timestamp},
			{signing.HeaderSignature, v.Signature},
		} {
			if got := r.Header.Values(h.name); len(got) != 1 || got[0] != h.want {
				t.Errorf("SignRequest twice (%s): header %s = %q, want [%q]", v.Name, h.name, got, h.want)
			}
		}
		return
	}
	t.Fatal("no full-path vector")
}

// TestSignRequestEmptyMethod: net/http sends GET for a request whose
// Method is empty, so that is what must be signed.
func TestSignRequestEmptyMethod(t *testing.T) {
	for _, v := range loadVectors(t) {
		if v.Request.Method != http.MethodGet || v.PathForm != "full" {
			continue
		}
		r, err := http.NewRequest(http.MethodGet, "https://api.example.com"+v.target(), nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Method = ""
		signing.SignRequest(r, signing.Scheme(v.Scheme), v.APIKey, v.Secret, nil, v.time(t))
		if got := r.Header.Get(signing.HeaderSignature); got != v.Signature {
			t.Errorf("SignRequest(%q %s) signature = %s, want %s (%s)", r.Method, v.target(), got, v.Signature, v.Name)
		}
	}
}

// TestVectorsOverHTTP sends every vector's request, with the vector's
// headers, through a real HTTP client and server, and checks that the
// server sees the path, query and body the vector describes and accepts
// the signature with the vector's scheme and path form, trying each the
// way the service does. This pins down that what the client signs is what
// arrives: the escaped path as sent, no query.
func TestVectorsOverHTTP(t *testing.T) {
	vs := loadVectors(t)
	byName := map[string]vector{}
	for _, v := range vs {
		byName[v.Name] = v
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, ok := byName[r.Header.Get("X-Vector")]
		if !ok {
			http.Error(w, "unknown vector", http.StatusBadRequest)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var problems []string
		path := signing.RequestPath(r)
		if path != v.Request.Path {
			problems = append(problems, fmt.Sprintf("RequestPath = %q, want %q", path, v.Request.Path))
		}
		if r.URL.RawQuery != v.Request.Query {
			problems = append(problems, fmt.Sprintf("query = %q, want %q", r.URL.RawQuery, v.Request.Query))
		}
		if string(body) != v.Request.Body {
			problems = append(problems, fmt.Sprintf("body = %q, want %q", body, v.Request.Body))
		}
		if got := r.Header.Get("Content-Type"); got != v.Request.ContentType {
			problems = append(problems, fmt.Sprintf("Content-Type = %q, want %q", got, v.Request.ContentType))
		}
		sig, ok := signing.DecodeSignature(r.Header.Get(signing.HeaderSignature))
		if !ok {
			problems = append(problems, "DecodeSignature failed")
		}
		ts := r.Header.Get(signing.HeaderTimestamp)
		type candidate struct {
			form string
			msg  []byte
		}
		cands := []candidate{
			{"a full", signing.StringToSign(signing.SchemeA, ts, r.Method, path, body)},
			{"b full", signing.StringToSign(signing.SchemeB, ts, r.Method, path, body)},
		}
		if rel, ok := signing.RelativePath(path); ok {
			cands = append(cands, candidate{"a relative", signing.StringToSign(signing.SchemeA, ts, r.Method, rel, body)})
		}
		var matched []string
		for _, c := range cands {
			if signing.Verify(v.Secret, c.msg, sig) {
				matched = append(matched, c.form)
			}
		}
		if want := v.Scheme + " " + v.PathForm; len(matched) != 1 || matched[0] != want {
			problems = append(problems, fmt.Sprintf("signature matched %q, want [%q]", matched, want))
		}
		if len(problems) > 0 {
			http.Error(w, strings.Join(problems, "; "), http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()

	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			r, err := http.NewRequest(v.Request.Method, srv.URL+v.target(), bytes.NewReader(v.body()))
			if err != nil {
				t.Fatal(err)
			}
			if v.Request.ContentType != "" {
				r.Header.Set("Content-Type", v.Request.ContentType)
			}
			r.Header.Set("X-Vector", v.Name)
			r.Header.Set(signing.HeaderAPIKey, v.APIKey)
			r.Header.Set(signing.HeaderTimestamp, v.Request.Timestamp)
			r.Header.Set(signing.HeaderSignature, v.Signature)
			resp, err := srv.Client().Do(r)
			if err != nil {
				t.Fatal(err)
			}
			msg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent {
				t.Errorf("%s %s: status %d: %s", v.Request.Method, v.target(), resp.StatusCode, msg)
			}
		})
	}
}

// TestRequestPathAbsoluteFormOverWire sends a request line in absolute
// form, as a client talking to a proxy does, to a real net/http server:
// the server routes it by path, so the path is what must be signed.
func TestRequestPathAbsoluteFormOverWire(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- signing.RequestPath(r)
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const target = "http://api.example.com/api/v1/open/campaigns/spring%2F2026?page=2"
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: api.example.com\r\nConnection: close\r\n\r\n", target); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, conn)
	select {
	case p := <-got:
		if want := "/api/v1/open/campaigns/spring%2F2026"; p != want {
			t.Errorf("RequestPath(GET %s) = %q, want %q", target, p, want)
		}
	default:
		t.Fatal("the handler did not run")
	}
}

// FuzzVerify drives DecodeSignature, StringToSign and Verify with arbitrary
// input. None may panic; a signature made by Sign always verifies, in
// either case of hex; a changed message, signature or secret never does;
// and Verify of a decoded X-Signature agrees with comparing it to Sign.
func FuzzVerify(f *testing.F) {
	for _, v := range loadVectors(f) {
		path := v.signedPath(f)
		f.Add(v.Scheme == "b", v.Secret, v.Request.Timestamp, v.Request.Method, path, []byte(v.Request.Body), v.Signature)
		f.Add(v.Scheme == "b", v.Secret, v.Request.Timestamp, v.Request.Method, path, []byte(v.Request.Body), strings.ToUpper(v.Signature))
	}
	f.Add(false, "", "", "", "", []byte(nil), "")
	f.Add(true, "", "", "", "", []byte{}, strings.Repeat("0", 64))
	f.Add(false, "sk_test_x", "1795000000", "GET", "/v1/campaigns", []byte(nil), strings.Repeat("g", 64))
	f.Add(true, strings.Repeat("k", 100), "1795000000", "POST", "/api/v1/open/campaigns", []byte("\xff\xfe\x00"), strings.Repeat("é", 32))
	f.Add(false, "sk_test_x\x00", "-1", "get", "campaigns?x=1", []byte("Café ☕"), "3d395b966fa57c8cde6e1bf01f8bf5320b9244bb44850108be56654c90e22cf")

	f.Fuzz(func(t *testing.T, schemeB bool, secret, ts, method, path string, body []byte, sigText string) {
		scheme := signing.SchemeA
		if schemeB {
			scheme = signing.SchemeB
		}
		msg := signing.StringToSign(scheme, ts, method, path, body)

		// The string to sign has the contract's shape.
		if scheme == signing.SchemeA {
			if want := ts + method + path + string(body); string(msg) != want {
				t.Fatalf("StringToSign(a, %q, %q, %q, %q) = %q, want %q", ts, method, path, body, msg, want)
			}
		} else {
			prefix := method + "\n" + path + "\n" + ts + "\n"
			rest, ok := strings.CutPrefix(string(msg), prefix)
			if _, err := hex.DecodeString(rest); !ok || len(rest) != 32 || err != nil || strings.ToLower(rest) != rest {
				t.Fatalf("StringToSign(b, %q, %q, %q, %q) = %q, want %q + 32 lower-case hex digits", ts, method, path, body, msg, prefix)
			}
		}

		// Decoding accepts exactly 64 hex digits, and Verify of what it
		// decodes agrees with comparing the text to Sign.
		sig, ok := signing.DecodeSignature(sigText)
		_, err := hex.DecodeString(sigText)
		if want := len(sigText) == 64 && err == nil; ok != want {
			t.Fatalf("DecodeSignature(%q) = %x, %v, want ok %v", sigText, sig, ok, want)
		}
		good := signing.Sign(secret, msg)
		if ok {
			if got := hex.EncodeToString(sig[:]); !strings.EqualFold(got, sigText) {
				t.Fatalf("DecodeSignature(%q) = %s, true, want the same digits", sigText, got)
			}
			if got, want := signing.Verify(secret, msg, sig), strings.EqualFold(sigText, good); got != want {
				t.Fatalf("Verify(%q, %q, %x) = %v, want %v (Sign gives %s)", secret, msg, sig, got, want, good)
			}
		}

		// Sign's output decodes, in either case, and verifies.
		if len(good) != 64 || strings.ToLower(good) != good {
			t.Fatalf("Sign(%q, %q) = %q, want 64 lower-case hex digits", secret, msg, good)
		}
		gsig, ok := signing.DecodeSignature(good)
		if !ok {
			t.Fatalf("DecodeSignature(%q) = _, false, want true", good)
		}
		if !signing.Verify(secret, msg, gsig) {
			t.Fatalf("Verify(%q, %q, %x) = false, want true", secret, msg, gsig)
		}
		// A Key of the secret agrees, on first use and reused, and refuses
		// the signature for another body or under the other scheme.
		key := signing.NewVerifier(secret)
		for range 2 {
			if !key.Verify(gsig, scheme, ts, method, path, body) {
				t.Fatalf("NewKey(%q).Verify(%x, %s, %q, %q, %q, %q) = false, want true", secret, gsig, scheme, ts, method, path, body)
			}
		}
		if key.Verify(gsig, scheme, ts, method, path, append(bytes.Clone(body), 'x')) {
			t.Fatalf("NewKey(%q).Verify of another body = true, want false", secret)
		}
		otherScheme := map[signing.Scheme]signing.Scheme{signing.SchemeA: signing.SchemeB, signing.SchemeB: signing.SchemeA}[scheme]
		if key.Verify(gsig, otherScheme, ts, method, path, body) != bytes.Equal(signing.StringToSign(otherScheme, ts, method, path, body), msg) {
			t.Fatalf("NewKey(%q).Verify under scheme %s = true for the signature of scheme %s", secret, otherScheme, scheme)
		}
		usig, ok := signing.DecodeSignature(strings.ToUpper(good))
		if !ok || usig != gsig {
			t.Fatalf("DecodeSignature(%q) = %x, %v, want %x, true", strings.ToUpper(good), usig, ok, gsig)
		}
		if !signing.Verify(secret, msg, usig) {
			t.Fatalf("Verify(%q, %q, %X) = false, want true", secret, msg, usig)
		}

		// A different message does not verify.
		for _, other := range [][]byte{
			append(bytes.Clone(msg), 'x'),
			msg[:max(len(msg)-1, 0)],
			signing.StringToSign(scheme, ts, method, path, append(bytes.Clone(body), 'x')),
		} {
			if bytes.Equal(other, msg) {
				continue
			}
			if signing.Verify(secret, other, gsig) {
				t.Fatalf("Verify(%q, %q, %x) = true, want false (signature of %q)", secret, other, gsig, msg)
			}
		}
		// Nor does a flipped bit, at a place the input picks.
		bad := gsig
		i := len(body) + len(path)
		bad[i%sha256.Size] ^= 1 << (i % 8)
		if signing.Verify(secret, msg, bad) {
			t.Fatalf("Verify(%q, %q, %x) = true, want false", secret, msg, bad)
		}
		// Nor another secret. (Appending a byte always changes the HMAC
		// key; appending a NUL to a short key would not.)
		if signing.Verify(secret+"x", msg, gsig) {
			t.Fatalf("Verify(%q, %q, %x) = true, want false", secret+"x", msg, gsig)
		}
	})
}

// TestKeyConcurrent: one Key verifies from many goroutines at once (run
// with -race), each answer right for its own request.
func TestKeyConcurrent(t *testing.T) {
	const secret = "sk_test_concurrent"
	key := signing.NewVerifier(secret)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				body := []byte(fmt.Sprintf(`{"g":%d,"i":%d}`, g, i))
				scheme := []signing.Scheme{signing.SchemeA, signing.SchemeB}[i%2]
				sig, _ := signing.DecodeSignature(signing.Sign(secret, signing.StringToSign(scheme, "1795000000", "POST", "/v1/campaigns", body)))
				if !key.Verify(sig, scheme, "1795000000", "POST", "/v1/campaigns", body) {
					t.Errorf("goroutine %d, request %d: Verify = false, want true", g, i)
				}
				if key.Verify(sig, scheme, "1795000001", "POST", "/v1/campaigns", body) {
					t.Errorf("goroutine %d, request %d: Verify with another timestamp = true, want false", g, i)
				}
			}
		}()
	}
	wg.Wait()
}
