package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// TestKeyAccess: a key made with restricted scopes and limits shows them;
// its access page changes them; its recent uses are listed; a viewer may
// not change them, whatever they post.
func TestKeyAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	keys := "/accounts/" + acc + "/api-keys"
	form := c.get(keys + "/new?environment=sandbox").wantStatus(200)
	for _, id := range []string{"#f-scope_campaigns", "#f-scope_reports", "#f-scope_history", "#f-scope_webhooks", "#f-expires_at", "#f-allowed_ips", "#f-rate_limit"} {
		if !form.has(id) {
			t.Errorf("the new key form has no %s", id)
		}
	}
	c.post(keys+"/new", url.Values{"environment": {"sandbox"}, "name": {"Bad"}, "allowed_ips": {"not-an-address"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("allowed_ips", "not a CIDR range")
	p := c.post(keys+"/new", url.Values{"environment": {"sandbox"}, "name": {"Reports"}, "scope_campaigns": {"read"},
		"scope_reports": {"read"}, "scope_history": {"none"}, "scope_webhooks": {"none"}, "expires_at": {"30d"},
		"allowed_ips": {"127.0.0.0/8, ::1"}, "rate_limit": {"5"}}).wantStatus(200)
	key, secret := p.text("#v-key"), p.text("#v-secret")
	list := e.keys(acc)
	if len(list) != 1 || list[0].Scopes != (adcamp.Scopes{Campaigns: adcamp.AccessRead, Reports: adcamp.AccessRead}) ||
		list[0].ExpiresAt == nil || len(list[0].AllowedIPs) != 2 || list[0].RateLimit != 5 {
		t.Fatalf("the key made in the console: %+v", list)
	}
	if e.signedRequest(adcamp.Sandbox, key, secret) != 200 {
		t.Error("a read-only key does not read campaigns")
	}
	page := c.get(keys).wantStatus(200)
	card := page.text(".key")
	for _, want := range []string{"campaigns: read", "history: none", "127.0.0.0/8", "::1/128", "5 requests a second"} {
		if !strings.Contains(card, want) {
			t.Errorf("the key's card lacks %q: %s", want, strings.Join(strings.Fields(card), " "))
		}
	}

	access := c.get(keys + "/" + key + "/access").wantStatus(200)
	if v, _ := access.doc.Find(`#f-scope_campaigns option[selected]`).Attr("value"); v != "read" {
		t.Errorf("the access form shows campaigns %q, want read", v)
	}
	c.post(keys+"/"+key+"/access", url.Values{"scope_campaigns": {"write"}, "scope_reports": {"read"}, "scope_history": {"read"},
		"scope_webhooks": {"none"}, "expires_at": {""}, "allowed_ips": {""}, "rate_limit": {""}}).
		wantStatus(200).wantText(".notice", "access was changed")
	k := e.keys(acc)[0]
	if k.Scopes.Campaigns != adcamp.AccessWrite || k.Scopes.History != adcamp.AccessRead || k.ExpiresAt != nil ||
		len(k.AllowedIPs) != 0 || k.RateLimit != 0 {
		t.Errorf("after the access form: %+v", k)
	}
	e.svc.FlushUsage(context.Background())
	uses := c.get(keys + "/" + key + "/uses").wantStatus(200)
	if !strings.Contains(uses.text("table"), "GET /api/v1/open/campaigns") || !strings.Contains(uses.text("table"), "127.0.0.1") {
		t.Errorf("recent uses: %q", uses.text("main"))
	}

	viewer, _ := e.member(acc, "viewer@example.com", adcamp.RoleViewer)
	if viewer.get(keys + "/" + key + "/access").has(`form[action$="/access"]`) {
		t.Error("a viewer is shown the access form")
	}
	viewer.post(keys+"/"+key+"/access", url.Values{"scope_campaigns": {"none"}}).wantStatus(http.StatusForbidden)
	if e.keys(acc)[0].Scopes.Campaigns != adcamp.AccessWrite {
		t.Error("a viewer changed a key's access")
	}
}

// TestSandboxButtons: the sandbox's campaigns page offers sample data and
// a reset, which do what they say; production has neither.
func TestSandboxButtons(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	sandbox := "/accounts/" + acc + "/sandbox"
	p := c.get(sandbox + "/campaigns").wantStatus(200)
	if !p.has(`form[action="/accounts/`+acc+`/sandbox/sample-data"]`) || !p.has(`a[href="`+sandbox+`/reset"]`) {
		t.Fatal("the sandbox's campaigns page has no sample data button or reset link")
	}
	if c.get("/accounts/" + acc + "/production/campaigns").has(`.sandbox-tools`) {
		t.Error("production's campaigns page shows the sandbox's tools")
	}
	p = c.post(sandbox+"/sample-data", nil).wantStatus(200).wantText(".notice", "Sample data was added")
	if p.doc.Find("table.list-table tbody tr").Length() < 3 {
		t.Errorf("after sample data, %d campaigns listed", p.doc.Find("table.list-table tbody tr").Length())
	}
	c.get(sandbox+"/reset").wantStatus(200).wantText("button[type=submit]", "Delete every sandbox campaign")
	p = c.post(sandbox+"/reset", nil).wantStatus(200).wantText(".notice", "The sandbox was emptied")
	if p.doc.Find("table.list-table tbody tr").Length() != 0 {
		t.Error("campaigns are left after the reset")
	}
	viewer, _ := e.member(acc, "viewer@example.com", adcamp.RoleViewer)
	if viewer.get(sandbox + "/campaigns").has(".sandbox-tools") {
		t.Error("a viewer is shown the sandbox's tools")
	}
	viewer.post(sandbox+"/sample-data", nil).wantStatus(http.StatusForbidden)
	viewer.post(sandbox+"/simulate", nil).wantStatus(http.StatusForbidden)
}

// TestSandboxSimulateButton: with the delivery simulator on, the
// sandbox's campaigns page offers a backfill, which posts figures (the
// campaigns' spend shows them); a viewer may not.
func TestSandboxSimulateButton(t *testing.T) {
	e := newEnv(t)
	// The backfill simulates whole hours up to now: in the first hour of
	// the account's day (UTC here) there is none of today yet, and no
	// spend today to see. Run the test an hour later then.
	if e.clock.Now().UTC().Hour() == 0 {
		e.clock.Advance(time.Hour)
	}
	c, acc := e.owner()
	sandbox := "/accounts/" + acc + "/sandbox"
	if c.get(sandbox + "/campaigns").has(`form[action="` + sandbox + `/simulate"]`) {
		t.Error("the simulate button shows with the simulator off")
	}
	e.svc.SetSimulator(service.SimulatorConfig{Enabled: true, Seed: 1, SampleDays: 2})
	tenant := adcamp.Tenant{AccountID: acc, Environment: adcamp.Sandbox}
	camp, err := e.svc.CreateCampaign(admin, tenant, adcamp.CampaignInput{Name: adcamp.Some("Shoes"), BudgetDaily: adcamp.Some("500.00"), Marketplace: adcamp.Some("US")}, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.svc.CreateAdGroup(admin, tenant, camp.ID, adcamp.AdGroupInput{Name: adcamp.Some("G"), DefaultBid: adcamp.Some("1.00")}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CreateKeywords(admin, tenant, g.ID, []adcamp.KeywordInput{{Text: adcamp.Some("shoes"), MatchType: adcamp.Some(adcamp.MatchBroad)}}, service.BatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if !c.get(sandbox + "/campaigns").has(`form[action="` + sandbox + `/simulate"]`) {
		t.Fatal("the sandbox's campaigns page has no simulate button")
	}
	c.post(sandbox+"/simulate", nil).wantStatus(200).wantText(".notice", "30 days of delivery were simulated: 1 keyword")
	s, err := e.svc.CampaignServing(admin, tenant, []*adcamp.Campaign{camp})
	if err != nil || s[0].SpendToday <= 0 {
		t.Errorf("CampaignServing after the backfill = %+v, %v; want some spend today", s, err)
	}
	viewer, _ := e.member(acc, "viewer@example.com", adcamp.RoleViewer)
	viewer.post(sandbox+"/simulate", nil).wantStatus(http.StatusForbidden)
}
