package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The marketplace's side: operator keys, time zones and delivery figures
// (store.OperatorTx).

const operatorKeyColumns = `id, name, secret, disabled, created_at, last_used_at`

func scanOperatorKey(row rowScanner) (*store.OperatorKey, error) {
	var k store.OperatorKey
	var created int64
	var last sql.NullInt64
	if err := row.Scan(&k.ID, &k.Name, &k.Secret, &k.Disabled, &created, &last); err != nil {
		return nil, err
	}
	k.CreatedAt = fromMicros(created)
	k.LastUsedAt = fromNullMicros(last)
	return &k, nil
}

func (t *tx) CreateOperatorKey(ctx context.Context, k *store.OperatorKey) error {
	_, err := t.exec(ctx, `INSERT INTO operator_keys (`+operatorKeyColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
		k.ID, k.Name, k.Secret, k.Disabled, micros(k.CreatedAt), nullMicros(k.LastUsedAt))
	return err
}

func (t *tx) GetOperatorKey(ctx context.Context, id string) (*store.OperatorKey, error) {
	k, err := scanOperatorKey(t.queryRow(ctx, `SELECT `+operatorKeyColumns+` FROM operator_keys WHERE id = $1`, id))
	if err != nil {
		return nil, notFound(err, "operator key", id)
	}
	return k, nil
}

func (t *tx) ListOperatorKeys(ctx context.Context) ([]*store.OperatorKey, error) {
	rows, err := t.query(ctx, `SELECT `+operatorKeyColumns+` FROM operator_keys ORDER BY created_at, id`)
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
	res, err := t.exec(ctx, `UPDATE operator_keys SET disabled = $2 WHERE id = $1`, id, disabled)
	return affectedOne(res, err, "operator key", id)
}

func (t *tx) DeleteOperatorKey(ctx context.Context, id string) error {
	res, err := t.exec(ctx, `DELETE FROM operator_keys WHERE id = $1`, id)
	return affectedOne(res, err, "operator key", id)
}

func (t *tx) SetAccountTimeZone(ctx context.Context, id, zone string) error {
	res, err := t.exec(ctx, `UPDATE accounts SET time_zone = $2 WHERE id = $1`, id, zone)
	return affectedOne(res, err, "account", id)
}

// chunkSizes are the sizes of the statements a batch is cut into: a few
// fixed texts, so that the statement cache holds each prepared once.
var chunkSizes = [...]int{250, 50, 10, 1}

// chunks cuts n into runs of chunkSizes, largest first.
func chunks(n int, fn func(start, size int) error) error {
	start := 0
	for _, size := range chunkSizes {
		for n-start >= size {
			if err := fn(start, size); err != nil {
				return err
			}
			start += size
		}
	}
	return nil
}

// chunkSQL returns build's statement for a chunk of size rows: built
// once for each of chunkSizes (a 250-row statement's text is 10 KB or
// more, and building it again for each chunk cost a tenth of a 10,000-row
// delivery request's allocations).
func chunkSQL(build func(size int) string) func(size int) string {
	var texts [len(chunkSizes)]string
	for i, n := range chunkSizes {
		texts[i] = build(n)
	}
	return func(size int) string {
		for i, n := range chunkSizes {
			if n == size {
				return texts[i]
			}
		}
		return build(size)
	}
}

// placeholders returns "(?, …, ?), (…)" for rows rows of cols values.
// Anonymous parameters: the driver looks each named one ($1) up by
// number in a list of all of them, which makes binding thousands of
// them quadratic (most of a 10,000-row delivery request's time).
func placeholders(rows, cols int) string {
	var b strings.Builder
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('?')
		}
		b.WriteByte(')')
	}
	return b.String()
}

// deliveryKeywordsSQL reads where size keywords lie: SQLite walks the
// values and finds each keyword and its ad group by primary key.
var deliveryKeywordsSQL = chunkSQL(func(size int) string {
	return `SELECT k.id, k.account_id, k.environment, g.campaign_id, k.ad_group_id
		FROM (VALUES ` + placeholders(size, 1) + `) AS v JOIN keywords k ON k.id = v.column1 JOIN ad_groups g ON g.id = k.ad_group_id`
})

// keywordsFoundSQL answers the places in the values of the size
// keywords that exist: one seek of the primary key's index each, which
// holds the id (no row read).
var keywordsFoundSQL = chunkSQL(func(size int) string {
	return `SELECT v.column2 FROM (VALUES ` + placeholders(size, 2) + `) AS v JOIN keywords k ON k.id = v.column1`
})

// DeliveryKeywords returns the places of the keywords of ids that exist.
// Those the writer knows to exist under the generation of deletions read
// now (liveKeywords), whose places it holds, are taken as they are; the
// others are found (findKeywords) and staged as known once this
// transaction commits.
func (t *tx) DeliveryKeywords(ctx context.Context, ids []string) (map[string]store.DeliveryKeyword, error) {
	if t.places == nil {
		return t.keywordPlaces(ctx, ids)
	}
	gen, err := t.deletionGeneration(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]store.DeliveryKeyword, len(ids))
	var unknown []string
	t.live.each(gen, ids, func(id string, known bool) {
		if known {
			if k, ok := t.places.Get(id); ok {
				out[id] = k
				return
			}
		}
		unknown = append(unknown, id)
	})
	if len(unknown) == 0 {
		return out, nil
	}
	found, err := t.findKeywords(ctx, unknown)
	if err != nil {
		return nil, err
	}
	staged := make([]string, 0, len(found))
	for id, k := range found {
		out[id] = k
		staged = append(staged, id)
	}
	t.live.put(gen, staged)
	return out, nil
}

// findKeywords finds the keywords of ids (the primary key's index
// alone), and reads the places of those the writer's cache does not hold
// (store.PlaceCache).
func (t *tx) findKeywords(ctx context.Context, ids []string) (map[string]store.DeliveryKeyword, error) {
	out := make(map[string]store.DeliveryKeyword, len(ids))
	var unknown []string
	err := chunks(len(ids), func(start, size int) error {
		args := make([]any, 0, 2*size)
		for i := range size {
			args = append(args, ids[start+i], i)
		}
		rows, err := t.query(ctx, keywordsFoundSQL(size), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var i int
			if err := rows.Scan(&i); err != nil {
				return err
			}
			if i < 0 || i >= size {
				return fmt.Errorf("keyword found: place %d out of the %d values", i, size)
			}
			id := ids[start+i]
			if k, ok := t.places.Get(id); ok {
				out[id] = k
			} else {
				unknown = append(unknown, id)
			}
		}
		return rows.Err()
	})
	if err != nil || len(unknown) == 0 {
		return out, err
	}
	places, err := t.keywordPlaces(ctx, unknown)
	for id, k := range places {
		out[id] = k
		t.places.Put(id, k)
	}
	return out, err
}

// keywordPlaces reads where the keywords of ids lie.
func (t *tx) keywordPlaces(ctx context.Context, ids []string) (map[string]store.DeliveryKeyword, error) {
	out := make(map[string]store.DeliveryKeyword, len(ids))
	err := chunks(len(ids), func(start, size int) error {
		args := make([]any, size)
		for i := range size {
			args[i] = ids[start+i]
		}
		rows, err := t.query(ctx, deliveryKeywordsSQL(size), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var k store.DeliveryKeyword
			if err := rows.Scan(&id, &k.AccountID, &k.Environment, &k.CampaignID, &k.AdGroupID); err != nil {
				return err
			}
			out[id] = k
		}
		return rows.Err()
	})
	return out, err
}

const deliveryColumns = 13

// PutDelivery reads the stored rows of the batch's keys, then upserts
// the new and changed rows (an unchanged row is not written), adds each
// campaign's change of cost to its hours in campaign_hour_spend and
// journals the changes of the days (store.PlanDelivery, FoldDays).
func (t *tx) PutDelivery(ctx context.Context, rows []store.DeliveryRow, now time.Time) (err error) {
	if len(rows) >= bigDelivery {
		if err := t.cacheSize(ctx, deliveryCacheKiB); err != nil {
			return err
		}
		defer func() {
			if e := t.cacheSize(ctx, writerCacheKiB); err == nil {
				err = e
			}
		}()
	}
	rows = store.SortDelivery(rows)
	old, err := t.storedHoursCached(ctx, rows)
	if err != nil {
		return err
	}
	plan := store.PlanDelivery(old, rows)
	t.hours.Stored(rows, old)
	at := micros(now)
	// New and changed rows alike through the upsert: its conflict check
	// leaves SQLite on the stored row, which it updates in place; an
	// UPDATE … FROM (VALUES …) of the changed ones cost more (it first
	// collects the rows to update).
	write := append(plan.Insert, plan.Update...)
	if len(plan.Insert) > 0 && len(plan.Update) > 0 {
		write = store.SortDelivery(write)
	}
	err = chunks(len(write), func(start, size int) error {
		args := make([]any, 0, size*deliveryColumns)
		for _, r := range write[start : start+size] {
			args = append(args, r.KeywordID, micros(r.Hour), r.AccountID, string(r.Environment), r.CampaignID, r.AdGroupID,
				r.Impressions, r.Clicks, int64(r.Cost), r.Orders, int64(r.Sales), at, nullDay(r.Day))
		}
		_, err := t.exec(ctx, putHoursSQL(size), args...)
		return err
	})
	if err != nil {
		return err
	}
	err = chunks(len(plan.Spend), func(start, size int) error {
		args := make([]any, 0, size*3)
		for _, h := range plan.Spend[start : start+size] {
			args = append(args, h.CampaignID, h.Hour, int64(h.Cost))
		}
		_, err := t.exec(ctx, addSpendSQL(size), args...)
		return err
	})
	if err != nil {
		return err
	}
	return t.journalDays(ctx, plan.Days)
}

// forgetHours clears the writer's HourCache and what the transaction
// staged for it: for what deletes hourly rows.
func (t *tx) forgetHours() { t.hours.Forget() }

// journalDays appends ds to the days' journal, as one entry.
func (t *tx) journalDays(ctx context.Context, ds []store.DayDelta) error {
	if len(ds) == 0 {
		return nil
	}
	_, err := t.exec(ctx, `INSERT INTO delivery_day_journal (deltas) VALUES ($1)`, store.EncodeDayDeltas(ds))
	return err
}

func (t *tx) DaysPending(ctx context.Context) (bool, error) {
	var pending bool
	err := t.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM delivery_day_journal)`).Scan(&pending)
	return pending, err
}

func (t *tx) DaysJournaled(ctx context.Context) (int64, error) {
	var n int64
	err := t.queryRow(ctx, `SELECT count(*) FROM delivery_day_journal`).Scan(&n)
	return n, err
}

// FoldDays reads the entries in order, sums their deltas and adds the
// sums to delivery_days (SQLite's one writer: no other fold runs).
func (t *tx) FoldDays(ctx context.Context, limit int) (n int, err error) {
	if limit <= 0 {
		limit = -1 // SQLite's LIMIT for none
	}
	rows, err := t.query(ctx, `SELECT seq, deltas FROM delivery_day_journal ORDER BY seq LIMIT $1`, limit)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var sums store.DaySums
	var last int64
	for rows.Next() {
		var raw sql.RawBytes
		if err := rows.Scan(&last, &raw); err != nil {
			return 0, err
		}
		if err := sums.Add(raw); err != nil {
			return 0, fmt.Errorf("%w (seq %d)", err, last)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	rows.Close()
	if n == 0 {
		return 0, nil
	}
	ds := sums.Deltas()
	if len(ds) >= bigDelivery {
		if err := t.cacheSize(ctx, deliveryCacheKiB); err != nil {
			return 0, err
		}
		defer func() {
			if e := t.cacheSize(ctx, writerCacheKiB); err == nil {
				err = e
			}
		}()
	}
	if err := t.addDays(ctx, ds); err != nil {
		return 0, err
	}
	if _, err := t.exec(ctx, `DELETE FROM delivery_day_journal WHERE seq <= $1`, last); err != nil {
		return 0, err
	}
	return n, nil
}

// putHoursSQL writes size rows of delivery_hours.
var putHoursSQL = chunkSQL(func(size int) string {
	return `INSERT INTO delivery_hours (keyword_id, hour, account_id, environment, campaign_id, ad_group_id,
		impressions, clicks, cost, orders, sales, updated_at, day) VALUES ` + placeholders(size, deliveryColumns) + `
		ON CONFLICT (keyword_id, hour) DO UPDATE SET impressions = excluded.impressions, clicks = excluded.clicks,
		cost = excluded.cost, orders = excluded.orders, sales = excluded.sales, updated_at = excluded.updated_at,
		day = COALESCE(excluded.day, delivery_hours.day)`
})

// addSpendSQL adds size changes of cost to campaign_hour_spend.
var addSpendSQL = chunkSQL(func(size int) string {
	return `INSERT INTO campaign_hour_spend (campaign_id, hour, cost) VALUES ` + placeholders(size, 3) + `
		ON CONFLICT (campaign_id, hour) DO UPDATE SET cost = campaign_hour_spend.cost + excluded.cost`
})

// A delivery batch of bigDelivery rows or more runs with a page cache of
// deliveryCacheKiB on the writer's connection, given back to SQLite's
// default (writerCacheKiB) when it is written. Its rows touch more pages
// of delivery_hours, delivery_days and keywords than the default holds
// (10,000 rows: about 8 MiB), so with the default, pages were written to
// the WAL before the commit to make room and read back again (a quarter
// of the CPU of a 10,000-row batch went to pread and pwrite); with
// every writer's cache that large, the process would keep the pages of
// any write for good (the mixed sitting's memory is bounded).
const (
	bigDelivery      = 1000
	deliveryCacheKiB = 64 << 10
	writerCacheKiB   = 2000
)

// cacheSize sets the page cache of the transaction's connection.
func (t *tx) cacheSize(ctx context.Context, kib int) error {
	_, err := t.tx.ExecContext(t.ctx(ctx), "PRAGMA cache_size = -"+strconv.Itoa(kib))
	return err
}

// nullDay is a row's day, NULL for none.
func nullDay(d int32) any {
	if d == 0 {
		return nil
	}
	return d
}

// storedHoursSQL reads the stored rows of size keys: SQLite walks the
// values and finds each row by its primary key (an IN list would first
// sort the keys into a temporary index). Each row answers its key's
// place in the values, not its key and where it lies: a keyword stays
// in its ad group and campaign, so those are the batch row's, and the
// figures alone are read (no text to copy out of SQLite).
var storedHoursSQL = chunkSQL(func(size int) string {
	return `SELECT v.column3, coalesce(d.day, 0), d.impressions, d.clicks, d.cost, d.orders, d.sales
		FROM (VALUES ` + placeholders(size, 3) + `) AS v JOIN delivery_hours d ON d.keyword_id = v.column1 AND d.hour = v.column2`
})

// storedHoursCached returns the stored rows of rows' keys as
// storedHours does, those the writer's HourCache holds from it and the
// others from the database. A transaction that has stored hourly rows
// already reads them all from the database (store.HourStage.Fresh).
func (t *tx) storedHoursCached(ctx context.Context, rows []store.DeliveryRow) ([]store.HourFigures, error) {
	if !t.hours.Fresh() {
		return t.storedHours(ctx, rows)
	}
	old := make([]store.HourFigures, 0, len(rows))
	var missed []store.DeliveryRow
	for _, r := range rows {
		h := micros(r.Hour)
		s, ok := t.hours.Cache.Get(store.HourKey{KeywordID: r.KeywordID, Hour: h})
		if !ok {
			missed = append(missed, r)
			continue
		}
		old = append(old, store.HourFigures{KeywordID: r.KeywordID, Hour: h, Day: s.Day, DeliveryKeyword: r.DeliveryKeyword,
			Metrics: s.Metrics})
	}
	if len(missed) == 0 {
		return old, nil
	}
	read, err := t.storedHours(ctx, missed)
	if err != nil {
		return nil, err
	}
	if len(old) == 0 {
		return read, nil
	}
	return append(old, read...), nil
}

// storedHours returns the stored rows of rows' keys, Day 0 for an
// undated one (never added to a day).
func (t *tx) storedHours(ctx context.Context, rows []store.DeliveryRow) ([]store.HourFigures, error) {
	out := make([]store.HourFigures, 0, len(rows))
	err := chunks(len(rows), func(start, size int) error {
		args := make([]any, 0, size*3)
		for i, r := range rows[start : start+size] {
			args = append(args, r.KeywordID, micros(r.Hour), i)
		}
		q, err := t.query(ctx, storedHoursSQL(size), args...)
		if err != nil {
			return err
		}
		defer q.Close()
		for q.Next() {
			var i int
			var h store.HourFigures
			if err := q.Scan(&i, &h.Day, &h.Impressions, &h.Clicks, &h.Cost, &h.Orders, &h.Sales); err != nil {
				return err
			}
			if i < 0 || i >= size {
				return fmt.Errorf("stored delivery row: place %d out of the %d values", i, size)
			}
			r := &rows[start+i]
			h.KeywordID, h.Hour, h.DeliveryKeyword = r.KeywordID, micros(r.Hour), r.DeliveryKeyword
			out = append(out, h)
		}
		return q.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

const dayColumns = 12

// addDaysSQL adds size deltas to their rows of delivery_days.
var addDaysSQL = chunkSQL(func(size int) string {
	return `INSERT INTO delivery_days (account_id, environment, level, day, entity_id, campaign_id, ad_group_id,
		impressions, clicks, cost, orders, sales) VALUES ` + placeholders(size, dayColumns) + `
		ON CONFLICT (account_id, environment, level, day, entity_id) DO UPDATE SET
		impressions = delivery_days.impressions + excluded.impressions, clicks = delivery_days.clicks + excluded.clicks,
		cost = delivery_days.cost + excluded.cost, orders = delivery_days.orders + excluded.orders,
		sales = delivery_days.sales + excluded.sales`
})

// addDays adds each delta to its row of delivery_days.
func (t *tx) addDays(ctx context.Context, ds []store.DayDelta) error {
	return chunks(len(ds), func(start, size int) error {
		args := make([]any, 0, size*dayColumns)
		for _, d := range ds[start : start+size] {
			args = append(args, d.AccountID, string(d.Environment), int(d.Level), d.Day, d.EntityID, d.CampaignID, d.AdGroupID,
				d.Impressions, d.Clicks, int64(d.Cost), d.Orders, int64(d.Sales))
		}
		_, err := t.exec(ctx, addDaysSQL(size), args...)
		return err
	})
}

func (t *tx) CampaignSpend(ctx context.Context, campaignIDs []string, from, to time.Time) (map[string]adcamp.Money, error) {
	out := make(map[string]adcamp.Money, len(campaignIDs))
	if len(campaignIDs) == 0 {
		return out, nil
	}
	if len(campaignIDs) == 1 {
		// A campaign's get, create or update: a plain range of the
		// primary key, without json_each's table (half the cost).
		var sum sql.NullInt64
		err := t.queryRow(ctx, `SELECT SUM(cost) FROM campaign_hour_spend WHERE campaign_id = $1 AND hour >= $2 AND hour < $3`,
			campaignIDs[0], micros(from), micros(to)).Scan(&sum)
		if sum.Valid {
			out[campaignIDs[0]] = adcamp.Money(sum.Int64)
		}
		return out, err
	}
	// One statement for a page of campaigns (it was one per campaign): a
	// range of the primary key per id.
	rows, err := t.query(ctx, `SELECT campaign_id, SUM(cost) FROM campaign_hour_spend
		WHERE campaign_id IN (SELECT value FROM json_each($1)) AND hour >= $2 AND hour < $3 GROUP BY campaign_id`,
		jsonList(campaignIDs), micros(from), micros(to))
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

// campaignWithSpend is GetCampaignSpend's statement.
const campaignWithSpend = `SELECT ` + campaignSelect + `,
	(SELECT coalesce(SUM(cost), 0) FROM campaign_hour_spend s WHERE s.campaign_id = campaigns.id AND s.hour >= $4 AND s.hour < $5)
	FROM campaigns WHERE id = $1 AND account_id = $2 AND environment = $3`

func (t *tx) GetCampaignSpend(ctx context.Context, tn adcamp.Tenant, id string, from, to time.Time) (*adcamp.Campaign, adcamp.Money, error) {
	sc := newCampaignScanner(tn, 1)
	var spend int64
	sc.dest = append(sc.dest, &spend)
	c, err := sc.scan(t.queryRow(ctx, campaignWithSpend, id, tn.AccountID, tn.Environment, micros(from), micros(to)))
	if err != nil {
		return nil, 0, notFound(err, "campaign", id)
	}
	return c, adcamp.Money(spend), nil
}

func (t *tx) DeleteCampaignDelivery(ctx context.Context, campaignID string) error {
	t.forgetHours()
	if _, err := t.exec(ctx, `DELETE FROM delivery_hours WHERE campaign_id = $1`, campaignID); err != nil {
		return err
	}
	_, err := t.exec(ctx, `DELETE FROM campaign_hour_spend WHERE campaign_id = $1`, campaignID)
	return err
}
