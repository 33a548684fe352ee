package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// testDeepPages pages through lists long enough that their later pages
// are read as a store may read deep pages, differently from the first
// ones (SQLite takes their ids from the index first): every page, all or
// filtered, holds the right rows in the right order, and the pages
// together hold each row once.
func testDeepPages(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	const n = 260
	var campaigns, paused []*adcamp.Campaign
	write(t, db, func(tx store.Tx) error {
		for i := range n {
			created := at(i / 3) // three to a second: ties ordered by id
			c := &adcamp.Campaign{
				ID: adcamp.NewID(adcamp.PrefixCampaign, created), AccountID: tn.AccountID, Environment: tn.Environment,
				Name: fmt.Sprintf("Campaign %d", i), BudgetDaily: 100, Marketplace: "US", Status: adcamp.StatusActive,
				Version: 1, CreatedAt: created, UpdatedAt: created,
			}
			if i%2 == 1 {
				c.Status = adcamp.StatusPaused
				paused = append(paused, c)
			}
			campaigns = append(campaigns, c)
			if err := tx.CreateCampaign(ctx, c); err != nil {
				return err
			}
		}
		return nil
	})
	pages := func(name string, want []string, list func(q store.ListQuery) ([]string, int64)) {
		t.Helper()
		const size = 30
		var got []string
		for off := 0; off <= len(want)+size; off += size {
			ids, total := list(store.ListQuery{Limit: size, Offset: off, Today: day("2026-01-01")})
			if total != int64(len(want)) {
				t.Errorf("%s(offset %d) total = %d, want %d", name, off, total, len(want))
			}
			sameIDs(t, fmt.Sprintf("%s(offset %d)", name, off), ids, want[min(off, len(want)):min(off+size, len(want))])
			got = append(got, ids...)
		}
		sameIDs(t, name+" page by page", got, want)
	}
	pages("ListCampaigns", newest(campaigns, campaignCreated, campaignID), func(q store.ListQuery) ([]string, int64) {
		return listCampaigns(t, db, tn, q)
	})
	pages("ListCampaigns(paused)", newest(paused, campaignCreated, campaignID), func(q store.ListQuery) ([]string, int64) {
		q.Status = adcamp.StatusPaused
		return listCampaigns(t, db, tn, q)
	})

	c := campaigns[0]
	var groups []*adcamp.AdGroup
	for i := range 130 {
		groups = append(groups, newAdGroup(t, db, c, at(i/2)))
	}
	pages("ListAdGroups", newest(groups, func(g *adcamp.AdGroup) time.Time { return g.CreatedAt },
		func(g *adcamp.AdGroup) string { return g.ID }), func(q store.ListQuery) (ids []string, total int64) {
		read(t, db, func(tx store.Tx) error {
			gs, tot, err := tx.ListAdGroups(ctx, tn, c.ID, q)
			ids, total = idsOf(gs, func(g *adcamp.AdGroup) string { return g.ID }), tot
			return err
		})
		return ids, total
	})

	texts := make([]string, 130)
	for i := range texts {
		texts[i] = fmt.Sprintf("keyword %d", i)
	}
	g := groups[0]
	ks := newKeywords(t, db, g, at(7), texts...)
	pages("ListKeywords", newest(ks, keywordCreated, keywordID), func(q store.ListQuery) (ids []string, total int64) {
		read(t, db, func(tx store.Tx) error {
			page, tot, err := tx.ListKeywords(ctx, tn, g.ID, q)
			ids, total = idsOf(page, keywordID), tot
			return err
		})
		return ids, total
	})
}
