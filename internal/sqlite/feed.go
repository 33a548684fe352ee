package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The serving feed's journal (store.FeedTx). A position is the seq of the
// last row read: with one writer, rows commit in seq order.

func (t *tx) AppendFeed(ctx context.Context, rows []store.FeedRow, now time.Time) error {
	return chunks(len(rows), func(start, size int) error {
		args := make([]any, 0, size*4)
		for _, r := range rows[start : start+size] {
			args = append(args, string(r.Environment), r.Kind, r.EntityID, micros(now))
		}
		_, err := t.exec(ctx, `INSERT INTO serving_feed (environment, kind, entity_id, created_at) VALUES `+placeholders(size, 4), args...)
		return err
	})
}

func (t *tx) FeedHead(ctx context.Context) (int64, error) {
	var seq sql.NullInt64
	err := t.queryRow(ctx, `SELECT seq FROM sqlite_sequence WHERE name = 'serving_feed'`).Scan(&seq)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return seq.Int64, err
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
	rows, err := t.query(ctx, `SELECT kind, entity_id FROM serving_feed WHERE seq > $1 AND seq <= $2 AND environment = $3 ORDER BY seq`,
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
	var through sql.NullInt64
	if err := t.queryRow(ctx, `SELECT max(seq) FROM serving_feed WHERE created_at < $1`, micros(cutoff)).Scan(&through); err != nil {
		return 0, err
	}
	if !through.Valid {
		return 0, nil
	}
	_, err := t.exec(ctx, `DELETE FROM serving_feed WHERE seq <= $1`, through.Int64)
	return through.Int64, err
}

const servingSelect = `SELECT k.id, k.text, k.match_type, k.bid, k.status, k.ad_group_id, g.default_bid, g.status,
	c.id, c.account_id, c.budget_daily, c.marketplace, c.channel_account_id, c.start_date, c.end_date, c.status, a.time_zone
	FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id JOIN accounts a ON a.id = c.account_id
	WHERE k.environment = ? AND `

func (t *tx) ScanServing(ctx context.Context, env adcamp.Environment, scope store.FeedScope, fn func(*store.ServingKeyword) error) error {
	if err := t.consistent(ctx); err != nil {
		return err
	}
	var k store.ServingKeyword
	run := func(cond string, args ...any) error {
		rows, err := t.query(ctx, servingSelect+cond, append([]any{string(env)}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var bid, channel sql.NullInt64
			var start, end nullText
			var budget, def int64
			c := &k.Campaign
			if err := rows.Scan(&k.ID, &k.Text, &k.MatchType, &bid, &k.Status, &k.AdGroupID, &def, &k.AdGroupStatus,
				&c.ID, &c.AccountID, &budget, &c.Marketplace, &channel, &start, &end, &c.Status, &k.AccountTimeZone); err != nil {
				return err
			}
			k.Bid, k.DefaultBid, c.BudgetDaily, c.Environment = nil, adcamp.Money(def), adcamp.Money(budget), env
			if bid.Valid {
				m := adcamp.Money(bid.Int64)
				k.Bid = &m
			}
			c.ChannelAccountID = nil
			if channel.Valid {
				c.ChannelAccountID = &channel.Int64
			}
			if c.StartDate, err = scanDate(start); err != nil {
				return err
			}
			if c.EndDate, err = scanDate(end); err != nil {
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
		err := chunks(len(part.ids), func(start, size int) error {
			args := make([]any, size)
			for i := range size {
				args[i] = part.ids[start+i]
			}
			in := strings.TrimSuffix(strings.TrimPrefix(placeholders(1, size), "("), ")")
			return run(part.column+` IN (`+in+`)`, args...)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) RecentSpend(ctx context.Context, env adcamp.Environment, since time.Time, campaignIDs []string) ([]store.CampaignHourCost, error) {
	var rows *sql.Rows
	var err error
	if campaignIDs == nil {
		rows, err = t.query(ctx, `SELECT s.campaign_id, s.hour, s.cost FROM campaign_hour_spend s
			JOIN campaigns c ON c.id = s.campaign_id WHERE s.hour >= $1 AND c.environment = $2`, micros(since), string(env))
	} else {
		// A range of the primary key per campaign: an answer of changes
		// reads the spend of the campaigns it answers, not the
		// environment's.
		rows, err = t.query(ctx, `SELECT campaign_id, hour, cost FROM campaign_hour_spend
			WHERE campaign_id IN (SELECT value FROM json_each($1)) AND hour >= $2`, jsonList(campaignIDs), micros(since))
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
	rows, err := t.query(ctx, `SELECT id, time_zone FROM accounts`)
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
		q += ` AND id IN (SELECT value FROM json_each($2))`
		args = append(args, jsonList(ids))
	}
	rows, err := t.query(ctx, q, args...)
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
		q = `SELECT campaign_id, list_id FROM campaign_negative_lists WHERE campaign_id IN (SELECT value FROM json_each($2)) AND $1 <> ''
			ORDER BY campaign_id, list_id`
		args = append(args, jsonList(campaignIDs))
	}
	rows, err := t.query(ctx, q, args...)
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
// groups, 7 columns a row instead of 17 and two joins fewer (the
// snapshot's scan; bench/notes/2026-11-27-operator-speed.md). What it
// keeps is a row per active campaign of env.
func (t *tx) scanAllServing(ctx context.Context, env adcamp.Environment, fn func(*store.ServingKeyword) error) error {
	campaigns := map[string]*servingCampaign{}
	rows, err := t.query(ctx, `SELECT c.id, c.account_id, c.budget_daily, c.marketplace, c.channel_account_id, c.start_date, c.end_date, a.time_zone
		FROM campaigns c JOIN accounts a ON a.id = c.account_id WHERE c.environment = $1 AND c.status = 'active'`, string(env))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		sc := &servingCampaign{}
		c := &sc.c
		var channel sql.NullInt64
		var start, end nullText
		var budget int64
		if err := rows.Scan(&c.ID, &c.AccountID, &budget, &c.Marketplace, &channel, &start, &end, &sc.zone); err != nil {
			return err
		}
		c.BudgetDaily, c.Environment, c.Status = adcamp.Money(budget), env, adcamp.StatusActive
		if channel.Valid {
			c.ChannelAccountID = &channel.Int64
		}
		if c.StartDate, err = scanDate(start); err != nil {
			return err
		}
		if c.EndDate, err = scanDate(end); err != nil {
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
	rows, err = t.query(ctx, `SELECT k.id, k.text, k.match_type, k.bid, k.ad_group_id, g.default_bid, g.campaign_id
		FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id
		WHERE k.environment = $1 AND k.status = 'active' AND g.status = 'active'`, string(env))
	if err != nil {
		return err
	}
	defer rows.Close()
	var k store.ServingKeyword
	var campaignID string
	for rows.Next() {
		var bid sql.NullInt64
		var def int64
		if err := rows.Scan(&k.ID, &k.Text, &k.MatchType, &bid, &k.AdGroupID, &def, &campaignID); err != nil {
			return err
		}
		sc, ok := campaigns[campaignID]
		if !ok {
			continue // its campaign is not active
		}
		k.Status, k.AdGroupStatus, k.DefaultBid, k.Bid = adcamp.StatusActive, adcamp.StatusActive, adcamp.Money(def), nil
		if bid.Valid {
			m := adcamp.Money(bid.Int64)
			k.Bid = &m
		}
		k.Campaign, k.AccountTimeZone = sc.c, sc.zone
		if err := fn(&k); err != nil {
			return err
		}
	}
	return rows.Err()
}
