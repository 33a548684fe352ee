package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
	"github.com/jackc/pgx/v5"
)

// Webhooks (store.WebhooksTx). Several serve processes share the work:
// TakeOutbox and ClaimEndpoints skip the rows another transaction holds
// (FOR UPDATE SKIP LOCKED), and an endpoint's lease keeps it with one
// process until that process releases it or the lease runs out.

const endpointColumns = `id, account_id, environment, url, description, event_types, enabled, disabled_reason,
	failing_since, secret, previous_secret, previous_expires_at, created_at, updated_at, ordering`

func scanEndpoint(row row) (*store.WebhookEndpoint, error) {
	var e store.WebhookEndpoint
	var types string
	var failing, prevExp *int64
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
	_, err := t.tx.Exec(ctx, `INSERT INTO webhook_endpoints (`+endpointColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
		e.ID, e.AccountID, string(e.Environment), e.URL, e.Description, strings.Join(e.EventTypes, " "), e.Enabled,
		e.DisabledReason, nullMicros(e.FailingSince), e.Secret, e.PreviousSecret, nullMicros(e.PreviousSecretExpiresAt),
		micros(e.CreatedAt), micros(e.UpdatedAt), e.Ordering)
	return err
}

func (t *tx) GetWebhookEndpoint(ctx context.Context, tn adcamp.Tenant, id string) (*store.WebhookEndpoint, error) {
	e, err := scanEndpoint(t.tx.QueryRow(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE id = $1 AND account_id = $2 AND environment = $3`, id, tn.AccountID, string(tn.Environment)))
	if err != nil {
		return nil, notFound(err, "webhook endpoint", id)
	}
	return e, nil
}

func (t *tx) EndpointByID(ctx context.Context, id string) (*store.WebhookEndpoint, error) {
	e, err := scanEndpoint(t.tx.QueryRow(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints WHERE id = $1`, id))
	if err != nil {
		return nil, notFound(err, "webhook endpoint", id)
	}
	return e, nil
}

func (t *tx) ListWebhookEndpoints(ctx context.Context, tn adcamp.Tenant) ([]*store.WebhookEndpoint, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE account_id = $1 AND environment = $2 ORDER BY id`, tn.AccountID, string(tn.Environment))
	if err != nil {
		return nil, err
	}
	return collectRows(rows, scanEndpoint)
}

func (t *tx) UpdateWebhookEndpoint(ctx context.Context, e *store.WebhookEndpoint) error {
	tag, err := t.tx.Exec(ctx, `UPDATE webhook_endpoints SET url = $1, description = $2, event_types = $3, enabled = $4,
		disabled_reason = $5, failing_since = $6, secret = $7, previous_secret = $8, previous_expires_at = $9,
		updated_at = $10, ordering = $13 WHERE id = $11 AND account_id = $12`,
		e.URL, e.Description, strings.Join(e.EventTypes, " "), e.Enabled, e.DisabledReason, nullMicros(e.FailingSince),
		e.Secret, e.PreviousSecret, nullMicros(e.PreviousSecretExpiresAt), micros(e.UpdatedAt), e.ID, e.AccountID,
		e.Ordering)
	return affectedOne(tag, err, "webhook endpoint", e.ID)
}

func (t *tx) DeleteWebhookEndpoint(ctx context.Context, tn adcamp.Tenant, id string) error {
	tag, err := t.tx.Exec(ctx, `DELETE FROM webhook_endpoints WHERE id = $1 AND account_id = $2 AND environment = $3`,
		id, tn.AccountID, string(tn.Environment))
	return affectedOne(tag, err, "webhook endpoint", id)
}

const eventColumns = `id, account_id, environment, type, occurred_at, campaign_id, payload`

func scanEvent(row row) (*adcamp.Event, error) {
	var e adcamp.Event
	var occurred int64
	var campaign *string
	var payload string
	err := row.Scan(&e.ID, &e.AccountID, (*string)(&e.Environment), &e.Type, &occurred, &campaign, &payload)
	if err != nil {
		return nil, err
	}
	e.OccurredAt, e.Payload = fromMicros(occurred), []byte(payload)
	if campaign != nil {
		e.CampaignID = *campaign
	}
	return &e, nil
}

// insertEvents stores events given as arrays ($1 to $7), and with outbox
// also puts them in the outbox: one statement either way.
const insertEvents = `INSERT INTO webhook_events (` + eventColumns + `)
	SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[])`

func eventArrays(evs []*adcamp.Event) []any {
	n := len(evs)
	ids, accounts, envs, types, campaigns, payloads := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]*string, n), make([]string, n)
	occurred := make([]int64, n)
	for i, e := range evs {
		ids[i], accounts[i], envs[i], types[i] = e.ID, e.AccountID, string(e.Environment), e.Type
		occurred[i], campaigns[i], payloads[i] = micros(e.OccurredAt), nullID(e.CampaignID), string(e.Payload)
	}
	return []any{ids, accounts, envs, types, occurred, campaigns, payloads}
}

func (t *tx) AddEvents(ctx context.Context, evs []*adcamp.Event) error {
	var stored []*adcamp.Event
	var refs, accounts, envs []string // change records' events: only their outbox rows
	for _, e := range evs {
		if e.Payload == nil {
			refs, accounts, envs = append(refs, e.ID), append(accounts, e.AccountID), append(envs, string(e.Environment))
		} else {
			stored = append(stored, e)
		}
	}
	// New rows nothing can refuse: they go with the commit's round trip,
	// and only for a tenant with an enabled endpoint as the commit sees it
	// (see store.WebhooksTx.AddEvents).
	if len(refs) > 0 {
		if err := t.laterFolded(ctx, `INSERT INTO webhook_outbox (event_id)
			SELECT u.id FROM unnest($1::text[], $2::text[], $3::text[]) AS u (id, account_id, environment)
			WHERE EXISTS (SELECT 1 FROM webhook_endpoints w
				WHERE w.account_id = u.account_id AND w.environment = u.environment AND w.enabled)`,
			refs, accounts, envs); err != nil {
			return err
		}
	}
	if len(stored) == 0 {
		return nil
	}
	return t.later(ctx, execErr, `WITH e AS (`+insertEvents+` RETURNING id)
		INSERT INTO webhook_outbox (event_id) SELECT id FROM e`, eventArrays(stored)...)
}

func (t *tx) AddEventsOnly(ctx context.Context, evs []*adcamp.Event) error {
	if len(evs) == 0 {
		return nil
	}
	_, err := t.tx.Exec(ctx, insertEvents+` ON CONFLICT (id) DO NOTHING`, eventArrays(evs)...)
	return err
}

func (t *tx) GetEvent(ctx context.Context, tn adcamp.Tenant, id string) (*adcamp.Event, error) {
	e, err := scanEvent(t.tx.QueryRow(ctx, `SELECT `+eventColumns+` FROM webhook_events
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
	rows, err := t.tx.Query(ctx, `SELECT `+eventColumns+` FROM webhook_events WHERE `+where+
		` ORDER BY id DESC LIMIT $`+itoa(len(args)), args...)
	if err != nil {
		return nil, err
	}
	return collectRows(rows, scanEvent)
}

func (t *tx) TakeOutbox(ctx context.Context, limit int) (int, []*adcamp.Event, []*adcamp.Change, error) {
	var taken []string
	err := t.tx.QueryRow(ctx, `WITH taken AS (DELETE FROM webhook_outbox WHERE event_id IN (
			SELECT event_id FROM webhook_outbox ORDER BY event_id LIMIT $1 FOR UPDATE SKIP LOCKED)
			RETURNING event_id)
		SELECT coalesce(array_agg(event_id), '{}') FROM taken`, limit).Scan(&taken)
	if err != nil || len(taken) == 0 {
		return 0, nil, nil, err
	}
	rows, err := t.tx.Query(ctx, `SELECT `+eventColumns+` FROM webhook_events WHERE id = ANY($1) ORDER BY id`, taken)
	if err != nil {
		return 0, nil, nil, err
	}
	evs, err := collectRows(rows, scanEvent)
	if err != nil {
		return 0, nil, nil, err
	}
	// The others are change records' events (store.WebhooksTx.AddEvents),
	// or purged.
	stored := make(map[string]bool, len(evs))
	for _, e := range evs {
		stored[e.ID] = true
	}
	var refs []string
	for _, id := range taken {
		if !stored[id] {
			refs = append(refs, adcamp.PrefixChange+strings.TrimPrefix(id, adcamp.PrefixEvent))
		}
	}
	if len(refs) == 0 {
		return len(taken), evs, nil, nil
	}
	// Only those of a tenant with an enabled endpoint (or of no type:
	// written before 00044) are read.
	rows, err = t.tx.Query(ctx, `SELECT `+prefixed("c.", changeColumns)+` FROM changes c
		WHERE c.id = ANY($1) AND (c.event_type IS NULL OR EXISTS (SELECT 1 FROM webhook_endpoints w
			WHERE w.account_id = c.account_id AND w.environment = c.environment AND w.enabled))
		ORDER BY c.id`, refs)
	if err != nil {
		return 0, nil, nil, err
	}
	cs, err := collectRows(rows, scanChange)
	return len(taken), evs, cs, err
}

func (t *tx) ChangeEvents(ctx context.Context, q store.EventQuery) ([]*adcamp.Change, error) {
	from, before := store.EventRecordBounds(q)
	cond := ""
	args := []any{q.Tenant.AccountID, string(q.Tenant.Environment), from, before, q.Limit}
	if len(q.Types) > 0 {
		cond = ` AND event_type = ANY($6)`
		args = append(args, q.Types)
	}
	// The tenant's records in id order (changes_tenant), those of no event
	// of their own (members', endpoints', a batch's keywords) passed over.
	rows, err := t.tx.Query(ctx, `SELECT `+changeColumns+` FROM changes
		WHERE account_id = $1 AND environment = $2 AND id >= $3 AND id < $4 AND event_type IS NOT NULL`+cond+`
		ORDER BY id DESC LIMIT $5`, args...)
	if err != nil {
		return nil, err
	}
	return collectRows(rows, scanChange)
}

func (t *tx) PurgeEvents(ctx context.Context, before string, limit int) (int64, error) {
	for _, q := range []string{
		`DELETE FROM webhook_attempts WHERE event_id IN (SELECT id FROM webhook_events WHERE id < $1 ORDER BY id LIMIT $2)`,
		`DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM webhook_events WHERE id < $1 ORDER BY id LIMIT $2)`,
		`DELETE FROM webhook_outbox WHERE event_id IN (SELECT id FROM webhook_events WHERE id < $1 ORDER BY id LIMIT $2)`,
	} {
		if _, err := t.tx.Exec(ctx, q, before, limit); err != nil {
			return 0, err
		}
	}
	tag, err := t.tx.Exec(ctx, `DELETE FROM webhook_events WHERE id IN (
		SELECT id FROM webhook_events WHERE id < $1 ORDER BY id LIMIT $2)`, before, limit)
	return tag.RowsAffected(), err
}

func (t *tx) PutDeliveries(ctx context.Context, ds []*store.Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	n := len(ds)
	ids, endpoints, events, accounts, states := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n)
	attempts := make([]int32, n)
	next, created := make([]int64, n), make([]int64, n)
	for i, d := range ds {
		ids[i], endpoints[i], events[i], accounts[i], states[i] = d.ID, d.EndpointID, d.EventID, d.AccountID, d.State
		attempts[i], next[i], created[i] = int32(d.Attempts), micros(d.NextAttempt), micros(d.CreatedAt)
	}
	// One statement for the batch; new rows (or a redelivery's reset)
	// that nothing the service decides on can refuse: with the commit.
	return t.later(ctx, execErr, `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, account_id, state, attempts,
			next_attempt_at, created_at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bigint[], $8::bigint[])
		ON CONFLICT (endpoint_id, event_id) DO UPDATE SET id = excluded.id, state = excluded.state, attempts = excluded.attempts,
			next_attempt_at = excluded.next_attempt_at`,
		ids, endpoints, events, accounts, states, attempts, next, created)
}

func (t *tx) ClaimEndpoints(ctx context.Context, owner string, now, until time.Time, limit int) ([]string, error) {
	rows, err := t.tx.Query(ctx, `UPDATE webhook_endpoints SET lease_owner = $1, lease_until = $2
		WHERE id IN (SELECT e.id FROM webhook_endpoints e WHERE e.enabled AND e.lease_until < $3
			AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending'
				AND d.next_attempt_at <= $3)
			ORDER BY e.lease_until LIMIT $4 FOR UPDATE SKIP LOCKED)
		RETURNING id`, owner, micros(until), micros(now), limit)
	if err != nil {
		return nil, err
	}
	return collectRows(rows, func(r row) (string, error) {
		var id string
		return id, r.Scan(&id)
	})
}

func (t *tx) ExtendLease(ctx context.Context, endpointID, owner string, until time.Time) (bool, error) {
	tag, err := t.tx.Exec(ctx, `UPDATE webhook_endpoints SET lease_until = $1 WHERE id = $2 AND lease_owner = $3`,
		micros(until), endpointID, owner)
	return tag.RowsAffected() == 1, err
}

func (t *tx) ReleaseLeases(ctx context.Context, owner string) error {
	_, err := t.tx.Exec(ctx, `UPDATE webhook_endpoints SET lease_owner = '', lease_until = 0
		WHERE lease_owner <> '' AND ($1 = '' OR lease_owner = $1)`, owner)
	return err
}

func (t *tx) DueDeliveries(ctx context.Context, endpointID string, now time.Time, limit int, perCampaign bool) ([]*store.Delivery, error) {
	rows, err := t.tx.Query(ctx, `SELECT d.id, d.endpoint_id, d.event_id, d.account_id, d.state, d.attempts,
			d.next_attempt_at, d.created_at, `+prefixed("e.", eventColumns)+`
		FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
		WHERE d.endpoint_id = $1 AND d.state = 'pending' AND d.next_attempt_at <= $2`+heldBack(perCampaign)+`
		ORDER BY d.event_id LIMIT $3`, endpointID, micros(now), limit)
	if err != nil {
		return nil, err
	}
	return collectRows(rows, func(r row) (*store.Delivery, error) {
		var d store.Delivery
		var e adcamp.Event
		var next, created, occurred int64
		var campaign *string
		var payload string
		err := r.Scan(&d.ID, &d.EndpointID, &d.EventID, &d.AccountID, &d.State, &d.Attempts, &next, &created,
			&e.ID, &e.AccountID, (*string)(&e.Environment), &e.Type, &occurred, &campaign, &payload)
		if err != nil {
			return nil, err
		}
		d.NextAttempt, d.CreatedAt = fromMicros(next), fromMicros(created)
		e.OccurredAt, e.Payload = fromMicros(occurred), []byte(payload)
		if campaign != nil {
			e.CampaignID = *campaign
		}
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
	// Rows this process leases, and a new one: both with the commit.
	err := t.later(ctx, execErr, `UPDATE webhook_deliveries SET state = $1, attempts = $2, next_attempt_at = $3 WHERE id = $4`,
		d.State, d.Attempts, micros(d.NextAttempt), d.ID)
	if err != nil {
		return err
	}
	return t.later(ctx, execErr, `INSERT INTO webhook_attempts (`+attemptColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		a.ID, a.AccountID, a.EndpointID, a.EventID, a.EventType, micros(a.AttemptedAt), a.Status, a.LatencyMS,
		a.Error, a.Response, a.Succeeded)
}

func (t *tx) ListAttempts(ctx context.Context, tn adcamp.Tenant, endpointID, before string, limit int) ([]*adcamp.DeliveryAttempt, error) {
	if before == "" {
		before = adcamp.PrefixAttempt + "8" // after every id
	}
	rows, err := t.tx.Query(ctx, `SELECT `+prefixed("a.", attemptColumns)+` FROM webhook_attempts a
		JOIN webhook_endpoints e ON e.id = a.endpoint_id
		WHERE a.endpoint_id = $1 AND e.account_id = $2 AND e.environment = $3 AND a.id < $4
		ORDER BY a.id DESC LIMIT $5`, endpointID, tn.AccountID, string(tn.Environment), before, limit)
	if err != nil {
		return nil, err
	}
	return collectRows(rows, func(r row) (*adcamp.DeliveryAttempt, error) {
		var a adcamp.DeliveryAttempt
		var at int64
		err := r.Scan(&a.ID, &a.AccountID, &a.EndpointID, &a.EventID, &a.EventType, &at, &a.Status, &a.LatencyMS,
			&a.Error, &a.Response, &a.Succeeded)
		a.AttemptedAt = fromMicros(at)
		return &a, err
	})
}

func (t *tx) WebhookQueue(ctx context.Context) (int64, time.Time, error) {
	var n int64
	var oldest *string
	err := t.tx.QueryRow(ctx, `SELECT count(*), min(event_id) FROM (
		SELECT event_id FROM webhook_outbox
		UNION ALL SELECT event_id FROM webhook_deliveries WHERE state = 'pending') q`).Scan(&n, &oldest)
	if err != nil || oldest == nil {
		return n, time.Time{}, err
	}
	return n, adcamp.IDTime(*oldest), nil
}

// collectRows scans every row with scan, and closes rows.
func collectRows[T any](rows pgx.Rows, scan func(row) (T, error)) ([]T, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
}
