package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// WebhookEndpoint is where an environment's events are delivered, signed
// per the Standard Webhooks specification.
type WebhookEndpoint struct {
	ID          string `json:"id"`
	Environment string `json:"environment"`
	URL         string `json:"url"`
	// Description is "" for none (the API sends null).
	Description string `json:"description"`
	// EventTypes are the types delivered; empty for every type.
	EventTypes []string `json:"event_types"`
	// Ordering is "none" or "per_campaign" (an event of a campaign waits
	// while an earlier one of the same campaign is being retried).
	Ordering string `json:"ordering"`
	Enabled  bool   `json:"enabled"`
	// DisabledReason is user, gone (it answered 410) or failing (5 days
	// of failed deliveries); "" while enabled.
	DisabledReason          string     `json:"disabled_reason"`
	FailingSince            *time.Time `json:"failing_since"`
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at"`
	CreatedAt               time.Time  `json:"created_at"`
	UpdatedAt               time.Time  `json:"updated_at"`
	// Secret ("whsec_...") is set only in the answers of
	// CreateWebhookEndpoint and RotateWebhookSecret: keep it then.
	Secret string `json:"secret,omitzero"`
}

// WebhookEndpointCreate is the body of CreateWebhookEndpoint.
type WebhookEndpointCreate struct {
	URL         string   `json:"url"`
	Description string   `json:"description,omitzero"`
	EventTypes  []string `json:"event_types,omitzero"`
	// Ordering is "none" (the default, "") or "per_campaign".
	Ordering string `json:"ordering,omitzero"`
	// Enabled defaults to true (nil).
	Enabled *bool `json:"enabled,omitzero"`
}

// WebhookEndpointUpdate is the body of UpdateWebhookEndpoint: nil fields
// are left as they are.
type WebhookEndpointUpdate struct {
	URL         *string   `json:"url,omitzero"`
	Description *string   `json:"description,omitzero"`
	EventTypes  *[]string `json:"event_types,omitzero"`
	Ordering    *string   `json:"ordering,omitzero"`
	Enabled     *bool     `json:"enabled,omitzero"`
}

// Event is an event as delivered and as ListEvents gives it.
type Event struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	// Data is the change record (Change) for the events of entities, or
	// the batch of keyword.batch_created.
	Data json.RawMessage `json:"data"`
}

// EventPage is one page of events, newest first.
type EventPage struct {
	Items      []Event `json:"items"`
	NextCursor string  `json:"next_cursor"`
}

// EventListOptions filters and pages ListEvents; zero fields do not filter.
type EventListOptions struct {
	Types        []string
	Since, Until time.Time
	Cursor       string
	Limit        int // 1 to 200; the server's default (50) if zero
}

func (o *EventListOptions) values() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	if len(o.Types) > 0 {
		q.Set("type", strings.Join(o.Types, ","))
	}
	if !o.Since.IsZero() {
		q.Set("since", o.Since.UTC().Format(time.RFC3339Nano))
	}
	if !o.Until.IsZero() {
		q.Set("until", o.Until.UTC().Format(time.RFC3339Nano))
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	return q
}

// DeliveryAttempt is one entry of an endpoint's delivery log.
type DeliveryAttempt struct {
	ID          string    `json:"id"`
	EventID     string    `json:"event_id"`
	EventType   string    `json:"event_type"`
	AttemptedAt time.Time `json:"attempted_at"`
	// Status is the HTTP status answered, 0 when no answer came.
	Status    int    `json:"status"`
	LatencyMS int64  `json:"latency_ms"`
	Succeeded bool   `json:"succeeded"`
	Error     string `json:"error"`
	// Response is the first 1 KiB of the answer's body.
	Response string `json:"response"`
}

// DeliveryAttemptPage is one page of a delivery log, newest first.
type DeliveryAttemptPage struct {
	Items      []DeliveryAttempt `json:"items"`
	NextCursor string            `json:"next_cursor"`
}

// Queued is what QueueDeliveries queued.
type Queued struct {
	Queued      int    `json:"queued"`
	TestEventID string `json:"test_event_id,omitzero"`
}

// DeliveryRequest asks for deliveries to an endpoint: a test event, one
// event again, or every event of a time range again.
type DeliveryRequest struct {
	Test    bool       `json:"test,omitzero"`
	EventID string     `json:"event_id,omitzero"`
	Since   *time.Time `json:"since,omitzero"`
	Until   *time.Time `json:"until,omitzero"`
}

// CreateWebhookEndpoint adds an endpoint; its Secret is in this answer only.
func (c *Client) CreateWebhookEndpoint(ctx context.Context, in WebhookEndpointCreate) (*WebhookEndpoint, error) {
	return call[WebhookEndpoint](ctx, c, op{method: http.MethodPost, path: "webhook-endpoints", body: in})
}

// GetWebhookEndpoint returns an endpoint.
func (c *Client) GetWebhookEndpoint(ctx context.Context, id string) (*WebhookEndpoint, error) {
	return call[WebhookEndpoint](ctx, c, op{method: http.MethodGet, path: "webhook-endpoints/" + esc(id)})
}

// ListWebhookEndpoints returns the environment's endpoints, oldest first.
func (c *Client) ListWebhookEndpoints(ctx context.Context) ([]WebhookEndpoint, error) {
	p, err := call[struct {
		Items []WebhookEndpoint `json:"items"`
	}](ctx, c, op{method: http.MethodGet, path: "webhook-endpoints"})
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// UpdateWebhookEndpoint changes an endpoint's set fields.
func (c *Client) UpdateWebhookEndpoint(ctx context.Context, id string, in WebhookEndpointUpdate) (*WebhookEndpoint, error) {
	return call[WebhookEndpoint](ctx, c, op{method: http.MethodPut, path: "webhook-endpoints/" + esc(id), body: in})
}

// DeleteWebhookEndpoint deletes an endpoint with its deliveries and log.
func (c *Client) DeleteWebhookEndpoint(ctx context.Context, id string) (*DeleteResult, error) {
	return call[DeleteResult](ctx, c, op{method: http.MethodDelete, path: "webhook-endpoints/" + esc(id)})
}

// RotateWebhookSecret gives an endpoint a new secret (in the answer's
// Secret); the old one keeps signing too for grace (rounded down to the
// second; negative for the server's default, a day).
func (c *Client) RotateWebhookSecret(ctx context.Context, id string, grace time.Duration) (*WebhookEndpoint, error) {
	var body any = struct{}{}
	if grace >= 0 {
		body = struct {
			Grace int64 `json:"grace_seconds"`
		}{int64(grace / time.Second)}
	}
	return call[WebhookEndpoint](ctx, c, op{method: http.MethodPost, path: "webhook-endpoints/" + esc(id) + "/secret", body: body})
}

// QueueDeliveries sends a test event to an endpoint, or events again.
func (c *Client) QueueDeliveries(ctx context.Context, id string, in DeliveryRequest) (*Queued, error) {
	return call[Queued](ctx, c, op{method: http.MethodPost, path: "webhook-endpoints/" + esc(id) + "/deliveries", body: in})
}

// ListDeliveryAttempts returns one page of an endpoint's delivery log.
func (c *Client) ListDeliveryAttempts(ctx context.Context, id, cursor string, limit int) (*DeliveryAttemptPage, error) {
	q := url.Values{}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	return call[DeliveryAttemptPage](ctx, c, op{method: http.MethodGet, path: "webhook-endpoints/" + esc(id) + "/deliveries", query: q})
}

// ListEvents returns one page of the environment's events, newest first.
func (c *Client) ListEvents(ctx context.Context, opts *EventListOptions) (*EventPage, error) {
	return call[EventPage](ctx, c, op{method: http.MethodGet, path: "events", query: opts.values()})
}

// GetEvent returns an event.
func (c *Client) GetEvent(ctx context.Context, id string) (*Event, error) {
	return call[Event](ctx, c, op{method: http.MethodGet, path: "events/" + esc(id)})
}

// Events iterates over the events opts selects, newest first, a page of
// opts.Limit (200 if zero) at a time. An error is yielded once, and ends
// the iteration.
func (c *Client) Events(ctx context.Context, opts *EventListOptions) iter.Seq2[Event, error] {
	o := EventListOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Limit == 0 {
		o.Limit = maxChangeLimit
	}
	return func(yield func(Event, error) bool) {
		for {
			p, err := c.ListEvents(ctx, &o)
			if err != nil {
				yield(Event{}, err)
				return
			}
			for _, e := range p.Items {
				if !yield(e, nil) {
					return
				}
			}
			if p.NextCursor == "" {
				return
			}
			o.Cursor = p.NextCursor
		}
	}
}

// The errors of VerifyWebhook.
var (
	ErrWebhookHeaders   = errors.New("client: webhook: webhook-id, webhook-timestamp or webhook-signature missing or malformed")
	ErrWebhookTimestamp = errors.New("client: webhook: webhook-timestamp is more than 5 minutes from now")
	ErrWebhookSignature = errors.New("client: webhook: no signature matches")
)

// WebhookTolerance is how far webhook-timestamp may be from the
// receiver's clock.
const WebhookTolerance = 5 * time.Minute

// VerifyWebhook checks a delivery as the Standard Webhooks specification
// says, for a receiver: secret is the endpoint's "whsec_..." secret; the
// signature is HMAC-SHA256 over "webhook-id.webhook-timestamp.body",
// compared in constant time with each "v1,..." of webhook-signature;
// webhook-timestamp must be within WebhookTolerance of now. Pass the body
// exactly as received. Deduplicate deliveries by webhook-id: an event
// may arrive more than once.
func VerifyWebhook(secret string, header http.Header, body []byte, now time.Time) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return errors.New("client: webhook: the secret is not whsec_ and base64")
	}
	id, ts, sigs := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || sigs == "" || err != nil {
		return ErrWebhookHeaders
	}
	if d := now.Sub(time.Unix(sec, 0)); d > WebhookTolerance || d < -WebhookTolerance {
		return ErrWebhookTimestamp
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(sigs) {
		v, b64, ok := strings.Cut(sig, ",")
		if !ok || v != "v1" {
			continue
		}
		if got, err := base64.StdEncoding.DecodeString(b64); err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrWebhookSignature
}
