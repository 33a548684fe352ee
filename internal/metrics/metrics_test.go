package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestRequestCountsEachLabelSet: repeated requests add to their own
// series (cached after the first), and a method a client made up is
// counted as "other" rather than as a label value of its own.
func TestRequestCountsEachLabelSet(t *testing.T) {
	m := New(nil)
	for range 3 {
		m.Request("production", "/v1/campaigns", "GET", 200, time.Millisecond)
	}
	m.Request("production", "/v1/campaigns", "GET", 404, time.Millisecond)
	m.Request("sandbox", "/v1/campaigns", "GET", 200, time.Millisecond)
	m.Request("production", "", "BREW", 405, time.Millisecond)
	m.Request("production", "", "X-ANYTHING-1", 405, time.Millisecond)

	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"production", "/v1/campaigns", "GET", "200"}, 3},
		{[]string{"production", "/v1/campaigns", "GET", "404"}, 1},
		{[]string{"sandbox", "/v1/campaigns", "GET", "200"}, 1},
		{[]string{"production", "unmatched", "other", "405"}, 2},
	} {
		if got := testutil.ToFloat64(m.requests.WithLabelValues(c.labels...)); got != c.want {
			t.Errorf("adcamp_http_requests_total%q = %v, want %v", c.labels, got, c.want)
		}
	}
	if n := testutil.CollectAndCount(m.requests); n != 4 {
		t.Errorf("adcamp_http_requests_total has %d series, want 4", n)
	}
	if n := testutil.CollectAndCount(m.latency); n != 3 {
		t.Errorf("adcamp_http_request_duration_seconds has %d series, want 3", n)
	}
}
