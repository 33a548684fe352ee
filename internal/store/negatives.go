package store

import (
	"context"
	"time"

	"github.com/adcamp/adcamp"
)

// NegativesTx is what the service needs of a transaction for negative
// keywords and shared negative lists (issue 35). A negative's parent is
// its ad group, its campaign or its list (adcamp.NegativeKeyword.ParentID).
type NegativesTx interface {
	// CreateNegatives stores a batch of negatives with few statements. A
	// negative whose text key is taken in its parent and match type fails
	// the whole call with DUPLICATE_KEYWORD.
	CreateNegatives(ctx context.Context, ns []*adcamp.NegativeKeyword) error
	// TakenNegativeKeys returns which of keys are already used in a
	// parent, other than by negative exceptID.
	TakenNegativeKeys(ctx context.Context, parentID, exceptID string, keys []KeywordKey) (map[KeywordKey]bool, error)
	GetNegative(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.NegativeKeyword, error)
	// ListNegatives returns a page of a parent's negatives, newest first,
	// and how many match q in all.
	ListNegatives(ctx context.Context, t adcamp.Tenant, parentID string, q ListQuery) ([]*adcamp.NegativeKeyword, int64, error)
	// UpdateNegative writes n's text, match type and status if its stored
	// version is n.Version-1 (else PRECONDITION_FAILED).
	UpdateNegative(ctx context.Context, n *adcamp.NegativeKeyword) error
	// DeleteNegatives removes those of ids that belong to parentID (every
	// parent's when it is "") and returns them as they were; ids not found
	// are left out.
	DeleteNegatives(ctx context.Context, t adcamp.Tenant, parentID string, ids []string) ([]*adcamp.NegativeKeyword, error)
	// NegativesUnder returns the negatives that go with a campaign (its
	// own and its ad groups') or with an ad group (campaignID ""), for the
	// history of a cascading delete.
	NegativesUnder(ctx context.Context, t adcamp.Tenant, campaignID, adGroupID string) ([]*adcamp.NegativeKeyword, error)
	// ActiveNegativeKeys returns the active negatives of a parent with
	// their stored text keys: what checking keywords against them needs,
	// without the rest of each row (a list holds up to 5,000).
	ActiveNegativeKeys(ctx context.Context, t adcamp.Tenant, parentID string) ([]NegativeKey, error)
	// CountNegatives counts a parent's negatives.
	CountNegatives(ctx context.Context, t adcamp.Tenant, parentID string) (int64, error)
	// ApplicableNegatives returns the active negatives that apply to the
	// keywords of an ad group: the ad group's own (unless adGroupID is
	// ""), its campaign's and those of the lists attached to the campaign.
	ApplicableNegatives(ctx context.Context, t adcamp.Tenant, campaignID, adGroupID string) ([]*adcamp.NegativeKeyword, error)
	// KeywordTexts returns the keywords of an ad group, or of every ad
	// group of the campaigns (adGroupID ""), active ones only if
	// activeOnly, in id order.
	KeywordTexts(ctx context.Context, t adcamp.Tenant, campaignIDs []string, adGroupID string, activeOnly bool) ([]KeywordText, error)
	// KeywordPlaces returns the ad group and campaign of each of ids that
	// exists for t.
	KeywordPlaces(ctx context.Context, t adcamp.Tenant, ids []string) (map[string]KeywordPlace, error)

	CreateNegativeList(ctx context.Context, l *adcamp.NegativeList) error
	// GetNegativeList returns a list with its counts of entries and
	// campaigns.
	GetNegativeList(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.NegativeList, error)
	ListNegativeLists(ctx context.Context, t adcamp.Tenant, q ListQuery) ([]*adcamp.NegativeList, int64, error)
	// UpdateNegativeList writes l's name and updated_at if its stored
	// version is l.Version-1 (else PRECONDITION_FAILED).
	UpdateNegativeList(ctx context.Context, l *adcamp.NegativeList) error
	DeleteNegativeList(ctx context.Context, t adcamp.Tenant, id string) error
	// AttachNegativeList attaches a list to a campaign and reports
	// whether it was not attached before.
	AttachNegativeList(ctx context.Context, campaignID, listID string, at time.Time) (bool, error)
	// DetachNegativeList reports whether the list was attached.
	DetachNegativeList(ctx context.Context, campaignID, listID string) (bool, error)
	// AttachedLists returns the ids of the lists attached to a campaign,
	// in id order.
	AttachedLists(ctx context.Context, campaignID string) ([]string, error)
	// CampaignsOfList returns the ids of the campaigns a list is attached
	// to, in id order.
	CampaignsOfList(ctx context.Context, listID string) ([]string, error)
}

// KeywordText is a keyword as the checks of negatives need it.
type KeywordText struct {
	ID        string
	AdGroupID string
	Text      string
	TextKey   string // adcamp.KeywordKey(Text), as stored
	Status    adcamp.Status
}

// NegativeKey is an active negative as the checks of keywords need it.
type NegativeKey struct {
	ID        string
	TextKey   string // adcamp.KeywordKey of its text, as stored
	MatchType adcamp.MatchType
}

// KeywordPlace is where a keyword sits.
type KeywordPlace struct {
	AdGroupID  string
	CampaignID string
}

// EffectiveNegatives returns, for each of keywordIDs that is t's, the
// active negatives that apply to it: its ad group's, its campaign's and
// those of the lists attached to its campaign, in id order (an empty,
// non-nil slice for none). Ids of no keyword of t are left out. It reads
// each ad group's negatives once, however many of its keywords are asked
// for; the serving feed calls it in its own transaction.
func EffectiveNegatives(ctx context.Context, tx Tx, t adcamp.Tenant, keywordIDs []string) (map[string][]*adcamp.NegativeKeyword, error) {
	places, err := tx.KeywordPlaces(ctx, t, keywordIDs)
	if err != nil {
		return nil, err
	}
	byGroup := make(map[string][]*adcamp.NegativeKeyword)
	out := make(map[string][]*adcamp.NegativeKeyword, len(places))
	for id, p := range places {
		ns, ok := byGroup[p.AdGroupID]
		if !ok {
			if ns, err = tx.ApplicableNegatives(ctx, t, p.CampaignID, p.AdGroupID); err != nil {
				return nil, err
			}
			if ns == nil {
				ns = []*adcamp.NegativeKeyword{}
			}
			byGroup[p.AdGroupID] = ns
		}
		out[id] = ns
	}
	return out, nil
}
