package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store"
)

// TestCampaignCacheKeeps: the cache keeps the latest version it was
// given, only for the campaign's own tenant, and at most its size,
// putting the oldest out first.
func TestCampaignCacheKeeps(t *testing.T) {
	t.Parallel()
	c := newCampaignCache(2)
	tn := adcamp.Tenant{AccountID: "acc_1", Environment: adcamp.Production}
	camp := func(id string, version int64) *adcamp.Campaign {
		return &adcamp.Campaign{ID: id, AccountID: tn.AccountID, Environment: tn.Environment, Version: version}
	}
	c.put(camp("cmp_1", 2))
	c.put(camp("cmp_1", 1)) // a read overtaken by a write
	if got, ok := c.get(tn, "cmp_1"); !ok || got.Version != 2 {
		t.Errorf("get(cmp_1) = version %d, %v; want version 2, true", got.Version, ok)
	}
	if _, ok := c.get(adcamp.Tenant{AccountID: "acc_1", Environment: adcamp.Sandbox}, "cmp_1"); ok {
		t.Error("get(cmp_1) in another environment found it, want a miss")
	}
	if _, ok := c.get(adcamp.Tenant{AccountID: "acc_2", Environment: adcamp.Production}, "cmp_1"); ok {
		t.Error("get(cmp_1) of another account found it, want a miss")
	}
	c.put(camp("cmp_2", 1))
	c.put(camp("cmp_3", 1))
	if _, ok := c.get(tn, "cmp_1"); ok {
		t.Error("cmp_1, the oldest of three in a cache of two, is still there")
	}
	for _, id := range []string{"cmp_2", "cmp_3"} {
		if _, ok := c.get(tn, id); !ok {
			t.Errorf("get(%s) missed, want the two newest kept", id)
		}
	}
	c.remove("cmp_3")
	if _, ok := c.get(tn, "cmp_3"); ok {
		t.Error("cmp_3 is still there after remove")
	}
	if len(c.byID) > 2 {
		t.Errorf("the cache holds %d campaigns, want at most 2", len(c.byID))
	}
	long := camp("cmp_2", 2)
	long.Notes = strings.Repeat("n", maxCachedNotes+1)
	c.put(long)
	if _, ok := c.get(tn, "cmp_2"); ok {
		t.Error("cmp_2 is still there after a version with long notes, want it forgotten")
	}
}

// TestCachedCampaignIsChecked: two processes on one database. An update
// that starts from this process's cached copy of a campaign that the other
// process changed meanwhile is not stored over it, and is not answered
// from it: the write runs again on the row as stored, whether the guard
// caught the copy (another version; a channel account cleared, which
// changes no version), the write refused it (a version that If-Match
// names), or nothing checked it (a dry run, which changes nothing).
func TestCachedCampaignIsChecked(t *testing.T) {
	t.Parallel()
	url := pgtest.NewSchema(t).URL
	ctx := store.WithVersionGuards(store.WithRowLocks(context.Background()))
	open := func() *DB {
		db, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	here, there := open(), open()
	now := time.Now()
	a := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, now), Name: "Acme", CreatedAt: now}
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	ch := &adcamp.ChannelAccount{AccountID: a.ID, Marketplace: "US", Name: "Store", CreatedAt: now}
	c := &adcamp.Campaign{ID: adcamp.NewID(adcamp.PrefixCampaign, now), AccountID: a.ID, Environment: adcamp.Production,
		Name: "Spring", BudgetDaily: 100, Marketplace: "US", Status: adcamp.StatusActive, Version: 1, CreatedAt: now, UpdatedAt: now}
	if err := here.Write(ctx, func(tx store.Tx) error {
		if err := tx.CreateAccount(ctx, a); err != nil {
			return err
		}
		if err := tx.CreateChannelAccount(ctx, ch); err != nil {
			return err
		}
		c.ChannelAccountID = &ch.ID
		return tx.CreateCampaign(ctx, c)
	}); err != nil {
		t.Fatal(err)
	}
	if _, ok := here.campaigns.get(tn, c.ID); !ok {
		t.Fatal("the campaign this process created is not in its cache")
	}

	// update changes the campaign as the service does, in db; ifMatch,
	// when not 0, refuses a version other than it. It returns the number
	// of attempts and the campaign as written.
	update := func(db *DB, budget adcamp.Money, ifMatch int64) (int, *adcamp.Campaign, error) {
		attempts := 0
		var wrote *adcamp.Campaign
		err := db.Write(ctx, func(tx store.Tx) error {
			attempts++
			got, err := tx.GetCampaign(ctx, tn, c.ID)
			if err != nil {
				return err
			}
			if ifMatch != 0 && got.Version != ifMatch {
				return fmt.Errorf("version %d, not %d", got.Version, ifMatch)
			}
			prev := *got
			got.BudgetDaily, got.Version = budget, got.Version+1
			if err := tx.UpdateCampaign(ctx, got, &prev); err != nil {
				return err
			}
			wrote = got
			return tx.AddChanges(ctx, []*adcamp.Change{testChange(tn, c.ID)})
		})
		return attempts, wrote, err
	}
	stored := func() *adcamp.Campaign {
		t.Helper()
		var got *adcamp.Campaign
		if err := there.ReadOne(ctx, func(tx store.Tx) (err error) { got, err = tx.GetCampaign(ctx, tn, c.ID); return err }); err != nil {
			t.Fatal(err)
		}
		return got
	}

	// Nothing moved: one attempt, from the cache.
	if n, _, err := update(here, 200, 0); err != nil || n != 1 {
		t.Fatalf("update from a fresh copy = %v after %d attempts, want nil after 1", err, n)
	}
	// The other process makes this one's copy stale (version 3).
	if _, _, err := update(there, 300, 0); err != nil {
		t.Fatal(err)
	}
	n, wrote, err := update(here, 400, 0)
	if err != nil || n != 2 || wrote.Version != 4 {
		t.Fatalf("update from a stale copy = %v after %d attempts, wrote %+v; want nil after 2, version 4", err, n, wrote)
	}
	if got := stored(); got.Version != 4 || got.BudgetDaily != 400 {
		t.Errorf("stored %+v, want version 4, budget 400", got)
	}

	// If-Match names the version the other process wrote (5); this one's
	// copy is at 4. The refusal from the copy is not the answer.
	if _, _, err := update(there, 500, 0); err != nil {
		t.Fatal(err)
	}
	if n, wrote, err := update(here, 600, 5); err != nil || n != 2 || wrote.Version != 6 {
		t.Fatalf("update with If-Match 5 from a copy at 4 = %v after %d attempts, wrote %+v; want nil after 2, version 6", err, n, wrote)
	}
	// ... and a version that is really not there is refused, after the
	// same second look.
	if n, _, err := update(here, 700, 5); err == nil || n != 2 {
		t.Fatalf("update with If-Match 5 at version 6 = %v after %d attempts, want an error after 2", err, n)
	}

	// A dry run answers from the campaign without changing it: from a
	// stale copy, no guarded update checks it, so that answer is not the
	// answer either.
	if _, _, err := update(there, 650, 0); err != nil {
		t.Fatal(err)
	}
	attempts, seen := 0, int64(0)
	err = here.Write(ctx, func(tx store.Tx) error {
		attempts++
		got, err := tx.GetCampaign(ctx, tn, c.ID)
		if err != nil {
			return err
		}
		seen = got.Version
		return nil
	})
	if err != nil || attempts != 2 || seen != 7 {
		t.Fatalf("a dry run from a copy at 6 = %v after %d attempts, saw version %d; want nil after 2, version 7", err, attempts, seen)
	}

	// Deleting the channel account clears the campaign's, at the same
	// version: the guard sees it, and what is written and answered has
	// none.
	if _, err := there.pool.Exec(ctx, `DELETE FROM channel_accounts WHERE id = $1`, ch.ID); err != nil {
		t.Fatal(err)
	}
	if cached, ok := here.campaigns.get(tn, c.ID); !ok || cached.ChannelAccountID == nil {
		t.Fatalf("the cached copy: %+v, %v; want it with its channel account", cached, ok)
	}
	if n, wrote, err := update(here, 800, 0); err != nil || n != 2 || wrote.ChannelAccountID != nil {
		t.Fatalf("update after the channel account's deletion = %v after %d attempts, wrote %+v; want nil after 2, no channel account",
			err, n, wrote)
	}
	if got := stored(); got.Version != 8 || got.BudgetDaily != 800 || got.ChannelAccountID != nil {
		t.Errorf("stored %+v, want version 8, budget 800, no channel account", got)
	}
}
