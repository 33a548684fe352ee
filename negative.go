package adcamp

import (
	"strings"
	"time"
)

// The prefixes of negative keywords' and shared negative lists' ids.
const (
	PrefixNegativeKeyword = "nkw_"
	PrefixNegativeList    = "nkl_"
)

// NegativeMatchTypes are the match types a negative keyword may have:
// exact and phrase (as Amazon's negatives, no broad).
var NegativeMatchTypes = []MatchType{MatchExact, MatchPhrase}

// Limits of negative keywords.
const (
	// MaxNegativeBatch is the largest number of negatives one request
	// creates (or adds to a list).
	MaxNegativeBatch = 1000
	// MaxNegativeListEntries is the most entries one shared list holds.
	MaxNegativeListEntries = 5000
	// MaxListsPerCampaign is the most shared lists one campaign has
	// attached.
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

// NegativeKeyword is a text for which a keyword's ads must not show. It
// belongs to exactly one parent: an ad group (AdGroupID set, and
// CampaignID its campaign), a campaign (CampaignID only) or a shared list
// (ListID only).
type NegativeKeyword struct {
	ID          string
	AccountID   string
	Environment Environment
	CampaignID  string
	AdGroupID   string
	ListID      string
	Text        string
	MatchType   MatchType // exact or phrase
	Status      Status    // active or paused
	Version     int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Level says what n belongs to.
func (n *NegativeKeyword) Level() NegativeLevel {
	switch {
	case n.ListID != "":
		return LevelList
	case n.AdGroupID != "":
		return LevelAdGroup
	default:
		return LevelCampaign
	}
}

// ParentID is the id of what n belongs to: its list, ad group or
// campaign. Texts are unique per parent and match type.
func (n *NegativeKeyword) ParentID() string {
	switch n.Level() {
	case LevelList:
		return n.ListID
	case LevelAdGroup:
		return n.AdGroupID
	default:
		return n.CampaignID
	}
}

// TextKey is the form of the text that uniqueness is decided on, as for
// keywords (KeywordKey).
func (n *NegativeKeyword) TextKey() string { return KeywordKey(n.Text) }

// Blocks reports whether the negative keeps a keyword of text keywordText
// from showing, whatever the keyword's own match type:
//   - exact: the keyword's text, folded as KeywordKey folds it, is the
//     negative's folded text;
//   - phrase: the negative's folded words appear in the keyword's folded
//     words, in order and next to each other ("red shoes" blocks "buy red
//     shoes now", not "red running shoes" nor "shoes red").
//
// Words are what KeywordKey separates by white space; nothing else
// (punctuation, plurals) is taken apart.
func (n *NegativeKeyword) Blocks(keywordText string) bool {
	return BlocksKey(n.MatchType, n.TextKey(), KeywordKey(keywordText))
}

// BlocksKey is Blocks over folded texts (KeywordKey).
func BlocksKey(m MatchType, negativeKey, keywordKey string) bool {
	if m == MatchExact {
		return negativeKey == keywordKey
	}
	if negativeKey == "" {
		return false
	}
	// Both are single-space separated: a whole-word match is a match of
	// the negative with a space (or an end) on either side.
	return strings.Contains(" "+keywordKey+" ", " "+negativeKey+" ")
}

// NegativeInput carries the fields of a negative keyword create or
// update request.
type NegativeInput struct {
	Text      Optional[string]
	MatchType Optional[MatchType]
	Status    Optional[Status]
	Version   Optional[int64]
	// Invalid lists problems found while reading the request (see
	// KeywordInput.Invalid).
	Invalid Issues
}

// NegativeFilter selects a page of a parent's negative keywords.
type NegativeFilter struct {
	Status    Status    // "" for all
	MatchType MatchType // "" for all
	Page      int
	PageSize  int
}

// NegativeResult is the outcome of one item of a negative keyword batch.
type NegativeResult struct {
	Negative *NegativeKeyword // set when the item was (or would be) created
	Err      error            // set when it was refused
}

// Blocked is a keyword that a negative keyword blocks: the warning a
// create or an attach answers with.
type Blocked struct {
	KeywordID string
	Text      string // the keyword's text
	// NegativeID is the negative that blocks it (the first found).
	NegativeID string
}

// NegativeList is a list of negative keywords an account shares across
// its campaigns in one environment.
type NegativeList struct {
	ID          string
	AccountID   string
	Environment Environment
	Name        string
	Entries     int64 // how many entries it holds (read-only)
	Campaigns   int64 // how many campaigns it is attached to (read-only)
	Version     int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// NegativeListInput carries the fields of a list create or update.
type NegativeListInput struct {
	Name    Optional[string]
	Version Optional[int64]
	Invalid Issues
}
