package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// Date is a calendar date (YYYY-MM-DD), interpreted in UTC by the API.
// The zero Date means "no date": it is written to JSON as null, and null
// is read as the zero Date.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// ParseDate parses a date in the form 2026-12-31.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("client: parse date %q: want YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// IsZero reports whether d is the zero Date (no date).
func (d Date) IsZero() bool { return d == Date{} }

// String formats d as YYYY-MM-DD, and the zero Date as "".
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// Time returns midnight UTC at the start of d.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// MarshalJSON writes d as "YYYY-MM-DD", or null for the zero Date.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	return strconv.AppendQuote(nil, d.String()), nil
}

// UnmarshalJSON reads "YYYY-MM-DD"; null gives the zero Date.
func (d *Date) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = Date{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("client: a date must be a JSON string: %w", err)
	}
	v, err := ParseDate(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Nullable is a field of an update that can be left out, set to a value,
// or set explicitly to null (which clears it on the server). The zero
// value is "left out": the field is not sent at all.
//
//	client.CampaignUpdate{EndDate: client.Null[client.Date]()}   // clear the end date
//	client.KeywordUpdate{Bid: client.Set(client.USD("0.90"))}    // set a bid
//	client.KeywordUpdate{Bid: client.Null[client.Money]()}       // back to the ad group's default bid
//
// Struct fields of this type must carry the omitzero JSON option, as the
// update types of this package do, so that "left out" is not sent.
type Nullable[T any] struct {
	value T
	state nullState
}

type nullState uint8

const (
	absent nullState = iota
	null
	present
)

// Set returns a Nullable that sends v.
func Set[T any](v T) Nullable[T] { return Nullable[T]{value: v, state: present} }

// Null returns a Nullable that sends an explicit null.
func Null[T any]() Nullable[T] { return Nullable[T]{state: null} }

// IsZero reports whether n is left out (neither a value nor null).
func (n Nullable[T]) IsZero() bool { return n.state == absent }

// IsNull reports whether n is an explicit null.
func (n Nullable[T]) IsNull() bool { return n.state == null }

// Get returns n's value and whether it has one.
func (n Nullable[T]) Get() (T, bool) { return n.value, n.state == present }

// String formats n as its value, "null", or "absent".
func (n Nullable[T]) String() string {
	switch n.state {
	case present:
		return fmt.Sprint(n.value)
	case null:
		return "null"
	}
	return "absent"
}

// MarshalJSON writes the value, or null. A left-out Nullable is also
// written as null if it is marshalled without omitzero.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.state != present {
		return []byte("null"), nil
	}
	return json.Marshal(n.value)
}

// UnmarshalJSON reads a value, or null.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*n = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*n = Set(v)
	return nil
}

// Ptr returns a pointer to v, for the optional fields of update types:
// client.CampaignUpdate{Name: client.Ptr("Summer sale")}.
func Ptr[T any](v T) *T { return &v }

// CampaignStatus is the state of a campaign.
type CampaignStatus string

// Campaign statuses. A new campaign is active; active and paused go
// either way; either may end; ended is final.
const (
	CampaignActive CampaignStatus = "active"
	CampaignPaused CampaignStatus = "paused"
	CampaignEnded  CampaignStatus = "ended"
)

// Status is the state of an ad group or a keyword.
type Status string

// Ad group and keyword statuses.
const (
	StatusActive Status = "active"
	StatusPaused Status = "paused"
)

// MatchType says how a keyword matches searches.
type MatchType string

// Match types.
const (
	MatchExact  MatchType = "exact"
	MatchPhrase MatchType = "phrase"
	MatchBroad  MatchType = "broad"
)

// Page is one page of a list, newest first.
type Page[T any] struct {
	Items      []T   `json:"items"`
	Page       int   `json:"page"`
	PageSize   int   `json:"page_size"`
	TotalItems int64 `json:"total_items"` // items matching the filters, on all pages
	TotalPages int64 `json:"total_pages"`
}

// ListOptions selects a page. Zero fields take the API's defaults
// (page 1, 20 items); PageSize may be at most 100.
type ListOptions struct {
	Page     int
	PageSize int
}

func (o ListOptions) values() url.Values {
	q := url.Values{}
	if o.Page > 0 {
		q.Set("page", strconv.Itoa(o.Page))
	}
	if o.PageSize > 0 {
		q.Set("page_size", strconv.Itoa(o.PageSize))
	}
	return q
}

// CreateOptions modifies a create.
type CreateOptions struct {
	// ValidateOnly asks the server to validate the request fully and
	// answer with the would-be result, storing nothing.
	ValidateOnly bool
}

func (o *CreateOptions) values() url.Values {
	q := url.Values{}
	if o != nil && o.ValidateOnly {
		q.Set("validate_only", "true")
	}
	return q
}

// UpdateOptions modifies an update.
type UpdateOptions struct {
	// IfMatch, when not zero, is the version the entity must still have
	// (sent as If-Match); otherwise the update fails with 412
	// PRECONDITION_FAILED ([IsPreconditionFailed]) and nothing changes.
	// (If the answer to a first attempt is lost and the client retries,
	// the retry may find the version it made itself and answer 412.)
	IfMatch int64
	// ValidateOnly asks the server to validate the update fully and
	// answer with the would-be result, storing nothing.
	ValidateOnly bool
}

func (o *UpdateOptions) values() url.Values {
	if o == nil {
		return nil
	}
	return (&CreateOptions{ValidateOnly: o.ValidateOnly}).values()
}

func (o *UpdateOptions) ifMatch() int64 {
	if o == nil {
		return 0
	}
	return o.IfMatch
}

// DeleteOptions modifies a delete.
type DeleteOptions struct {
	// IfMatch, when not zero, is the version the entity must still have;
	// otherwise the delete fails with 412 and nothing is deleted.
	IfMatch int64
}

func (o *DeleteOptions) ifMatch() int64 {
	if o == nil {
		return 0
	}
	return o.IfMatch
}

// DeleteResult is the answer to a delete.
type DeleteResult struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
	// DeletedAdGroups counts the ad groups deleted with a campaign.
	DeletedAdGroups int64 `json:"deleted_ad_groups"`
	// DeletedKeywords counts the keywords deleted with a campaign or an
	// ad group.
	DeletedKeywords int64 `json:"deleted_keywords"`
}
