package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Change is the record of one change to one entity: a campaign, ad group
// or keyword, an API key, or a console member of the account.
type Change struct {
	// ID sorts by time; the history lists newest first by it.
	ID         string    `json:"id"`
	OccurredAt time.Time `json:"occurred_at"`
	// Environment is "production" or "sandbox", or "" for member records
	// (the API sends null: members belong to the account).
	Environment string `json:"environment"`
	// EntityType is campaign, ad_group, keyword, api_key or member.
	EntityType string `json:"entity_type"`
	EntityID   string `json:"entity_id"`
	// CampaignID is the campaign of an ad group or keyword record;
	// AdGroupID the ad group of a keyword record.
	CampaignID string `json:"campaign_id,omitzero"`
	AdGroupID  string `json:"ad_group_id,omitzero"`
	// Operation is create, update or delete.
	Operation string       `json:"operation"`
	Changes   FieldChanges `json:"changes"`
	Actor     Actor        `json:"actor"`
	// RequestID is the X-Request-Id of the request that made the change,
	// "" for the admin command line and the system.
	RequestID      string `json:"request_id"`
	IdempotencyKey string `json:"idempotency_key,omitzero"`
	// TransactionID is shared by every record of one request.
	TransactionID string `json:"transaction_id"`
}

// Actor is who made a change: Type api_key, user, admin or system, and
// the key, the console user's id, the operator's name, or "adcamp".
type Actor struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// FieldChange is a field's value before and after a change, as text
// ("25.00", "2026-01-31", "true": the API sends money and numbers as
// numbers, flags as booleans); nil for null. A create has Old nil, a
// delete New nil.
type FieldChange struct {
	Field string
	// Old and New are the values as text: a string as it is, a number or
	// a boolean as the API wrote it (money "25.00", a channel account
	// "12", "true"), nil for null.
	Old *string
	New *string
	// oldJSON and newJSON are the values as the API sent them, which
	// MarshalJSON writes back.
	oldJSON, newJSON json.RawMessage
}

// FieldChanges are the fields of a change in the order the API lists
// them (a JSON object of field to {"old", "new"}).
type FieldChanges []FieldChange

// UnmarshalJSON reads the object, keeping its order.
func (fs *FieldChanges) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return errors.New("client: changes: not a JSON object")
	}
	out := FieldChanges{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		var v struct{ Old, New json.RawMessage }
		if err := d.Decode(&v); err != nil {
			return err
		}
		name, _ := t.(string)
		f := FieldChange{Field: name, oldJSON: v.Old, newJSON: v.New}
		var err2 error
		if f.Old, err2 = valueText(v.Old); err2 != nil {
			return err2
		}
		if f.New, err2 = valueText(v.New); err2 != nil {
			return err2
		}
		out = append(out, f)
	}
	*fs = out
	return nil
}

// MarshalJSON writes the object the API sends.
func (fs FieldChanges) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(f.Field)
		v, err := json.Marshal(struct {
			Old any `json:"old"`
			New any `json:"new"`
		}{rawOr(f.oldJSON, f.Old), rawOr(f.newJSON, f.New)})
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ChangePage is one page of change records.
type ChangePage struct {
	Items []Change `json:"items"`
	// NextCursor fetches the next page (ChangeListOptions.Cursor); "" on
	// the last.
	NextCursor string `json:"next_cursor"`
}

// ChangeListOptions filters and pages the change history. Zero fields do
// not filter.
type ChangeListOptions struct {
	EntityType string // campaign, ad_group, keyword, api_key, member, negative_keyword, negative_keyword_list, webhook_endpoint, account
	EntityID   string
	// CampaignID keeps a campaign's records and those of everything under
	// it (ListChanges only; the per-entity calls take it from the path).
	CampaignID string
	ActorType  string // api_key, user, admin, system
	ActorID    string
	Since      time.Time // at or after
	Until      time.Time // before
	Cursor     string    // a page's NextCursor
	Limit      int       // 1 to 200; the server's default (50) if zero
}

func (o *ChangeListOptions) values() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	for name, v := range map[string]string{"entity_type": o.EntityType, "entity_id": o.EntityID,
		"campaign_id": o.CampaignID, "actor_type": o.ActorType, "actor_id": o.ActorID, "cursor": o.Cursor} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if !o.Since.IsZero() {
		q.Set("since", o.Since.UTC().Format(time.RFC3339Nano))
	}
	if !o.Until.IsZero() {
		q.Set("until", o.Until.UTC().Format(time.RFC3339Nano))
	}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	return q
}

// ListChanges returns one page of the account's change history in the
// key's environment (and the account's member records), newest first.
func (c *Client) ListChanges(ctx context.Context, opts *ChangeListOptions) (*ChangePage, error) {
	return call[ChangePage](ctx, c, op{method: http.MethodGet, path: "changes", query: opts.values()})
}

// ListCampaignChanges returns one page of the history of a campaign and
// everything under it; the campaign may have been deleted.
func (c *Client) ListCampaignChanges(ctx context.Context, id string, opts *ChangeListOptions) (*ChangePage, error) {
	return c.entityChanges(ctx, "campaigns/"+esc(id)+"/changes", opts)
}

// ListAdGroupChanges returns one page of the history of an ad group and
// its keywords.
func (c *Client) ListAdGroupChanges(ctx context.Context, id string, opts *ChangeListOptions) (*ChangePage, error) {
	return c.entityChanges(ctx, "ad-groups/"+esc(id)+"/changes", opts)
}

// ListKeywordChanges returns one page of the history of a keyword.
func (c *Client) ListKeywordChanges(ctx context.Context, id string, opts *ChangeListOptions) (*ChangePage, error) {
	return c.entityChanges(ctx, "keywords/"+esc(id)+"/changes", opts)
}

func (c *Client) entityChanges(ctx context.Context, path string, opts *ChangeListOptions) (*ChangePage, error) {
	q := opts.values()
	q.Del("entity_id")
	q.Del("campaign_id")
	return call[ChangePage](ctx, c, op{method: http.MethodGet, path: path, query: q})
}

// Changes iterates over the change history that opts selects, newest
// first, a page of opts.Limit (200 if zero) at a time from opts.Cursor.
// Pages are stable: changes made while it runs come in above the first
// page and are not yielded. An error is yielded once, and ends the
// iteration.
func (c *Client) Changes(ctx context.Context, opts *ChangeListOptions) iter.Seq2[Change, error] {
	return c.walkChanges(opts, func(o *ChangeListOptions) (*ChangePage, error) { return c.ListChanges(ctx, o) })
}

// CampaignChanges is Changes for a campaign and everything under it.
func (c *Client) CampaignChanges(ctx context.Context, id string, opts *ChangeListOptions) iter.Seq2[Change, error] {
	return c.walkChanges(opts, func(o *ChangeListOptions) (*ChangePage, error) { return c.ListCampaignChanges(ctx, id, o) })
}

// AdGroupChanges is Changes for an ad group and its keywords.
func (c *Client) AdGroupChanges(ctx context.Context, id string, opts *ChangeListOptions) iter.Seq2[Change, error] {
	return c.walkChanges(opts, func(o *ChangeListOptions) (*ChangePage, error) { return c.ListAdGroupChanges(ctx, id, o) })
}

// KeywordChanges is Changes for a keyword.
func (c *Client) KeywordChanges(ctx context.Context, id string, opts *ChangeListOptions) iter.Seq2[Change, error] {
	return c.walkChanges(opts, func(o *ChangeListOptions) (*ChangePage, error) { return c.ListKeywordChanges(ctx, id, o) })
}

// maxChangeLimit is the largest page of changes the API gives.
const maxChangeLimit = 200

func (c *Client) walkChanges(opts *ChangeListOptions, list func(*ChangeListOptions) (*ChangePage, error)) iter.Seq2[Change, error] {
	o := ChangeListOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Limit == 0 {
		o.Limit = maxChangeLimit
	}
	return func(yield func(Change, error) bool) {
		for {
			p, err := list(&o)
			if err != nil {
				yield(Change{}, err)
				return
			}
			for _, ch := range p.Items {
				if !yield(ch, nil) {
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

// valueText is a value of a field change as text: a JSON string's text,
// a number or a boolean as written, nil for null.
func valueText(raw json.RawMessage) (*string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return &s, nil
	}
	s := string(raw)
	return &s, nil
}

// rawOr is the value as the API sent it if known, else the text.
func rawOr(raw json.RawMessage, text *string) any {
	if len(raw) > 0 {
		return raw
	}
	return text
}
