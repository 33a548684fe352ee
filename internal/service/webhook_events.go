package service

import (
	"encoding/json"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/jsonwrite"
)

// Events are the change history's records, delivered: eventsOf turns the
// records of one service call into the events written with them, in the
// same transaction (an outbox the dispatcher empties). The event of one
// record is the record: the record carries its event's type
// (adcamp.Change.EventType, set here), only its outbox row is written
// with it (an event without a payload, store.WebhooksTx.AddEvents), and
// its payload is made from the record whenever it is needed: by the
// dispatcher, which stores it only for the endpoints that take it
// (fanOut), and by GET /events, which reads such events from the history
// (listEvents). So a change stores its record once, and costs an account
// without an endpoint its outbox row alone.
//
//   - A create, update or delete of a campaign, ad group or keyword is its
//     entity's .created, .updated or .deleted event, whose data is the
//     change record as GET /changes shows it. An update that ends a
//     campaign (its status becomes ended, by a person or automatically at
//     its end date) is campaign.ended instead of campaign.updated.
//   - The keywords one call creates are one keyword.created event when it
//     is one, else one keyword.batch_created event listing their ids.
//   - A delete takes what lies under the entity with it: the event is the
//     entity's alone (the records of the rest share its transaction_id).
//   - An API key's disable, roll and delete are api_key.disabled,
//     api_key.rolled and api_key.deleted; its other changes send nothing.
//   - Members and webhook endpoints send nothing.
func eventsOf(list []*adcamp.Change) []*adcamp.Event {
	var out []*adcamp.Event
	var deleted map[string]bool // campaigns and ad groups deleted by this call
	for _, c := range list {
		if c.Operation == adcamp.OpDelete && (c.EntityType == adcamp.EntityCampaign || c.EntityType == adcamp.EntityAdGroup) {
			if deleted == nil {
				deleted = map[string]bool{}
			}
			deleted[c.EntityID] = true
		}
	}
	var created []*adcamp.Change // keywords
	for _, c := range list {
		if c.Operation == adcamp.OpDelete && c.EntityID != c.CampaignID && deleted[c.CampaignID] ||
			c.Operation == adcamp.OpDelete && c.EntityType == adcamp.EntityKeyword && deleted[c.AdGroupID] {
			continue // went with its campaign or ad group
		}
		if c.EntityType == adcamp.EntityKeyword && c.Operation == adcamp.OpCreate {
			created = append(created, c)
			continue
		}
		if typ := eventType(c); typ != "" {
			out = append(out, changeEvent(c, typ))
		}
	}
	switch {
	case len(created) == 1:
		out = append(out, changeEvent(created[0], adcamp.EventKeywordCreated))
	case len(created) > 1:
		out = append(out, newEvent(created[0], adcamp.EventKeywordBatchCreated, batchData(created)))
	}
	return out
}

// changeEvent is the event of type typ of record c, without its payload:
// the record is (see recordEvent). It marks c as its event.
func changeEvent(c *adcamp.Change, typ string) *adcamp.Event {
	c.EventType = typ
	return &adcamp.Event{ID: eventID(c.ID), AccountID: c.AccountID, Environment: c.Environment, Type: typ,
		OccurredAt: c.OccurredAt, CampaignID: c.CampaignID}
}

// recordEvent is the event of a record whose event is the record alone
// (eventsOf wrote it without a payload), with its payload, as the record
// was read back from the history; nil if it makes none. A record written
// before the history kept its event's type (migration 00044) has it
// worked out again.
func recordEvent(c *adcamp.Change) *adcamp.Event {
	typ := c.EventType
	if typ == "" {
		typ = eventType(c)
	}
	if typ == "" {
		return nil
	}
	return newChangeEvent(c, typ)
}

// eventType is the type of the event of a record, or "" for none. A
// keyword's create is keyword.created: eventsOf makes the creates of a
// batch one keyword.batch_created instead.
func eventType(c *adcamp.Change) string {
	switch c.EntityType {
	case adcamp.EntityCampaign:
		if c.Operation == adcamp.OpUpdate && newValue(c, "status") == string(adcamp.StatusEnded) {
			return adcamp.EventCampaignEnded
		}
		return "campaign." + pastTense(c.Operation)
	case adcamp.EntityAdGroup:
		return "ad_group." + pastTense(c.Operation)
	case adcamp.EntityKeyword:
		return "keyword." + pastTense(c.Operation)
	case adcamp.EntityAPIKey:
		switch {
		case c.Operation == adcamp.OpDelete:
			return adcamp.EventAPIKeyDeleted
		case hasField(c, "secret"):
			return adcamp.EventAPIKeyRolled
		case newValue(c, "disabled") == "true":
			return adcamp.EventAPIKeyDisabled
		}
	}
	return ""
}

func pastTense(op adcamp.Operation) string { return string(op) + "d" }

func hasField(c *adcamp.Change, name string) bool {
	for _, f := range c.Changes {
		if f.Field == name {
			return true
		}
	}
	return false
}

func newValue(c *adcamp.Change, name string) string {
	for _, f := range c.Changes {
		if f.Field == name && f.New != nil {
			return *f.New
		}
	}
	return ""
}

// eventID is the id of the event of a record: "evt_" and the record's
// ULID, so that an event sorts with its record.
func eventID(changeID string) string {
	return adcamp.PrefixEvent + strings.TrimPrefix(changeID, adcamp.PrefixChange)
}

// eventTime is how an event's timestamp is written (as the change
// history's occurred_at).
const eventTime = "2006-01-02T15:04:05.000Z"

// newEvent makes the event of type typ of record c, with its payload.
func newEvent(c *adcamp.Change, typ string, data any) *adcamp.Event {
	e := &adcamp.Event{ID: eventID(c.ID), AccountID: c.AccountID, Environment: c.Environment, Type: typ,
		OccurredAt: c.OccurredAt, CampaignID: c.CampaignID}
	e.Payload = payload(e, data)
	return e
}

// newChangeEvent is newEvent(c, typ, changeData(c)), written without
// reflection: every change's event is made so, from its record
// (TestChangePayloadAsEncoded holds the two to the same bytes).
func newChangeEvent(c *adcamp.Change, typ string) *adcamp.Event {
	e := &adcamp.Event{ID: eventID(c.ID), AccountID: c.AccountID, Environment: c.Environment, Type: typ,
		OccurredAt: c.OccurredAt, CampaignID: c.CampaignID}
	b := make([]byte, 0, 512)
	b = append(b, `{"id":`...)
	b = jsonwrite.AppendString(b, e.ID, jsonwrite.EncodingJSON)
	b = append(b, `,"type":`...)
	b = jsonwrite.AppendString(b, typ, jsonwrite.EncodingJSON)
	b = append(b, `,"timestamp":"`...)
	b = e.OccurredAt.UTC().AppendFormat(b, eventTime)
	b = append(b, `","data":`...)
	b = appendChangeRecord(b, c)
	e.Payload = append(b, '}')
	return e
}

// appendChangeRecord appends changeData(c) as encoding/json writes it.
func appendChangeRecord(b []byte, c *adcamp.Change) []byte {
	str := func(b []byte, key, v string) []byte {
		b = append(b, key...)
		return jsonwrite.AppendString(b, v, jsonwrite.EncodingJSON)
	}
	b = str(b, `{"id":`, c.ID)
	b = append(b, `,"occurred_at":"`...)
	b = c.OccurredAt.UTC().AppendFormat(b, eventTime)
	b = append(b, '"')
	if c.Environment != "" {
		b = str(b, `,"environment":`, string(c.Environment))
	} else {
		b = append(b, `,"environment":null`...)
	}
	b = str(b, `,"entity_type":`, string(c.EntityType))
	b = str(b, `,"entity_id":`, c.EntityID)
	if c.CampaignID != c.EntityID && c.CampaignID != "" {
		b = str(b, `,"campaign_id":`, c.CampaignID)
	}
	if c.AdGroupID != c.EntityID && c.AdGroupID != "" {
		b = str(b, `,"ad_group_id":`, c.AdGroupID)
	}
	b = str(b, `,"operation":`, string(c.Operation))
	b = append(b, `,"changes":`...)
	b = append(b, FieldChangesJSON(c.Changes)...)
	b = str(b, `,"actor":{"type":`, string(c.Actor.Type))
	b = str(b, `,"id":`, c.Actor.ID)
	b = append(b, '}')
	if c.RequestID != "" {
		b = str(b, `,"request_id":`, c.RequestID)
	} else {
		b = append(b, `,"request_id":null`...)
	}
	if c.IdempotencyKey != "" {
		b = str(b, `,"idempotency_key":`, c.IdempotencyKey)
	}
	b = str(b, `,"transaction_id":`, c.TransactionID)
	return append(b, '}')
}

// payload is the body sent: {"id", "type", "timestamp", "data"}.
func payload(e *adcamp.Event, data any) []byte {
	b, err := json.Marshal(struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Data      any    `json:"data"`
	}{e.ID, e.Type, e.OccurredAt.UTC().Format(eventTime), data})
	if err != nil {
		panic("webhook payload: " + err.Error()) // only strings and raw JSON of ours
	}
	return b
}

// changeRecord is a change record as the API shows it (httpapi's
// changeJSON: the two must agree, TestEventDataIsTheChangeRecord).
type changeRecord struct {
	ID             string              `json:"id"`
	OccurredAt     string              `json:"occurred_at"`
	Environment    *adcamp.Environment `json:"environment"`
	EntityType     adcamp.EntityType   `json:"entity_type"`
	EntityID       string              `json:"entity_id"`
	CampaignID     string              `json:"campaign_id,omitempty"`
	AdGroupID      string              `json:"ad_group_id,omitempty"`
	Operation      adcamp.Operation    `json:"operation"`
	Changes        json.RawMessage     `json:"changes"`
	Actor          adcamp.Actor        `json:"actor"`
	RequestID      *string             `json:"request_id"`
	IdempotencyKey string              `json:"idempotency_key,omitempty"`
	TransactionID  string              `json:"transaction_id"`
}

func changeData(c *adcamp.Change) changeRecord {
	j := changeRecord{
		ID: c.ID, OccurredAt: c.OccurredAt.UTC().Format(eventTime), EntityType: c.EntityType, EntityID: c.EntityID,
		Operation: c.Operation, Changes: FieldChangesJSON(c.Changes), Actor: c.Actor,
		IdempotencyKey: c.IdempotencyKey, TransactionID: c.TransactionID,
	}
	if c.Environment != "" {
		j.Environment = &c.Environment
	}
	if c.RequestID != "" {
		j.RequestID = &c.RequestID
	}
	if c.CampaignID != c.EntityID {
		j.CampaignID = c.CampaignID
	}
	if c.AdGroupID != c.EntityID {
		j.AdGroupID = c.AdGroupID
	}
	return j
}

// batchData is the data of keyword.batch_created: the keywords' ids, and
// what their records share.
func batchData(cs []*adcamp.Change) any {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.EntityID
	}
	first := cs[0]
	var request *string
	if first.RequestID != "" {
		request = &first.RequestID
	}
	return struct {
		CampaignID     string       `json:"campaign_id"`
		AdGroupID      string       `json:"ad_group_id"`
		Count          int          `json:"count"`
		KeywordIDs     []string     `json:"keyword_ids"`
		Actor          adcamp.Actor `json:"actor"`
		RequestID      *string      `json:"request_id"`
		IdempotencyKey string       `json:"idempotency_key,omitempty"`
		TransactionID  string       `json:"transaction_id"`
	}{first.CampaignID, first.AdGroupID, len(cs), ids, first.Actor, request, first.IdempotencyKey, first.TransactionID}
}

// typedFields are the fields whose values the history writes as the
// entity does, not as strings: money (a number with two decimals), the
// channel account's id (an integer), a key's disabled flag and an
// endpoint's enabled one.
var typedFields = map[string]bool{"budget_daily": true, "default_bid": true, "bid": true, "channel_account_id": true, "disabled": true, "enabled": true}

// FieldChangesJSON writes the fields of a change as GET /changes and the
// webhook events show them: {"budget_daily": {"old": 25.00, "new": 40.00},
// "status": {"old": "active", "new": "paused"}}: each value as the
// entity's own JSON has it (the record keeps them as text; see
// store.EncodeFieldChanges).
func FieldChangesJSON(fs []adcamp.FieldChange) json.RawMessage {
	b := make([]byte, 0, 32+48*len(fs))
	b = append(b, '{')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonwrite.AppendString(b, f.Field, jsonwrite.EncodingJSON)
		b = append(b, `:{"old":`...)
		b = appendTyped(b, f.Field, f.Old)
		b = append(b, `,"new":`...)
		b = appendTyped(b, f.Field, f.New)
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendTyped(b []byte, field string, v *string) []byte {
	switch {
	case v == nil:
		return append(b, "null"...)
	case typedFields[field] && json.Valid([]byte(*v)):
		return append(b, *v...)
	}
	return jsonwrite.AppendString(b, *v, jsonwrite.EncodingJSON)
}
