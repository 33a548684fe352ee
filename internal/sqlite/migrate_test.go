package sqlite

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/adcamp/adcamp/internal/store/storetest"
)

// TestMigration6KeepsRecords: moving request_records to a WITHOUT ROWID
// table, and back, keeps the stored answers of a database in service; so
// does moving them back to a rowid table, appended in order (00047), and
// down again.
func TestMigration6KeepsRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := migrationDB(t)
	if _, err := p.UpTo(ctx, 5); err != nil {
		t.Fatalf("migrate up to 5: %v", err)
	}
	if _, err := db.Exec(`INSERT INTO request_records (scope, token, request_hash, status, header, body, created_at, expires_at)
		VALUES ('sig:ak_live_x', 'abc', x'01', 201, '{}', '{"success":true}', 10, 20)`); err != nil {
		t.Fatal(err)
	}
	check := func(when string, wantWithoutRowid bool) {
		t.Helper()
		var status int
		var body string
		err := db.QueryRow(`SELECT status, body FROM request_records WHERE scope = 'sig:ak_live_x' AND token = 'abc'`).Scan(&status, &body)
		if err != nil || status != 201 || body != `{"success":true}` {
			t.Errorf("%s: the record reads %d %q, %v; want 201 {\"success\":true}", when, status, body, err)
		}
		var ddl string
		if err := db.QueryRow(`SELECT sql FROM sqlite_schema WHERE name = 'request_records'`).Scan(&ddl); err != nil {
			t.Fatal(err)
		}
		if got := len(ddl) > 13 && ddl[len(ddl)-13:] == "WITHOUT ROWID"; got != wantWithoutRowid {
			t.Errorf("%s: request_records is WITHOUT ROWID = %v, want %v:\n%s", when, got, wantWithoutRowid, ddl)
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'request_records_expiry'`).Scan(&n); err != nil || n != 1 {
			t.Errorf("%s: request_records_expiry: %d indexes, %v; want 1", when, n, err)
		}
	}
	if _, err := p.UpTo(ctx, 6); err != nil {
		t.Fatalf("migrate up to 6: %v", err)
	}
	check("after 00006", true)
	if _, err := p.DownTo(ctx, 5); err != nil {
		t.Fatalf("migrate down to 5: %v", err)
	}
	check("after 00006 down", false)

	if _, err := p.UpTo(ctx, 46); err != nil {
		t.Fatalf("migrate up to 46: %v", err)
	}
	check("after 00006 to 00046", true)
	if _, err := p.UpTo(ctx, 47); err != nil {
		t.Fatalf("migrate up to 47: %v", err)
	}
	check("after 00047", false)
	if _, err := db.Exec(`INSERT INTO request_records (scope, token, request_hash, status, header, body, created_at, expires_at)
		VALUES ('sig:ak_live_x', 'abc', x'02', 200, '{}', '{}', 30, 40)`); err == nil {
		t.Error("after 00047: a second record of the same scope and token was stored")
	}
	if _, err := p.DownTo(ctx, 46); err != nil {
		t.Fatalf("migrate down to 46: %v", err)
	}
	check("after 00047 down", true)
}

// TestMigration7KeepsCampaigns: rebuilding campaigns keyed by id, and
// back, keeps every campaign, the rows that reference them, the counters'
// triggers and the cascades.
func TestMigration7KeepsCampaigns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := migrationDB(t)
	if _, err := p.UpTo(ctx, 6); err != nil {
		t.Fatalf("migrate up to 6: %v", err)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO accounts (id, name, created_at) VALUES ('acc_1', 'Acme', 1)`)
	for _, id := range []string{"cmp_1", "cmp_2", "cmp_3"} {
		exec(`INSERT INTO campaigns (id, account_id, environment, name, budget_daily, marketplace, status, version, created_at, updated_at)
			VALUES ('` + id + `', 'acc_1', 'production', 'Sale', 100, 'US', 'active', 1, 1, 1)`)
	}
	exec(`INSERT INTO ad_groups (id, campaign_id, account_id, environment, name, default_bid, status, version, created_at, updated_at)
		VALUES ('adg_1', 'cmp_1', 'acc_1', 'production', 'Shoes', 75, 'active', 1, 1, 1)`)
	exec(`INSERT INTO ad_groups (id, campaign_id, account_id, environment, name, default_bid, status, version, created_at, updated_at)
		VALUES ('adg_2', 'cmp_2', 'acc_1', 'production', 'Hats', 75, 'active', 1, 1, 1)`)

	count := func(q string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	check := func(when string, keyed bool, campaigns int) {
		t.Helper()
		var ddl string
		if err := db.QueryRow(`SELECT sql FROM sqlite_schema WHERE name = 'campaigns'`).Scan(&ddl); err != nil {
			t.Fatal(err)
		}
		if got := strings.HasSuffix(ddl, "WITHOUT ROWID"); got != keyed {
			t.Errorf("%s: campaigns is WITHOUT ROWID = %v, want %v", when, got, keyed)
		}
		if n := count(`SELECT count(*) FROM campaigns`); n != campaigns {
			t.Errorf("%s: %d campaigns, want %d", when, n, campaigns)
		}
		if n := count(`SELECT coalesce(sum(n), 0) FROM campaign_counts WHERE account_id = 'acc_1'`); n != campaigns {
			t.Errorf("%s: campaign_counts holds %d, want %d", when, n, campaigns)
		}
		if n := count(`SELECT count(*) FROM sqlite_schema WHERE tbl_name = 'campaigns' AND type IN ('index', 'trigger') AND sql IS NOT NULL`); n != 7 {
			t.Errorf("%s: campaigns has %d indexes and triggers, want 7", when, n)
		}
		if n := count(`SELECT count(*) FROM pragma_foreign_key_check`); n != 0 {
			t.Errorf("%s: %d broken references", when, n)
		}
	}

	if _, err := p.UpTo(ctx, 7); err != nil {
		t.Fatalf("migrate up to 7: %v", err)
	}
	check("after 00007", true, 3)
	if n := count(`SELECT count(*) FROM ad_groups`); n != 2 {
		t.Fatalf("after 00007: %d ad groups, want 2", n)
	}
	// The triggers count a new campaign, and deleting one cascades.
	exec(`INSERT INTO campaigns (id, account_id, environment, name, budget_daily, marketplace, status, version, created_at, updated_at)
		VALUES ('cmp_4', 'acc_1', 'production', 'Sale', 100, 'US', 'active', 1, 2, 2)`)
	exec(`DELETE FROM campaigns WHERE id = 'cmp_1'`)
	check("after 00007, an insert and a delete", true, 3)
	if n := count(`SELECT count(*) FROM ad_groups WHERE id = 'adg_1'`); n != 0 {
		t.Errorf("after 00007: deleting a campaign left its ad group")
	}
	if _, err := db.Exec(`INSERT INTO ad_groups (id, campaign_id, account_id, environment, name, default_bid, status, version, created_at, updated_at)
		VALUES ('adg_9', 'cmp_missing', 'acc_1', 'production', 'X', 1, 'active', 1, 1, 1)`); err == nil {
		t.Errorf("after 00007: an ad group of no campaign was stored; foreign keys are off")
	}

	if _, err := p.DownTo(ctx, 6); err != nil {
		t.Fatalf("migrate down to 6: %v", err)
	}
	check("after 00007 down", false, 3)
	if n := count(`SELECT count(*) FROM ad_groups WHERE id = 'adg_2'`); n != 1 {
		t.Errorf("after 00007 down: ad group adg_2 is gone")
	}
}

// migrationDB is an empty database file with one connection (the
// migrations set connection pragmas), and a goose provider over it.
func migrationDB(t *testing.T) (*sql.DB, *goose.Provider) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), FileName)+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	return db, p
}

// TestMigration9CountsChildren checks that migration 00009 counts the ad
// groups and keywords already stored, that its triggers count new ones,
// and that deleting a campaign, whose delete cascades, leaves no counter
// of its ad groups or their keywords behind.
func TestMigration9CountsChildren(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := migrationDB(t)
	if _, err := p.UpTo(ctx, 7); err != nil {
		t.Fatalf("migrate up to 7: %v", err)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	counters := func(q string) string {
		t.Helper()
		var s string
		if err := db.QueryRow(`SELECT coalesce(group_concat(c, ' '), '') FROM (` + q + `)`).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s
	}
	exec(`INSERT INTO accounts (id, name, created_at) VALUES ('acc_1', 'Acme', 1)`)
	for _, id := range []string{"cmp_1", "cmp_2"} {
		exec(`INSERT INTO campaigns (id, account_id, environment, name, budget_daily, marketplace, status, version, created_at, updated_at)
			VALUES ('` + id + `', 'acc_1', 'production', 'Sale', 100, 'US', 'active', 1, 1, 1)`)
	}
	for _, g := range [][2]string{{"adg_1", "active"}, {"adg_2", "active"}, {"adg_3", "paused"}} {
		exec(`INSERT INTO ad_groups (id, campaign_id, account_id, environment, name, default_bid, status, version, created_at, updated_at)
			VALUES ('` + g[0] + `', 'cmp_1', 'acc_1', 'production', 'Shoes', 75, '` + g[1] + `', 1, 1, 1)`)
	}
	for i, k := range [][3]string{{"adg_1", "exact", "active"}, {"adg_1", "exact", "active"}, {"adg_1", "broad", "paused"}, {"adg_3", "phrase", "active"}} {
		n := strconv.Itoa(i)
		exec(`INSERT INTO keywords (id, ad_group_id, account_id, environment, text, text_key, match_type, status, version, created_at, updated_at)
			VALUES ('kw_` + n + `', '` + k[0] + `', 'acc_1', 'production', 'k` + n + `', 'k` + n + `', '` + k[1] + `', '` + k[2] + `', 1, 1, 1)`)
	}

	if _, err := p.UpTo(ctx, 9); err != nil {
		t.Fatalf("migrate up to 9: %v", err)
	}
	const groups = `SELECT campaign_id || '/' || status || '=' || n AS c FROM ad_group_counts WHERE account_id = 'acc_1' ORDER BY 1`
	const keywords = `SELECT ad_group_id || '/' || status || '/' || match_type || '=' || n AS c FROM keyword_counts
		WHERE account_id = 'acc_1' ORDER BY 1`
	if got, want := counters(groups), "cmp_1/active=2 cmp_1/paused=1"; got != want {
		t.Errorf("ad group counters after 00009: %q, want %q", got, want)
	}
	if got, want := counters(keywords), "adg_1/active/exact=2 adg_1/paused/broad=1 adg_3/active/phrase=1"; got != want {
		t.Errorf("keyword counters after 00009: %q, want %q", got, want)
	}

	exec(`INSERT INTO ad_groups (id, campaign_id, account_id, environment, name, default_bid, status, version, created_at, updated_at)
		VALUES ('adg_4', 'cmp_2', 'acc_1', 'production', 'Hats', 75, 'active', 1, 2, 2)`)
	exec(`DELETE FROM campaigns WHERE id = 'cmp_1'`)
	if got, want := counters(groups), "cmp_2/active=1"; got != want {
		t.Errorf("ad group counters after deleting cmp_1: %q, want %q", got, want)
	}
	if got := counters(keywords); got != "" {
		t.Errorf("keyword counters after deleting cmp_1: %q, want none", got)
	}

	if _, err := p.DownTo(ctx, 7); err != nil {
		t.Fatalf("migrate down to 7: %v", err)
	}
	var left int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name LIKE '%counted%' AND tbl_name IN ('ad_groups', 'keywords')
		OR name IN ('ad_group_counts', 'keyword_counts')`).Scan(&left); err != nil || left != 0 {
		t.Errorf("after 00009 down: %d of its tables and triggers left (%v)", left, err)
	}
}

// TestMigration10Rekeys: migration 00010 gives every keyword the key of
// adcamp.KeywordKey, and reports the keywords that came to read alike.
func TestMigration10Rekeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := migrationDB(t)
	var notices []string
	p, err := newProvider(db, &notices)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 9); err != nil {
		t.Fatalf("migrate up to 9: %v", err)
	}
	storetest.Rekey(t, db, func(v int64) error { _, err := p.UpTo(ctx, v); return err }, func() []string { return notices })
}

// TestMigration48OrdersListIndexesAscending: 00048 rebuilds the eight
// indexes that order lists ascending (a list reads them backwards; the
// plan and paging tests hold the lists), and its down migration rebuilds
// them descending.
func TestMigration48OrdersListIndexesAscending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := migrationDB(t)
	names := []string{"campaigns_tenant", "campaigns_tenant_status", "ad_groups_campaign", "ad_groups_campaign_status",
		"keywords_ad_group", "channel_accounts_account", "negative_keyword_lists_tenant", "negative_keywords_parent"}
	check := func(when string, wantDesc bool) {
		t.Helper()
		for _, name := range names {
			var ddl string
			if err := db.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?`, name).Scan(&ddl); err != nil {
				t.Fatalf("%s: index %s: %v", when, name, err)
			}
			if got := strings.Contains(ddl, "DESC"); got != wantDesc {
				t.Errorf("%s: %s descending = %v, want %v: %s", when, name, got, wantDesc, ddl)
			}
		}
	}
	if _, err := p.UpTo(ctx, 47); err != nil {
		t.Fatalf("migrate up to 47: %v", err)
	}
	check("at 00047", true)
	if _, err := p.UpTo(ctx, 48); err != nil {
		t.Fatalf("migrate up to 48: %v", err)
	}
	check("after 00048", false)
	if _, err := p.DownTo(ctx, 47); err != nil {
		t.Fatalf("migrate down to 47: %v", err)
	}
	check("after 00048 down", true)
}
