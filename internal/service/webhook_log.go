package service

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The tools of integrators: the events (GET /events, for those who poll),
// the delivery log of an endpoint, a test event, redelivery.

// EventFilter selects a page of events, newest first. Zero fields do not
// filter.
type EventFilter struct {
	Types        []string
	Since, Until time.Time // Since inclusive, Until exclusive
	Cursor       string    // the NextCursor of the page before
	Limit        int       // 1..MaxChangeLimit; 0 means DefaultChangeLimit
}

// maxRedeliver bounds the events one redelivery of a time range queues.
const maxRedeliver = 10000

// eventBound is the smallest event id of a time.
func eventBound(t time.Time) string {
	return eventID(adcamp.ChangeIDBound(t))
}

func (s *core) eventQuery(t adcamp.Tenant, f EventFilter) (store.EventQuery, error) {
	var issues adcamp.Issues
	for _, typ := range f.Types {
		if !slices.Contains(adcamp.EventTypes, typ) && typ != adcamp.EventTest {
			issues.Add("type", "has %q, which is not an event type", typ)
		}
	}
	if f.Limit == 0 {
		f.Limit = adcamp.DefaultChangeLimit
	}
	if f.Limit < 1 || f.Limit > adcamp.MaxChangeLimit {
		issues.Add("limit", "must be an integer from 1 to %d", adcamp.MaxChangeLimit)
	}
	if f.Cursor != "" && !adcamp.ValidID(adcamp.PrefixEvent, f.Cursor) {
		issues.Add("cursor", "is not a cursor this list gave (next_cursor)")
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		issues.Add("until", "must be after since")
	}
	if err := issues.Err(); err != nil {
		return store.EventQuery{}, err
	}
	q := store.EventQuery{Tenant: t, Types: f.Types, Before: f.Cursor, Limit: f.Limit + 1}
	if !f.Since.IsZero() {
		q.From = eventBound(f.Since)
	}
	if !f.Until.IsZero() {
		if b := eventBound(f.Until); q.Before == "" || b < q.Before {
			q.Before = b
		}
	}
	return q, nil
}

// Events returns one page of the tenant's events, newest first, and the
// cursor of the next page ("" on the last).
func (s *Ads) Events(ctx context.Context, t adcamp.Tenant, f EventFilter) ([]*adcamp.Event, string, error) {
	q, err := s.eventQuery(t, f)
	if err != nil {
		return nil, "", err
	}
	var page []*adcamp.Event
	err = s.read(ctx, func(tx store.Tx) error {
		if err := s.mayWebhooks(ctx, tx, t, false); err != nil {
			return err
		}
		page, err = listEvents(ctx, tx, q)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(page) == q.Limit {
		page = page[:q.Limit-1]
		next = page[len(page)-1].ID
	}
	return page, next, nil
}

// Event returns one of the tenant's events.
func (s *Ads) Event(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.Event, error) {
	var e *adcamp.Event
	err := s.read(ctx, func(tx store.Tx) (err error) {
		if err := s.mayWebhooks(ctx, tx, t, false); err != nil {
			return err
		}
		e, err = getEvent(ctx, tx, t, id)
		return err
	})
	return e, err
}

// listEvents is tx.ListEvents with the change records' events, read from
// the history (tx.ChangeEvents): a record that is its event is stored as
// an event only for its deliveries, if ever (see fanOut), so both are
// read, and an event found in both is kept once (the same bytes).
func listEvents(ctx context.Context, tx store.Tx, q store.EventQuery) ([]*adcamp.Event, error) {
	records, err := tx.ChangeEvents(ctx, q)
	if err != nil {
		return nil, err
	}
	page, err := tx.ListEvents(ctx, q)
	if err != nil || len(records) == 0 {
		return page, err
	}
	seen := make(map[string]bool, len(page))
	for _, e := range page {
		seen[e.ID] = true
	}
	for _, e := range recordEvents(records) {
		if !seen[e.ID] {
			page = append(page, e)
		}
	}
	slices.SortFunc(page, func(a, b *adcamp.Event) int { return strings.Compare(b.ID, a.ID) })
	if len(page) > q.Limit {
		page = page[:q.Limit]
	}
	return page, nil
}

// getEvent is the change record's event id, or tx.GetEvent.
func getEvent(ctx context.Context, tx store.Tx, t adcamp.Tenant, id string) (*adcamp.Event, error) {
	if adcamp.ValidID(adcamp.PrefixEvent, id) {
		// [id, id+"0") holds id alone.
		records, err := tx.ChangeEvents(ctx, store.EventQuery{Tenant: t, From: id, Before: id + "0", Limit: 1})
		if err != nil {
			return nil, err
		}
		if evs := recordEvents(records); len(evs) == 1 {
			return evs[0], nil
		}
	}
	return tx.GetEvent(ctx, t, id)
}

// recordEvents are the events of records read back whose events are the
// records (see recordEvent).
func recordEvents(records []*adcamp.Change) []*adcamp.Event {
	evs := make([]*adcamp.Event, 0, len(records))
	for _, c := range records {
		if e := recordEvent(c); e != nil {
			evs = append(evs, e)
		}
	}
	return evs
}

// DeliveryAttempts returns a page of an endpoint's delivery log, newest
// first, and the cursor of the next page.
func (s *Ads) DeliveryAttempts(ctx context.Context, t adcamp.Tenant, endpointID, cursor string, limit int) ([]*adcamp.DeliveryAttempt, string, error) {
	if limit == 0 {
		limit = adcamp.DefaultChangeLimit
	}
	var issues adcamp.Issues
	if limit < 1 || limit > adcamp.MaxChangeLimit {
		issues.Add("limit", "must be an integer from 1 to %d", adcamp.MaxChangeLimit)
	}
	if cursor != "" && !adcamp.ValidID(adcamp.PrefixAttempt, cursor) {
		issues.Add("cursor", "is not a cursor this list gave (next_cursor)")
	}
	if err := issues.Err(); err != nil {
		return nil, "", err
	}
	var page []*adcamp.DeliveryAttempt
	err := s.read(ctx, func(tx store.Tx) (err error) {
		if err := s.mayWebhooks(ctx, tx, t, false); err != nil {
			return err
		}
		if _, err := tx.GetWebhookEndpoint(ctx, t, endpointID); err != nil {
			return err
		}
		page, err = tx.ListAttempts(ctx, t, endpointID, cursor, limit+1)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(page) > limit {
		page = page[:limit]
		next = page[limit-1].ID
	}
	return page, next, nil
}

// SendTestEvent queues a webhook.test event for one endpoint, whatever
// its event types, and returns it.
func (s *Ads) SendTestEvent(ctx context.Context, t adcamp.Tenant, endpointID string) (*adcamp.Event, error) {
	now := s.Now()
	ev := &adcamp.Event{ID: adcamp.NewID(adcamp.PrefixEvent, now), AccountID: t.AccountID, Environment: t.Environment,
		Type: adcamp.EventTest, OccurredAt: now.Truncate(time.Millisecond)}
	ev.Payload = payload(ev, map[string]string{"endpoint_id": endpointID,
		"message": "A test event from adcamp: your endpoint receives and verifies webhooks."})
	err := s.write(ctx, func(tx store.Tx) error {
		if err := s.mayWebhooks(ctx, tx, t, true); err != nil {
			return err
		}
		e, err := tx.GetWebhookEndpoint(ctx, t, endpointID)
		if err != nil {
			return err
		}
		if !e.Enabled {
			return adcamp.Errorf(adcamp.CodeInvalidStateTransition, "the endpoint is disabled: enable it first")
		}
		if err := tx.AddEventsOnly(ctx, []*adcamp.Event{ev}); err != nil {
			return err
		}
		return tx.PutDeliveries(ctx, []*store.Delivery{s.newDelivery(e, ev, now)})
	})
	if err != nil {
		return nil, err
	}
	return ev, nil
}

func (s *core) newDelivery(e *store.WebhookEndpoint, ev *adcamp.Event, now time.Time) *store.Delivery {
	return &store.Delivery{ID: adcamp.NewID(adcamp.PrefixDelivery, now), EndpointID: e.ID, EventID: ev.ID,
		AccountID: e.AccountID, State: adcamp.DeliveryPending, NextAttempt: now, CreatedAt: now}
}

// Redeliver queues events for an endpoint again, at once, whether their
// last delivery succeeded or not: the event eventID, or (eventID empty)
// every event from since to until of the types the endpoint takes, at
// most maxRedeliver. It returns how many it queued.
func (s *Ads) Redeliver(ctx context.Context, t adcamp.Tenant, endpointID, eventID string, since, until time.Time) (int, error) {
	var q store.EventQuery
	if eventID == "" {
		var issues adcamp.Issues
		if since.IsZero() {
			issues.AddKind("since", adcamp.IssueRequired, "", "is required without event_id")
		}
		if until.IsZero() {
			until = s.Now()
		}
		if !since.IsZero() && !since.Before(until) {
			issues.Add("until", "must be after since")
		}
		if err := issues.Err(); err != nil {
			return 0, err
		}
		q = store.EventQuery{Tenant: t, From: eventBound(since), Before: eventBound(until), Limit: maxRedeliver}
	}
	now := s.Now()
	var n int
	err := s.write(ctx, func(tx store.Tx) error {
		if err := s.mayWebhooks(ctx, tx, t, true); err != nil {
			return err
		}
		e, err := tx.GetWebhookEndpoint(ctx, t, endpointID)
		if err != nil {
			return err
		}
		var evs []*adcamp.Event
		if eventID != "" {
			ev, err := getEvent(ctx, tx, t, eventID)
			if err != nil {
				return err
			}
			evs = []*adcamp.Event{ev}
		} else {
			q.Types = e.EventTypes
			if evs, err = listEvents(ctx, tx, q); err != nil {
				return err
			}
		}
		// A delivery reads its event's payload from the stored events: those
		// read from the history are stored now (those stored already are
		// left as they are).
		if err := tx.AddEventsOnly(ctx, evs); err != nil {
			return err
		}
		ds := make([]*store.Delivery, len(evs))
		for i, ev := range evs {
			ds[i] = s.newDelivery(e, ev, now)
		}
		n = len(ds)
		return tx.PutDeliveries(ctx, ds)
	})
	return n, err
}
