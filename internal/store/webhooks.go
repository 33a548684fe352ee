package store

import (
	"context"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
)

// WebhooksTx is what webhooks need from a transaction: endpoints, the
// events (and their outbox, written in the transaction of the change),
// deliveries and the log of their attempts.
type WebhooksTx interface {
	CreateWebhookEndpoint(ctx context.Context, e *WebhookEndpoint) error
	GetWebhookEndpoint(ctx context.Context, t adcamp.Tenant, id string) (*WebhookEndpoint, error)
	// EndpointByID returns an endpoint whatever its tenant: for the
	// dispatcher, which leases endpoints by id, never for a door.
	EndpointByID(ctx context.Context, id string) (*WebhookEndpoint, error)
	// ListWebhookEndpoints returns a tenant's endpoints, oldest first.
	ListWebhookEndpoints(ctx context.Context, t adcamp.Tenant) ([]*WebhookEndpoint, error)
	// UpdateWebhookEndpoint writes every mutable field of e.
	UpdateWebhookEndpoint(ctx context.Context, e *WebhookEndpoint) error
	// DeleteWebhookEndpoint removes an endpoint with its deliveries and
	// their attempts.
	DeleteWebhookEndpoint(ctx context.Context, t adcamp.Tenant, id string) error

	// AddEvents stores events and puts them in the outbox, for
	// TakeOutbox to fan out to endpoints. An event without a Payload is a
	// change record's (its id is the record's ULID, "evt_" for "chg_", and
	// the record carries its type, adcamp.Change.EventType): only its
	// outbox row is written, and the record is its payload, read back by
	// TakeOutbox and ChangeEvents; and that row only when the event's
	// tenant has an enabled endpoint, as the transaction sees the
	// endpoints (on PostgreSQL, an endpoint committed at the same moment as
	// the change may miss it). Without one, the event needs nothing: GET
	// /events reads it from the history.
	AddEvents(ctx context.Context, evs []*adcamp.Event) error
	// AddEventsOnly stores events without putting them in the outbox
	// (a test event, delivered to one endpoint; a change record's event,
	// for its deliveries). An event stored already is left as it is.
	AddEventsOnly(ctx context.Context, evs []*adcamp.Event) error
	GetEvent(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.Event, error)
	// ListEvents returns the stored events q selects, newest first; never
	// test events (adcamp.EventTest: each is for the one endpoint it was
	// sent to). The change records' events are read by ChangeEvents.
	ListEvents(ctx context.Context, q EventQuery) ([]*adcamp.Event, error)
	// TakeOutbox removes at most limit events from the outbox, oldest
	// first, and returns how many it removed, those stored and the change
	// records of those that are not (see AddEvents), each with its
	// EventType: only the records of a tenant with an enabled endpoint,
	// and those written before the records kept their event's type
	// (EventType ""), for the caller to store; the others' events need
	// nothing more (GET /events reads them from the history). An outbox
	// row whose event and record are both gone (purged) is dropped.
	// PostgreSQL skips those another transaction is taking.
	TakeOutbox(ctx context.Context, limit int) (int, []*adcamp.Event, []*adcamp.Change, error)
	// ChangeEvents returns the change records of q's tenant that are their
	// events (EventType set, and in q.Types if given), with event ids in
	// q's range ("evt_" for "chg_"), newest first, at most q.Limit.
	ChangeEvents(ctx context.Context, q EventQuery) ([]*adcamp.Change, error)
	// PurgeEvents deletes at most limit events whose id is below before,
	// oldest first, with their deliveries and attempts.
	PurgeEvents(ctx context.Context, before string, limit int) (int64, error)

	// PutDeliveries stores deliveries; one of an endpoint and event that
	// exists already becomes pending again, due at its NextAttemptAt, under
	// the new delivery's id, so that an attempt of it in flight, finished
	// after (FinishAttempt, by id), leaves it pending.
	PutDeliveries(ctx context.Context, ds []*Delivery) error
	// ClaimEndpoints leases to owner, until until, at most limit enabled
	// endpoints that have a delivery due at now and no live lease, and
	// returns their ids. PostgreSQL skips those another transaction holds.
	ClaimEndpoints(ctx context.Context, owner string, now, until time.Time, limit int) ([]string, error)
	// ExtendLease moves an endpoint's lease held by owner to until, and
	// reports whether owner still held it.
	ExtendLease(ctx context.Context, endpointID, owner string, until time.Time) (bool, error)
	// ReleaseLeases ends the leases of owner ("" for every owner's).
	ReleaseLeases(ctx context.Context, owner string) error
	// DueDeliveries returns at most limit pending deliveries of an endpoint
	// due at now, in the order of their events (id). perCampaign leaves
	// out those whose campaign has an earlier event still pending for the
	// endpoint (adcamp.OrderingPerCampaign).
	DueDeliveries(ctx context.Context, endpointID string, now time.Time, limit int, perCampaign bool) ([]*Delivery, error)
	// FinishAttempt stores an attempt and the delivery's state after it.
	FinishAttempt(ctx context.Context, d *Delivery, a *adcamp.DeliveryAttempt) error
	// ListAttempts returns a tenant's endpoint's attempts, newest first,
	// with id below before ("" for the newest).
	ListAttempts(ctx context.Context, t adcamp.Tenant, endpointID, before string, limit int) ([]*adcamp.DeliveryAttempt, error)
	// WebhookQueue measures the queue: events not fanned out and pending
	// deliveries, and the time of the oldest event among them (zero for
	// none).
	WebhookQueue(ctx context.Context) (pending int64, oldest time.Time, err error)
}

// WebhookEndpoint is a stored endpoint: its public record and its
// encrypted signing secrets.
type WebhookEndpoint struct {
	adcamp.WebhookEndpoint
	Secret         []byte // ciphertext of the current secret
	PreviousSecret []byte // ciphertext of the secret before the last rotation, or nil
}

// Delivery is an event on its way to one endpoint.
type Delivery struct {
	ID          string
	EndpointID  string
	EventID     string
	AccountID   string
	State       string // adcamp.Delivery*
	Attempts    int
	NextAttempt time.Time
	CreatedAt   time.Time
	// Event is the event delivered (set by DueDeliveries; PutDeliveries
	// reads only its id).
	Event *adcamp.Event
}

// EventQuery selects events of one tenant.
type EventQuery struct {
	Tenant adcamp.Tenant
	// From and Before bound the ids: From ≤ id < Before ("" for no bound).
	From, Before string
	Types        []string // nil for all
	Limit        int
}

// EventRecordBounds turns q's event id bounds into change record ids (the
// same ULIDs, "chg_" for "evt_"): from ≤ id < before, before never "".
func EventRecordBounds(q EventQuery) (from, before string) {
	from, before = recordID(q.From), recordID(q.Before)
	if before == "" {
		before = adcamp.PrefixChange + "8" // after every id
	}
	return from, before
}

func recordID(eventID string) string {
	if eventID == "" {
		return ""
	}
	return adcamp.PrefixChange + strings.TrimPrefix(eventID, adcamp.PrefixEvent)
}
