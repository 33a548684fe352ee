package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/jsonwrite"
)

// ChangesTx is what the change history needs from a transaction.
type ChangesTx interface {
	// AddChanges stores change records (with few statements).
	AddChanges(ctx context.Context, cs []*adcamp.Change) error
	// ListChanges returns the records q selects, newest (greatest id)
	// first.
	ListChanges(ctx context.Context, q ChangeQuery) ([]*adcamp.Change, error)
	// PurgeChanges deletes at most limit records whose id is below before
	// (see adcamp.ChangeIDBound), oldest first, and says how many.
	PurgeChanges(ctx context.Context, before string, limit int) (int64, error)

	// Subtree returns what lies under a campaign, or under an ad group
	// (campaignID empty): its ad groups and their keywords, as a delete
	// leaves them last.
	Subtree(ctx context.Context, t adcamp.Tenant, campaignID, adGroupID string) ([]*adcamp.AdGroup, []*adcamp.Keyword, error)
	// DueCampaigns returns at most limit campaigns, of every account,
	// whose end date is before today and whose stored status is another.
	// PostgreSQL locks them for the transaction (and skips those another
	// transaction holds).
	DueCampaigns(ctx context.Context, today adcamp.Date, limit int) ([]*adcamp.Campaign, error)
	// SetCampaignsEnded stores the status ended for the campaigns of ids
	// (those DueCampaigns returned), leaving their version and updated_at:
	// their effective status was ended already, so nothing visible
	// changes.
	SetCampaignsEnded(ctx context.Context, ids []string) error
}

// ChangeQuery selects change records of one account.
type ChangeQuery struct {
	AccountID string
	// Environments lists the environments whose records are read: one,
	// and "" for the account's own records (members).
	Environments []adcamp.Environment
	EntityType   adcamp.EntityType // "" for all
	EntityID     string
	CampaignID   string
	AdGroupID    string
	ActorType    adcamp.ActorType
	ActorID      string
	// From and Before bound the ids: From ≤ id < Before ("" for no bound).
	From, Before string
	Limit        int
}

// EncodeFieldChanges writes the fields of a change as the JSON object the
// stores keep: {"field": {"old": ..., "new": ...}, ...}, in the order
// given, each value as text. A nil value is left out (a create's old
// values, a delete's new ones, a cleared field's): "old" and "new" read
// as null when absent, here and in every earlier version's
// DecodeFieldChanges, and the record is smaller (a campaign's create is a
// third shorter, which fills the history's pages more slowly).
func EncodeFieldChanges(fs []adcamp.FieldChange) []byte {
	b := make([]byte, 0, 32+40*len(fs))
	b = append(b, '{')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, f.Field)
		b = append(b, ':', '{')
		if f.Old != nil {
			b = appendString(append(b, `"old":`...), *f.Old)
		}
		if f.New != nil {
			if f.Old != nil {
				b = append(b, ',')
			}
			b = appendString(append(b, `"new":`...), *f.New)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendString(b []byte, s string) []byte {
	return jsonwrite.AppendString(b, s, jsonwrite.EncodingJSON)
}

// DecodeFieldChanges reads what EncodeFieldChanges wrote, keeping the
// fields' order; a value absent or null is nil.
func DecodeFieldChanges(b []byte) ([]adcamp.FieldChange, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("stored changes: not a JSON object")
	}
	var fs []adcamp.FieldChange
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("stored changes: %w", err)
		}
		name, _ := t.(string)
		var v struct{ Old, New *string }
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("stored changes: %w", err)
		}
		fs = append(fs, adcamp.FieldChange{Field: name, Old: v.Old, New: v.New})
	}
	return fs, nil
}
