package service

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
	"github.com/adcamp/adcamp/internal/webhook"
)

// The dispatcher: every serve process runs one (RunWebhooks). It moves
// events from the outbox to a delivery per subscribed endpoint, then
// leases endpoints with deliveries due and sends each endpoint's in the
// order of its events, one at a time, each endpoint in a goroutine of its
// own so that a slow one delays only itself. A lease outlives a crash by
// at most DispatchConfig.Lease; a delivery is marked only after its
// attempt, so an event is sent at least once, and again after a crash
// between the answer and the mark (receivers deduplicate by webhook-id).

// Sender makes one delivery attempt (webhook.Sender).
type Sender interface {
	Send(ctx context.Context, r webhook.Request) webhook.Result
}

// DispatchConfig configures RunWebhooks; zero fields take defaults.
type DispatchConfig struct {
	Sender Sender
	// Owner names this process in leases; unique among processes.
	Owner string
	// Poll is how often the outbox and the due deliveries are looked at
	// (250 ms).
	Poll time.Duration
	// Lease is how long an endpoint stays with this process after its
	// last attempt began (2 minutes: more than an attempt's timeout).
	Lease time.Duration
	// Workers bounds the endpoints sent to at once (64).
	Workers int
	// Sole says that no other process uses the store (SQLite): leases left
	// by an earlier run of it are released at start.
	Sole bool
	// Outcome, if set, counts each attempt's outcome: "succeeded",
	// "retrying" or "failed" (given up: retries exhausted, or 410 Gone).
	Outcome func(outcome string)
}

// RetrySchedule is the wait before each retry after a failed attempt,
// about (with jitter): 8 attempts in all over about 28 hours.
var RetrySchedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// Delivery policy.
const (
	// FailingDays is how long an endpoint may fail every delivery before
	// it is disabled.
	FailingDays   = 5
	maxRetryAfter = 24 * time.Hour
	fanOutBatch   = 500
	dueBatch      = 20
)

// withDefaults fills what cfg leaves unset with the defaults.
func (cfg DispatchConfig) withDefaults() DispatchConfig {
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 2 * time.Minute
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 64
	}
	if cfg.Owner == "" {
		cfg.Owner = randomToken(12, false)
	}
	return cfg
}

// RunWebhooks delivers events until ctx ends.
func (s *Service) RunWebhooks(ctx context.Context, cfg DispatchConfig) {
	if cfg.Sender == nil {
		panic("service: RunWebhooks needs a Sender")
	}
	cfg = cfg.withDefaults()
	d := &dispatcher{s: s, cfg: cfg, busy: map[string]bool{}}
	if cfg.Sole {
		d.release(ctx, "")
	}
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		d.release(context.WithoutCancel(ctx), cfg.Owner)
	}()
	t := time.NewTicker(cfg.Poll)
	defer t.Stop()
	lastPurge := time.Time{}
	for {
		if time.Since(lastPurge) > time.Minute {
			s.purgeEvents(ctx)
			lastPurge = time.Now()
		}
		d.fanOut(ctx)
		for _, id := range d.claim(ctx) {
			wg.Go(func() { d.serve(ctx, id) })
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

type dispatcher struct {
	s   *Service
	cfg DispatchConfig

	mu   sync.Mutex      // held by finish over a lease's release too
	busy map[string]bool // endpoints being sent to by this process
}

func (d *dispatcher) write(ctx context.Context, fn func(tx store.Tx) error) error {
	// Correct on row locks: the outbox and the claims skip what another
	// transaction holds; the rest writes rows this process leases.
	return d.s.store.Write(store.WithRowLocks(ctx), fn)
}

func (d *dispatcher) release(ctx context.Context, owner string) {
	if err := d.write(ctx, func(tx store.Tx) error { return tx.ReleaseLeases(ctx, owner) }); err != nil && ctx.Err() == nil {
		d.s.log.Error("webhooks: release leases", "err", err)
	}
}

// fanOut turns the outbox's events into deliveries, a batch a
// transaction, until it is empty. A change record's event (written as its
// outbox row alone) is stored, with its payload made from the record,
// only if an endpoint takes it: the deliveries and their retries read it
// so. The store returns no record of a tenant without an enabled
// endpoint: such an event costs its outbox row's delete, and GET /events
// reads it from the history.
func (d *dispatcher) fanOut(ctx context.Context) {
	for ctx.Err() == nil {
		n := 0
		err := d.write(ctx, func(tx store.Tx) error {
			var evs []*adcamp.Event
			var records []*adcamp.Change
			var err error
			n, evs, records, err = tx.TakeOutbox(ctx, fanOutBatch)
			if err != nil || n == 0 {
				return err
			}
			endpoints := map[adcamp.Tenant][]*store.WebhookEndpoint{}
			tenantEndpoints := func(tn adcamp.Tenant) ([]*store.WebhookEndpoint, error) {
				list, ok := endpoints[tn]
				if !ok {
					if list, err = tx.ListWebhookEndpoints(ctx, tn); err != nil {
						return nil, err
					}
					endpoints[tn] = list
				}
				return list, nil
			}
			var made []*adcamp.Event
			for _, c := range records {
				ev := recordEvent(c)
				if ev == nil {
					continue
				}
				list, err := tenantEndpoints(adcamp.Tenant{AccountID: ev.AccountID, Environment: ev.Environment})
				if err != nil {
					return err
				}
				// A record written before its type was kept is not listed
				// from the history: its event is stored, as it was then.
				if c.EventType == "" || slices.ContainsFunc(list, func(e *store.WebhookEndpoint) bool { return e.Takes(ev.Type) }) {
					made = append(made, ev)
				}
			}
			if err := tx.AddEventsOnly(ctx, made); err != nil {
				return err
			}
			evs = append(evs, made...)
			now := d.s.Now()
			var ds []*store.Delivery
			for _, ev := range evs {
				list, err := tenantEndpoints(adcamp.Tenant{AccountID: ev.AccountID, Environment: ev.Environment})
				if err != nil {
					return err
				}
				for _, e := range list {
					if e.Takes(ev.Type) {
						ds = append(ds, d.s.newDelivery(e, ev, now))
					}
				}
			}
			return tx.PutDeliveries(ctx, ds)
		})
		if err != nil {
			if ctx.Err() == nil {
				d.s.log.Error("webhooks: fan events out to endpoints", "err", err)
			}
			return
		}
		if n < fanOutBatch {
			return
		}
	}
}

// claim leases endpoints with deliveries due, as many as workers are free.
func (d *dispatcher) claim(ctx context.Context) []string {
	d.mu.Lock()
	free := d.cfg.Workers - len(d.busy)
	d.mu.Unlock()
	if free <= 0 || ctx.Err() != nil {
		return nil
	}
	var ids []string
	err := d.write(ctx, func(tx store.Tx) (err error) {
		now := d.s.Now()
		ids, err = tx.ClaimEndpoints(ctx, d.cfg.Owner, now, now.Add(d.cfg.Lease), free)
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			d.s.log.Error("webhooks: claim endpoints", "err", err)
		}
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	ids = slices.DeleteFunc(ids, func(id string) bool { return d.busy[id] })
	for _, id := range ids {
		d.busy[id] = true
	}
	return ids
}

// serve sends an endpoint's due deliveries in order until none is due,
// then gives its lease up.
func (d *dispatcher) serve(ctx context.Context, id string) {
	defer d.finish(ctx, id)
	for ctx.Err() == nil {
		var due []*store.Delivery
		var e *store.WebhookEndpoint
		err := d.s.store.Read(ctx, func(tx store.Tx) (err error) {
			if e, err = tx.EndpointByID(ctx, id); err != nil {
				return err
			}
			due, err = tx.DueDeliveries(ctx, id, d.s.Now(), dueBatch, e.Ordering == adcamp.OrderingPerCampaign)
			return err
		})
		if err != nil || len(due) == 0 || !e.Enabled {
			if err != nil && ctx.Err() == nil {
				d.s.log.Error("webhooks: read due deliveries", "endpoint", id, "err", err)
			}
			return
		}
		if !d.sendBatch(ctx, e, due) {
			return
		}
	}
}

// finish gives an endpoint up: its lease, then its place among the busy,
// as one step for claim, which drops the busy endpoints from what it
// leased. Between the two, a claim would lease the endpoint, drop it as
// busy, and leave it leased to no worker until the lease ran out.
func (d *dispatcher) finish(ctx context.Context, id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	bg := context.WithoutCancel(ctx)
	err := d.write(bg, func(tx store.Tx) error {
		_, err := tx.ExtendLease(bg, id, d.cfg.Owner, time.Unix(0, 0))
		return err
	})
	if err != nil {
		d.s.log.Error("webhooks: release an endpoint", "endpoint", id, "err", err)
	}
	delete(d.busy, id)
}

// flushEvery bounds how long attempts wait to be recorded: those of a
// fast endpoint are recorded together, one transaction for several (a
// crash before it sends them again: at least once), a slow endpoint's
// one by one.
const flushEvery = 500 * time.Millisecond

// attempted is an attempt made, to record.
type attempted struct {
	dl    *store.Delivery
	start time.Time
	res   webhook.Result
}

// sendBatch sends due deliveries of e in order, recording them as it goes
// (see flushEvery); it reports whether the endpoint may take more from
// this process.
func (d *dispatcher) sendBatch(ctx context.Context, e *store.WebhookEndpoint, due []*store.Delivery) bool {
	var done []attempted
	last := time.Now()
	// held: campaigns whose event failed in this batch; per campaign, their
	// later events wait for its retry (DueDeliveries leaves them out next).
	held := map[string]bool{}
	perCampaign := e.Ordering == adcamp.OrderingPerCampaign
	for _, dl := range due {
		if perCampaign && held[dl.Event.CampaignID] {
			continue
		}
		start := d.s.Now()
		keys, err := signingKeys(d.s.box, e, start)
		if err != nil {
			d.s.log.Error("webhooks: open an endpoint's secret", "endpoint", e.ID, "err", err)
			return false
		}
		// The timestamp is the sender's wall clock: receivers compare it
		// with theirs.
		res := d.cfg.Sender.Send(ctx, webhook.Request{URL: e.URL, ID: dl.EventID, Body: dl.Event.Payload, Keys: keys})
		if ctx.Err() != nil && res.Status == 0 {
			break // shutting down: the delivery stays due, for the next run
		}
		done = append(done, attempted{dl, start, res})
		if !res.Succeeded() && dl.Event.CampaignID != "" {
			held[dl.Event.CampaignID] = true
		}
		if !res.Succeeded() || time.Since(last) >= flushEvery {
			if !d.record(ctx, e, done) {
				return false
			}
			done, last = done[:0], time.Now()
		}
	}
	return d.record(ctx, e, done) && ctx.Err() == nil
}

// record stores attempts; it reports whether the endpoint may take more.
func (d *dispatcher) record(ctx context.Context, e *store.WebhookEndpoint, done []attempted) bool {
	if len(done) == 0 {
		return true
	}
	var outcomes []string
	more := false
	bg := context.WithoutCancel(ctx)
	err := d.write(bg, func(tx store.Tx) (err error) {
		outcomes, more, err = d.s.finishAttempts(bg, tx, e, done, d.cfg.Owner, d.cfg.Lease)
		return err
	})
	if err != nil {
		d.s.log.Error("webhooks: record delivery attempts", "endpoint", e.ID, "n", len(done), "err", err)
		return false
	}
	if d.cfg.Outcome != nil {
		for _, o := range outcomes {
			d.cfg.Outcome(o)
		}
	}
	return more
}

// finishAttempts records attempts in tx: each attempt and its delivery's
// next state, then the endpoint's run of failures (and its disabling,
// with a change record), and the lease. It says each outcome and whether
// the endpoint stays with this process.
func (s *core) finishAttempts(ctx context.Context, tx store.Tx, e *store.WebhookEndpoint, done []attempted,
	owner string, lease time.Duration) ([]string, bool, error) {
	now := s.Now()
	// The endpoint as it is now (its owner may have changed it meanwhile).
	cur, err := tx.GetWebhookEndpoint(ctx, adcamp.Tenant{AccountID: e.AccountID, Environment: e.Environment}, e.ID)
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
		return nil, false, nil // deleted, with its deliveries
	}
	if err != nil {
		return nil, false, err
	}
	before := cur.WebhookEndpoint
	outcomes := make([]string, len(done))
	disable := ""
	for i, at := range done {
		outcome, gone, err := recordAttempt(ctx, tx, e, at, now)
		if err != nil {
			return nil, false, err
		}
		outcomes[i] = outcome
		switch {
		case at.res.Succeeded():
			cur.FailingSince = nil
		case cur.FailingSince == nil:
			start := at.start
			cur.FailingSince = &start
		case now.Sub(*cur.FailingSince) >= FailingDays*24*time.Hour:
			disable = adcamp.DisabledFailing
		}
		if gone {
			disable = adcamp.DisabledGone
		}
	}
	if disable != "" && cur.Enabled {
		cur.Enabled, cur.DisabledReason = false, disable
	}
	if !sameTime(before.FailingSince, cur.FailingSince) || before.Enabled != cur.Enabled {
		cur.UpdatedAt = now
		if err := tx.UpdateWebhookEndpoint(ctx, cur); err != nil {
			return nil, false, err
		}
		if before.Enabled != cur.Enabled {
			h := s.newHistory(WithOrigin(ctx, Origin{Actor: systemActor}), now)
			recordEndpoint(h, adcamp.OpUpdate, &before, &cur.WebhookEndpoint, false)
			if err := h.write(ctx, tx); err != nil {
				return nil, false, err
			}
		}
	}
	held, err := tx.ExtendLease(ctx, e.ID, owner, now.Add(lease))
	if err != nil {
		return nil, false, err
	}
	return outcomes, held && cur.Enabled && cur.URL == e.URL, nil
}

// recordAttempt stores one attempt and its delivery's next state: done,
// given up, or due again after the retry schedule's wait (or the
// answer's Retry-After). gone reports a 410.
func recordAttempt(ctx context.Context, tx store.Tx, e *store.WebhookEndpoint, at attempted, now time.Time) (string, bool, error) {
	dl, res := at.dl, at.res
	a := &adcamp.DeliveryAttempt{ID: adcamp.NewID(adcamp.PrefixAttempt, now), AccountID: dl.AccountID, EndpointID: e.ID,
		EventID: dl.EventID, EventType: dl.Event.Type, AttemptedAt: at.start, Status: res.Status,
		LatencyMS: res.Latency.Milliseconds(), Response: res.Response, Succeeded: res.Succeeded()}
	if res.Err != nil {
		a.Error = truncate(res.Err.Error(), 500)
	} else if !res.Succeeded() {
		a.Error = "answered " + httpStatus(res.Status)
	}
	dl.Attempts++
	outcome, gone := "retrying", false
	switch {
	case res.Succeeded():
		dl.State, outcome = adcamp.DeliverySucceeded, "succeeded"
	case res.Status == 410:
		dl.State, outcome, gone = adcamp.DeliveryFailed, "failed", true
	case dl.Attempts > len(RetrySchedule):
		dl.State, outcome = adcamp.DeliveryFailed, "failed"
	default:
		wait := jitter(RetrySchedule[dl.Attempts-1])
		if res.RetryAfter > 0 {
			wait = min(max(res.RetryAfter, time.Second), maxRetryAfter)
		}
		dl.NextAttempt = now.Add(wait)
	}
	return outcome, gone, tx.FinishAttempt(ctx, dl, a)
}

func sameTime(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }

// jitter spreads a wait by up to a fifth either way, so that endpoints
// that failed together do not all come back together.
func jitter(d time.Duration) time.Duration {
	spread := int64(d / 5)
	return d + time.Duration(rand.Int64N(2*spread+1)-spread)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

func httpStatus(code int) string {
	if code == 0 {
		return "nothing"
	}
	return "HTTP " + strconv.Itoa(code)
}

// WebhookQueue measures the delivery queue: events not yet delivered
// (fanned out or not), and the time of the oldest.
func (s *Service) WebhookQueue(ctx context.Context) (n int64, oldest time.Time, err error) {
	err = s.store.ReadOne(ctx, func(tx store.Tx) error {
		n, oldest, err = tx.WebhookQueue(ctx)
		return err
	})
	return n, oldest, err
}

// purgeEvents deletes the events older than the change history's
// retention, with their deliveries and attempts, in small transactions.
func (s *core) purgeEvents(ctx context.Context) {
	if s.retention <= 0 {
		return
	}
	before := eventBound(s.Now().Add(-s.retention))
	for range purgeBatches {
		var n int64
		err := s.store.Write(ctx, func(tx store.Tx) (err error) {
			n, err = tx.PurgeEvents(ctx, before, purgeBatch)
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("webhooks: purge events past the retention period", "err", err)
			}
			return
		}
		if n < purgeBatch {
			return
		}
	}
}
