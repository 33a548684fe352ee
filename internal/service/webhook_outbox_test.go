package service_test

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/webhook"
)

// TestEventsBeforeTheDispatcher: a change's event is its record until the
// dispatcher takes it from the outbox (only the outbox row is written with
// the change). Before that, GET /events and GET /events/{id} answer it
// from the record, filtered and paged as the stored events; after it, the
// same events, byte for byte, are stored, listed and delivered.
func TestEventsBeforeTheDispatcher(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	accountID, _ := f.setup()
	tn := adcamp.Tenant{AccountID: accountID, Environment: adcamp.Sandbox}
	key := apiKey("ak_test_a", "req_1", "")
	r, _ := hooked(t, f, key, tn)

	want := fourEvents(t, f, key, tn)

	list := func(filter service.EventFilter) []*adcamp.Event {
		t.Helper()
		var all []*adcamp.Event
		for {
			page, next, err := f.svc.Events(key, tn, filter)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, page...)
			if next == "" {
				return all
			}
			filter.Cursor = next
		}
	}
	typesOf := func(evs []*adcamp.Event) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.Type)
		}
		return out
	}
	before := list(service.EventFilter{Limit: 1})
	if !slices.Equal(typesOf(before), want) {
		t.Fatalf("Events() before the dispatcher = %v, want %v", typesOf(before), want)
	}
	filtered := list(service.EventFilter{Types: []string{adcamp.EventCampaignCreated, adcamp.EventKeywordBatchCreated}})
	if !slices.Equal(typesOf(filtered), []string{"keyword.batch_created", "campaign.created"}) {
		t.Errorf("Events(campaign.created, keyword.batch_created) = %v", typesOf(filtered))
	}
	one, err := f.svc.Event(key, tn, before[0].ID)
	if err != nil || !bytes.Equal(one.Payload, before[0].Payload) {
		t.Errorf("Event(%s) before the dispatcher = %v; want %s", before[0].ID, err, before[0].Payload)
	}
	if _, err := f.svc.Event(key, adcamp.Tenant{AccountID: accountID, Environment: adcamp.Production}, before[0].ID); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("Event(%s) of the other environment = %v, want NOT_FOUND", before[0].ID, err)
	}

	f.dispatch()
	got := r.wait("every event", func(got []delivered) bool { return len(got) >= len(want) })
	after := list(service.EventFilter{})
	if len(after) != len(before) {
		t.Fatalf("Events() after the dispatcher = %v, want %v", typesOf(after), want)
	}
	for i, e := range before {
		if after[i].ID != e.ID || !bytes.Equal(after[i].Payload, e.Payload) {
			t.Errorf("event %d after the dispatcher differs from before it:\n got %+v\nwant %+v", i, after[i], e)
		}
		if d := got[len(got)-1-i]; d.ID != e.ID || !bytes.Equal(d.Body, e.Payload) {
			t.Errorf("event %s delivered as %s, listed before as %s", e.ID, d.Body, e.Payload)
		}
	}
}

// TestEventsWithoutAnEndpoint: an account without an endpoint has its
// events taken from the outbox and not stored (the dispatcher only drops
// the outbox rows); GET /events answers them from the history the same,
// byte for byte, before and after; an endpoint created later gets them by
// a redelivery of the time range, or of one event, with those bodies.
func TestEventsWithoutAnEndpoint(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	accountID, _ := f.setup()
	tn := adcamp.Tenant{AccountID: accountID, Environment: adcamp.Sandbox}
	key := apiKey("ak_test_a", "req_1", "")
	start := f.clock.Now()
	want := fourEvents(t, f, key, tn)
	list := func() []*adcamp.Event {
		t.Helper()
		page, _, err := f.svc.Events(key, tn, service.EventFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return page
	}
	before := list()
	var types []string
	for _, e := range before {
		types = append(types, e.Type)
	}
	if !slices.Equal(types, want) {
		t.Fatalf("Events() = %v, want %v", types, want)
	}

	f.dispatch()
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, _, err := f.svc.WebhookQueue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the outbox still holds %d events", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	sameEvents := func(when string, got []*adcamp.Event) {
		t.Helper()
		if len(got) != len(before) {
			t.Fatalf("Events() %s: %d events, want %d", when, len(got), len(before))
		}
		for i, e := range before {
			if got[i].ID != e.ID || got[i].Type != e.Type || !bytes.Equal(got[i].Payload, e.Payload) {
				t.Errorf("event %d %s differs:\n got %+v\nwant %+v", i, when, got[i], e)
			}
		}
	}
	sameEvents("after the dispatcher", list())
	for _, e := range before {
		one, err := f.svc.Event(key, tn, e.ID)
		if err != nil || !bytes.Equal(one.Payload, e.Payload) {
			t.Errorf("Event(%s) after the dispatcher = %v; want %s", e.ID, err, e.Payload)
		}
	}

	// An endpoint now: nothing is sent of what came before it, until it
	// is redelivered.
	r, e := hooked(t, f, key, tn)
	n, err := f.svc.Redeliver(key, tn, e.ID, before[3].ID, time.Time{}, time.Time{}) // campaign.created
	if err != nil || n != 1 {
		t.Fatalf("Redeliver(one event) = %d, %v; want 1", n, err)
	}
	got := r.wait("the event redelivered", func(got []delivered) bool { return len(got) >= 1 })
	if got[0].ID != before[3].ID || !bytes.Equal(got[0].Body, before[3].Payload) {
		t.Errorf("redelivered %s %s, want %s %s", got[0].ID, got[0].Body, before[3].ID, before[3].Payload)
	}
	// The attempt recorded first: a redelivery while an attempt is in
	// flight is overwritten by its record.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		log, _, err := f.svc.DeliveryAttempts(key, tn, e.ID, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the redelivery's attempt is not in the log")
		}
	}
	n, err = f.svc.Redeliver(key, tn, e.ID, "", start.Add(-time.Minute), f.clock.Now().Add(time.Minute))
	if err != nil || n != len(before) {
		t.Fatalf("Redeliver(a time range) = %d, %v; want %d", n, err, len(before))
	}
	got = r.wait("the range redelivered", func(got []delivered) bool { return len(got) >= 1+len(before) })
	for i, e := range before {
		if d := got[len(got)-1-i]; d.ID != e.ID || !bytes.Equal(d.Body, e.Payload) {
			t.Errorf("event %s redelivered as %s %s, listed as %s", e.ID, d.ID, d.Body, e.Payload)
		}
	}
	sameEvents("after the redeliveries", list())
}

// hooked creates an endpoint of tn that takes every event, delivered to
// a new receiver, which it returns with the endpoint.
func hooked(t *testing.T, f *fixture, key context.Context, tn adcamp.Tenant) (*receiver, *service.NewEndpoint) {
	t.Helper()
	r := newReceiver(t)
	e, err := f.svc.CreateWebhookEndpoint(key, tn, service.EndpointInput{URL: ptr(r.srv.URL + "/hooks")})
	if err != nil {
		t.Fatal(err)
	}
	r.secret = e.Secret
	return r, e
}

// fourEvents creates a campaign, an ad group, a batch of two keywords and
// ends the campaign, and returns the types of the events that makes,
// newest first.
func fourEvents(t *testing.T, f *fixture, key context.Context, tn adcamp.Tenant) []string {
	t.Helper()
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
		{Text: adcamp.Some("blue shoes"), MatchType: adcamp.Some(adcamp.MatchExact)}}
	if _, err := f.svc.CreateKeywords(key, tn, g.ID, items, service.BatchOptions{Batch: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.UpdateCampaign(key, tn, c.ID, adcamp.CampaignInput{Status: adcamp.Some(adcamp.StatusEnded)}, service.IfMatch{}, false); err != nil {
		t.Fatal(err)
	}
	return []string{"campaign.ended", "keyword.batch_created", "ad_group.created", "campaign.created"}
}

// TestClaimBesideAWorkerFinishing: a worker giving its endpoint up and
// a claim run side by side, round after round, with a delivery due each
// time. Either the claim takes the endpoint back for a worker, or the
// endpoint is left free for the next claim: never leased to no worker,
// which held its deliveries until the lease ran out (for ever on this
// test's clock, which stands still).
func TestClaimBesideAWorkerFinishing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	accountID, _ := f.setup()
	tn := adcamp.Tenant{AccountID: accountID, Environment: adcamp.Sandbox}
	key := apiKey("ak_test_a", "req_1", "")
	_, e := hooked(t, f, key, tn)
	if _, err := f.svc.CreateCampaign(key, tn, adcamp.CampaignInput{Name: adcamp.Some("Spring"), BudgetDaily: adcamp.Some("25"),
		Marketplace: adcamp.Some("US")}, false); err != nil {
		t.Fatal(err)
	}
	d := service.NewDispatcher(f.svc, service.DispatchConfig{Sender: webhook.NewSender(true), Owner: "one"})
	d.FanOut(ctx)
	if ids := d.Claim(ctx); !slices.Equal(ids, []string{e.ID}) {
		t.Fatalf("Claim() = %v, want [%s]", ids, e.ID)
	}
	for round := range 1000 {
		var claimed []string
		var wg sync.WaitGroup
		wg.Go(func() { d.Finish(ctx, e.ID) })
		wg.Go(func() { claimed = d.Claim(ctx) })
		wg.Wait()
		if len(claimed) == 0 {
			claimed = d.Claim(ctx)
		}
		if !slices.Equal(claimed, []string{e.ID}) {
			t.Fatalf("round %d: the endpoint, with a delivery due, was claimed by neither claim", round)
		}
	}
}
