package operatorapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/store"
)

// TestBudgets: delivery moves a campaign's spend_today, which reaching
// budget_daily makes it budget_exhausted; raising the budget serves it
// again at once, and the account's next day (in its time zone) too.
func TestBudgets(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newEnv(t, open(t))
		tr := e.tree("", adcamp.Production, "5.00", 2)
		key, err := e.svc.CreateKey(ctx, tr.tenant.AccountID, adcamp.Production)
		if err != nil {
			t.Fatal(err)
		}
		id, secret := e.operatorKey()
		campaign := func() map[string]any {
			t.Helper()
			a := e.do(e.accounts[adcamp.Production].URL, key.ID, key.Secret, "GET", signing.PrefixCanonical+"/campaigns/"+tr.campaign.ID, nil)
			if a.Status != http.StatusOK {
				t.Fatalf("GET campaign = %d %s", a.Status, a.Raw)
			}
			return a.data()
		}
		want := func(status string, spend float64) {
			t.Helper()
			c := campaign()
			if c["serving_status"] != status || c["spend_today"] != spend {
				t.Errorf("at %s: serving_status %v, spend_today %v; want %s, %v", e.clock.Now().Format(time.RFC3339), c["serving_status"], c["spend_today"], status, spend)
			}
			// The list reads its page's spend with the page: the same.
			l := e.do(e.accounts[adcamp.Production].URL, key.ID, key.Secret, "GET", signing.PrefixCanonical+"/campaigns", nil)
			items, _ := l.data()["items"].([]any)
			if l.Status != http.StatusOK || len(items) != 1 {
				t.Fatalf("GET campaigns = %d %s", l.Status, l.Raw)
			}
			if c := items[0].(map[string]any); c["serving_status"] != status || c["spend_today"] != spend {
				t.Errorf("at %s: the list shows serving_status %v, spend_today %v; want %s, %v", e.clock.Now().Format(time.RFC3339), c["serving_status"], c["spend_today"], status, spend)
			}
		}
		post := func(hour string, cost float64) {
			t.Helper()
			a := e.do(e.operator.URL, id, secret, "POST", "/operator/v1/delivery", map[string]any{"items": []any{
				map[string]any{"keyword_id": tr.keywords[0].ID, "hour": hour, "impressions": 100, "clicks": 10, "cost": cost}}})
			if a.Status != http.StatusOK {
				t.Fatalf("delivery = %d %s", a.Status, a.Raw)
			}
		}
		want("serving", 0)
		post("2026-11-22T09:00:00Z", 3.00)
		want("serving", 3)
		post("2026-11-22T08:00:00Z", 2.00)
		want("budget_exhausted", 5)
		post("2026-11-22T08:00:00Z", 1.99) // a correction
		want("serving", 4.99)
		post("2026-11-22T08:00:00Z", 2.50)
		want("budget_exhausted", 5.5)
		// Through the API: the update's answer carries the spend its
		// transaction read, the same as a read's after it.
		u := e.do(e.accounts[adcamp.Production].URL, key.ID, key.Secret, "PUT", signing.PrefixCanonical+"/campaigns/"+tr.campaign.ID,
			map[string]any{"budget_daily": 6})
		if u.Status != http.StatusOK {
			t.Fatalf("PUT campaign = %d %s", u.Status, u.Raw)
		}
		if d := u.data(); d["serving_status"] != "serving" || d["spend_today"] != 5.5 {
			t.Errorf("the budget's raise answered serving_status %v, spend_today %v; want serving, 5.5", d["serving_status"], d["spend_today"])
		}
		want("serving", 5.5)

		// In Seoul (UTC+9) the day of 2026-11-22T09:30Z began at 15:00Z
		// the day before and ends at 15:00Z: both hours count; at 15:00Z a
		// new day starts with nothing spent.
		if _, err := e.svc.SetAccountTimeZone(admin, tr.tenant.AccountID, "Asia/Seoul"); err != nil {
			t.Fatal(err)
		}
		want("serving", 5.5)
		post("2026-11-21T15:00:00Z", 1.00) // 00:00 in Seoul, the same day
		want("budget_exhausted", 6.5)
		e.clock.Set(time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC))
		want("serving", 0)
		// In Los Angeles (UTC-8) 15:00Z is 07:00 on the 22nd: the day of
		// every hour posted but the first.
		if _, err := e.svc.SetAccountTimeZone(admin, tr.tenant.AccountID, "America/Los_Angeles"); err != nil {
			t.Fatal(err)
		}
		want("serving", 5.5)
		if _, err := e.svc.UpdateCampaign(admin, tr.tenant, tr.campaign.ID, adcamp.CampaignInput{Status: adcamp.Some(adcamp.StatusPaused)}, servingIfMatch, false); err != nil {
			t.Fatal(err)
		}
		want("paused", 5.5)
	})
}
