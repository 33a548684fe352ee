package service

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
)

// TestEventsOf: which events the records of one call make.
func TestEventsOf(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	rec := func(typ adcamp.EntityType, id, campaign, adGroup string, op adcamp.Operation, fields ...string) *adcamp.Change {
		cid, when := adcamp.NewChangeID(at)
		c := &adcamp.Change{ID: cid, OccurredAt: when, AccountID: "acc_1", Environment: adcamp.Sandbox, EntityType: typ,
			EntityID: id, CampaignID: campaign, AdGroupID: adGroup, Operation: op, Actor: systemActor, TransactionID: "txn_1"}
		for i := 0; i+1 < len(fields); i += 2 {
			c.Changes = append(c.Changes, adcamp.FieldChange{Field: fields[i], New: text(fields[i+1])})
		}
		return c
	}
	types := func(evs []*adcamp.Event) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.Type)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		list []*adcamp.Change
		want []string
	}{
		{"a campaign's update", []*adcamp.Change{rec(adcamp.EntityCampaign, "cmp_1", "cmp_1", "", adcamp.OpUpdate, "status", "paused")},
			[]string{"campaign.updated"}},
		{"its end (as adcamp stores it)", []*adcamp.Change{rec(adcamp.EntityCampaign, "cmp_1", "cmp_1", "", adcamp.OpUpdate, "status", "ended")},
			[]string{"campaign.ended"}},
		{"a cascade", []*adcamp.Change{
			rec(adcamp.EntityKeyword, "kw_1", "cmp_1", "adg_1", adcamp.OpDelete),
			rec(adcamp.EntityAdGroup, "adg_1", "cmp_1", "adg_1", adcamp.OpDelete),
			rec(adcamp.EntityCampaign, "cmp_1", "cmp_1", "", adcamp.OpDelete)}, []string{"campaign.deleted"}},
		{"an ad group's cascade", []*adcamp.Change{
			rec(adcamp.EntityKeyword, "kw_1", "cmp_1", "adg_1", adcamp.OpDelete),
			rec(adcamp.EntityAdGroup, "adg_1", "cmp_1", "adg_1", adcamp.OpDelete)}, []string{"ad_group.deleted"}},
		{"one keyword", []*adcamp.Change{rec(adcamp.EntityKeyword, "kw_1", "cmp_1", "adg_1", adcamp.OpCreate)},
			[]string{"keyword.created"}},
		{"a batch", []*adcamp.Change{rec(adcamp.EntityKeyword, "kw_1", "cmp_1", "adg_1", adcamp.OpCreate),
			rec(adcamp.EntityKeyword, "kw_2", "cmp_1", "adg_1", adcamp.OpCreate)}, []string{"keyword.batch_created"}},
		{"a key disabled", []*adcamp.Change{rec(adcamp.EntityAPIKey, "ak_1", "", "", adcamp.OpUpdate, "disabled", "true")},
			[]string{"api_key.disabled"}},
		{"a key enabled", []*adcamp.Change{rec(adcamp.EntityAPIKey, "ak_1", "", "", adcamp.OpUpdate, "disabled", "false")}, nil},
		{"a key rolled", []*adcamp.Change{rec(adcamp.EntityAPIKey, "ak_1", "", "", adcamp.OpUpdate, "secret", "issued")},
			[]string{"api_key.rolled"}},
		{"a key deleted", []*adcamp.Change{rec(adcamp.EntityAPIKey, "ak_1", "", "", adcamp.OpDelete)}, []string{"api_key.deleted"}},
		{"a member", []*adcamp.Change{rec(adcamp.EntityMember, "usr_1", "", "", adcamp.OpCreate)}, nil},
		{"an endpoint", []*adcamp.Change{rec(adcamp.EntityWebhookEndpoint, "whe_1", "", "", adcamp.OpCreate)}, nil},
	} {
		got := eventsOf(tc.list)
		if !slices.Equal(types(got), tc.want) {
			t.Errorf("%s: events %v, want %v", tc.name, types(got), tc.want)
		}
		// A record that is its event carries the event's type (GET /events
		// lists it from the history); the others none.
		for _, c := range tc.list {
			want := ""
			if i := slices.IndexFunc(got, func(e *adcamp.Event) bool { return e.ID == eventID(c.ID) }); i >= 0 && got[i].Payload == nil {
				want = got[i].Type
			}
			if c.EventType != want {
				t.Errorf("%s: record %s %s %s carries event type %q, want %q", tc.name, c.EntityType, c.EntityID, c.Operation, c.EventType, want)
			}
		}
		for _, e := range got {
			if e.Payload == nil { // the record's: made when it is read back
				i := slices.IndexFunc(tc.list, func(c *adcamp.Change) bool { return eventID(c.ID) == e.ID })
				if i < 0 {
					t.Errorf("%s: event %s without a payload is no record's", tc.name, e.ID)
					continue
				}
				made := recordEvent(tc.list[i])
				if made == nil || made.Type != e.Type {
					t.Errorf("%s: the event read back from its record is %+v, want type %s", tc.name, made, e.Type)
					continue
				}
				e = made
			}
			var p struct{ ID, Type, Timestamp string }
			if err := json.Unmarshal(e.Payload, &p); err != nil || p.ID != e.ID || p.Type != e.Type || p.Timestamp == "" ||
				!adcamp.ValidID(adcamp.PrefixEvent, e.ID) {
				t.Errorf("%s: payload %s of event %s", tc.name, e.Payload, e.ID)
			}
		}
	}
}

// TestChangePayloadAsEncoded: the payload of a change's event, written by
// hand, is byte for byte what encoding/json writes of the change record.
func TestChangePayloadAsEncoded(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 9, 30, 0, 123456789, time.FixedZone("x", 3600))
	odd := "a<b>&c \"q\" \\ \u2028 \x01 \xff é 日本"
	records := []*adcamp.Change{
		{ID: "chg_1", OccurredAt: at, AccountID: "acc_1", Environment: adcamp.Sandbox, EntityType: adcamp.EntityCampaign,
			EntityID: "cmp_1", CampaignID: "cmp_1", Operation: adcamp.OpCreate, Actor: systemActor, TransactionID: "txn_1",
			Changes: []adcamp.FieldChange{{Field: "name", New: text(odd)}, {Field: "budget_daily", Old: text("10.00"), New: text("12.50")},
				{Field: "end_date", Old: text("2026-12-31")}, {Field: "channel_account_id", New: text("7")}}},
		{ID: "chg_2", OccurredAt: at, AccountID: "acc_1", EntityType: adcamp.EntityKeyword, EntityID: "kw_1", CampaignID: "cmp_1",
			AdGroupID: "adg_1", Operation: adcamp.OpUpdate, Actor: adcamp.Actor{Type: adcamp.ActorAPIKey, ID: odd},
			RequestID: odd, IdempotencyKey: "idem " + odd, TransactionID: odd},
		{ID: "chg_3", OccurredAt: at, AccountID: "acc_1", Environment: adcamp.Production, EntityType: adcamp.EntityAPIKey,
			EntityID: "ak_1", Operation: adcamp.OpDelete, Actor: systemActor, TransactionID: "txn_3"},
	}
	for _, c := range records {
		got := newChangeEvent(c, "x.updated")
		want := newEvent(c, "x.updated", changeData(c))
		if string(got.Payload) != string(want.Payload) {
			t.Errorf("payload of %s:\n got %s\nwant %s", c.ID, got.Payload, want.Payload)
		}
		got.Payload, want.Payload = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("event of %s = %+v, want %+v", c.ID, got, want)
		}
	}
}
