package storetest

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// newCampaign stores an active campaign created at created; edit, if not
// nil, changes it first.
func newCampaign(t *testing.T, db store.Store, tn adcamp.Tenant, created time.Time, edit func(*adcamp.Campaign)) *adcamp.Campaign {
	ctx := t.Context()
	t.Helper()
	c := &adcamp.Campaign{
		ID: adcamp.NewID(adcamp.PrefixCampaign, created), AccountID: tn.AccountID, Environment: tn.Environment,
		Name: "Spring sale", BudgetDaily: 2500, Marketplace: "US", Status: adcamp.StatusActive, Version: 1,
		CreatedAt: created, UpdatedAt: created,
	}
	if edit != nil {
		edit(c)
	}
	write(t, db, func(tx store.Tx) error { return tx.CreateCampaign(ctx, c) })
	return c
}

func campaignID(c *adcamp.Campaign) string         { return c.ID }
func campaignCreated(c *adcamp.Campaign) time.Time { return c.CreatedAt }

func getCampaign(t *testing.T, db store.Store, tn adcamp.Tenant, id string) (*adcamp.Campaign, error) {
	ctx := t.Context()
	t.Helper()
	var c, one *adcamp.Campaign
	err := db.Read(ctx, func(tx store.Tx) (err error) {
		c, err = tx.GetCampaign(ctx, tn, id)
		return err
	})
	// ReadOne must answer alike.
	errOne := db.ReadOne(ctx, func(tx store.Tx) (err error) {
		one, err = tx.GetCampaign(ctx, tn, id)
		return err
	})
	if adcamp.ErrorCode(errOne) != adcamp.ErrorCode(err) || !reflect.DeepEqual(c, one) {
		t.Errorf("GetCampaign(%s): ReadOne gave %+v, %v; Read gave %+v, %v", id, one, errOne, c, err)
	}
	return c, err
}

func listCampaigns(t *testing.T, db store.Store, tn adcamp.Tenant, q store.ListQuery) ([]string, int64) {
	ctx := t.Context()
	t.Helper()
	var items []*adcamp.Campaign
	var total int64
	read(t, db, func(tx store.Tx) (err error) {
		items, total, err = tx.ListCampaigns(ctx, tn, q)
		return err
	})
	ids := idsOf(items, campaignID)
	// ReadOne must answer alike.
	var one []*adcamp.Campaign
	var oneTotal int64
	err := db.ReadOne(ctx, func(tx store.Tx) (err error) {
		one, oneTotal, err = tx.ListCampaigns(ctx, tn, q)
		return err
	})
	if oneIDs := idsOf(one, campaignID); err != nil || oneTotal != total || !slices.Equal(oneIDs, ids) {
		t.Errorf("ListCampaigns(%+v): ReadOne gave %v of %d (%v); Read gave %v of %d", q, oneIDs, oneTotal, err, ids, total)
	}
	return ids, total
}

func testCampaignRoundTrip(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	ca := &adcamp.ChannelAccount{AccountID: a.ID, Marketplace: "JP", Name: "Acme JP", CreatedAt: base}
	write(t, db, func(tx store.Tx) error { return tx.CreateChannelAccount(ctx, ca) })

	full := newCampaign(t, db, tn, at(0), func(c *adcamp.Campaign) {
		c.Name, c.BudgetDaily, c.Marketplace = "Ünïcode — 春のセール", 100_000_000, "JP"
		c.ChannelAccountID, c.StartDate, c.EndDate = &ca.ID, day("2026-12-01"), day("2027-01-31")
		c.Notes = "Line one\n\tand two — ☂"
		c.UpdatedAt = at(1).Add(time.Microsecond)
	})
	bare := newCampaign(t, db, tn, at(1), nil)
	for _, want := range []*adcamp.Campaign{full, bare} {
		got, err := getCampaign(t, db, tn, want.ID)
		if err != nil {
			t.Fatalf("GetCampaign(%s): %v", want.ID, err)
		}
		same(t, "GetCampaign", got, want)
	}
	_, err := getCampaign(t, db, tn, "cmp_missing")
	wantCode(t, "GetCampaign(missing)", err, adcamp.CodeNotFound)

	// An update with what was read writes the fields that changed: here
	// the name and the notes (and the version and update time).
	asRead := *full
	renamed := *full
	renamed.Name, renamed.Notes, renamed.Version, renamed.UpdatedAt = "Renamed once", "Other notes", 2, at(50)
	write(t, db, func(tx store.Tx) error { return tx.UpdateCampaign(ctx, &renamed, &asRead) })
	if got, err := getCampaign(t, db, tn, full.ID); err != nil || !reflect.DeepEqual(got, &renamed) {
		t.Errorf("after renaming: GetCampaign = %+v, %v; want %+v", got, err, &renamed)
	}

	// An update without it writes every mutable field, and clears dates
	// and notes.
	full.Name, full.BudgetDaily, full.StartDate, full.EndDate, full.Notes = "Renamed", 1, adcamp.Date{}, adcamp.Date{}, ""
	full.Status, full.Version, full.UpdatedAt = adcamp.StatusPaused, 3, at(99)
	write(t, db, func(tx store.Tx) error { return tx.UpdateCampaign(ctx, full, nil) })
	got, err := getCampaign(t, db, tn, full.ID)
	if err != nil {
		t.Fatalf("GetCampaign(%s): %v", full.ID, err)
	}
	same(t, "GetCampaign after UpdateCampaign", got, full)
}

func testCampaignPaging(t *testing.T, db store.Store) {
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}
	var all []*adcamp.Campaign
	for _, s := range []int{3, 1, 4, 1, 5, 9, 2} { // two created in the same microsecond
		all = append(all, newCampaign(t, db, tn, at(s), nil))
	}
	want := newest(all, campaignCreated, campaignID)
	got, total := listCampaigns(t, db, tn, store.ListQuery{Limit: 100})
	sameIDs(t, "ListCampaigns(all)", got, want)
	if total != 7 {
		t.Errorf("ListCampaigns(all) total = %d, want 7", total)
	}

	var paged []string
	for off := 0; off < 12; off += 3 { // the last page is past the end
		ids, total := listCampaigns(t, db, tn, store.ListQuery{Limit: 3, Offset: off})
		if total != 7 || len(ids) != min(3, max(0, 7-off)) {
			t.Errorf("ListCampaigns(limit 3, offset %d) = %d items of %d, want %d of 7", off, len(ids), total, min(3, max(0, 7-off)))
		}
		paged = append(paged, ids...)
	}
	sameIDs(t, "ListCampaigns page by page", paged, want)
}

func testCampaignEffectiveStatus(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	mk := func(s int, status adcamp.Status, end string) *adcamp.Campaign {
		return newCampaign(t, db, tn, at(s), func(c *adcamp.Campaign) {
			c.Status = status
			if end != "" {
				c.EndDate = day(end)
			}
		})
	}
	active := mk(0, adcamp.StatusActive, "")
	pastEnd := mk(1, adcamp.StatusActive, "2026-11-21")     // ended yesterday: reads as ended
	endsToday := mk(2, adcamp.StatusActive, today.String()) // still running today
	paused := mk(3, adcamp.StatusPaused, "2026-11-30")
	pausedPast := mk(4, adcamp.StatusPaused, "2026-11-01")
	ended := mk(5, adcamp.StatusEnded, "")
	all := []*adcamp.Campaign{active, pastEnd, endsToday, paused, pausedPast, ended}

	check := func(when string) {
		t.Helper()
		for _, tc := range []struct {
			status adcamp.Status
			want   []*adcamp.Campaign
		}{
			{"", all},
			{adcamp.StatusActive, []*adcamp.Campaign{active, endsToday}},
			{adcamp.StatusPaused, []*adcamp.Campaign{paused}},
			{adcamp.StatusEnded, []*adcamp.Campaign{pastEnd, pausedPast, ended}},
		} {
			want := newest(tc.want, campaignCreated, campaignID)
			for _, limit := range []int{2, 100} {
				got, total := listCampaigns(t, db, tn, store.ListQuery{Status: tc.status, Today: today, Limit: limit})
				sameIDs(t, when+": ListCampaigns(status "+string(tc.status)+", first page)", got, want[:min(limit, len(want))])
				if total != int64(len(want)) {
					t.Errorf("%s: ListCampaigns(status %q) total = %d, want %d", when, tc.status, total, len(want))
				}
			}
		}
	}
	check("before ending")

	// DueCampaigns finds the two past their end date, a batch at a time,
	// and SetCampaignsEnded stores ended for them, as the service does;
	// nothing else changes.
	var batches [][]string
	for range 3 {
		var ids []string
		write(t, db, func(tx store.Tx) error {
			due, err := tx.DueCampaigns(ctx, today, 1)
			if err != nil {
				return err
			}
			if ids = idsOf(due, campaignID); len(ids) == 0 {
				return nil
			}
			return tx.SetCampaignsEnded(ctx, ids)
		})
		batches = append(batches, ids)
	}
	if len(batches[0]) != 1 || len(batches[1]) != 1 || len(batches[2]) != 0 {
		t.Errorf("DueCampaigns(limit 1) and SetCampaignsEnded three times ended %v, want one campaign, one, none", batches)
	} else {
		sameIDs(t, "campaigns ended", sortedIDs(slices.Concat(batches...)), sortedIDs([]string{pastEnd.ID, pausedPast.ID}))
	}
	for _, c := range []*adcamp.Campaign{pastEnd, pausedPast} {
		got, err := getCampaign(t, db, tn, c.ID)
		if err != nil || got.Status != adcamp.StatusEnded || got.Version != c.Version || !got.UpdatedAt.Equal(c.UpdatedAt) {
			t.Errorf("after ending, %s is %+v (%v); want status ended, version and updated_at as before", c.ID, got, err)
		}
	}
	for _, c := range []*adcamp.Campaign{active, endsToday, paused, ended} {
		if got, err := getCampaign(t, db, tn, c.ID); err != nil || got.Status != c.Status {
			t.Errorf("after ending, %s is %+v (%v), want status %s", c.ID, got, err, c.Status)
		}
	}
	check("after ending")
}

func testVersionedUpdates(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, tn, at(0), nil)
	g := newAdGroup(t, db, c, at(1))
	k := newKeywords(t, db, g, at(2), "red shoes")[0]

	next := *c
	next.Version, next.Name = 2, "Second"
	write(t, db, func(tx store.Tx) error { return tx.UpdateCampaign(ctx, &next, nil) })
	stale := *c
	stale.Version, stale.Name = 2, "Lost" // read at version 1, like next
	err := db.Write(ctx, func(tx store.Tx) error { return tx.UpdateCampaign(ctx, &stale, nil) })
	wantCode(t, "UpdateCampaign(stale version)", err, adcamp.CodePreconditionFailed)
	if got, _ := getCampaign(t, db, tn, c.ID); got == nil || got.Name != "Second" || got.Version != 2 {
		t.Errorf("campaign after a stale update = %s, want name Second at version 2", show(got))
	}

	g2 := *g
	g2.Version, g2.Name = 2, "Second"
	write(t, db, func(tx store.Tx) error { return tx.UpdateAdGroup(ctx, &g2, nil) })
	err = db.Write(ctx, func(tx store.Tx) error { return tx.UpdateAdGroup(ctx, &g2, nil) })
	wantCode(t, "UpdateAdGroup(stale version)", err, adcamp.CodePreconditionFailed)

	k2 := *k
	bid := adcamp.Money(125)
	k2.Version, k2.Text, k2.Bid, k2.MatchType = 2, "Red Shoes!", &bid, adcamp.MatchPhrase
	write(t, db, func(tx store.Tx) error { return tx.UpdateKeyword(ctx, &k2, nil) })
	err = db.Write(ctx, func(tx store.Tx) error { return tx.UpdateKeyword(ctx, &k2, nil) })
	wantCode(t, "UpdateKeyword(stale version)", err, adcamp.CodePreconditionFailed)
	read(t, db, func(tx store.Tx) error {
		gotG, err := tx.GetAdGroup(ctx, tn, g.ID)
		if err != nil {
			return err
		}
		same(t, "GetAdGroup after UpdateAdGroup", gotG, &g2)
		gotK, err := tx.GetKeyword(ctx, tn, k.ID)
		if err != nil {
			return err
		}
		same(t, "GetKeyword after UpdateKeyword", gotK, &k2)
		return nil
	})
}

// testTenantIsolation checks that another account's or environment's rows
// are answered as missing ones, by every call that takes a tenant.
func testTenantIsolation(t *testing.T, db store.Store) {
	ctx := t.Context()
	a, b := newAccount(t, db, "Acme"), newAccount(t, db, "Other")
	own := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, own, at(0), nil)
	g := newAdGroup(t, db, c, at(1))
	k := newKeywords(t, db, g, at(2), "red shoes")[0]

	for _, tn := range []adcamp.Tenant{
		{AccountID: b.ID, Environment: adcamp.Production},
		{AccountID: a.ID, Environment: adcamp.Sandbox},
	} {
		who := tn.AccountID + "/" + string(tn.Environment)
		read(t, db, func(tx store.Tx) error {
			_, err := tx.GetCampaign(ctx, tn, c.ID)
			wantCode(t, "GetCampaign as "+who, err, adcamp.CodeNotFound)
			_, err = tx.GetAdGroup(ctx, tn, g.ID)
			wantCode(t, "GetAdGroup as "+who, err, adcamp.CodeNotFound)
			_, err = tx.GetKeyword(ctx, tn, k.ID)
			wantCode(t, "GetKeyword as "+who, err, adcamp.CodeNotFound)
			cs, n1, err1 := tx.ListCampaigns(ctx, tn, store.ListQuery{Limit: 10})
			gs, n2, err2 := tx.ListAdGroups(ctx, tn, c.ID, store.ListQuery{Limit: 10})
			ks, n3, err3 := tx.ListKeywords(ctx, tn, g.ID, store.ListQuery{Limit: 10})
			if len(cs)+len(gs)+len(ks) != 0 || n1+n2+n3 != 0 || err1 != nil || err2 != nil || err3 != nil {
				t.Errorf("lists as %s = %d, %d, %d items (%v %v %v), want none", who, n1, n2, n3, err1, err2, err3)
			}
			groups, keywords, err := tx.CountChildren(ctx, tn, c.ID, "")
			if groups != 0 || keywords != 0 || err != nil {
				t.Errorf("CountChildren(campaign) as %s = %d, %d, %v; want 0, 0", who, groups, keywords, err)
			}
			return nil
		})
		for _, del := range []struct {
			call string
			fn   func(tx store.Tx) error
		}{
			{"DeleteKeyword", func(tx store.Tx) error { return tx.DeleteKeyword(ctx, tn, k.ID) }},
			{"DeleteAdGroup", func(tx store.Tx) error { return tx.DeleteAdGroup(ctx, tn, g.ID) }},
			{"DeleteCampaign", func(tx store.Tx) error { return tx.DeleteCampaign(ctx, tn, c.ID) }},
		} {
			wantCode(t, del.call+" as "+who, db.Write(ctx, del.fn), adcamp.CodeNotFound)
		}
		moved := *c
		moved.AccountID, moved.Environment, moved.Version, moved.Name = tn.AccountID, tn.Environment, 2, "Hijacked"
		err := db.Write(ctx, func(tx store.Tx) error { return tx.UpdateCampaign(ctx, &moved, nil) })
		wantCode(t, "UpdateCampaign as "+who, err, adcamp.CodePreconditionFailed)
	}
	read(t, db, func(tx store.Tx) error {
		gotC, err := tx.GetCampaign(ctx, own, c.ID)
		if err != nil {
			t.Fatalf("GetCampaign as its owner: %v", err)
		}
		same(t, "GetCampaign as its owner", gotC, c)
		groups, keywords, err := tx.CountChildren(ctx, own, c.ID, "")
		if groups != 1 || keywords != 1 || err != nil {
			t.Errorf("CountChildren(campaign) as its owner = %d, %d, %v; want 1, 1", groups, keywords, err)
		}
		return nil
	})
}

// testCampaignTotals checks that a list's total follows every change of
// the tenant's campaigns, and only of its own: creates, status changes
// (with and without the campaign as read), deletes, and a write that
// fails, whose campaigns are not counted.
func testCampaignTotals(t *testing.T, db store.Store) {
	ctx := t.Context()
	a, b := newAccount(t, db, "Acme"), newAccount(t, db, "Other")
	prod := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	sandbox := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}
	other := adcamp.Tenant{AccountID: b.ID, Environment: adcamp.Production}

	want := map[adcamp.Tenant]map[adcamp.Status]int64{prod: {}, sandbox: {}, other: {}}
	check := func(when string) {
		t.Helper()
		for tn, counts := range want {
			for _, status := range []adcamp.Status{"", adcamp.StatusActive, adcamp.StatusPaused, adcamp.StatusEnded} {
				n := counts[status]
				if status == "" {
					n = counts[adcamp.StatusActive] + counts[adcamp.StatusPaused] + counts[adcamp.StatusEnded]
				}
				// A first page, and one past the end, which has no rows
				// to carry its total.
				for _, q := range []store.ListQuery{{Limit: 2}, {Limit: 2, Offset: 50}} {
					q.Status, q.Today = status, today
					if _, total := listCampaigns(t, db, tn, q); total != n {
						t.Errorf("%s: ListCampaigns(%s/%s, %+v) total = %d, want %d",
							when, tn.AccountID, tn.Environment, q, total, n)
					}
				}
			}
		}
	}
	var prodCampaigns []*adcamp.Campaign
	for i, status := range []adcamp.Status{"active", "active", "active", "paused", "paused", "ended", "active"} {
		c := newCampaign(t, db, prod, at(i), func(c *adcamp.Campaign) { c.Status = status })
		prodCampaigns = append(prodCampaigns, c)
		want[prod][status]++
	}
	newCampaign(t, db, sandbox, at(20), nil)
	newCampaign(t, db, other, at(21), func(c *adcamp.Campaign) { c.Status = adcamp.StatusPaused })
	want[sandbox][adcamp.StatusActive]++
	want[other][adcamp.StatusPaused]++
	check("after creates")

	// A write that fails stores none of its campaigns, and counts none.
	err := db.Write(ctx, func(tx store.Tx) error {
		for i := range 3 {
			c := &adcamp.Campaign{
				ID: adcamp.NewID(adcamp.PrefixCampaign, at(30+i)), AccountID: prod.AccountID, Environment: prod.Environment,
				Name: "Rolled back", BudgetDaily: 1, Marketplace: "US", Status: adcamp.StatusActive, Version: 1,
				CreatedAt: at(30 + i), UpdatedAt: at(30 + i),
			}
			if err := tx.CreateCampaign(ctx, c); err != nil {
				return err
			}
		}
		return errors.New("changed my mind")
	})
	if err == nil {
		t.Fatal("a write whose fn failed returned nil")
	}
	check("after a failed write")

	// Status changes, with the campaign as read and without it; an update
	// that keeps the status counts nothing.
	pause := *prodCampaigns[0]
	pause.Status, pause.Version = adcamp.StatusPaused, 2
	write(t, db, func(tx store.Tx) error { return tx.UpdateCampaign(ctx, &pause, prodCampaigns[0]) })
	end := *prodCampaigns[3]
	end.Status, end.Version = adcamp.StatusEnded, 2
	write(t, db, func(tx store.Tx) error { return tx.UpdateCampaign(ctx, &end, nil) })
	rename := *prodCampaigns[1]
	rename.Name, rename.Version = "Renamed", 2
	write(t, db, func(tx store.Tx) error { return tx.UpdateCampaign(ctx, &rename, nil) })
	want[prod][adcamp.StatusActive]--
	want[prod][adcamp.StatusEnded]++ // one paused became ended, one active paused
	check("after status changes")

	// Deletes, two in one write.
	write(t, db, func(tx store.Tx) error {
		if err := tx.DeleteCampaign(ctx, prod, prodCampaigns[4].ID); err != nil {
			return err
		}
		return tx.DeleteCampaign(ctx, prod, prodCampaigns[5].ID)
	})
	want[prod][adcamp.StatusPaused]--
	want[prod][adcamp.StatusEnded]--
	check("after deletes")
}
