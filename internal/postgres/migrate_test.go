package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/pressly/goose/v3"

	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// migrator opens a fresh schema, unmigrated, and the migrations' provider
// for it, which reports to notices.
func migrator(t *testing.T, notices *[]string) (*sql.DB, *goose.Provider) {
	t.Helper()
	db, err := sql.Open("pgx", pgtest.NewSchema(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := newProvider(db, notices)
	if err != nil {
		t.Fatal(err)
	}
	return db, p
}

// TestMigration10Rekeys: migration 00010 gives every keyword the key of
// adcamp.KeywordKey, and reports the keywords that came to read alike.
func TestMigration10Rekeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var notices []string
	db, p := migrator(t, &notices)
	if _, err := p.UpTo(ctx, 9); err != nil {
		t.Fatalf("migrate up to 9: %v", err)
	}
	storetest.Rekey(t, db, func(v int64) error { _, err := p.UpTo(ctx, v); return err }, func() []string { return notices })
}

// TestMigration18CampaignInserts: migration 00018 drops the count trigger
// of campaign inserts and the campaigns' foreign key to accounts, whose
// cascade a trigger on accounts takes over; down, it brings both back
// after deleting the campaigns whose account is gone.
func TestMigration18CampaignInserts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := migrator(t, new([]string))
	exec := func(q string, args ...any) error { _, err := db.ExecContext(ctx, q, args...); return err }
	insert := func(id, account string) error {
		return exec(`INSERT INTO campaigns (id, account_id, environment, name, budget_daily, marketplace, status, version, created_at, updated_at)
			VALUES ($1, $2, 'production', 'Sale', 100, 'US', 'active', 1, 1, 1)`, id, account)
	}
	count := func(q string) (n int64) {
		t.Helper()
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	total := `SELECT coalesce((SELECT sum(n) FROM campaign_counts), 0) + coalesce((SELECT sum(n) FROM campaign_count_changes), 0)`

	if _, err := p.UpTo(ctx, 17); err != nil {
		t.Fatalf("migrate up to 17: %v", err)
	}
	if err := exec(`INSERT INTO accounts (id, name, created_at) VALUES ('acc_1', 'Acme', 1)`); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"cmp_1", "cmp_2"} {
		if err := insert(id, "acc_1"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.UpTo(ctx, 18); err != nil {
		t.Fatalf("migrate up to 18: %v", err)
	}
	if n := count(total); n != 2 {
		t.Errorf("at 18, the total is %d, want the 2 campaigns counted at 17", n)
	}
	// Without the foreign key, a campaign may name an account that is not
	// there. Without the row trigger, its count's change is the
	// inserter's to write, as CreateCampaign does.
	if err := insert("cmp_3", "acc_gone"); err != nil {
		t.Fatalf("insert at 18 for a missing account = %v, want nil", err)
	}
	if n := count(total); n != 2 {
		t.Errorf("at 18, the total is %d after an INSERT alone, want 2 (no trigger counts it)", n)
	}
	if err := exec(`INSERT INTO campaign_count_changes (account_id, environment, status, n) VALUES ('acc_gone', 'production', 'active', 1)`); err != nil {
		t.Fatal(err)
	}

	if _, err := p.DownTo(ctx, 17); err != nil {
		t.Fatalf("migrate down to 17: %v", err)
	}
	if n := count(`SELECT count(*) FROM campaigns`); n != 2 {
		t.Errorf("down at 17, %d campaigns, want 2 (the one of no account deleted)", n)
	}
	if err := insert("cmp_4", "acc_gone"); err == nil {
		t.Error("down at 17, a campaign of a missing account was stored, want the foreign key to refuse it")
	}
	if err := insert("cmp_5", "acc_1"); err != nil {
		t.Fatal(err)
	}
	if n := count(total); n != 3 {
		t.Errorf("down at 17, the total is %d, want 3 (the row trigger counts again)", n)
	}

	if _, err := p.UpTo(ctx, 18); err != nil {
		t.Fatalf("migrate up to 18 again: %v", err)
	}
	if err := exec(`DELETE FROM accounts WHERE id = 'acc_1'`); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM campaigns`); n != 0 {
		t.Errorf("after deleting the account, %d campaigns left, want 0", n)
	}
	if n := count(total); n != 0 {
		t.Errorf("after deleting the account, the total is %d, want 0", n)
	}
}

// TestMigration19CampaignDomains: migration 00019 moves the checks of a
// campaign's status and environment from CHECK constraints to domains.
// Either way a value outside them is refused (check_violation), the
// campaigns stored before are kept, and a change of status still counts.
func TestMigration19CampaignDomains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := migrator(t, new([]string))
	exec := func(q string, args ...any) error { _, err := db.ExecContext(ctx, q, args...); return err }
	insert := func(id, env, status string) error {
		return exec(`INSERT INTO campaigns (id, account_id, environment, name, budget_daily, marketplace, status, version, created_at, updated_at)
			VALUES ($1, 'acc_1', $2, 'Sale', 100, 'US', $3, 1, 1, 1)`, id, env, status)
	}
	refused := func(at string, err error) {
		t.Helper()
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "23514" {
			t.Errorf("%s: %v, want a check_violation (23514)", at, err)
		}
	}
	count := func(q string) (n int64) {
		t.Helper()
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	pending := `SELECT coalesce(sum(n), 0) FROM campaign_count_changes WHERE status = 'paused'`

	if _, err := p.UpTo(ctx, 18); err != nil {
		t.Fatalf("migrate up to 18: %v", err)
	}
	if err := insert("cmp_1", "production", "active"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		at      string
		migrate func() error
	}{
		{"at 19", func() error { _, err := p.UpTo(ctx, 19); return err }},
		{"down at 18", func() error { _, err := p.DownTo(ctx, 18); return err }},
		{"at 19 again", func() error { _, err := p.UpTo(ctx, 19); return err }},
	}
	for i, step := range steps {
		if err := step.migrate(); err != nil {
			t.Fatalf("migrate %s: %v", step.at, err)
		}
		at := step.at
		if n := count(`SELECT count(*) FROM campaigns WHERE id = 'cmp_1' AND status = 'active' AND environment = 'production'`); n != 1 {
			t.Errorf("%s, the campaign stored at 18 is gone or changed", at)
		}
		refused(at+", status paused2", insert(fmt.Sprint("cmp_s", i), "production", "paused2"))
		refused(at+", environment staging", insert(fmt.Sprint("cmp_e", i), "staging", "active"))
		refused(at+", an update to status stopped", exec(`UPDATE campaigns SET status = 'stopped' WHERE id = 'cmp_1'`))
		before := count(pending)
		if err := exec(`UPDATE campaigns SET status = 'paused' WHERE id = 'cmp_1'`); err != nil {
			t.Fatalf("%s: %v", at, err)
		}
		if n := count(pending); n != before+1 {
			t.Errorf("%s, pausing the campaign left the paused count's changes at %d, want %d", at, n, before+1)
		}
		if err := exec(`UPDATE campaigns SET status = 'active' WHERE id = 'cmp_1'`); err != nil {
			t.Fatal(err)
		}
	}
	var typ string
	if err := db.QueryRowContext(ctx, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute
		WHERE attrelid = 'campaigns'::regclass AND attname = 'status'`).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	if typ != "campaign_status" {
		t.Errorf("at 19, campaigns.status is of type %s, want the domain campaign_status", typ)
	}
}
