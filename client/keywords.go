package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// MaxBatch is the largest number of keywords one batch may create.
const MaxBatch = 1000

// Keyword is a search term of an ad group. Its text is unique in the ad
// group for its match type, ignoring case.
type Keyword struct {
	ID        string    `json:"id"`
	AdGroupID string    `json:"ad_group_id"`
	Text      string    `json:"text"`
	MatchType MatchType `json:"match_type"`
	// Bid is the keyword's own bid, or zero when it has none and the ad
	// group's DefaultBid applies.
	Bid       Money     `json:"bid"`
	Status    Status    `json:"status"`
	Version   int64     `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// KeywordCreate is a new keyword. A zero Bid is not sent (the ad group's
// default bid applies); an empty Status means active.
type KeywordCreate struct {
	Text      string    `json:"text"`
	MatchType MatchType `json:"match_type"`
	Bid       Money     `json:"bid,omitzero"`
	Status    Status    `json:"status,omitzero"`
}

// KeywordUpdate changes some fields of a keyword; nil and left-out fields
// stay as they are. Bid may be cleared with [Null], so that the ad
// group's default bid applies: client.KeywordUpdate{Bid: client.Null[client.Money]()}.
type KeywordUpdate struct {
	Text      *string         `json:"text,omitempty"`
	MatchType *MatchType      `json:"match_type,omitempty"`
	Bid       Nullable[Money] `json:"bid,omitzero"`
	Status    *Status         `json:"status,omitempty"`
}

// KeywordListOptions selects a page of an ad group's keywords.
type KeywordListOptions struct {
	ListOptions
	// Status, if set, keeps only keywords with this status.
	Status Status
	// MatchType, if set, keeps only keywords of this match type.
	MatchType MatchType
	// Blocked keeps only the keywords that an active negative keyword
	// blocks (of the ad group, its campaign or an attached list).
	Blocked bool
}

func (o *KeywordListOptions) values() url.Values {
	if o == nil {
		return nil
	}
	q := o.ListOptions.values()
	if o.Status != "" {
		q.Set("status", string(o.Status))
	}
	if o.MatchType != "" {
		q.Set("match_type", string(o.MatchType))
	}
	if o.Blocked {
		q.Set("blocked", "true")
	}
	return q
}

// KeywordBatchResult is the outcome of [Client.CreateKeywordsPartial].
type KeywordBatchResult struct {
	// Items has one result per keyword of the request, in request order.
	Items []KeywordResult
	// Created counts the keywords stored (or, with ValidateOnly, that
	// would have been); Failed counts the others.
	Created int
	Failed  int
}

// KeywordResult is the outcome of one keyword of a batch.
type KeywordResult struct {
	// Index is the keyword's position in the request, from 0.
	Index int
	// Status is the HTTP status the keyword would have had alone: 201
	// (200 with ValidateOnly), or 400 or 409.
	Status int
	// Keyword is the created keyword, or nil if it failed.
	Keyword *Keyword
	// Err is nil if the keyword was created, and otherwise an *Error
	// whose Details name fields relative to the item ("text"); test it
	// with the Is* predicates, such as [IsDuplicateKeyword].
	Err error
}

type keywordBatch struct {
	Items []KeywordCreate `json:"items"`
}

// wireBatchResult is the data of a 207 answer.
type wireBatchResult struct {
	Items []struct {
		Index  int        `json:"index"`
		Status int        `json:"status"`
		Data   *Keyword   `json:"data"`
		Error  *wireError `json:"error"`
	} `json:"items"`
	Created int `json:"created"`
	Failed  int `json:"failed"`
}

func keywordsPath(adGroupID string) string { return "ad-groups/" + esc(adGroupID) + "/keywords" }

// CreateKeyword creates one keyword in an ad group.
func (c *Client) CreateKeyword(ctx context.Context, adGroupID string, in KeywordCreate, opts *CreateOptions) (*Keyword, error) {
	return call[Keyword](ctx, c, op{method: http.MethodPost, path: keywordsPath(adGroupID), query: opts.values(), body: in})
}

// CreateKeywords creates 1 to [MaxBatch] keywords in an ad group, all or
// none: if any is invalid the error is a VALIDATION_ERROR whose Details
// name every bad item ("items[3].text"), if any is a duplicate it is a
// DUPLICATE_KEYWORD, and nothing is stored. The keywords come back in
// request order.
func (c *Client) CreateKeywords(ctx context.Context, adGroupID string, items []KeywordCreate, opts *CreateOptions) ([]Keyword, error) {
	out, err := call[struct {
		Items []Keyword `json:"items"`
	}](ctx, c, op{method: http.MethodPost, path: keywordsPath(adGroupID), query: opts.values(), body: keywordBatch{items}})
	if err != nil {
		return nil, err
	}
	return out.Items, nil
}

// CreateKeywordsPartial creates 1 to [MaxBatch] keywords in an ad group,
// storing the valid ones and reporting on each. The error is for the
// request as a whole (a missing ad group, an ended campaign, a bad
// number of items); each item's own outcome is in the result.
func (c *Client) CreateKeywordsPartial(ctx context.Context, adGroupID string, items []KeywordCreate, opts *CreateOptions) (*KeywordBatchResult, error) {
	q := opts.values()
	q.Set("partial_failure", "true")
	req, err := c.NewRequest(http.MethodPost, keywordsPath(adGroupID)+"?"+q.Encode(), keywordBatch{items})
	if err != nil {
		return nil, err
	}
	var w wireBatchResult
	resp, err := c.Do(ctx, req, &w)
	if err != nil {
		return nil, err
	}
	return w.result(resp.RequestID), nil
}

func (w *wireBatchResult) result(requestID string) *KeywordBatchResult {
	r := &KeywordBatchResult{Items: make([]KeywordResult, len(w.Items)), Created: w.Created, Failed: w.Failed}
	for i, it := range w.Items {
		r.Items[i] = KeywordResult{Index: it.Index, Status: it.Status, Keyword: it.Data}
		if it.Error != nil {
			r.Items[i].Err = it.Error.toError(it.Status, requestID)
		}
	}
	return r
}

// GetKeyword returns a keyword.
func (c *Client) GetKeyword(ctx context.Context, id string) (*Keyword, error) {
	return call[Keyword](ctx, c, op{method: http.MethodGet, path: "keywords/" + esc(id)})
}

// ListKeywords returns one page of an ad group's keywords, newest first.
func (c *Client) ListKeywords(ctx context.Context, adGroupID string, opts *KeywordListOptions) (*Page[Keyword], error) {
	return call[Page[Keyword]](ctx, c, op{method: http.MethodGet, path: keywordsPath(adGroupID), query: opts.values()})
}

// AllKeywords iterates over every keyword of an ad group matching
// opts.Status and opts.MatchType, newest first, fetching pages of 100.
func (c *Client) AllKeywords(ctx context.Context, adGroupID string, opts *KeywordListOptions) iter.Seq2[Keyword, error] {
	o := KeywordListOptions{}
	if opts != nil {
		o.Status, o.MatchType, o.Blocked = opts.Status, opts.MatchType, opts.Blocked
	}
	return all(func(page int) (*Page[Keyword], error) {
		o.ListOptions = ListOptions{Page: page, PageSize: allPageSize}
		return c.ListKeywords(ctx, adGroupID, &o)
	})
}

// UpdateKeyword changes a keyword and returns it as it now is.
func (c *Client) UpdateKeyword(ctx context.Context, id string, in KeywordUpdate, opts *UpdateOptions) (*Keyword, error) {
	return call[Keyword](ctx, c, op{method: http.MethodPut, path: "keywords/" + esc(id),
		query: opts.values(), body: in, ifMatch: opts.ifMatch()})
}

// DeleteKeyword deletes a keyword.
func (c *Client) DeleteKeyword(ctx context.Context, id string, opts *DeleteOptions) (*DeleteResult, error) {
	return call[DeleteResult](ctx, c, op{method: http.MethodDelete, path: "keywords/" + esc(id), ifMatch: opts.ifMatch()})
}
