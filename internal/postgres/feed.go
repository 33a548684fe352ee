package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The serving feed's journal (store.FeedTx). Sequence values commit out
// of order here, so a row carries the id of the transaction that wrote it
// and a position is a horizon H: every transaction with an id below H has
// finished (committed or not), so the rows below H are all there are.
// A reader's horizon is the xmin of its own snapshot; the rows it answers
// are those in [after, xmin). What its snapshot sees of transactions at
// or above xmin it may answer twice: the reader answers current state,
// which repeats harmlessly.

func (t *tx) AppendFeed(ctx context.Context, rows []store.FeedRow, now time.Time) error {
	if len(rows) == 0 {
		return nil
	}
	env, kind, id := make([]string, len(rows)), make([]string, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		env[i], kind[i], id[i] = string(r.Environment), r.Kind, r.EntityID
	}
	return t.laterFolded(ctx, `INSERT INTO serving_feed (environment, kind, entity_id, created_at)
		SELECT e, k, i, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS r(e, k, i)`, env, kind, id, micros(now))
}

const horizon = `pg_snapshot_xmin(pg_current_snapshot())::text::bigint`

func (t *tx) FeedHead(ctx context.Context) (int64, error) {
	var h int64
	err := t.tx.QueryRow(ctx, `SELECT `+horizon).Scan(&h)
	return h, err
}

func (t *tx) ReadFeed(ctx context.Context, env adcamp.Environment, after, until int64) ([]store.FeedRow, int64, error) {
	next := until
	if until == 0 {
		var err error
		if next, err = t.FeedHead(ctx); err != nil {
			return nil, 0, err
		}
	}
	if next < after {
		next = after
	}
	rows, err := t.tx.Query(ctx, `SELECT kind, entity_id FROM serving_feed
		WHERE xid >= $1::bigint::text::xid8 AND xid < $2::bigint::text::xid8 AND environment = $3 ORDER BY xid`,
		after, next, string(env))
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []store.FeedRow
	for rows.Next() {
		r := store.FeedRow{Environment: env}
		if err := rows.Scan(&r.Kind, &r.EntityID); err != nil {
			return nil, 0, err
		}
		out = append(out, r)
	}
	return out, next, rows.Err()
}

func (t *tx) PurgeFeed(ctx context.Context, cutoff time.Time) (int64, error) {
	var through *int64
	err := t.tx.QueryRow(ctx, `SELECT max(xid)::text::bigint + 1 FROM serving_feed WHERE created_at < $1`, micros(cutoff)).Scan(&through)
	if err != nil || through == nil {
		return 0, err
	}
	_, err = t.tx.Exec(ctx, `DELETE FROM serving_feed WHERE xid < $1::bigint::text::xid8`, *through)
	return *through, err
}

const servingSelect = `SELECT k.id, k.text, k.match_type, k.bid, k.status, k.ad_group_id, g.default_bid, g.status,
	c.id, c.account_id, c.budget_daily, c.marketplace, c.channel_account_id, c.start_date, c.end_date, c.status, a.time_zone
	FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id JOIN accounts a ON a.id = c.account_id
	WHERE k.environment = $1 AND `

func (t *tx) ScanServing(ctx context.Context, env adcamp.Environment, scope store.FeedScope, fn func(*store.ServingKeyword) error) error {
	var k store.ServingKeyword
	run := func(cond string, args ...any) error {
		rows, err := t.tx.Query(ctx, servingSelect+cond, append([]any{string(env)}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var bid, channel *int64
			var start, end *string
			var budget, def int64
			c := &k.Campaign
			if err := rows.Scan(&k.ID, &k.Text, &k.MatchType, &bid, &k.Status, &k.AdGroupID, &def, &k.AdGroupStatus,
				&c.ID, &c.AccountID, &budget, &c.Marketplace, &channel, &start, &end, &c.Status, &k.AccountTimeZone); err != nil {
				return err
			}
			k.Bid, k.DefaultBid, c.BudgetDaily, c.Environment, c.ChannelAccountID = nil, adcamp.Money(def), adcamp.Money(budget), env, channel
			if bid != nil {
				m := adcamp.Money(*bid)
				k.Bid = &m
			}
			if c.StartDate, err = textDate(deref(start), start == nil); err != nil {
				return err
			}
			if c.EndDate, err = textDate(deref(end), end == nil); err != nil {
				return err
			}
			if err := fn(&k); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	if scope.All {
		return t.scanAllServing(ctx, env, fn)
	}
	for _, part := range []struct {
		column string
		ids    []string
	}{{"k.id", scope.KeywordIDs}, {"k.ad_group_id", scope.AdGroupIDs}, {"g.campaign_id", scope.CampaignIDs}, {"k.account_id", scope.AccountIDs}} {
		if len(part.ids) == 0 {
			continue
		}
		if err := run(part.column+` = ANY($2::text[])`, part.ids); err != nil {
			return err
		}
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (t *tx) RecentSpend(ctx context.Context, env adcamp.Environment, since time.Time, campaignIDs []string) ([]store.CampaignHourCost, error) {
	var rows pgx.Rows
	var err error
	if campaignIDs == nil {
		rows, err = t.tx.Query(ctx, `SELECT s.campaign_id, s.hour, s.cost FROM campaign_hour_spend s
			JOIN campaigns c ON c.id = s.campaign_id WHERE s.hour >= $1 AND c.environment = $2`, micros(since), string(env))
	} else {
		// A range of the primary key per campaign: an answer of changes
		// reads the spend of the campaigns it answers, not the
		// environment's.
		rows, err = t.tx.Query(ctx, `SELECT campaign_id, hour, cost FROM campaign_hour_spend
			WHERE campaign_id = ANY($1::text[]) AND hour >= $2`, campaignIDs, micros(since))
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.CampaignHourCost
	for rows.Next() {
		var h store.CampaignHourCost
		var hour, cost int64
		if err := rows.Scan(&h.CampaignID, &hour, &cost); err != nil {
			return nil, err
		}
		h.Hour, h.Cost = fromMicros(hour), adcamp.Money(cost)
		out = append(out, h)
	}
	return out, rows.Err()
}

func (t *tx) AccountZones(ctx context.Context) (map[string]string, error) {
	rows, err := t.tx.Query(ctx, `SELECT id, time_zone FROM accounts`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, zone string
		if err := rows.Scan(&id, &zone); err != nil {
			return nil, err
		}
		out[id] = zone
	}
	return out, rows.Err()
}

func (t *tx) ScanServingNegatives(ctx context.Context, env adcamp.Environment, ids []string, all bool, fn func(*store.ServingNegative) error) error {
	if !all && len(ids) == 0 {
		return nil
	}
	q := `SELECT id, coalesce(campaign_id, ''), coalesce(ad_group_id, ''), coalesce(list_id, ''), text, match_type
		FROM negative_keywords WHERE status = 'active' AND environment = $1`
	args := []any{string(env)}
	if !all {
		q += ` AND id = ANY ($2::text[])`
		args = append(args, ids)
	}
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var n store.ServingNegative
	for rows.Next() {
		if err := rows.Scan(&n.ID, &n.CampaignID, &n.AdGroupID, &n.ListID, &n.Text, &n.MatchType); err != nil {
			return err
		}
		if err := fn(&n); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (t *tx) ScanListAttachments(ctx context.Context, env adcamp.Environment, campaignIDs []string, all bool, fn func(store.ListAttachment) error) error {
	if !all && len(campaignIDs) == 0 {
		return nil
	}
	q := `SELECT a.campaign_id, a.list_id FROM campaign_negative_lists a JOIN negative_keyword_lists l ON l.id = a.list_id
		WHERE l.environment = $1 ORDER BY a.campaign_id, a.list_id`
	args := []any{string(env)}
	if !all {
		q = `SELECT campaign_id, list_id FROM campaign_negative_lists WHERE campaign_id = ANY ($2::text[]) AND $1 <> ''
			ORDER BY campaign_id, list_id`
		args = append(args, campaignIDs)
	}
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var a store.ListAttachment
		if err := rows.Scan(&a.CampaignID, &a.ListID); err != nil {
			return err
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return rows.Err()
}

// servingCampaign is an active campaign as scanAllServing keeps it.
type servingCampaign struct {
	c    adcamp.Campaign
	zone string
}

// scanAllServing is ScanServing of every keyword of env: the active
// campaigns read first, once each, then the keywords with their ad
// groups, 7 columns a row instead of 17 (the snapshot's scan, as
// SQLite's). What it keeps is a row per active campaign of env.
func (t *tx) scanAllServing(ctx context.Context, env adcamp.Environment, fn func(*store.ServingKeyword) error) error {
	campaigns := map[string]*servingCampaign{}
	rows, err := t.tx.Query(ctx, `SELECT c.id, c.account_id, c.budget_daily, c.marketplace, c.channel_account_id, c.start_date, c.end_date, a.time_zone
		FROM campaigns c JOIN accounts a ON a.id = c.account_id WHERE c.environment = $1 AND c.status = 'active'`, string(env))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		sc := &servingCampaign{}
		c := &sc.c
		var start, end *string
		var budget int64
		if err := rows.Scan(&c.ID, &c.AccountID, &budget, &c.Marketplace, &c.ChannelAccountID, &start, &end, &sc.zone); err != nil {
			return err
		}
		c.BudgetDaily, c.Environment, c.Status = adcamp.Money(budget), env, adcamp.StatusActive
		if c.StartDate, err = textDate(deref(start), start == nil); err != nil {
			return err
		}
		if c.EndDate, err = textDate(deref(end), end == nil); err != nil {
			return err
		}
		campaigns[c.ID] = sc
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	if len(campaigns) == 0 {
		return nil
	}
	rows, err = t.tx.Query(ctx, `SELECT k.id, k.text, k.match_type, k.bid, k.ad_group_id, g.default_bid, g.campaign_id
		FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id
		WHERE k.environment = $1 AND k.status = 'active' AND g.status = 'active'`, string(env))
	if err != nil {
		return err
	}
	defer rows.Close()
	var k store.ServingKeyword
	var campaignID string
	for rows.Next() {
		var bid *int64
		var def int64
		if err := rows.Scan(&k.ID, &k.Text, &k.MatchType, &bid, &k.AdGroupID, &def, &campaignID); err != nil {
			return err
		}
		sc, ok := campaigns[campaignID]
		if !ok {
			continue // its campaign is not active
		}
		k.Status, k.AdGroupStatus, k.DefaultBid, k.Bid = adcamp.StatusActive, adcamp.StatusActive, adcamp.Money(def), nil
		if bid != nil {
			m := adcamp.Money(*bid)
			k.Bid = &m
		}
		k.Campaign, k.AccountTimeZone = sc.c, sc.zone
		if err := fn(&k); err != nil {
			return err
		}
	}
	return rows.Err()
}
