package service_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// line renders a change record without its ids and times, for comparison.
func line(c *adcamp.Change) string {
	var fields []string
	for _, f := range c.Changes {
		fields = append(fields, fmt.Sprintf("%s:%s→%s", f.Field, show(f.Old), show(f.New)))
	}
	parents := ""
	if c.CampaignID != "" {
		parents += " cmp=" + c.CampaignID[:8]
	}
	if c.AdGroupID != "" {
		parents += " adg=" + c.AdGroupID[:8]
	}
	return fmt.Sprintf("%s %s %s %s%s by %s:%s req=%q idem=%q [%s]", c.Environment, c.Operation, c.EntityType,
		c.EntityID[:min(len(c.EntityID), 8)], parents, c.Actor.Type, c.Actor.ID, c.RequestID, c.IdempotencyKey, strings.Join(fields, " "))
}

// history reads every record of f, newest first, page by page of limit.
func (f *fixture) history(tn adcamp.Tenant, filter adcamp.ChangeFilter) []*adcamp.Change {
	f.t.Helper()
	var all []*adcamp.Change
	for {
		page, next, err := f.svc.ListChanges(ctx, tn, filter)
		if err != nil {
			f.t.Fatalf("ListChanges(%+v) = %v", filter, err)
		}
		all = append(all, page...)
		if next == "" {
			return all
		}
		filter.Cursor = next
	}
}

func apiKey(id, request, idem string) context.Context {
	return service.WithOrigin(ctx, service.Origin{Actor: adcamp.Actor{Type: adcamp.ActorAPIKey, ID: id}, RequestID: request, IdempotencyKey: idem})
}

// TestChangesOfAds: every change of campaigns, ad groups and keywords is
// recorded with its old and new values, actor, request and idempotency
// key; a cascade and a batch are one transaction each; a partial batch
// records only what it stored.
func TestChangesOfAds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	accountID, owner := f.setup()
	tn := adcamp.Tenant{AccountID: accountID, Environment: adcamp.Production}
	c, err := f.svc.CreateCampaign(apiKey("ak_live_a", "req_1", "idem-1"), tn, adcamp.CampaignInput{
		Name: adcamp.Some("Spring"), BudgetDaily: adcamp.Some("25"), Marketplace: adcamp.Some("US"),
		EndDate: adcamp.Some("2026-12-31")}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.CreateCampaign(apiKey("ak_live_a", "req_dry", ""), tn, adcamp.CampaignInput{
		Name: adcamp.Some("Dry"), BudgetDaily: adcamp.Some("1"), Marketplace: adcamp.Some("US")}, true); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	if _, err := f.svc.UpdateCampaign(apiKey("ak_live_a", "req_2", ""), tn, c.ID, adcamp.CampaignInput{
		BudgetDaily: adcamp.Some("40.00"), Status: adcamp.Some(adcamp.StatusPaused), Name: adcamp.Some("Spring")}, service.IfMatch{}, false); err != nil {
		t.Fatal(err)
	}
	g, err := f.svc.CreateAdGroup(as(owner.User.ID), tn, c.ID, adcamp.AdGroupInput{Name: adcamp.Some("Shoes"), DefaultBid: adcamp.Some("0.75")}, false)
	if err != nil {
		t.Fatal(err)
	}
	results, err := f.svc.CreateKeywords(apiKey("ak_live_a", "req_3", ""), tn, g.ID, []adcamp.KeywordInput{
		{Text: adcamp.Some("red shoes"), MatchType: adcamp.Some(adcamp.MatchExact), Bid: adcamp.Some("1.10")},
		{Text: adcamp.Some(""), MatchType: adcamp.Some(adcamp.MatchExact)},
		{Text: adcamp.Some("Red  Shoes"), MatchType: adcamp.Some(adcamp.MatchExact)},
		{Text: adcamp.Some("blue shoes"), MatchType: adcamp.Some(adcamp.MatchBroad)},
	}, service.BatchOptions{Batch: true, Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	red, blue := results[0].Keyword, results[3].Keyword
	if _, err := f.svc.UpdateKeyword(admin, tn, red.ID, adcamp.KeywordInput{Bid: adcamp.Null[string]()}, service.IfMatch{}, false); err != nil {
		t.Fatal(err)
	}
	// A refused change leaves no record.
	if _, err := f.svc.UpdateCampaign(apiKey("ak_live_a", "req_bad", ""), tn, c.ID, adcamp.CampaignInput{
		BudgetDaily: adcamp.Some("0")}, service.IfMatch{}, false); err == nil {
		t.Fatal("UpdateCampaign(budget 0) = nil error")
	}
	if _, err := f.svc.DeleteCampaign(apiKey("ak_live_b", "req_4", ""), tn, c.ID, service.IfMatch{}); err != nil {
		t.Fatal(err)
	}

	got := f.history(tn, adcamp.ChangeFilter{Limit: 2})
	got = got[:len(got)-1] // the owner's membership, from the setup
	cmp, adg := " cmp="+c.ID[:8], " adg="+g.ID[:8]
	want := []string{
		`production delete campaign ` + c.ID[:8] + cmp + ` by api_key:ak_live_b req="req_4" idem="" [name:"Spring"→null budget_daily:"40.00"→null marketplace:"US"→null channel_account_id:null→null start_date:null→null end_date:"2026-12-31"→null status:"paused"→null notes:null→null]`,
		`production delete ad_group ` + g.ID[:8] + cmp + adg + ` by api_key:ak_live_b req="req_4" idem="" [name:"Shoes"→null default_bid:"0.75"→null status:"active"→null]`,
		`production delete keyword ` + blue.ID[:8] + cmp + adg + ` by api_key:ak_live_b req="req_4" idem="" [text:"blue shoes"→null match_type:"broad"→null bid:null→null status:"active"→null]`,
		`production delete keyword ` + red.ID[:8] + cmp + adg + ` by api_key:ak_live_b req="req_4" idem="" [text:"red shoes"→null match_type:"exact"→null bid:null→null status:"active"→null]`,
		`production update keyword ` + red.ID[:8] + cmp + adg + ` by admin:root req="" idem="" [bid:"1.10"→null]`,
		`production create keyword ` + blue.ID[:8] + cmp + adg + ` by api_key:ak_live_a req="req_3" idem="" [text:null→"blue shoes" match_type:null→"broad" bid:null→null status:null→"active"]`,
		`production create keyword ` + red.ID[:8] + cmp + adg + ` by api_key:ak_live_a req="req_3" idem="" [text:null→"red shoes" match_type:null→"exact" bid:null→"1.10" status:null→"active"]`,
		`production create ad_group ` + g.ID[:8] + cmp + adg + ` by user:` + owner.User.ID + ` req="" idem="" [name:null→"Shoes" default_bid:null→"0.75" status:null→"active"]`,
		`production update campaign ` + c.ID[:8] + cmp + ` by api_key:ak_live_a req="req_2" idem="" [budget_daily:"25.00"→"40.00" status:"active"→"paused"]`,
		`production create campaign ` + c.ID[:8] + cmp + ` by api_key:ak_live_a req="req_1" idem="idem-1" [name:null→"Spring" budget_daily:null→"25.00" marketplace:null→"US" channel_account_id:null→null start_date:null→null end_date:null→"2026-12-31" status:null→"active" notes:null→null]`,
	}
	if blue.ID < red.ID { // the cascade deletes in id order
		want[2], want[3] = want[3], want[2]
	}
	sameLines(t, "history", got, want)
	// The cascade shares a transaction; the delete and the batch do not.
	if got[0].TransactionID != got[3].TransactionID || got[4].TransactionID == got[3].TransactionID ||
		got[5].TransactionID != got[6].TransactionID || got[5].TransactionID == got[7].TransactionID {
		t.Errorf("transaction ids = %s, want the cascade's four alike and the batch's two alike", txns(got))
	}

	// Per entity, even deleted: a campaign's history holds everything
	// under it; a keyword's its own.
	for _, tc := range []struct {
		typ  adcamp.EntityType
		id   string
		want int
	}{{adcamp.EntityCampaign, c.ID, 10}, {adcamp.EntityAdGroup, g.ID, 7}, {adcamp.EntityKeyword, red.ID, 3}} {
		page, _, err := f.svc.EntityChanges(ctx, tn, tc.typ, tc.id, adcamp.ChangeFilter{Limit: 200})
		if err != nil || len(page) != tc.want {
			t.Errorf("EntityChanges(%s %s) = %d records, %v; want %d", tc.typ, tc.id, len(page), err, tc.want)
		}
	}
	// Another account, or the other environment, sees none of it.
	for _, other := range []adcamp.Tenant{{AccountID: "acc_other", Environment: adcamp.Production}, {AccountID: accountID, Environment: adcamp.Sandbox}} {
		if page, _, err := f.svc.EntityChanges(ctx, other, adcamp.EntityCampaign, c.ID, adcamp.ChangeFilter{}); len(page) != 0 || err != nil {
			t.Errorf("EntityChanges as %+v = %d records, %v; want none", other, len(page), err)
		}
	}
	// Filters.
	if got := f.history(tn, adcamp.ChangeFilter{ActorType: adcamp.ActorAPIKey, ActorID: "ak_live_a"}); len(got) != 4 {
		t.Errorf("history of ak_live_a = %d records, want 4", len(got))
	}
	if got := f.history(tn, adcamp.ChangeFilter{EntityType: adcamp.EntityKeyword}); len(got) != 5 {
		t.Errorf("history of keywords = %d records, want 5", len(got))
	}
	_, _, err = f.svc.EntityChanges(ctx, tn, adcamp.EntityCampaign, g.ID, adcamp.ChangeFilter{})
	wantCode(t, "EntityChanges(campaign, an ad group's id)", err, adcamp.CodeNotFound)
	for _, bad := range []adcamp.ChangeFilter{
		{Limit: 201}, {Limit: -1}, {Cursor: "nope"}, {EntityType: "campaigns"}, {ActorType: "robot"},
		{Since: time.Unix(100, 0), Until: time.Unix(50, 0)},
	} {
		_, _, err := f.svc.ListChanges(ctx, tn, bad)
		wantCode(t, fmt.Sprintf("ListChanges(%+v)", bad), err, adcamp.CodeValidation)
	}
}

func sameLines(t *testing.T, what string, got []*adcamp.Change, want []string) {
	t.Helper()
	var lines []string
	for _, c := range got {
		lines = append(lines, line(c))
	}
	if g, w := strings.Join(lines, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("%s =\n%s\nwant\n%s", what, g, w)
	}
}

func txns(cs []*adcamp.Change) string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.TransactionID)
	}
	return strings.Join(ids, " ")
}

// TestChangesOfKeysAndMembers: credential and member events are
// recorded; members in no environment, read from either.
func TestChangesOfKeysAndMembers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	accountID, owner := f.setup()
	bob := f.member(accountID, "bob@example.com", adcamp.RoleViewer)
	if _, err := f.svc.SetMemberRole(as(owner.User.ID), accountID, bob.User.ID, adcamp.RoleDeveloper); err != nil {
		t.Fatal(err)
	}
	k, err := f.svc.CreateKeyWith(admin, service.KeyRequest{AccountID: accountID, Environment: adcamp.Sandbox, Name: "ci"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SetKeyDisabled(admin, k.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SetKeyDisabled(admin, k.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.RollKey(admin, k.ID, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.DeleteKey(admin, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.RemoveMember(as(owner.User.ID), accountID, bob.User.ID); err != nil {
		t.Fatal(err)
	}
	expires := `"` + f.clock.Now().Add(time.Hour).Format(time.RFC3339) + `"`
	all := adcamp.AllWrite.String()
	kid, o, b := k.ID[:8], owner.User.ID[:8], bob.User.ID[:8]
	want := []string{
		` delete member ` + b + ` by user:` + owner.User.ID + ` req="" idem="" [email:"bob@example.com"→null role:"developer"→null]`,
		`sandbox delete api_key ` + kid + ` by admin:root req="" idem="" [name:"ci"→null disabled:"false"→null previous_secret_expires_at:` + expires + `→null scopes:"` + all + `"→null expires_at:null→null allowed_ips:null→null rate_limit:"0"→null]`,
		`sandbox update api_key ` + kid + ` by admin:root req="" idem="" [previous_secret_expires_at:null→` + expires + ` secret:"replaced"→"issued"]`,
		`sandbox update api_key ` + kid + ` by admin:root req="" idem="" [disabled:"true"→"false"]`,
		`sandbox update api_key ` + kid + ` by admin:root req="" idem="" [disabled:"false"→"true"]`,
		`sandbox create api_key ` + kid + ` by admin:root req="" idem="" [name:null→"ci" disabled:null→"false" previous_secret_expires_at:null→null scopes:null→"` + all + `" expires_at:null→null allowed_ips:null→null rate_limit:null→"0"]`,
		` update member ` + b + ` by user:` + owner.User.ID + ` req="" idem="" [role:"viewer"→"developer"]`,
		` create member ` + b + ` by admin:root req="" idem="" [email:null→"bob@example.com" role:null→"viewer"]`,
		` create member ` + o + ` by user:` + owner.User.ID + ` req="" idem="" [email:null→"owner@example.com" role:null→"owner"]`,
	}
	sameLines(t, "sandbox history", f.history(adcamp.Tenant{AccountID: accountID, Environment: adcamp.Sandbox}, adcamp.ChangeFilter{}), want)
	prod := f.history(adcamp.Tenant{AccountID: accountID, Environment: adcamp.Production}, adcamp.ChangeFilter{})
	sameLines(t, "production history", prod, []string{want[0], want[6], want[7], want[8]})
	members := f.history(adcamp.Tenant{AccountID: accountID, Environment: adcamp.Production}, adcamp.ChangeFilter{EntityType: adcamp.EntityMember})
	sameLines(t, "member history", members, []string{want[0], want[6], want[7], want[8]})
}

// TestChangesOfEnding: the system's ending of campaigns past their end
// date is recorded as its change of their status.
func TestChangesOfEnding(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, err := f.svc.CreateAccount(admin, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: acc.ID, Environment: adcamp.Sandbox}
	c, err := f.svc.CreateCampaign(admin, tn, adcamp.CampaignInput{
		Name: adcamp.Some("Short"), BudgetDaily: adcamp.Some("5"), Marketplace: adcamp.Some("US"), EndDate: adcamp.Some("2026-11-22")}, false)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(48 * time.Hour)
	if n, err := f.svc.EndDueCampaigns(ctx); n != 1 || err != nil {
		t.Fatalf("EndDueCampaigns = %d, %v; want 1", n, err)
	}
	page, _, err := f.svc.EntityChanges(ctx, tn, adcamp.EntityCampaign, c.ID, adcamp.ChangeFilter{Limit: 1})
	if err != nil || len(page) != 1 {
		t.Fatalf("EntityChanges = %d, %v", len(page), err)
	}
	sameLines(t, "history", page, []string{
		`sandbox update campaign ` + c.ID[:8] + ` cmp=` + c.ID[:8] + ` by system:adcamp req="" idem="" [status:"active"→"ended"]`})
	if !page[0].OccurredAt.Equal(f.clock.Now().Truncate(time.Millisecond)) {
		t.Errorf("OccurredAt = %v, want %v", page[0].OccurredAt, f.clock.Now())
	}
}

// show writes a value as JSON would.
func show(v *string) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *v)
}

// TestHistoryRetention: records older than the retention are purged in
// small transactions, the rest stay; zero keeps everything.
func TestHistoryRetention(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := openStore(t)
	keep := service.New(service.Config{Store: db, Now: f.clock.Now})
	svc := service.New(service.Config{Store: db, Now: f.clock.Now, HistoryRetention: 24 * time.Hour})
	acc, err := svc.CreateAccount(admin, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: acc.ID, Environment: adcamp.Production}
	c, err := svc.CreateCampaign(admin, tn, adcamp.CampaignInput{Name: adcamp.Some("Old"), BudgetDaily: adcamp.Some("5"), Marketplace: adcamp.Some("US")}, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := svc.CreateAdGroup(admin, tn, c.ID, adcamp.AdGroupInput{Name: adcamp.Some("G"), DefaultBid: adcamp.Some("1")}, false)
	if err != nil {
		t.Fatal(err)
	}
	items := make([]adcamp.KeywordInput, 1000)
	for i := range items {
		items[i] = adcamp.KeywordInput{Text: adcamp.Some(fmt.Sprintf("kw %d", i)), MatchType: adcamp.Some(adcamp.MatchExact)}
	}
	if _, err := svc.CreateKeywords(admin, tn, g.ID, items, service.BatchOptions{Batch: true}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(25 * time.Hour)
	if _, err := svc.UpdateCampaign(admin, tn, c.ID, adcamp.CampaignInput{Name: adcamp.Some("New")}, service.IfMatch{}, false); err != nil {
		t.Fatal(err)
	}
	if n, err := keep.PurgeChanges(ctx); n != 0 || err != nil {
		t.Errorf("PurgeChanges with no retention = %d, %v; want 0", n, err)
	}
	if n, err := svc.PurgeChanges(ctx); n != 1002 || err != nil {
		t.Errorf("PurgeChanges = %d, %v; want 1002 (the campaign, the ad group, the keywords)", n, err)
	}
	f.svc = svc
	left := f.history(tn, adcamp.ChangeFilter{})
	if len(left) != 1 || left[0].Operation != adcamp.OpUpdate {
		t.Errorf("history after the purge = %d records, want the update", len(left))
	}
	if n, err := svc.PurgeChanges(ctx); n != 0 || err != nil {
		t.Errorf("PurgeChanges again = %d, %v; want 0", n, err)
	}
}

// TestChangesForConsoleUsers: a member reads the account's history, with
// the actors' emails; someone else's user gets NOT_FOUND.
func TestChangesForConsoleUsers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	accountID, owner := f.setup()
	viewer := f.member(accountID, "viewer@example.com", adcamp.RoleViewer)
	other, _ := f.svc.CreateAccount(admin, "Other", "")
	all := adcamp.Tenant{AccountID: accountID}
	page, _, err := f.svc.ListChanges(as(viewer.User.ID), all, adcamp.ChangeFilter{})
	if err != nil || len(page) != 2 {
		t.Fatalf("ListChanges as a viewer = %d records, %v; want the two members'", len(page), err)
	}
	names, err := f.svc.ActorNames(ctx, page)
	if err != nil || names[adcamp.Actor{Type: adcamp.ActorUser, ID: owner.User.ID}] != "owner@example.com" ||
		names[adcamp.Actor{Type: adcamp.ActorAdmin, ID: "root"}] != "root" {
		t.Errorf("ActorNames = %v, %v", names, err)
	}
	_, _, err = f.svc.ListChanges(as(viewer.User.ID), adcamp.Tenant{AccountID: other.ID, Environment: adcamp.Production}, adcamp.ChangeFilter{})
	wantCode(t, "ListChanges of another account", err, adcamp.CodeNotFound)
	if page, _, err := f.svc.ListChanges(ctx, all, adcamp.ChangeFilter{Since: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil || len(page) != 2 {
		t.Errorf("ListChanges(since 1900) = %d, %v; want 2", len(page), err)
	}
}
