package postgres

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The report store (store.ReportTx): the statements are store.ReportSQL's.

func (t *tx) ReportRows(ctx context.Context, q store.ReportQuery, fn func(*store.ReportRow) error) error {
	if q.Granularity != store.Summary && (q.Limit == 0 || q.Names != nil) {
		return t.reportStream(ctx, q, fn)
	}
	text, args, err := store.ReportSQL(q, false)
	if err != nil {
		return err
	}
	rows, err := t.tx.Query(ctx, text, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var r store.ReportRow
	var entity string
	var tv int64
	var status *string
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

// reportStreamBatch is how many rows reportStream fetches at a time.
const reportStreamBatch = 4096

// reportNamesSQL names the entities of a level whose ids are $1 as
// store.ReportSQL's joins do (store.ReportNameSQL, for many at once).
func reportNamesSQL(level store.ReportLevel) string {
	switch level {
	case store.LevelCampaign:
		return `SELECT i.id, COALESCE(c.name, rc.name, ''), '', c.status, c.id IS NULL FROM unnest($1::text[]) AS i(id)
			LEFT JOIN campaigns c ON c.id = i.id LEFT JOIN report_names rc ON c.id IS NULL AND rc.entity_id = i.id`
	case store.LevelAdGroup:
		return `SELECT i.id, COALESCE(g.name, rg.name, ''), '', g.status, g.id IS NULL FROM unnest($1::text[]) AS i(id)
			LEFT JOIN ad_groups g ON g.id = i.id LEFT JOIN report_names rg ON g.id IS NULL AND rg.entity_id = i.id`
	}
	return `SELECT i.id, COALESCE(k.text, rk.name, ''), COALESCE(k.match_type, rk.match_type, ''), k.status, k.id IS NULL
		FROM unnest($1::text[]) AS i(id)
		LEFT JOIN keywords k ON k.id = i.id LEFT JOIN report_names rk ON k.id IS NULL AND rk.entity_id = i.id`
}

// reportStream is ReportRows for every row of a report by day or hour
// (a job's): the figures through a cursor, reportStreamBatch rows at a
// time, each batch's new entities named in one statement a level,
// instead of joining the names to every row (which had the server sort
// the joined rows of the whole range again). The names held grow with
// the entities, not the rows; they are kept in q.Names (across the
// transactions of a report read in chunks).
func (t *tx) reportStream(ctx context.Context, q store.ReportQuery, fn func(*store.ReportRow) error) error {
	text, args, err := store.ReportFiguresSQL(q, false)
	if err != nil {
		return err
	}
	if _, err := t.tx.Exec(ctx, `DECLARE report_rows NO SCROLL CURSOR FOR `+text, args...); err != nil {
		return err
	}
	defer t.tx.Exec(context.WithoutCancel(ctx), `CLOSE report_rows`)
	levels := []store.ReportLevel{store.LevelCampaign, store.LevelAdGroup, store.LevelKeyword}[:q.Level]
	names := q.Names
	if names == nil {
		names = new(store.ReportNames)
	}
	type figures struct {
		entity string
		tv     int64
		r      store.ReportRow
		names  [3]store.ReportName // by level, once found
		later  uint8               // the levels whose names were not kept yet (bits)
	}
	batch := make([]figures, 0, reportStreamBatch)
	for {
		batch = batch[:0]
		// Described each time: the same text fetches columns of other
		// types from another report's cursor (a statement cached by its
		// text would misread them).
		rows, err := t.tx.Query(ctx, `FETCH `+strconv.Itoa(reportStreamBatch)+` FROM report_rows`, pgx.QueryExecModeDescribeExec)
		if err != nil {
			return err
		}
		for rows.Next() {
			var f figures
			var cost, sales int64 // not adcamp.Money: pgx scans a named type by reflection
			if err := rows.Scan(&f.entity, &f.r.CampaignID, &f.r.AdGroupID, &f.tv,
				&f.r.Impressions, &f.r.Clicks, &cost, &f.r.Orders, &sales); err != nil {
				rows.Close()
				return err
			}
			f.r.Cost, f.r.Sales = adcamp.Money(cost), adcamp.Money(sales)
			batch = append(batch, f)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		// Each row's names, looked up once; the ids of each level this
		// batch names first are read, then given to their rows.
		idOf := func(f *figures, level store.ReportLevel) string {
			return [...]string{f.r.CampaignID, f.r.AdGroupID, f.entity}[level-1]
		}
		for _, level := range levels {
			var missing []string
			var asked map[string]bool
			for i := range batch {
				f := &batch[i]
				id := idOf(f, level)
				if n, ok := names.Get(level, id); ok {
					f.names[level-1] = n
					continue
				}
				f.later |= 1 << (level - 1)
				if !asked[id] {
					if asked == nil {
						asked = map[string]bool{}
					}
					asked[id] = true
					missing = append(missing, id)
				}
			}
			if len(missing) == 0 {
				continue
			}
			for _, id := range missing {
				names.Put(level, id, store.ReportName{}) // found or not, asked once
			}
			rows, err := t.tx.Query(ctx, reportNamesSQL(level), missing)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id string
				var n store.ReportName
				var status *string
				if err := rows.Scan(&id, &n.Name, &n.MatchType, &status, &n.Deleted); err != nil {
					rows.Close()
					return err
				}
				if status != nil {
					n.Status = *status
				}
				names.Put(level, id, n)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for i := range batch {
				if f := &batch[i]; f.later&(1<<(level-1)) != 0 {
					f.names[level-1], _ = names.Get(level, idOf(f, level))
				}
			}
		}
		for i := range batch {
			f := &batch[i]
			r := f.r
			own := f.names[store.LevelCampaign-1]
			r.CampaignName = own.Name
			if q.Level >= store.LevelAdGroup {
				g := f.names[store.LevelAdGroup-1]
				r.AdGroupName, own = g.Name, g
			}
			if q.Level == store.LevelKeyword {
				k := f.names[store.LevelKeyword-1]
				r.Keyword, r.MatchType, own = k.Name, k.MatchType, k
			}
			r.Deleted = own.Deleted
			var status *string
			if own.Status != "" {
				status = &own.Status
			}
			fillReportRow(&r, q, f.entity, f.tv, status)
			if err := fn(&r); err != nil {
				return err
			}
		}
	}
}

// fillReportRow completes a scanned row: the entity's id in its place,
// the time of day or hour, the status.
func fillReportRow(r *store.ReportRow, q store.ReportQuery, entity string, tv int64, status *string) {
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
	r.Status = ""
	if status != nil {
		r.Status = *status
	}
}

func (t *tx) ReportTotals(ctx context.Context, q store.ReportQuery) (store.Metrics, error) {
	var m store.Metrics
	text, args, err := store.ReportTotalsSQL(q)
	if err != nil {
		return m, err
	}
	err = t.tx.QueryRow(ctx, text, args...).Scan(&m.Impressions, &m.Clicks, &m.Cost, &m.Orders, &m.Sales)
	return m, err
}

func (t *tx) ReportEntity(ctx context.Context, tn adcamp.Tenant, level store.ReportLevel, id string) (bool, error) {
	table := map[store.ReportLevel]string{store.LevelCampaign: "campaigns", store.LevelAdGroup: "ad_groups", store.LevelKeyword: "keywords"}[level]
	var ok bool
	err := t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` WHERE id = $1 AND account_id = $2 AND environment = $3)
		OR EXISTS (SELECT 1 FROM report_names WHERE entity_id = $1 AND account_id = $2 AND environment = $3)`,
		id, tn.AccountID, string(tn.Environment)).Scan(&ok)
	return ok, err
}

func (t *tx) UndatedHours(ctx context.Context, limit int) ([]store.DeliveryRow, error) {
	rows, err := t.tx.Query(ctx, `SELECT keyword_id, hour, account_id, environment, campaign_id, ad_group_id,
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
	var total int64
	if _, err := t.tx.Exec(ctx, `DELETE FROM campaign_hour_spend WHERE (campaign_id, hour) IN
		(SELECT DISTINCT campaign_id, hour FROM (SELECT campaign_id, hour FROM delivery_hours
		 WHERE account_id = $1 AND environment = $2 AND hour < $3 ORDER BY hour LIMIT $4) s)`,
		tn.AccountID, string(tn.Environment), micros(hours), limit); err != nil {
		return 0, err
	}
	tag, err := t.tx.Exec(ctx, `DELETE FROM delivery_hours WHERE (keyword_id, hour) IN
		(SELECT keyword_id, hour FROM delivery_hours WHERE account_id = $1 AND environment = $2 AND hour < $3
		 ORDER BY hour LIMIT $4)`, tn.AccountID, string(tn.Environment), micros(hours), limit)
	if err != nil {
		return 0, err
	}
	total += tag.RowsAffected()
	tag, err = t.tx.Exec(ctx, `DELETE FROM delivery_days WHERE (account_id, environment, level, day, entity_id) IN
		(SELECT account_id, environment, level, day, entity_id FROM delivery_days
		 WHERE account_id = $1 AND environment = $2 AND level IN (1, 2, 3) AND day < $3 LIMIT $4)`,
		tn.AccountID, string(tn.Environment), day, limit)
	if err != nil {
		return total, err
	}
	return total + tag.RowsAffected(), nil
}

func (t *tx) PurgeReportNames(ctx context.Context, before time.Time, limit int) (int64, error) {
	tag, err := t.tx.Exec(ctx, `DELETE FROM report_names WHERE entity_id IN
		(SELECT entity_id FROM report_names WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2)`, micros(before), limit)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (t *tx) DeleteCampaignReports(ctx context.Context, tn adcamp.Tenant, campaignID string) error {
	if _, err := t.FoldDays(ctx, 0); err != nil {
		return err
	}
	if _, err := t.tx.Exec(ctx, `DELETE FROM report_names WHERE account_id = $1 AND environment = $2 AND entity_id IN
		(SELECT entity_id FROM delivery_days WHERE account_id = $1 AND environment = $2 AND campaign_id = $3)`,
		tn.AccountID, string(tn.Environment), campaignID); err != nil {
		return err
	}
	_, err := t.tx.Exec(ctx, `DELETE FROM delivery_days WHERE account_id = $1 AND environment = $2 AND campaign_id = $3`,
		tn.AccountID, string(tn.Environment), campaignID)
	return err
}
