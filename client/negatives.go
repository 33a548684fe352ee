package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Limits of negative keywords and shared lists.
const (
	// MaxNegativeBatch is the largest number of negative keywords one
	// request creates, or removes from a list.
	MaxNegativeBatch = 1000
	// MaxListEntries is the most entries a shared list holds.
	MaxListEntries = 5000
	// MaxListsPerCampaign is the most shared lists a campaign has attached.
	MaxListsPerCampaign = 20
)

// NegativeLevel says what a negative keyword belongs to.
type NegativeLevel string

// The levels of negative keywords.
const (
	LevelAdGroup  NegativeLevel = "ad_group"
	LevelCampaign NegativeLevel = "campaign"
	LevelList     NegativeLevel = "list"
)

// NegativeKeyword keeps the ads of the keywords it applies to from showing
// for the searches it matches. It belongs to an ad group (AdGroupID and
// its CampaignID set), a campaign (CampaignID only) or a shared list
// (ListID only), as Level says. MatchType is MatchExact or MatchPhrase.
type NegativeKeyword struct {
	ID         string        `json:"id"`
	Level      NegativeLevel `json:"level"`
	CampaignID string        `json:"campaign_id"`
	AdGroupID  string        `json:"ad_group_id"`
	ListID     string        `json:"list_id"`
	Text       string        `json:"text"`
	MatchType  MatchType     `json:"match_type"`
	Status     Status        `json:"status"`
	Version    int64         `json:"version"`
	CreatedAt  time.Time     `json:"created_at"`
	UpdatedAt  time.Time     `json:"updated_at"`
}

// NegativeKeywordCreate is a new negative keyword; an empty Status means
// active.
type NegativeKeywordCreate struct {
	Text      string    `json:"text"`
	MatchType MatchType `json:"match_type"`
	Status    Status    `json:"status,omitzero"`
}

// NegativeKeywordUpdate changes a negative's status (its text and match
// type are fixed).
type NegativeKeywordUpdate struct {
	Status Status `json:"status"`
}

// Warning names an active keyword that an active negative keyword blocks:
// a create of negatives (or an attach of a list) that blocks one succeeds
// and says so.
type Warning struct {
	KeywordID         string `json:"keyword_id"`
	Text              string `json:"text"`
	NegativeKeywordID string `json:"negative_keyword_id"`
}

// NegativesCreated is the answer to a create of negatives.
type NegativesCreated struct {
	Items    []NegativeKeyword `json:"items"`
	Warnings []Warning         `json:"warnings"`
}

// NegativeBatchResult is the outcome of [Client.CreateNegativesPartial].
type NegativeBatchResult struct {
	// Items has one result per item of the request, in request order.
	Items    []NegativeResult
	Created  int
	Failed   int
	Warnings []Warning
}

// NegativeResult is the outcome of one item of a batch.
type NegativeResult struct {
	Index    int
	Status   int              // 201 (200 with ValidateOnly), or 400 or 409
	Negative *NegativeKeyword // nil if the item failed
	Err      error            // an *Error if the item failed
}

type wireNegativeBatch struct {
	Items []struct {
		Index  int              `json:"index"`
		Status int              `json:"status"`
		Data   *NegativeKeyword `json:"data"`
		Error  *wireError       `json:"error"`
	} `json:"items"`
	Created  int       `json:"created"`
	Failed   int       `json:"failed"`
	Warnings []Warning `json:"warnings"`
}

// NegativeListOptions selects a page of negative keywords.
type NegativeListOptions struct {
	ListOptions
	Status    Status
	MatchType MatchType
}

func (o *NegativeListOptions) values() url.Values {
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
	return q
}

// NegativeParent names where negatives live: use [AdGroupNegatives],
// [CampaignNegatives] or [ListEntries].
type NegativeParent struct{ path string }

// AdGroupNegatives names an ad group's negatives.
func AdGroupNegatives(adGroupID string) NegativeParent {
	return NegativeParent{"ad-groups/" + esc(adGroupID) + "/negative-keywords"}
}

// CampaignNegatives names a campaign's own negatives.
func CampaignNegatives(campaignID string) NegativeParent {
	return NegativeParent{"campaigns/" + esc(campaignID) + "/negative-keywords"}
}

// ListEntries names the entries of a shared list.
func ListEntries(listID string) NegativeParent {
	return NegativeParent{"negative-keyword-lists/" + esc(listID) + "/entries"}
}

// CreateNegatives creates 1 to [MaxNegativeBatch] negatives under p, all
// or none (as [Client.CreateKeywords]), and returns them in request order
// with the warnings.
func (c *Client) CreateNegatives(ctx context.Context, p NegativeParent, items []NegativeKeywordCreate, opts *CreateOptions) (*NegativesCreated, error) {
	return call[NegativesCreated](ctx, c, op{method: http.MethodPost, path: p.path, query: opts.values(),
		body: struct {
			Items []NegativeKeywordCreate `json:"items"`
		}{items}})
}

// CreateNegativesPartial stores the valid items of a batch and reports on
// each, as [Client.CreateKeywordsPartial].
func (c *Client) CreateNegativesPartial(ctx context.Context, p NegativeParent, items []NegativeKeywordCreate, opts *CreateOptions) (*NegativeBatchResult, error) {
	q := opts.values()
	q.Set("partial_failure", "true")
	w, err := call[wireNegativeBatch](ctx, c, op{method: http.MethodPost, path: p.path, query: q,
		body: struct {
			Items []NegativeKeywordCreate `json:"items"`
		}{items}})
	if err != nil {
		return nil, err
	}
	r := &NegativeBatchResult{Items: make([]NegativeResult, len(w.Items)), Created: w.Created, Failed: w.Failed, Warnings: w.Warnings}
	for i, it := range w.Items {
		r.Items[i] = NegativeResult{Index: it.Index, Status: it.Status, Negative: it.Data}
		if it.Error != nil {
			r.Items[i].Err = it.Error.toError(it.Status, "")
		}
	}
	return r, nil
}

// ListNegatives returns one page of p's negatives, newest first.
func (c *Client) ListNegatives(ctx context.Context, p NegativeParent, opts *NegativeListOptions) (*Page[NegativeKeyword], error) {
	return call[Page[NegativeKeyword]](ctx, c, op{method: http.MethodGet, path: p.path, query: opts.values()})
}

// AllNegatives iterates over every negative of p matching opts' filters.
func (c *Client) AllNegatives(ctx context.Context, p NegativeParent, opts *NegativeListOptions) iter.Seq2[NegativeKeyword, error] {
	o := NegativeListOptions{}
	if opts != nil {
		o.Status, o.MatchType = opts.Status, opts.MatchType
	}
	return all(func(page int) (*Page[NegativeKeyword], error) {
		o.ListOptions = ListOptions{Page: page, PageSize: allPageSize}
		return c.ListNegatives(ctx, p, &o)
	})
}

// GetNegative returns a negative keyword of any level.
func (c *Client) GetNegative(ctx context.Context, id string) (*NegativeKeyword, error) {
	return call[NegativeKeyword](ctx, c, op{method: http.MethodGet, path: "negative-keywords/" + esc(id)})
}

// UpdateNegative changes a negative's status.
func (c *Client) UpdateNegative(ctx context.Context, id string, in NegativeKeywordUpdate, opts *UpdateOptions) (*NegativeKeyword, error) {
	return call[NegativeKeyword](ctx, c, op{method: http.MethodPut, path: "negative-keywords/" + esc(id),
		query: opts.values(), body: in, ifMatch: opts.ifMatch()})
}

// DeleteNegative deletes a negative keyword of any level.
func (c *Client) DeleteNegative(ctx context.Context, id string, opts *DeleteOptions) (*DeleteResult, error) {
	return call[DeleteResult](ctx, c, op{method: http.MethodDelete, path: "negative-keywords/" + esc(id), ifMatch: opts.ifMatch()})
}

// NegativeList is a list of negative keywords shared across the
// campaigns of one environment.
type NegativeList struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Entries   int64     `json:"entries"`
	Campaigns int64     `json:"campaigns"`
	Version   int64     `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// NegativeListCreate is a new list.
type NegativeListCreate struct {
	Name string `json:"name"`
}

// NegativeListUpdate renames a list.
type NegativeListUpdate struct {
	Name string `json:"name"`
}

// Attachment is the answer to [Client.AttachList].
type Attachment struct {
	CampaignID string    `json:"campaign_id"`
	ListID     string    `json:"list_id"`
	Attached   bool      `json:"attached"`
	Warnings   []Warning `json:"warnings"`
}

// CreateNegativeList creates an empty shared list.
func (c *Client) CreateNegativeList(ctx context.Context, in NegativeListCreate, opts *CreateOptions) (*NegativeList, error) {
	return call[NegativeList](ctx, c, op{method: http.MethodPost, path: "negative-keyword-lists", query: opts.values(), body: in})
}

// GetNegativeList returns a list with its counts.
func (c *Client) GetNegativeList(ctx context.Context, id string) (*NegativeList, error) {
	return call[NegativeList](ctx, c, op{method: http.MethodGet, path: "negative-keyword-lists/" + esc(id)})
}

// ListNegativeLists returns one page of the lists, newest first.
func (c *Client) ListNegativeLists(ctx context.Context, opts *ListOptions) (*Page[NegativeList], error) {
	var q url.Values
	if opts != nil {
		q = opts.values()
	}
	return call[Page[NegativeList]](ctx, c, op{method: http.MethodGet, path: "negative-keyword-lists", query: q})
}

// AllNegativeLists iterates over every list.
func (c *Client) AllNegativeLists(ctx context.Context) iter.Seq2[NegativeList, error] {
	return all(func(page int) (*Page[NegativeList], error) {
		return c.ListNegativeLists(ctx, &ListOptions{Page: page, PageSize: allPageSize})
	})
}

// UpdateNegativeList renames a list.
func (c *Client) UpdateNegativeList(ctx context.Context, id string, in NegativeListUpdate, opts *UpdateOptions) (*NegativeList, error) {
	return call[NegativeList](ctx, c, op{method: http.MethodPut, path: "negative-keyword-lists/" + esc(id),
		query: opts.values(), body: in, ifMatch: opts.ifMatch()})
}

// DeleteNegativeList deletes a list with its entries, detaching it.
func (c *Client) DeleteNegativeList(ctx context.Context, id string, opts *DeleteOptions) (*DeleteResult, error) {
	return call[DeleteResult](ctx, c, op{method: http.MethodDelete, path: "negative-keyword-lists/" + esc(id), ifMatch: opts.ifMatch()})
}

// RemoveListEntries removes 1 to [MaxNegativeBatch] entries from a list by
// id, all or none.
func (c *Client) RemoveListEntries(ctx context.Context, listID string, ids []string) ([]string, error) {
	out, err := call[struct {
		Removed []string `json:"removed"`
	}](ctx, c, op{method: http.MethodDelete, path: "negative-keyword-lists/" + esc(listID) + "/entries",
		query: url.Values{"ids": {strings.Join(ids, ",")}}})
	if err != nil {
		return nil, err
	}
	return out.Removed, nil
}

func attachPath(campaignID, listID string) string {
	return "campaigns/" + esc(campaignID) + "/negative-keyword-lists/" + esc(listID)
}

// AttachList attaches a shared list to a campaign (again: no change).
func (c *Client) AttachList(ctx context.Context, campaignID, listID string) (*Attachment, error) {
	return call[Attachment](ctx, c, op{method: http.MethodPut, path: attachPath(campaignID, listID)})
}

// DetachList detaches a shared list from a campaign.
func (c *Client) DetachList(ctx context.Context, campaignID, listID string) error {
	_, err := call[DeleteResult](ctx, c, op{method: http.MethodDelete, path: attachPath(campaignID, listID)})
	return err
}

// AttachedLists returns the lists attached to a campaign.
func (c *Client) AttachedLists(ctx context.Context, campaignID string) ([]NegativeList, error) {
	out, err := call[struct {
		Items []NegativeList `json:"items"`
	}](ctx, c, op{method: http.MethodGet, path: "campaigns/" + esc(campaignID) + "/negative-keyword-lists"})
	if err != nil {
		return nil, err
	}
	return out.Items, nil
}
