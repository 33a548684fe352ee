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

// TestEventsFollowEndpointsInATransaction changes a tenant's endpoints
// between its changes' events, all in one transaction (as in one batch of
// writes, where hasEndpoint keeps what it found): each event is queued
// exactly when the tenant has an enabled endpoint at that moment.
func TestEventsFollowEndpointsInATransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UTC().Truncate(time.Microsecond)
	acc := &adcamp.Account{ID: "acc_hooks", Name: "hooks", CreatedAt: now}
	tn := adcamp.Tenant{AccountID: acc.ID, Environment: adcamp.Production}
	event := func(tx store.Tx, id string) error {
		return tx.AddEvents(ctx, []*adcamp.Event{{ID: id, AccountID: acc.ID, Environment: adcamp.Production,
			Type: "campaign.updated", OccurredAt: now}})
	}
	ep := &store.WebhookEndpoint{WebhookEndpoint: adcamp.WebhookEndpoint{ID: "whe_1", AccountID: acc.ID,
		Environment: adcamp.Production, URL: "https://example.com/hook", Enabled: true, CreatedAt: now, UpdatedAt: now},
		Secret: []byte("sealed")}
	err = db.Write(ctx, func(tx store.Tx) error {
		steps := []func() error{
			func() error { return tx.CreateAccount(ctx, acc) },
			func() error { return event(tx, "evt_before") },
			func() error { return tx.CreateWebhookEndpoint(ctx, ep) },
			func() error { return event(tx, "evt_created") },
			func() error { ep.Enabled = false; return tx.UpdateWebhookEndpoint(ctx, ep) },
			func() error { return event(tx, "evt_disabled") },
			func() error { ep.Enabled = true; return tx.UpdateWebhookEndpoint(ctx, ep) },
			func() error { return event(tx, "evt_enabled") },
			func() error { return tx.DeleteWebhookEndpoint(ctx, tn, ep.ID) },
			func() error { return event(tx, "evt_deleted") },
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
	var queued []string
	rows, err := db.read.QueryContext(ctx, `SELECT event_id FROM webhook_outbox ORDER BY event_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		queued = append(queued, id)
	}
	if want := []string{"evt_created", "evt_enabled"}; !slices.Equal(queued, want) {
		t.Errorf("queued %v, want %v", queued, want)
	}
}

// TestEventsAfterAnEndpointChangeRolledBack: in a batch of writes, one
// disables the tenant's endpoint, finds it so for its own change's event,
// and fails, rolled back to its savepoint; the next write's event must be
// queued, the endpoint being enabled again.
func TestEventsAfterAnEndpointChangeRolledBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UTC().Truncate(time.Microsecond)
	acc := &adcamp.Account{ID: "acc_hooks", Name: "hooks", CreatedAt: now}
	ep := &store.WebhookEndpoint{WebhookEndpoint: adcamp.WebhookEndpoint{ID: "whe_1", AccountID: acc.ID,
		Environment: adcamp.Production, URL: "https://example.com/hook", Enabled: true, CreatedAt: now, UpdatedAt: now},
		Secret: []byte("sealed")}
	err = db.Write(ctx, func(tx store.Tx) error {
		if err := tx.CreateAccount(ctx, acc); err != nil {
			return err
		}
		return tx.CreateWebhookEndpoint(ctx, ep)
	})
	if err != nil {
		t.Fatal(err)
	}
	event := func(tx store.Tx, id string) error {
		return tx.AddEvents(ctx, []*adcamp.Event{{ID: id, AccountID: acc.ID, Environment: adcamp.Production,
			Type: "campaign.updated", OccurredAt: now}})
	}
	errFailed := errors.New("failed on purpose")
	results := inOneBatch(t, ctx, db, nil,
		func(tx store.Tx) error {
			disabled := *ep
			disabled.Enabled = false
			if err := tx.UpdateWebhookEndpoint(ctx, &disabled); err != nil {
				return err
			}
			if err := event(tx, "evt_rolled_back"); err != nil {
				return err
			}
			return errFailed
		},
		func(tx store.Tx) error { return event(tx, "evt_after") })
	if !errors.Is(results[0].err, errFailed) || results[1].err != nil {
		t.Fatalf("batch: %+v", results)
	}
	var queued []string
	rows, err := db.read.QueryContext(ctx, `SELECT event_id FROM webhook_outbox ORDER BY event_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		queued = append(queued, id)
	}
	if want := []string{"evt_after"}; !slices.Equal(queued, want) {
		t.Errorf("queued %v, want %v", queued, want)
	}
}
