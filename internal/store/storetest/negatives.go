package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// negativeTests are the suite's tests of negative keywords and shared
// lists (issue 35).
var negativeTests = []struct {
	name string
	fn   func(t *testing.T, db store.Store)
}{
	{"Negatives", testNegatives},
	{"NegativeLists", testNegativeLists},
	{"NegativesCascade", testNegativesCascade},
}

func newList(t *testing.T, db store.Store, tn adcamp.Tenant, created time.Time, name string) *adcamp.NegativeList {
	t.Helper()
	l := &adcamp.NegativeList{ID: adcamp.NewID(adcamp.PrefixNegativeList, created), AccountID: tn.AccountID,
		Environment: tn.Environment, Name: name, Version: 1, CreatedAt: created, UpdatedAt: created}
	write(t, db, func(tx store.Tx) error { return tx.CreateNegativeList(t.Context(), l) })
	return l
}

// negative is a negative under tmpl's parent.
func negative(tmpl adcamp.NegativeKeyword, created time.Time, m adcamp.MatchType, text string) *adcamp.NegativeKeyword {
	n := tmpl
	n.ID, n.Text, n.MatchType, n.Status, n.Version, n.CreatedAt, n.UpdatedAt =
		adcamp.NewID(adcamp.PrefixNegativeKeyword, created), text, m, adcamp.StatusActive, 1, created, created
	return &n
}

func newNegatives(t *testing.T, db store.Store, ns ...*adcamp.NegativeKeyword) []*adcamp.NegativeKeyword {
	t.Helper()
	write(t, db, func(tx store.Tx) error { return tx.CreateNegatives(t.Context(), ns) })
	return ns
}

func negativeID(n *adcamp.NegativeKeyword) string { return n.ID }

func testNegatives(t *testing.T, db store.Store) {
	ctx := t.Context()
	a, other := newAccount(t, db, "Acme"), newAccount(t, db, "Other")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, tn, at(0), nil)
	g := newAdGroup(t, db, c, at(1))
	inGroup := adcamp.NegativeKeyword{AccountID: a.ID, Environment: tn.Environment, CampaignID: c.ID, AdGroupID: g.ID}
	inCampaign := adcamp.NegativeKeyword{AccountID: a.ID, Environment: tn.Environment, CampaignID: c.ID}
	gn := newNegatives(t, db, negative(inGroup, at(2), adcamp.MatchExact, "Cheap Shoes"),
		negative(inGroup, at(3), adcamp.MatchPhrase, "free"), negative(inGroup, at(4), adcamp.MatchExact, "used"))
	cn := newNegatives(t, db, negative(inCampaign, at(5), adcamp.MatchPhrase, "cheap shoes"))

	// The same text (as folded) and match type in the same parent is a
	// duplicate, also in one batch; another match type or parent is not.
	for name, ns := range map[string][]*adcamp.NegativeKeyword{
		"taken":         {negative(inGroup, at(6), adcamp.MatchExact, "  CHEAP\u00a0shoes ")},
		"within batch":  {negative(inGroup, at(6), adcamp.MatchExact, "x"), negative(inGroup, at(6), adcamp.MatchExact, "X")},
		"campaign-wide": {negative(inCampaign, at(6), adcamp.MatchPhrase, "Cheap  Shoes")},
	} {
		err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateNegatives(ctx, ns) })
		wantCode(t, "CreateNegatives "+name, err, adcamp.CodeDuplicateKeyword)
	}
	newNegatives(t, db, negative(inGroup, at(6), adcamp.MatchPhrase, "cheap shoes"))

	read(t, db, func(tx store.Tx) error {
		taken, err := tx.TakenNegativeKeys(ctx, g.ID, "", []store.KeywordKey{
			{MatchType: adcamp.MatchExact, TextKey: "cheap shoes"}, {MatchType: adcamp.MatchExact, TextKey: "free"},
			{MatchType: adcamp.MatchPhrase, TextKey: "free"}})
		same(t, "TakenNegativeKeys", taken, map[store.KeywordKey]bool{
			{MatchType: adcamp.MatchExact, TextKey: "cheap shoes"}: true, {MatchType: adcamp.MatchPhrase, TextKey: "free"}: true})
		if err != nil {
			t.Error(err)
		}
		taken, _ = tx.TakenNegativeKeys(ctx, g.ID, gn[0].ID, []store.KeywordKey{{MatchType: adcamp.MatchExact, TextKey: "cheap shoes"}})
		same(t, "TakenNegativeKeys except itself", taken, map[store.KeywordKey]bool{})

		list, total, err := tx.ListNegatives(ctx, tn, g.ID, store.ListQuery{Limit: 2})
		if err != nil || total != 4 || len(list) != 2 {
			t.Errorf("ListNegatives page 1 = %d items of %d, %v; want 2 of 4", len(list), total, err)
		}
		list, total, _ = tx.ListNegatives(ctx, tn, g.ID, store.ListQuery{Limit: 10, MatchType: adcamp.MatchExact})
		sameIDs(t, "ListNegatives exact", idsOf(list, negativeID), []string{gn[2].ID, gn[0].ID})
		if total != 2 {
			t.Errorf("ListNegatives exact total = %d, want 2", total)
		}
		list, _, _ = tx.ListNegatives(ctx, tn, c.ID, store.ListQuery{Limit: 10})
		sameIDs(t, "ListNegatives of the campaign", idsOf(list, negativeID), []string{cn[0].ID})
		n, err := tx.CountNegatives(ctx, tn, g.ID)
		if n != 4 || err != nil {
			t.Errorf("CountNegatives = %d, %v; want 4", n, err)
		}
		// Another tenant sees nothing.
		ot := adcamp.Tenant{AccountID: other.ID, Environment: tn.Environment}
		_, err = tx.GetNegative(ctx, ot, gn[0].ID)
		wantCode(t, "GetNegative of another account", err, adcamp.CodeNotFound)
		_, err = tx.GetNegative(ctx, adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}, gn[0].ID)
		wantCode(t, "GetNegative of another environment", err, adcamp.CodeNotFound)
		list, total, _ = tx.ListNegatives(ctx, ot, g.ID, store.ListQuery{Limit: 10})
		if len(list) != 0 || total != 0 {
			t.Errorf("ListNegatives of another account = %d of %d, want none", len(list), total)
		}
		return nil
	})

	// A paused negative does not apply; status filters lists.
	paused := *gn[1]
	paused.Status, paused.Version, paused.UpdatedAt = adcamp.StatusPaused, 2, at(20)
	write(t, db, func(tx store.Tx) error { return tx.UpdateNegative(ctx, &paused) })
	err := db.Write(ctx, func(tx store.Tx) error { return tx.UpdateNegative(ctx, &paused) })
	wantCode(t, "UpdateNegative of a stale version", err, adcamp.CodePreconditionFailed)
	read(t, db, func(tx store.Tx) error {
		list, _, _ := tx.ListNegatives(ctx, tn, g.ID, store.ListQuery{Limit: 10, Status: adcamp.StatusPaused})
		sameIDs(t, "ListNegatives paused", idsOf(list, negativeID), []string{gn[1].ID})
		app, err := tx.ApplicableNegatives(ctx, tn, c.ID, g.ID)
		if err != nil {
			t.Error(err)
		}
		if len(app) != 4 { // 2 exact + "cheap shoes" phrase of the group + the campaign's
			t.Errorf("ApplicableNegatives = %d negatives, want 4: %s", len(app), show(idsOf(app, negativeID)))
		}
		return nil
	})

	// DeleteNegatives keeps to its parent and tenant.
	write(t, db, func(tx store.Tx) error {
		gone, err := tx.DeleteNegatives(ctx, tn, c.ID, []string{gn[0].ID})
		if len(gone) != 0 || err != nil {
			t.Errorf("DeleteNegatives under the wrong parent = %d, %v; want none", len(gone), err)
		}
		gone, err = tx.DeleteNegatives(ctx, adcamp.Tenant{AccountID: other.ID, Environment: tn.Environment}, "", []string{gn[0].ID})
		if len(gone) != 0 || err != nil {
			t.Errorf("DeleteNegatives of another account = %d, %v; want none", len(gone), err)
		}
		gone, err = tx.DeleteNegatives(ctx, tn, g.ID, []string{gn[0].ID, "nkw_missing"})
		sameIDs(t, "DeleteNegatives", idsOf(gone, negativeID), []string{gn[0].ID})
		return err
	})
}

func testNegativeLists(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}
	c := newCampaign(t, db, tn, at(0), nil)
	g := newAdGroup(t, db, c, at(1))
	kws := newKeywords(t, db, g, at(2), "red shoes", "blue shoes")
	l1, l2 := newList(t, db, tn, at(3), "Brands"), newList(t, db, tn, at(4), "Freebies")
	inL1 := adcamp.NegativeKeyword{AccountID: a.ID, Environment: tn.Environment, ListID: l1.ID}
	entries := newNegatives(t, db, negative(inL1, at(5), adcamp.MatchPhrase, "red"), negative(inL1, at(5), adcamp.MatchExact, "acme"))
	err := db.Write(ctx, func(tx store.Tx) error {
		return tx.CreateNegatives(ctx, []*adcamp.NegativeKeyword{negative(inL1, at(6), adcamp.MatchPhrase, "RED")})
	})
	wantCode(t, "CreateNegatives of a listed text", err, adcamp.CodeDuplicateKeyword)

	write(t, db, func(tx store.Tx) error {
		for _, want := range []bool{true, false} {
			ok, err := tx.AttachNegativeList(ctx, c.ID, l1.ID, at(7))
			if ok != want || err != nil {
				t.Errorf("AttachNegativeList = %v, %v; want %v", ok, err, want)
			}
		}
		_, err := tx.AttachNegativeList(ctx, c.ID, l2.ID, at(7))
		return err
	})
	read(t, db, func(tx store.Tx) error {
		ids, err := tx.AttachedLists(ctx, c.ID)
		if err != nil {
			t.Errorf("AttachedLists: %v", err)
		}
		want := []string{l1.ID, l2.ID}
		if l2.ID < l1.ID {
			want = []string{l2.ID, l1.ID}
		}
		sameIDs(t, "AttachedLists", ids, want)
		campaigns, _ := tx.CampaignsOfList(ctx, l1.ID)
		sameIDs(t, "CampaignsOfList", campaigns, []string{c.ID})
		got, err := tx.GetNegativeList(ctx, tn, l1.ID)
		if err != nil || got.Entries != 2 || got.Campaigns != 1 {
			t.Errorf("GetNegativeList = %s, %v; want 2 entries and 1 campaign", show(got), err)
		}
		lists, total, err := tx.ListNegativeLists(ctx, tn, store.ListQuery{Limit: 10})
		if total != 2 || err != nil {
			t.Errorf("ListNegativeLists total = %d, %v; want 2", total, err)
		}
		sameIDs(t, "ListNegativeLists", idsOf(lists, func(l *adcamp.NegativeList) string { return l.ID }), []string{l2.ID, l1.ID})
		app, _ := tx.ApplicableNegatives(ctx, tn, c.ID, g.ID)
		sameIDs(t, "ApplicableNegatives with a list", idsOf(app, negativeID), slices.Sorted(slices.Values(idsOf(entries, negativeID))))
		texts, err := tx.KeywordTexts(ctx, tn, []string{c.ID}, "", true)
		if len(texts) != 2 || err != nil {
			t.Errorf("KeywordTexts of the campaign = %v, %v", texts, err)
		}
		for _, k := range texts {
			if k.TextKey != adcamp.KeywordKey(k.Text) {
				t.Errorf("KeywordTexts: %q has the key %q, want %q", k.Text, k.TextKey, adcamp.KeywordKey(k.Text))
			}
		}
		keys, err := tx.ActiveNegativeKeys(ctx, tn, l1.ID)
		if len(keys) != 2 || err != nil {
			t.Errorf("ActiveNegativeKeys of the list = %v, %v; want its 2 entries", keys, err)
		}
		for _, n := range keys {
			if i := slices.IndexFunc(entries, func(e *adcamp.NegativeKeyword) bool { return e.ID == n.ID }); i < 0 ||
				n.TextKey != entries[i].TextKey() || n.MatchType != entries[i].MatchType {
				t.Errorf("ActiveNegativeKeys: %+v is no entry of the list as stored", n)
			}
		}
		places, err := tx.KeywordPlaces(ctx, tn, []string{kws[0].ID, "kw_missing"})
		if err != nil {
			t.Errorf("KeywordPlaces: %v", err)
		}
		same(t, "KeywordPlaces", places, map[string]store.KeywordPlace{kws[0].ID: {AdGroupID: g.ID, CampaignID: c.ID}})
		eff, err := store.EffectiveNegatives(ctx, tx, tn, []string{kws[0].ID, kws[1].ID})
		if err != nil || len(eff[kws[0].ID]) != 2 || len(eff[kws[1].ID]) != 2 {
			t.Errorf("EffectiveNegatives = %s, %v; want the list's 2 for each keyword", show(eff), err)
		}
		return err
	})
	write(t, db, func(tx store.Tx) error {
		ok, err := tx.DetachNegativeList(ctx, c.ID, l2.ID)
		if !ok || err != nil {
			t.Errorf("DetachNegativeList = %v, %v; want true", ok, err)
		}
		ok, _ = tx.DetachNegativeList(ctx, c.ID, l2.ID)
		if ok {
			t.Errorf("DetachNegativeList again = true, want false")
		}
		return tx.DeleteNegativeList(ctx, tn, l1.ID)
	})
	read(t, db, func(tx store.Tx) error {
		_, err := tx.GetNegative(ctx, tn, entries[0].ID)
		wantCode(t, "GetNegative of a deleted list's entry", err, adcamp.CodeNotFound)
		ids, _ := tx.AttachedLists(ctx, c.ID)
		sameIDs(t, "AttachedLists after the delete", ids, nil)
		return nil
	})
}

func testNegativesCascade(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, tn, at(0), nil)
	g1, g2 := newAdGroup(t, db, c, at(1)), newAdGroup(t, db, c, at(2))
	l := newList(t, db, tn, at(3), "Shared")
	in := func(g *adcamp.AdGroup) adcamp.NegativeKeyword {
		n := adcamp.NegativeKeyword{AccountID: a.ID, Environment: tn.Environment, CampaignID: c.ID}
		if g != nil {
			n.AdGroupID = g.ID
		}
		return n
	}
	n1 := newNegatives(t, db, negative(in(g1), at(4), adcamp.MatchExact, "one"))[0]
	n2 := newNegatives(t, db, negative(in(g2), at(4), adcamp.MatchExact, "two"))[0]
	nc := newNegatives(t, db, negative(in(nil), at(4), adcamp.MatchExact, "camp"))[0]
	entry := newNegatives(t, db, negative(adcamp.NegativeKeyword{AccountID: a.ID, Environment: tn.Environment, ListID: l.ID},
		at(4), adcamp.MatchExact, "kept"))[0]
	write(t, db, func(tx store.Tx) error {
		_, err := tx.AttachNegativeList(ctx, c.ID, l.ID, at(5))
		return err
	})
	read(t, db, func(tx store.Tx) error {
		under, _ := tx.NegativesUnder(ctx, tn, "", g1.ID)
		sameIDs(t, "NegativesUnder an ad group", idsOf(under, negativeID), []string{n1.ID})
		under, _ = tx.NegativesUnder(ctx, tn, c.ID, "")
		if len(under) != 3 {
			t.Errorf("NegativesUnder the campaign = %d, want 3", len(under))
		}
		return nil
	})
	write(t, db, func(tx store.Tx) error { return tx.DeleteAdGroup(ctx, tn, g1.ID) })
	read(t, db, func(tx store.Tx) error {
		_, err := tx.GetNegative(ctx, tn, n1.ID)
		wantCode(t, "GetNegative after its ad group's delete", err, adcamp.CodeNotFound)
		_, err = tx.GetNegative(ctx, tn, n2.ID)
		wantCode(t, "GetNegative of the other ad group", err, "no error")
		return nil
	})
	write(t, db, func(tx store.Tx) error { return tx.DeleteCampaign(ctx, tn, c.ID) })
	read(t, db, func(tx store.Tx) error {
		for _, n := range []*adcamp.NegativeKeyword{n2, nc} {
			_, err := tx.GetNegative(ctx, tn, n.ID)
			wantCode(t, "GetNegative after the campaign's delete", err, adcamp.CodeNotFound)
		}
		_, err := tx.GetNegative(ctx, tn, entry.ID)
		wantCode(t, "GetNegative of a list entry after the campaign's delete", err, "no error")
		got, err := tx.GetNegativeList(ctx, tn, l.ID)
		if err != nil || got.Campaigns != 0 {
			t.Errorf("GetNegativeList after the campaign's delete = %s, %v; want attached nowhere", show(got), err)
		}
		return nil
	})
}

// negatives stores a list and a negative with every field set (a list's
// entry that also names an ad group and its campaign, which the schema
// allows and the service never writes), reads both back through every
// call, and changes their fields one at a time.
func (r *roundTrip) negatives(c *adcamp.Campaign, g *adcamp.AdGroup, k *adcamp.Keyword) {
	ctx := r.t.Context()
	tn := adcamp.Tenant{AccountID: c.AccountID, Environment: c.Environment}
	l := &adcamp.NegativeList{ID: adcamp.NewID(adcamp.PrefixNegativeList, at(20)), AccountID: c.AccountID,
		Environment: c.Environment, Name: "Marken — ☂", Version: 1, CreatedAt: at(20), UpdatedAt: at(21)}
	r.writing(func(tx store.Tx) error { return tx.CreateNegativeList(ctx, l) })
	n := &adcamp.NegativeKeyword{ID: adcamp.NewID(adcamp.PrefixNegativeKeyword, at(22)), AccountID: c.AccountID,
		Environment: c.Environment, CampaignID: c.ID, AdGroupID: g.ID, ListID: l.ID, Text: "Schuhe „billig“",
		MatchType: adcamp.MatchExact, Status: adcamp.StatusActive, Version: 1, CreatedAt: at(22), UpdatedAt: at(23)}
	r.fixture("a negative keyword", n)
	r.writing(func(tx store.Tx) error { return tx.CreateNegatives(ctx, []*adcamp.NegativeKeyword{n}) })
	r.writing(func(tx store.Tx) error {
		_, err := tx.AttachNegativeList(ctx, c.ID, l.ID, at(24))
		return err
	})
	l.Entries, l.Campaigns = 1, 1 // what the store counts
	r.fixture("a negative keyword list (with an entry, attached)", l)
	r.reading(func(tx store.Tx) {
		got, err := tx.GetNegativeList(ctx, tn, l.ID)
		r.read("GetNegativeList", got, l, err)
		lists, _, err := tx.ListNegativeLists(ctx, tn, store.ListQuery{Limit: 10})
		r.read("ListNegativeLists", lists, []*adcamp.NegativeList{l}, err)
	})
	updateEach(r, "UpdateNegativeList", l, []string{"ID", "AccountID", "Environment", "Entries", "Campaigns", "CreatedAt"},
		func(tx store.Tx, next, _ *adcamp.NegativeList) error { return tx.UpdateNegativeList(ctx, next) },
		func(tx store.Tx) (*adcamp.NegativeList, error) { return tx.GetNegativeList(ctx, tn, l.ID) })
	updateEach(r, "UpdateNegative", n, []string{"ID", "AccountID", "Environment", "CampaignID", "AdGroupID", "ListID", "MatchType", "CreatedAt"},
		func(tx store.Tx, next, _ *adcamp.NegativeKeyword) error { return tx.UpdateNegative(ctx, next) },
		func(tx store.Tx) (*adcamp.NegativeKeyword, error) { return tx.GetNegative(ctx, tn, n.ID) })
	r.reading(func(tx store.Tx) {
		got, err := tx.GetNegative(ctx, tn, n.ID)
		r.read("GetNegative", got, n, err)
		list, _, err := tx.ListNegatives(ctx, tn, l.ID, store.ListQuery{Limit: 10})
		r.read("ListNegatives", list, []*adcamp.NegativeKeyword{n}, err)
		under, err := tx.NegativesUnder(ctx, tn, c.ID, "")
		r.read("NegativesUnder", under, []*adcamp.NegativeKeyword{n}, err)
		app, err := tx.ApplicableNegatives(ctx, tn, c.ID, g.ID)
		r.read("ApplicableNegatives", app, []*adcamp.NegativeKeyword{n}, err)
	})
	r.writing(func(tx store.Tx) error {
		gone, err := tx.DeleteNegatives(ctx, tn, l.ID, []string{n.ID})
		r.read("DeleteNegatives", gone, []*adcamp.NegativeKeyword{n}, err)
		return nil
	})
}
