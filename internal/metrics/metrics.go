// Package metrics exposes the service's Prometheus metrics: requests by
// route pattern, method and status, latency histograms, authentication
// failures by code, rate-limit refusals, and database pool figures. Labels
// are bounded: routes are patterns, never raw paths, and no label ever
// carries a key, a signature or a body.
package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/adcamp/adcamp/internal/store"
)

// Metrics holds the collectors of one process.
type Metrics struct {
	registry     *prometheus.Registry
	requests     *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	authFailures *prometheus.CounterVec
	rateLimited  *prometheus.CounterVec

	// series caches the counter and histogram of each label set that
	// Request has seen, sparing the vectors' hashing of label values on
	// every request. The label sets are bounded (see Request), so is it.
	series sync.Map // seriesKey → *requestSeries
}

type seriesKey struct {
	env, route, method string
	status             int
}

type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// New registers the service's collectors, the Go runtime and process
// collectors, and, if pools is not nil, the store's pool figures.
func New(pools store.StatsReporter) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adcamp_http_requests_total", Help: "HTTP requests answered, by environment, route pattern, method and status.",
		}, []string{"env", "route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "adcamp_http_request_duration_seconds", Help: "Time to answer HTTP requests, by environment, route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"env", "route", "method"}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adcamp_auth_failures_total", Help: "Requests refused by authentication, by environment and error code.",
		}, []string{"env", "code"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adcamp_rate_limited_total", Help: "Requests refused with 429 by the per-credential rate limit, by environment.",
		}, []string{"env"}),
	}
	m.registry.MustRegister(m.requests, m.latency, m.authFailures, m.rateLimited,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if pools != nil {
		m.registry.MustRegister(poolCollector{pools})
	}
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Request records one answered request. route is the matched pattern
// ("" when none matched). A method outside HTTP's own is counted as
// "other": clients choose it, and a label must not grow without bound.
func (m *Metrics) Request(env, route, method string, status int, elapsed time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	if !knownMethod(method) {
		method = "other"
	}
	k := seriesKey{env, route, method, status}
	s, ok := m.series.Load(k)
	if !ok {
		s, _ = m.series.LoadOrStore(k, &requestSeries{
			count:   m.requests.WithLabelValues(env, route, method, strconv.Itoa(status)),
			latency: m.latency.WithLabelValues(env, route, method),
		})
	}
	rs := s.(*requestSeries)
	rs.count.Inc()
	rs.latency.Observe(elapsed.Seconds())
}

func knownMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return true
	}
	return false
}

// AuthFailure records a request refused by authentication.
func (m *Metrics) AuthFailure(env, code string) { m.authFailures.WithLabelValues(env, code).Inc() }

// RateLimited records a request refused by the rate limit.
func (m *Metrics) RateLimited(env string) { m.rateLimited.WithLabelValues(env).Inc() }

// poolCollector reads the store's pools at scrape time.
type poolCollector struct{ pools store.StatsReporter }

var (
	poolOpen    = prometheus.NewDesc("adcamp_db_pool_open_connections", "Open database connections.", []string{"pool"}, nil)
	poolInUse   = prometheus.NewDesc("adcamp_db_pool_in_use_connections", "Database connections in use.", []string{"pool"}, nil)
	poolIdle    = prometheus.NewDesc("adcamp_db_pool_idle_connections", "Idle database connections.", []string{"pool"}, nil)
	poolMax     = prometheus.NewDesc("adcamp_db_pool_max_open_connections", "Most database connections the pool opens.", []string{"pool"}, nil)
	poolWaits   = prometheus.NewDesc("adcamp_db_pool_waits_total", "Times a request waited for a database connection.", []string{"pool"}, nil)
	poolWaitSec = prometheus.NewDesc("adcamp_db_pool_wait_seconds_total", "Time spent waiting for database connections.", []string{"pool"}, nil)
)

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolOpen, poolInUse, poolIdle, poolMax, poolWaits, poolWaitSec} {
		ch <- d
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c.pools.PoolStats() {
		ch <- prometheus.MustNewConstMetric(poolOpen, prometheus.GaugeValue, float64(p.Open), p.Name)
		ch <- prometheus.MustNewConstMetric(poolInUse, prometheus.GaugeValue, float64(p.InUse), p.Name)
		ch <- prometheus.MustNewConstMetric(poolIdle, prometheus.GaugeValue, float64(p.Idle), p.Name)
		ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(p.MaxOpen), p.Name)
		ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(p.WaitCount), p.Name)
		ch <- prometheus.MustNewConstMetric(poolWaitSec, prometheus.CounterValue, p.WaitDuration.Seconds(), p.Name)
	}
}
