package main

import (
	"context"

	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/webhook"
)

// runWebhooks runs the webhook dispatcher of this process until ctx ends
// (docs/webhooks.md). On SQLite this process is the only one: it takes
// back the leases an earlier run left (a crash); on PostgreSQL processes
// share the work through leases.
func (a *app) runWebhooks(ctx context.Context, allowPrivate bool) {
	if allowPrivate {
		a.log.Warn("webhooks may be delivered to private and loopback addresses (--webhooks-allow-private)")
	}
	figures := a.metrics.Webhooks(a.svc.WebhookQueue)
	a.svc.RunWebhooks(ctx, service.DispatchConfig{
		Sender:  webhook.NewSender(allowPrivate),
		Sole:    a.sole,
		Outcome: figures.Outcome,
	})
}
