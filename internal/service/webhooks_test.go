package service_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/webhook"
)

// receiver is a webhook endpoint on 127.0.0.1 that verifies what it gets
// with the Standard Webhooks reference library and answers as answer
// says (200 by default).
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	secret string
	got    []delivered // verified deliveries, in order of arrival
	answer func(d delivered) (status int, header http.Header)
	wake   chan struct{}
}

type delivered struct {
	ID, Type  string
	Body      []byte
	Signature string
	Timestamp string
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t, wake: make(chan struct{}, 1)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	secret, answer := r.secret, r.answer
	r.mu.Unlock()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err == nil {
		err = wh.Verify(body, req.Header)
	}
	if err != nil {
		r.t.Errorf("receiver: a delivery does not verify: %v", err)
		w.WriteHeader(400)
		return
	}
	var p struct{ ID, Type string }
	if err := json.Unmarshal(body, &p); err != nil || p.ID != req.Header.Get("webhook-id") {
		r.t.Errorf("receiver: body %s, webhook-id %s: the id differs", body, req.Header.Get("webhook-id"))
	}
	d := delivered{ID: p.ID, Type: p.Type, Body: body, Signature: req.Header.Get("webhook-signature"),
		Timestamp: req.Header.Get("webhook-timestamp")}
	status := 200
	if answer != nil {
		var h http.Header
		status, h = answer(d)
		for k, v := range h {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(status)
	r.mu.Lock()
	if status < 300 {
		r.got = append(r.got, d)
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// wait waits until cond holds of what arrived (up to 20 s, for a slow
// machine: this is not a measure of time).
func (r *receiver) wait(what string, cond func(got []delivered) bool) []delivered {
	r.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		r.mu.Lock()
		got := slices.Clone(r.got)
		r.mu.Unlock()
		if cond(got) {
			return got
		}
		select {
		case <-r.wake:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			r.t.Fatalf("waited 20 s for %s; got %d deliveries", what, len(got))
		}
	}
}

// dispatch runs the dispatcher of f's service until the test ends.
func (f *fixture) dispatch() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.svc.RunWebhooks(ctx, service.DispatchConfig{Sender: webhook.NewSender(true), Poll: 20 * time.Millisecond, Sole: true})
	}()
	f.t.Cleanup(func() { cancel(); <-done })
}

func types(ds []delivered) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Type)
	}
	return out
}

// TestWebhooksDeliverChanges: each change is an event, delivered signed
// (verified by the reference library), in order; a keyword batch is one
// event; a cascade one; an endpoint gets only the types it asked for;
// GET /events lists them newest first.
func TestWebhooksDeliverChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	accountID, _ := f.setup()
	tn := adcamp.Tenant{AccountID: accountID, Environment: adcamp.Sandbox}
	all, some := newReceiver(t), newReceiver(t)
	key := apiKey("ak_test_a", "req_1", "")
	for _, r := range []*receiver{all, some} {
		in := service.EndpointInput{URL: ptr(r.srv.URL + "/hooks")}
		if r == some {
			in.EventTypes = &[]string{adcamp.EventKeywordBatchCreated, adcamp.EventCampaignDeleted}
		}
		e, err := f.svc.CreateWebhookEndpoint(key, tn, in)
		if err != nil {
			t.Fatal(err)
		}
		r.secret = e.Secret
	}
	f.dispatch()

	c, err := f.svc.CreateCampaign(key, tn, adcamp.CampaignInput{Name: adcamp.Some("Spring"), BudgetDaily: adcamp.Some("25"),
		Marketplace: adcamp.Some("US")}, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.svc.CreateAdGroup(key, tn, c.ID, adcamp.AdGroupInput{Name: adcamp.Some("Shoes"), DefaultBid: adcamp.Some("0.75")}, false)
	if err != nil {
		t.Fatal(err)
	}
	items := []adcamp.KeywordInput{{Text: adcamp.Some("red shoes"), MatchType: adcamp.Some(adcamp.MatchExact)},
		{Text: adcamp.Some("blue shoes"), MatchType: adcamp.Some(adcamp.MatchExact)}, {Text: adcamp.Some("shoes"), MatchType: adcamp.Some(adcamp.MatchBroad)}}
	if _, err := f.svc.CreateKeywords(key, tn, g.ID, items, service.BatchOptions{Batch: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.UpdateCampaign(key, tn, c.ID, adcamp.CampaignInput{Status: adcamp.Some(adcamp.StatusPaused)}, service.IfMatch{}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.DeleteCampaign(key, tn, c.ID, service.IfMatch{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"campaign.created", "ad_group.created", "keyword.batch_created", "campaign.updated", "campaign.deleted"}
	got := all.wait("every event", func(got []delivered) bool { return len(got) >= len(want) })
	if !slices.Equal(types(got), want) {
		t.Errorf("events delivered = %v, want %v", types(got), want)
	}
	wantSome := []string{"keyword.batch_created", "campaign.deleted"}
	if got := some.wait("the events asked for", func(got []delivered) bool { return len(got) >= 2 }); !slices.Equal(types(got), wantSome) {
		t.Errorf("events delivered to the filtered endpoint = %v, want %v", types(got), wantSome)
	}
	var batch struct {
		Data struct {
			Count      int      `json:"count"`
			KeywordIDs []string `json:"keyword_ids"`
			AdGroupID  string   `json:"ad_group_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(got[2].Body, &batch); err != nil || batch.Data.Count != 3 || len(batch.Data.KeywordIDs) != 3 || batch.Data.AdGroupID != g.ID {
		t.Errorf("keyword.batch_created = %s, want its 3 ids and ad group", got[2].Body)
	}

	// GET /events: the same events, newest first, paged.
	var listed []string
	filter := service.EventFilter{Limit: 2}
	for {
		page, next, err := f.svc.Events(key, tn, filter)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			listed = append(listed, e.Type)
			if e.ID != got[len(got)-1-len(listed)+1].ID && len(listed) <= len(got) {
				t.Errorf("event %d listed is %s, delivered as %s", len(listed), e.ID, got[len(got)-len(listed)].ID)
			}
		}
		if next == "" {
			break
		}
		filter.Cursor = next
	}
	slices.Reverse(listed)
	if !slices.Equal(listed, want) {
		t.Errorf("Events() = %v (oldest first), want %v", listed, want)
	}
	// Another account's tenant sees none of them.
	other, _, err := f.svc.Events(key, adcamp.Tenant{AccountID: "acc_other", Environment: adcamp.Sandbox}, service.EventFilter{})
	if err != nil || len(other) != 0 {
		t.Errorf("Events() of another account = %d, %v; want none", len(other), err)
	}
}

// TestWebhookRetries: a failure is retried later (with Retry-After when a
// 429 or 503 gives one), a success ends it, every attempt is in the log
// with its status and the start of the answer; 410 disables the endpoint
// with a change record by adcamp.
func TestWebhookRetries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	accountID, _ := f.setup()
	tn := adcamp.Tenant{AccountID: accountID, Environment: adcamp.Sandbox}
	r := newReceiver(t)
	key := apiKey("ak_test_a", "", "")
	e, err := f.svc.CreateWebhookEndpoint(key, tn, service.EndpointInput{URL: ptr(r.srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	r.secret = e.Secret
	var mu sync.Mutex
	calls := 0
	r.answer = func(d delivered) (int, http.Header) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		switch calls {
		case 1:
			return 503, http.Header{"Retry-After": {"120"}}
		case 2:
			return 500, nil
		}
		return 200, nil
	}
	f.dispatch()
	ev, err := f.svc.SendTestEvent(key, tn, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	attempts := func(n int) []*adcamp.DeliveryAttempt {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			log, _, err := f.svc.DeliveryAttempts(key, tn, e.ID, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(log) >= n {
				return log
			}
			if time.Now().After(deadline) {
				t.Fatalf("waited for %d attempts, have %d", n, len(log))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	log := attempts(1)
	if log[0].Status != 503 || log[0].EventID != ev.ID || log[0].Succeeded {
		t.Errorf("first attempt = %+v, want a 503 of %s", log[0], ev.ID)
	}
	// Retry-After 120 s: not due 100 s later, due 121 s later.
	f.clock.Advance(100 * time.Second)
	time.Sleep(200 * time.Millisecond) // several polls, which must send nothing
	if log := attempts(1); len(log) != 1 {
		t.Errorf("attempts before Retry-After passed = %d, want 1", len(log))
	}
	f.clock.Advance(21 * time.Second)
	log = attempts(2)
	if log[0].Status != 500 {
		t.Errorf("second attempt = %d, want 500", log[0].Status)
	}
	f.clock.Advance(7 * time.Minute) // the second retry's 5 min and its jitter
	log = attempts(3)
	if !log[0].Succeeded || log[0].Status != 200 {
		t.Errorf("third attempt = %+v, want a 200", log[0])
	}
	if got := r.wait("the test event", func(got []delivered) bool { return len(got) == 1 }); got[0].ID != ev.ID {
		t.Errorf("delivered %s, want %s", got[0].ID, ev.ID)
	}

	// 410 Gone: disabled, said by a change record.
	r.answer = func(delivered) (int, http.Header) { return 410, nil }
	if _, err := f.svc.SendTestEvent(key, tn, e.ID); err != nil {
		t.Fatal(err)
	}
	attempts(4)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := f.svc.WebhookEndpoint(key, tn, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Enabled {
			if got.DisabledReason != adcamp.DisabledGone {
				t.Errorf("disabled_reason = %q, want gone", got.DisabledReason)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the endpoint that answered 410 is still enabled")
		}
		time.Sleep(20 * time.Millisecond)
	}
	recs := f.history(tn, adcamp.ChangeFilter{EntityType: adcamp.EntityWebhookEndpoint})
	if len(recs) == 0 || recs[0].Actor.Type != adcamp.ActorSystem || newValueOf(recs[0], "enabled") != "false" {
		t.Errorf("newest record of the endpoint = %+v, want the system's disabling", recs)
	}
	if _, err := f.svc.SendTestEvent(key, tn, e.ID); adcamp.ErrorCode(err) != adcamp.CodeInvalidStateTransition {
		t.Errorf("SendTestEvent to a disabled endpoint = %v, want INVALID_STATE_TRANSITION", err)
	}
}

func newValueOf(c *adcamp.Change, field string) string {
	for _, f := range c.Changes {
		if f.Field == field && f.New != nil {
			return *f.New
		}
	}
	return ""
}

func ptr[T any](v T) *T { return &v }

// TestWebhookEndpointRules: URLs (https in production), event types,
// tenancy, roles, and the secret shown once and rotated with a grace.
func TestWebhookEndpointRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	accountID, owner := f.setup()
	prod := adcamp.Tenant{AccountID: accountID, Environment: adcamp.Production}
	sandbox := adcamp.Tenant{AccountID: accountID, Environment: adcamp.Sandbox}
	key := apiKey("ak_live_a", "", "")
	for _, tc := range []struct {
		name string
		tn   adcamp.Tenant
		in   service.EndpointInput
		ok   bool
	}{
		{"https in production", prod, service.EndpointInput{URL: ptr("https://hooks.example.com/a")}, true},
		{"http in production", prod, service.EndpointInput{URL: ptr("http://hooks.example.com/a")}, false},
		{"http in the sandbox", sandbox, service.EndpointInput{URL: ptr("http://hooks.example.com/a")}, true},
		{"no URL", sandbox, service.EndpointInput{}, false},
		{"not a URL", sandbox, service.EndpointInput{URL: ptr("hooks")}, false},
		{"ftp", sandbox, service.EndpointInput{URL: ptr("ftp://hooks.example.com/")}, false},
		{"credentials", sandbox, service.EndpointInput{URL: ptr("https://u:p@hooks.example.com/")}, false},
		{"unknown event type", sandbox, service.EndpointInput{URL: ptr("https://x.example.com/"), EventTypes: &[]string{"campaign.exploded"}}, false},
	} {
		e, err := f.svc.CreateWebhookEndpoint(key, tc.tn, tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("%s: CreateWebhookEndpoint = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && adcamp.ErrorCode(err) != adcamp.CodeValidation {
			t.Errorf("%s: error code %s, want VALIDATION_ERROR", tc.name, adcamp.ErrorCode(err))
		}
		if err == nil {
			if _, err := webhook.ParseSecret(e.Secret); err != nil {
				t.Errorf("%s: secret %q: %v", tc.name, e.Secret[:8], err)
			}
		}
	}
	list, err := f.svc.WebhookEndpoints(key, sandbox)
	if err != nil || len(list) != 1 {
		t.Fatalf("WebhookEndpoints(sandbox) = %d, %v; want 1", len(list), err)
	}
	id := list[0].ID
	if _, err := f.svc.WebhookEndpoint(key, prod, id); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("an endpoint of the sandbox read in production: %v, want NOT_FOUND", err)
	}
	if _, err := f.svc.WebhookEndpoint(key, adcamp.Tenant{AccountID: "acc_other", Environment: adcamp.Sandbox}, id); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("an endpoint read by another account: %v, want NOT_FOUND", err)
	}
	// Roles: a viewer reads, cannot change; a developer changes the sandbox only.
	viewer := f.member(accountID, "viewer@example.com", adcamp.RoleViewer)
	dev := f.member(accountID, "dev@example.com", adcamp.RoleDeveloper)
	if _, err := f.svc.WebhookEndpoints(as(viewer.User.ID), sandbox); err != nil {
		t.Errorf("a viewer lists endpoints: %v", err)
	}
	if _, err := f.svc.UpdateWebhookEndpoint(as(viewer.User.ID), sandbox, id, service.EndpointInput{Enabled: ptr(false)}); adcamp.ErrorCode(err) != adcamp.CodeForbidden {
		t.Errorf("a viewer disables an endpoint: %v, want FORBIDDEN", err)
	}
	if _, err := f.svc.UpdateWebhookEndpoint(as(dev.User.ID), sandbox, id, service.EndpointInput{Enabled: ptr(false)}); err != nil {
		t.Errorf("a developer disables a sandbox endpoint: %v", err)
	}
	if _, err := f.svc.CreateWebhookEndpoint(as(dev.User.ID), prod, service.EndpointInput{URL: ptr("https://x.example.com/")}); adcamp.ErrorCode(err) != adcamp.CodeForbidden {
		t.Errorf("a developer creates a production endpoint: %v, want FORBIDDEN", err)
	}
	got, err := f.svc.UpdateWebhookEndpoint(as(owner.User.ID), sandbox, id, service.EndpointInput{Enabled: ptr(true), Description: ptr("Billing")})
	if err != nil || !got.Enabled || got.DisabledReason != "" || got.Description != "Billing" {
		t.Errorf("UpdateWebhookEndpoint by the owner = %+v, %v", got, err)
	}
	// Rotation: a new secret, the old one kept signing until its expiry.
	rot, err := f.svc.RotateWebhookSecret(key, sandbox, id, time.Hour)
	if err != nil || rot.PreviousSecretExpiresAt == nil || !rot.PreviousSecretExpiresAt.Equal(f.clock.Now().Add(time.Hour)) {
		t.Errorf("RotateWebhookSecret = %+v, %v; want the previous secret kept an hour", rot, err)
	}
	if err := f.svc.DeleteWebhookEndpoint(key, sandbox, id); err != nil {
		t.Errorf("DeleteWebhookEndpoint = %v", err)
	}
	if _, err := f.svc.WebhookEndpoint(key, sandbox, id); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("a deleted endpoint: %v, want NOT_FOUND", err)
	}
}

// TestWebhookRotationSignsWithBoth: during the grace period a delivery
// carries two signatures, each verifying with its own secret.
func TestWebhookRotationSignsWithBoth(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	accountID, _ := f.setup()
	tn := adcamp.Tenant{AccountID: accountID, Environment: adcamp.Sandbox}
	r := newReceiver(t)
	key := apiKey("ak_test_a", "", "")
	e, err := f.svc.CreateWebhookEndpoint(key, tn, service.EndpointInput{URL: ptr(r.srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	rot, err := f.svc.RotateWebhookSecret(key, tn, e.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	r.secret = e.Secret // the old one: it must still verify
	f.dispatch()
	if _, err := f.svc.SendTestEvent(key, tn, e.ID); err != nil {
		t.Fatal(err)
	}
	got := r.wait("the test event", func(got []delivered) bool { return len(got) == 1 })
	wh, _ := standardwebhooks.NewWebhook(rot.Secret)
	h := http.Header{}
	h.Set("webhook-id", got[0].ID)
	h.Set("webhook-signature", got[0].Signature)
	h.Set("webhook-timestamp", got[0].Timestamp)
	if err := wh.Verify(got[0].Body, h); err != nil {
		t.Errorf("the new secret does not verify %q: %v", got[0].Signature, err)
	}
}

func webhookVerifier(secret string) (*standardwebhooks.Webhook, error) {
	return standardwebhooks.NewWebhook(secret)
}
