package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// SetBuildInfo records which binary this process runs, as the gauge
// adcamp_build_info{version, commit, goversion} 1, the Prometheus
// convention for joining a version to other series. Call it once.
func (m *Metrics) SetBuildInfo(version, commit, goVersion string) {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "adcamp_build_info",
		Help:        "The binary this process runs: its version, commit and Go version (always 1).",
		ConstLabels: prometheus.Labels{"version": version, "commit": commit, "goversion": goVersion},
	})
	g.Set(1)
	m.registry.MustRegister(g)
}

// Backups are the figures of scheduled backups (serve --backup-dir).
type Backups struct {
	lastSuccess prometheus.Gauge
	lastSize    prometheus.Gauge
	failures    prometheus.Counter
}

// Backups registers the figures of scheduled backups. Call it once, when
// serve schedules them.
func (m *Metrics) Backups() *Backups {
	b := &Backups{
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Name: "adcamp_backup_last_success_timestamp_seconds",
			Help: "When the last scheduled backup that succeeded was taken (Unix time); alert when it grows old."}),
		lastSize: prometheus.NewGauge(prometheus.GaugeOpts{Name: "adcamp_backup_last_size_bytes",
			Help: "The size of the database in the last scheduled backup that succeeded."}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "adcamp_backup_failures_total",
			Help: "Scheduled backups that failed."}),
	}
	m.registry.MustRegister(b.lastSuccess, b.lastSize, b.failures)
	return b
}

// Done records a scheduled backup taken at, of size bytes, or its failure.
func (b *Backups) Done(at time.Time, size int64, err error) {
	if err != nil {
		b.failures.Inc()
		return
	}
	b.lastSuccess.Set(float64(at.Unix()))
	b.lastSize.Set(float64(size))
}
