package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestSandboxResetAndSampleData(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, sandbox := e.account("Acme")
	kept := prod.createCampaign(validCampaign)
	for _, path := range []string{"/sandbox/reset", "/sandbox/sample-data"} {
		want(t, prod.do("POST", path, ""), http.StatusNotFound, "NOT_FOUND")
	}
	r := sandbox.do("POST", "/sandbox/sample-data", "")
	want(t, r, http.StatusCreated, "")
	created, _ := r.Data()["created"].(map[string]any)
	if created["campaigns"].(float64) < 3 || created["keywords"].(float64) < 200 {
		t.Errorf("sample-data created %v, want a few campaigns and a few hundred keywords", created)
	}
	list := sandbox.do("GET", "/campaigns", "")
	want(t, list, http.StatusOK, "")
	if list.Data()["total_items"] != created["campaigns"] {
		t.Errorf("sandbox campaigns after sample-data: %v, want %v", list.Data()["total_items"], created["campaigns"])
	}
	r = sandbox.do("POST", "/sandbox/reset", "")
	want(t, r, http.StatusOK, "")
	if deleted, _ := r.Data()["deleted"].(map[string]any); deleted["keywords"] != created["keywords"] ||
		deleted["campaigns"] != created["campaigns"] || deleted["ad_groups"] != created["ad_groups"] {
		t.Errorf("reset deleted %v, want what sample-data created (%v)", deleted, created)
	}
	list = sandbox.do("GET", "/campaigns", "")
	if list.Data()["total_items"] != float64(0) {
		t.Errorf("sandbox campaigns after reset: %v, want 0", list.Data()["total_items"])
	}
	want(t, prod.do("GET", "/campaigns/"+kept["id"].(string), ""), http.StatusOK, "")
	want(t, sandbox.do("POST", "/sandbox/reset?force=true", ""), http.StatusBadRequest, "VALIDATION_ERROR")
	want(t, sandbox.do("POST", "/sandbox/reset", "{}"), http.StatusBadRequest, "VALIDATION_ERROR")
}

func TestSandboxSimulate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, sandbox := e.account("Acme")
	count := func(c *apiClient) float64 {
		t.Helper()
		r := c.do("GET", "/campaigns", "")
		want(t, r, http.StatusOK, "")
		return r.Data()["total_items"].(float64)
	}
	for _, tc := range []struct {
		value, code string
		status      int
		retryAfter  string
	}{
		{"rate_limited", "RATE_LIMITED", http.StatusTooManyRequests, "2"},
		{"internal_error", "INTERNAL_ERROR", http.StatusInternalServerError, ""},
		{"unavailable", "SERVICE_UNAVAILABLE", http.StatusServiceUnavailable, "1"},
		{"timestamp_expired", "TIMESTAMP_EXPIRED", http.StatusUnauthorized, ""},
	} {
		t.Run(tc.value, func(t *testing.T) {
			r := sandbox.do("POST", "/campaigns", validCampaign, "X-Sandbox-Simulate: "+tc.value)
			want(t, r, tc.status, tc.code)
			if got := r.Header.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tc.retryAfter)
			}
			if tc.value == "rate_limited" && (r.Header.Get("RateLimit-Remaining") != "0" || r.Header.Get("RateLimit-Limit") == "") {
				t.Errorf("RateLimit headers: %v", r.Header)
			}
			if n := count(sandbox); n != 0 {
				t.Errorf("after a simulated %s, %v campaigns exist: the change was applied", tc.value, n)
			}
			// Production ignores the header entirely.
			want(t, prod.do("POST", "/campaigns", validCampaign, "X-Sandbox-Simulate: "+tc.value), http.StatusCreated, "")
		})
	}
	// slow answers for real, after the wait.
	r := sandbox.do("POST", "/campaigns", validCampaign, "X-Sandbox-Simulate: slow=10ms")
	want(t, r, http.StatusCreated, "")
	for _, bad := range []string{"slow=11s", "slow=fast", "explode"} {
		r := sandbox.do("GET", "/campaigns", "", "X-Sandbox-Simulate: "+bad)
		want(t, r, http.StatusBadRequest, "VALIDATION_ERROR")
		if !strings.Contains(string(r.Raw), "X-Sandbox-Simulate") {
			t.Errorf("the error does not name the header: %s", r.Raw)
		}
		want(t, prod.do("GET", "/campaigns", "", "X-Sandbox-Simulate: "+bad), http.StatusOK, "")
	}
	// A stranger gets the authentication failure, not the simulation.
	sandbox.secret = "sk_test_wrong"
	want(t, sandbox.do("GET", "/campaigns", "", "X-Sandbox-Simulate: internal_error"), http.StatusUnauthorized, "INVALID_SIGNATURE")
}

// TestSandboxRoutesAsDocumented is TestEveryPathAsDocumented for the
// sandbox's own paths, which are actions (POST alone) of the sandbox
// listener: any other method there is a 405 with Allow: POST, and every
// method on the production listener a 404.
func TestSandboxRoutesAsDocumented(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, sandbox := e.account("Acme")
	for _, path := range []string{"/sandbox/reset", "/sandbox/sample-data"} {
		for _, prefix := range []string{"/api/v1/open", "/v1"} {
			for _, m := range []string{"GET", "PATCH", "PUT", "DELETE", "OPTIONS"} {
				r := sandbox.sendPath(m, prefix+path)
				if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "POST" {
					t.Errorf("sandbox %s %s = %d, Allow %q; want 405, Allow POST", m, prefix+path, r.Status, r.Header.Get("Allow"))
				}
				if r := prod.sendPath(m, prefix+path); r.Status != http.StatusNotFound {
					t.Errorf("production %s %s = %d, want 404", m, prefix+path, r.Status)
				}
			}
			if r := sandbox.sendPath("POST", prefix+path); r.Status >= 300 {
				t.Errorf("sandbox POST %s = %d\n%s", prefix+path, r.Status, r.Raw)
			}
		}
	}
}
