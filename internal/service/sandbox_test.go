package service_test

import (
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

func TestSandboxSampleDataAndReset(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, err := f.svc.CreateAccount(admin, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	sandbox := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}
	prod := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	if _, err := f.svc.SampleData(admin, prod); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("SampleData(production) = %v, want NOT_FOUND", err)
	}
	if _, err := f.svc.ResetSandbox(admin, prod); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("ResetSandbox(production) = %v, want NOT_FOUND", err)
	}
	kept, err := f.svc.CreateCampaign(admin, prod, adcamp.CampaignInput{Name: adcamp.Some("Live"), BudgetDaily: adcamp.Some("10"),
		Marketplace: adcamp.Some("US")}, false)
	if err != nil {
		t.Fatal(err)
	}

	made, err := f.svc.SampleData(admin, sandbox)
	if err != nil {
		t.Fatal(err)
	}
	if made.Campaigns < 3 || made.AdGroups < made.Campaigns || made.Keywords < 200 {
		t.Errorf("SampleData = %+v, want a few campaigns, their ad groups and a few hundred keywords", made)
	}
	page, err := f.svc.ListCampaigns(admin, sandbox, adcamp.CampaignFilter{Page: 1, PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	markets, statuses := map[string]bool{}, map[adcamp.Status]bool{}
	for _, c := range page.Items {
		markets[c.Marketplace], statuses[c.Status] = true, true
	}
	if int64(len(page.Items)) != made.Campaigns || len(markets) < 3 || len(statuses) < 3 {
		t.Errorf("sample campaigns in %v with statuses %v; want several of each", markets, statuses)
	}
	types := map[adcamp.MatchType]int{}
	groups, err := f.svc.ListAdGroups(admin, sandbox, page.Items[0].ID, adcamp.AdGroupFilter{Page: 1, PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups.Items {
		kws, err := f.svc.ListKeywords(admin, sandbox, g.ID, adcamp.KeywordFilter{Page: 1, PageSize: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range kws.Items {
			types[k.MatchType]++
		}
	}
	if len(types) != 3 {
		t.Errorf("keywords of a sample campaign by match type: %v, want all three", types)
	}

	before := len(f.history(sandbox, adcamp.ChangeFilter{Limit: 200}))
	gone, err := f.svc.ResetSandbox(admin, sandbox)
	if err != nil {
		t.Fatal(err)
	}
	if *gone != *made {
		t.Errorf("ResetSandbox = %+v, want what SampleData made: %+v", gone, made)
	}
	if left, _ := f.svc.ListCampaigns(admin, sandbox, adcamp.CampaignFilter{Page: 1, PageSize: 20}); left.TotalItems != 0 {
		t.Errorf("after ResetSandbox, %d sandbox campaigns are left", left.TotalItems)
	}
	after := f.history(sandbox, adcamp.ChangeFilter{Limit: 200})
	if want := before + int(gone.Campaigns+gone.AdGroups+gone.Keywords); len(after) != want {
		t.Errorf("history has %d records after the reset, want %d (one per entity deleted)", len(after), want)
	}
	if _, err := f.svc.GetCampaign(admin, prod, kept.ID); err != nil {
		t.Errorf("the production campaign after a sandbox reset: %v", err)
	}
	again, err := f.svc.ResetSandbox(admin, sandbox)
	if err != nil || *again != (service.SandboxCounts{}) {
		t.Errorf("ResetSandbox of an empty sandbox = %+v, %v; want nothing removed", again, err)
	}
}
