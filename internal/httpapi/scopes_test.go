package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/metrics"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// scopedClient issues a key for accountID in env with scopes and limits.
func (e *testEnv) scopedClient(accountID string, env adcamp.Environment, scopes adcamp.Scopes, limits adcamp.KeyLimits) *apiClient {
	e.t.Helper()
	k, err := e.svc.CreateKeyWith(context.Background(), service.KeyRequest{AccountID: accountID, Environment: env,
		Scopes: &scopes, Limits: limits})
	if err != nil {
		e.t.Fatal(err)
	}
	return &apiClient{t: e.t, env: e, base: e.servers[env].URL, accountID: accountID,
		key: k.ID, secret: k.Secret, scheme: signing.SchemeA, prefix: signing.PrefixCanonical}
}

// documentedOperation is an operation of openapi.yaml and its scope.
type documentedOperation struct {
	method, path, scope string
}

func documentedOperations(t *testing.T) []documentedOperation {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	js, err := yaml.YAMLToJSON(adcamp.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	var out []documentedOperation
	for path, ops := range doc.Paths {
		for method, raw := range ops {
			if method == "parameters" || method == "servers" || strings.HasPrefix(method, "x-") {
				continue
			}
			var op struct {
				Scope string `json:"x-required-scope"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			out = append(out, documentedOperation{strings.ToUpper(method), path, op.Scope})
		}
	}
	slices.SortFunc(out, func(a, b documentedOperation) int { return strings.Compare(a.path+a.method, b.path+b.method) })
	return out
}

// TestEveryOperationNamesItsScope fails for an operation of openapi.yaml
// without a valid x-required-scope, and for a signed one that names none.
func TestEveryOperationNamesItsScope(t *testing.T) {
	t.Parallel()
	for _, op := range documentedOperations(t) {
		sc, ok := adcamp.ParseScope(op.scope)
		if !ok {
			t.Errorf("%s %s: x-required-scope = %q, want none or group:read|write", op.method, op.path, op.scope)
			continue
		}
		if op.method == "HEAD" {
			continue
		}
		unsigned := slices.Contains([]string{"/time", "/openapi.json", "/healthz", "/readyz", "/livez", "/metrics"}, op.path)
		if unsigned != (sc.Group == "") {
			t.Errorf("%s %s: x-required-scope = %q, but the operation is signed: %v", op.method, op.path, op.scope, !unsigned)
		}
		if sc.Access == adcamp.AccessRead && op.method != "GET" {
			t.Errorf("%s %s: a change that requires only read (%s)", op.method, op.path, op.scope)
		}
	}
}

var pathParam = regexp.MustCompile(`\{[a-z_]+\}`)

// TestScopesMatchTheDocument sends every signed operation of the document
// with a key one level short of its x-required-scope (403
// INSUFFICIENT_SCOPE naming it) and with a key of exactly that level
// (anything but INSUFFICIENT_SCOPE): the server's check is the document's.
func TestScopesMatchTheDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, err := e.svc.CreateAccount(context.Background(), "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]*apiClient{}
	keyFor := func(env adcamp.Environment, g adcamp.ScopeGroup, level adcamp.Access) *apiClient {
		name := string(env) + string(g) + level.String()
		if keys[name] == nil {
			sc := adcamp.AllWrite
			sc.Set(g, level)
			keys[name] = e.scopedClient(a.ID, env, sc, adcamp.KeyLimits{})
		}
		return keys[name]
	}
	n := 0
	for _, op := range documentedOperations(t) {
		sc, ok := adcamp.ParseScope(op.scope)
		if !ok || sc.Group == "" || op.method == "HEAD" {
			continue
		}
		env := adcamp.Production
		if strings.HasPrefix(op.path, "/sandbox/") {
			env = adcamp.Sandbox
		}
		path := pathParam.ReplaceAllString(op.path, "x_missing")
		body := ""
		if (op.method == "POST" || op.method == "PUT") && env == adcamp.Production {
			body = "{}"
		}
		short := keyFor(env, sc.Group, sc.Access-1).do(op.method, path, body)
		want(t, short, http.StatusForbidden, "INSUFFICIENT_SCOPE")
		details, _ := short.Error()["details"].(map[string]any)
		if details["required_scope"] != op.scope {
			t.Errorf("%s %s: details.required_scope = %v, want %s", op.method, op.path, details["required_scope"], op.scope)
		}
		enough := keyFor(env, sc.Group, sc.Access).do(op.method, path, body)
		if enough.Code() == "INSUFFICIENT_SCOPE" {
			t.Errorf("%s %s with %s: %d %s, want it past the scope check\n%s", op.method, op.path, op.scope, enough.Status, enough.Code(), enough.Raw)
		}
		n++
	}
	if n < 20 {
		t.Errorf("checked %d signed operations, want every one of the document's", n)
	}
}

func TestExpiredKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	expires := e.clock.Now().Add(time.Hour)
	c := e.scopedClient(prod.accountID, adcamp.Production, adcamp.AllWrite, adcamp.KeyLimits{ExpiresAt: &expires})
	want(t, c.do("GET", "/campaigns", ""), http.StatusOK, "")
	e.clock.Advance(2 * time.Hour)
	r := c.do("GET", "/campaigns", "")
	want(t, r, http.StatusUnauthorized, "UNAUTHORIZED")
	if msg, _ := r.Error()["message"].(string); !strings.Contains(msg, "expired") {
		t.Errorf("message = %q, want it to say the key expired", msg)
	}
	if d, _ := r.Error()["details"].(map[string]any); d["expired_at"] != expires.Format(time.RFC3339) {
		t.Errorf("details.expired_at = %v, want %s", d["expired_at"], expires.Format(time.RFC3339))
	}
	// A stranger with a wrong secret learns nothing: the signature comes first.
	c.secret = "sk_live_wrong"
	want(t, c.do("GET", "/campaigns", ""), http.StatusUnauthorized, "INVALID_SIGNATURE")
	keys, err := e.svc.ListKeys(context.Background(), prod.accountID)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(keys, func(k adcamp.APIKey) bool { return k.ID == c.key })
	if i < 0 || !keys[i].Expired(e.clock.Now()) {
		t.Errorf("ListKeys does not list the key as expired: %+v", keys)
	}
}

func TestAllowedIPs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	only := func(cidrs ...string) adcamp.KeyLimits {
		p, err := adcamp.ParsePrefixes(cidrs)
		if err != nil {
			t.Fatal(err)
		}
		return adcamp.KeyLimits{AllowedIPs: p}
	}
	loop4 := e.scopedClient(prod.accountID, adcamp.Production, adcamp.AllWrite, only("127.0.0.0/8"))
	loop6 := e.scopedClient(prod.accountID, adcamp.Production, adcamp.AllWrite, only("::1/128"))
	elsewhere := e.scopedClient(prod.accountID, adcamp.Production, adcamp.AllWrite, only("203.0.113.0/24", "2001:db8::/32"))

	want(t, loop4.do("GET", "/campaigns", ""), http.StatusOK, "")
	want(t, loop6.do("GET", "/campaigns", ""), http.StatusForbidden, "IP_NOT_ALLOWED")
	r := elsewhere.do("GET", "/campaigns", "")
	want(t, r, http.StatusForbidden, "IP_NOT_ALLOWED")
	if d, _ := r.Error()["details"].(map[string]any); d["client_ip"] != "127.0.0.1" {
		t.Errorf("details.client_ip = %v, want 127.0.0.1", d["client_ip"])
	}
	// A spoofed X-Forwarded-For from a peer that is no trusted proxy
	// changes nothing.
	want(t, elsewhere.do("GET", "/campaigns", "", "X-Forwarded-For: 203.0.113.9"), http.StatusForbidden, "IP_NOT_ALLOWED")
	// A wrong signature is refused as such, whatever the address.
	elsewhere.secret = "sk_live_wrong"
	want(t, elsewhere.do("GET", "/campaigns", ""), http.StatusUnauthorized, "INVALID_SIGNATURE")

	// Over IPv6 loopback, where the machine has it.
	if ln, err := net.Listen("tcp", "[::1]:0"); err == nil {
		h, err := httpapi.New(e.svc.Ads, e.svc.Keys, adcamp.Production, testLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
		srv.Start()
		t.Cleanup(srv.Close)
		loop4.base, loop6.base = srv.URL, srv.URL
		want(t, loop6.do("GET", "/campaigns", ""), http.StatusOK, "")
		want(t, loop4.do("GET", "/campaigns", ""), http.StatusForbidden, "IP_NOT_ALLOWED")
	}
}

func TestTrustedProxies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	p, _ := adcamp.ParsePrefixes([]string{"203.0.113.0/24"})
	c := e.scopedClient(prod.accountID, adcamp.Production, adcamp.AllWrite, adcamp.KeyLimits{AllowedIPs: p})
	e.serveWith(c, nil, httpapi.WithTrustedProxies([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")}))
	for _, tc := range []struct {
		name, xff string
		status    int
	}{
		{"no header: the proxy's own address", "", http.StatusForbidden},
		{"the client", "203.0.113.7", http.StatusOK},
		{"the client behind two trusted proxies", "203.0.113.7, 10.0.0.2, 10.0.0.3", http.StatusOK},
		{"a spoofed leftmost address", "203.0.113.7, 198.51.100.1", http.StatusForbidden},
		{"a forged allowed address left of the real client", "198.51.100.1, 203.0.113.7", http.StatusOK},
		{"garbage", "not-an-address", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do("GET", "/campaigns", "", "X-Forwarded-For: "+tc.xff)
			if r.Status != tc.status {
				t.Errorf("X-Forwarded-For %q: %d %s, want %d", tc.xff, r.Status, r.Code(), tc.status)
			}
		})
	}
}

func TestKeyRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	c := e.scopedClient(prod.accountID, adcamp.Production, adcamp.AllWrite, adcamp.KeyLimits{RateLimit: 1})
	e.serveWith(c, nil, httpapi.WithRateLimit(1000))
	other := e.client(prod.accountID, adcamp.Production)
	other.base = c.base
	for i := range 2 { // burst 2
		r := c.do("GET", "/campaigns", "")
		want(t, r, http.StatusOK, "")
		if i == 0 && r.Header.Get("RateLimit-Limit") != "2" {
			t.Errorf("RateLimit-Limit = %q, want 2 (the key's own limit)", r.Header.Get("RateLimit-Limit"))
		}
	}
	r := c.do("GET", "/campaigns", "")
	want(t, r, http.StatusTooManyRequests, "RATE_LIMITED")
	if r.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	// Another key of the account keeps the server's limit.
	r = other.do("GET", "/campaigns", "")
	want(t, r, http.StatusOK, "")
	if r.Header.Get("RateLimit-Limit") != "2000" {
		t.Errorf("RateLimit-Limit = %q, want 2000", r.Header.Get("RateLimit-Limit"))
	}
}

func TestKeyTrail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	want(t, prod.do("GET", "/campaigns", ""), http.StatusOK, "")
	prod.createCampaign(validCampaign)
	e.svc.FlushUsage(context.Background())
	trail, err := e.svc.KeyTrail(context.Background(), prod.accountID, prod.key)
	if err != nil {
		t.Fatal(err)
	}
	if len(trail) != 2 || trail[0].Route != "POST /api/v1/open/campaigns" || trail[1].Route != "GET /api/v1/open/campaigns" ||
		trail[0].Address != "127.0.0.1" {
		t.Errorf("KeyTrail = %+v, want the POST then the GET, from 127.0.0.1", trail)
	}
}

// TestKeyRefusalsCounted checks that each refusal of a scoped key is
// counted in /metrics by its code.
func TestKeyRefusalsCounted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	expires := e.clock.Now().Add(time.Hour)
	far, _ := adcamp.ParsePrefixes([]string{"203.0.113.0/24"})
	reader := e.scopedClient(prod.accountID, adcamp.Production, adcamp.Scopes{Campaigns: adcamp.AccessRead}, adcamp.KeyLimits{})
	fenced := e.scopedClient(prod.accountID, adcamp.Production, adcamp.AllWrite, adcamp.KeyLimits{AllowedIPs: far})
	expiring := e.scopedClient(prod.accountID, adcamp.Production, adcamp.AllWrite, adcamp.KeyLimits{ExpiresAt: &expires})
	m := metrics.New(nil)
	srv := e.serveWith(reader, nil, httpapi.WithMetrics(m))
	fenced.base, expiring.base = srv.URL, srv.URL
	reader.do("POST", "/campaigns", validCampaign)
	reader.do("GET", "/changes", "")
	fenced.do("GET", "/campaigns", "")
	e.clock.Advance(2 * time.Hour)
	expiring.do("GET", "/campaigns", "")

	metricsSrv := httptest.NewServer(httpapi.MetricsHandler(m))
	t.Cleanup(metricsSrv.Close)
	resp, err := http.Get(metricsSrv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, line := range []string{
		`adcamp_auth_failures_total{code="INSUFFICIENT_SCOPE",env="production"} 2`,
		`adcamp_auth_failures_total{code="IP_NOT_ALLOWED",env="production"} 1`,
		`adcamp_auth_failures_total{code="UNAUTHORIZED",env="production"} 1`,
	} {
		if !strings.Contains(string(body), line) {
			t.Errorf("/metrics lacks %s", line)
		}
	}
}

// TestKeyTrailKeepsTheNewest: past its size, the trail keeps the newest
// uses, in order.
func TestKeyTrailKeepsTheNewest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	for range 2*store.KeyTrailKept + 30 {
		want(t, prod.do("GET", "/campaigns", ""), http.StatusOK, "")
	}
	want(t, prod.do("GET", "/changes", ""), http.StatusOK, "")
	e.svc.FlushUsage(context.Background())
	trail, err := e.svc.KeyTrail(context.Background(), prod.accountID, prod.key)
	if err != nil {
		t.Fatal(err)
	}
	if len(trail) != store.KeyTrailKept || trail[0].Route != "GET /api/v1/open/changes" {
		t.Errorf("KeyTrail has %d uses, the newest %+v; want %d, the newest GET /changes", len(trail), trail[0], store.KeyTrailKept)
	}
}
