package adcamp

import (
	"strings"
	"time"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Keyword match types.
const (
	MatchExact  = "exact"
	MatchPhrase = "phrase"
	MatchBroad  = "broad"
)

// MaxKeywordBatch is the largest number of keywords one request may create.
const MaxKeywordBatch = 1000

// Keyword belongs to an ad group.
type Keyword struct {
	ID          string
	AdGroupID   string
	AccountID   string
	Environment Environment
	Text        string
	MatchType   string
	Bid         *Money // nil: the ad group's default bid applies
	Status      string // active or paused
	Version     int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// TextKey is the form of the keyword's text that uniqueness is decided on.
func (k *Keyword) TextKey() string { return KeywordKey(k.Text) }

// KeywordKey folds keyword text for uniqueness: Unicode case folding (so
// "STRASSE", "straße" and "Straße" agree) after NFC normalisation, so the
// same text typed with combining marks or precomposed letters agrees too.
func KeywordKey(text string) string {
	return norm.NFC.String(cases.Fold().String(norm.NFC.String(strings.TrimSpace(text))))
}

// KeywordInput carries the fields of a keyword create or update request.
type KeywordInput struct {
	Text      Optional[string]
	MatchType Optional[string]
	Bid       Optional[string] // JSON number text; null means the ad group default
	Status    Optional[string]
	Version   Optional[int64]
	// Invalid lists problems found while reading the request or batch
	// item (unknown fields; in a batch also wrong types), reported with
	// the service's own findings.
	Invalid Issues
}

// KeywordFilter selects a page of an ad group's keywords.
type KeywordFilter struct {
	Status    string // "" for all
	MatchType string // "" for all
	Page      int
	PageSize  int
}

// BatchResult is the outcome of one item of a keyword batch.
type BatchResult struct {
	Keyword *Keyword // set when the item was (or would be) created
	Err     error    // set when it was refused
}
