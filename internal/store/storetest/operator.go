package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// operatorTests are the suite's tests of store.OperatorTx.
var operatorTests = []struct {
	name string
	fn   func(t *testing.T, db store.Store)
}{
	{"OperatorKeys", testOperatorKeys},
	{"AccountTimeZone", testAccountTimeZone},
	{"Delivery", testDelivery},
	{"DeliveryKeywordsAfterDeletes", testDeliveryKeywordsAfterDeletes},
	{"CampaignListSpend", testCampaignListSpend},
}

// testCampaignListSpend: a page of campaigns with their spend
// (ListCampaignsSpend) is ListCampaigns with CampaignSpend of its
// campaigns, on a first page, pages from the 100th campaign on (where
// SQLite reads a page in two steps), past the end, and filtered by status.
func testCampaignListSpend(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	var cs []*adcamp.Campaign
	for i := range 110 {
		cs = append(cs, newCampaign(t, db, tn, at(i), func(c *adcamp.Campaign) {
			if i%3 == 0 {
				c.Status = adcamp.StatusPaused
			}
		}))
	}
	h0 := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	var rows []store.DeliveryRow
	for i, c := range cs {
		if i%4 == 1 {
			continue // no figures: no spend
		}
		place := store.DeliveryKeyword{AccountID: a.ID, Environment: tn.Environment, CampaignID: c.ID, AdGroupID: "adg_spend"}
		for h := range 3 { // the hour before h0, h0 and the next: two in [h0, h0+2h)
			rows = append(rows, store.DeliveryRow{KeywordID: fmt.Sprintf("kw_spend_%d_%d", i, h),
				Hour: h0.Add(time.Duration(h-1) * time.Hour), DeliveryKeyword: place,
				Impressions: 10, Clicks: 1, Cost: adcamp.Money(1000*i + 10*h + 1)})
		}
	}
	write(t, db, func(tx store.Tx) error { return tx.PutDelivery(ctx, rows, base) })
	from, to := h0, h0.Add(2*time.Hour)
	today := adcamp.DateOf(base)
	var spent int // campaigns listed with a spend
	for _, q := range []store.ListQuery{
		{Limit: 20}, {Limit: 20, Offset: 100}, {Limit: 7, Offset: 105}, {Limit: 20, Offset: 200},
		{Limit: 20, Status: adcamp.StatusPaused, Today: today}, {Limit: 20, Offset: 20, Status: adcamp.StatusActive, Today: today},
	} {
		read(t, db, func(tx store.Tx) error {
			want, wantTotal, err := tx.ListCampaigns(ctx, tn, q)
			if err != nil {
				return err
			}
			ids := make([]string, len(want))
			for i, c := range want {
				ids[i] = c.ID
			}
			m, err := tx.CampaignSpend(ctx, ids, from, to)
			if err != nil {
				return err
			}
			got, spend, total, err := tx.ListCampaignsSpend(ctx, tn, q, from, to)
			if err != nil {
				return err
			}
			what := fmt.Sprintf("ListCampaignsSpend(%+v)", q)
			same(t, what, got, want)
			if total != wantTotal || len(spend) != len(got) {
				t.Errorf("%s: total %d, %d spends of %d campaigns; want total %d", what, total, len(spend), len(got), wantTotal)
				return nil
			}
			for i, c := range got {
				if spend[i] != m[c.ID] {
					t.Errorf("%s: campaign %d (%s) spent %d, CampaignSpend says %d", what, i, c.ID, spend[i], m[c.ID])
				}
				if spend[i] != 0 {
					spent++
				}
			}
			return nil
		})
	}
	if spent == 0 {
		t.Error("no campaign listed with a spend: the test compares nothing")
	}
}

func testOperatorKeys(t *testing.T, db store.Store) {
	ctx := t.Context()
	used := base.Add(time.Minute)
	keys := []*store.OperatorKey{
		{ID: "opk_a", Name: "ad server", Secret: []byte("sealed a"), CreatedAt: base},
		{ID: "opk_b", Name: "other", Secret: []byte("sealed b"), CreatedAt: at(1), Disabled: true, LastUsedAt: &used},
	}
	for _, k := range keys {
		write(t, db, func(tx store.Tx) error { return tx.CreateOperatorKey(ctx, k) })
	}
	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetOperatorKey(ctx, "opk_b")
		if err != nil {
			t.Fatal(err)
		}
		same(t, "GetOperatorKey", got, keys[1])
		all, err := tx.ListOperatorKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "ListOperatorKeys", all, keys)
		_, err = tx.GetOperatorKey(ctx, "opk_missing")
		wantCode(t, "GetOperatorKey(missing)", err, adcamp.CodeNotFound)
		return nil
	})
	write(t, db, func(tx store.Tx) error { return tx.SetOperatorKeyDisabled(ctx, "opk_a", true) })
	write(t, db, func(tx store.Tx) error {
		wantCode(t, "SetOperatorKeyDisabled(missing)", tx.SetOperatorKeyDisabled(ctx, "opk_missing", true), adcamp.CodeNotFound)
		return tx.DeleteOperatorKey(ctx, "opk_b")
	})
	read(t, db, func(tx store.Tx) error {
		all, err := tx.ListOperatorKeys(ctx)
		if err != nil || len(all) != 1 || !all[0].Disabled {
			t.Errorf("ListOperatorKeys after disable and delete = %+v, %v; want opk_a disabled", all, err)
		}
		return nil
	})
	write(t, db, func(tx store.Tx) error {
		wantCode(t, "DeleteOperatorKey(missing)", tx.DeleteOperatorKey(ctx, "opk_b"), adcamp.CodeNotFound)
		return nil
	})
}

func testAccountTimeZone(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, base), Name: "Acme", CreatedAt: base}
	write(t, db, func(tx store.Tx) error { return tx.CreateAccount(ctx, a) })
	if a.TimeZone != "UTC" {
		t.Errorf("CreateAccount without a zone set TimeZone %q, want UTC", a.TimeZone)
	}
	write(t, db, func(tx store.Tx) error { return tx.SetAccountTimeZone(ctx, a.ID, "America/New_York") })
	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetAccount(ctx, a.ID)
		if err != nil || got.TimeZone != "America/New_York" {
			t.Errorf("GetAccount after SetAccountTimeZone = %+v, %v", got, err)
		}
		return nil
	})
	write(t, db, func(tx store.Tx) error {
		wantCode(t, "SetAccountTimeZone(missing)", tx.SetAccountTimeZone(ctx, "acc_missing", "UTC"), adcamp.CodeNotFound)
		return nil
	})
}

func testDelivery(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, tn, at(0), nil)
	g := newAdGroup(t, db, c, at(0))
	texts := make([]string, 600) // more than one statement's chunk
	for i := range texts {
		texts[i] = fmt.Sprintf("kw %d", i)
	}
	ks := newKeywords(t, db, g, at(0), texts...)
	other := newCampaign(t, db, adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}, at(0), nil)
	og := newAdGroup(t, db, other, at(0))
	oks := newKeywords(t, db, og, at(0), "sandbox kw")

	ids := []string{ks[0].ID, ks[599].ID, oks[0].ID, "kw_missing"}
	read(t, db, func(tx store.Tx) error {
		where, err := tx.DeliveryKeywords(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]store.DeliveryKeyword{
			ks[0].ID:   {AccountID: a.ID, Environment: adcamp.Production, CampaignID: c.ID, AdGroupID: g.ID},
			ks[599].ID: {AccountID: a.ID, Environment: adcamp.Production, CampaignID: c.ID, AdGroupID: g.ID},
			oks[0].ID:  {AccountID: a.ID, Environment: adcamp.Sandbox, CampaignID: other.ID, AdGroupID: og.ID},
		}
		same(t, "DeliveryKeywords", where, want)
		return nil
	})
	h0 := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	where := store.DeliveryKeyword{AccountID: a.ID, Environment: adcamp.Production, CampaignID: c.ID, AdGroupID: g.ID}
	rows := make([]store.DeliveryRow, len(ks))
	for i, k := range ks {
		rows[i] = store.DeliveryRow{KeywordID: k.ID, Hour: h0.Add(time.Duration(i%2) * time.Hour), DeliveryKeyword: where,
			Impressions: 10, Clicks: 1, Cost: 3, Orders: 1, Sales: 100}
	}
	write(t, db, func(tx store.Tx) error { return tx.PutDelivery(ctx, rows, base) })
	spend := func(from, to time.Time) adcamp.Money {
		var m map[string]adcamp.Money
		read(t, db, func(tx store.Tx) error {
			var err error
			m, err = tx.CampaignSpend(ctx, []string{c.ID, other.ID}, from, to)
			return err
		})
		if _, ok := m[other.ID]; ok {
			t.Errorf("CampaignSpend lists a campaign with no delivery: %v", m)
		}
		// One campaign alone, and with the campaign, say the same.
		read(t, db, func(tx store.Tx) error {
			one, err := tx.CampaignSpend(ctx, []string{c.ID}, from, to)
			if err != nil {
				return err
			}
			if one[c.ID] != m[c.ID] || len(one) != len(m) {
				t.Errorf("CampaignSpend of %s alone = %v, with another %v", c.ID, one, m)
			}
			got, gotSpend, err := tx.GetCampaignSpend(ctx, tn, c.ID, from, to)
			if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
				return nil // deleted: its figures remain, for CampaignSpend
			}
			if err != nil {
				return err
			}
			if got.ID != c.ID || got.BudgetDaily != c.BudgetDaily || gotSpend != m[c.ID] {
				t.Errorf("GetCampaignSpend = %s (budget %d), %d; want %s (budget %d), %d", got.ID, got.BudgetDaily, gotSpend, c.ID, c.BudgetDaily, m[c.ID])
			}
			_, none, err := tx.GetCampaignSpend(ctx, adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}, other.ID, from, to)
			if err != nil || none != 0 {
				t.Errorf("GetCampaignSpend of a campaign with no delivery = %d, %v; want 0", none, err)
			}
			_, _, err = tx.GetCampaignSpend(ctx, adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}, c.ID, from, to)
			wantCode(t, "GetCampaignSpend in another tenant", err, adcamp.CodeNotFound)
			return nil
		})
		return m[c.ID]
	}
	if got := spend(h0, h0.Add(2*time.Hour)); got != 1800 {
		t.Errorf("spend over both hours = %d, want 1800", got)
	}
	if got := spend(h0.Add(time.Hour), h0.Add(2*time.Hour)); got != 900 {
		t.Errorf("spend over the second hour = %d, want 900", got)
	}
	if got := spend(h0.Add(2*time.Hour), h0.Add(3*time.Hour)); got != 0 {
		t.Errorf("spend over an hour without delivery = %d, want 0", got)
	}
	// Replacing rows replaces their cost in the sums.
	rows[0].Cost, rows[1].Cost = 103, 0
	write(t, db, func(tx store.Tx) error { return tx.PutDelivery(ctx, rows[:2], base) })
	if got := spend(h0, h0.Add(2*time.Hour)); got != 1800+100-3 {
		t.Errorf("spend after replacing two rows = %d, want %d", got, 1800+100-3)
	}
	// Figures outlive the keyword and its campaign.
	write(t, db, func(tx store.Tx) error { return tx.DeleteCampaign(ctx, tn, c.ID) })
	if got := spend(h0, h0.Add(2*time.Hour)); got != 1897 {
		t.Errorf("spend after the campaign's delete = %d, want 1897", got)
	}
	// The sandbox's reset removes a campaign's figures, and no other's.
	sandboxRow := store.DeliveryRow{KeywordID: oks[0].ID, Hour: h0, Impressions: 5, Clicks: 1, Cost: 40,
		DeliveryKeyword: store.DeliveryKeyword{AccountID: a.ID, Environment: adcamp.Sandbox, CampaignID: other.ID, AdGroupID: og.ID}}
	write(t, db, func(tx store.Tx) error { return tx.PutDelivery(ctx, []store.DeliveryRow{sandboxRow}, base) })
	write(t, db, func(tx store.Tx) error { return tx.DeleteCampaignDelivery(ctx, c.ID) })
	read(t, db, func(tx store.Tx) error {
		m, err := tx.CampaignSpend(ctx, []string{c.ID, other.ID}, h0, h0.Add(2*time.Hour))
		if err != nil {
			return err
		}
		same(t, "CampaignSpend after DeleteCampaignDelivery", m, map[string]adcamp.Money{other.ID: 40})
		return nil
	})
	write(t, db, func(tx store.Tx) error { return tx.DeleteCampaignDelivery(ctx, other.ID) })
	read(t, db, func(tx store.Tx) error {
		m, err := tx.CampaignSpend(ctx, []string{c.ID, other.ID}, h0, h0.Add(2*time.Hour))
		if err == nil && len(m) != 0 {
			t.Errorf("CampaignSpend after both deletes = %v, want none", m)
		}
		return err
	})
}

// operatorKey is testEveryField's round trip of an operator key.
func (r *roundTrip) operatorKey() {
	ctx := r.t.Context()
	used := base.Add(time.Minute)
	k := &store.OperatorKey{ID: "opk_every", Name: "ad server", Disabled: true, CreatedAt: base, LastUsedAt: &used, Secret: []byte("sealed")}
	r.fixture("an operator key", k)
	r.writing(func(tx store.Tx) error { return tx.CreateOperatorKey(ctx, k) })
	r.reading(func(tx store.Tx) {
		got, err := tx.GetOperatorKey(ctx, k.ID)
		r.read("GetOperatorKey", got, k, err)
		all, err := tx.ListOperatorKeys(ctx)
		if err == nil && len(all) != 1 {
			r.t.Errorf("ListOperatorKeys = %d keys, want 1", len(all))
		}
		if len(all) == 1 {
			r.read("ListOperatorKeys", all[0], k, err)
		}
	})
}

// testDeliveryKeywordsAfterDeletes: a store may remember which keywords
// its writes have found (SQLite's writer does), but a keyword deleted
// since, by itself or with its ad group or campaign, is never found
// again; one whose deletion was rolled back still is, and so are those
// found by a write that was rolled back.
func testDeliveryKeywordsAfterDeletes(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, tn, at(0), nil)
	g1, g2 := newAdGroup(t, db, c, at(0)), newAdGroup(t, db, c, at(1))
	ks1 := newKeywords(t, db, g1, at(0), "one", "two", "three")
	ks2 := newKeywords(t, db, g2, at(0), "four")
	other := newCampaign(t, db, tn, at(2), nil)
	g3 := newAdGroup(t, db, other, at(2))
	ks3 := newKeywords(t, db, g3, at(2), "five")
	ids := []string{ks1[0].ID, ks1[1].ID, ks1[2].ID, ks2[0].ID, ks3[0].ID}
	// found checks the ids of ids DeliveryKeywords finds in a write.
	found := func(what string, want ...string) {
		t.Helper()
		for range 2 { // the second time, from what the first found, if remembered
			var got []string
			write(t, db, func(tx store.Tx) error {
				where, err := tx.DeliveryKeywords(ctx, ids)
				for _, id := range ids {
					if _, ok := where[id]; ok {
						got = append(got, id)
					}
				}
				return err
			})
			if !slices.Equal(got, want) {
				t.Errorf("%s: DeliveryKeywords found %v, want %v", what, got, want)
			}
		}
	}
	found("all", ids...)
	errUndone := errors.New("rolled back on purpose")
	err := db.Write(ctx, func(tx store.Tx) error {
		if err := tx.DeleteKeyword(ctx, tn, ks1[0].ID); err != nil {
			return err
		}
		return errUndone
	})
	if !errors.Is(err, errUndone) {
		t.Fatalf("a delete rolled back: %v", err)
	}
	found("after a delete rolled back", ids...)
	write(t, db, func(tx store.Tx) error { return tx.DeleteKeyword(ctx, tn, ks1[0].ID) })
	found("after a keyword's delete", ids[1:]...)
	err = db.Write(ctx, func(tx store.Tx) error {
		if _, err := tx.DeliveryKeywords(ctx, ids); err != nil {
			return err
		}
		if err := tx.DeleteAdGroup(ctx, tn, g2.ID); err != nil {
			return err
		}
		if _, err := tx.DeliveryKeywords(ctx, ids); err != nil {
			return err
		}
		return errUndone
	})
	if !errors.Is(err, errUndone) {
		t.Fatalf("an ad group's delete rolled back: %v", err)
	}
	found("after a write that found them was rolled back", ids[1:]...)
	write(t, db, func(tx store.Tx) error { return tx.DeleteAdGroup(ctx, tn, g2.ID) })
	found("after an ad group's delete", ks1[1].ID, ks1[2].ID, ks3[0].ID)
	write(t, db, func(tx store.Tx) error {
		if err := tx.DeleteCampaign(ctx, tn, c.ID); err != nil {
			return err
		}
		where, err := tx.DeliveryKeywords(ctx, ids)
		if _, ok := where[ks1[1].ID]; ok {
			t.Errorf("DeliveryKeywords after its campaign's delete, in the same write, found %s", ks1[1].ID)
		}
		return err
	})
	found("after a campaign's delete", ks3[0].ID)
	// A keyword created and found in a write rolled back never existed.
	unborn := keyword(g3, at(3), "never")
	err = db.Write(ctx, func(tx store.Tx) error {
		if err := tx.CreateKeywords(ctx, []*adcamp.Keyword{unborn}); err != nil {
			return err
		}
		if where, err := tx.DeliveryKeywords(ctx, []string{unborn.ID}); err != nil || len(where) != 1 {
			t.Errorf("DeliveryKeywords of a keyword created in the same write = %v, %v", where, err)
		}
		return errUndone
	})
	if !errors.Is(err, errUndone) {
		t.Fatalf("a create rolled back: %v", err)
	}
	ids = append(ids, unborn.ID)
	found("after a create rolled back", ks3[0].ID)
}
