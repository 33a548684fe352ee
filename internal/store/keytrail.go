package store

import (
	"context"
	"time"
)

// KeyTrailKept is how many of its last uses a credential's trail keeps.
const KeyTrailKept = 100

// KeyUse is one use of a credential: when, from which client address, and
// on which route ("GET /api/v1/open/campaigns").
type KeyUse struct {
	KeyID   string
	At      time.Time
	Address string
	Route   string
}

// KeyTrailTx keeps the trail of each credential's last uses.
type KeyTrailTx interface {
	// AddKeyUses appends uses (oldest first) to their credentials' trails,
	// each trimmed to its newest KeyTrailKept; uses of unknown credentials
	// are ignored.
	AddKeyUses(ctx context.Context, uses []KeyUse) error
	// ListKeyUses returns a credential's trail, newest first.
	ListKeyUses(ctx context.Context, keyID string) ([]KeyUse, error)
}
