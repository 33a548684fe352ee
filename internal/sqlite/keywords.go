package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

const keywordColumns = `id, ad_group_id, account_id, environment, text, text_key, match_type, bid, status, version, created_at, updated_at`

// rowsPerInsert bounds the rows of one multi-row INSERT of keywords (12
// variables each) or negatives (14): far below SQLite's limit of 32,766.
const rowsPerInsert = 200

// keywordRow is the values of one keyword in CreateKeywords' INSERT.
const keywordRow = `(?,?,?,?,?,?,?,?,?,?,?,?)`

func scanKeyword(row rowScanner) (*adcamp.Keyword, error) {
	var k adcamp.Keyword
	var textKey string
	var bid sql.NullInt64
	var created, updated int64
	err := row.Scan(&k.ID, &k.AdGroupID, &k.AccountID, &k.Environment, &k.Text, &textKey, &k.MatchType, &bid,
		&k.Status, &k.Version, &created, &updated)
	if err != nil {
		return nil, err
	}
	if bid.Valid {
		m := adcamp.Money(bid.Int64)
		k.Bid = &m
	}
	k.CreatedAt, k.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &k, nil
}

func nullMoney(m *adcamp.Money) sql.NullInt64 {
	if m == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: int64(*m), Valid: true}
}

func duplicateKeyword() error {
	return adcamp.Errorf(adcamp.CodeDuplicateKeyword, "a keyword with this text and match type already exists in the ad group")
}

func (t *tx) CreateKeywords(ctx context.Context, ks []*adcamp.Keyword) error {
	return insertBatch(ctx, t, `INSERT INTO keywords (`+keywordColumns+`) VALUES `, keywordRow, ks, func(args []any, k *adcamp.Keyword) []any {
		return append(args, k.ID, k.AdGroupID, k.AccountID, k.Environment, k.Text, k.TextKey(), k.MatchType,
			nullMoney(k.Bid), k.Status, k.Version, micros(k.CreatedAt), micros(k.UpdatedAt))
	}, duplicateKeyword)
}

// insertBatch inserts rows with multi-row INSERTs of up to rowsPerInsert
// rows (head, then row's placeholders once a row, values appending its
// values to args),
// answering a unique index's refusal with duplicate(). One implementation
// for keywords and negative keywords.
func insertBatch[T any](ctx context.Context, t *tx, head, row string, rows []T, values func(args []any, r T) []any, duplicate func() error) error {
	for len(rows) > 0 {
		n := min(len(rows), rowsPerInsert)
		var b strings.Builder
		b.WriteString(head)
		args := make([]any, 0, n*strings.Count(row, "?"))
		for i, r := range rows[:n] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(row)
			args = values(args, r)
		}
		// Anonymous parameters (?), numbered by position: SQLite looks each
		// named one ($N) up among those before it, which made a batch of
		// 100 keywords spend half its time in the parser.
		if _, err := t.execBatch(ctx, n, b.String(), args...); err != nil {
			if isUniqueViolation(err) {
				return duplicate()
			}
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// execBatch runs a multi-row statement of n rows. A full one (of
// rowsPerInsert rows, the same text each time for a table) goes through
// the statement cache, as a single row does: compiling a 200-row INSERT
// cost a batch of 1,000 negatives a tenth of its time. The last, shorter
// statement of a batch does not: its text varies with the batch's size.
func (t *tx) execBatch(ctx context.Context, n int, q string, args ...any) (sql.Result, error) {
	if n == 1 || n == rowsPerInsert {
		return t.exec(ctx, q, args...)
	}
	return t.tx.ExecContext(t.ctx(ctx), q, args...)
}

func (t *tx) TakenKeywordKeys(ctx context.Context, adGroupID, exceptID string, keys []store.KeywordKey) (map[store.KeywordKey]bool, error) {
	return takenKeys(ctx, t, "keywords", "ad_group_id", adGroupID, exceptID, keys)
}

// takenKeys returns which of keys a table of keywords or negatives holds
// under a parent (other than the row exceptID), looked up through its
// unique index (parent, match_type, text_key) by match type: by text_key
// alone, the statement read every row of the parent.
func takenKeys(ctx context.Context, t *tx, table, parentColumn, parentID, exceptID string, keys []store.KeywordKey) (map[store.KeywordKey]bool, error) {
	taken := make(map[store.KeywordKey]bool)
	for _, g := range store.ByMatchType(keys) {
		for textKeys := g.TextKeys; len(textKeys) > 0; {
			n := min(len(textKeys), 500)
			args := []any{parentID, g.MatchType, exceptID}
			var in strings.Builder
			for i, k := range textKeys[:n] {
				if i > 0 {
					in.WriteByte(',')
				}
				args = append(args, k)
				in.WriteByte('?')
			}
			// Not through the statement cache, and with anonymous
			// parameters: see insertBatch.
			rows, err := t.tx.QueryContext(t.ctx(ctx), `SELECT text_key FROM `+table+`
				WHERE `+parentColumn+` = ? AND match_type = ? AND id <> ? AND text_key IN (`+in.String()+`)`, args...)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				k := store.KeywordKey{MatchType: g.MatchType}
				if err := rows.Scan(&k.TextKey); err != nil {
					rows.Close()
					return nil, err
				}
				taken[k] = true
			}
			if err := rows.Close(); err != nil {
				return nil, err
			}
			textKeys = textKeys[n:]
		}
	}
	return taken, nil
}

func (t *tx) GetKeyword(ctx context.Context, tn adcamp.Tenant, id string) (*adcamp.Keyword, error) {
	k, err := scanKeyword(t.queryRow(ctx,
		`SELECT `+keywordColumns+` FROM keywords WHERE id = $1 AND account_id = $2 AND environment = $3`,
		id, tn.AccountID, tn.Environment))
	if err != nil {
		return nil, notFound(err, "keyword", id)
	}
	return k, nil
}

func (t *tx) ListKeywords(ctx context.Context, tn adcamp.Tenant, adGroupID string, q store.ListQuery) ([]*adcamp.Keyword, int64, error) {
	where := `ad_group_id = $1 AND account_id = $2 AND environment = $3`
	args := []any{adGroupID, tn.AccountID, tn.Environment}
	if q.Status != "" {
		args = append(args, q.Status)
		where += ` AND status = $` + itoa(len(args))
	}
	if q.MatchType != "" {
		args = append(args, q.MatchType)
		where += ` AND match_type = $` + itoa(len(args))
	}
	return listPage(ctx, t, keptTotal("keyword_counts", where), "keywords", keywordColumns, where, args, q, scanKeyword)
}

// UpdateKeyword writes only what changed, as UpdateCampaign does: a
// keyword whose text and match type stay keeps its unique index entry
// untouched.
func (t *tx) UpdateKeyword(ctx context.Context, k, prev *adcamp.Keyword) error {
	args := []any{k.ID, k.AccountID, k.Environment, k.Version, micros(k.UpdatedAt)}
	set := `version = $4, updated_at = $5`
	textChanged := prev == nil || k.Text != prev.Text
	for _, f := range []struct {
		column  string
		changed bool
		value   any
	}{
		{"text", textChanged, k.Text},
		{"text_key", textChanged, k.TextKey()},
		{"match_type", prev == nil || k.MatchType != prev.MatchType, k.MatchType},
		{"bid", prev == nil || !sameBid(k.Bid, prev.Bid), nullMoney(k.Bid)},
		{"status", prev == nil || k.Status != prev.Status, k.Status},
	} {
		if f.changed {
			args = append(args, f.value)
			set += `, ` + f.column + ` = $` + itoa(len(args))
		}
	}
	res, err := t.exec(ctx, `UPDATE keywords SET `+set+`
		 WHERE id = $1 AND account_id = $2 AND environment = $3 AND version = $4 - 1`, args...)
	if isUniqueViolation(err) {
		return duplicateKeyword()
	}
	return affectedVersion(res, err, "keyword", k.ID)
}

// sameBid reports whether two bids (nil: the ad group's default) are equal.
func sameBid(a, b *adcamp.Money) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func (t *tx) DeleteKeyword(ctx context.Context, tn adcamp.Tenant, id string) error {
	res, err := t.exec(ctx,
		`DELETE FROM keywords WHERE id = $1 AND account_id = $2 AND environment = $3`, id, tn.AccountID, tn.Environment)
	return affectedOne(res, err, "keyword", id)
}
