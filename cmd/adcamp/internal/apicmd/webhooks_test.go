package apicmd

import (
	"strings"
	"testing"

	"github.com/adcamp/adcamp/client"
)

// TestAPIWebhooks: the webhook commands and events list, against the API.
func TestAPIWebhooks(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	out := s.ok("webhooks", "create", "--url", "https://hooks.example.com/in", "--description", "Billing",
		"--event-types", "campaign.created,keyword.batch_created")
	wantContains(t, "webhooks create", out, "whsec_", "shown once", "campaign.created, keyword.batch_created", "enabled")
	var e client.WebhookEndpoint
	s.okJSON(&e, "webhooks", "create", "--url", "http://127.0.0.1:9/x", "--disabled", "--ordering", "per_campaign")
	if e.Enabled || e.DisabledReason != "user" || !strings.HasPrefix(e.Secret, "whsec_") || e.Ordering != "per_campaign" {
		t.Errorf("webhooks create --disabled --json = %+v", e)
	}
	wantContains(t, "webhooks list", s.ok("webhooks", "list"), "https://hooks.example.com/in", "disabled (user)")
	out = s.ok("webhooks", "update", e.ID, "--enable", "--event-types", "all", "--ordering", "none")
	wantContains(t, "webhooks update", strings.Join(strings.Fields(out), " "), "enabled", "(every type)", "ordering: none")
	s.fail(2, "webhooks", "update", e.ID)
	s.fail(2, "webhooks", "redeliver", e.ID)
	wantContains(t, "webhooks rotate-secret", s.ok("webhooks", "rotate-secret", e.ID, "--grace", "1h"), "whsec_", "previous secret signs until")
	wantContains(t, "webhooks test", s.ok("webhooks", "test", e.ID), "queued test event evt_")
	s.ok("campaigns", "create", "--name", "Spring", "--budget", "10", "--marketplace", "US")
	out = s.ok("events", "list")
	wantContains(t, "events list", out, "campaign.created")
	if strings.Contains(out, "webhook.test") {
		t.Errorf("events list shows the test event, which is for its endpoint alone:\n%s", out)
	}
	var events struct {
		Items []client.Event `json:"items"`
	}
	s.okJSON(&events, "events", "list", "--type", "campaign.created", "--all")
	if len(events.Items) != 1 {
		t.Fatalf("events list --type campaign.created = %+v", events)
	}
	wantContains(t, "webhooks redeliver", s.ok("webhooks", "redeliver", e.ID, "--event", events.Items[0].ID), "queued 1 deliveries")
	wantContains(t, "webhooks deliveries", s.ok("webhooks", "deliveries", e.ID), "TIME", "EVENT")
	wantContains(t, "webhooks get", s.ok("webhooks", "get", e.ID), e.ID)
	wantContains(t, "webhooks delete", s.ok("webhooks", "delete", e.ID), "deleted webhook endpoint")
	s.fail(1, "webhooks", "get", e.ID)
}
