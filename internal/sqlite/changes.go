package sqlite

import (
	"context"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The change history (store.ChangesTx): its own table, written in the
// transactions of the changes it records.

const changeColumns = `id, occurred_at, account_id, environment, entity_type, entity_id, campaign_id, ad_group_id,
	operation, changes, actor_type, actor_id, request_id, idempotency_key, transaction_id, event_type`

// changesPerInsert bounds the rows of one INSERT (16 values each): that of
// the other batches, so that a full one is a cached statement (execBatch).
const changesPerInsert = rowsPerInsert

// A record is written with its event's type (adcamp.Change.EventType):
// the events' queries select on it (webhooks.go).
const changeRow = `(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

// nullID stores "" as NULL, so that the partial indexes leave it out.
func nullID(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (t *tx) AddChanges(ctx context.Context, cs []*adcamp.Change) error {
	for len(cs) > 0 {
		n := min(len(cs), changesPerInsert)
		var b strings.Builder
		b.WriteString(`INSERT INTO changes (` + changeColumns + `) VALUES `)
		args := make([]any, 0, n*16)
		for i, c := range cs[:n] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(changeRow)
			args = append(args, c.ID, micros(c.OccurredAt), c.AccountID, string(c.Environment), string(c.EntityType),
				c.EntityID, nullID(c.CampaignID), nullID(c.AdGroupID), string(c.Operation),
				store.EncodeFieldChanges(c.Changes), string(c.Actor.Type), c.Actor.ID, c.RequestID, c.IdempotencyKey,
				c.TransactionID, nullID(c.EventType))
		}
		if _, err := t.execBatch(ctx, n, b.String(), args...); err != nil {
			return err
		}
		cs = cs[n:]
	}
	return nil
}

// changeBranch is one range scan of a history query: the index it reads
// and what it adds to the query's conditions to keep to that index's
// entries.
type changeBranch struct {
	index string
	cond  string // "" for none
	arg   any    // of cond, if it takes one
}

// changeBranches are the range scans of a history query, each in id order
// on the index of its most selective filter (migration 00035): one
// usually; a campaign's own records and those under it (and an ad
// group's); one per actor type for a filter by entity type alone, one per
// entity type for a filter by actor type alone. Without statistics SQLite
// would rather take changes_tenant, which gives the order too, and read
// the tenant's every record to find one entity's: hence INDEXED BY.
func changeBranches(q store.ChangeQuery) []changeBranch {
	switch {
	case q.EntityID != "":
		return []changeBranch{{index: "changes_entity"}}
	case q.AdGroupID != "":
		return []changeBranch{{index: "changes_entity", cond: `entity_id = ?`, arg: q.AdGroupID},
			{index: "changes_ad_group", cond: `ad_group_id <> entity_id`}}
	case q.CampaignID != "":
		return []changeBranch{{index: "changes_entity", cond: `entity_id = ?`, arg: q.CampaignID},
			{index: "changes_campaign", cond: `campaign_id <> entity_id`}}
	case q.ActorID != "":
		return []changeBranch{{index: "changes_actor"}}
	case q.ActorType != "" && q.EntityType != "":
		return []changeBranch{{index: "changes_kind"}}
	case q.ActorType != "":
		bs := make([]changeBranch, len(adcamp.EntityTypes))
		for i, typ := range adcamp.EntityTypes {
			bs[i] = changeBranch{index: "changes_kind", cond: `entity_type = ?`, arg: string(typ)}
		}
		return bs
	case q.EntityType != "":
		bs := make([]changeBranch, len(adcamp.ActorTypes))
		for i, typ := range adcamp.ActorTypes {
			bs[i] = changeBranch{index: "changes_kind", cond: `actor_type = ?`, arg: string(typ)}
		}
		return bs
	}
	return []changeBranch{{index: "changes_tenant"}}
}

// changeWhere is the WHERE of a history query's branch for one
// environment, with its arguments appended to args.
func changeWhere(q store.ChangeQuery, env adcamp.Environment, b changeBranch, args []any) (string, []any) {
	var w strings.Builder
	cond := func(c string, v any) {
		if w.Len() > 0 {
			w.WriteString(` AND `)
		}
		w.WriteString(c)
		if v != nil {
			args = append(args, v)
		}
	}
	cond(`account_id = ?`, q.AccountID)
	cond(`environment = ?`, string(env))
	for _, f := range []struct{ column, value string }{
		{"entity_id", q.EntityID}, {"ad_group_id", q.AdGroupID}, {"campaign_id", q.CampaignID},
		{"actor_id", q.ActorID}, {"actor_type", string(q.ActorType)}, {"entity_type", string(q.EntityType)},
	} {
		if f.value != "" {
			cond(f.column+` = ?`, f.value)
		}
	}
	if b.cond != "" {
		cond(b.cond, b.arg)
	}
	if q.From != "" {
		cond(`id >= ?`, q.From)
	}
	if q.Before != "" {
		cond(`id < ?`, q.Before)
	}
	return w.String(), args
}

// changeListSQL is the statement of ListChanges: one ordered, limited
// range scan per environment and branch, merged when there are more.
func changeListSQL(q store.ChangeQuery) (string, []any) {
	var parts []string
	var args []any
	branches := changeBranches(q)
	for _, env := range q.Environments {
		for _, b := range branches {
			var where string
			where, args = changeWhere(q, env, b, args)
			parts = append(parts, `SELECT `+changeColumns+` FROM changes INDEXED BY `+b.index+` WHERE `+where)
		}
	}
	if len(parts) == 0 {
		return "", nil
	}
	// A compound SELECT's ORDER BY is each part's too: SQLite merges the
	// parts' ranges as it reads them, and stops at the limit.
	return strings.Join(parts, ` UNION ALL `) + ` ORDER BY id DESC LIMIT ?`, append(args, q.Limit)
}

func (t *tx) ListChanges(ctx context.Context, q store.ChangeQuery) ([]*adcamp.Change, error) {
	query, args := changeListSQL(q)
	if query == "" {
		return nil, nil
	}
	rows, err := t.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanChange)
}

func scanChange(row rowScanner) (*adcamp.Change, error) {
	var c adcamp.Change
	var occurred intCol
	var campaign, adGroup, event nullText
	var changes []byte
	err := row.Scan(&c.ID, &occurred, &c.AccountID, (*string)(&c.Environment), (*string)(&c.EntityType), &c.EntityID,
		&campaign, &adGroup, (*string)(&c.Operation), &changes, (*string)(&c.Actor.Type), &c.Actor.ID, &c.RequestID,
		&c.IdempotencyKey, &c.TransactionID, &event)
	if err != nil {
		return nil, err
	}
	c.OccurredAt = fromMicros(int64(occurred))
	c.CampaignID, c.AdGroupID, c.EventType = string(campaign), string(adGroup), string(event)
	if c.Changes, err = store.DecodeFieldChanges(changes); err != nil {
		return nil, err
	}
	return &c, nil
}

func (t *tx) PurgeChanges(ctx context.Context, before string, limit int) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM changes WHERE id IN (
		SELECT id FROM changes WHERE id < $1 ORDER BY id LIMIT $2)`, before, limit)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t *tx) Subtree(ctx context.Context, tn adcamp.Tenant, campaignID, adGroupID string) ([]*adcamp.AdGroup, []*adcamp.Keyword, error) {
	if err := t.consistent(ctx); err != nil {
		return nil, nil, err
	}
	var groups []*adcamp.AdGroup
	keywordsWhere := `ad_group_id = $1 AND account_id = $2 AND environment = $3`
	if campaignID != "" {
		rows, err := t.query(ctx, `SELECT `+adGroupColumns+` FROM ad_groups
			WHERE campaign_id = $1 AND account_id = $2 AND environment = $3 ORDER BY id`,
			campaignID, tn.AccountID, tn.Environment)
		if err != nil {
			return nil, nil, err
		}
		groups, err = collect(rows, scanAdGroup)
		if err != nil {
			return nil, nil, err
		}
		adGroupID = campaignID
		keywordsWhere = `ad_group_id IN (SELECT id FROM ad_groups WHERE campaign_id = $1)
			AND account_id = $2 AND environment = $3`
	}
	rows, err := t.query(ctx, `SELECT `+keywordColumns+` FROM keywords WHERE `+keywordsWhere+` ORDER BY id`,
		adGroupID, tn.AccountID, tn.Environment)
	if err != nil {
		return nil, nil, err
	}
	keywords, err := collect(rows, scanKeyword)
	return groups, keywords, err
}

// collect scans every row, and closes rows.
func collect[T any](rows interface {
	rowScanner
	Next() bool
	Err() error
	Close() error
}, scan func(rowScanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (t *tx) DueCampaigns(ctx context.Context, today adcamp.Date, limit int) ([]*adcamp.Campaign, error) {
	rows, err := t.query(ctx, `SELECT `+campaignColumns+` FROM campaigns INDEXED BY campaigns_due
		WHERE end_date < $1 AND status <> 'ended' AND end_date IS NOT NULL LIMIT $2`, today.String(), limit)
	if err != nil {
		return nil, err
	}
	// Usually none are due: a block of one, not of limit.
	return collect(rows, newCampaignScanner(adcamp.Tenant{}, 1).scan)
}

func (t *tx) SetCampaignsEnded(ctx context.Context, ids []string) error {
	for len(ids) > 0 {
		n := min(len(ids), 500)
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		_, err := t.tx.ExecContext(t.ctx(ctx), `UPDATE campaigns SET status = 'ended'
			WHERE id IN (?`+strings.Repeat(`,?`, n-1)+`) AND status <> 'ended'`, args...)
		if err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}
