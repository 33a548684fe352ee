package store

import (
	"context"
	"time"

	"github.com/adcamp/adcamp"
)

// OperatorTx is what the marketplace's side (the operator listener) needs
// of a transaction: its credentials, accounts' time zones, and the
// delivery figures its ad server reports.
type OperatorTx interface {
	CreateOperatorKey(ctx context.Context, k *OperatorKey) error
	GetOperatorKey(ctx context.Context, id string) (*OperatorKey, error)
	// ListOperatorKeys returns every operator key, oldest first.
	ListOperatorKeys(ctx context.Context) ([]*OperatorKey, error)
	// SetOperatorKeyDisabled returns NOT_FOUND for an unknown id.
	SetOperatorKeyDisabled(ctx context.Context, id string, disabled bool) error
	DeleteOperatorKey(ctx context.Context, id string) error

	// SetAccountTimeZone sets an account's IANA time zone.
	SetAccountTimeZone(ctx context.Context, id, zone string) error

	// DeliveryKeywords returns, of ids, the keywords that exist, with
	// where they lie (any environment: the caller checks).
	DeliveryKeywords(ctx context.Context, ids []string) (map[string]DeliveryKeyword, error)
	// PutDelivery stores rows, each replacing the figures of its
	// (keyword, hour), and keeps campaign_hour_spend equal to the sum of
	// cost per campaign and hour.
	PutDelivery(ctx context.Context, rows []DeliveryRow, now time.Time) error
	// CampaignSpend returns the cost of each of campaignIDs over the
	// hours in [from, to).
	CampaignSpend(ctx context.Context, campaignIDs []string, from, to time.Time) (map[string]adcamp.Money, error)
	// GetCampaignSpend is GetCampaign with the campaign's CampaignSpend
	// over [from, to), read in one statement (a campaign's get answers
	// both).
	GetCampaignSpend(ctx context.Context, t adcamp.Tenant, id string, from, to time.Time) (*adcamp.Campaign, adcamp.Money, error)
	// ListCampaignsSpend is ListCampaigns with each campaign's
	// CampaignSpend over [from, to), in the page's order (a list of
	// campaigns answers both).
	ListCampaignsSpend(ctx context.Context, t adcamp.Tenant, q ListQuery, from, to time.Time) ([]*adcamp.Campaign, []adcamp.Money, int64, error)
	// DeleteCampaignDelivery removes the delivery figures of a campaign's
	// keywords and its spend (the sandbox's reset: elsewhere figures
	// outlive what they describe, for reports).
	DeleteCampaignDelivery(ctx context.Context, campaignID string) error

	FeedTx
}

// OperatorKey is a credential of the marketplace's ad server.
type OperatorKey struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Disabled   bool       `json:"disabled"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	Secret     []byte     `json:"-"` // ciphertext
}

// DeliveryKeyword is where a keyword lies, as a delivery row records it.
type DeliveryKeyword struct {
	AccountID   string
	Environment adcamp.Environment
	CampaignID  string
	AdGroupID   string
}

// DeliveryRow is what an ad server served of one keyword in one hour.
type DeliveryRow struct {
	KeywordID string
	Hour      time.Time // on the hour, UTC
	// Day is the account's date of Hour (YYYYMMDD, DayNumber), in its
	// time zone at the ingest: the day of delivery_days the row is added
	// to. 0 leaves the row undated, for the background roll-up.
	Day int32
	DeliveryKeyword
	Impressions, Clicks, Orders int64
	Cost, Sales                 adcamp.Money
}

// FeedTx is the serving feed's journal (docs/operator.md): rows naming
// what each change touched, read back after a position.
type FeedTx interface {
	// AppendFeed adds rows, in the order given, to the journal.
	AppendFeed(ctx context.Context, rows []FeedRow, now time.Time) error
	// FeedHead returns the position that a read made in this (read)
	// transaction reflects: ReadFeed after it returns only rows that
	// this transaction does not see (and maybe, on PostgreSQL, some it
	// does, which the reader answers again, harmlessly).
	FeedHead(ctx context.Context) (int64, error)
	// ReadFeed returns the rows of env after position after, and the
	// position they bring the reader to: up to the head of the journal
	// that this transaction sees if until is 0, else up to until (a
	// position an earlier ReadFeed returned), so that a reader can read
	// one stretch of the journal again, page by page.
	ReadFeed(ctx context.Context, env adcamp.Environment, after, until int64) ([]FeedRow, int64, error)
	// PurgeFeed deletes the rows written before cutoff and returns the
	// position below which rows are gone (0 if none ever were).
	PurgeFeed(ctx context.Context, cutoff time.Time) (int64, error)
	// ScanServing calls fn with each keyword of env in scope (scope.All:
	// every keyword whose own, ad group's and campaign's statuses are
	// active), with what deciding its servability needs. fn's keyword is
	// reused.
	ScanServing(ctx context.Context, env adcamp.Environment, scope FeedScope, fn func(*ServingKeyword) error) error
	// RecentSpend returns the cost per campaign and hour since since of
	// the campaigns named (of env's every campaign when campaignIDs is
	// nil: a snapshot's).
	RecentSpend(ctx context.Context, env adcamp.Environment, since time.Time, campaignIDs []string) ([]CampaignHourCost, error)
	// AccountZones returns every account's id and time zone.
	AccountZones(ctx context.Context) (map[string]string, error)
	// ScanServingNegatives calls fn with each active negative keyword
	// of env (of those of ids only, unless all), of every level. fn's
	// negative is reused.
	ScanServingNegatives(ctx context.Context, env adcamp.Environment, ids []string, all bool, fn func(*ServingNegative) error) error
	// ScanListAttachments calls fn with the lists attached to env's
	// campaigns (to campaignIDs only, unless all), in campaign then list
	// id order.
	ScanListAttachments(ctx context.Context, env adcamp.Environment, campaignIDs []string, all bool, fn func(ListAttachment) error) error
}

// ServingNegative is an active negative as the serving feed needs it: one
// of CampaignID (with AdGroupID for an ad group's) and ListID is set.
type ServingNegative struct {
	ID, CampaignID, AdGroupID, ListID string
	Text                              string
	MatchType                         adcamp.MatchType
}

// ListAttachment is a list attached to a campaign.
type ListAttachment struct {
	CampaignID, ListID string
}

// The kinds of feed rows: what a change touched.
const (
	FeedKeyword  = "keyword"
	FeedAdGroup  = "ad_group"
	FeedCampaign = "campaign"
	FeedAccount  = "account"
	// FeedNegative names a negative keyword (of any level), FeedLists a
	// campaign whose attached lists changed: the feed carries both as
	// records of their own, which keywords do not repeat.
	FeedNegative = "negative"
	FeedLists    = "lists"
)

// FeedRow is one row of the serving feed's journal.
type FeedRow struct {
	Environment adcamp.Environment
	Kind        string // FeedKeyword...
	EntityID    string
}

// FeedScope selects keywords by id or by what they lie under, or All the
// active ones.
type FeedScope struct {
	All                                             bool
	KeywordIDs, AdGroupIDs, CampaignIDs, AccountIDs []string
}

// ServingKeyword is a keyword with what lies above it.
type ServingKeyword struct {
	ID, Text        string
	MatchType       adcamp.MatchType
	Bid             *adcamp.Money
	Status          adcamp.Status
	AdGroupID       string
	DefaultBid      adcamp.Money
	AdGroupStatus   adcamp.Status
	Campaign        adcamp.Campaign // ID, AccountID, BudgetDaily, Marketplace, ChannelAccountID, dates, Status
	AccountTimeZone string
}

// CampaignHourCost is a campaign's cost in one hour.
type CampaignHourCost struct {
	CampaignID string
	Hour       time.Time
	Cost       adcamp.Money
}
