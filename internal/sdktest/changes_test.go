package sdktest_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/adcamp/adcamp/client"
)

// TestChanges: the SDK reads the history page by page with its iterator,
// keeping each record's fields in order and its values exact.
func TestChanges(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	count := &countingTransport{next: http.DefaultTransport}
	c := s.client(client.WithHTTPClient(&http.Client{Transport: count}))
	ctx := context.Background()
	cmp := must(c.CreateCampaign(ctx, client.CampaignCreate{Name: "History", BudgetDaily: client.USD("25"), Marketplace: "US"}, nil))
	budget := client.USD("40")
	for range 4 {
		budget += client.Cents(1)
		must(c.UpdateCampaign(ctx, cmp.ID, client.CampaignUpdate{BudgetDaily: &budget}, nil))
	}
	count.n = 0
	var got []client.Change
	for ch, err := range c.CampaignChanges(ctx, cmp.ID, &client.ChangeListOptions{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ch)
	}
	if len(got) != 5 || count.n != 3 {
		t.Fatalf("CampaignChanges yielded %d records in %d requests, want 5 in 3", len(got), count.n)
	}
	last, first := got[0], got[4]
	if last.Operation != "update" || len(last.Changes) != 1 || last.Changes[0].Field != "budget_daily" ||
		*last.Changes[0].Old != "40.03" || *last.Changes[0].New != "40.04" || last.Actor.Type != "api_key" ||
		last.RequestID == "" || last.Environment != "sandbox" {
		t.Errorf("newest record = %+v", last)
	}
	if first.Operation != "create" || first.Changes[0].Field != "name" || first.Changes[0].Old != nil ||
		*first.Changes[1].New != "25.00" || first.Changes[3].Field != "channel_account_id" || first.Changes[3].New != nil {
		t.Errorf("oldest record = %+v", first)
	}
	n := 0
	for ch, err := range c.Changes(ctx, &client.ChangeListOptions{EntityType: "campaign", ActorType: "api_key"}) {
		if err != nil || ch.EntityID != cmp.ID {
			t.Fatalf("Changes(campaigns) yielded %+v, %v", ch, err)
		}
		n++
	}
	if n != 5 {
		t.Errorf("Changes(campaigns) yielded %d, want 5", n)
	}
	for _, err := range c.Changes(ctx, &client.ChangeListOptions{Limit: 500}) {
		if !client.IsValidation(err) {
			t.Errorf("Changes(limit 500) yielded %v, want VALIDATION_ERROR", err)
		}
	}
}
