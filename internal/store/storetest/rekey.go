package storetest

import (
	"database/sql"
	"slices"
	"strings"
	"testing"
)

// Rekey checks migration 00010 of a store: db is a database migrated to
// version 9, up migrates it to a version, and notices returns what the
// migrations reported. Keywords stored with the keys of before (NFC and
// case folding only) get the keys of adcamp.KeywordKey; where two come to
// read alike both are kept, the newer apart, and the collision is
// reported.
func Rekey(t *testing.T, db *sql.DB, up func(version int64) error, notices func() []string) {
	t.Helper()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO accounts (id, name, created_at) VALUES ('acc_1', 'Acme', 1)`)
	exec(`INSERT INTO campaigns (id, account_id, environment, name, budget_daily, marketplace, status, version, created_at, updated_at)
		VALUES ('cmp_1', 'acc_1', 'production', 'Sale', 100, 'US', 'active', 1, 1, 1)`)
	for _, g := range []string{"adg_1", "adg_2"} {
		exec(`INSERT INTO ad_groups (id, campaign_id, account_id, environment, name, default_bid, status, version, created_at, updated_at)
			VALUES ($1, 'cmp_1', 'acc_1', 'production', 'Shoes', 75, 'active', 1, 1, 1)`, g)
	}
	keywords := []struct{ id, adGroup, text, oldKey, matchType, wantKey string }{
		{"kw_1", "adg_1", "Red Hat", "red hat", "exact", "red hat"},
		{"kw_2", "adg_1", "red\u00a0hat", "red\u00a0hat", "exact", "red hat\x01kw_2"}, // reads like kw_1
		{"kw_3", "adg_1", "red  shoes", "red  shoes", "exact", "red shoes"},
		{"kw_4", "adg_1", "ＡＢＣ", "ａｂｃ", "phrase", "abc"},
		{"kw_5", "adg_1", "abc", "abc", "phrase", "abc\x01kw_5"}, // its old key is kw_4's new one
		{"kw_6", "adg_1", "abc", "abc", "broad", "abc"},
		{"kw_7", "adg_2", "red hat", "red hat", "exact", "red hat"},
	}
	for i, k := range keywords {
		exec(`INSERT INTO keywords (id, ad_group_id, account_id, environment, text, text_key, match_type, status, version, created_at, updated_at)
			VALUES ($1, $2, 'acc_1', 'production', $3, $4, $5, 'active', 1, $6, $6)`, k.id, k.adGroup, k.text, k.oldKey, k.matchType, i+1)
	}
	if err := up(10); err != nil {
		t.Fatalf("migrate up to 10: %v", err)
	}
	for _, k := range keywords {
		var key, text string
		if err := db.QueryRow(`SELECT text_key, text FROM keywords WHERE id = $1`, k.id).Scan(&key, &text); err != nil {
			t.Fatalf("%s after 00010: %v", k.id, err)
		}
		if key != k.wantKey || text != k.text {
			t.Errorf("%s after 00010: text %q, key %q; want %q, %q", k.id, text, key, k.text, k.wantKey)
		}
	}
	got := notices()
	if len(got) != 2 || !strings.Contains(got[0], "kw_2") || !strings.Contains(got[0], "kw_1") ||
		!strings.Contains(got[1], "kw_5") || !strings.Contains(got[1], "kw_4") {
		t.Errorf("notices after 00010 = %q, want kw_2 reported with kw_1, then kw_5 with kw_4", got)
	}
	// The unique index holds the new keys: another "RED HAT" is refused.
	_, err := db.Exec(`INSERT INTO keywords (id, ad_group_id, account_id, environment, text, text_key, match_type, status, version, created_at, updated_at)
		VALUES ('kw_8', 'adg_1', 'acc_1', 'production', 'RED  HAT', 'red hat', 'exact', 'active', 1, 9, 9)`)
	if err == nil {
		t.Error("a keyword with the key of kw_1 was stored beside it after 00010")
	}
	if slices.ContainsFunc(got, func(n string) bool { return strings.Contains(n, "kw_3") }) {
		t.Errorf("notices name kw_3, which collides with nothing: %q", got)
	}
}
