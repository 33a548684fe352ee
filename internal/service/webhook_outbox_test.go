package service_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
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
	r := newReceiver(t)
	e, err := f.svc.CreateWebhookEndpoint(key, tn, service.EndpointInput{URL: ptr(r.srv.URL + "/hooks")})
	if err != nil {
		t.Fatal(err)
	}
	r.secret = e.Secret

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
	want := []string{"campaign.ended", "keyword.batch_created", "ad_group.created", "campaign.created"} // newest first

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
