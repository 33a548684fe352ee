package storetest

import (
	"errors"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// testChildTotals checks that the totals of the lists of ad groups and of
// keywords, under every filter, follow every change to them: creates
// (keywords in batches), status and match type changes, an update that
// changes neither, a write that fails, deletes, and the deletes that
// cascade from an ad group and a campaign. The expected totals are
// counted from the test's own record of what is stored; another tenant
// sees none of them.
func testChildTotals(t *testing.T, db store.Store) {
	ctx := t.Context()
	a, b := newAccount(t, db, "Acme"), newAccount(t, db, "Other")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	other := adcamp.Tenant{AccountID: b.ID, Environment: adcamp.Production}
	c1, c2 := newCampaign(t, db, tn, at(0), nil), newCampaign(t, db, tn, at(1), nil)

	groups := map[string]*adcamp.AdGroup{}   // stored, by id
	keywords := map[string]*adcamp.Keyword{} // stored, by id
	check := func(when string) {
		t.Helper()
		for _, c := range []*adcamp.Campaign{c1, c2} {
			for _, status := range []adcamp.Status{"", adcamp.StatusActive, adcamp.StatusPaused} {
				var want int64
				for _, g := range groups {
					if g.CampaignID == c.ID && (status == "" || g.Status == status) {
						want++
					}
				}
				for _, q := range []store.ListQuery{{Status: status, Limit: 2}, {Status: status, Limit: 2, Offset: 50}} {
					if got := adGroupTotal(t, db, tn, c.ID, q); got != want {
						t.Errorf("%s: ListAdGroups(%s, %+v) total = %d, want %d", when, c.ID, q, got, want)
					}
					if got := adGroupTotal(t, db, other, c.ID, q); got != 0 {
						t.Errorf("%s: ListAdGroups(%s, %+v) as another account: total = %d, want 0", when, c.ID, q, got)
					}
				}
			}
		}
		seen := map[string]bool{}
		for _, k := range keywords {
			seen[k.AdGroupID] = true
		}
		for _, g := range groups {
			seen[g.ID] = true
		}
		for id := range seen {
			for _, status := range []adcamp.Status{"", adcamp.StatusActive, adcamp.StatusPaused} {
				for _, match := range []adcamp.MatchType{"", adcamp.MatchExact, adcamp.MatchPhrase, adcamp.MatchBroad} {
					var want int64
					for _, k := range keywords {
						if k.AdGroupID == id && (status == "" || k.Status == status) && (match == "" || k.MatchType == match) {
							want++
						}
					}
					for _, q := range []store.ListQuery{{Limit: 2}, {Limit: 2, Offset: 50}} {
						q.Status, q.MatchType = status, match
						if got := keywordTotal(t, db, tn, id, q); got != want {
							t.Errorf("%s: ListKeywords(%s, %+v) total = %d, want %d", when, id, q, got, want)
						}
						if got := keywordTotal(t, db, other, id, q); got != 0 {
							t.Errorf("%s: ListKeywords(%s, %+v) as another account: total = %d, want 0", when, id, q, got)
						}
					}
				}
			}
		}
	}
	setStatus := func(g *adcamp.AdGroup, status adcamp.Status) {
		g.Status = status
		g.Version++
		write(t, db, func(tx store.Tx) error { return tx.UpdateAdGroup(ctx, g, nil) })
	}
	updateKeyword := func(k *adcamp.Keyword, edit func(*adcamp.Keyword)) {
		edit(k)
		k.Version++
		write(t, db, func(tx store.Tx) error { return tx.UpdateKeyword(ctx, k, nil) })
	}

	var g1 []*adcamp.AdGroup // of c1
	for i := range 5 {
		g := newAdGroup(t, db, c1, at(10+i))
		groups[g.ID] = g
		g1 = append(g1, g)
	}
	g2 := newAdGroup(t, db, c2, at(20))
	groups[g2.ID] = g2
	setStatus(g1[1], adcamp.StatusPaused)
	setStatus(g1[3], adcamp.StatusPaused)
	ks := make([]*adcamp.Keyword, 0, 8)
	for i, text := range []string{"boots", "sandals", "loafers", "clogs", "slippers", "heels"} {
		k := keyword(g1[0], at(30+i), text)
		k.MatchType = []adcamp.MatchType{adcamp.MatchExact, adcamp.MatchExact, adcamp.MatchExact, adcamp.MatchPhrase, adcamp.MatchPhrase, adcamp.MatchBroad}[i]
		if i == 4 || i == 5 {
			k.Status = adcamp.StatusPaused
		}
		ks = append(ks, k)
	}
	ks = append(ks, keyword(g1[2], at(40), "boots"), keyword(g2, at(41), "hats"))
	write(t, db, func(tx store.Tx) error { return tx.CreateKeywords(ctx, ks) })
	for _, k := range ks {
		keywords[k.ID] = k
	}
	check("after creates")

	// A write that fails stores and counts none of its ad groups and keywords.
	err := db.Write(ctx, func(tx store.Tx) error {
		g := &adcamp.AdGroup{
			ID: adcamp.NewID(adcamp.PrefixAdGroup, at(50)), CampaignID: c1.ID, AccountID: tn.AccountID,
			Environment: tn.Environment, Name: "Rolled back", DefaultBid: 1, Status: adcamp.StatusActive, Version: 1,
			CreatedAt: at(50), UpdatedAt: at(50),
		}
		if err := tx.CreateAdGroup(ctx, g); err != nil {
			return err
		}
		if err := tx.CreateKeywords(ctx, []*adcamp.Keyword{keyword(g, at(51), "x"), keyword(g1[0], at(51), "y")}); err != nil {
			return err
		}
		return errors.New("changed my mind")
	})
	if err == nil {
		t.Fatal("a write whose fn failed returned nil")
	}
	check("after a failed write")

	setStatus(g1[0], adcamp.StatusPaused)
	setStatus(g1[1], adcamp.StatusActive)
	updateKeyword(ks[0], func(k *adcamp.Keyword) { k.Status = adcamp.StatusPaused })
	updateKeyword(ks[3], func(k *adcamp.Keyword) { k.MatchType = adcamp.MatchBroad })
	updateKeyword(ks[4], func(k *adcamp.Keyword) { k.MatchType, k.Status = adcamp.MatchExact, adcamp.StatusActive })
	updateKeyword(ks[1], func(k *adcamp.Keyword) { k.Text = "Sandals" }) // neither status nor match type
	check("after status and match type changes")

	write(t, db, func(tx store.Tx) error { return tx.DeleteKeyword(ctx, tn, ks[2].ID) })
	delete(keywords, ks[2].ID)
	check("after deleting a keyword")

	write(t, db, func(tx store.Tx) error { return tx.DeleteAdGroup(ctx, tn, g1[0].ID) })
	delete(groups, g1[0].ID)
	for id, k := range keywords {
		if k.AdGroupID == g1[0].ID {
			delete(keywords, id)
		}
	}
	check("after deleting an ad group with keywords")

	write(t, db, func(tx store.Tx) error { return tx.DeleteCampaign(ctx, tn, c2.ID) })
	delete(groups, g2.ID)
	delete(keywords, ks[7].ID)
	check("after deleting a campaign")
}

func adGroupTotal(t *testing.T, db store.Store, tn adcamp.Tenant, campaignID string, q store.ListQuery) int64 {
	ctx := t.Context()
	t.Helper()
	return listTotal(t, db, func(tx store.Tx) (n int, total int64, err error) {
		items, total, err := tx.ListAdGroups(ctx, tn, campaignID, q)
		return len(items), total, err
	})
}

func keywordTotal(t *testing.T, db store.Store, tn adcamp.Tenant, adGroupID string, q store.ListQuery) int64 {
	ctx := t.Context()
	t.Helper()
	return listTotal(t, db, func(tx store.Tx) (n int, total int64, err error) {
		items, total, err := tx.ListKeywords(ctx, tn, adGroupID, q)
		return len(items), total, err
	})
}

// listTotal runs list in Read and in ReadOne, which must answer alike, and
// returns the total.
func listTotal(t *testing.T, db store.Store, list func(tx store.Tx) (n int, total int64, err error)) int64 {
	ctx := t.Context()
	t.Helper()
	var n, oneN int
	var total, oneTotal int64
	read(t, db, func(tx store.Tx) (err error) {
		n, total, err = list(tx)
		return err
	})
	err := db.ReadOne(ctx, func(tx store.Tx) (err error) {
		oneN, oneTotal, err = list(tx)
		return err
	})
	if err != nil || oneN != n || oneTotal != total {
		t.Errorf("ReadOne listed %d of %d (%v); Read listed %d of %d", oneN, oneTotal, err, n, total)
	}
	return total
}
