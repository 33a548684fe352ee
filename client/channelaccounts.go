package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// ChannelAccount is a seller account of the account holder on one
// marketplace. A campaign may be created on it (CampaignCreate.ChannelAccountID).
type ChannelAccount struct {
	ID          int64     `json:"id"`
	Marketplace string    `json:"marketplace"`
	Name        string    `json:"name"`
	CreatedAt   time.Time `json:"created_at"`
}

// ListChannelAccounts returns one page of the account's channel accounts,
// newest first. They are the same from both environments.
func (c *Client) ListChannelAccounts(ctx context.Context, opts *ListOptions) (*Page[ChannelAccount], error) {
	var q url.Values
	if opts != nil {
		q = opts.values()
	}
	return call[Page[ChannelAccount]](ctx, c, op{method: http.MethodGet, path: "channel-accounts", query: q})
}

// AllChannelAccounts iterates over every channel account of the account.
func (c *Client) AllChannelAccounts(ctx context.Context) iter.Seq2[ChannelAccount, error] {
	return all(func(page int) (*Page[ChannelAccount], error) {
		return c.ListChannelAccounts(ctx, &ListOptions{Page: page, PageSize: allPageSize})
	})
}
