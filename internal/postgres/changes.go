package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The change history (store.ChangesTx): its own table, written in the
// transactions of the changes it records.

const changeColumns = `id, occurred_at, account_id, environment, entity_type, entity_id, campaign_id, ad_group_id,
	operation, changes, actor_type, actor_id, request_id, idempotency_key, transaction_id, event_type`

// nullID stores "" as NULL, so that the partial indexes leave it out.
func nullID(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// insertChange stores one record ($1 to $16, as changeArgs gives them),
// with its event's type (adcamp.Change.EventType): the events' queries
// select on it (webhooks.go).
const insertChange = `INSERT INTO changes (` + changeColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`

func changeArgs(c *adcamp.Change) []any {
	return []any{c.ID, micros(c.OccurredAt), c.AccountID, string(c.Environment), string(c.EntityType), c.EntityID,
		nullID(c.CampaignID), nullID(c.AdGroupID), string(c.Operation), string(store.EncodeFieldChanges(c.Changes)),
		string(c.Actor.Type), c.Actor.ID, c.RequestID, c.IdempotencyKey, c.TransactionID, nullID(c.EventType)}
}

func (t *tx) AddChanges(ctx context.Context, cs []*adcamp.Change) error {
	if len(cs) == 1 {
		// A new row, which nothing the service decides on can refuse: it
		// goes with the commit's round trip, inside the replay record's
		// statement when one follows (see SaveRecord).
		if t.pipe != nil {
			t.pipe.later = append(t.pipe.later, queued{sql: insertChange, args: changeArgs(cs[0]), check: execErr, change: true})
			return nil
		}
		return t.later(ctx, execErr, insertChange, changeArgs(cs[0])...)
	}
	// A batch in one statement: a column of values per array.
	n := len(cs)
	texts := make([][]string, 12)
	for i := range texts {
		texts[i] = make([]string, n)
	}
	occurred := make([]int64, n)
	campaigns, adGroups, events := make([]*string, n), make([]*string, n), make([]*string, n)
	for i, c := range cs {
		occurred[i] = micros(c.OccurredAt)
		campaigns[i], adGroups[i], events[i] = nullID(c.CampaignID), nullID(c.AdGroupID), nullID(c.EventType)
		for j, v := range []string{c.ID, c.AccountID, string(c.Environment), string(c.EntityType), c.EntityID,
			string(c.Operation), string(store.EncodeFieldChanges(c.Changes)), string(c.Actor.Type), c.Actor.ID,
			c.RequestID, c.IdempotencyKey, c.TransactionID} {
			texts[j][i] = v
		}
	}
	return t.later(ctx, execErr, `INSERT INTO changes (id, occurred_at, account_id, environment, entity_type, entity_id,
			campaign_id, ad_group_id, operation, changes, actor_type, actor_id, request_id, idempotency_key, transaction_id,
			event_type)
		SELECT u.id, u.occurred_at, u.account_id, u.environment, u.entity_type, u.entity_id, u.campaign_id, u.ad_group_id,
			u.operation, u.changes, u.actor_type, u.actor_id, u.request_id, u.idempotency_key, u.transaction_id, u.event_type
		FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
			$9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[])
			AS u (id, occurred_at, account_id, environment, entity_type, entity_id, campaign_id, ad_group_id,
			operation, changes, actor_type, actor_id, request_id, idempotency_key, transaction_id, event_type)`,
		texts[0], occurred, texts[1], texts[2], texts[3], texts[4], campaigns, adGroups,
		texts[5], texts[6], texts[7], texts[8], texts[9], texts[10], texts[11], events)
}

// changeWhere is the WHERE of a history query for one environment, with
// its arguments appended to args.
func changeWhere(q store.ChangeQuery, env adcamp.Environment, args []any) (string, []any) {
	var w strings.Builder
	cond := func(c string, v any) {
		if w.Len() > 0 {
			w.WriteString(` AND `)
		}
		args = append(args, v)
		w.WriteString(c + ` $` + itoa(len(args)))
	}
	cond(`account_id =`, q.AccountID)
	cond(`environment =`, string(env))
	for _, f := range []struct{ column, value string }{
		{"entity_id", q.EntityID}, {"ad_group_id", q.AdGroupID}, {"campaign_id", q.CampaignID},
		{"actor_type", string(q.ActorType)}, {"actor_id", q.ActorID}, {"entity_type", string(q.EntityType)},
	} {
		if f.value != "" {
			cond(f.column+` =`, f.value)
		}
	}
	if q.From != "" {
		cond(`id >=`, q.From)
	}
	if q.Before != "" {
		cond(`id <`, q.Before)
	}
	return w.String(), args
}

func (t *tx) ListChanges(ctx context.Context, q store.ChangeQuery) ([]*adcamp.Change, error) {
	var query string
	var args []any
	for i, env := range q.Environments {
		var where string
		where, args = changeWhere(q, env, args)
		args = append(args, q.Limit)
		sub := `SELECT ` + changeColumns + ` FROM changes WHERE ` + where + ` ORDER BY id DESC LIMIT $` + itoa(len(args))
		if len(q.Environments) == 1 {
			query = sub
			break
		}
		if i > 0 {
			query += ` UNION ALL `
		}
		query += `(` + sub + `)`
	}
	if query == "" {
		return nil, nil
	}
	if len(q.Environments) > 1 {
		query += ` ORDER BY id DESC LIMIT $` + itoa(len(args))
	}
	rows, err := t.tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*adcamp.Change, error) { return scanChange(r) })
}

func scanChange(r row) (*adcamp.Change, error) {
	var c adcamp.Change
	var occurred int64
	var campaign, adGroup, event *string
	var env, entityType, operation, changes, actorType string
	err := r.Scan(&c.ID, &occurred, &c.AccountID, &env, &entityType, &c.EntityID,
		&campaign, &adGroup, &operation, &changes, &actorType, &c.Actor.ID, &c.RequestID,
		&c.IdempotencyKey, &c.TransactionID, &event)
	if err != nil {
		return nil, err
	}
	c.Environment, c.EntityType, c.Operation = adcamp.Environment(env), adcamp.EntityType(entityType), adcamp.Operation(operation)
	c.Actor.Type = adcamp.ActorType(actorType)
	c.OccurredAt = fromMicros(occurred)
	if campaign != nil {
		c.CampaignID = *campaign
	}
	if adGroup != nil {
		c.AdGroupID = *adGroup
	}
	if event != nil {
		c.EventType = *event
	}
	if c.Changes, err = store.DecodeFieldChanges([]byte(changes)); err != nil {
		return nil, err
	}
	return &c, nil
}

func (t *tx) PurgeChanges(ctx context.Context, before string, limit int) (int64, error) {
	tag, err := t.tx.Exec(ctx, `DELETE FROM changes WHERE id IN (
		SELECT id FROM changes WHERE id < $1 ORDER BY id LIMIT $2)`, before, limit)
	return tag.RowsAffected(), err
}

func (t *tx) Subtree(ctx context.Context, tn adcamp.Tenant, campaignID, adGroupID string) ([]*adcamp.AdGroup, []*adcamp.Keyword, error) {
	var groups []*adcamp.AdGroup
	keywordsWhere := `ad_group_id = $1 AND account_id = $2 AND environment = $3`
	if campaignID != "" {
		rows, err := t.tx.Query(ctx, `SELECT `+adGroupColumns+` FROM ad_groups
			WHERE campaign_id = $1 AND account_id = $2 AND environment = $3 ORDER BY id`,
			campaignID, tn.AccountID, string(tn.Environment))
		if err != nil {
			return nil, nil, err
		}
		groups, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (*adcamp.AdGroup, error) { return scanAdGroup(r) })
		if err != nil {
			return nil, nil, err
		}
		adGroupID = campaignID
		keywordsWhere = `ad_group_id IN (SELECT id FROM ad_groups WHERE campaign_id = $1)
			AND account_id = $2 AND environment = $3`
	}
	rows, err := t.tx.Query(ctx, `SELECT `+keywordColumns+` FROM keywords WHERE `+keywordsWhere+` ORDER BY id`,
		adGroupID, tn.AccountID, string(tn.Environment))
	if err != nil {
		return nil, nil, err
	}
	keywords, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*adcamp.Keyword, error) { return scanKeyword(r) })
	return groups, keywords, err
}

func (t *tx) DueCampaigns(ctx context.Context, today adcamp.Date, limit int) ([]*adcamp.Campaign, error) {
	// SKIP LOCKED: processes ending campaigns at once take turns rather
	// than wait for (and conflict with) each other.
	rows, err := t.tx.Query(ctx, `SELECT `+campaignColumns+` FROM campaigns
		WHERE end_date < $1 AND status <> 'ended' AND end_date IS NOT NULL LIMIT $2 FOR UPDATE SKIP LOCKED`,
		today.String(), limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*adcamp.Campaign, error) { return scanCampaign(r) })
}

func (t *tx) SetCampaignsEnded(ctx context.Context, ids []string) error {
	t.cache.remove(ids...) // a change without a new version
	_, err := t.tx.Exec(ctx, `UPDATE campaigns SET status = 'ended' WHERE id = ANY ($1) AND status <> 'ended'`, ids)
	return err
}
