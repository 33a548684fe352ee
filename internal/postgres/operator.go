package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The marketplace's side: operator keys, time zones and delivery figures
// (store.OperatorTx).

const operatorKeyColumns = `id, name, secret, disabled, created_at, last_used_at`

func scanOperatorKey(r row) (*store.OperatorKey, error) {
	var k store.OperatorKey
	var created int64
	var last *int64
	if err := r.Scan(&k.ID, &k.Name, &k.Secret, &k.Disabled, &created, &last); err != nil {
		return nil, err
	}
	k.CreatedAt = fromMicros(created)
	k.LastUsedAt = fromNullMicros(last)
	return &k, nil
}

func (t *tx) CreateOperatorKey(ctx context.Context, k *store.OperatorKey) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO operator_keys (`+operatorKeyColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
		k.ID, k.Name, k.Secret, k.Disabled, micros(k.CreatedAt), nullMicros(k.LastUsedAt))
	return err
}

func (t *tx) GetOperatorKey(ctx context.Context, id string) (*store.OperatorKey, error) {
	k, err := scanOperatorKey(t.tx.QueryRow(ctx, `SELECT `+operatorKeyColumns+` FROM operator_keys WHERE id = $1`, id))
	if err != nil {
		return nil, notFound(err, "operator key", id)
	}
	return k, nil
}

func (t *tx) ListOperatorKeys(ctx context.Context) ([]*store.OperatorKey, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+operatorKeyColumns+` FROM operator_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*store.OperatorKey
	for rows.Next() {
		k, err := scanOperatorKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (t *tx) SetOperatorKeyDisabled(ctx context.Context, id string, disabled bool) error {
	tag, err := t.tx.Exec(ctx, `UPDATE operator_keys SET disabled = $2 WHERE id = $1`, id, disabled)
	return affectedOne(tag, err, "operator key", id)
}

func (t *tx) DeleteOperatorKey(ctx context.Context, id string) error {
	tag, err := t.tx.Exec(ctx, `DELETE FROM operator_keys WHERE id = $1`, id)
	return affectedOne(tag, err, "operator key", id)
}

func (t *tx) SetAccountTimeZone(ctx context.Context, id, zone string) error {
	tag, err := t.tx.Exec(ctx, `UPDATE accounts SET time_zone = $2 WHERE id = $1`, id, zone)
	return affectedOne(tag, err, "account", id)
}

// DeliveryKeywords finds the keywords of ids (the primary key's index
// alone), and reads the places of those the DB's cache does not hold
// (store.PlaceCache).
func (t *tx) DeliveryKeywords(ctx context.Context, ids []string) (map[string]store.DeliveryKeyword, error) {
	rows, err := t.tx.Query(ctx, `SELECT k.id FROM keywords k WHERE k.id = ANY($1::text[])`, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]store.DeliveryKeyword, len(ids))
	var unknown []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		if k, ok := t.places.Get(id); ok {
			out[id] = k
		} else {
			unknown = append(unknown, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(unknown) == 0 {
		return out, err
	}
	rows, err = t.tx.Query(ctx, `SELECT k.id, k.account_id, k.environment, g.campaign_id, k.ad_group_id
		FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id WHERE k.id = ANY($1::text[])`, unknown)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var k store.DeliveryKeyword
		if err := rows.Scan(&id, &k.AccountID, &k.Environment, &k.CampaignID, &k.AdGroupID); err != nil {
			return nil, err
		}
		out[id] = k
		t.places.Put(id, k)
	}
	return out, rows.Err()
}

// PutDelivery reads the stored rows of the batch's keys (for the days
// they were added to, and the cost they had), writes the batch in one
// statement over arrays (an unchanged row is not written), adds each
// campaign's change of cost to its hours in campaign_hour_spend and
// journals the changes of the days (store.PlanDelivery, FoldDays). The
// rows whose stored figures the DB's HourCache holds are written first,
// each only if the stored row is still the cached one (hoursChecked).
// Writes run at SERIALIZABLE: two batches correcting the same hour cannot
// both take the old figures off.
func (t *tx) PutDelivery(ctx context.Context, rows []store.DeliveryRow, now time.Time) error {
	// Each statement below joins the batch's rows to delivery_hours. With
	// the arrays' values, PostgreSQL may hash the whole table for a join
	// of a few thousand rows (it did, for the check of cached rows: the
	// table of 20,000 rows read whole at every batch), which a large table
	// would make far slower than the batch's own index lookups: the join
	// is a nested loop over the primary key, whatever the sizes.
	for _, off := range []string{`SET LOCAL enable_hashjoin = off`, `SET LOCAL enable_mergejoin = off`} {
		if err := t.later(ctx, execErr, off); err != nil {
			return err
		}
	}
	rows = store.SortDelivery(rows)
	old, written, err := t.hoursChecked(ctx, rows, now)
	if err != nil {
		return err
	}
	plan := store.PlanDelivery(old, rows)
	if len(written) > 0 {
		plan.Update = slices.DeleteFunc(plan.Update, func(r store.DeliveryRow) bool {
			_, ok := written[store.HourKey{KeywordID: r.KeywordID, Hour: micros(r.Hour)}]
			return ok
		})
	}
	if err := t.insertHours(ctx, plan.Insert, now); err != nil {
		return err
	}
	if err := t.updateHours(ctx, plan.Update, now); err != nil {
		return err
	}
	if len(plan.Spend) > 0 {
		camp, hour, cost := make([]string, len(plan.Spend)), make([]int64, len(plan.Spend)), make([]int64, len(plan.Spend))
		for i, h := range plan.Spend {
			camp[i], hour[i], cost[i] = h.CampaignID, h.Hour, int64(h.Cost)
		}
		_, err = t.tx.Exec(ctx, `INSERT INTO campaign_hour_spend (campaign_id, hour, cost)
			SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])
			ON CONFLICT (campaign_id, hour) DO UPDATE SET cost = campaign_hour_spend.cost + excluded.cost`, camp, hour, cost)
		if err != nil {
			return err
		}
	}
	if err := t.journalDays(ctx, plan.Days); err != nil {
		return err
	}
	t.hours.Stored(rows, old)
	return nil
}

// hoursChecked returns the stored rows of rows' keys, and the keys of
// those it has written already. An ad server sends the running
// totals of the same keywords' hours again and again, and this process
// has most often stored the figures it last sent: the rows whose key
// the DB's HourCache holds are written at once, each only where the
// stored row still has the cached figures and day (any process may have
// written it since). Those written were stored as cached; the others
// and the keys not cached are read. A row sent unchanged is written too
// (its figures again, its updated_at kept): that is what checks it.
func (t *tx) hoursChecked(ctx context.Context, rows []store.DeliveryRow, now time.Time) ([]store.HourFigures, map[store.HourKey]struct{}, error) {
	type hit struct {
		row   int
		state store.HourState
	}
	var hits []hit
	for i, r := range rows {
		if s, ok := t.hours.Cached(store.HourKey{KeywordID: r.KeywordID, Hour: micros(r.Hour)}); ok {
			hits = append(hits, hit{i, s})
		}
	}
	old := make([]store.HourFigures, 0, len(rows))
	var written map[store.HourKey]struct{}
	checked := make([]bool, len(rows))
	if len(hits) > 0 {
		n := len(hits)
		kw := make([]string, n)
		hour, imp, clk, cost, ord, sales := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		xImp, xClk, xCost, xOrd, xSales := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		day, xDay := make([]*int32, n), make([]int32, n)
		for j, h := range hits {
			r := &rows[h.row]
			kw[j], hour[j] = r.KeywordID, micros(r.Hour)
			imp[j], clk[j], cost[j], ord[j], sales[j] = r.Impressions, r.Clicks, int64(r.Cost), r.Orders, int64(r.Sales)
			if r.Day != 0 {
				day[j] = &r.Day
			}
			s := h.state
			xDay[j], xImp[j], xClk[j], xCost[j], xOrd[j], xSales[j] = s.Day, s.Impressions, s.Clicks, int64(s.Cost), s.Orders, int64(s.Sales)
		}
		// The arrays unnested in the select list, in step (a ProjectSet):
		// unnest(a, b, …) in FROM first copies them all into a tuplestore.
		q, err := t.tx.Query(ctx, `UPDATE delivery_hours d SET impressions = r.i, clicks = r.cl, cost = r.co, orders = r.o, sales = r.s,
				day = coalesce(r.d, d.day),
				updated_at = CASE WHEN (d.impressions, d.clicks, d.cost, d.orders, d.sales, d.day)
					IS NOT DISTINCT FROM (r.i, r.cl, r.co, r.o, r.s, coalesce(r.d, d.day)) THEN d.updated_at ELSE $15 END
			FROM (SELECT generate_series(0, cardinality($1::text[]) - 1) AS n, unnest($1::text[]) AS k, unnest($2::bigint[]) AS h,
				unnest($3::bigint[]) AS i, unnest($4::bigint[]) AS cl, unnest($5::bigint[]) AS co, unnest($6::bigint[]) AS o,
				unnest($7::bigint[]) AS s, unnest($8::integer[]) AS d, unnest($9::integer[]) AS xd, unnest($10::bigint[]) AS xi,
				unnest($11::bigint[]) AS xcl, unnest($12::bigint[]) AS xco, unnest($13::bigint[]) AS xo, unnest($14::bigint[]) AS xs) AS r
			WHERE d.keyword_id = r.k AND d.hour = r.h AND coalesce(d.day, 0) = r.xd AND d.impressions = r.xi AND d.clicks = r.xcl
				AND d.cost = r.xco AND d.orders = r.xo AND d.sales = r.xs
			RETURNING r.n`,
			kw, hour, imp, clk, cost, ord, sales, day, xDay, xImp, xClk, xCost, xOrd, xSales, micros(now))
		if err != nil {
			return nil, nil, err
		}
		written = make(map[store.HourKey]struct{}, n)
		for q.Next() {
			var j int
			if err := q.Scan(&j); err != nil {
				q.Close()
				return nil, nil, err
			}
			if j < 0 || j >= n {
				q.Close()
				return nil, nil, fmt.Errorf("checked delivery row: place %d out of the %d keys", j, n)
			}
			h := hits[j]
			r := &rows[h.row]
			checked[h.row] = true
			written[store.HourKey{KeywordID: r.KeywordID, Hour: hour[j]}] = struct{}{}
			old = append(old, store.HourFigures{KeywordID: r.KeywordID, Hour: hour[j], Day: h.state.Day,
				DeliveryKeyword: r.DeliveryKeyword, Metrics: h.state.Metrics})
		}
		q.Close()
		if err := q.Err(); err != nil {
			return nil, nil, err
		}
	}
	rest := rows
	if len(old) > 0 {
		rest = make([]store.DeliveryRow, 0, len(rows)-len(old))
		for i := range rows {
			if !checked[i] {
				rest = append(rest, rows[i])
			}
		}
	}
	if len(rest) == 0 {
		return old, written, nil
	}
	read, err := t.storedHours(ctx, rest)
	if err != nil {
		return nil, nil, err
	}
	return append(old, read...), written, nil
}

// journalDays appends ds to the days' journal, as one entry.
func (t *tx) journalDays(ctx context.Context, ds []store.DayDelta) error {
	if len(ds) == 0 {
		return nil
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO delivery_day_journal (deltas) VALUES ($1)`, store.EncodeDayDeltas(ds))
	return err
}

func (t *tx) DaysPending(ctx context.Context) (bool, error) {
	var pending bool
	err := t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM delivery_day_journal)`).Scan(&pending)
	return pending, err
}

func (t *tx) DaysJournaled(ctx context.Context) (int64, error) {
	var n int64
	err := t.tx.QueryRow(ctx, `SELECT count(*) FROM delivery_day_journal`).Scan(&n)
	return n, err
}

// FoldDays locks the entries it reads (FOR UPDATE, waiting for a fold
// that holds them: once that commits they are gone, and the days it
// wrote are read by this transaction's next statements), sums their
// deltas, adds the sums to delivery_days in the order of its key (two
// folds lock the rows they share in the same order) and deletes them.
func (t *tx) FoldDays(ctx context.Context, limit int) (int, error) {
	q := `SELECT seq, deltas FROM delivery_day_journal ORDER BY seq FOR UPDATE`
	args := []any{}
	if limit > 0 {
		q = `SELECT seq, deltas FROM delivery_day_journal ORDER BY seq LIMIT $1 FOR UPDATE`
		args = append(args, limit)
	}
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var sums store.DaySums
	var seqs []int64
	for rows.Next() {
		var seq int64
		var raw []byte
		if err := rows.Scan(&seq, &raw); err != nil {
			return 0, err
		}
		if err := sums.Add(raw); err != nil {
			return 0, fmt.Errorf("%w (seq %d)", err, seq)
		}
		seqs = append(seqs, seq)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(seqs) == 0 {
		return 0, nil
	}
	if err := t.addDays(ctx, sums.Deltas()); err != nil {
		return 0, err
	}
	if _, err := t.tx.Exec(ctx, `DELETE FROM delivery_day_journal WHERE seq = ANY($1::bigint[])`, seqs); err != nil {
		return 0, err
	}
	return len(seqs), nil
}

// insertHours inserts rows of keys not stored.
func (t *tx) insertHours(ctx context.Context, rows []store.DeliveryRow, now time.Time) error {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows)
	kw, acc, env, camp, grp := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	hour, imp, clk, cost, ord, sales := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	day := make([]*int32, n)
	for i, r := range rows {
		kw[i], acc[i], env[i], camp[i], grp[i] = r.KeywordID, r.AccountID, string(r.Environment), r.CampaignID, r.AdGroupID
		hour[i], imp[i], clk[i], cost[i], ord[i], sales[i] = micros(r.Hour), r.Impressions, r.Clicks, int64(r.Cost), r.Orders, int64(r.Sales)
		if r.Day != 0 {
			day[i] = &rows[i].Day
		}
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO delivery_hours (keyword_id, hour, account_id, environment, campaign_id, ad_group_id,
			impressions, clicks, cost, orders, sales, updated_at, day)
		SELECT k, h, a, e, c, g, i, cl, co, o, s, $12, d
		FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[],
			$7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $13::integer[]) AS r(k, h, a, e, c, g, i, cl, co, o, s, d)`,
		kw, hour, acc, env, camp, grp, imp, clk, cost, ord, sales, micros(now), day)
	return err
}

// updateHours sets the figures and day of stored rows.
func (t *tx) updateHours(ctx context.Context, rows []store.DeliveryRow, now time.Time) error {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows)
	kw := make([]string, n)
	hour, imp, clk, cost, ord, sales := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	day := make([]*int32, n)
	for i, r := range rows {
		kw[i] = r.KeywordID
		hour[i], imp[i], clk[i], cost[i], ord[i], sales[i] = micros(r.Hour), r.Impressions, r.Clicks, int64(r.Cost), r.Orders, int64(r.Sales)
		if r.Day != 0 {
			day[i] = &rows[i].Day
		}
	}
	_, err := t.tx.Exec(ctx, `UPDATE delivery_hours d SET impressions = r.i, clicks = r.cl, cost = r.co, orders = r.o, sales = r.s,
			day = r.d, updated_at = $9
		FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::integer[])
			AS r(k, h, i, cl, co, o, s, d)
		WHERE d.keyword_id = r.k AND d.hour = r.h`,
		kw, hour, imp, clk, cost, ord, sales, day, micros(now))
	return err
}

// storedHours returns the stored rows of rows' keys, Day 0 for an
// undated one (never added to a day). Each row answers its key's place
// in the arrays, not its key and where it lies: a keyword stays in its
// ad group and campaign, so those are the batch row's, and the figures
// alone are sent back.
func (t *tx) storedHours(ctx context.Context, rows []store.DeliveryRow) ([]store.HourFigures, error) {
	kw, hour := make([]string, len(rows)), make([]int64, len(rows))
	for i, r := range rows {
		kw[i], hour[i] = r.KeywordID, micros(r.Hour)
	}
	q, err := t.tx.Query(ctx, `SELECT p.n, coalesce(d.day, 0), d.impressions, d.clicks, d.cost, d.orders, d.sales
		FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS p(k, h, n)
		JOIN delivery_hours d ON d.keyword_id = p.k AND d.hour = p.h`, kw, hour)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	out := make([]store.HourFigures, 0, len(kw))
	for q.Next() {
		var n int64
		var h store.HourFigures
		if err := q.Scan(&n, &h.Day, &h.Impressions, &h.Clicks, &h.Cost, &h.Orders, &h.Sales); err != nil {
			return nil, err
		}
		if n < 1 || n > int64(len(rows)) {
			return nil, fmt.Errorf("stored delivery row: place %d out of the %d keys", n, len(rows))
		}
		r := &rows[n-1]
		h.KeywordID, h.Hour, h.DeliveryKeyword = r.KeywordID, hour[n-1], r.DeliveryKeyword
		out = append(out, h)
	}
	return out, q.Err()
}

// addDays adds each delta to its row of delivery_days, in one statement.
func (t *tx) addDays(ctx context.Context, ds []store.DayDelta) error {
	if len(ds) == 0 {
		return nil
	}
	n := len(ds)
	acc, env, ent, camp, grp := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	level, day := make([]int16, n), make([]int32, n)
	imp, clk, cost, ord, sales := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, d := range ds {
		acc[i], env[i], ent[i], camp[i], grp[i] = d.AccountID, string(d.Environment), d.EntityID, d.CampaignID, d.AdGroupID
		level[i], day[i] = int16(d.Level), d.Day
		imp[i], clk[i], cost[i], ord[i], sales[i] = d.Impressions, d.Clicks, int64(d.Cost), d.Orders, int64(d.Sales)
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO delivery_days (account_id, environment, level, day, entity_id, campaign_id, ad_group_id,
			impressions, clicks, cost, orders, sales)
		SELECT * FROM unnest($1::text[], $2::text[], $3::smallint[], $4::integer[], $5::text[], $6::text[], $7::text[],
			$8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[])
		ON CONFLICT (account_id, environment, level, day, entity_id) DO UPDATE SET
			impressions = delivery_days.impressions + excluded.impressions, clicks = delivery_days.clicks + excluded.clicks,
			cost = delivery_days.cost + excluded.cost, orders = delivery_days.orders + excluded.orders,
			sales = delivery_days.sales + excluded.sales`,
		acc, env, level, day, ent, camp, grp, imp, clk, cost, ord, sales)
	return err
}

func (t *tx) CampaignSpend(ctx context.Context, campaignIDs []string, from, to time.Time) (map[string]adcamp.Money, error) {
	out := make(map[string]adcamp.Money, len(campaignIDs))
	rows, err := t.tx.Query(ctx, `SELECT campaign_id, SUM(cost) FROM campaign_hour_spend
		WHERE campaign_id = ANY($1::text[]) AND hour >= $2 AND hour < $3 GROUP BY campaign_id`,
		campaignIDs, micros(from), micros(to))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var sum int64
		if err := rows.Scan(&id, &sum); err != nil {
			return nil, err
		}
		out[id] = adcamp.Money(sum)
	}
	return out, rows.Err()
}

func (t *tx) GetCampaignSpend(ctx context.Context, tn adcamp.Tenant, id string, from, to time.Time) (*adcamp.Campaign, adcamp.Money, error) {
	var spend int64
	c, err := scanCampaign(&withSpend{r: t.tx.QueryRow(ctx, `SELECT `+campaignColumns+`,
		(SELECT coalesce(SUM(cost), 0) FROM campaign_hour_spend s WHERE s.campaign_id = campaigns.id AND s.hour >= $4 AND s.hour < $5)
		FROM campaigns WHERE `+campaignByID,
		id, tn.AccountID, string(tn.Environment), micros(from), micros(to)), spend: &spend})
	if err != nil {
		return nil, 0, notFound(err, "campaign", id)
	}
	return c, adcamp.Money(spend), nil
}

// ListCampaignsSpend reads the page with each campaign's spend and the
// list's total in one statement (the spend a subquery by campaign and
// hour on campaign_hour_spend's key), as ListCampaigns reads the page
// and its total: one round trip instead of two.
func (t *tx) ListCampaignsSpend(ctx context.Context, tn adcamp.Tenant, q store.ListQuery, from, to time.Time) ([]*adcamp.Campaign, []adcamp.Money, int64, error) {
	type spent struct {
		c     *adcamp.Campaign
		spend int64
	}
	columns := func(first int) string {
		return campaignColumns + `, (SELECT coalesce(SUM(cost), 0) FROM campaign_hour_spend s
			WHERE s.campaign_id = campaigns.id AND s.hour >= $` + itoa(first) + ` AND s.hour < $` + itoa(first+1) + `)`
	}
	items, total, err := campaignPage(ctx, t, tn, q, columns, []any{micros(from), micros(to)}, func(r row) (spent, error) {
		var it spent
		var err error
		it.c, err = scanCampaign(&withSpend{r: r, spend: &it.spend})
		return it, err
	})
	if err != nil || len(items) == 0 {
		return nil, nil, total, err
	}
	cs, spend := make([]*adcamp.Campaign, len(items)), make([]adcamp.Money, len(items))
	for i, it := range items {
		cs[i], spend[i] = it.c, adcamp.Money(it.spend)
	}
	return cs, spend, total, nil
}

// withSpend scans a campaign's row whose last column is its spend.
type withSpend struct {
	r     row
	spend *int64
}

func (w *withSpend) Scan(dest ...any) error {
	return w.r.Scan(append(dest, w.spend)...)
}

func (t *tx) DeleteCampaignDelivery(ctx context.Context, campaignID string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM delivery_hours WHERE campaign_id = $1`, campaignID); err != nil {
		return err
	}
	_, err := t.tx.Exec(ctx, `DELETE FROM campaign_hour_spend WHERE campaign_id = $1`, campaignID)
	return err
}
