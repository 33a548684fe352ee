// Package store defines what the service needs from a database. Adapters
// (internal/sqlite, later internal/postgres) translate these calls into SQL
// and nothing more: validation, tenancy decisions, ids and secrets are the
// service's business.
package store

import (
	"context"
	"time"

	"github.com/adcamp/adcamp"
)

// Store is a database holding every account's data.
type Store interface {
	// Write runs fn in one read-write transaction, committed if fn returns
	// nil and rolled back otherwise (or if fn panics).
	Write(ctx context.Context, fn func(Tx) error) error
	// Read runs fn over a consistent read-only view.
	Read(ctx context.Context, fn func(Tx) error) error
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	Close() error
}

// Tx is the set of operations available inside a transaction. Lookups of
// a missing row return an *adcamp.Error with code NOT_FOUND.
type Tx interface {
	CreateAccount(ctx context.Context, a *adcamp.Account) error
	GetAccount(ctx context.Context, id string) (*adcamp.Account, error)

	// CreateChannelAccount stores c and sets its ID.
	CreateChannelAccount(ctx context.Context, c *adcamp.ChannelAccount) error
	GetChannelAccount(ctx context.Context, accountID string, id int64) (*adcamp.ChannelAccount, error)

	CreateKey(ctx context.Context, k *Key) error
	GetKey(ctx context.Context, id string) (*Key, error)
	ListKeys(ctx context.Context, accountID string) ([]*Key, error)
	// UpdateKey writes the mutable fields of k: secrets, disabled.
	UpdateKey(ctx context.Context, k *Key) error
	DeleteKey(ctx context.Context, id string) error
	// TouchKeys records last use times; unknown ids are ignored.
	TouchKeys(ctx context.Context, used map[string]time.Time) error

	CreateCampaign(ctx context.Context, c *adcamp.Campaign) error
	GetCampaign(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.Campaign, error)
	ListCampaigns(ctx context.Context, t adcamp.Tenant, q CampaignQuery) ([]*adcamp.Campaign, int64, error)
	// UpdateCampaign writes the mutable fields of c if its stored version
	// is c.Version-1; otherwise it returns PRECONDITION_FAILED.
	UpdateCampaign(ctx context.Context, c *adcamp.Campaign) error
	DeleteCampaign(ctx context.Context, t adcamp.Tenant, id string) error
}

// Key is a stored credential: its public record and its encrypted secrets.
type Key struct {
	adcamp.APIKey
	Secret         []byte // ciphertext of the current secret
	PreviousSecret []byte // ciphertext of the secret before the last roll, or nil
}

// CampaignQuery selects one page of a tenant's campaigns, newest first.
type CampaignQuery struct {
	// Status filters by effective status ("" for all). A campaign whose
	// end_date is before Today counts as ended.
	Status string
	Today  string // YYYY-MM-DD, UTC
	Limit  int
	Offset int
}
