package service_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// TestWebhookOrderingPerCampaign: two endpoints fail the first delivery of
// campaign A's first update. The one ordered per campaign holds A's second
// update back until the first is delivered, while B's goes on; the one
// without ordering sends A's second before its retry of the first.
func TestWebhookOrderingPerCampaign(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	accountID, _ := f.setup()
	tn := adcamp.Tenant{AccountID: accountID, Environment: adcamp.Sandbox}
	key := apiKey("ak_test_a", "", "")
	var cs []*adcamp.Campaign
	for _, name := range []string{"A", "B"} {
		c, err := f.svc.CreateCampaign(key, tn, adcamp.CampaignInput{Name: adcamp.Some(name), BudgetDaily: adcamp.Some("25"),
			Marketplace: adcamp.Some("US")}, false)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	a, b := cs[0].ID, cs[1].ID

	// Each receiver answers 503 (retry in a minute) to the first delivery
	// of A's first update, and records by name what it took.
	type named struct{ campaign, name string }
	nameOf := func(d delivered) named {
		var p struct {
			Data struct {
				EntityID string `json:"entity_id"`
				Changes  struct {
					Name struct{ New string } `json:"name"`
				} `json:"changes"`
			} `json:"data"`
		}
		if err := json.Unmarshal(d.Body, &p); err != nil {
			t.Errorf("event body %s: %v", d.Body, err)
		}
		return named{p.Data.EntityID, p.Data.Changes.Name.New}
	}
	ordered, unordered := newReceiver(t), newReceiver(t)
	endpoints := map[*receiver]string{}
	for _, r := range []*receiver{ordered, unordered} {
		in := service.EndpointInput{URL: ptr(r.srv.URL), EventTypes: &[]string{adcamp.EventCampaignUpdated}}
		if r == ordered {
			in.Ordering = ptr(adcamp.OrderingPerCampaign)
		}
		e, err := f.svc.CreateWebhookEndpoint(key, tn, in)
		if err != nil {
			t.Fatal(err)
		}
		want := adcamp.OrderingNone
		if r == ordered {
			want = adcamp.OrderingPerCampaign
		}
		if e.Ordering != want {
			t.Errorf("created endpoint's ordering = %q, want %q", e.Ordering, want)
		}
		r.secret = e.Secret
		endpoints[r] = e.ID
		var mu sync.Mutex
		failed := false
		r.answer = func(d delivered) (int, http.Header) {
			mu.Lock()
			defer mu.Unlock()
			if n := nameOf(d); n.name == "A1" && !failed {
				failed = true
				return 503, http.Header{"Retry-After": {"60"}}
			}
			return 200, nil
		}
	}
	f.dispatch()
	for _, u := range []struct{ id, name string }{{a, "A1"}, {a, "A2"}, {b, "B1"}} {
		if _, err := f.svc.UpdateCampaign(key, tn, u.id, adcamp.CampaignInput{Name: adcamp.Some(u.name)}, service.IfMatch{}, false); err != nil {
			t.Fatal(err)
		}
	}
	names := func(ds []delivered) []string {
		var out []string
		for _, d := range ds {
			out = append(out, nameOf(d).name)
		}
		return out
	}
	unordered.wait("A2 and B1 without ordering", func(got []delivered) bool { return len(got) >= 2 })
	ordered.wait("B1 with ordering", func(got []delivered) bool { return slices.Contains(names(got), "B1") })
	time.Sleep(200 * time.Millisecond) // several polls, which must not send A2 to the ordered endpoint
	ordered.mu.Lock()
	before := names(ordered.got)
	ordered.mu.Unlock()
	if !slices.Equal(before, []string{"B1"}) {
		t.Errorf("per campaign, before A1's retry: delivered %v, want [B1]", before)
	}

	// The retry is due 60 s after the dispatcher recorded the 503, by
	// the test's clock: wait until both endpoints' logs hold it (under
	// load the answer may be recorded after B1's delivery), then move the
	// clock past it.
	for r, id := range endpoints {
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			log, _, err := f.svc.DeliveryAttempts(key, tn, id, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(log, func(a *adcamp.DeliveryAttempt) bool { return a.Status == 503 }) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("waited 20 s for the 503 of A1 in the log of endpoint %s (ordered %v)", id, r == ordered)
			}
		}
	}
	f.clock.Advance(61 * time.Second)
	got := names(ordered.wait("A1 and A2 after the retry", func(got []delivered) bool { return len(got) >= 3 }))
	if !slices.Equal(got, []string{"B1", "A1", "A2"}) {
		t.Errorf("per campaign: delivered %v, want [B1 A1 A2]", got)
	}
	got = names(unordered.wait("A1 after the retry", func(got []delivered) bool { return len(got) >= 3 }))
	if slices.Index(got, "A2") > slices.Index(got, "A1") {
		t.Errorf("without ordering: delivered %v, want A2 before the retried A1", got)
	}

	// The history says what changed; a bad value is refused.
	recs := f.history(tn, adcamp.ChangeFilter{EntityType: adcamp.EntityWebhookEndpoint})
	found := false
	for _, r := range recs {
		if newValueOf(r, "ordering") == adcamp.OrderingPerCampaign {
			found = true
		}
	}
	if !found {
		t.Errorf("no change record shows ordering per_campaign: %+v", recs)
	}
	_, err := f.svc.CreateWebhookEndpoint(key, tn, service.EndpointInput{URL: ptr("https://example.com/"), Ordering: ptr("strict")})
	if adcamp.ErrorCode(err) != adcamp.CodeValidation {
		t.Errorf("ordering %q: %v, want VALIDATION_ERROR", "strict", err)
	}
}
