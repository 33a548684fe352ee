package adcamp

import (
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// Webhooks: an account's endpoints receive its events, signed per the
// Standard Webhooks specification. An event is a change record (or, for
// a keyword batch, the records of one batch) delivered.

// PrefixWebhookEndpoint, PrefixEvent, PrefixDelivery and PrefixAttempt
// prefix the ids of webhook endpoints, events, deliveries (an event for
// one endpoint) and delivery attempts.
const (
	PrefixWebhookEndpoint = "whe_"
	PrefixEvent           = "evt_"
	PrefixDelivery        = "whd_"
	PrefixAttempt         = "wha_"
	// PrefixReportJob prefixes the ids of report jobs.
	PrefixReportJob = "rpj_"
)

// EntityWebhookEndpoint is the entity type of the change records of
// webhook endpoints.
const EntityWebhookEndpoint EntityType = "webhook_endpoint"

// The event types adcamp sends.
const (
	EventCampaignCreated     = "campaign.created"
	EventCampaignUpdated     = "campaign.updated"
	EventCampaignDeleted     = "campaign.deleted"
	EventCampaignEnded       = "campaign.ended"
	EventAdGroupCreated      = "ad_group.created"
	EventAdGroupUpdated      = "ad_group.updated"
	EventAdGroupDeleted      = "ad_group.deleted"
	EventKeywordCreated      = "keyword.created"
	EventKeywordBatchCreated = "keyword.batch_created"
	EventKeywordUpdated      = "keyword.updated"
	EventKeywordDeleted      = "keyword.deleted"
	EventAPIKeyDisabled      = "api_key.disabled"
	EventAPIKeyRolled        = "api_key.rolled"
	EventAPIKeyDeleted       = "api_key.deleted"
	// A campaign's serving status became budget_exhausted, or left it;
	// its spend today reached 50, 80 or 100 % of its daily budget.
	EventCampaignBudgetExhausted = "campaign.budget_exhausted"
	EventCampaignBudgetRestored  = "campaign.budget_restored"
	EventCampaignSpendThreshold  = "campaign.spend_threshold"
	// A report job ended: its file is ready, or it failed.
	EventReportJobDone   = "report_job.done"
	EventReportJobFailed = "report_job.failed"
	// EventTest is what "send a test event" sends; it goes to the one
	// endpoint asked, whatever its event types.
	EventTest = "webhook.test"
)

// EventTypes lists the event types an endpoint may subscribe to.
var EventTypes = []string{
	EventCampaignCreated, EventCampaignUpdated, EventCampaignDeleted, EventCampaignEnded,
	EventAdGroupCreated, EventAdGroupUpdated, EventAdGroupDeleted,
	EventKeywordCreated, EventKeywordBatchCreated, EventKeywordUpdated, EventKeywordDeleted,
	EventAPIKeyDisabled, EventAPIKeyRolled, EventAPIKeyDeleted,
	EventCampaignBudgetExhausted, EventCampaignBudgetRestored, EventCampaignSpendThreshold,
	EventReportJobDone, EventReportJobFailed,
}

// Why an endpoint was disabled (WebhookEndpoint.DisabledReason).
const (
	DisabledByUser    = "user"    // through the API, the console or the CLI
	DisabledGone      = "gone"    // it answered 410 Gone
	DisabledFailing   = "failing" // every delivery failed for 5 days
	WebhookSecretPref = "whsec_"  // the prefix of signing secrets
)

// How an endpoint's events are ordered (WebhookEndpoint.Ordering).
const (
	// OrderingNone sends events in the order they happened, but a failed
	// delivery waits for its retry while later events go on.
	OrderingNone = "none"
	// OrderingPerCampaign holds an event of a campaign back while an
	// earlier event of the same campaign is still being retried, so a
	// receiver sees each campaign's events in order. An event given up
	// on (retries exhausted) no longer holds the others back.
	OrderingPerCampaign = "per_campaign"
)

// Orderings lists the values of WebhookEndpoint.Ordering.
var Orderings = []string{OrderingNone, OrderingPerCampaign}

// WebhookEndpoint is where an account's events of one environment go.
type WebhookEndpoint struct {
	ID          string
	AccountID   string
	Environment Environment
	URL         string
	Description string
	// EventTypes filters the events sent; empty sends every type.
	EventTypes []string
	// Ordering is OrderingNone or OrderingPerCampaign.
	Ordering string
	Enabled  bool
	// DisabledReason says why a disabled endpoint is ("" when enabled).
	DisabledReason string
	// FailingSince is when the current run of failed deliveries began
	// (nil while the last delivery succeeded).
	FailingSince *time.Time
	// PreviousSecretExpiresAt is when the secret before the last rotation
	// stops signing (nil when there is none).
	PreviousSecretExpiresAt *time.Time
	CreatedAt               time.Time
	UpdatedAt               time.Time
}

// Takes reports whether an enabled endpoint is sent events of type typ.
func (e *WebhookEndpoint) Takes(typ string) bool {
	return e.Enabled && (len(e.EventTypes) == 0 || slices.Contains(e.EventTypes, typ))
}

// Event is one event of an account's environment, as sent: Payload is
// the JSON body {"id", "type", "timestamp", "data"}, the same on every
// attempt.
type Event struct {
	ID          string
	AccountID   string
	Environment Environment
	Type        string
	OccurredAt  time.Time
	// CampaignID is the campaign the event is about or under ("" for none).
	CampaignID string
	Payload    []byte
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed" // retries exhausted, or the endpoint is gone
)

// DeliveryAttempt is one attempt to deliver an event to an endpoint.
type DeliveryAttempt struct {
	ID          string
	AccountID   string
	EndpointID  string
	EventID     string
	EventType   string
	AttemptedAt time.Time
	// Status is the HTTP status answered (0 when no answer came).
	Status    int
	LatencyMS int64
	// Error says why an attempt without an answer failed.
	Error string
	// Response is the start of the answer's body (up to 1 KiB).
	Response string
	// Succeeded reports a 2xx answer.
	Succeeded bool
}

// IDTime returns the time of an id made of a prefix and a ULID (zero if
// it is not one).
func IDTime(id string) time.Time {
	_, rest, ok := strings.Cut(id, "_")
	if !ok {
		return time.Time{}
	}
	u, err := ulid.ParseStrict(rest)
	if err != nil {
		return time.Time{}
	}
	return ulid.Time(u.Time()).UTC()
}
