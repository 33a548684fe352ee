package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

const negativeColumns = `id, campaign_id, ad_group_id, list_id, account_id, environment, text, match_type, status, version, created_at, updated_at`

func scanNegative(row rowScanner) (*adcamp.NegativeKeyword, error) {
	var n adcamp.NegativeKeyword
	var campaign, adGroup, list sql.NullString
	var created, updated int64
	err := row.Scan(&n.ID, &campaign, &adGroup, &list, &n.AccountID, &n.Environment, &n.Text, &n.MatchType,
		&n.Status, &n.Version, &created, &updated)
	if err != nil {
		return nil, err
	}
	n.CampaignID, n.AdGroupID, n.ListID = campaign.String, adGroup.String, list.String
	n.CreatedAt, n.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &n, nil
}

// jsonList is a list of strings as a JSON array, for json_each: one
// parameter whatever the length, and one statement text to cache.
func jsonList(ids []string) string {
	if ids == nil {
		ids = []string{}
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

func duplicateNegative() error {
	return adcamp.Errorf(adcamp.CodeDuplicateKeyword, "a negative keyword with this text and match type already exists here")
}

func (t *tx) CreateNegatives(ctx context.Context, ns []*adcamp.NegativeKeyword) error {
	return insertBatch(ctx, t, `INSERT INTO negative_keywords (parent_id, text_key, `+negativeColumns+`) VALUES `,
		`(?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, ns, func(args []any, k *adcamp.NegativeKeyword) []any {
			return append(args, k.ParentID(), k.TextKey(), k.ID, nullString(k.CampaignID), nullString(k.AdGroupID), nullString(k.ListID),
				k.AccountID, k.Environment, k.Text, k.MatchType, k.Status, k.Version, micros(k.CreatedAt), micros(k.UpdatedAt))
		}, duplicateNegative)
}

func (t *tx) TakenNegativeKeys(ctx context.Context, parentID, exceptID string, keys []store.KeywordKey) (map[store.KeywordKey]bool, error) {
	return takenKeys(ctx, t, "negative_keywords", "parent_id", parentID, exceptID, keys)
}

func (t *tx) GetNegative(ctx context.Context, tn adcamp.Tenant, id string) (*adcamp.NegativeKeyword, error) {
	n, err := scanNegative(t.queryRow(ctx,
		`SELECT `+negativeColumns+` FROM negative_keywords WHERE id = $1 AND account_id = $2 AND environment = $3`,
		id, tn.AccountID, tn.Environment))
	if err != nil {
		return nil, notFound(err, "negative keyword", id)
	}
	return n, nil
}

func (t *tx) ListNegatives(ctx context.Context, tn adcamp.Tenant, parentID string, q store.ListQuery) ([]*adcamp.NegativeKeyword, int64, error) {
	where := `parent_id = $1 AND account_id = $2 AND environment = $3`
	args := []any{parentID, tn.AccountID, tn.Environment}
	if q.Status != "" {
		args = append(args, q.Status)
		where += ` AND status = $` + itoa(len(args))
	}
	if q.MatchType != "" {
		args = append(args, q.MatchType)
		where += ` AND match_type = $` + itoa(len(args))
	}
	return listPage(ctx, t, `SELECT count(*) FROM negative_keywords WHERE `+where, "negative_keywords", negativeColumns,
		where, args, q, scanNegative)
}

func (t *tx) UpdateNegative(ctx context.Context, n *adcamp.NegativeKeyword) error {
	res, err := t.exec(ctx, `UPDATE negative_keywords SET text = $5, text_key = $6, match_type = $7, status = $8, updated_at = $9, version = $4
		WHERE id = $1 AND account_id = $2 AND environment = $3 AND version = $4 - 1`,
		n.ID, n.AccountID, n.Environment, n.Version, n.Text, n.TextKey(), n.MatchType, n.Status, micros(n.UpdatedAt))
	if isUniqueViolation(err) {
		return duplicateNegative()
	}
	return affectedVersion(res, err, "negative keyword", n.ID)
}

func (t *tx) DeleteNegatives(ctx context.Context, tn adcamp.Tenant, parentID string, ids []string) ([]*adcamp.NegativeKeyword, error) {
	return collectNegatives(t.query(ctx, `DELETE FROM negative_keywords
		WHERE id IN (SELECT value FROM json_each($1)) AND account_id = $2 AND environment = $3 AND ($4 = '' OR parent_id = $4)
		RETURNING `+negativeColumns, jsonList(ids), tn.AccountID, tn.Environment, parentID))
}

func (t *tx) NegativesUnder(ctx context.Context, tn adcamp.Tenant, campaignID, adGroupID string) ([]*adcamp.NegativeKeyword, error) {
	if campaignID != "" {
		return collectNegatives(t.query(ctx, `SELECT `+negativeColumns+` FROM negative_keywords
			WHERE campaign_id = $1 AND account_id = $2 AND environment = $3 ORDER BY id`, campaignID, tn.AccountID, tn.Environment))
	}
	return collectNegatives(t.query(ctx, `SELECT `+negativeColumns+` FROM negative_keywords
		WHERE parent_id = $1 AND account_id = $2 AND environment = $3 ORDER BY id`, adGroupID, tn.AccountID, tn.Environment))
}

func (t *tx) CountNegatives(ctx context.Context, tn adcamp.Tenant, parentID string) (int64, error) {
	var n int64
	err := t.queryRow(ctx, `SELECT count(*) FROM negative_keywords WHERE parent_id = $1 AND account_id = $2 AND environment = $3`,
		parentID, tn.AccountID, tn.Environment).Scan(&n)
	return n, err
}

func (t *tx) ApplicableNegatives(ctx context.Context, tn adcamp.Tenant, campaignID, adGroupID string) ([]*adcamp.NegativeKeyword, error) {
	return collectNegatives(t.query(ctx, `SELECT `+negativeColumns+` FROM negative_keywords
		WHERE status = 'active' AND account_id = $3 AND environment = $4 AND (
			parent_id = $1 OR ($2 <> '' AND parent_id = $2)
			OR parent_id IN (SELECT list_id FROM campaign_negative_lists WHERE campaign_id = $1))
		ORDER BY id`, campaignID, adGroupID, tn.AccountID, tn.Environment))
}

// collect scans the rows of a query of negatives.
func collectNegatives(rows *sql.Rows, err error) ([]*adcamp.NegativeKeyword, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*adcamp.NegativeKeyword
	for rows.Next() {
		n, err := scanNegative(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (t *tx) ActiveNegativeKeys(ctx context.Context, tn adcamp.Tenant, parentID string) ([]store.NegativeKey, error) {
	rows, err := t.query(ctx, `SELECT id, text_key, match_type FROM negative_keywords
		WHERE parent_id = $1 AND account_id = $2 AND environment = $3 AND status = 'active'`, parentID, tn.AccountID, tn.Environment)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.NegativeKey
	for rows.Next() {
		var n store.NegativeKey
		if err := rows.Scan(&n.ID, &n.TextKey, &n.MatchType); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (t *tx) KeywordTexts(ctx context.Context, tn adcamp.Tenant, campaignIDs []string, adGroupID string, activeOnly bool) ([]store.KeywordText, error) {
	q := `SELECT k.id, k.ad_group_id, k.text, k.text_key, k.status FROM keywords k
		WHERE k.ad_group_id = $1 AND k.account_id = $2 AND k.environment = $3 AND ($4 = 0 OR k.status = 'active') ORDER BY k.id`
	args := []any{adGroupID, tn.AccountID, tn.Environment, activeOnly}
	if adGroupID == "" {
		q = `SELECT k.id, k.ad_group_id, k.text, k.text_key, k.status FROM ad_groups g JOIN keywords k ON k.ad_group_id = g.id
			WHERE g.campaign_id IN (SELECT value FROM json_each($1)) AND g.account_id = $2 AND g.environment = $3
			AND ($4 = 0 OR k.status = 'active') ORDER BY k.id`
		args[0] = jsonList(campaignIDs)
	}
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.KeywordText
	for rows.Next() {
		var k store.KeywordText
		if err := rows.Scan(&k.ID, &k.AdGroupID, &k.Text, &k.TextKey, &k.Status); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (t *tx) KeywordPlaces(ctx context.Context, tn adcamp.Tenant, ids []string) (map[string]store.KeywordPlace, error) {
	rows, err := t.query(ctx, `SELECT k.id, k.ad_group_id, g.campaign_id FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id
		WHERE k.id IN (SELECT value FROM json_each($1)) AND k.account_id = $2 AND k.environment = $3`,
		jsonList(ids), tn.AccountID, tn.Environment)
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

func scanNegativeList(row rowScanner) (*adcamp.NegativeList, error) {
	var l adcamp.NegativeList
	var created, updated int64
	err := row.Scan(&l.ID, &l.AccountID, &l.Environment, &l.Name, &l.Version, &created, &updated, &l.Entries, &l.Campaigns)
	if err != nil {
		return nil, err
	}
	l.CreatedAt, l.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &l, nil
}

func (t *tx) CreateNegativeList(ctx context.Context, l *adcamp.NegativeList) error {
	_, err := t.exec(ctx, `INSERT INTO negative_keyword_lists (id, account_id, environment, name, version, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		l.ID, l.AccountID, l.Environment, l.Name, l.Version, micros(l.CreatedAt), micros(l.UpdatedAt))
	return err
}

func (t *tx) GetNegativeList(ctx context.Context, tn adcamp.Tenant, id string) (*adcamp.NegativeList, error) {
	l, err := scanNegativeList(t.queryRow(ctx, `SELECT `+negativeListColumns+` FROM negative_keyword_lists l
		WHERE l.id = $1 AND l.account_id = $2 AND l.environment = $3`, id, tn.AccountID, tn.Environment))
	if err != nil {
		return nil, notFound(err, "negative keyword list", id)
	}
	return l, nil
}

func (t *tx) ListNegativeLists(ctx context.Context, tn adcamp.Tenant, q store.ListQuery) ([]*adcamp.NegativeList, int64, error) {
	where := `account_id = $1 AND environment = $2`
	args := []any{tn.AccountID, tn.Environment}
	var total int64
	if err := t.queryRow(ctx, `SELECT count(*) FROM negative_keyword_lists WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	return page(ctx, t, total, "negative_keyword_lists l", negativeListColumns, where, args, q, scanNegativeList)
}

func (t *tx) UpdateNegativeList(ctx context.Context, l *adcamp.NegativeList) error {
	res, err := t.exec(ctx, `UPDATE negative_keyword_lists SET name = $5, updated_at = $6, version = $4
		WHERE id = $1 AND account_id = $2 AND environment = $3 AND version = $4 - 1`,
		l.ID, l.AccountID, l.Environment, l.Version, l.Name, micros(l.UpdatedAt))
	return affectedVersion(res, err, "negative keyword list", l.ID)
}

func (t *tx) DeleteNegativeList(ctx context.Context, tn adcamp.Tenant, id string) error {
	res, err := t.exec(ctx, `DELETE FROM negative_keyword_lists WHERE id = $1 AND account_id = $2 AND environment = $3`,
		id, tn.AccountID, tn.Environment)
	return affectedOne(res, err, "negative keyword list", id)
}

func (t *tx) AttachNegativeList(ctx context.Context, campaignID, listID string, at time.Time) (bool, error) {
	res, err := t.exec(ctx, `INSERT INTO campaign_negative_lists (campaign_id, list_id, created_at) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, campaignID, listID, micros(at))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *tx) DetachNegativeList(ctx context.Context, campaignID, listID string) (bool, error) {
	res, err := t.exec(ctx, `DELETE FROM campaign_negative_lists WHERE campaign_id = $1 AND list_id = $2`, campaignID, listID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *tx) AttachedLists(ctx context.Context, campaignID string) ([]string, error) {
	return t.strings(ctx, `SELECT list_id FROM campaign_negative_lists WHERE campaign_id = $1 ORDER BY list_id`, campaignID)
}

func (t *tx) CampaignsOfList(ctx context.Context, listID string) ([]string, error) {
	return t.strings(ctx, `SELECT campaign_id FROM campaign_negative_lists WHERE list_id = $1 ORDER BY campaign_id`, listID)
}

// strings runs a query of one text column.
func (t *tx) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
