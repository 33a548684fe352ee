package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// The sandbox's own routes and its fault injection. On the production
// listener neither exists: the routes are not installed (404, as any
// unknown path) and X-Sandbox-Simulate is never read.

// headerSimulate asks the sandbox to answer as a troubled service would.
const headerSimulate = "X-Sandbox-Simulate"

// maxSimulatedDelay bounds slow=D.
const maxSimulatedDelay = 10 * time.Second

// sandboxRoutes installs the sandbox-only routes under prefix p.
func (s *Server) sandboxRoutes(p string) {
	if s.env != adcamp.Sandbox {
		return
	}
	s.handle("POST "+p+"/sandbox/reset", s.signed(s.resetSandbox))
	s.handle("POST "+p+"/sandbox/sample-data", s.signed(s.sampleData))
	s.handle("POST "+p+"/sandbox/simulate", s.signed(s.simulateDelivery))
}

// checkActionRequest refuses a query or a body, which the sandbox's
// actions do not take.
func checkActionRequest(r *http.Request, c *call) error {
	issues := parseQuery(r).issues
	if len(c.body) > 0 {
		issues.Add("body", "must be empty: %s takes no body", r.URL.Path)
	}
	return issues.Err()
}

func (s *Server) resetSandbox(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := checkActionRequest(r, c); err != nil {
		return err
	}
	n, err := s.svc.ResetSandbox(r.Context(), c.tenant)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, map[string]any{"deleted": n})
	return nil
}

func (s *Server) sampleData(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := checkActionRequest(r, c); err != nil {
		return err
	}
	n, err := s.svc.SampleData(r.Context(), c.tenant)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, map[string]any{"created": n})
	return nil
}

// simulateDelivery backfills the last days of the account's sandbox with
// the delivery simulator's figures (docs/sandbox.md).
func (s *Server) simulateDelivery(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "days")
	days := q.int("days", service.MaxSimulateDays)
	if len(c.body) > 0 {
		q.issues.Add("body", "must be empty: %s takes no body", r.URL.Path)
	}
	if err := q.issues.Err(); err != nil {
		return err
	}
	n, err := s.svc.SimulateSandbox(r.Context(), c.tenant, days)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, map[string]any{"simulated": n})
	return nil
}

// simulate acts on X-Sandbox-Simulate of a request that authenticated:
// it returns the simulated failure (before anything is done, so that a
// change under it is not applied), or waits and returns nil (slow=D), or
// returns nil at once when the header is absent or this is not the
// sandbox.
func (s *Server) simulate(w http.ResponseWriter, r *http.Request) error {
	if s.env != adcamp.Sandbox {
		return nil
	}
	v := strings.TrimSpace(get(r.Header, headerSimulate))
	if v == "" {
		return nil
	}
	h := w.Header()
	switch {
	case v == "rate_limited":
		h.Set("Retry-After", "2")
		h["Ratelimit-Limit"] = []string{"2"}
		h["Ratelimit-Remaining"] = []string{"0"}
		h["Ratelimit-Reset"] = []string{"2"}
		return adcamp.Errorf(adcamp.CodeRateLimited, "simulated (X-Sandbox-Simulate: rate_limited): retry after 2 s")
	case v == "internal_error":
		return adcamp.Errorf(adcamp.CodeInternal, "simulated (X-Sandbox-Simulate: internal_error): nothing was done")
	case v == "unavailable":
		h.Set("Retry-After", "1")
		return adcamp.Errorf(adcamp.CodeUnavailable, "simulated (X-Sandbox-Simulate: unavailable): nothing was done; retry after 1 s")
	case v == "timestamp_expired":
		now := s.svc.Ads.Now()
		return &adcamp.Error{Code: adcamp.CodeTimestampExpired,
			Message: "simulated (X-Sandbox-Simulate: timestamp_expired): X-Timestamp is out of the window; server time is " + strconv.FormatInt(now.Unix(), 10),
			Details: map[string]any{"server_time": now.Unix(), "server_time_iso": now.Format(time.RFC3339)}}
	case strings.HasPrefix(v, "slow="):
		d, err := time.ParseDuration(strings.TrimPrefix(v, "slow="))
		if err != nil || d < 0 || d > maxSimulatedDelay {
			return simulateUsage(v)
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
		}
		return nil
	}
	return simulateUsage(v)
}

func simulateUsage(v string) error {
	var issues adcamp.Issues
	issues.Add(headerSimulate, "must be rate_limited, internal_error, unavailable, timestamp_expired or slow=DURATION (up to 10s), got %q", v)
	return issues.Err()
}
