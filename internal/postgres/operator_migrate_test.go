package postgres

import (
	"context"
	"database/sql"
	"strconv"
	"testing"
)

// TestMigration21Operator: 00021 on a database with an account gives it
// the time zone UTC, and its down step takes the column and tables away.
func TestMigration21Operator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := migrator(t, new([]string))
	if _, err := p.UpTo(ctx, 19); err != nil {
		t.Fatalf("migrate up to 19: %v", err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO accounts (id, name, created_at) VALUES ('acc_1', 'Acme', 1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 21); err != nil {
		t.Fatalf("migrate up to 21: %v", err)
	}
	var zone string
	if err := db.QueryRowContext(ctx, `SELECT time_zone FROM accounts WHERE id = 'acc_1'`).Scan(&zone); err != nil || zone != "UTC" {
		t.Errorf("time_zone after 00021 = %q, %v; want UTC", zone, err)
	}
	if _, err := p.DownTo(ctx, 19); err != nil {
		t.Fatalf("migrate down to 19: %v", err)
	}
	if _, err := db.ExecContext(ctx, `SELECT time_zone FROM accounts`); err == nil {
		t.Errorf("time_zone is still there after 00021's down step")
	}
}

// TestMigration37ExpiresFeedPositions: where the serving feed was used,
// 00037 marks every position given before it as purged (they answer 410);
// a new database gets no mark, so that its first snapshot's position is
// never held back by another transaction of the server.
func TestMigration37ExpiresFeedPositions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, used := range []bool{true, false} {
		db, p := migrator(t, new([]string))
		if _, err := p.UpTo(ctx, 34); err != nil {
			t.Fatalf("migrate up to 34: %v", err)
		}
		var before int64
		if used {
			if _, err := db.ExecContext(ctx, `INSERT INTO serving_feed (environment, kind, entity_id, created_at) VALUES ('production', 'campaign', 'cmp_1', 1)`); err != nil {
				t.Fatal(err)
			}
			// The horizon a reader would have been given now.
			if err := db.QueryRowContext(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`).Scan(&before); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.UpTo(ctx, 37); err != nil {
			t.Fatalf("migrate up to 37: %v", err)
		}
		var purged []byte
		err := db.QueryRowContext(ctx, `SELECT value FROM instance_settings WHERE name = 'serving_feed.purged'`).Scan(&purged)
		if !used {
			if err != sql.ErrNoRows {
				t.Errorf("a new database: serving_feed.purged = %s, %v; want none", purged, err)
			}
			continue
		}
		through, perr := strconv.ParseInt(string(purged), 10, 64)
		if err != nil || perr != nil || through <= before {
			t.Errorf("serving_feed.purged = %s, %v; want above the position %d given before", purged, err, before)
		}
	}
}

// TestMigration43DeliveryFillfactor: 00043 leaves room in the pages of
// delivery_hours and delivery_days on a database with figures in them,
// which stay as they were, and its down step takes the setting away.
func TestMigration43DeliveryFillfactor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := migrator(t, new([]string))
	if _, err := p.UpTo(ctx, 42); err != nil {
		t.Fatalf("migrate up to 42: %v", err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO delivery_hours (keyword_id, hour, account_id, environment, campaign_id, ad_group_id,
		impressions, clicks, cost, orders, sales, updated_at, day) VALUES ('kw_1', 1, 'acc_1', 'production', 'cmp_1', 'adg_1', 10, 1, 125, 0, 0, 1, 20261127)`); err != nil {
		t.Fatal(err)
	}
	options := func() string {
		var o sql.NullString
		if err := db.QueryRowContext(ctx, `SELECT string_agg(relname || ':' || array_to_string(reloptions, ','), ' ' ORDER BY relname)
			FROM pg_class WHERE relname IN ('delivery_hours', 'delivery_days') AND relnamespace = current_schema()::regnamespace`).Scan(&o); err != nil {
			t.Fatal(err)
		}
		return o.String
	}
	if _, err := p.UpTo(ctx, 43); err != nil {
		t.Fatalf("migrate up to 43: %v", err)
	}
	if got, want := options(), "delivery_days:fillfactor=70 delivery_hours:fillfactor=70"; got != want {
		t.Errorf("storage parameters after 00043 = %q, want %q", got, want)
	}
	var impressions int64
	if err := db.QueryRowContext(ctx, `SELECT impressions FROM delivery_hours WHERE keyword_id = 'kw_1'`).Scan(&impressions); err != nil || impressions != 10 {
		t.Errorf("the stored row after 00043: impressions %d, %v; want 10", impressions, err)
	}
	if _, err := p.DownTo(ctx, 42); err != nil {
		t.Fatalf("migrate down to 42: %v", err)
	}
	if got := options(); got != "" {
		t.Errorf("storage parameters after 00043's down step = %q, want none", got)
	}
}
