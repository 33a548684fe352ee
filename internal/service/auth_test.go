package service

import (
	"crypto/rand"
	"strconv"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/sqlite"
)

// TestAuthenticateCheckOrder: each failure is found at its step of the
// check order (a missing header, the timestamp, the key, the signature,
// a disabled key), so a request wrong in several ways is answered for
// the first.
func TestAuthenticateCheckOrder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mk := make([]byte, secrets.KeySize)
	rand.Read(mk)
	box, _ := secrets.New(mk)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	s := New(Config{Store: db, Box: box, Now: func() time.Time { return now }})
	acc, err := s.CreateAccount(ctx, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	live, err := s.CreateKey(ctx, acc.ID, adcamp.Production)
	if err != nil {
		t.Fatal(err)
	}
	off, err := s.CreateKey(ctx, acc.ID, adcamp.Production)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetKeyDisabled(ctx, off.ID, true); err != nil {
		t.Fatal(err)
	}
	sandbox, err := s.CreateKey(ctx, acc.ID, adcamp.Sandbox)
	if err != nil {
		t.Fatal(err)
	}

	ts := strconv.FormatInt(now.Unix(), 10)
	signed := func(key, secret, ts string, scheme signing.Scheme) AuthRequest {
		r := AuthRequest{Environment: adcamp.Production, APIKey: key, Timestamp: ts, Method: "GET", Path: "/api/v1/open/campaigns"}
		r.Signature = signing.Sign(secret, signing.StringToSign(scheme, ts, r.Method, r.Path, nil))
		return r
	}
	stale := strconv.FormatInt(now.Add(-301*time.Second).Unix(), 10)
	for _, tc := range []struct {
		name string
		req  AuthRequest
		want adcamp.Code // "" for success
	}{
		{"valid", signed(live.ID, live.Secret, ts, signing.SchemeA), ""},
		{"valid, scheme B", signed(live.ID, live.Secret, ts, signing.SchemeB), ""},
		{"no key header", func() AuthRequest { r := signed(live.ID, live.Secret, ts, signing.SchemeA); r.APIKey = ""; return r }(), adcamp.CodeUnauthorized},
		{"no timestamp, and an unknown key", func() AuthRequest {
			r := signed("ak_live_nobody", "x", ts, signing.SchemeA)
			r.Timestamp = ""
			return r
		}(), adcamp.CodeUnauthorized},
		{"stale, unknown key, wrong signature", signed("ak_live_nobody", "wrong", stale, signing.SchemeA), adcamp.CodeTimestampExpired},
		{"milliseconds", signed(live.ID, live.Secret, ts+"000", signing.SchemeA), adcamp.CodeTimestampExpired},
		{"not a number", signed(live.ID, live.Secret, "12ab", signing.SchemeA), adcamp.CodeTimestampExpired},
		{"unknown key, wrong signature", signed("ak_live_nobody", "wrong", ts, signing.SchemeA), adcamp.CodeUnauthorized},
		{"a sandbox key on production", signed(sandbox.ID, sandbox.Secret, ts, signing.SchemeA), adcamp.CodeUnauthorized},
		{"wrong secret of a disabled key", signed(off.ID, "sk_live_wrong", ts, signing.SchemeA), adcamp.CodeInvalidSignature},
		{"disabled, scheme A", signed(off.ID, off.Secret, ts, signing.SchemeA), adcamp.CodeUnauthorized},
		{"disabled, scheme B", signed(off.ID, off.Secret, ts, signing.SchemeB), adcamp.CodeAPIKeyDisabled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, err := s.Authenticate(ctx, tc.req)
			if got := codeOf(err); got != tc.want {
				t.Errorf("Authenticate = %v, want %q", err, tc.want)
			}
			if tc.want == "" && (key == nil || key.ID != tc.req.APIKey) {
				t.Errorf("Authenticate = %+v, want the key %s", key, tc.req.APIKey)
			}
		})
	}
}

func codeOf(err error) adcamp.Code {
	if err == nil {
		return ""
	}
	return adcamp.ErrorCode(err)
}
