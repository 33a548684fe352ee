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
	DeliveryKeyword
	Impressions, Clicks, Orders int64
	Cost, Sales                 adcamp.Money
}
