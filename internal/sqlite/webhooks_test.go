package sqlite

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// hooksFixture is a database with an account whose changes' events the
// tests queue, and an endpoint of it not stored yet.
type hooksFixture struct {
	ctx context.Context
	db  *DB
	acc *adcamp.Account
	ep  *store.WebhookEndpoint
	now time.Time
}

func newHooksFixture(t *testing.T) *hooksFixture {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Now().UTC().Truncate(time.Microsecond)
	acc := &adcamp.Account{ID: "acc_hooks", Name: "hooks", CreatedAt: now}
	ep := &store.WebhookEndpoint{WebhookEndpoint: adcamp.WebhookEndpoint{ID: "whe_1", AccountID: acc.ID,
		Environment: adcamp.Production, URL: "https://example.com/hook", Enabled: true, CreatedAt: now, UpdatedAt: now},
		Secret: []byte("sealed")}
	return &hooksFixture{ctx: ctx, db: db, acc: acc, ep: ep, now: now}
}

// event adds the event of a change record of the account, id.
func (f *hooksFixture) event(tx store.Tx, id string) error {
	return tx.AddEvents(f.ctx, []*adcamp.Event{{ID: id, AccountID: f.acc.ID, Environment: adcamp.Production,
		Type: "campaign.updated", OccurredAt: f.now}})
}

// queued returns the events in the outbox, in id order.
func (f *hooksFixture) queued(t *testing.T) []string {
	t.Helper()
	rows, err := f.db.read.QueryContext(f.ctx, `SELECT event_id FROM webhook_outbox ORDER BY event_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestEventsFollowEndpointsInATransaction changes a tenant's endpoints
// between its changes' events, all in one transaction (as in one batch of
// writes, where hasEndpoint keeps what it found): each event is queued
// exactly when the tenant has an enabled endpoint at that moment.
func TestEventsFollowEndpointsInATransaction(t *testing.T) {
	t.Parallel()
	f := newHooksFixture(t)
	ctx, ep := f.ctx, f.ep
	tn := adcamp.Tenant{AccountID: f.acc.ID, Environment: adcamp.Production}
	err := f.db.Write(ctx, func(tx store.Tx) error {
		steps := []func() error{
			func() error { return tx.CreateAccount(ctx, f.acc) },
			func() error { return f.event(tx, "evt_before") },
			func() error { return tx.CreateWebhookEndpoint(ctx, ep) },
			func() error { return f.event(tx, "evt_created") },
			func() error { ep.Enabled = false; return tx.UpdateWebhookEndpoint(ctx, ep) },
			func() error { return f.event(tx, "evt_disabled") },
			func() error { ep.Enabled = true; return tx.UpdateWebhookEndpoint(ctx, ep) },
			func() error { return f.event(tx, "evt_enabled") },
			func() error { return tx.DeleteWebhookEndpoint(ctx, tn, ep.ID) },
			func() error { return f.event(tx, "evt_deleted") },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.queued(t), []string{"evt_created", "evt_enabled"}; !slices.Equal(got, want) {
		t.Errorf("queued %v, want %v", got, want)
	}
}

// TestEventsAfterAnEndpointChangeRolledBack: in a batch of writes, one
// disables the tenant's endpoint, finds it so for its own change's event,
// and fails, rolled back to its savepoint; the next write's event must be
// queued, the endpoint being enabled again.
func TestEventsAfterAnEndpointChangeRolledBack(t *testing.T) {
	t.Parallel()
	f := newHooksFixture(t)
	ctx := f.ctx
	err := f.db.Write(ctx, func(tx store.Tx) error {
		if err := tx.CreateAccount(ctx, f.acc); err != nil {
			return err
		}
		return tx.CreateWebhookEndpoint(ctx, f.ep)
	})
	if err != nil {
		t.Fatal(err)
	}
	errFailed := errors.New("failed on purpose")
	results := inOneBatch(t, ctx, f.db, nil,
		func(tx store.Tx) error {
			disabled := *f.ep
			disabled.Enabled = false
			if err := tx.UpdateWebhookEndpoint(ctx, &disabled); err != nil {
				return err
			}
			if err := f.event(tx, "evt_rolled_back"); err != nil {
				return err
			}
			return errFailed
		},
		func(tx store.Tx) error { return f.event(tx, "evt_after") })
	if !errors.Is(results[0].err, errFailed) || results[1].err != nil {
		t.Fatalf("batch: %+v", results)
	}
	if got, want := f.queued(t), []string{"evt_after"}; !slices.Equal(got, want) {
		t.Errorf("queued %v, want %v", got, want)
	}
}
