package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store"
)

// tripCounter counts round trips to the database (n: a statement sent on
// its own, or a batch: one pipeline, one Sync) and the statements sent.
type tripCounter struct{ n, statements atomic.Int64 }

func (c *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	c.statements.Add(1)
	return ctx
}
func (c *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	c.statements.Add(1)
}
func (c *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// TestRoundTripsPerRequest counts the round trips and statements of the
// store calls that the API's requests of the sitting's mix make, as the
// service makes them (a change with its history record and its replay
// record in one write transaction at READ COMMITTED with row locks, a read
// by id or a page with ReadOne), on a connection whose statements are
// prepared already. Before the pipe they were 4 round trips (create:
// BEGIN, INSERT, record, COMMIT), 5 (update: BEGIN, SELECT, UPDATE, record,
// COMMIT), 1 and 1. With the history's INSERT the statements were 5 and 6;
// now the history goes inside the record's statement, and a create, sent
// whole in one batch, needs no BEGIN and COMMIT (an implicit transaction):
// 2 and 5, and an update marked by store.WithVersionGuards 3. Now the
// campaign's INSERT and the guarded UPDATE go inside the record's
// statement too: a create is 1 statement, a guarded update 2, and 1 (one
// round trip) when it starts from the process's cached copy.
func TestRoundTripsPerRequest(t *testing.T) {
	t.Parallel()
	ctx := store.WithRowLocks(context.Background())
	cfg, err := pgxpool.ParseConfig(pgtest.NewSchema(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	trips := &tripCounter{}
	cfg.ConnConfig.Tracer = trips
	cfg.MaxConns = 1 // one connection, whose statement cache the first round fills
	db, err := openConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	now := time.Now()
	a := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, now), Name: "Acme", CreatedAt: now}
	if err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateAccount(ctx, a) }); err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	record := func(tx store.Tx, entity string) error {
		if err := tx.AddChanges(ctx, []*adcamp.Change{testChange(tn, entity)}); err != nil {
			return err
		}
		_, err := tx.SaveRecord(ctx, &store.RequestRecord{Scope: "sig:k", Token: adcamp.NewID("t", time.Now()),
			RequestHash: []byte{1}, Status: 200, Header: []byte("{}"), Body: []byte("{}"), CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)})
		return err
	}
	var c *adcamp.Campaign
	update := func(ctx context.Context) error {
		return db.Write(ctx, func(tx store.Tx) error {
			got, err := tx.GetCampaign(ctx, tn, c.ID)
			if err != nil {
				return err
			}
			prev := *got
			got.Name, got.Version = "Summer", got.Version+1
			if err := tx.UpdateCampaign(ctx, got, &prev); err != nil {
				return err
			}
			// As the service's update: the serving feed's row and the
			// webhook outbox's (written for an account with an endpoint),
			// which go in the record's statement.
			if err := tx.AppendFeed(ctx, []store.FeedRow{{Environment: tn.Environment, Kind: store.FeedCampaign, EntityID: c.ID}}, now); err != nil {
				return err
			}
			ev := &adcamp.Event{ID: adcamp.NewID(adcamp.PrefixEvent, now), AccountID: tn.AccountID, Environment: tn.Environment,
				Type: adcamp.EventCampaignUpdated, OccurredAt: now}
			if err := tx.AddEvents(ctx, []*adcamp.Event{ev}); err != nil {
				return err
			}
			return record(tx, c.ID)
		})
	}
	requests := []struct {
		name            string
		max, statements int64
		run             func() error
	}{
		{"create", 1, 1, func() error {
			c = &adcamp.Campaign{ID: adcamp.NewID(adcamp.PrefixCampaign, time.Now()), AccountID: a.ID,
				Environment: adcamp.Production, Name: "Spring", BudgetDaily: 100, Marketplace: "US",
				Status: adcamp.StatusActive, Version: 1, CreatedAt: now, UpdatedAt: now}
			return db.Write(ctx, func(tx store.Tx) error {
				if err := tx.CreateCampaign(ctx, c); err != nil {
					return err
				}
				return record(tx, c.ID)
			})
		}},
		{"get", 1, 1, func() error {
			return db.ReadOne(ctx, func(tx store.Tx) error { _, err := tx.GetCampaign(ctx, tn, c.ID); return err })
		}},
		{"list", 1, 1, func() error {
			return db.ReadOne(ctx, func(tx store.Tx) error {
				_, _, err := tx.ListCampaigns(ctx, tn, store.ListQuery{Limit: 20})
				return err
			})
		}},
		// The API's list: the page with each campaign's spend today.
		{"list with spend", 1, 1, func() error {
			return db.ReadOne(ctx, func(tx store.Tx) error {
				_, _, _, err := tx.ListCampaignsSpend(ctx, tn, store.ListQuery{Limit: 20}, now.Add(-time.Hour), now)
				return err
			})
		}},
		{"update", 2, 5, func() error { return update(ctx) }},
		// Read without a lock, the update guarded by the version read, and
		// the records sent with it as one implicit transaction.
		{"update, version-guarded", 2, 2, func() error {
			db.campaigns.remove(c.ID)
			return update(store.WithVersionGuards(ctx))
		}},
		// The same from the copy that the process's cache holds (see
		// campaignCache): no read.
		{"update, version-guarded, cached", 1, 1, func() error { return update(store.WithVersionGuards(ctx)) }},
	}
	for round := range 2 {
		for _, r := range requests {
			before, statements := trips.n.Load(), trips.statements.Load()
			if err := r.run(); err != nil {
				t.Fatalf("%s: %v", r.name, err)
			}
			if n, m := trips.n.Load()-before, trips.statements.Load()-statements; round == 1 {
				t.Logf("%s: %d round trips, %d statements", r.name, n, m)
				if n > r.max {
					t.Errorf("%s took %d round trips, want at most %d", r.name, n, r.max)
				}
				if m > r.statements {
					t.Errorf("%s sent %d statements, want at most %d", r.name, m, r.statements)
				}
			}
		}
	}
}

// TestRecordTakenRollsBack: a replay record saved with the commit that
// finds a live record of its name fails the Write with
// store.ErrRecordTaken, and the change sent with it is rolled back.
func TestRecordTakenRollsBack(t *testing.T) {
	t.Parallel()
	ctx := store.WithRowLocks(context.Background())
	db, err := Open(ctx, pgtest.NewSchema(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Now()
	rec := &store.RequestRecord{Scope: "sig:k", Token: "t1", RequestHash: []byte{1}, Status: 201, Header: []byte("{}"), Body: []byte("{}"),
		CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	a := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, now), Name: "Acme", CreatedAt: now}
	create := func(id string) error {
		return db.Write(ctx, func(tx store.Tx) error {
			c := &adcamp.Campaign{ID: id, AccountID: a.ID, Environment: adcamp.Production, Name: "Spring",
				BudgetDaily: 100, Marketplace: "US", Status: adcamp.StatusActive, Version: 1, CreatedAt: now, UpdatedAt: now}
			if err := tx.CreateCampaign(ctx, c); err != nil {
				return err
			}
			if err := tx.AddChanges(ctx, []*adcamp.Change{testChange(adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}, id)}); err != nil {
				return err
			}
			saved, err := tx.SaveRecord(ctx, rec)
			if err == nil && !saved {
				return store.ErrRecordTaken
			}
			return err
		})
	}
	if err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateAccount(ctx, a) }); err != nil {
		t.Fatal(err)
	}
	first, second := adcamp.NewID(adcamp.PrefixCampaign, now), adcamp.NewID(adcamp.PrefixCampaign, now)
	if err := create(first); err != nil {
		t.Fatalf("first Write = %v, want nil", err)
	}
	if err := create(second); err != store.ErrRecordTaken {
		t.Fatalf("second Write with the same record = %v, want store.ErrRecordTaken", err)
	}
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	err = db.ReadOne(ctx, func(tx store.Tx) error { _, err := tx.GetCampaign(ctx, tn, second); return err })
	if adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("GetCampaign(rolled back) = %v, want NOT_FOUND", err)
	}
	for id, want := range map[string]int{first: 1, second: 0} {
		var got []*adcamp.Change
		err := db.ReadOne(ctx, func(tx store.Tx) error {
			var err error
			got, err = tx.ListChanges(ctx, store.ChangeQuery{AccountID: a.ID, Environments: []adcamp.Environment{adcamp.Production},
				EntityID: id, Limit: 10})
			return err
		})
		if err != nil || len(got) != want {
			t.Errorf("history of %s: %d records, %v; want %d", id, len(got), err, want)
		}
	}
}

// testChange is a history record of a change of campaign id.
func testChange(tn adcamp.Tenant, id string) *adcamp.Change {
	cid, at := adcamp.NewChangeID(time.Now())
	return &adcamp.Change{ID: cid, OccurredAt: at, AccountID: tn.AccountID, Environment: tn.Environment,
		EntityType: adcamp.EntityCampaign, EntityID: id, CampaignID: id, Operation: adcamp.OpUpdate,
		Changes: []adcamp.FieldChange{{Field: "name", New: &id}},
		Actor:   adcamp.Actor{Type: adcamp.ActorAPIKey, ID: "ak_test_k"}, RequestID: "req_1", TransactionID: "txn_1"}
}

// TestRequireNoRecord: a live record under one of the names fails the
// Write with store.ErrRecordTaken; an expired one or none lets it commit.
func TestRequireNoRecord(t *testing.T) {
	t.Parallel()
	ctx := store.WithRowLocks(context.Background())
	db, err := Open(ctx, pgtest.NewSchema(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Now()
	for _, r := range []*store.RequestRecord{
		{Scope: "sig:k", Token: "live", ExpiresAt: now.Add(time.Hour)},
		{Scope: "sig:k", Token: "expired", ExpiresAt: now.Add(-time.Second)},
	} {
		r.RequestHash, r.Status, r.Header, r.Body, r.CreatedAt = []byte{1}, 200, []byte("{}"), []byte("{}"), now.Add(-time.Hour)
		if err := db.Write(ctx, func(tx store.Tx) error { _, err := tx.SaveRecord(ctx, r); return err }); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		tokens []string
		want   error
	}{
		{[]string{"none", "live"}, store.ErrRecordTaken},
		{[]string{"none", "expired"}, nil},
	} {
		err := db.Write(ctx, func(tx store.Tx) error {
			return tx.(store.RecordChecker).RequireNoRecord(ctx, "sig:k", c.tokens, now)
		})
		if err != c.want {
			t.Errorf("Write(RequireNoRecord(%v)) = %v, want %v", c.tokens, err, c.want)
		}
	}
}

// TestVersionGuardedWriteFallsBack: a write marked by
// store.WithVersionGuards whose campaign another write changes between its
// read and its commit fails that attempt (the guarded update finds another
// version), leaves nothing of it behind, and runs again with the row
// locked, on the new version; one that writes before it reads runs with
// locks from the start.
func TestVersionGuardedWriteFallsBack(t *testing.T) {
	t.Parallel()
	ctx := store.WithVersionGuards(store.WithRowLocks(context.Background()))
	db, err := Open(ctx, pgtest.NewSchema(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Now()
	a := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, now), Name: "Acme", CreatedAt: now}
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := &adcamp.Campaign{ID: adcamp.NewID(adcamp.PrefixCampaign, now), AccountID: a.ID, Environment: adcamp.Production,
		Name: "Spring", BudgetDaily: 100, Marketplace: "US", Status: adcamp.StatusActive, Version: 1, CreatedAt: now, UpdatedAt: now}
	if err := db.Write(ctx, func(tx store.Tx) error {
		if err := tx.CreateAccount(ctx, a); err != nil {
			return err
		}
		return tx.CreateCampaign(ctx, c)
	}); err != nil {
		t.Fatal(err)
	}
	rename := func(tx store.Tx, name string) error {
		got, err := tx.GetCampaign(ctx, tn, c.ID)
		if err != nil {
			return err
		}
		prev := *got
		got.Name, got.Version = name, got.Version+1
		if err := tx.UpdateCampaign(ctx, got, &prev); err != nil {
			return err
		}
		return tx.AddChanges(ctx, []*adcamp.Change{testChange(tn, c.ID)})
	}
	// interrupted runs a guarded write that reads the campaign and hands
	// it to then; during its first attempt, between the two, another
	// write runs meanwhile. It returns the attempts made.
	interrupted := func(meanwhile func(store.Tx) error, then func(tx store.Tx, got *adcamp.Campaign) error) (int, error) {
		attempts := 0
		err := db.Write(ctx, func(tx store.Tx) error {
			attempts++
			got, err := tx.GetCampaign(ctx, tn, c.ID)
			if err != nil {
				return err
			}
			if attempts == 1 {
				if err := db.Write(store.WithRowLocks(context.Background()), meanwhile); err != nil {
					return err
				}
			}
			return then(tx, got)
		})
		return attempts, err
	}
	// Another request renames it meanwhile (version 2).
	attempts, err := interrupted(func(tx store.Tx) error { return rename(tx, "Other") }, func(tx store.Tx, got *adcamp.Campaign) error {
		prev := *got
		got.Name, got.Version = "Summer", got.Version+1
		if err := tx.UpdateCampaign(ctx, got, &prev); err != nil {
			return err
		}
		return tx.AddChanges(ctx, []*adcamp.Change{testChange(tn, c.ID)})
	})
	if err != nil || attempts != 2 {
		t.Fatalf("Write = %v after %d attempts, want nil after 2", err, attempts)
	}
	var got *adcamp.Campaign
	var history []*adcamp.Change
	err = db.Read(ctx, func(tx store.Tx) error {
		var err error
		if got, err = tx.GetCampaign(ctx, tn, c.ID); err != nil {
			return err
		}
		history, err = tx.ListChanges(ctx, store.ChangeQuery{AccountID: a.ID, Environments: []adcamp.Environment{adcamp.Production},
			EntityID: c.ID, Limit: 10})
		return err
	})
	if err != nil || got.Name != "Summer" || got.Version != 3 || len(history) != 2 {
		t.Fatalf("after the write: %+v, %d history records (%v); want Summer at version 3, 2 records", got, len(history), err)
	}

	// The system ends campaigns without a new version: the guard sees the
	// status move too.
	attempts, err = interrupted(func(tx store.Tx) error {
		return tx.SetCampaignsEnded(ctx, []string{c.ID})
	}, func(tx store.Tx, got *adcamp.Campaign) error {
		if got.Status == adcamp.StatusEnded {
			return nil // the service refuses to change an ended campaign
		}
		prev := *got
		got.Name, got.Version = "Autumn", got.Version+1
		return tx.UpdateCampaign(ctx, got, &prev)
	})
	if err != nil || attempts != 2 {
		t.Fatalf("Write = %v after %d attempts, want nil after 2", err, attempts)
	}
	err = db.ReadOne(ctx, func(tx store.Tx) error { got, err = tx.GetCampaign(ctx, tn, c.ID); return err })
	if err != nil || got.Status != adcamp.StatusEnded || got.Name != "Summer" {
		t.Fatalf("after the system ended it: %+v (%v), want it ended and unchanged", got, err)
	}

	// A write before a read cannot go without locks: it runs with them.
	attempts = 0
	err = db.Write(ctx, func(tx store.Tx) error {
		attempts++
		if err := tx.DeleteCampaign(ctx, tn, c.ID); err != nil {
			return err
		}
		_, err := tx.GetCampaign(ctx, tn, c.ID)
		if adcamp.ErrorCode(err) != adcamp.CodeNotFound {
			return fmt.Errorf("GetCampaign after its delete = %v, want NOT_FOUND", err)
		}
		return nil
	})
	if err != nil || attempts != 2 {
		t.Fatalf("Write = %v after %d attempts, want nil after 2", err, attempts)
	}
}
