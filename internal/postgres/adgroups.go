package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

const adGroupColumns = `id, campaign_id, account_id, environment, name, default_bid, status, version, created_at, updated_at`

func scanAdGroup(r row) (*adcamp.AdGroup, error) {
	var g adcamp.AdGroup
	var env, status string
	var bid, created, updated int64
	err := r.Scan(&g.ID, &g.CampaignID, &g.AccountID, &env, &g.Name, &bid, &status,
		&g.Version, &created, &updated)
	if err != nil {
		return nil, err
	}
	g.Environment, g.DefaultBid, g.Status = adcamp.Environment(env), adcamp.Money(bid), adcamp.Status(status)
	g.CreatedAt, g.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &g, nil
}

func (t *tx) CreateAdGroup(ctx context.Context, g *adcamp.AdGroup) error {
	return t.later(ctx, execErr,
		`INSERT INTO ad_groups (`+adGroupColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		g.ID, g.CampaignID, g.AccountID, string(g.Environment), g.Name, int64(g.DefaultBid), string(g.Status), g.Version,
		micros(g.CreatedAt), micros(g.UpdatedAt))
}

func (t *tx) GetAdGroup(ctx context.Context, tn adcamp.Tenant, id string) (*adcamp.AdGroup, error) {
	g, err := scanAdGroup(t.tx.QueryRow(ctx,
		`SELECT `+adGroupColumns+` FROM ad_groups WHERE id = $1 AND account_id = $2 AND environment = $3`+t.lock(),
		id, tn.AccountID, string(tn.Environment)))
	if err != nil {
		return nil, notFound(err, "ad group", id)
	}
	return g, nil
}

func (t *tx) ListAdGroups(ctx context.Context, tn adcamp.Tenant, campaignID string, q store.ListQuery) ([]*adcamp.AdGroup, int64, error) {
	where := `campaign_id = $1 AND account_id = $2 AND environment = $3`
	args := []any{campaignID, tn.AccountID, string(tn.Environment)}
	if q.Status != "" {
		where += ` AND status = $4`
		args = append(args, string(q.Status))
	}
	return listPage(ctx, t, keptTotal("ad_group_counts", "ad_group_count_changes", where), "ad_groups", adGroupColumns,
		where, args, q, scanAdGroup)
}

// UpdateAdGroup writes only what changed. The service has read (and
// locked) the row in this transaction, so the statement goes with the
// commit.
func (t *tx) UpdateAdGroup(ctx context.Context, g, prev *adcamp.AdGroup) error {
	args := []any{g.ID, g.AccountID, string(g.Environment), g.Version, micros(g.UpdatedAt)}
	set := `version = $4, updated_at = $5`
	for _, f := range []changed{
		{"name", prev == nil || g.Name != prev.Name, g.Name},
		{"default_bid", prev == nil || g.DefaultBid != prev.DefaultBid, int64(g.DefaultBid)},
		{"status", prev == nil || g.Status != prev.Status, string(g.Status)},
	} {
		set, args = f.add(set, args)
	}
	return t.later(ctx, func(tag pgconn.CommandTag, err error) error { return affectedVersion(tag, err, "ad group", g.ID) },
		`UPDATE ad_groups SET `+set+` WHERE id = $1 AND account_id = $2 AND environment = $3 AND version = $4 - 1`,
		args...)
}

// changed is a column of an update, written only if its value changed.
type changed struct {
	column  string
	changed bool
	value   any
}

// add appends the column to an UPDATE's SET list and its value to args,
// if it changed.
func (f changed) add(set string, args []any) (string, []any) {
	if !f.changed {
		return set, args
	}
	args = append(args, f.value)
	return set + `, ` + f.column + ` = $` + itoa(len(args)), args
}

func (t *tx) DeleteAdGroup(ctx context.Context, tn adcamp.Tenant, id string) error {
	tag, err := t.tx.Exec(ctx,
		`DELETE FROM ad_groups WHERE id = $1 AND account_id = $2 AND environment = $3`,
		id, tn.AccountID, string(tn.Environment))
	return affectedOne(tag, err, "ad group", id)
}

func (t *tx) CountChildren(ctx context.Context, tn adcamp.Tenant, campaignID, adGroupID string) (int64, int64, error) {
	var groups, keywords int64
	var err error
	if campaignID != "" {
		err = t.tx.QueryRow(ctx,
			`SELECT count(*), coalesce((SELECT count(*) FROM keywords k WHERE k.ad_group_id IN
			   (SELECT id FROM ad_groups WHERE campaign_id = $1 AND account_id = $2 AND environment = $3)), 0)
			 FROM ad_groups WHERE campaign_id = $1 AND account_id = $2 AND environment = $3`,
			campaignID, tn.AccountID, string(tn.Environment)).Scan(&groups, &keywords)
	} else {
		err = t.tx.QueryRow(ctx,
			`SELECT count(*) FROM keywords WHERE ad_group_id = $1 AND account_id = $2 AND environment = $3`,
			adGroupID, tn.AccountID, string(tn.Environment)).Scan(&keywords)
	}
	return groups, keywords, err
}
