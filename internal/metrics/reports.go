package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var dayJournalEntries = prometheus.NewDesc("adcamp_day_journal_entries",
	"Delivery requests whose changes of the daily figures wait in the journal of days for the fold "+
		"(a few at most while the fold keeps up; a count that keeps growing is a fold that fails: see the log).", nil, nil)

// DayJournal registers the depth of the journal of days, which count
// measures when /metrics is read. Call it once.
func (m *Metrics) DayJournal(count func(ctx context.Context) (int64, error)) {
	m.registry.MustRegister(journalCollector{count})
}

// journalCollector measures the journal at each scrape, with one query.
type journalCollector struct {
	count func(ctx context.Context) (int64, error)
}

func (c journalCollector) Describe(ch chan<- *prometheus.Desc) { ch <- dayJournalEntries }

func (c journalCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := c.count(ctx)
	if err != nil {
		return // the scrape goes on without it
	}
	ch <- prometheus.MustNewConstMetric(dayJournalEntries, prometheus.GaugeValue, float64(n))
}
