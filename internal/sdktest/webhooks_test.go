package sdktest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/webhook"
)

// TestWebhooksThroughTheSDK: an endpoint made with the SDK receives the
// event of a change, and client.VerifyWebhook, the receiver's helper,
// accepts it (and refuses it altered); the SDK lists the event, the
// delivery log, a test event, a rotation and a redelivery.
func TestWebhooksThroughTheSDK(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	var mu sync.Mutex
	var secret string
	got := map[string]client.Event{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if err := client.VerifyWebhook(secret, r.Header, body, time.Now()); err != nil {
			t.Errorf("VerifyWebhook = %v", err)
			w.WriteHeader(400)
			return
		}
		if err := client.VerifyWebhook(secret, r.Header, append(body, ' '), time.Now()); err != client.ErrWebhookSignature {
			t.Errorf("VerifyWebhook of an altered body = %v, want ErrWebhookSignature", err)
		}
		var e client.Event
		_ = json.Unmarshal(body, &e)
		got[e.ID] = e
	}))
	defer recv.Close()
	e, err := c.CreateWebhookEndpoint(ctx, client.WebhookEndpointCreate{URL: recv.URL, EventTypes: []string{"campaign.created"}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	secret = e.Secret
	mu.Unlock()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.svc.RunWebhooks(runCtx, service.DispatchConfig{Sender: webhook.NewSender(true), Poll: 20 * time.Millisecond, Sole: true})
	}()
	defer func() { cancel(); <-done }()

	cmp, err := c.CreateCampaign(ctx, client.CampaignCreate{Name: "Spring", BudgetDaily: client.Cents(1000), Marketplace: "US"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	page, err := c.ListEvents(ctx, &client.EventListOptions{Types: []string{"campaign.created"}})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("ListEvents = %+v, %v", page, err)
	}
	ev := page.Items[0]
	var data client.Change
	if err := json.Unmarshal(ev.Data, &data); err != nil || data.EntityID != cmp.ID {
		t.Errorf("event data = %s, want the change record of %s", ev.Data, cmp.ID)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		_, ok := got[ev.ID]
		mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the event was not delivered")
		}
	}
	// The receiver has the body before the dispatcher records the attempt's
	// answer, so the log may lag the delivery by a moment.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		log, err := c.ListDeliveryAttempts(ctx, e.ID, "", 0)
		if err == nil && len(log.Items) == 1 && log.Items[0].Status == 200 && log.Items[0].EventID == ev.ID {
			break
		}
		if err != nil || len(log.Items) > 1 || time.Now().After(deadline) {
			t.Fatalf("ListDeliveryAttempts = %+v, %v", log, err)
		}
	}
	rot, err := c.RotateWebhookSecret(ctx, e.ID, time.Hour)
	if err != nil || rot.Secret == "" || rot.Secret == e.Secret || rot.PreviousSecretExpiresAt == nil {
		t.Errorf("RotateWebhookSecret = %+v, %v", rot, err)
	}
	q, err := c.QueueDeliveries(ctx, e.ID, client.DeliveryRequest{Test: true})
	if err != nil || q.Queued != 1 || q.TestEventID == "" {
		t.Errorf("QueueDeliveries(test) = %+v, %v", q, err)
	}
	q, err = c.QueueDeliveries(ctx, e.ID, client.DeliveryRequest{EventID: ev.ID})
	if err != nil || q.Queued != 1 {
		t.Errorf("QueueDeliveries(redeliver) = %+v, %v", q, err)
	}
	off := false
	if u, err := c.UpdateWebhookEndpoint(ctx, e.ID, client.WebhookEndpointUpdate{Enabled: &off}); err != nil || u.Enabled || u.DisabledReason != "user" {
		t.Errorf("UpdateWebhookEndpoint(disable) = %+v, %v", u, err)
	}
	if list, err := c.ListWebhookEndpoints(ctx); err != nil || len(list) != 1 {
		t.Errorf("ListWebhookEndpoints = %+v, %v", list, err)
	}
	if _, err := c.DeleteWebhookEndpoint(ctx, e.ID); err != nil {
		t.Errorf("DeleteWebhookEndpoint = %v", err)
	}
	if _, err := c.GetWebhookEndpoint(ctx, e.ID); !client.IsNotFound(err) {
		t.Errorf("GetWebhookEndpoint after the delete = %v, want not found", err)
	}
}
