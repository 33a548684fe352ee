package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The report store (store.ReportTx): the statements are store.ReportSQL's.

func (t *tx) ReportRows(ctx context.Context, q store.ReportQuery, fn func(*store.ReportRow) error) error {
	if q.Granularity != store.Summary && (q.Limit == 0 || q.Names != nil) {
		return t.reportStream(ctx, q, fn)
	}
	text, args, err := store.ReportSQL(q, true)
	if err != nil {
		return err
	}
	rows, err := t.query(ctx, text, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var r store.ReportRow
	var entity string
	var tv int64
	var status sql.NullString
	for rows.Next() {
		if err := rows.Scan(&entity, &r.CampaignID, &r.AdGroupID, &tv, &r.Impressions, &r.Clicks, &r.Cost, &r.Orders, &r.Sales,
			&r.CampaignName, &r.AdGroupName, &r.Keyword, &r.MatchType, &status, &r.Deleted); err != nil {
			return err
		}
		fillReportRow(&r, q, entity, tv, status)
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// reportStream is ReportRows for the rows of a report by day or hour
// without their names (a job's): the figures in their order, each
// entity's names looked up once, on the same transaction, and kept in
// q.Names (across the transactions of a report read in chunks), instead
// of joined to each of its rows (4 M rows of 10,000 keywords: six index
// searches a row, most of the statement's time).
func (t *tx) reportStream(ctx context.Context, q store.ReportQuery, fn func(*store.ReportRow) error) error {
	text, args, err := store.ReportFiguresSQL(q, true)
	if err != nil {
		return err
	}
	if err := t.consistent(ctx); err != nil {
		return err
	}
	names := q.Names
	if names == nil {
		names = new(store.ReportNames)
	}
	// Each level's look-up is prepared once for the stream.
	var stmts [3]*sql.Stmt
	defer func() {
		for _, st := range stmts {
			if st != nil {
				st.Close()
			}
		}
	}()
	lookup := func(level store.ReportLevel, id string) (store.ReportName, error) {
		if n, ok := names.Get(level, id); ok {
			return n, nil
		}
		st := stmts[level-1]
		if st == nil {
			var err error
			if st, err = t.tx.PrepareContext(t.ctx(ctx), store.ReportNameSQL(level)); err != nil {
				return store.ReportName{}, err
			}
			stmts[level-1] = st
		}
		var n store.ReportName
		var status sql.NullString
		err := st.QueryRowContext(t.ctx(ctx), id).Scan(&n.Name, &n.MatchType, &status, &n.Deleted)
		n.Status = status.String
		names.Put(level, id, n)
		return n, err
	}
	rows, err := t.query(ctx, text, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var r store.ReportRow
	var entity string
	var tv int64
	var cost, sales int64 // not adcamp.Money: database/sql assigns a named type by reflection
	for rows.Next() {
		if err := rows.Scan(&entity, &r.CampaignID, &r.AdGroupID, &tv, &r.Impressions, &r.Clicks, &cost, &r.Orders, &sales); err != nil {
			return err
		}
		r.Cost, r.Sales = adcamp.Money(cost), adcamp.Money(sales)
		c, err := lookup(store.LevelCampaign, r.CampaignID)
		if err != nil {
			return err
		}
		r.CampaignName, r.AdGroupName, r.Keyword, r.MatchType = c.Name, "", "", ""
		own := c
		if q.Level >= store.LevelAdGroup {
			g, err := lookup(store.LevelAdGroup, r.AdGroupID)
			if err != nil {
				return err
			}
			r.AdGroupName, own = g.Name, g
		}
		if q.Level == store.LevelKeyword {
			k, err := lookup(store.LevelKeyword, entity)
			if err != nil {
				return err
			}
			r.Keyword, r.MatchType, own = k.Name, k.MatchType, k
		}
		r.Deleted = own.Deleted
		fillReportRow(&r, q, entity, tv, sql.NullString{String: own.Status, Valid: own.Status != ""})
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// fillReportRow completes a scanned row: the entity's id in its place,
// the time of day or hour, the status.
func fillReportRow(r *store.ReportRow, q store.ReportQuery, entity string, tv int64, status sql.NullString) {
	r.KeywordID = ""
	switch q.Level {
	case store.LevelCampaign:
		r.AdGroupID = ""
	case store.LevelKeyword:
		r.KeywordID = entity
	}
	r.Day, r.Hour = 0, time.Time{}
	switch q.Granularity {
	case store.Daily:
		r.Day = int32(tv)
	case store.Hourly:
		r.Hour = fromMicros(tv)
	}
	r.Status = status.String
}

func (t *tx) ReportTotals(ctx context.Context, q store.ReportQuery) (store.Metrics, error) {
	var m store.Metrics
	text, args, err := store.ReportTotalsSQL(q)
	if err != nil {
		return m, err
	}
	err = t.queryRow(ctx, text, args...).Scan(&m.Impressions, &m.Clicks, &m.Cost, &m.Orders, &m.Sales)
	return m, err
}

func (t *tx) ReportEntity(ctx context.Context, tn adcamp.Tenant, level store.ReportLevel, id string) (bool, error) {
	table := map[store.ReportLevel]string{store.LevelCampaign: "campaigns", store.LevelAdGroup: "ad_groups", store.LevelKeyword: "keywords"}[level]
	var n int
	err := t.queryRow(ctx, `SELECT (SELECT count(*) FROM `+table+` WHERE id = $1 AND account_id = $2 AND environment = $3)
		+ (SELECT count(*) FROM report_names WHERE entity_id = $1 AND account_id = $2 AND environment = $3)`,
		id, tn.AccountID, string(tn.Environment)).Scan(&n)
	return n > 0, err
}

func (t *tx) UndatedHours(ctx context.Context, limit int) ([]store.DeliveryRow, error) {
	rows, err := t.query(ctx, `SELECT keyword_id, hour, account_id, environment, campaign_id, ad_group_id,
		impressions, clicks, cost, orders, sales FROM delivery_hours WHERE day IS NULL ORDER BY hour LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.DeliveryRow
	for rows.Next() {
		var r store.DeliveryRow
		var h int64
		if err := rows.Scan(&r.KeywordID, &h, &r.AccountID, &r.Environment, &r.CampaignID, &r.AdGroupID,
			&r.Impressions, &r.Clicks, &r.Cost, &r.Orders, &r.Sales); err != nil {
			return nil, err
		}
		r.Hour = fromMicros(h)
		out = append(out, r)
	}
	return out, rows.Err()
}

func (t *tx) PurgeReports(ctx context.Context, tn adcamp.Tenant, hours time.Time, day int32, limit int) (int64, error) {
	t.forgetHours()
	var total int64
	for _, q := range []struct {
		text  string
		arg   any
		count bool // the spend's rows are not counted
	}{
		{`DELETE FROM campaign_hour_spend WHERE (campaign_id, hour) IN
			(SELECT DISTINCT campaign_id, hour FROM delivery_hours WHERE account_id = $1 AND environment = $2 AND hour < $3
			 ORDER BY hour LIMIT $4)`, micros(hours), false},
		{`DELETE FROM delivery_hours WHERE (keyword_id, hour) IN
			(SELECT keyword_id, hour FROM delivery_hours WHERE account_id = $1 AND environment = $2 AND hour < $3
			 ORDER BY hour LIMIT $4)`, micros(hours), true},
		{`DELETE FROM delivery_days WHERE (account_id, environment, level, day, entity_id) IN
			(SELECT account_id, environment, level, day, entity_id FROM delivery_days
			 WHERE account_id = $1 AND environment = $2 AND level IN (1, 2, 3) AND day < $3 LIMIT $4)`, day, true},
	} {
		res, err := t.exec(ctx, q.text, tn.AccountID, string(tn.Environment), q.arg, limit)
		if err != nil {
			return total, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, err
		}
		if q.count {
			total += n
		}
	}
	return total, nil
}

func (t *tx) PurgeReportNames(ctx context.Context, before time.Time, limit int) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM report_names WHERE entity_id IN
		(SELECT entity_id FROM report_names WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2)`, micros(before), limit)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t *tx) DeleteCampaignReports(ctx context.Context, tn adcamp.Tenant, campaignID string) error {
	if _, err := t.FoldDays(ctx, 0); err != nil {
		return err
	}
	if _, err := t.exec(ctx, `DELETE FROM report_names WHERE account_id = $1 AND environment = $2 AND entity_id IN
		(SELECT entity_id FROM delivery_days WHERE account_id = $1 AND environment = $2 AND campaign_id = $3)`,
		tn.AccountID, string(tn.Environment), campaignID); err != nil {
		return err
	}
	_, err := t.exec(ctx, `DELETE FROM delivery_days WHERE account_id = $1 AND environment = $2 AND campaign_id = $3`,
		tn.AccountID, string(tn.Environment), campaignID)
	return err
}
