package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

const negativeColumns = `id, campaign_id, ad_group_id, list_id, account_id, environment, text, match_type, status, version, created_at, updated_at`

func scanNegative(r row) (*adcamp.NegativeKeyword, error) {
	var n adcamp.NegativeKeyword
	var campaign, adGroup, list *string
	var env, match, status string
	var created, updated int64
	err := r.Scan(&n.ID, &campaign, &adGroup, &list, &n.AccountID, &env, &n.Text, &match,
		&status, &n.Version, &created, &updated)
	if err != nil {
		return nil, err
	}
	for _, p := range []struct {
		from *string
		to   *string
	}{{campaign, &n.CampaignID}, {adGroup, &n.AdGroupID}, {list, &n.ListID}} {
		if p.from != nil {
			*p.to = *p.from
		}
	}
	n.Environment, n.MatchType, n.Status = adcamp.Environment(env), adcamp.MatchType(match), adcamp.Status(status)
	n.CreatedAt, n.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &n, nil
}

func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// isDuplicateNegative recognises a violation of the negatives' unique
// index by its SQLSTATE and the index's name.
func isDuplicateNegative(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == "23505" && e.ConstraintName == "negative_keywords_unique_text"
}

func duplicateNegative() error {
	return adcamp.Errorf(adcamp.CodeDuplicateKeyword, "a negative keyword with this text and match type already exists here")
}

// CreateNegatives inserts the batch as columns of arrays, unnested: one
// statement for a batch of the API's largest size.
func (t *tx) CreateNegatives(ctx context.Context, ns []*adcamp.NegativeKeyword) error {
	if len(ns) == 0 {
		return nil
	}
	n := len(ns)
	cols := make([][]*string, 12) // parent, text_key, id, campaign, ad group, list, account, env, text, match, status
	for i := range cols {
		cols[i] = make([]*string, n)
	}
	versions, created, updated := make([]int64, n), make([]int64, n), make([]int64, n)
	for i, k := range ns {
		vals := []string{k.ParentID(), k.TextKey(), k.ID, k.CampaignID, k.AdGroupID, k.ListID, k.AccountID,
			string(k.Environment), k.Text, string(k.MatchType), string(k.Status)}
		for c, v := range vals {
			if c >= 3 && c <= 5 {
				cols[c][i] = nullText(v)
			} else {
				cols[c][i] = &vals[c]
			}
		}
		versions[i], created[i], updated[i] = k.Version, micros(k.CreatedAt), micros(k.UpdatedAt)
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO negative_keywords (parent_id, text_key, `+negativeColumns+`)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[], $13::bigint[], $14::bigint[])`,
		cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], cols[8], cols[9], cols[10],
		versions, created, updated)
	if isDuplicateNegative(err) {
		return duplicateNegative()
	}
	return err
}

func (t *tx) TakenNegativeKeys(ctx context.Context, parentID, exceptID string, keys []store.KeywordKey) (map[store.KeywordKey]bool, error) {
	taken := make(map[store.KeywordKey]bool)
	for _, g := range store.ByMatchType(keys) {
		rows, err := t.tx.Query(ctx, `SELECT n.text_key FROM unnest($3::text[]) AS u (text_key)
			JOIN negative_keywords n ON n.parent_id = $1 AND n.match_type = $2 AND n.text_key = u.text_key
			WHERE n.id <> $4`, parentID, string(g.MatchType), g.TextKeys, exceptID)
		if err != nil {
			return nil, err
		}
		keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			taken[store.KeywordKey{MatchType: g.MatchType, TextKey: k}] = true
		}
	}
	return taken, nil
}

func (t *tx) GetNegative(ctx context.Context, tn adcamp.Tenant, id string) (*adcamp.NegativeKeyword, error) {
	n, err := scanNegative(t.tx.QueryRow(ctx,
		`SELECT `+negativeColumns+` FROM negative_keywords WHERE id = $1 AND account_id = $2 AND environment = $3`+t.lock(),
		id, tn.AccountID, string(tn.Environment)))
	if err != nil {
		return nil, notFound(err, "negative keyword", id)
	}
	return n, nil
}

func (t *tx) ListNegatives(ctx context.Context, tn adcamp.Tenant, parentID string, q store.ListQuery) ([]*adcamp.NegativeKeyword, int64, error) {
	where := `parent_id = $1 AND account_id = $2 AND environment = $3`
	args := []any{parentID, tn.AccountID, string(tn.Environment)}
	if q.Status != "" {
		args = append(args, string(q.Status))
		where += ` AND status = $` + itoa(len(args))
	}
	if q.MatchType != "" {
		args = append(args, string(q.MatchType))
		where += ` AND match_type = $` + itoa(len(args))
	}
	return listPage(ctx, t, `SELECT count(*) FROM negative_keywords WHERE `+where, "negative_keywords", negativeColumns,
		where, args, q, scanNegative)
}

func (t *tx) UpdateNegative(ctx context.Context, n *adcamp.NegativeKeyword) error {
	tag, err := t.tx.Exec(ctx, `UPDATE negative_keywords SET text = $5, text_key = $6, match_type = $7, status = $8, updated_at = $9, version = $4
		WHERE id = $1 AND account_id = $2 AND environment = $3 AND version = $4 - 1`,
		n.ID, n.AccountID, string(n.Environment), n.Version, n.Text, n.TextKey(), string(n.MatchType), string(n.Status), micros(n.UpdatedAt))
	if isDuplicateNegative(err) {
		return duplicateNegative()
	}
	return affectedVersion(tag, err, "negative keyword", n.ID)
}

func (t *tx) collect(ctx context.Context, sql string, args ...any) ([]*adcamp.NegativeKeyword, error) {
	rows, err := t.tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*adcamp.NegativeKeyword, error) { return scanNegative(r) })
}

func (t *tx) DeleteNegatives(ctx context.Context, tn adcamp.Tenant, parentID string, ids []string) ([]*adcamp.NegativeKeyword, error) {
	return t.collect(ctx, `DELETE FROM negative_keywords
		WHERE id = ANY ($1::text[]) AND account_id = $2 AND environment = $3 AND ($4 = '' OR parent_id = $4)
		RETURNING `+negativeColumns, ids, tn.AccountID, string(tn.Environment), parentID)
}

func (t *tx) NegativesUnder(ctx context.Context, tn adcamp.Tenant, campaignID, adGroupID string) ([]*adcamp.NegativeKeyword, error) {
	if campaignID != "" {
		return t.collect(ctx, `SELECT `+negativeColumns+` FROM negative_keywords
			WHERE campaign_id = $1 AND account_id = $2 AND environment = $3 ORDER BY id`, campaignID, tn.AccountID, string(tn.Environment))
	}
	return t.collect(ctx, `SELECT `+negativeColumns+` FROM negative_keywords
		WHERE parent_id = $1 AND account_id = $2 AND environment = $3 ORDER BY id`, adGroupID, tn.AccountID, string(tn.Environment))
}

func (t *tx) CountNegatives(ctx context.Context, tn adcamp.Tenant, parentID string) (int64, error) {
	var n int64
	err := t.tx.QueryRow(ctx, `SELECT count(*) FROM negative_keywords WHERE parent_id = $1 AND account_id = $2 AND environment = $3`,
		parentID, tn.AccountID, string(tn.Environment)).Scan(&n)
	return n, err
}

func (t *tx) ApplicableNegatives(ctx context.Context, tn adcamp.Tenant, campaignID, adGroupID string) ([]*adcamp.NegativeKeyword, error) {
	return t.collect(ctx, `SELECT `+negativeColumns+` FROM negative_keywords
		WHERE status = 'active' AND account_id = $3 AND environment = $4 AND parent_id = ANY (
			ARRAY[$1::text, $2::text] || ARRAY(SELECT list_id FROM campaign_negative_lists WHERE campaign_id = $1))
		ORDER BY id`, campaignID, adGroupID, tn.AccountID, string(tn.Environment))
}

func (t *tx) ActiveNegativeKeys(ctx context.Context, tn adcamp.Tenant, parentID string) ([]store.NegativeKey, error) {
	rows, err := t.tx.Query(ctx, `SELECT id, text_key, match_type FROM negative_keywords
		WHERE parent_id = $1 AND account_id = $2 AND environment = $3 AND status = 'active'`, parentID, tn.AccountID, string(tn.Environment))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.NegativeKey, error) {
		var n store.NegativeKey
		var mt string
		err := r.Scan(&n.ID, &n.TextKey, &mt)
		n.MatchType = adcamp.MatchType(mt)
		return n, err
	})
}

func (t *tx) KeywordTexts(ctx context.Context, tn adcamp.Tenant, campaignIDs []string, adGroupID string, activeOnly bool) ([]store.KeywordText, error) {
	q := `SELECT k.id, k.ad_group_id, k.text, k.text_key, k.status FROM keywords k
		WHERE k.ad_group_id = $1 AND k.account_id = $2 AND k.environment = $3 AND (NOT $4 OR k.status = 'active') ORDER BY k.id`
	args := []any{adGroupID, tn.AccountID, string(tn.Environment), activeOnly}
	if adGroupID == "" {
		q = `SELECT k.id, k.ad_group_id, k.text, k.text_key, k.status FROM ad_groups g JOIN keywords k ON k.ad_group_id = g.id
			WHERE g.campaign_id = ANY ($1::text[]) AND g.account_id = $2 AND g.environment = $3
			AND (NOT $4 OR k.status = 'active') ORDER BY k.id`
		args[0] = campaignIDs
	}
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.KeywordText, error) {
		var k store.KeywordText
		var status string
		err := r.Scan(&k.ID, &k.AdGroupID, &k.Text, &k.TextKey, &status)
		k.Status = adcamp.Status(status)
		return k, err
	})
}

func (t *tx) KeywordPlaces(ctx context.Context, tn adcamp.Tenant, ids []string) (map[string]store.KeywordPlace, error) {
	rows, err := t.tx.Query(ctx, `SELECT k.id, k.ad_group_id, g.campaign_id FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id
		WHERE k.id = ANY ($1::text[]) AND k.account_id = $2 AND k.environment = $3`,
		ids, tn.AccountID, string(tn.Environment))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]store.KeywordPlace, len(ids))
	for rows.Next() {
		var id string
		var p store.KeywordPlace
		if err := rows.Scan(&id, &p.AdGroupID, &p.CampaignID); err != nil {
			return nil, err
		}
		out[id] = p
	}
	return out, rows.Err()
}

const negativeListColumns = `l.id, l.account_id, l.environment, l.name, l.version, l.created_at, l.updated_at,
	(SELECT count(*) FROM negative_keywords n WHERE n.parent_id = l.id),
	(SELECT count(*) FROM campaign_negative_lists a WHERE a.list_id = l.id)`

func scanNegativeList(r row) (*adcamp.NegativeList, error) {
	var l adcamp.NegativeList
	var env string
	var created, updated int64
	err := r.Scan(&l.ID, &l.AccountID, &env, &l.Name, &l.Version, &created, &updated, &l.Entries, &l.Campaigns)
	if err != nil {
		return nil, err
	}
	l.Environment = adcamp.Environment(env)
	l.CreatedAt, l.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &l, nil
}

func (t *tx) CreateNegativeList(ctx context.Context, l *adcamp.NegativeList) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO negative_keyword_lists (id, account_id, environment, name, version, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		l.ID, l.AccountID, string(l.Environment), l.Name, l.Version, micros(l.CreatedAt), micros(l.UpdatedAt))
	return err
}

// GetNegativeList locks the list's row in a write transaction, so that
// changes of its entries and attachments queue (the limits of entries
// and of lists per campaign are counted under the lock).
func (t *tx) GetNegativeList(ctx context.Context, tn adcamp.Tenant, id string) (*adcamp.NegativeList, error) {
	lock := ""
	if t.lock() != "" {
		lock = " FOR NO KEY UPDATE OF l"
	}
	l, err := scanNegativeList(t.tx.QueryRow(ctx, `SELECT `+negativeListColumns+` FROM negative_keyword_lists l
		WHERE l.id = $1 AND l.account_id = $2 AND l.environment = $3`+lock, id, tn.AccountID, string(tn.Environment)))
	if err != nil {
		return nil, notFound(err, "negative keyword list", id)
	}
	return l, nil
}

func (t *tx) ListNegativeLists(ctx context.Context, tn adcamp.Tenant, q store.ListQuery) ([]*adcamp.NegativeList, int64, error) {
	where := `account_id = $1 AND environment = $2`
	args := []any{tn.AccountID, string(tn.Environment)}
	return listPage(ctx, t, `SELECT count(*) FROM negative_keyword_lists WHERE `+where, "negative_keyword_lists l",
		negativeListColumns, where, args, q, scanNegativeList)
}

func (t *tx) UpdateNegativeList(ctx context.Context, l *adcamp.NegativeList) error {
	tag, err := t.tx.Exec(ctx, `UPDATE negative_keyword_lists SET name = $5, updated_at = $6, version = $4
		WHERE id = $1 AND account_id = $2 AND environment = $3 AND version = $4 - 1`,
		l.ID, l.AccountID, string(l.Environment), l.Version, l.Name, micros(l.UpdatedAt))
	return affectedVersion(tag, err, "negative keyword list", l.ID)
}

func (t *tx) DeleteNegativeList(ctx context.Context, tn adcamp.Tenant, id string) error {
	tag, err := t.tx.Exec(ctx, `DELETE FROM negative_keyword_lists WHERE id = $1 AND account_id = $2 AND environment = $3`,
		id, tn.AccountID, string(tn.Environment))
	return affectedOne(tag, err, "negative keyword list", id)
}

func (t *tx) AttachNegativeList(ctx context.Context, campaignID, listID string, at time.Time) (bool, error) {
	tag, err := t.tx.Exec(ctx, `INSERT INTO campaign_negative_lists (campaign_id, list_id, created_at) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, campaignID, listID, micros(at))
	return err == nil && tag.RowsAffected() == 1, err
}

func (t *tx) DetachNegativeList(ctx context.Context, campaignID, listID string) (bool, error) {
	tag, err := t.tx.Exec(ctx, `DELETE FROM campaign_negative_lists WHERE campaign_id = $1 AND list_id = $2`, campaignID, listID)
	return err == nil && tag.RowsAffected() == 1, err
}

func (t *tx) AttachedLists(ctx context.Context, campaignID string) ([]string, error) {
	rows, err := t.tx.Query(ctx, `SELECT list_id FROM campaign_negative_lists WHERE campaign_id = $1 ORDER BY list_id`, campaignID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (t *tx) CampaignsOfList(ctx context.Context, listID string) ([]string, error) {
	rows, err := t.tx.Query(ctx, `SELECT campaign_id FROM campaign_negative_lists WHERE list_id = $1 ORDER BY campaign_id`, listID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
