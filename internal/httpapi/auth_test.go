package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/service"
)

// TestAuthCheckOrder walks every row of CONTRACT §2's check order.
func TestAuthCheckOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, sandbox := e.account("Acme")
	ts := signing.Timestamp(e.clock.Now())
	sig := func(c *apiClient, method, path string) string {
		return signing.Sign(c.secret, signing.StringToSign(signing.SchemeA, ts, method, signing.PrefixCanonical+path, nil))
	}
	good := sig(prod, "GET", "/campaigns")
	tests := []struct {
		name    string
		client  *apiClient
		headers []string
		status  int
		code    string
		message string // a fragment the message must contain
	}{
		{"no api key", prod, []string{"X-API-Key:", "X-Timestamp: " + ts, "X-Signature: " + good}, 401, "UNAUTHORIZED", "X-API-Key"},
		{"no timestamp", prod, []string{"X-Timestamp:"}, 401, "UNAUTHORIZED", "X-Timestamp"},
		{"no signature", prod, []string{"X-Signature:"}, 401, "UNAUTHORIZED", "X-Signature"},
		{"timestamp not decimal", prod, []string{"X-API-Key: " + prod.key, "X-Timestamp: 17e8", "X-Signature: " + good}, 401, "TIMESTAMP_EXPIRED", "decimal"},
		{"timestamp signed", prod, []string{"X-API-Key: " + prod.key, "X-Timestamp: +" + ts, "X-Signature: " + good}, 401, "TIMESTAMP_EXPIRED", "decimal"},
		{"timestamp in ms", prod, []string{"X-API-Key: " + prod.key, "X-Timestamp: " + ts + "000", "X-Signature: " + good}, 401, "TIMESTAMP_EXPIRED", "milliseconds"},
		{"timestamp old", prod, []string{"X-API-Key: " + prod.key, "X-Timestamp: " + signing.Timestamp(e.clock.Now().Add(-301*time.Second)), "X-Signature: " + good}, 401, "TIMESTAMP_EXPIRED", "301 seconds behind"},
		{"timestamp ahead", prod, []string{"X-API-Key: " + prod.key, "X-Timestamp: " + signing.Timestamp(e.clock.Now().Add(400*time.Second)), "X-Signature: " + good}, 401, "TIMESTAMP_EXPIRED", "400 seconds ahead"},
		{"bad timestamp before unknown key", prod, []string{"X-API-Key: ak_live_nope", "X-Timestamp: 1", "X-Signature: " + good}, 401, "TIMESTAMP_EXPIRED", ""},
		{"unknown key", prod, []string{"X-API-Key: ak_live_aaaaaaaaaaaaaaaaaaaaaaaa", "X-Timestamp: " + ts, "X-Signature: " + good}, 401, "UNAUTHORIZED", "unknown API key"},
		{"unknown key before bad signature", prod, []string{"X-API-Key: ak_live_x", "X-Timestamp: " + ts, "X-Signature: 00"}, 401, "UNAUTHORIZED", "unknown API key"},
		{"sandbox key on production", prod, []string{"X-API-Key: " + sandbox.key, "X-Timestamp: " + ts, "X-Signature: " + sig(sandbox, "GET", "/campaigns")}, 401, "UNAUTHORIZED", "unknown API key"},
		{"wrong signature", prod, []string{"X-Signature: " + strings.Repeat("ab", 32)}, 401, "INVALID_SIGNATURE", "does not match"},
		{"signature not hex", prod, []string{"X-Signature: zz"}, 401, "INVALID_SIGNATURE", ""},
		{"signature over other path", prod, []string{"X-Signature: " + sig(prod, "GET", "/campaigns/x")}, 401, "INVALID_SIGNATURE", ""},
		{"upper-case hex", prod, []string{"X-Signature: " + strings.ToUpper(good)}, 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.client.newRequest("GET", "/campaigns", "")
			tt.client.sign(req, nil)
			setHeaders(req, tt.headers)
			r := tt.client.send(req)
			want(t, r, tt.status, tt.code)
			if tt.status == 200 {
				return
			}
			if msg, _ := r.Error()["message"].(string); !strings.Contains(msg, tt.message) {
				t.Errorf("message = %q, want it to contain %q", msg, tt.message)
			}
			d, _ := r.Error()["details"].(map[string]any)
			if d["server_time"] != float64(e.clock.Now().Unix()) || d["server_time_iso"] != "2026-11-22T09:30:00Z" {
				t.Errorf("details = %v, want the server time", d)
			}
			if strings.Contains(string(r.Raw), tt.client.secret) {
				t.Errorf("the response shows the secret: %s", r.Raw)
			}
		})
	}
}

func TestAuthSkewDetails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	e.clock.Advance(-10 * time.Minute) // the client's clock is 10 minutes slow
	req := prod.newRequest("GET", "/campaigns", "")
	prod.sign(req, nil)
	e.clock.Advance(10 * time.Minute)
	r := prod.send(req)
	want(t, r, 401, "TIMESTAMP_EXPIRED")
	if got := r.Error()["details"].(map[string]any)["skew_seconds"]; got != float64(-600) {
		t.Errorf("skew_seconds = %v, want -600", got)
	}
}

// TestSignatureForms shows every accepted way of signing under --signing auto.
func TestSignatureForms(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	for _, f := range []struct {
		scheme   signing.Scheme
		prefix   string
		relative bool
	}{
		{signing.SchemeA, signing.PrefixCanonical, false},
		{signing.SchemeA, signing.PrefixCanonical, true},
		{signing.SchemeA, signing.PrefixShort, false},
		{signing.SchemeA, signing.PrefixShort, true},
		{signing.SchemeB, signing.PrefixCanonical, false},
		{signing.SchemeB, signing.PrefixShort, false},
	} {
		c := *prod
		c.scheme, c.prefix, c.relative = f.scheme, f.prefix, f.relative
		created := c.createCampaign(validCampaign)
		want(t, c.do("GET", "/campaigns/"+created["id"].(string)+"?", ""), 200, "")
		want(t, c.do("PUT", "/campaigns/"+created["id"].(string), `{"name":"renamed"}`), 200, "")
	}
	// Scheme B over the relative path is not a form the spec gives.
	c := *prod
	c.scheme, c.relative = signing.SchemeB, true
	want(t, c.do("GET", "/campaigns", ""), 401, "INVALID_SIGNATURE")
}

func TestSigningModes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode       service.SigningMode
		scheme     signing.Scheme
		status     int
		code       string
		prodStatus int
	}{
		{service.SigningA, signing.SchemeA, 200, "", 200},
		{service.SigningA, signing.SchemeB, 401, "INVALID_SIGNATURE", 401},
		{service.SigningB, signing.SchemeB, 200, "", 200},
		{service.SigningB, signing.SchemeA, 401, "SIGNATURE_INVALID", 401},
	}
	for _, tt := range tests {
		e := newEnv(t, withSigning(tt.mode))
		prod, _ := e.account("Acme")
		prod.scheme = tt.scheme
		want(t, prod.do("GET", "/campaigns", ""), tt.status, tt.code)
	}
}

// TestDisabledKey: the scheme whose signature matched decides the answer.
func TestDisabledKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	if _, err := e.svc.SetKeyDisabled(context.Background(), prod.key, true); err != nil {
		t.Fatal(err)
	}
	want(t, prod.do("GET", "/campaigns", ""), 401, "UNAUTHORIZED")
	prod.scheme = signing.SchemeB
	want(t, prod.do("GET", "/campaigns", ""), 403, "API_KEY_DISABLED")
	// A bad signature is reported before the disabled key.
	want(t, prod.do("GET", "/campaigns", "", "X-Signature: "+strings.Repeat("0", 64)), 401, "INVALID_SIGNATURE")

	if _, err := e.svc.SetKeyDisabled(context.Background(), prod.key, false); err != nil {
		t.Fatal(err)
	}
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
}

func TestDeletedKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	if err := e.svc.DeleteKey(context.Background(), prod.key); err != nil {
		t.Fatal(err)
	}
	want(t, prod.do("GET", "/campaigns", ""), 401, "UNAUTHORIZED")
}

// TestSandboxEchoesStringToSign: the sandbox shows what it expected (never
// a secret); production does not.
func TestSandboxEchoesStringToSign(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, sandbox := e.account("Acme")
	prod.exactTime, sandbox.exactTime = true, true
	bad := "X-Signature: " + strings.Repeat("1", 64)
	r := sandbox.do("POST", "/campaigns", validCampaign, bad)
	want(t, r, 401, "INVALID_SIGNATURE")
	ts := signing.Timestamp(e.clock.Now())
	wantA := ts + "POST" + signing.PrefixCanonical + "/campaigns" + validCampaign
	got, _ := r.Error()["details"].(map[string]any)["expected_strings_to_sign"].([]any)
	if len(got) != 3 || got[0] != wantA || got[1] != ts+"POST/campaigns"+validCampaign ||
		!strings.HasPrefix(got[2].(string), "POST\n/api/v1/open/campaigns\n"+ts+"\n") {
		t.Errorf("expected_strings_to_sign = %q, want Scheme A full and relative, then Scheme B", got)
	}
	if strings.Contains(string(r.Raw), sandbox.secret) {
		t.Error("the sandbox echo shows the secret")
	}
	r = prod.do("POST", "/campaigns", validCampaign, bad)
	want(t, r, 401, "INVALID_SIGNATURE")
	if strings.Contains(string(r.Raw), "expected") {
		t.Errorf("production shows the expected string to sign: %s", r.Raw)
	}
}

// TestRolledKey: after a roll both secrets verify until the grace ends.
func TestRolledKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	old := *prod
	k, err := e.svc.RollKey(context.Background(), prod.key, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if k.Secret == old.secret || k.ID != old.key {
		t.Fatalf("roll gave key %s secret changed=%v; want the same key with a new secret", k.ID, k.Secret != old.secret)
	}
	prod.secret = k.Secret
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
	want(t, old.do("GET", "/campaigns", ""), 200, "")
	e.clock.Advance(time.Hour + time.Second)
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
	want(t, old.do("GET", "/campaigns", ""), 401, "INVALID_SIGNATURE")
}

// TestRepeatedAuthHeaders: an authentication header sent twice is
// refused, even when either copy would verify: which one counts would be
// ambiguous.
func TestRepeatedAuthHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	for _, name := range []string{signing.HeaderAPIKey, signing.HeaderTimestamp, signing.HeaderSignature} {
		req := prod.newRequest("GET", "/campaigns", "")
		prod.sign(req, nil)
		req.Header.Add(name, req.Header.Get(name))
		r := prod.send(req)
		want(t, r, 401, "UNAUTHORIZED")
		if msg, _ := r.Error()["message"].(string); !strings.Contains(msg, name) {
			t.Errorf("%s twice: message %q does not name the header", name, msg)
		}
	}
}

// TestRollWithoutGrace: a roll with a grace of 0 revokes the old secret
// at once (a leaked secret); a negative grace, or one over 30 days, is
// refused and changes nothing.
func TestRollWithoutGrace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	for _, grace := range []time.Duration{-time.Second, 30*24*time.Hour + time.Second} {
		_, err := e.svc.RollKey(context.Background(), prod.key, grace)
		if adcamp.ErrorCode(err) != adcamp.CodeValidation {
			t.Errorf("RollKey(grace %v) = %v, want VALIDATION_ERROR", grace, err)
		}
	}
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
	old := *prod
	k, err := e.svc.RollKey(context.Background(), prod.key, 0)
	if err != nil {
		t.Fatal(err)
	}
	if k.PreviousExpiresAt != nil {
		t.Errorf("RollKey(grace 0) left the old secret valid until %v", k.PreviousExpiresAt)
	}
	want(t, old.do("GET", "/campaigns", ""), 401, "INVALID_SIGNATURE")
	prod.secret = k.Secret
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
}

// TestSignedOverExactBytes: the signature covers the body as sent, so a
// body re-serialised differently does not verify.
func TestSignedOverExactBytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	body := `{"name": "Spring",  "budget_daily": 12.50, "marketplace": "US"}`
	req := prod.newRequest("POST", "/campaigns", body)
	prod.sign(req, []byte(`{"name":"Spring","budget_daily":12.5,"marketplace":"US"}`))
	want(t, prod.send(req), 401, "INVALID_SIGNATURE")
	want(t, prod.do("POST", "/campaigns", body), 201, "")
}

func TestLastUsedAtIsBatched(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
	keys, err := e.svc.ListKeys(context.Background(), prod.accountID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.LastUsedAt != nil {
			t.Fatalf("last_used_at written before the flush: %v", k.LastUsedAt)
		}
	}
	e.svc.FlushUsage(context.Background())
	keys, _ = e.svc.ListKeys(context.Background(), prod.accountID)
	for _, k := range keys {
		if k.ID == prod.key && (k.LastUsedAt == nil || !k.LastUsedAt.Equal(e.clock.Now())) {
			t.Errorf("last_used_at = %v after the flush, want %v", k.LastUsedAt, e.clock.Now())
		}
		if k.ID != prod.key && k.LastUsedAt != nil {
			t.Errorf("unused key %s has last_used_at %v", k.ID, k.LastUsedAt)
		}
	}
}

func TestUnsignedEndpoints(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	for _, p := range []string{"/healthz", "/readyz", "/api/v1/open/time", "/v1/time", "/api/v1/open/openapi.json", "/v1/openapi.json"} {
		resp, err := http.Get(e.servers[adcamp.Production].URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s = %d %s, want 200 application/json", p, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	r := prod.do("GET", "/time", "")
	if r.Data()["unix"] != float64(e.clock.Now().Unix()) || r.Data()["iso"] != "2026-11-22T09:30:00Z" {
		t.Errorf("/time = %v, want the service clock", r.Data())
	}
}
