package operatorapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// TestBudgetEvents: the webhook events of a campaign's budget, written
// with the delivery, the budget's change or the new day that causes them:
// budget_exhausted and budget_restored as its serving status goes to and
// from budget_exhausted, spend_threshold at 50, 80 and 100 % once per
// account day.
func TestBudgetEvents(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newEnv(t, open(t))
		tr := e.tree("", adcamp.Production, "5.00", 2)
		other := e.tree(tr.tenant.AccountID, adcamp.Production, "5.00", 1) // spends nothing: no events
		id, secret := e.operatorKey()
		if err := e.svc.FeedTick(ctx); err != nil { // the feed's clock starts
			t.Fatal(err)
		}
		post := func(hour string, cost string) {
			t.Helper()
			a := e.do(e.operator.URL, id, secret, "POST", "/operator/v1/delivery", map[string]any{"items": []any{
				map[string]any{"keyword_id": tr.keywords[0].ID, "hour": hour, "impressions": 100, "clicks": 10, "cost": json.Number(cost)}}})
			if a.Status != http.StatusOK {
				t.Fatalf("delivery = %d %s", a.Status, a.Raw)
			}
		}
		budget := func(b string) {
			t.Helper()
			if _, err := e.svc.UpdateCampaign(admin, tr.tenant, tr.campaign.ID, adcamp.CampaignInput{BudgetDaily: adcamp.Some(b)}, servingIfMatch, false); err != nil {
				t.Fatal(err)
			}
		}
		type ev struct {
			Type string
			Data struct {
				CampaignID            string  `json:"campaign_id"`
				Day                   string  `json:"day"`
				SpendToday            float64 `json:"spend_today"`
				BudgetDaily           float64 `json:"budget_daily"`
				Threshold             int     `json:"threshold"`
				ServingStatus         string  `json:"serving_status"`
				PreviousServingStatus string  `json:"previous_serving_status"`
			} `json:"data"`
		}
		seen := 0
		events := func(when string, want ...string) []ev {
			t.Helper()
			var all []*adcamp.Event
			err := e.db.Read(ctx, func(tx store.Tx) error {
				var err error
				all, err = tx.ListEvents(ctx, store.EventQuery{Tenant: tr.tenant, Limit: 1000, Types: []string{
					adcamp.EventCampaignBudgetExhausted, adcamp.EventCampaignBudgetRestored, adcamp.EventCampaignSpendThreshold}})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			slices.Reverse(all) // oldest first
			var got []ev
			var types []string
			for _, x := range all[seen:] {
				var p ev
				if err := json.Unmarshal(x.Payload, &p); err != nil {
					t.Fatal(err)
				}
				if p.Type != x.Type || p.Data.CampaignID != tr.campaign.ID || x.CampaignID != tr.campaign.ID {
					t.Errorf("%s: event %s of %s (%s), want the campaign %s's", when, x.Type, p.Data.CampaignID, x.CampaignID, tr.campaign.ID)
				}
				got = append(got, p)
				name := p.Type
				if p.Data.Threshold > 0 {
					name += "/" + strconv.Itoa(p.Data.Threshold)
				}
				types = append(types, name)
			}
			seen = len(all)
			if !slices.Equal(types, want) {
				t.Errorf("%s: events %v, want %v", when, types, want)
			}
			return got
		}
		post("2026-11-22T09:00:00Z", "3.00")
		events("60 % spent", "campaign.spend_threshold/50")
		post("2026-11-22T08:00:00Z", "2.00")
		got := events("100 % spent", "campaign.budget_exhausted", "campaign.spend_threshold/80", "campaign.spend_threshold/100")
		if len(got) == 3 {
			d := got[0].Data
			if d.Day != "2026-11-22" || d.SpendToday != 5 || d.BudgetDaily != 5 || d.ServingStatus != "budget_exhausted" || d.PreviousServingStatus != "serving" {
				t.Errorf("budget_exhausted's data = %+v", d)
			}
		}
		post("2026-11-22T08:00:00Z", "1.99") // a correction
		events("corrected under the budget", "campaign.budget_restored")
		post("2026-11-22T08:00:00Z", "2.50") // thresholds once a day
		events("over it again", "campaign.budget_exhausted")
		post("2026-11-22T08:00:00Z", "2.60") // still exhausted: nothing
		events("more spend")
		budget("6.00")
		events("budget raised", "campaign.budget_restored")
		budget("5.00")
		events("budget lowered", "campaign.budget_exhausted")
		if _, err := e.svc.UpdateCampaign(admin, other.tenant, other.campaign.ID, adcamp.CampaignInput{BudgetDaily: adcamp.Some("9.00")}, servingIfMatch, false); err != nil {
			t.Fatal(err)
		}
		// Midnight (UTC): the feed serves the campaign again, and the
		// event says so in the same transaction.
		e.clock.Set(time.Date(2026, 11, 23, 0, 0, 5, 0, time.UTC))
		if err := e.svc.FeedTick(ctx); err != nil {
			t.Fatal(err)
		}
		got = events("the new day", "campaign.budget_restored")
		if len(got) == 1 && (got[0].Data.Day != "2026-11-23" || got[0].Data.SpendToday != 0 || got[0].Data.ServingStatus != "serving") {
			t.Errorf("budget_restored at midnight: %+v", got[0].Data)
		}
		if err := e.svc.FeedTick(ctx); err != nil {
			t.Fatal(err)
		}
		events("another tick")
		post("2026-11-23T00:00:00Z", "2.50") // a new day: thresholds again
		events("50 % of the new day", "campaign.spend_threshold/50")
	})
}
