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

// changeBranch is one range scan of a history query: what it adds to the
// query's conditions to keep to the entries of its index, and whether
// that index leads with the tenant (one scan per environment) or with an
// entity (one scan for every environment).
type changeBranch struct {
	cond   string // "" for none; "$" for arg's parameter
	arg    any
	tenant bool
}

// changeBranches are the range scans of a history query, each in id order
// on the index of its most selective filter (migration 00045), as SQLite's
// (see its changeBranches): one usually (changes_entity, changes_actor,
// changes_kind, changes_tenant); a campaign's own records (changes_entity)
// and those under it (changes_campaign), the same for an ad group; one per
// actor type for a filter by entity type alone, one per entity type for a
// filter by actor type alone (changes_kind). Each reads a page at most,
// and their merge a few pages: never the tenant's history.
func changeBranches(q store.ChangeQuery) []changeBranch {
	switch {
	case q.EntityID != "":
		return []changeBranch{{}}
	case q.AdGroupID != "":
		return ownAndUnder(q, adcamp.EntityAdGroup, q.AdGroupID, `ad_group_id <> entity_id`)
	case q.CampaignID != "":
		return ownAndUnder(q, adcamp.EntityCampaign, q.CampaignID, `campaign_id <> entity_id`)
	case q.ActorID != "", q.ActorType != "" && q.EntityType != "":
		return []changeBranch{{tenant: true}}
	case q.ActorType != "":
		bs := make([]changeBranch, len(adcamp.EntityTypes))
		for i, typ := range adcamp.EntityTypes {
			bs[i] = changeBranch{cond: `entity_type = $`, arg: string(typ), tenant: true}
		}
		return bs
	case q.EntityType != "":
		bs := make([]changeBranch, len(adcamp.ActorTypes))
		for i, typ := range adcamp.ActorTypes {
			bs[i] = changeBranch{cond: `actor_type = $`, arg: string(typ), tenant: true}
		}
		return bs
	}
	return []changeBranch{{tenant: true}}
}

// ownAndUnder are the branches of a filter by a campaign or an ad group
// (id, of type typ): its own records, of entity id, and those under it,
// whose partial index leaves its own out (under). A filter by entity
// type keeps one of them: an entity of type typ lies under no other of
// its type, and one of another type is not the campaign or ad group.
func ownAndUnder(q store.ChangeQuery, typ adcamp.EntityType, id, under string) []changeBranch {
	own := changeBranch{cond: `entity_id = $`, arg: id}
	switch q.EntityType {
	case "":
		return []changeBranch{own, {cond: under}}
	case typ:
		return []changeBranch{own}
	}
	return []changeBranch{{cond: under}}
}

// changeWhere is the WHERE of a history query's branch in envs, with its
// arguments appended to args.
func changeWhere(q store.ChangeQuery, envs []adcamp.Environment, b changeBranch, args []any) (string, []any) {
	var w strings.Builder
	cond := func(c string, v any) {
		if w.Len() > 0 {
			w.WriteString(` AND `)
		}
		if before, after, ok := strings.Cut(c, `$`); ok {
			args = append(args, v)
			c = before + `$` + itoa(len(args)) + after
		}
		w.WriteString(c)
	}
	cond(`account_id = $`, q.AccountID)
	if len(envs) == 1 {
		cond(`environment = $`, string(envs[0]))
	} else {
		for i, env := range envs {
			args = append(args, string(env))
			if i == 0 {
				w.WriteString(` AND environment IN ($` + itoa(len(args)))
			} else {
				w.WriteString(`, $` + itoa(len(args)))
			}
		}
		w.WriteString(`)`)
	}
	for _, f := range []struct{ column, value string }{
		{"entity_id", q.EntityID}, {"ad_group_id", q.AdGroupID}, {"campaign_id", q.CampaignID},
		{"actor_id", q.ActorID}, {"actor_type", string(q.ActorType)}, {"entity_type", string(q.EntityType)},
	} {
		if f.value != "" {
			cond(f.column+` = $`, f.value)
		}
	}
	if b.cond != "" {
		cond(b.cond, b.arg)
	}
	if q.From != "" {
		cond(`id >= $`, q.From)
	}
	if q.Before != "" {
		cond(`id < $`, q.Before)
	}
	return w.String(), args
}

// changeListSQL is the statement of ListChanges: one ordered, limited
// range scan per branch, and per environment for a branch on an index
// that leads with the tenant (the others' indexes lead with an entity,
// which lies in one environment), merged when there are more: PostgreSQL
// reads the parts' ranges in step (a Merge Append) and stops at the
// limit, or sorts their few pages.
func changeListSQL(q store.ChangeQuery) (string, []any) {
	if len(q.Environments) == 0 {
		return "", nil
	}
	var parts []string
	var args []any
	for _, b := range changeBranches(q) {
		envs := [][]adcamp.Environment{q.Environments}
		if b.tenant {
			envs = envs[:0]
			for _, env := range q.Environments {
				envs = append(envs, []adcamp.Environment{env})
			}
		}
		for _, in := range envs {
			var where string
			where, args = changeWhere(q, in, b, args)
			parts = append(parts, `SELECT `+changeColumns+` FROM changes WHERE `+where)
		}
	}
	// One parameter for every limit.
	args = append(args, q.Limit)
	order := ` ORDER BY id DESC LIMIT $` + itoa(len(args))
	if len(parts) == 1 {
		return parts[0] + order, args
	}
	for i, p := range parts {
		parts[i] = `(` + p + order + `)`
	}
	return strings.Join(parts, ` UNION ALL `) + order, args
}

func (t *tx) ListChanges(ctx context.Context, q store.ChangeQuery) ([]*adcamp.Change, error) {
	query, args := changeListSQL(q)
	if query == "" {
		return nil, nil
	}
	// Planned for its values every time (see planned): a generic plan
	// expects an average tenant's or entity's few records, and finds them
	// all to sort them (a bitmap scan) rather than read a page in order.
	rows, err := t.tx.Query(ctx, query, planned(args)...)
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
