package storetest

import (
	"fmt"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Dataset is a varied set of rows written through a store, for the tests
// that move a database elsewhere (a backup and its restore, pg_dump and
// pg_restore) and then read it back with the suite's read calls.
type Dataset struct {
	account   *adcamp.Account
	channel   *adcamp.ChannelAccount
	keys      []*store.Credential
	tenants   []adcamp.Tenant
	campaigns map[adcamp.Tenant][]*adcamp.Campaign
	groups    []*adcamp.AdGroup
	keywords  map[string][]*adcamp.Keyword // by ad group
	changes   []*adcamp.Change
	user      *store.User
	setting   []byte
}

// Fill writes a Dataset into db: an account with a channel account, keys
// of both environments, campaigns in both (with and without dates, notes,
// a channel account, every status), ad groups, keywords of every match
// type, change records, a console user and member, and a setting.
func Fill(t *testing.T, db store.Store) *Dataset {
	t.Helper()
	ctx := t.Context()
	d := &Dataset{account: newAccount(t, db, "Acme"), campaigns: map[adcamp.Tenant][]*adcamp.Campaign{},
		keywords: map[string][]*adcamp.Keyword{}, setting: []byte("sealed canary \x00\xff")}
	d.channel = &adcamp.ChannelAccount{AccountID: d.account.ID, Marketplace: "JP", Name: "Acme JP", CreatedAt: at(1)}
	write(t, db, func(tx store.Tx) error { return tx.CreateChannelAccount(ctx, d.channel) })
	for i, env := range []adcamp.Environment{adcamp.Production, adcamp.Sandbox} {
		tn := adcamp.Tenant{AccountID: d.account.ID, Environment: env}
		d.tenants = append(d.tenants, tn)
		d.keys = append(d.keys, newKey(t, db, d.account.ID, fmt.Sprintf("ak_%s_%d", env, i), env, at(2+i)))
		d.fillTenant(t, db, tn)
	}
	d.user = newUser(t, db, "owner@acme.test")
	member := &adcamp.Member{AccountID: d.account.ID, User: d.user.User, Role: adcamp.RoleOwner, AddedAt: at(50)}
	write(t, db, func(tx store.Tx) error {
		if err := tx.CreateMember(ctx, member); err != nil {
			return err
		}
		_, err := tx.AddSetting(ctx, "dataset", d.setting)
		return err
	})
	return d
}

// fillTenant writes the campaigns, their children and their changes of tn.
func (d *Dataset) fillTenant(t *testing.T, db store.Store, tn adcamp.Tenant) {
	t.Helper()
	ctx := t.Context()
	edits := []func(*adcamp.Campaign){
		nil,
		func(c *adcamp.Campaign) {
			c.Status, c.Notes, c.ChannelAccountID = adcamp.StatusPaused, "notes ✓ \"quoted\"", &d.channel.ID
		},
		func(c *adcamp.Campaign) { c.StartDate, c.EndDate = day("2026-01-01"), day("2026-02-01") },
		func(c *adcamp.Campaign) { c.Status, c.BudgetDaily = adcamp.StatusEnded, 1 },
	}
	for i, edit := range edits {
		c := newCampaign(t, db, tn, at(10+i), edit)
		d.campaigns[tn] = append(d.campaigns[tn], c)
	}
	g := newAdGroup(t, db, d.campaigns[tn][0], at(20))
	d.groups = append(d.groups, g)
	ks := []*adcamp.Keyword{keyword(g, at(21), "running shoes"), keyword(g, at(22), "trail shoes"), keyword(g, at(23), "shoes")}
	ks[1].MatchType, ks[2].MatchType, ks[2].Status = adcamp.MatchPhrase, adcamp.MatchBroad, adcamp.StatusPaused
	bid := adcamp.Money(110)
	ks[0].Bid = &bid
	write(t, db, func(tx store.Tx) error { return tx.CreateKeywords(ctx, ks) })
	d.keywords[g.ID] = ks
	actor := adcamp.Actor{Type: adcamp.ActorAPIKey, ID: "ak_x"}
	cs := []*adcamp.Change{
		change(tn, adcamp.EntityCampaign, d.campaigns[tn][0].ID, d.campaigns[tn][0].ID, "", at(30), actor),
		change(tn, adcamp.EntityKeyword, ks[0].ID, d.campaigns[tn][0].ID, g.ID, at(31), actor),
	}
	write(t, db, func(tx store.Tx) error { return tx.AddChanges(ctx, cs) })
	d.changes = append(d.changes, cs...)
}

// Check reads every row of d back from db, with the calls the store suite
// reads with, and fails t where one differs from what Fill wrote.
func (d *Dataset) Check(t *testing.T, db store.Store) {
	t.Helper()
	ctx := t.Context()
	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetAccount(ctx, d.account.ID)
		if err != nil {
			return err
		}
		same(t, "GetAccount", got, d.account)
		ca, err := tx.GetChannelAccount(ctx, d.account.ID, d.channel.ID)
		if err != nil {
			return err
		}
		same(t, "GetChannelAccount", ca, d.channel)
		keys, err := tx.ListCredentials(ctx, d.account.ID)
		if err != nil {
			return err
		}
		keyID := func(k *store.Credential) string { return k.ID }
		sameIDs(t, "ListCredentials", idsOf(keys, keyID), idsOf(d.keys, keyID)) // oldest first
		for _, k := range d.keys {
			got, err := tx.GetCredential(ctx, k.ID)
			if err != nil {
				return err
			}
			same(t, "GetCredential("+k.ID+")", got, k)
		}
		setting, err := tx.GetSetting(ctx, "dataset")
		if err != nil {
			return err
		}
		same(t, "GetSetting", setting, d.setting)
		m, err := tx.GetMember(ctx, d.account.ID, d.user.ID)
		if err != nil {
			return err
		}
		same(t, "GetMember", m.Role, adcamp.RoleOwner)
		return nil
	})
	for _, tn := range d.tenants {
		d.checkTenant(t, db, tn)
	}
}

// checkTenant reads back the campaigns, ad groups, keywords and changes
// of tn.
func (d *Dataset) checkTenant(t *testing.T, db store.Store, tn adcamp.Tenant) {
	t.Helper()
	ctx := t.Context()
	want := d.campaigns[tn]
	ids, total := listCampaigns(t, db, tn, store.ListQuery{Limit: 100, Today: today})
	sameIDs(t, fmt.Sprintf("ListCampaigns(%s)", tn.Environment), ids, newest(want, campaignCreated, campaignID))
	if total != int64(len(want)) {
		t.Errorf("ListCampaigns(%s) total = %d, want %d", tn.Environment, total, len(want))
	}
	for _, c := range want {
		got, err := getCampaign(t, db, tn, c.ID)
		if err != nil {
			t.Fatalf("GetCampaign(%s): %v", c.ID, err)
		}
		same(t, "GetCampaign("+c.ID+")", got, c)
	}
	read(t, db, func(tx store.Tx) error {
		for _, g := range d.groups {
			if g.Environment != tn.Environment {
				continue
			}
			got, err := tx.GetAdGroup(ctx, tn, g.ID)
			if err != nil {
				return err
			}
			same(t, "GetAdGroup("+g.ID+")", got, g)
			ks, n, err := tx.ListKeywords(ctx, tn, g.ID, store.ListQuery{Limit: 100})
			if err != nil {
				return err
			}
			same(t, "ListKeywords("+g.ID+")", ks, newestKeywords(d.keywords[g.ID]))
			if n != int64(len(d.keywords[g.ID])) {
				t.Errorf("ListKeywords(%s) total = %d, want %d", g.ID, n, len(d.keywords[g.ID]))
			}
		}
		return nil
	})
	var wantChanges []*adcamp.Change
	for _, c := range d.changes {
		if c.Environment == tn.Environment {
			wantChanges = append([]*adcamp.Change{c}, wantChanges...) // newest first
		}
	}
	got := listChanges(t, db, store.ChangeQuery{AccountID: tn.AccountID, Environments: []adcamp.Environment{tn.Environment}, Limit: 100})
	same(t, fmt.Sprintf("ListChanges(%s)", tn.Environment), got, wantChanges)
}

// newestKeywords orders keywords as ListKeywords does.
func newestKeywords(ks []*adcamp.Keyword) []*adcamp.Keyword {
	byID := map[string]*adcamp.Keyword{}
	for _, k := range ks {
		byID[k.ID] = k
	}
	var out []*adcamp.Keyword
	for _, id := range newest(ks, keywordCreated, keywordID) {
		out = append(out, byID[id])
	}
	return out
}
