package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// change is a record of an update of entity id at when, by actor.
func change(tn adcamp.Tenant, typ adcamp.EntityType, id, campaign, adGroup string, when time.Time, actor adcamp.Actor) *adcamp.Change {
	cid, occurred := adcamp.NewChangeID(when)
	return &adcamp.Change{
		ID: cid, OccurredAt: occurred, AccountID: tn.AccountID, Environment: tn.Environment, EntityType: typ,
		EntityID: id, CampaignID: campaign, AdGroupID: adGroup, Operation: adcamp.OpUpdate,
		Changes: []adcamp.FieldChange{
			{Field: "name", Old: ptr("Spring"), New: ptr(`Summer "sale" <é>`)},
			{Field: "budget_daily", Old: ptr("25.00"), New: ptr("40.50")},
			{Field: "end_date", Old: nil, New: ptr("2026-12-31")},
		},
		Actor: actor, RequestID: "req_1", IdempotencyKey: "idem-1", TransactionID: "txn_1",
	}
}

func listChanges(t *testing.T, db store.Store, q store.ChangeQuery) []*adcamp.Change {
	ctx := t.Context()
	t.Helper()
	var cs []*adcamp.Change
	err := db.ReadOne(ctx, func(tx store.Tx) (err error) {
		cs, err = tx.ListChanges(ctx, q)
		return err
	})
	if err != nil {
		t.Fatalf("ListChanges(%+v) = %v", q, err)
	}
	return cs
}

func changeID(c *adcamp.Change) string { return c.ID }

// testChanges: change records round-trip exactly (field order, numbers'
// decimals, nulls), list newest first by every filter within their
// tenant, page by id, and are purged oldest first in bounded batches.
func testChanges(t *testing.T, db store.Store) {
	ctx := t.Context()
	a, b := newAccount(t, db, "Acme"), newAccount(t, db, "Other")
	prod := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	sand := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}
	other := adcamp.Tenant{AccountID: b.ID, Environment: adcamp.Production}
	key := adcamp.Actor{Type: adcamp.ActorAPIKey, ID: "ak_live_x"}
	user := adcamp.Actor{Type: adcamp.ActorUser, ID: "usr_1"}
	cmp, adg, kw := adcamp.NewID(adcamp.PrefixCampaign, base), adcamp.NewID(adcamp.PrefixAdGroup, base), adcamp.NewID(adcamp.PrefixKeyword, base)

	all := []*adcamp.Change{
		change(prod, adcamp.EntityCampaign, cmp, cmp, "", at(0), key),
		change(prod, adcamp.EntityAdGroup, adg, cmp, adg, at(1), key),
		change(prod, adcamp.EntityKeyword, kw, cmp, adg, at(2), user),
		change(sand, adcamp.EntityCampaign, adcamp.NewID(adcamp.PrefixCampaign, base), "", "", at(3), key),
		change(other, adcamp.EntityCampaign, adcamp.NewID(adcamp.PrefixCampaign, base), "", "", at(4), key),
		change(adcamp.Tenant{AccountID: a.ID}, adcamp.EntityMember, "usr_2", "", "", at(5), user),
		change(prod, adcamp.EntityAPIKey, "ak_live_y", "", "", at(6), user),
	}
	all[6].Changes, all[6].IdempotencyKey = nil, ""
	all[2].Operation = adcamp.OpDelete
	write(t, db, func(tx store.Tx) error { return tx.AddChanges(ctx, all[:1]) })
	write(t, db, func(tx store.Tx) error { return tx.AddChanges(ctx, all[1:]) })

	q := store.ChangeQuery{AccountID: a.ID, Environments: []adcamp.Environment{adcamp.Production}, Limit: 10}
	got := listChanges(t, db, q)
	sameIDs(t, "ListChanges(production)", idsOf(got, changeID), idsOf([]*adcamp.Change{all[6], all[2], all[1], all[0]}, changeID))
	same(t, "ListChanges(production)[0]", got[0], all[6])
	same(t, "ListChanges(production)[3]", got[3], all[0])

	for _, tc := range []struct {
		name string
		edit func(*store.ChangeQuery)
		want []*adcamp.Change
	}{
		{"with the account's own", func(q *store.ChangeQuery) { q.Environments = []adcamp.Environment{adcamp.Production, ""} },
			[]*adcamp.Change{all[6], all[5], all[2], all[1], all[0]}},
		{"sandbox", func(q *store.ChangeQuery) { q.Environments = []adcamp.Environment{adcamp.Sandbox} }, all[3:4]},
		{"campaign", func(q *store.ChangeQuery) { q.CampaignID = cmp }, []*adcamp.Change{all[2], all[1], all[0]}},
		{"ad group", func(q *store.ChangeQuery) { q.AdGroupID = adg }, []*adcamp.Change{all[2], all[1]}},
		{"entity", func(q *store.ChangeQuery) { q.EntityID = kw }, all[2:3]},
		{"entity type", func(q *store.ChangeQuery) { q.EntityType = adcamp.EntityAdGroup }, all[1:2]},
		{"actor type", func(q *store.ChangeQuery) { q.ActorType = adcamp.ActorUser }, []*adcamp.Change{all[6], all[2]}},
		{"actor", func(q *store.ChangeQuery) { q.ActorType, q.ActorID = key.Type, key.ID }, []*adcamp.Change{all[1], all[0]}},
		{"since", func(q *store.ChangeQuery) { q.From = adcamp.ChangeIDBound(all[1].OccurredAt) }, []*adcamp.Change{all[6], all[2], all[1]}},
		{"page", func(q *store.ChangeQuery) { q.Before, q.Limit = all[2].ID, 1 }, all[1:2]},
		{"until", func(q *store.ChangeQuery) { q.Before = adcamp.ChangeIDBound(all[1].OccurredAt) }, all[0:1]},
		{"another account's campaign", func(q *store.ChangeQuery) { q.EntityID = all[4].EntityID }, nil},
	} {
		q := q
		tc.edit(&q)
		sameIDs(t, "ListChanges("+tc.name+")", idsOf(listChanges(t, db, q), changeID), idsOf(tc.want, changeID))
	}

	var n int64
	write(t, db, func(tx store.Tx) (err error) {
		n, err = tx.PurgeChanges(ctx, adcamp.ChangeIDBound(all[5].OccurredAt), 2)
		return err
	})
	if n != 2 {
		t.Errorf("PurgeChanges(before at(5), 2) = %d, want 2", n)
	}
	write(t, db, func(tx store.Tx) (err error) {
		n, err = tx.PurgeChanges(ctx, adcamp.ChangeIDBound(all[5].OccurredAt), 100)
		return err
	})
	if n != 3 {
		t.Errorf("PurgeChanges(before at(5), 100) = %d, want 3", n)
	}
	q.Environments = []adcamp.Environment{adcamp.Production, ""}
	sameIDs(t, "ListChanges after purge", idsOf(listChanges(t, db, q), changeID), idsOf([]*adcamp.Change{all[6], all[5]}, changeID))
}

// testSubtreeAndDue: what a cascade deletes is listed before it goes, and
// campaigns past their end date are found and ended without a new
// version.
func testSubtreeAndDue(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, tn, at(0), func(c *adcamp.Campaign) { c.EndDate = day("2026-11-20") })
	keep := newCampaign(t, db, tn, at(1), nil)
	g1, g2 := newAdGroup(t, db, c, at(2)), newAdGroup(t, db, c, at(3))
	k1 := newKeywords(t, db, g1, at(4), "red shoes", "blue shoes")
	k2 := newKeywords(t, db, g2, at(5), "green")
	newKeywords(t, db, newAdGroup(t, db, keep, at(6)), at(7), "elsewhere")

	var groups []*adcamp.AdGroup
	var keywords []*adcamp.Keyword
	read(t, db, func(tx store.Tx) (err error) {
		groups, keywords, err = tx.Subtree(ctx, tn, c.ID, "")
		return err
	})
	same(t, "Subtree(campaign) ad groups", groups, []*adcamp.AdGroup{g1, g2})
	want := append(append([]*adcamp.Keyword{}, k1...), k2...)
	if len(keywords) != 3 {
		t.Fatalf("Subtree(campaign) keywords = %d, want 3", len(keywords))
	}
	sameIDs(t, "Subtree(campaign) keywords", sortedIDs(idsOf(keywords, keywordID)), sortedIDs(idsOf(want, keywordID)))
	read(t, db, func(tx store.Tx) (err error) {
		groups, keywords, err = tx.Subtree(ctx, tn, "", g2.ID)
		return err
	})
	same(t, "Subtree(ad group) keywords", keywords, k2)
	if len(groups) != 0 {
		t.Errorf("Subtree(ad group) ad groups = %d, want 0", len(groups))
	}
	read(t, db, func(tx store.Tx) (err error) {
		groups, keywords, err = tx.Subtree(ctx, adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}, c.ID, "")
		return err
	})
	if len(groups)+len(keywords) != 0 {
		t.Errorf("Subtree(campaign) in the other environment = %d, %d, want none", len(groups), len(keywords))
	}

	var due []*adcamp.Campaign
	write(t, db, func(tx store.Tx) (err error) {
		if due, err = tx.DueCampaigns(ctx, today, 10); err != nil {
			return err
		}
		return tx.SetCampaignsEnded(ctx, idsOf(due, campaignID))
	})
	same(t, "DueCampaigns", due, []*adcamp.Campaign{c})
	got, err := getCampaign(t, db, tn, c.ID)
	if err != nil || got.Status != adcamp.StatusEnded || got.Version != 1 || !got.UpdatedAt.Equal(c.UpdatedAt) {
		t.Errorf("campaign after SetCampaignsEnded = %+v, %v; want ended at version 1", got, err)
	}
	write(t, db, func(tx store.Tx) (err error) {
		due, err = tx.DueCampaigns(ctx, today, 10)
		return err
	})
	if len(due) != 0 {
		t.Errorf("DueCampaigns after ending = %d campaigns, want none", len(due))
	}
}

func sortedIDs(ids []string) []string {
	slices.Sort(ids)
	return ids
}

func ptr(s string) *string { return &s }
