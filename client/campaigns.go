package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// ServingStatus is a campaign's serving status (Campaign.ServingStatus).
type ServingStatus string

// The serving statuses.
const (
	ServingServing         ServingStatus = "serving"
	ServingPaused          ServingStatus = "paused"
	ServingEnded           ServingStatus = "ended"
	ServingNotStarted      ServingStatus = "not_started"
	ServingBudgetExhausted ServingStatus = "budget_exhausted"
)

// Campaign is an advertising campaign on one marketplace.
type Campaign struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	BudgetDaily Money  `json:"budget_daily"`
	Marketplace string `json:"marketplace"`
	// ChannelAccountID is the channel account the campaign was created
	// with, or zero if it was created with a marketplace code.
	ChannelAccountID int64 `json:"channel_account_id,omitzero"`
	// StartDate and EndDate are zero when the campaign has none. Once the
	// end date has passed (UTC) the campaign is ended.
	StartDate Date           `json:"start_date"`
	EndDate   Date           `json:"end_date"`
	Status    CampaignStatus `json:"status"`
	// Notes is the account holder's own text on the campaign ("" when
	// there is none; the API sends null).
	Notes string `json:"notes"`
	// ServingStatus (read-only) says whether the campaign's keywords are
	// served now, on the account's day: serving, paused, ended,
	// not_started or budget_exhausted.
	ServingStatus ServingStatus `json:"serving_status"`
	// SpendToday (read-only) is what its keywords cost on the account's
	// today, from the marketplace's delivery figures.
	SpendToday Money `json:"spend_today"`
	// Version starts at 1 and grows with every update; pass it as
	// UpdateOptions.IfMatch or DeleteOptions.IfMatch to act only on
	// the version you read.
	Version   int64     `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// CampaignCreate is a new campaign. It takes one of two shapes: with a
// Marketplace code ("US"), or with the ChannelAccountID of one of the
// account's channel accounts (the campaign takes its marketplace). Both
// may be given if they agree. Zero dates are not sent.
type CampaignCreate struct {
	Name             string `json:"name"`
	BudgetDaily      Money  `json:"budget_daily"`
	Marketplace      string `json:"marketplace,omitzero"`
	ChannelAccountID int64  `json:"channel_account_id,omitzero"`
	StartDate        Date   `json:"start_date,omitzero"`
	EndDate          Date   `json:"end_date,omitzero"`
	// Notes is free text of at most 1,000 characters (line breaks allowed).
	Notes string `json:"notes,omitzero"`
}

// CampaignUpdate changes some fields of a campaign; nil and left-out
// fields stay as they are. StartDate and EndDate may also be cleared
// with [Null]: client.CampaignUpdate{EndDate: client.Null[client.Date]()}.
type CampaignUpdate struct {
	Name        *string         `json:"name,omitempty"`
	BudgetDaily *Money          `json:"budget_daily,omitempty"`
	StartDate   Nullable[Date]  `json:"start_date,omitzero"`
	EndDate     Nullable[Date]  `json:"end_date,omitzero"`
	Status      *CampaignStatus `json:"status,omitempty"`
	// Notes replaces the notes; [Null] (or an empty text) removes them.
	Notes Nullable[string] `json:"notes,omitzero"`
}

// CampaignListOptions selects a page of campaigns.
type CampaignListOptions struct {
	ListOptions
	// Status, if set, keeps only campaigns with this effective status.
	Status CampaignStatus
}

func (o *CampaignListOptions) values() url.Values {
	if o == nil {
		return nil
	}
	q := o.ListOptions.values()
	if o.Status != "" {
		q.Set("status", string(o.Status))
	}
	return q
}

// CreateCampaign creates a campaign, active.
// With opts.ValidateOnly it only validates, and returns the campaign as
// it would be, storing nothing.
func (c *Client) CreateCampaign(ctx context.Context, in CampaignCreate, opts *CreateOptions) (*Campaign, error) {
	return call[Campaign](ctx, c, op{method: http.MethodPost, path: "campaigns", query: opts.values(), body: in})
}

// GetCampaign returns a campaign.
func (c *Client) GetCampaign(ctx context.Context, id string) (*Campaign, error) {
	return call[Campaign](ctx, c, op{method: http.MethodGet, path: "campaigns/" + esc(id)})
}

// ListCampaigns returns one page of the account's campaigns, newest first.
func (c *Client) ListCampaigns(ctx context.Context, opts *CampaignListOptions) (*Page[Campaign], error) {
	return call[Page[Campaign]](ctx, c, op{method: http.MethodGet, path: "campaigns", query: opts.values()})
}

// AllCampaigns iterates over every campaign matching opts.Status, newest
// first, fetching pages of 100 as it goes (opts.Page and opts.PageSize
// are ignored). An error ends the iteration. Campaigns created while it
// runs may shift the pages, so it may yield one twice.
func (c *Client) AllCampaigns(ctx context.Context, opts *CampaignListOptions) iter.Seq2[Campaign, error] {
	o := CampaignListOptions{}
	if opts != nil {
		o.Status = opts.Status
	}
	return all(func(page int) (*Page[Campaign], error) {
		o.ListOptions = ListOptions{Page: page, PageSize: allPageSize}
		return c.ListCampaigns(ctx, &o)
	})
}

// UpdateCampaign changes a campaign and returns it as it now is.
func (c *Client) UpdateCampaign(ctx context.Context, id string, in CampaignUpdate, opts *UpdateOptions) (*Campaign, error) {
	return call[Campaign](ctx, c, op{method: http.MethodPut, path: "campaigns/" + esc(id),
		query: opts.values(), body: in, ifMatch: opts.ifMatch()})
}

// PauseCampaign sets an active campaign's status to paused.
func (c *Client) PauseCampaign(ctx context.Context, id string) (*Campaign, error) {
	return c.UpdateCampaign(ctx, id, CampaignUpdate{Status: Ptr(CampaignPaused)}, nil)
}

// ResumeCampaign sets a paused campaign's status back to active.
func (c *Client) ResumeCampaign(ctx context.Context, id string) (*Campaign, error) {
	return c.UpdateCampaign(ctx, id, CampaignUpdate{Status: Ptr(CampaignActive)}, nil)
}

// EndCampaign ends a campaign for good: an ended campaign accepts no
// change but delete, and nothing under it can change.
func (c *Client) EndCampaign(ctx context.Context, id string) (*Campaign, error) {
	return c.UpdateCampaign(ctx, id, CampaignUpdate{Status: Ptr(CampaignEnded)}, nil)
}

// DeleteCampaign deletes a campaign with its ad groups and keywords; the
// result counts them.
func (c *Client) DeleteCampaign(ctx context.Context, id string, opts *DeleteOptions) (*DeleteResult, error) {
	return call[DeleteResult](ctx, c, op{method: http.MethodDelete, path: "campaigns/" + esc(id), ifMatch: opts.ifMatch()})
}
