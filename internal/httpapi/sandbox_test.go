package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/adcamp/adcamp/internal/service"
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
	for _, path := range []string{"/sandbox/reset", "/sandbox/sample-data", "/sandbox/simulate?days=1"} {
		// On for simulate alone: sample-data's backfill of 30 days is slow.
		e.svc.SetSimulator(service.SimulatorConfig{Enabled: strings.HasPrefix(path, "/sandbox/simulate"), Seed: 1, SampleDays: 2})
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

// TestSandboxDeliverySimulator: POST /sandbox/simulate backfills the
// account's last days through the delivery path (the campaigns' spend
// shows it), sample data comes with 30 days of it, and production has
// neither the route nor the figures.
func TestSandboxDeliverySimulator(t *testing.T) {
	e := newEnv(t)
	prod, sandbox := e.account("Acme")
	want(t, sandbox.do("POST", "/sandbox/simulate?days=3", ""), http.StatusConflict, "CONFLICT")
	e.svc.SetSimulator(service.SimulatorConfig{Enabled: true, Seed: 3, SampleDays: 2})
	want(t, prod.do("POST", "/sandbox/simulate?days=3", ""), http.StatusNotFound, "NOT_FOUND")
	live := prod.createCampaign(validCampaign)

	r := sandbox.do("POST", "/sandbox/sample-data", "")
	want(t, r, http.StatusCreated, "")
	list := sandbox.do("GET", "/campaigns?page_size=100", "")
	want(t, list, http.StatusOK, "")
	spent := 0.0
	for _, c := range list.Data()["items"].([]any) {
		spent += c.(map[string]any)["spend_today"].(float64)
	}
	if spent <= 0 {
		t.Errorf("sandbox spend today after sample-data = %v, want the simulator's", spent)
	}

	for _, q := range []string{"days=0", "days=31", "days=x", "from=2026-01-01"} {
		want(t, sandbox.do("POST", "/sandbox/simulate?"+q, ""), http.StatusBadRequest, "VALIDATION_ERROR")
	}
	want(t, sandbox.do("POST", "/sandbox/simulate", "{}"), http.StatusBadRequest, "VALIDATION_ERROR")
	r = sandbox.do("POST", "/sandbox/simulate?days=2", "")
	want(t, r, http.StatusOK, "")
	got, _ := r.Data()["simulated"].(map[string]any)
	if got["days"] != float64(2) || got["from"] != "2026-11-21" || got["to"] != "2026-11-22" || got["keywords"].(float64) < 50 ||
		got["rows"] != got["keywords"].(float64)*34 {
		t.Errorf("simulate?days=2 = %v, want 2 days from 2026-11-21 to 2026-11-22, 34 hours of each keyword", got)
	}
	r = prod.do("GET", "/campaigns/"+live["id"].(string), "")
	want(t, r, http.StatusOK, "")
	if r.Data()["spend_today"] != float64(0) {
		t.Errorf("production campaign's spend_today = %v, want 0", r.Data()["spend_today"])
	}
}
