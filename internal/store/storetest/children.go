package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

func newAdGroup(t *testing.T, db store.Store, c *adcamp.Campaign, created time.Time) *adcamp.AdGroup {
	ctx := t.Context()
	t.Helper()
	g := &adcamp.AdGroup{
		ID: adcamp.NewID(adcamp.PrefixAdGroup, created), CampaignID: c.ID, AccountID: c.AccountID,
		Environment: c.Environment, Name: "Shoes", DefaultBid: 75, Status: adcamp.StatusActive, Version: 1,
		CreatedAt: created, UpdatedAt: created,
	}
	write(t, db, func(tx store.Tx) error { return tx.CreateAdGroup(ctx, g) })
	return g
}

// keyword is an exact-match keyword under g, not yet stored.
func keyword(g *adcamp.AdGroup, created time.Time, text string) *adcamp.Keyword {
	return &adcamp.Keyword{
		ID: adcamp.NewID(adcamp.PrefixKeyword, created), AdGroupID: g.ID, AccountID: g.AccountID,
		Environment: g.Environment, Text: text, MatchType: adcamp.MatchExact, Status: adcamp.StatusActive,
		Version: 1, CreatedAt: created, UpdatedAt: created,
	}
}

// newKeywords stores one exact-match keyword per text under g.
func newKeywords(t *testing.T, db store.Store, g *adcamp.AdGroup, created time.Time, texts ...string) []*adcamp.Keyword {
	ctx := t.Context()
	t.Helper()
	ks := make([]*adcamp.Keyword, len(texts))
	for i, text := range texts {
		ks[i] = keyword(g, created, text)
	}
	write(t, db, func(tx store.Tx) error { return tx.CreateKeywords(ctx, ks) })
	return ks
}

func keywordID(k *adcamp.Keyword) string         { return k.ID }
func keywordCreated(k *adcamp.Keyword) time.Time { return k.CreatedAt }

func testAdGroups(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c, other := newCampaign(t, db, tn, at(0), nil), newCampaign(t, db, tn, at(0), nil)
	var groups []*adcamp.AdGroup
	for i := range 5 {
		g := newAdGroup(t, db, c, at(i))
		if i%2 == 1 {
			g.Status, g.Version = adcamp.StatusPaused, 2
			write(t, db, func(tx store.Tx) error { return tx.UpdateAdGroup(ctx, g, nil) })
		}
		groups = append(groups, g)
	}
	newAdGroup(t, db, other, at(9))
	id := func(g *adcamp.AdGroup) string { return g.ID }
	created := func(g *adcamp.AdGroup) time.Time { return g.CreatedAt }

	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetAdGroup(ctx, tn, groups[3].ID)
		if err != nil {
			t.Fatalf("GetAdGroup: %v", err)
		}
		same(t, "GetAdGroup", got, groups[3])
		_, err = tx.GetAdGroup(ctx, tn, "adg_missing")
		wantCode(t, "GetAdGroup(missing)", err, adcamp.CodeNotFound)

		for _, tc := range []struct {
			q    store.ListQuery
			want []*adcamp.AdGroup
		}{
			{store.ListQuery{Limit: 10}, groups},
			{store.ListQuery{Status: adcamp.StatusPaused, Limit: 10}, []*adcamp.AdGroup{groups[1], groups[3]}},
			{store.ListQuery{Status: adcamp.StatusActive, Limit: 2, Offset: 1}, []*adcamp.AdGroup{groups[0], groups[2], groups[4]}},
		} {
			page, total, err := tx.ListAdGroups(ctx, tn, c.ID, tc.q)
			if err != nil {
				t.Fatalf("ListAdGroups(%+v): %v", tc.q, err)
			}
			want := newest(tc.want, created, id)
			want = want[min(tc.q.Offset, len(want)):min(tc.q.Offset+tc.q.Limit, len(want))]
			sameIDs(t, fmt.Sprintf("ListAdGroups(%+v)", tc.q), idsOf(page, id), want)
			if total != int64(len(tc.want)) {
				t.Errorf("ListAdGroups(%+v) total = %d, want %d", tc.q, total, len(tc.want))
			}
		}
		return nil
	})
}

func testKeywords(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}
	g := newAdGroup(t, db, newCampaign(t, db, tn, at(0), nil), at(0))

	// A batch larger than any one statement of either store, with and
	// without bids, of every match type and status.
	const n = 1000
	matchTypes := adcamp.MatchTypes
	ks := make([]*adcamp.Keyword, n)
	for i := range ks {
		k := keyword(g, at(i%7), fmt.Sprintf("keyword %d", i))
		k.MatchType = matchTypes[i%3]
		if i%2 == 0 {
			bid := adcamp.Money(i + 1)
			k.Bid = &bid
		}
		if i%5 == 0 {
			k.Status = adcamp.StatusPaused
		}
		ks[i] = k
	}
	write(t, db, func(tx store.Tx) error { return tx.CreateKeywords(ctx, ks) })

	read(t, db, func(tx store.Tx) error {
		for _, want := range []*adcamp.Keyword{ks[0], ks[1], ks[n-1]} {
			got, err := tx.GetKeyword(ctx, tn, want.ID)
			if err != nil {
				t.Fatalf("GetKeyword(%s): %v", want.ID, err)
			}
			same(t, "GetKeyword", got, want)
		}
		_, err := tx.GetKeyword(ctx, tn, "kw_missing")
		wantCode(t, "GetKeyword(missing)", err, adcamp.CodeNotFound)

		for _, q := range []store.ListQuery{
			{Limit: 100, Offset: 900},
			{MatchType: adcamp.MatchPhrase, Limit: 50},
			{Status: adcamp.StatusPaused, MatchType: adcamp.MatchBroad, Limit: 100, Offset: 10},
		} {
			var want []*adcamp.Keyword
			for _, k := range ks {
				if (q.Status == "" || k.Status == q.Status) && (q.MatchType == "" || k.MatchType == q.MatchType) {
					want = append(want, k)
				}
			}
			page, total, err := tx.ListKeywords(ctx, tn, g.ID, q)
			if err != nil {
				t.Fatalf("ListKeywords(%+v): %v", q, err)
			}
			wantIDs := newest(want, keywordCreated, keywordID)
			wantIDs = wantIDs[min(q.Offset, len(wantIDs)):min(q.Offset+q.Limit, len(wantIDs))]
			sameIDs(t, fmt.Sprintf("ListKeywords(%+v)", q), idsOf(page, keywordID), wantIDs)
			if total != int64(len(want)) {
				t.Errorf("ListKeywords(%+v) total = %d, want %d", q, total, len(want))
			}
		}
		groups, keywords, err := tx.CountChildren(ctx, tn, "", g.ID)
		if groups != 0 || keywords != n || err != nil {
			t.Errorf("CountChildren(ad group) = %d, %d, %v; want 0, %d", groups, keywords, err, n)
		}
		return nil
	})
}

func testDuplicateKeywords(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, tn, at(0), nil)
	g, g2 := newAdGroup(t, db, c, at(0)), newAdGroup(t, db, c, at(1))
	first := newKeywords(t, db, g, at(1), "Straße", "red shoes")

	count := func() int64 {
		var n int64
		read(t, db, func(tx store.Tx) (err error) {
			_, n, err = tx.CountChildren(ctx, tn, "", g.ID)
			return err
		})
		return n
	}
	// The same text key in another match type or ad group is no duplicate.
	phrase := keyword(g, at(2), "STRASSE")
	phrase.MatchType = adcamp.MatchPhrase
	write(t, db, func(tx store.Tx) error {
		return tx.CreateKeywords(ctx, []*adcamp.Keyword{phrase, keyword(g2, at(2), "STRASSE")})
	})

	batch := []*adcamp.Keyword{keyword(g, at(3), "blue shoes"), keyword(g, at(3), "STRASSE")}
	err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateKeywords(ctx, batch) })
	wantCode(t, "CreateKeywords(STRASSE after Straße)", err, adcamp.CodeDuplicateKeyword)
	if n := count(); n != 3 {
		t.Errorf("keywords after a refused batch = %d, want 3 (nothing of the batch)", n)
	}

	moved := *first[1]
	moved.Text, moved.Version = "  STRASSE ", 2
	err = db.Write(ctx, func(tx store.Tx) error { return tx.UpdateKeyword(ctx, &moved, nil) })
	wantCode(t, "UpdateKeyword(to a taken text)", err, adcamp.CodeDuplicateKeyword)
	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetKeyword(ctx, tn, first[1].ID)
		if err != nil {
			return err
		}
		same(t, "GetKeyword after a refused update", got, first[1])
		return nil
	})
}

func testTakenKeywordKeys(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, tn, at(0), nil)
	g, g2 := newAdGroup(t, db, c, at(0)), newAdGroup(t, db, c, at(0))
	ks := newKeywords(t, db, g, at(1), "Straße", "red shoes", "blue shoes")
	newKeywords(t, db, g2, at(1), "green shoes")

	// More keys than one query of either store takes.
	var keys []store.KeywordKey
	for i := range 1200 {
		keys = append(keys, store.KeywordKey{MatchType: adcamp.MatchExact, TextKey: fmt.Sprintf("free %d", i)})
	}
	keys = append(keys,
		store.KeywordKey{MatchType: adcamp.MatchExact, TextKey: adcamp.KeywordKey("STRASSE")},
		store.KeywordKey{MatchType: adcamp.MatchExact, TextKey: "red shoes"},
		store.KeywordKey{MatchType: adcamp.MatchExact, TextKey: "blue shoes"},
		store.KeywordKey{MatchType: adcamp.MatchPhrase, TextKey: "red shoes"},  // other match type
		store.KeywordKey{MatchType: adcamp.MatchExact, TextKey: "green shoes"}) // other ad group
	exact := func(text string) store.KeywordKey {
		return store.KeywordKey{MatchType: adcamp.MatchExact, TextKey: text}
	}

	read(t, db, func(tx store.Tx) error {
		for _, tc := range []struct {
			except string
			want   []store.KeywordKey
		}{
			{"", []store.KeywordKey{exact(adcamp.KeywordKey("Straße")), exact("red shoes"), exact("blue shoes")}},
			{ks[1].ID, []store.KeywordKey{exact(adcamp.KeywordKey("Straße")), exact("blue shoes")}},
		} {
			taken, err := tx.TakenKeywordKeys(ctx, g.ID, tc.except, keys)
			if err != nil {
				t.Fatalf("TakenKeywordKeys: %v", err)
			}
			for _, k := range keys {
				want := false
				for _, w := range tc.want {
					want = want || w == k
				}
				if taken[k] != want {
					t.Errorf("TakenKeywordKeys(except %q)[%v] = %v, want %v", tc.except, k, taken[k], want)
				}
			}
		}
		taken, err := tx.TakenKeywordKeys(ctx, g.ID, "", nil)
		if err != nil || len(taken) != 0 {
			t.Errorf("TakenKeywordKeys(no keys) = %v, %v; want an empty map", taken, err)
		}
		return nil
	})
}

func testDeleteCascades(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c, keep := newCampaign(t, db, tn, at(0), nil), newCampaign(t, db, tn, at(0), nil)
	g1, g2, gKeep := newAdGroup(t, db, c, at(1)), newAdGroup(t, db, c, at(2)), newAdGroup(t, db, keep, at(2))
	k1 := newKeywords(t, db, g1, at(3), "a", "b")
	k2 := newKeywords(t, db, g2, at(3), "c", "d", "e")
	kKeep := newKeywords(t, db, gKeep, at(3), "f")
	k3 := newKeywords(t, db, g2, at(4), "g")[0]

	wantCount := func(call string, campaignID, adGroupID string, groups, keywords int64) {
		t.Helper()
		read(t, db, func(tx store.Tx) error {
			g, k, err := tx.CountChildren(ctx, tn, campaignID, adGroupID)
			if g != groups || k != keywords || err != nil {
				t.Errorf("CountChildren %s = %d, %d, %v; want %d, %d", call, g, k, err, groups, keywords)
			}
			return nil
		})
	}
	gone := func(what string, get func(tx store.Tx) error) {
		t.Helper()
		read(t, db, func(tx store.Tx) error {
			wantCode(t, "Get "+what, get(tx), adcamp.CodeNotFound)
			return nil
		})
	}
	wantCount("of the campaign", c.ID, "", 2, 6)
	wantCount("of an ad group", "", g2.ID, 0, 4)

	write(t, db, func(tx store.Tx) error { return tx.DeleteKeyword(ctx, tn, k3.ID) })
	gone("of a deleted keyword", func(tx store.Tx) error { _, err := tx.GetKeyword(ctx, tn, k3.ID); return err })
	wantCode(t, "DeleteKeyword(deleted)", db.Write(ctx, func(tx store.Tx) error { return tx.DeleteKeyword(ctx, tn, k3.ID) }),
		adcamp.CodeNotFound)

	write(t, db, func(tx store.Tx) error { return tx.DeleteAdGroup(ctx, tn, g1.ID) })
	gone("of a deleted ad group", func(tx store.Tx) error { _, err := tx.GetAdGroup(ctx, tn, g1.ID); return err })
	gone("of a deleted ad group's keyword", func(tx store.Tx) error { _, err := tx.GetKeyword(ctx, tn, k1[0].ID); return err })
	wantCount("after deleting an ad group", c.ID, "", 1, 3)

	write(t, db, func(tx store.Tx) error { return tx.DeleteCampaign(ctx, tn, c.ID) })
	gone("of a deleted campaign", func(tx store.Tx) error { _, err := tx.GetCampaign(ctx, tn, c.ID); return err })
	gone("of a deleted campaign's ad group", func(tx store.Tx) error { _, err := tx.GetAdGroup(ctx, tn, g2.ID); return err })
	gone("of a deleted campaign's keyword", func(tx store.Tx) error { _, err := tx.GetKeyword(ctx, tn, k2[2].ID); return err })
	wantCode(t, "DeleteCampaign(deleted)", db.Write(ctx, func(tx store.Tx) error { return tx.DeleteCampaign(ctx, tn, c.ID) }),
		adcamp.CodeNotFound)
	wantCode(t, "DeleteAdGroup(deleted)", db.Write(ctx, func(tx store.Tx) error { return tx.DeleteAdGroup(ctx, tn, g2.ID) }),
		adcamp.CodeNotFound)

	// The other campaign keeps everything.
	wantCount("of the other campaign", keep.ID, "", 1, 1)
	read(t, db, func(tx store.Tx) error {
		_, err := tx.GetKeyword(ctx, tn, kKeep[0].ID)
		if err != nil {
			t.Errorf("GetKeyword under the other campaign = %v, want it kept", err)
		}
		return nil
	})
}
