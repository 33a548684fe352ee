package storetest

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// webhooks stores an endpoint, an event, a delivery and an attempt with
// every field set, and reads each back through every call that returns
// one (for testEveryField).
func (r *roundTrip) webhooks(a *adcamp.Account) {
	ctx := r.t.Context()
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}
	failing, expires := at(20), at(86420)
	e := &store.WebhookEndpoint{
		WebhookEndpoint: adcamp.WebhookEndpoint{
			ID: adcamp.NewID(adcamp.PrefixWebhookEndpoint, at(18)), AccountID: a.ID, Environment: tn.Environment,
			URL: "https://hooks.example.test/adcamp?x=1", Description: "Billing — ☂", Enabled: true,
			EventTypes:     []string{adcamp.EventCampaignCreated, adcamp.EventKeywordBatchCreated},
			Ordering:       adcamp.OrderingPerCampaign,
			DisabledReason: adcamp.DisabledFailing, FailingSince: &failing, PreviousSecretExpiresAt: &expires,
			CreatedAt: at(18), UpdatedAt: at(19),
		},
		Secret: []byte("sealed secret"), PreviousSecret: []byte("sealed previous secret"),
	}
	r.fixture("a webhook endpoint", e)
	r.writing(func(tx store.Tx) error { return tx.CreateWebhookEndpoint(ctx, e) })
	e.URL, e.UpdatedAt = "https://hooks.example.test/v2", at(21)
	r.writing(func(tx store.Tx) error { return tx.UpdateWebhookEndpoint(ctx, e) })
	r.reading(func(tx store.Tx) {
		got, err := tx.GetWebhookEndpoint(ctx, tn, e.ID)
		r.read("GetWebhookEndpoint", got, e, err)
		got, err = tx.EndpointByID(ctx, e.ID)
		r.read("EndpointByID", got, e, err)
		list, err := tx.ListWebhookEndpoints(ctx, tn)
		r.read("ListWebhookEndpoints", list, []*store.WebhookEndpoint{e}, err)
	})

	ev := &adcamp.Event{ID: adcamp.NewID(adcamp.PrefixEvent, at(22)), AccountID: a.ID, Environment: tn.Environment,
		Type: adcamp.EventCampaignCreated, OccurredAt: at(22), CampaignID: "cmp_x",
		Payload: []byte(`{"id":"evt_1","type":"campaign.created","data":{"name":"ü"}}`)}
	r.fixture("an event", ev)
	r.writing(func(tx store.Tx) error { return tx.AddEvents(ctx, []*adcamp.Event{ev}) })
	r.reading(func(tx store.Tx) {
		got, err := tx.GetEvent(ctx, tn, ev.ID)
		r.read("GetEvent", got, ev, err)
		list, err := tx.ListEvents(ctx, store.EventQuery{Tenant: tn, Limit: 10})
		r.read("ListEvents", list, []*adcamp.Event{ev}, err)
	})
	r.writing(func(tx store.Tx) error {
		_, taken, records, err := tx.TakeOutbox(ctx, 10)
		r.read("TakeOutbox", taken, []*adcamp.Event{ev}, err)
		if len(records) != 0 {
			r.t.Errorf("TakeOutbox: %d change records, want none", len(records))
		}
		return nil
	})

	d := &store.Delivery{ID: adcamp.NewID(adcamp.PrefixDelivery, at(23)), EndpointID: e.ID, EventID: ev.ID,
		AccountID: a.ID, State: adcamp.DeliveryPending, Attempts: 2, NextAttempt: at(24), CreatedAt: at(23), Event: ev}
	r.fixture("a delivery", d)
	r.writing(func(tx store.Tx) error { return tx.PutDeliveries(ctx, []*store.Delivery{d}) })
	r.writing(func(tx store.Tx) error {
		got, err := tx.DueDeliveries(ctx, e.ID, at(25), 10, true)
		r.read("DueDeliveries", got, []*store.Delivery{d}, err)
		return nil
	})
	att := &adcamp.DeliveryAttempt{ID: adcamp.NewID(adcamp.PrefixAttempt, at(25)), AccountID: a.ID, EndpointID: e.ID,
		EventID: ev.ID, EventType: ev.Type, AttemptedAt: at(25), Status: 503, LatencyMS: 120, Error: "status 503",
		Response: "busy — ☂", Succeeded: true}
	r.fixture("a delivery attempt", att)
	d.State, d.Attempts, d.NextAttempt = adcamp.DeliverySucceeded, 3, at(26)
	r.writing(func(tx store.Tx) error { return tx.FinishAttempt(ctx, d, att) })
	r.reading(func(tx store.Tx) {
		got, err := tx.ListAttempts(ctx, tn, e.ID, "", 10)
		r.read("ListAttempts", got, []*adcamp.DeliveryAttempt{att}, err)
	})
}

// testWebhooks: tenancy, the outbox taken once, leases, the order and
// state of deliveries, the queue's figures, the purge.
func testWebhooks(t *testing.T, db store.Store) {
	ctx := t.Context()
	acc, other := newAccount(t, db, "one").ID, newAccount(t, db, "two").ID
	tn := adcamp.Tenant{AccountID: acc, Environment: adcamp.Production}
	endpoint := func(id string, enabled bool) *store.WebhookEndpoint {
		e := &store.WebhookEndpoint{WebhookEndpoint: adcamp.WebhookEndpoint{ID: id, AccountID: acc,
			Environment: adcamp.Production, URL: "https://x.test/", Enabled: enabled, CreatedAt: base, UpdatedAt: base},
			Secret: []byte("s")}
		write(t, db, func(tx store.Tx) error { return tx.CreateWebhookEndpoint(ctx, e) })
		return e
	}
	e1, e2 := endpoint("whe_1", true), endpoint("whe_2", true)
	endpoint("whe_3", false)

	read(t, db, func(tx store.Tx) error {
		_, err := tx.GetWebhookEndpoint(ctx, adcamp.Tenant{AccountID: other, Environment: adcamp.Production}, e1.ID)
		wantCode(t, "GetWebhookEndpoint of another account", err, adcamp.CodeNotFound)
		_, err = tx.GetWebhookEndpoint(ctx, adcamp.Tenant{AccountID: acc, Environment: adcamp.Sandbox}, e1.ID)
		wantCode(t, "GetWebhookEndpoint in the other environment", err, adcamp.CodeNotFound)
		return nil
	})

	var evs []*adcamp.Event
	for i := range 3 {
		evs = append(evs, &adcamp.Event{ID: adcamp.NewID(adcamp.PrefixEvent, at(i)), AccountID: acc,
			Environment: adcamp.Production, Type: adcamp.EventCampaignUpdated, OccurredAt: at(i), Payload: []byte(`{}`)})
	}
	write(t, db, func(tx store.Tx) error { return tx.AddEvents(ctx, evs) })
	test := &adcamp.Event{ID: adcamp.NewID(adcamp.PrefixEvent, at(3)), AccountID: acc, Environment: adcamp.Production,
		Type: adcamp.EventTest, OccurredAt: at(3), Payload: []byte(`{}`)}
	write(t, db, func(tx store.Tx) error { return tx.AddEventsOnly(ctx, []*adcamp.Event{test}) })
	read(t, db, func(tx store.Tx) error {
		list, err := tx.ListEvents(ctx, store.EventQuery{Tenant: tn, Limit: 10})
		sameIDs(t, "ListEvents (a test event beside)", idsOf(list, eventID), idsOf([]*adcamp.Event{evs[2], evs[1], evs[0]}, eventID))
		return err
	})
	read(t, db, func(tx store.Tx) error {
		n, oldest, err := tx.WebhookQueue(ctx)
		if err != nil || n != 3 || !oldest.Equal(at(0).Truncate(time.Millisecond)) {
			t.Errorf("WebhookQueue() = %d, %v, %v; want 3, %v", n, oldest, err, at(0).Truncate(time.Millisecond))
		}
		return nil
	})
	var taken []*adcamp.Event
	write(t, db, func(tx store.Tx) (err error) { _, taken, _, err = tx.TakeOutbox(ctx, 2); return err })
	sameIDs(t, "TakeOutbox(2)", idsOf(taken, eventID), idsOf(evs[:2], eventID))
	write(t, db, func(tx store.Tx) (err error) { _, taken, _, err = tx.TakeOutbox(ctx, 10); return err })
	sameIDs(t, "TakeOutbox, then", idsOf(taken, eventID), idsOf(evs[2:], eventID))
	write(t, db, func(tx store.Tx) (err error) { _, taken, _, err = tx.TakeOutbox(ctx, 10); return err })
	if len(taken) != 0 {
		t.Errorf("TakeOutbox of an empty outbox = %d events, want 0", len(taken))
	}

	// Deliveries to e1 of every event, due in reverse order: they still
	// come in the order of their events.
	var ds []*store.Delivery
	for i, ev := range evs {
		ds = append(ds, &store.Delivery{ID: adcamp.NewID(adcamp.PrefixDelivery, at(i)), EndpointID: e1.ID, EventID: ev.ID,
			AccountID: acc, State: adcamp.DeliveryPending, NextAttempt: at(10 - i), CreatedAt: at(i)})
	}
	write(t, db, func(tx store.Tx) error { return tx.PutDeliveries(ctx, ds) })
	claim := func(owner string, now time.Time) (ids []string) {
		write(t, db, func(tx store.Tx) (err error) {
			ids, err = tx.ClaimEndpoints(ctx, owner, now, now.Add(time.Minute), 10)
			return err
		})
		return ids
	}
	if got := claim("p1", at(5)); len(got) != 0 {
		t.Errorf("ClaimEndpoints before any delivery is due = %v, want none", got)
	}
	sameIDs(t, "ClaimEndpoints when due", claim("p1", at(20)), []string{e1.ID})
	if got := claim("p2", at(21)); len(got) != 0 {
		t.Errorf("ClaimEndpoints of an endpoint leased to another = %v, want none", got)
	}
	write(t, db, func(tx store.Tx) error {
		ok, err := tx.ExtendLease(ctx, e1.ID, "p2", at(100))
		if ok || err != nil {
			t.Errorf("ExtendLease by another owner = %v, %v; want false, nil", ok, err)
		}
		due, err := tx.DueDeliveries(ctx, e1.ID, at(20), 10, false)
		sameIDs(t, "DueDeliveries", idsOf(due, func(d *store.Delivery) string { return d.EventID }), idsOf(evs, eventID))
		return err
	})
	// Succeeded: no longer due; PutDeliveries makes it pending again.
	first := ds[0]
	first.State, first.Attempts = adcamp.DeliverySucceeded, 1
	write(t, db, func(tx store.Tx) error {
		return tx.FinishAttempt(ctx, first, &adcamp.DeliveryAttempt{ID: "wha_1", AccountID: acc, EndpointID: e1.ID,
			EventID: first.EventID, EventType: "x", AttemptedAt: at(20), Status: 200, Succeeded: true})
	})
	dueIDs := func() []string {
		var due []*store.Delivery
		read(t, db, func(tx store.Tx) (err error) { due, err = tx.DueDeliveries(ctx, e1.ID, at(30), 10, false); return err })
		return idsOf(due, func(d *store.Delivery) string { return d.EventID })
	}
	sameIDs(t, "DueDeliveries after one succeeded", dueIDs(), idsOf(evs[1:], eventID))
	redo := *first
	redo.ID, redo.State, redo.Attempts, redo.NextAttempt = "whd_other", adcamp.DeliveryPending, 0, at(25)
	write(t, db, func(tx store.Tx) error { return tx.PutDeliveries(ctx, []*store.Delivery{&redo}) })
	sameIDs(t, "DueDeliveries after a redelivery", dueIDs(), idsOf(evs, eventID))
	// A redelivery queued while an attempt of the same delivery was being
	// sent outlives the attempt's record: that finishes the delivery it
	// took (its id), not the one queued since.
	var inFlight *store.Delivery // as the dispatcher takes it
	read(t, db, func(tx store.Tx) error {
		due, err := tx.DueDeliveries(ctx, e1.ID, at(30), 10, false)
		for _, d := range due {
			if d.EventID == first.EventID {
				inFlight = d
			}
		}
		return err
	})
	if inFlight == nil {
		t.Fatal("the redelivered delivery is not due")
	}
	inFlight.State, inFlight.Attempts = adcamp.DeliverySucceeded, 1
	again := redo
	again.ID, again.NextAttempt = "whd_again", at(26)
	write(t, db, func(tx store.Tx) error { return tx.PutDeliveries(ctx, []*store.Delivery{&again}) })
	write(t, db, func(tx store.Tx) error {
		return tx.FinishAttempt(ctx, inFlight, &adcamp.DeliveryAttempt{ID: "wha_2", AccountID: acc, EndpointID: e1.ID,
			EventID: first.EventID, EventType: "x", AttemptedAt: at(27), Status: 200, Succeeded: true})
	})
	sameIDs(t, "DueDeliveries after an attempt finished under a redelivery", dueIDs(), idsOf(evs, eventID))

	write(t, db, func(tx store.Tx) error { return tx.ReleaseLeases(ctx, "p1") })
	sameIDs(t, "ClaimEndpoints after the release", claim("p2", at(21)), []string{e1.ID})
	write(t, db, func(tx store.Tx) error { return tx.ReleaseLeases(ctx, "") })

	read(t, db, func(tx store.Tx) error {
		list, err := tx.ListAttempts(ctx, tn, e1.ID, "", 10)
		if err != nil || len(list) != 2 {
			t.Errorf("ListAttempts = %d, %v; want 2 attempts", len(list), err)
		}
		list, err = tx.ListAttempts(ctx, adcamp.Tenant{AccountID: other, Environment: adcamp.Production}, e1.ID, "", 10)
		if err != nil || len(list) != 0 {
			t.Errorf("ListAttempts of another account = %d, %v; want none", len(list), err)
		}
		list2, err := tx.ListWebhookEndpoints(ctx, tn)
		sameIDs(t, "ListWebhookEndpoints", idsOf(list2, func(e *store.WebhookEndpoint) string { return e.ID }),
			[]string{"whe_1", "whe_2", "whe_3"})
		return err
	})

	write(t, db, func(tx store.Tx) error {
		err := tx.DeleteWebhookEndpoint(ctx, adcamp.Tenant{AccountID: other, Environment: adcamp.Production}, e2.ID)
		wantCode(t, "DeleteWebhookEndpoint of another account", err, adcamp.CodeNotFound)
		return tx.DeleteWebhookEndpoint(ctx, tn, e1.ID)
	})
	read(t, db, func(tx store.Tx) error {
		n, _, err := tx.WebhookQueue(ctx)
		if err != nil || n != 0 {
			t.Errorf("WebhookQueue() after the endpoint's delete = %d, %v; want 0", n, err)
		}
		return nil
	})
	write(t, db, func(tx store.Tx) error {
		n, err := tx.PurgeEvents(ctx, evs[2].ID, 10)
		if err != nil || n != 2 {
			t.Errorf("PurgeEvents = %d, %v; want 2", n, err)
		}
		list, err := tx.ListEvents(ctx, store.EventQuery{Tenant: tn, Limit: 10})
		sameIDs(t, "ListEvents after the purge", idsOf(list, eventID), idsOf(evs[2:], eventID))
		return err
	})
}

func eventID(e *adcamp.Event) string { return e.ID }

// testRecordEvents: an event written without a payload is its change
// record's (same ULID), and the record carries its type: ChangeEvents
// reads a tenant's such records (not those of no event, nor those of
// before 00044 without a type), whether their events are in the outbox or
// not; such an event is queued only for a tenant with an enabled
// endpoint; TakeOutbox returns the stored events (a keyword batch's shares
// its first record's ULID) and the records it took, and drops an outbox
// row whose record is gone.
func testRecordEvents(t *testing.T, db store.Store) {
	ctx := t.Context()
	acc, other := newAccount(t, db, "one").ID, newAccount(t, db, "two").ID
	tn := adcamp.Tenant{AccountID: acc, Environment: adcamp.Production}
	sandbox := adcamp.Tenant{AccountID: acc, Environment: adcamp.Sandbox}
	otherTn := adcamp.Tenant{AccountID: other, Environment: adcamp.Production}
	// An enabled endpoint for other's production, a disabled one for the
	// sandbox; none for tn.
	for i, e := range []struct {
		tn      adcamp.Tenant
		enabled bool
	}{{otherTn, true}, {sandbox, false}} {
		ep := &store.WebhookEndpoint{WebhookEndpoint: adcamp.WebhookEndpoint{ID: "whe_r" + strconv.Itoa(i),
			AccountID: e.tn.AccountID, Environment: e.tn.Environment, URL: "https://x.test/", Ordering: adcamp.OrderingNone,
			Enabled: e.enabled, CreatedAt: base, UpdatedAt: base}, Secret: []byte("s")}
		write(t, db, func(tx store.Tx) error { return tx.CreateWebhookEndpoint(ctx, ep) })
	}
	actor := adcamp.Actor{Type: adcamp.ActorAPIKey, ID: "ak_1"}
	var records []*adcamp.Change
	for i, tenant := range []adcamp.Tenant{tn, tn, otherTn, sandbox, tn, otherTn, otherTn, tn} {
		c := change(tenant, adcamp.EntityCampaign, "cmp_1", "cmp_1", "", at(i), actor)
		c.EventType = adcamp.EventCampaignUpdated
		records = append(records, c)
	}
	records[4].EventType = "" // a batch's first record: its event is stored
	records[6].EventType = "" // written before 00044: its event in the outbox, no type
	records[7].EventType = "" // no event of its own
	asEvent := func(c *adcamp.Change, payload []byte) *adcamp.Event {
		return &adcamp.Event{ID: adcamp.PrefixEvent + strings.TrimPrefix(c.ID, adcamp.PrefixChange), AccountID: c.AccountID,
			Environment: c.Environment, Type: adcamp.EventCampaignUpdated, OccurredAt: c.OccurredAt, Payload: payload}
	}
	var evs []*adcamp.Event
	for _, c := range records[:7] {
		evs = append(evs, asEvent(c, nil))
	}
	evs[4].Payload = []byte(`{"stored":true}`)
	// records[5]'s event is written, its record not (purged before the event).
	write(t, db, func(tx store.Tx) error {
		return tx.AddChanges(ctx, []*adcamp.Change{records[0], records[1], records[2], records[3], records[4], records[6],
			records[7]})
	})
	write(t, db, func(tx store.Tx) error { return tx.AddEvents(ctx, evs) })
	recordIDs := func(cs []*adcamp.Change) []string { return idsOf(cs, func(c *adcamp.Change) string { return c.ID }) }
	changeEvents := func(when string) {
		read(t, db, func(tx store.Tx) error {
			got, err := tx.ChangeEvents(ctx, store.EventQuery{Tenant: tn, Limit: 10})
			sameIDs(t, "ChangeEvents "+when, recordIDs(got), recordIDs([]*adcamp.Change{records[1], records[0]}))
			if len(got) == 2 {
				same(t, "ChangeEvents()[0] "+when, got[0], records[1])
			}
			got, _ = tx.ChangeEvents(ctx, store.EventQuery{Tenant: tn, Limit: 1})
			sameIDs(t, "ChangeEvents, limit 1 "+when, recordIDs(got), recordIDs(records[1:2]))
			got, _ = tx.ChangeEvents(ctx, store.EventQuery{Tenant: tn, From: evs[1].ID, Before: evs[1].ID + "0", Limit: 10})
			sameIDs(t, "ChangeEvents of one id "+when, recordIDs(got), recordIDs(records[1:2]))
			got, _ = tx.ChangeEvents(ctx, store.EventQuery{Tenant: tn, Before: evs[1].ID, Limit: 10})
			sameIDs(t, "ChangeEvents before an id "+when, recordIDs(got), recordIDs(records[:1]))
			got, _ = tx.ChangeEvents(ctx, store.EventQuery{Tenant: tn, From: evs[1].ID, Limit: 10})
			sameIDs(t, "ChangeEvents from an id "+when, recordIDs(got), recordIDs(records[1:2]))
			got, _ = tx.ChangeEvents(ctx, store.EventQuery{Tenant: tn, Limit: 10,
				Types: []string{adcamp.EventCampaignCreated, adcamp.EventCampaignUpdated}})
			sameIDs(t, "ChangeEvents of its type "+when, recordIDs(got), recordIDs([]*adcamp.Change{records[1], records[0]}))
			got, _ = tx.ChangeEvents(ctx, store.EventQuery{Tenant: tn, Limit: 10, Types: []string{adcamp.EventCampaignCreated}})
			sameIDs(t, "ChangeEvents of another type "+when, recordIDs(got), nil)
			got, _ = tx.ChangeEvents(ctx, store.EventQuery{Tenant: otherTn, Limit: 10})
			sameIDs(t, "ChangeEvents of the other account "+when, recordIDs(got), recordIDs(records[2:3]))
			return err
		})
	}
	changeEvents("in the outbox")
	// Queued: the other account's (records 2, 5 and 6) and the stored
	// event; not tn's records' nor the sandbox's (a disabled endpoint).
	read(t, db, func(tx store.Tx) error {
		n, _, err := tx.WebhookQueue(ctx)
		if n != 4 {
			t.Errorf("WebhookQueue() = %d, want 4", n)
		}
		return err
	})
	var n int
	var stored []*adcamp.Event
	var taken []*adcamp.Change
	write(t, db, func(tx store.Tx) (err error) { n, stored, taken, err = tx.TakeOutbox(ctx, 10); return err })
	if n != 4 {
		t.Errorf("TakeOutbox took %d, want 4", n)
	}
	sameIDs(t, "TakeOutbox's events", idsOf(stored, eventID), idsOf(evs[4:5], eventID))
	sameIDs(t, "TakeOutbox's records", recordIDs(taken), recordIDs([]*adcamp.Change{records[2], records[6]}))
	if len(taken) == 2 {
		same(t, "TakeOutbox's records[0]", taken[0], records[2])
	}
	changeEvents("after TakeOutbox")
	read(t, db, func(tx store.Tx) error {
		n, _, err := tx.WebhookQueue(ctx)
		if n != 0 {
			t.Errorf("WebhookQueue() after TakeOutbox = %d, want 0", n)
		}
		return err
	})
}

// testWebhookOrdering: per campaign, an event waits while an earlier one
// of its campaign is pending for the endpoint (due or not), and only
// then; events of no campaign never wait.
func testWebhookOrdering(t *testing.T, db store.Store) {
	ctx := t.Context()
	acc := newAccount(t, db, "one").ID
	e := &store.WebhookEndpoint{WebhookEndpoint: adcamp.WebhookEndpoint{ID: "whe_o", AccountID: acc,
		Environment: adcamp.Production, URL: "https://x.test/", Ordering: adcamp.OrderingPerCampaign, Enabled: true,
		CreatedAt: base, UpdatedAt: base}, Secret: []byte("s")}
	write(t, db, func(tx store.Tx) error { return tx.CreateWebhookEndpoint(ctx, e) })
	campaigns := []string{"cmp_a", "cmp_a", "cmp_b", "", "cmp_b", "cmp_a"}
	var evs []*adcamp.Event
	var ds []*store.Delivery
	for i, c := range campaigns {
		ev := &adcamp.Event{ID: adcamp.NewID(adcamp.PrefixEvent, at(i)), AccountID: acc, Environment: adcamp.Production,
			Type: adcamp.EventCampaignUpdated, OccurredAt: at(i), CampaignID: c, Payload: []byte(`{}`)}
		evs = append(evs, ev)
		ds = append(ds, &store.Delivery{ID: adcamp.NewID(adcamp.PrefixDelivery, at(i)), EndpointID: e.ID, EventID: ev.ID,
			AccountID: acc, State: adcamp.DeliveryPending, NextAttempt: at(10), CreatedAt: at(i)})
	}
	// The first event of cmp_a failed and waits for its retry at 100.
	ds[0].Attempts, ds[0].NextAttempt = 1, at(100)
	write(t, db, func(tx store.Tx) error { return tx.AddEventsOnly(ctx, evs) })
	write(t, db, func(tx store.Tx) error { return tx.PutDeliveries(ctx, ds) })
	due := func(now time.Time, perCampaign bool) []string {
		var got []*store.Delivery
		read(t, db, func(tx store.Tx) (err error) {
			got, err = tx.DueDeliveries(ctx, e.ID, now, 10, perCampaign)
			return err
		})
		return idsOf(got, func(d *store.Delivery) string { return d.EventID })
	}
	ids := func(is ...int) []string {
		var out []string
		for _, i := range is {
			out = append(out, evs[i].ID)
		}
		return out
	}
	sameIDs(t, "DueDeliveries, in order of time", due(at(20), false), ids(1, 2, 3, 4, 5))
	sameIDs(t, "DueDeliveries per campaign while cmp_a's first waits", due(at(20), true), ids(2, 3))
	sameIDs(t, "DueDeliveries per campaign at the retry", due(at(100), true), ids(0, 2, 3))
	// cmp_b's first goes out and fails: its second waits too.
	ds[2].Attempts, ds[2].NextAttempt = 1, at(50)
	write(t, db, func(tx store.Tx) error {
		return tx.FinishAttempt(ctx, ds[2], &adcamp.DeliveryAttempt{ID: "wha_o1", AccountID: acc, EndpointID: e.ID,
			EventID: ds[2].EventID, EventType: "x", AttemptedAt: at(20), Status: 503})
	})
	sameIDs(t, "DueDeliveries per campaign after cmp_b's first failed", due(at(20), true), ids(3))
	// Given up on, the first of cmp_a holds nothing back.
	ds[0].State = adcamp.DeliveryFailed
	write(t, db, func(tx store.Tx) error {
		return tx.FinishAttempt(ctx, ds[0], &adcamp.DeliveryAttempt{ID: "wha_o2", AccountID: acc, EndpointID: e.ID,
			EventID: ds[0].EventID, EventType: "x", AttemptedAt: at(21), Status: 500})
	})
	sameIDs(t, "DueDeliveries per campaign after cmp_a's first was given up", due(at(20), true), ids(1, 3))
}
