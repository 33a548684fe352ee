package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/pressly/goose/v3"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store"
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

// TestMigration45LighterChanges: migration 00045 replaces changes_type and
// changes_actor_type with changes_kind and leaves a campaign's and an ad
// group's own records out of changes_campaign and changes_ad_group; the
// records written before it are found as before by every filter, and its
// down step brings the indexes of 44 back.
func TestMigration45LighterChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := pgtest.NewSchema(t)
	db, err := sql.Open("pgx", s.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := newProvider(db, new([]string))
	if err != nil {
		t.Fatal(err)
	}
	indexes := func() map[string]string {
		t.Helper()
		rows, err := db.QueryContext(ctx, `SELECT indexname, indexdef FROM pg_indexes
			WHERE schemaname = current_schema() AND tablename = 'changes'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		defs := map[string]string{}
		for rows.Next() {
			var name, def string
			if err := rows.Scan(&name, &def); err != nil {
				t.Fatal(err)
			}
			defs[name] = def
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return defs
	}

	if _, err := p.UpTo(ctx, 44); err != nil {
		t.Fatalf("migrate up to 44: %v", err)
	}
	at44 := indexes()
	// A campaign, an ad group under it, keywords under that, another
	// campaign, a member; oldest first.
	for i, r := range [][]string{
		{"production", "campaign", "cmp_1", "cmp_1", "", "api_key"},
		{"production", "ad_group", "adg_1", "cmp_1", "adg_1", "api_key"},
		{"production", "keyword", "kw_1", "cmp_1", "adg_1", "user"},
		{"production", "campaign", "cmp_2", "cmp_2", "", "user"},
		{"", "member", "usr_1", "", "", "user"},
		{"production", "keyword", "kw_2", "cmp_1", "adg_1", "api_key"},
	} {
		_, err := db.ExecContext(ctx, `INSERT INTO changes (id, occurred_at, account_id, environment, entity_type, entity_id,
				campaign_id, ad_group_id, operation, changes, actor_type, actor_id, request_id, idempotency_key, transaction_id)
			VALUES ($1, 1, 'acc_1', $2, $3, $4, NULLIF($5, ''), NULLIF($6, ''), 'create', '{}', $7, 'x', '', '', '')`,
			fmt.Sprintf("chg_%d", i+1), r[0], r[1], r[2], r[3], r[4], r[5])
		if err != nil {
			t.Fatal(err)
		}
	}

	if _, err := p.UpTo(ctx, 45); err != nil {
		t.Fatalf("migrate up to 45: %v", err)
	}
	got := indexes()
	for name, want := range map[string]string{
		"changes_kind":     "(account_id, environment, entity_type, actor_type, id)",
		"changes_campaign": "(campaign_id, id) WHERE ((campaign_id IS NOT NULL) AND (campaign_id <> entity_id))",
		"changes_ad_group": "(ad_group_id, id) WHERE ((ad_group_id IS NOT NULL) AND (ad_group_id <> entity_id))",
	} {
		if !strings.HasSuffix(got[name], want) {
			t.Errorf("at 45, %s is %q, want it on %s", name, got[name], want)
		}
	}
	for _, name := range []string{"changes_type", "changes_actor_type", "changes_campaign_under", "changes_ad_group_under"} {
		if def, ok := got[name]; ok {
			t.Errorf("at 45, %s is still there: %s", name, def)
		}
	}
	if len(got) != 7 {
		t.Errorf("at 45, changes has %d indexes, want 7 (the primary key and six): %v", len(got), got)
	}

	st := openCounts(t, s.URL)
	prod := []adcamp.Environment{adcamp.Production}
	for _, c := range []struct {
		name string
		q    store.ChangeQuery
		want []string
	}{
		{"campaign", store.ChangeQuery{Environments: prod, CampaignID: "cmp_1"}, []string{"chg_6", "chg_3", "chg_2", "chg_1"}},
		{"campaign, own type", store.ChangeQuery{Environments: prod, CampaignID: "cmp_1", EntityType: adcamp.EntityCampaign},
			[]string{"chg_1"}},
		{"ad group", store.ChangeQuery{Environments: prod, AdGroupID: "adg_1"}, []string{"chg_6", "chg_3", "chg_2"}},
		{"entity type", store.ChangeQuery{Environments: prod, EntityType: adcamp.EntityCampaign}, []string{"chg_4", "chg_1"}},
		{"actor type", store.ChangeQuery{Environments: []adcamp.Environment{adcamp.Production, ""}, ActorType: adcamp.ActorUser},
			[]string{"chg_5", "chg_4", "chg_3"}},
		{"page", store.ChangeQuery{Environments: []adcamp.Environment{adcamp.Production, ""}, ActorType: adcamp.ActorUser,
			Before: "chg_5", Limit: 1}, []string{"chg_4"}},
	} {
		c.q.AccountID = "acc_1"
		if c.q.Limit == 0 {
			c.q.Limit = 10
		}
		var ids []string
		err := st.ReadOne(ctx, func(tx store.Tx) error {
			cs, err := tx.ListChanges(ctx, c.q)
			for _, ch := range cs {
				ids = append(ids, ch.ID)
			}
			return err
		})
		if err != nil {
			t.Fatalf("%s: ListChanges: %v", c.name, err)
		}
		if !slices.Equal(ids, c.want) {
			t.Errorf("at 45, %s: ListChanges = %v, want %v", c.name, ids, c.want)
		}
	}
	st.Close()

	if _, err := p.DownTo(ctx, 44); err != nil {
		t.Fatalf("migrate down to 44: %v", err)
	}
	if got := indexes(); !maps.Equal(got, at44) {
		t.Errorf("after 45's down step, the indexes of changes are\n%v\nwant those of 44\n%v", got, at44)
	}
	if _, err := p.UpTo(ctx, 45); err != nil {
		t.Fatalf("migrate up to 45 again: %v", err)
	}
}
