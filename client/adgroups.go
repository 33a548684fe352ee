package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// AdGroup is a group of keywords under a campaign.
type AdGroup struct {
	ID         string `json:"id"`
	CampaignID string `json:"campaign_id"`
	Name       string `json:"name"`
	// DefaultBid is the bid of the ad group's keywords that have none.
	DefaultBid Money     `json:"default_bid"`
	Status     Status    `json:"status"`
	Version    int64     `json:"version"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// AdGroupCreate is a new ad group. Status may be left empty (active).
type AdGroupCreate struct {
	Name       string `json:"name"`
	DefaultBid Money  `json:"default_bid"`
	Status     Status `json:"status,omitzero"`
}

// AdGroupUpdate changes some fields of an ad group; nil fields stay as
// they are.
type AdGroupUpdate struct {
	Name       *string `json:"name,omitempty"`
	DefaultBid *Money  `json:"default_bid,omitempty"`
	Status     *Status `json:"status,omitempty"`
}

// AdGroupListOptions selects a page of a campaign's ad groups.
type AdGroupListOptions struct {
	ListOptions
	// Status, if set, keeps only ad groups with this status.
	Status Status
}

func (o *AdGroupListOptions) values() url.Values {
	if o == nil {
		return nil
	}
	q := o.ListOptions.values()
	if o.Status != "" {
		q.Set("status", string(o.Status))
	}
	return q
}

// CreateAdGroup creates an ad group under a campaign.
func (c *Client) CreateAdGroup(ctx context.Context, campaignID string, in AdGroupCreate, opts *CreateOptions) (*AdGroup, error) {
	return call[AdGroup](ctx, c, op{method: http.MethodPost, path: "campaigns/" + esc(campaignID) + "/ad-groups",
		query: opts.values(), body: in})
}

// GetAdGroup returns an ad group.
func (c *Client) GetAdGroup(ctx context.Context, id string) (*AdGroup, error) {
	return call[AdGroup](ctx, c, op{method: http.MethodGet, path: "ad-groups/" + esc(id)})
}

// ListAdGroups returns one page of a campaign's ad groups, newest first.
func (c *Client) ListAdGroups(ctx context.Context, campaignID string, opts *AdGroupListOptions) (*Page[AdGroup], error) {
	return call[Page[AdGroup]](ctx, c, op{method: http.MethodGet, path: "campaigns/" + esc(campaignID) + "/ad-groups",
		query: opts.values()})
}

// AllAdGroups iterates over every ad group of a campaign matching
// opts.Status, newest first, fetching pages of 100 as it goes.
func (c *Client) AllAdGroups(ctx context.Context, campaignID string, opts *AdGroupListOptions) iter.Seq2[AdGroup, error] {
	o := AdGroupListOptions{}
	if opts != nil {
		o.Status = opts.Status
	}
	return all(func(page int) (*Page[AdGroup], error) {
		o.ListOptions = ListOptions{Page: page, PageSize: allPageSize}
		return c.ListAdGroups(ctx, campaignID, &o)
	})
}

// UpdateAdGroup changes an ad group and returns it as it now is.
func (c *Client) UpdateAdGroup(ctx context.Context, id string, in AdGroupUpdate, opts *UpdateOptions) (*AdGroup, error) {
	return call[AdGroup](ctx, c, op{method: http.MethodPut, path: "ad-groups/" + esc(id),
		query: opts.values(), body: in, ifMatch: opts.ifMatch()})
}

// DeleteAdGroup deletes an ad group with its keywords; the result counts
// the keywords.
func (c *Client) DeleteAdGroup(ctx context.Context, id string, opts *DeleteOptions) (*DeleteResult, error) {
	return call[DeleteResult](ctx, c, op{method: http.MethodDelete, path: "ad-groups/" + esc(id), ifMatch: opts.ifMatch()})
}
