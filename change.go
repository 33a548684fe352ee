package adcamp

import (
	"crypto/rand"
	"io"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// EntityType names what a change record is about.
type EntityType string

// The entity types of change records. Campaigns, ad groups and keywords
// belong to one environment; so do API keys. Members (a user's place in an
// account, and their role) belong to the account, in no environment.
const (
	EntityCampaign EntityType = "campaign"
	EntityAdGroup  EntityType = "ad_group"
	EntityKeyword  EntityType = "keyword"
	EntityAPIKey   EntityType = "api_key"
	EntityMember   EntityType = "member"
	// Negative keywords (of an ad group, a campaign or a shared list) and
	// shared negative lists.
	EntityNegativeKeyword EntityType = "negative_keyword"
	EntityNegativeList    EntityType = "negative_keyword_list"
	// EntityAccount records changes of an account's own settings (its
	// time zone).
	EntityAccount EntityType = "account"
)

// EntityTypes lists the entity types, in the order the API names them.
var EntityTypes = []EntityType{EntityCampaign, EntityAdGroup, EntityKeyword, EntityAPIKey, EntityMember, EntityAccount,
	EntityNegativeKeyword, EntityNegativeList, EntityWebhookEndpoint}

// Operation says what a change did to its entity.
type Operation string

// The operations. A status change is an update of the field status.
const (
	OpCreate Operation = "create"
	OpUpdate Operation = "update"
	OpDelete Operation = "delete"
)

// ActorTypes lists the actor types, in the order the API names them.
var ActorTypes = []ActorType{ActorAPIKey, ActorUser, ActorAdmin, ActorSystem}

// PrefixChange and PrefixTransaction prefix the ids of change records and
// of the transactions that group them.
const (
	PrefixChange      = "chg_"
	PrefixTransaction = "txn_"
)

// FieldChange is one field of a change: its value before and after, as
// text exactly as the API writes the field (money with two decimals,
// "25.00"; dates "2026-01-31"; true and false; numbers in decimal), or nil
// for null. A create has Old nil for every field it lists, a delete New
// nil. Text keeps money exact and gives every value one JSON type.
type FieldChange struct {
	Field string
	Old   *string
	New   *string
}

// Change is the record of one change to one entity: who made it, when,
// through which request, and what each changed field was before and
// after. Records are written in the transaction of the change itself and
// outlive the entity (until the retention period passes).
type Change struct {
	// ID is PrefixChange and a ULID: ids sort by the time of the change
	// (to the millisecond, then by order within a process), and the API
	// lists newest first by id.
	ID string
	// OccurredAt is when the change was made, to the millisecond; it is
	// the time of ID.
	OccurredAt time.Time
	AccountID  string
	// Environment is "" for member records, which belong to the account.
	Environment Environment
	EntityType  EntityType
	EntityID    string
	// CampaignID is the campaign the entity is or lies under ("" for API
	// keys and members): a campaign's own records carry its id, so that
	// the history of a campaign is every record with its CampaignID.
	CampaignID string
	// AdGroupID likewise: an ad group's own id, or a keyword's ad group.
	AdGroupID string
	Operation Operation
	// Changes lists the fields changed, in the entity's field order.
	Changes []FieldChange
	Actor   Actor
	// RequestID is the API's X-Request-Id ("" where there was no request:
	// the admin command line, the system).
	RequestID      string
	IdempotencyKey string // the client's Idempotency-Key, or ""
	// TransactionID is shared by every record written by one request (one
	// service call, or all the calls of one API request): a cascade or a
	// keyword batch is one transaction of many records.
	TransactionID string
	// EventType is the type of the webhook event that is this record
	// itself (its id "evt_" and the record's ULID, its data the record), or
	// "" if the record is none (or was written before the history kept
	// it). The service sets it when it writes the record; the store keeps
	// it for GET /events (store.WebhooksTx.ChangeEvents). GET /changes does
	// not show it.
	EventType string
}

// ChangeFilter selects a page of an account's change records in one
// environment, newest first. Zero fields do not filter.
type ChangeFilter struct {
	EntityType EntityType
	EntityID   string
	// CampaignID selects a campaign's own records and those of everything
	// under it; AdGroupID an ad group's and its keywords'.
	CampaignID string
	AdGroupID  string
	ActorType  ActorType
	ActorID    string
	Since      time.Time // inclusive
	Until      time.Time // exclusive
	// Cursor is the NextCursor of the page before ("" for the first).
	Cursor string
	// Limit is the page size, 1..MaxChangeLimit; 0 means DefaultChangeLimit.
	Limit int
}

// Page sizes of change lists.
const (
	DefaultChangeLimit = 50
	MaxChangeLimit     = 200
)

// ChangeIDs makes change ids that increase even within one millisecond
// or when the clock steps back, so that records written in sequence (and
// SQLite writes in sequence) list in the order they were made. The zero
// value is ready; a process that writes records uses one (the service
// keeps its own).
type ChangeIDs struct {
	mu      sync.Mutex
	last    ulid.ULID
	entropy io.Reader
}

// changeIDs is the generator of NewChangeID.
var changeIDs ChangeIDs

// maxStepBack is how far back (in ms) the clock may step with ids still
// following the last one: a clock set back further is taken as it is.
const maxStepBack = 1000

// NewChangeID returns a new change id for a change made at t, and the time
// the id carries, from a generator shared by the process (ChangeIDs.New).
func NewChangeID(t time.Time) (string, time.Time) { return changeIDs.New(t) }

// New returns a new change id for a change made at t, and the time the id
// carries (t to the millisecond, or up to a second later should the clock
// have stepped back), which is the record's OccurredAt.
func (g *ChangeIDs) New(t time.Time) (string, time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.entropy == nil {
		g.entropy = ulid.Monotonic(rand.Reader, 0)
	}
	ms := ulid.Timestamp(t)
	if last := g.last.Time(); ms < last && last-ms <= maxStepBack {
		ms = last
	}
	id, err := ulid.New(ms, g.entropy)
	if err != nil { // the millisecond's ids are used up: take the next one
		ms++
		id = ulid.MustNew(ms, g.entropy)
	}
	g.last = id
	return lowerID(PrefixChange, id), ulid.Time(ms).UTC()
}

// ChangeIDBound returns the smallest change id of time t's millisecond,
// rounded up: every record that occurred at or after t has an id ≥ it,
// every record before t a smaller one. Since and Until select by it.
func ChangeIDBound(t time.Time) string {
	if t.Before(time.UnixMilli(0)) {
		return PrefixChange + "0" // before every id
	}
	ms := ulid.Timestamp(t)
	if ulid.Time(ms).Before(t) {
		ms++
	}
	var id ulid.ULID
	if err := id.SetTime(ms); err != nil {
		return PrefixChange + "8" // after every id: ULIDs begin 0 to 7
	}
	return lowerID(PrefixChange, id)
}
