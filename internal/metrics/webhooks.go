package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Webhooks are the figures of webhook deliveries.
type Webhooks struct {
	deliveries *prometheus.CounterVec
}

// Webhooks registers the figures of webhook deliveries: attempts by
// outcome, and the queue's depth and the age of its oldest event, which
// queue measures when /metrics is read. Call it once.
func (m *Metrics) Webhooks(queue func(ctx context.Context) (int64, time.Time, error)) *Webhooks {
	w := &Webhooks{deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "adcamp_webhook_deliveries_total",
		Help: "Webhook delivery attempts, by outcome: succeeded, retrying (failed, to be retried) or failed (given up).",
	}, []string{"outcome"})}
	for _, o := range []string{"succeeded", "retrying", "failed"} {
		w.deliveries.WithLabelValues(o) // shown at 0 from the start
	}
	m.registry.MustRegister(w.deliveries, queueCollector{queue})
	return w
}

// Outcome counts one attempt's outcome.
func (w *Webhooks) Outcome(outcome string) { w.deliveries.WithLabelValues(outcome).Inc() }

var (
	queueDepth = prometheus.NewDesc("adcamp_webhook_queue_depth",
		"Webhook events not yet delivered: in the outbox, or deliveries pending (retries included).", nil, nil)
	queueAge = prometheus.NewDesc("adcamp_webhook_oldest_pending_age_seconds",
		"Age of the oldest webhook event not yet delivered (0 when none is).", nil, nil)
)

// queueCollector measures the queue at each scrape, with one query.
type queueCollector struct {
	queue func(ctx context.Context) (int64, time.Time, error)
}

func (c queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDepth
	ch <- queueAge
}

func (c queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, oldest, err := c.queue(ctx)
	if err != nil {
		return // the scrape goes on without them
	}
	age := 0.0
	if !oldest.IsZero() {
		age = max(time.Since(oldest).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(queueDepth, prometheus.GaugeValue, float64(n))
	ch <- prometheus.MustNewConstMetric(queueAge, prometheus.GaugeValue, age)
}
