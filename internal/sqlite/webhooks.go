package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Webhooks (store.WebhooksTx). SQLite has one writer: a claim cannot race
// another process's, and one serve process owns the database.

const endpointColumns = `id, account_id, environment, url, description, event_types, enabled, disabled_reason,
	failing_since, secret, previous_secret, previous_expires_at, created_at, updated_at, ordering`

func scanEndpoint(row rowScanner) (*store.WebhookEndpoint, error) {
	var e store.WebhookEndpoint
	var types string
	var failing, prevExp sql.NullInt64
	var created, updated int64
	err := row.Scan(&e.ID, &e.AccountID, (*string)(&e.Environment), &e.URL, &e.Description, &types, &e.Enabled,
		&e.DisabledReason, &failing, &e.Secret, &e.PreviousSecret, &prevExp, &created, &updated, &e.Ordering)
	if err != nil {
		return nil, err
	}
	e.EventTypes = strings.Fields(types)
	e.FailingSince, e.PreviousSecretExpiresAt = fromNullMicros(failing), fromNullMicros(prevExp)
	e.CreatedAt, e.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &e, nil
}

func (t *tx) CreateWebhookEndpoint(ctx context.Context, e *store.WebhookEndpoint) error {
	t.endpointsChanged()
	_, err := t.exec(ctx, `INSERT INTO webhook_endpoints (`+endpointColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
		e.ID, e.AccountID, string(e.Environment), e.URL, e.Description, strings.Join(e.EventTypes, " "), e.Enabled,
		e.DisabledReason, nullMicros(e.FailingSince), e.Secret, e.PreviousSecret, nullMicros(e.PreviousSecretExpiresAt),
		micros(e.CreatedAt), micros(e.UpdatedAt), e.Ordering)
	return err
}

func (t *tx) GetWebhookEndpoint(ctx context.Context, tn adcamp.Tenant, id string) (*store.WebhookEndpoint, error) {
	e, err := scanEndpoint(t.queryRow(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE id = $1 AND account_id = $2 AND environment = $3`, id, tn.AccountID, string(tn.Environment)))
	if err != nil {
		return nil, notFound(err, "webhook endpoint", id)
	}
	return e, nil
}

func (t *tx) EndpointByID(ctx context.Context, id string) (*store.WebhookEndpoint, error) {
	e, err := scanEndpoint(t.queryRow(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints WHERE id = $1`, id))
	if err != nil {
		return nil, notFound(err, "webhook endpoint", id)
	}
	return e, nil
}

func (t *tx) ListWebhookEndpoints(ctx context.Context, tn adcamp.Tenant) ([]*store.WebhookEndpoint, error) {
	rows, err := t.query(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE account_id = $1 AND environment = $2 ORDER BY id`, tn.AccountID, string(tn.Environment))
	if err != nil {
		return nil, err
	}
	return collect(rows, scanEndpoint)
}

func (t *tx) UpdateWebhookEndpoint(ctx context.Context, e *store.WebhookEndpoint) error {
	t.endpointsChanged()
	res, err := t.exec(ctx, `UPDATE webhook_endpoints SET url = $1, description = $2, event_types = $3, enabled = $4,
		disabled_reason = $5, failing_since = $6, secret = $7, previous_secret = $8, previous_expires_at = $9,
		updated_at = $10, ordering = $13 WHERE id = $11 AND account_id = $12`,
		e.URL, e.Description, strings.Join(e.EventTypes, " "), e.Enabled, e.DisabledReason, nullMicros(e.FailingSince),
		e.Secret, e.PreviousSecret, nullMicros(e.PreviousSecretExpiresAt), micros(e.UpdatedAt), e.ID, e.AccountID,
		e.Ordering)
	return affectedOne(res, err, "webhook endpoint", e.ID)
}

func (t *tx) DeleteWebhookEndpoint(ctx context.Context, tn adcamp.Tenant, id string) error {
	t.endpointsChanged()
	res, err := t.exec(ctx, `DELETE FROM webhook_endpoints WHERE id = $1 AND account_id = $2 AND environment = $3`,
		id, tn.AccountID, string(tn.Environment))
	return affectedOne(res, err, "webhook endpoint", id)
}

const eventColumns = `id, account_id, environment, type, occurred_at, campaign_id, payload`

func scanEvent(row rowScanner) (*adcamp.Event, error) {
	var e adcamp.Event
	var occurred intCol
	var campaign nullText
	var payload string
	err := row.Scan(&e.ID, &e.AccountID, (*string)(&e.Environment), &e.Type, &occurred, &campaign, &payload)
	if err != nil {
		return nil, err
	}
	e.OccurredAt, e.CampaignID, e.Payload = fromMicros(int64(occurred)), string(campaign), []byte(payload)
	return &e, nil
}

func (t *tx) AddEvents(ctx context.Context, evs []*adcamp.Event) error {
	for _, e := range evs {
		if e.Payload != nil {
			if err := t.AddEventsOnly(ctx, []*adcamp.Event{e}); err != nil {
				return err
			}
		} else {
			// A change record's event: queued only for a tenant with an
			// enabled endpoint (see store.WebhooksTx.AddEvents).
			has, err := t.hasEndpoint(ctx, adcamp.Tenant{AccountID: e.AccountID, Environment: e.Environment})
			if err != nil {
				return err
			}
			if !has {
				continue
			}
		}
		if _, err := t.exec(ctx, `INSERT INTO webhook_outbox (event_id) VALUES ($1)`, e.ID); err != nil {
			return err
		}
	}
	return nil
}

// hasEndpoint says whether tn has an enabled webhook endpoint, as t sees
// it. The answer is kept for the rest of the transaction, which is a whole
// batch of writes (see batcher): most writes of a batch are one tenant's,
// and the lookup was a statement a change, about a tenth of a campaign's
// create (bench/notes/39-sqlite.md). A change of the endpoints in the
// same transaction forgets it (endpointsChanged), and so does a write of
// the batch rolled back to its savepoint (runOne). One made by another
// connection cannot come between: the writer holds the write lock from
// the batch's first statement to its commit. (An account deleted in the
// batch may leave a stale yes: its events are queued, and the dispatcher
// drops what no endpoint takes.)
func (t *tx) hasEndpoint(ctx context.Context, tn adcamp.Tenant) (bool, error) {
	if has, ok := t.endpoints[tn]; ok {
		return has, nil
	}
	var has bool
	if err := t.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM webhook_endpoints
		WHERE account_id = $1 AND environment = $2 AND enabled)`, tn.AccountID, string(tn.Environment)).Scan(&has); err != nil {
		return false, err
	}
	if t.endpoints == nil {
		t.endpoints = make(map[adcamp.Tenant]bool, 1)
	}
	t.endpoints[tn] = has
	return has, nil
}

// endpointsChanged forgets what hasEndpoint found: t has changed the
// webhook endpoints.
func (t *tx) endpointsChanged() { clear(t.endpoints) }

// eventsPerInsert bounds the rows of one INSERT of AddEventsOnly (7 values
// each): the dispatcher stores the events of a batch of its outbox in one
// statement or a few.
const eventsPerInsert = 100

func (t *tx) AddEventsOnly(ctx context.Context, evs []*adcamp.Event) error {
	for len(evs) > 0 {
		n := min(len(evs), eventsPerInsert)
		var b strings.Builder
		b.WriteString(`INSERT INTO webhook_events (` + eventColumns + `) VALUES `)
		args := make([]any, 0, 7*n)
		for i, e := range evs[:n] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`(?,?,?,?,?,?,?)`)
			args = append(args, e.ID, e.AccountID, string(e.Environment), e.Type, micros(e.OccurredAt),
				nullID(e.CampaignID), string(e.Payload))
		}
		b.WriteString(` ON CONFLICT (id) DO NOTHING`)
		// One row (a test event, a budget event) goes through the
		// statement cache; a batch's text varies with its size.
		var err error
		if n == 1 {
			_, err = t.exec(ctx, b.String(), args...)
		} else {
			_, err = t.tx.ExecContext(t.ctx(ctx), b.String(), args...)
		}
		if err != nil {
			return err
		}
		evs = evs[n:]
	}
	return nil
}

func (t *tx) GetEvent(ctx context.Context, tn adcamp.Tenant, id string) (*adcamp.Event, error) {
	e, err := scanEvent(t.queryRow(ctx, `SELECT `+eventColumns+` FROM webhook_events
		WHERE id = $1 AND account_id = $2 AND environment = $3`, id, tn.AccountID, string(tn.Environment)))
	if err != nil {
		return nil, notFound(err, "event", id)
	}
	return e, nil
}

// eventWhere is the WHERE of q, with its arguments; placeholders are
// numbered from 1.
func eventWhere(q store.EventQuery) (string, []any) {
	w := []string{`account_id = $1`, `environment = $2`, `type <> '` + adcamp.EventTest + `'`}
	args := []any{q.Tenant.AccountID, string(q.Tenant.Environment)}
	add := func(cond string, v any) {
		args = append(args, v)
		w = append(w, strings.ReplaceAll(cond, "?", "$"+itoa(len(args))))
	}
	if q.From != "" {
		add(`id >= ?`, q.From)
	}
	if q.Before != "" {
		add(`id < ?`, q.Before)
	}
	if len(q.Types) > 0 {
		var in []string
		for _, typ := range q.Types {
			args = append(args, typ)
			in = append(in, "$"+itoa(len(args)))
		}
		w = append(w, `type IN (`+strings.Join(in, ", ")+`)`)
	}
	return strings.Join(w, " AND "), args
}

func (t *tx) ListEvents(ctx context.Context, q store.EventQuery) ([]*adcamp.Event, error) {
	where, args := eventWhere(q)
	args = append(args, q.Limit)
	rows, err := t.query(ctx, `SELECT `+eventColumns+` FROM webhook_events WHERE `+where+
		` ORDER BY id DESC LIMIT $`+itoa(len(args)), args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanEvent)
}

// outboxChange is the id of the change record of the outbox row o, whose
// event is the record's (store.WebhooksTx.AddEvents): "chg_" for "evt_".
const outboxChange = `'` + adcamp.PrefixChange + `' || substr(o.event_id, 5)`

// unstored keeps the outbox rows o whose event is not stored: a change
// record's (a keyword batch's event shares its first record's ULID).
const unstored = `NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.id = o.event_id)`

// delivered keeps the records c of a tenant with an enabled endpoint, or
// written before their event types were kept (store.WebhooksTx.TakeOutbox).
const delivered = `(c.event_type IS NULL OR EXISTS (SELECT 1 FROM webhook_endpoints w
	WHERE w.account_id = c.account_id AND w.environment = c.environment AND w.enabled))`

func (t *tx) TakeOutbox(ctx context.Context, limit int) (int, []*adcamp.Event, []*adcamp.Change, error) {
	var n int
	var last sql.NullString
	err := t.queryRow(ctx, `SELECT count(*), max(event_id) FROM (
		SELECT event_id FROM webhook_outbox ORDER BY event_id LIMIT $1)`, limit).Scan(&n, &last)
	if err != nil || !last.Valid {
		return 0, nil, nil, err
	}
	rows, err := t.query(ctx, `SELECT `+eventColumns+` FROM webhook_events
		WHERE id IN (SELECT event_id FROM webhook_outbox WHERE event_id <= $1) ORDER BY id`, last.String)
	if err != nil {
		return 0, nil, nil, err
	}
	evs, err := collect(rows, scanEvent)
	if err != nil {
		return 0, nil, nil, err
	}
	rows, err = t.query(ctx, `SELECT `+prefixed("c.", changeColumns)+` FROM changes c WHERE c.id IN (
		SELECT `+outboxChange+` FROM webhook_outbox o WHERE o.event_id <= $1 AND `+unstored+`) AND `+delivered+`
		ORDER BY c.id`, last.String)
	if err != nil {
		return 0, nil, nil, err
	}
	cs, err := collect(rows, scanChange)
	if err != nil {
		return 0, nil, nil, err
	}
	// Outbox rows whose event was purged are dropped with the others.
	_, err = t.exec(ctx, `DELETE FROM webhook_outbox WHERE event_id <= $1`, last.String)
	return n, evs, cs, err
}

func (t *tx) ChangeEvents(ctx context.Context, q store.EventQuery) ([]*adcamp.Change, error) {
	from, before := store.EventRecordBounds(q)
	args := []any{q.Tenant.AccountID, string(q.Tenant.Environment), from, before, q.Limit}
	types := ""
	if len(q.Types) > 0 {
		var in []string
		for _, typ := range q.Types {
			args = append(args, typ)
			in = append(in, "$"+itoa(len(args)))
		}
		types = ` AND event_type IN (` + strings.Join(in, ", ") + `)`
	}
	// The tenant's records in id order, those of no event of their own
	// (members', endpoints', a batch's keywords) passed over.
	rows, err := t.query(ctx, `SELECT `+changeColumns+` FROM changes INDEXED BY changes_tenant
		WHERE account_id = $1 AND environment = $2 AND id >= $3 AND id < $4 AND event_type IS NOT NULL`+types+`
		ORDER BY id DESC LIMIT $5`, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanChange)
}

func (t *tx) PurgeEvents(ctx context.Context, before string, limit int) (int64, error) {
	for _, q := range []string{
		`DELETE FROM webhook_attempts WHERE event_id IN (SELECT id FROM webhook_events WHERE id < $1 ORDER BY id LIMIT $2)`,
		`DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM webhook_events WHERE id < $1 ORDER BY id LIMIT $2)`,
		`DELETE FROM webhook_outbox WHERE event_id IN (SELECT id FROM webhook_events WHERE id < $1 ORDER BY id LIMIT $2)`,
	} {
		if _, err := t.exec(ctx, q, before, limit); err != nil {
			return 0, err
		}
	}
	res, err := t.exec(ctx, `DELETE FROM webhook_events WHERE id IN (
		SELECT id FROM webhook_events WHERE id < $1 ORDER BY id LIMIT $2)`, before, limit)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t *tx) PutDeliveries(ctx context.Context, ds []*store.Delivery) error {
	for _, d := range ds {
		_, err := t.exec(ctx, `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, account_id, state, attempts,
			next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (endpoint_id, event_id) DO UPDATE SET id = excluded.id, state = excluded.state, attempts = excluded.attempts,
			next_attempt_at = excluded.next_attempt_at`,
			d.ID, d.EndpointID, d.EventID, d.AccountID, d.State, d.Attempts, micros(d.NextAttempt), micros(d.CreatedAt))
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) ClaimEndpoints(ctx context.Context, owner string, now, until time.Time, limit int) ([]string, error) {
	rows, err := t.query(ctx, `UPDATE webhook_endpoints SET lease_owner = $1, lease_until = $2
		WHERE id IN (SELECT e.id FROM webhook_endpoints e WHERE e.enabled AND e.lease_until < $3
			AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending'
				AND d.next_attempt_at <= $3)
			ORDER BY e.lease_until LIMIT $4)
		RETURNING id`, owner, micros(until), micros(now), limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r rowScanner) (string, error) {
		var id string
		return id, r.Scan(&id)
	})
}

func (t *tx) ExtendLease(ctx context.Context, endpointID, owner string, until time.Time) (bool, error) {
	res, err := t.exec(ctx, `UPDATE webhook_endpoints SET lease_until = $1 WHERE id = $2 AND lease_owner = $3`,
		micros(until), endpointID, owner)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *tx) ReleaseLeases(ctx context.Context, owner string) error {
	_, err := t.exec(ctx, `UPDATE webhook_endpoints SET lease_owner = '', lease_until = 0
		WHERE lease_owner <> '' AND ($1 = '' OR lease_owner = $1)`, owner)
	return err
}

func (t *tx) DueDeliveries(ctx context.Context, endpointID string, now time.Time, limit int, perCampaign bool) ([]*store.Delivery, error) {
	rows, err := t.query(ctx, `SELECT d.id, d.endpoint_id, d.event_id, d.account_id, d.state, d.attempts,
			d.next_attempt_at, d.created_at, `+prefixed("e.", eventColumns)+`
		FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
		WHERE d.endpoint_id = $1 AND d.state = 'pending' AND d.next_attempt_at <= $2`+heldBack(perCampaign)+`
		ORDER BY d.event_id LIMIT $3`, endpointID, micros(now), limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r rowScanner) (*store.Delivery, error) {
		var d store.Delivery
		var e adcamp.Event
		var next, created, occurred intCol
		var campaign nullText
		var payload string
		err := r.Scan(&d.ID, &d.EndpointID, &d.EventID, &d.AccountID, &d.State, &d.Attempts, &next, &created,
			&e.ID, &e.AccountID, (*string)(&e.Environment), &e.Type, &occurred, &campaign, &payload)
		if err != nil {
			return nil, err
		}
		d.NextAttempt, d.CreatedAt = fromMicros(int64(next)), fromMicros(int64(created))
		e.OccurredAt, e.CampaignID, e.Payload = fromMicros(int64(occurred)), string(campaign), []byte(payload)
		d.Event = &e
		return &d, nil
	})
}

// heldBack is DueDeliveries' condition for an endpoint ordered per
// campaign: no earlier event of the same campaign is pending (due or
// waiting for its retry). The subquery walks the endpoint's pending
// deliveries before d (webhook_deliveries_endpoint).
func heldBack(perCampaign bool) string {
	if !perCampaign {
		return ""
	}
	return `
		AND (e.campaign_id IS NULL OR NOT EXISTS (SELECT 1 FROM webhook_deliveries p
			JOIN webhook_events pe ON pe.id = p.event_id
			WHERE p.endpoint_id = d.endpoint_id AND p.state = 'pending' AND p.event_id < d.event_id
				AND pe.campaign_id = e.campaign_id))`
}

// prefixed qualifies each column of a list with p.
func prefixed(p, columns string) string {
	cs := strings.Split(columns, ",")
	for i, c := range cs {
		cs[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(cs, ", ")
}

const attemptColumns = `id, account_id, endpoint_id, event_id, event_type, attempted_at, status, latency_ms, error,
	response, succeeded`

func (t *tx) FinishAttempt(ctx context.Context, d *store.Delivery, a *adcamp.DeliveryAttempt) error {
	_, err := t.exec(ctx, `UPDATE webhook_deliveries SET state = $1, attempts = $2, next_attempt_at = $3 WHERE id = $4`,
		d.State, d.Attempts, micros(d.NextAttempt), d.ID)
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, `INSERT INTO webhook_attempts (`+attemptColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		a.ID, a.AccountID, a.EndpointID, a.EventID, a.EventType, micros(a.AttemptedAt), a.Status, a.LatencyMS,
		a.Error, a.Response, a.Succeeded)
	return err
}

func (t *tx) ListAttempts(ctx context.Context, tn adcamp.Tenant, endpointID, before string, limit int) ([]*adcamp.DeliveryAttempt, error) {
	if before == "" {
		before = adcamp.PrefixAttempt + "8" // after every id
	}
	rows, err := t.query(ctx, `SELECT `+prefixed("a.", attemptColumns)+` FROM webhook_attempts a
		JOIN webhook_endpoints e ON e.id = a.endpoint_id
		WHERE a.endpoint_id = $1 AND e.account_id = $2 AND e.environment = $3 AND a.id < $4
		ORDER BY a.id DESC LIMIT $5`, endpointID, tn.AccountID, string(tn.Environment), before, limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r rowScanner) (*adcamp.DeliveryAttempt, error) {
		var a adcamp.DeliveryAttempt
		var at intCol
		err := r.Scan(&a.ID, &a.AccountID, &a.EndpointID, &a.EventID, &a.EventType, &at, &a.Status, &a.LatencyMS,
			&a.Error, &a.Response, &a.Succeeded)
		a.AttemptedAt = fromMicros(int64(at))
		return &a, err
	})
}

func (t *tx) WebhookQueue(ctx context.Context) (int64, time.Time, error) {
	var n int64
	var oldest sql.NullString
	err := t.queryRow(ctx, `SELECT count(*), min(event_id) FROM (
		SELECT event_id FROM webhook_outbox
		UNION ALL SELECT event_id FROM webhook_deliveries WHERE state = 'pending')`).Scan(&n, &oldest)
	if err != nil || !oldest.Valid {
		return n, time.Time{}, err
	}
	return n, adcamp.IDTime(oldest.String), nil
}
