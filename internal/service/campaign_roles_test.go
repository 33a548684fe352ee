package service_test

import (
	"context"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// The roles of console users over campaigns, ad groups and keywords: an
// owner changes both environments, a developer the sandbox, a viewer
// nothing, and a user of another account finds nothing. API keys and the
// admin command line are not members of anything and keep doing what
// they did.

// campaignInput is a valid campaign create.
func campaignInput(name string) adcamp.CampaignInput {
	return adcamp.CampaignInput{Name: adcamp.Some(name), BudgetDaily: adcamp.Some("25.00"), Marketplace: adcamp.Some("US")}
}

// everyChange tries each kind of change in tenant t as ctx, on campaign
// c, ad group g and keyword k that exist there, and returns the error of
// each by name.
func everyChange(f *fixture, ctx context.Context, t adcamp.Tenant, c, g, k string) map[string]error {
	errs := map[string]error{}
	_, errs["create campaign"] = f.svc.CreateCampaign(ctx, t, campaignInput("New"), false)
	_, errs["dry-run campaign"] = f.svc.CreateCampaign(ctx, t, campaignInput("New"), true)
	_, errs["update campaign"] = f.svc.UpdateCampaign(ctx, t, c, adcamp.CampaignInput{Status: adcamp.Some(adcamp.StatusPaused)}, service.IfMatch{}, false)
	_, errs["create ad group"] = f.svc.CreateAdGroup(ctx, t, c, adcamp.AdGroupInput{Name: adcamp.Some("G"), DefaultBid: adcamp.Some("0.50")}, false)
	_, errs["update ad group"] = f.svc.UpdateAdGroup(ctx, t, g, adcamp.AdGroupInput{Name: adcamp.Some("G2")}, service.IfMatch{}, false)
	_, errs["create keywords"] = f.svc.CreateKeywords(ctx, t, g, []adcamp.KeywordInput{{Text: adcamp.Some("new shoes"), MatchType: adcamp.Some(adcamp.MatchExact)}}, service.BatchOptions{})
	_, errs["update keyword"] = f.svc.UpdateKeyword(ctx, t, k, adcamp.KeywordInput{Status: adcamp.Some(adcamp.StatusPaused)}, service.IfMatch{}, false)
	errs["delete keyword"] = f.svc.DeleteKeyword(ctx, t, k, service.IfMatch{})
	_, errs["delete ad group"] = f.svc.DeleteAdGroup(ctx, t, g, service.IfMatch{})
	_, errs["delete campaign"] = f.svc.DeleteCampaign(ctx, t, c, service.IfMatch{})
	return errs
}

// tree creates a campaign, an ad group and a keyword in t as an operator.
func (f *fixture) tree(t adcamp.Tenant) (c, g, k string) {
	f.t.Helper()
	camp, err := f.svc.CreateCampaign(admin, t, campaignInput("Spring"), false)
	if err != nil {
		f.t.Fatal(err)
	}
	grp, err := f.svc.CreateAdGroup(admin, t, camp.ID, adcamp.AdGroupInput{Name: adcamp.Some("Shoes"), DefaultBid: adcamp.Some("0.40")}, false)
	if err != nil {
		f.t.Fatal(err)
	}
	res, err := f.svc.CreateKeywords(admin, t, grp.ID, []adcamp.KeywordInput{{Text: adcamp.Some("red shoes"), MatchType: adcamp.Some(adcamp.MatchPhrase)}}, service.BatchOptions{})
	if err != nil || res[0].Err != nil {
		f.t.Fatalf("CreateKeywords = %+v, %v", res, err)
	}
	return camp.ID, grp.ID, res[0].Keyword.ID
}

func TestCampaignRoles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, owner := f.setup()
	dev := f.member(acc, "dev@example.com", adcamp.RoleDeveloper)
	viewer := f.member(acc, "viewer@example.com", adcamp.RoleViewer)
	other, _ := f.svc.CreateAccount(ctx, "Other", "")
	outsider := f.member(other.ID, "out@example.com", adcamp.RoleOwner)
	apiKey := service.WithOrigin(ctx, service.Origin{Actor: adcamp.Actor{Type: adcamp.ActorAPIKey, ID: "ak_test_x"}})

	for _, c := range []struct {
		name string
		ctx  context.Context
		env  adcamp.Environment
		want adcamp.Code // "" for allowed
	}{
		{"owner", as(owner.User.ID), adcamp.Production, ""},
		{"owner", as(owner.User.ID), adcamp.Sandbox, ""},
		{"developer", as(dev.User.ID), adcamp.Sandbox, ""},
		{"developer", as(dev.User.ID), adcamp.Production, adcamp.CodeForbidden},
		{"viewer", as(viewer.User.ID), adcamp.Sandbox, adcamp.CodeForbidden},
		{"viewer", as(viewer.User.ID), adcamp.Production, adcamp.CodeForbidden},
		{"another account's owner", as(outsider.User.ID), adcamp.Sandbox, adcamp.CodeNotFound},
		{"an API key", apiKey, adcamp.Sandbox, ""},
		{"an operator", admin, adcamp.Production, ""},
		{"the system", ctx, adcamp.Production, ""},
	} {
		t.Run(c.name+" in "+string(c.env), func(t *testing.T) {
			tn := adcamp.Tenant{AccountID: acc, Environment: c.env}
			camp, grp, kw := f.tree(tn)
			for what, err := range everyChange(f, c.ctx, tn, camp, grp, kw) {
				if got := adcamp.ErrorCode(err); (c.want == "" && err != nil) || (c.want != "" && got != c.want) {
					t.Errorf("%s: %v, want %q", what, err, c.want)
				}
			}
			if c.want == "" {
				return
			}
			// Refused: nothing changed.
			if got, err := f.svc.GetCampaign(admin, tn, camp); err != nil || got.Status != adcamp.StatusActive || got.Version != 1 {
				t.Errorf("after refused changes the campaign is %+v, %v; want it as it was", got, err)
			}
			if d, err := f.svc.CampaignContents(admin, tn, camp); err != nil || d.AdGroups != 1 || d.Keywords != 1 {
				t.Errorf("after refused changes the campaign holds %+v, %v; want 1 ad group and 1 keyword", d, err)
			}
			if err := f.svc.MayChangeCampaigns(c.ctx, tn); adcamp.ErrorCode(err) != c.want {
				t.Errorf("MayChangeCampaigns = %v, want %s", err, c.want)
			}
		})
	}
	wantCode(t, "a developer's production refusal", func() error {
		_, err := f.svc.CreateCampaign(as(dev.User.ID), adcamp.Tenant{AccountID: acc, Environment: adcamp.Production}, campaignInput("X"), false)
		return err
	}(), adcamp.CodeForbidden, "As a developer", "production campaigns", "an owner of the account can")
	if err := f.svc.MayChangeCampaigns(as(dev.User.ID), adcamp.Tenant{AccountID: acc, Environment: adcamp.Sandbox}); err != nil {
		t.Errorf("MayChangeCampaigns(developer, sandbox) = %v", err)
	}
	if a := service.AllowedFor(adcamp.RoleDeveloper); !a.Campaigns(adcamp.Sandbox) || a.Campaigns(adcamp.Production) {
		t.Errorf("AllowedFor(developer) = %+v, want the sandbox's campaigns only", a)
	}
	if a := service.AllowedFor(adcamp.RoleViewer); a.Campaigns(adcamp.Sandbox) || a.Campaigns(adcamp.Production) {
		t.Errorf("AllowedFor(viewer) = %+v, want no campaigns", a)
	}
}

// TestContents: counting what a delete would take deletes nothing, and
// another tenant's ids are missing.
func TestContents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, _ := f.setup()
	tn := adcamp.Tenant{AccountID: acc, Environment: adcamp.Sandbox}
	camp, grp, _ := f.tree(tn)
	items := []adcamp.KeywordInput{
		{Text: adcamp.Some("blue shoes"), MatchType: adcamp.Some(adcamp.MatchBroad)},
		{Text: adcamp.Some("green shoes"), MatchType: adcamp.Some(adcamp.MatchBroad)},
	}
	if _, err := f.svc.CreateKeywords(admin, tn, grp, items, service.BatchOptions{Batch: true}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if d, err := f.svc.CampaignContents(admin, tn, camp); err != nil || *d != (service.Deleted{AdGroups: 1, Keywords: 3}) {
			t.Errorf("CampaignContents = %+v, %v; want 1 ad group, 3 keywords", d, err)
		}
		if d, err := f.svc.AdGroupContents(admin, tn, grp); err != nil || *d != (service.Deleted{Keywords: 3}) {
			t.Errorf("AdGroupContents = %+v, %v; want 3 keywords", d, err)
		}
	}
	for _, other := range []adcamp.Tenant{{AccountID: acc, Environment: adcamp.Production}, {AccountID: "acc_other", Environment: adcamp.Sandbox}} {
		_, err := f.svc.CampaignContents(admin, other, camp)
		wantCode(t, "CampaignContents in "+other.AccountID+" "+string(other.Environment), err, adcamp.CodeNotFound)
		_, err = f.svc.AdGroupContents(admin, other, grp)
		wantCode(t, "AdGroupContents in "+other.AccountID+" "+string(other.Environment), err, adcamp.CodeNotFound)
	}
	_, err := f.svc.CampaignContents(admin, tn, "cmp_malformed")
	wantCode(t, "CampaignContents(malformed id)", err, adcamp.CodeNotFound)
}
