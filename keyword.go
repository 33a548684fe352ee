package adcamp

import (
	"strings"
	"time"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// MatchType says how a keyword matches a search: exactly, as a phrase, or
// broadly.
type MatchType string

// The match types.
const (
	MatchExact  MatchType = "exact"
	MatchPhrase MatchType = "phrase"
	MatchBroad  MatchType = "broad"
)

// MatchTypes lists the match types in the order the API names them.
var MatchTypes = []MatchType{MatchExact, MatchPhrase, MatchBroad}

// MaxKeywordBatch is the largest number of keywords one request may create.
const MaxKeywordBatch = 1000

// Keyword belongs to an ad group.
type Keyword struct {
	ID          string
	AdGroupID   string
	AccountID   string
	Environment Environment
	Text        string
	MatchType   MatchType
	Bid         *Money // nil: the ad group's default bid applies
	Status      Status // active or paused
	Version     int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// TextKey is the form of the keyword's text that uniqueness is decided on.
func (k *Keyword) TextKey() string { return KeywordKey(k.Text) }

// KeywordKey folds keyword text for uniqueness, so that texts which read
// alike are one keyword: NFKC normalisation (combining marks and
// precomposed letters agree, and so do compatibility forms: "ＡＢＣ" and
// "ABC", "ﬁ" and "fi"), Unicode case folding ("STRASSE", "straße" and
// "Straße" agree), then every run of white space (no-break spaces
// included) as one ASCII space, with none at either end.
func KeywordKey(text string) string {
	s := norm.NFKC.String(cases.Fold().String(norm.NFKC.String(text)))
	return strings.Join(strings.Fields(s), " ")
}

// KeywordInput carries the fields of a keyword create or update request.
type KeywordInput struct {
	Text      Optional[string]
	MatchType Optional[MatchType]
	Bid       Optional[string] // JSON number text; null means the ad group default
	Status    Optional[Status]
	Version   Optional[int64]
	// Invalid lists problems found while reading the request or batch
	// item (unknown fields; in a batch also wrong types), reported with
	// the service's own findings.
	Invalid Issues
}

// KeywordFilter selects a page of an ad group's keywords.
type KeywordFilter struct {
	Status    Status    // "" for all
	MatchType MatchType // "" for all
	Page      int
	PageSize  int
}

// BatchResult is the outcome of one item of a keyword batch.
type BatchResult struct {
	Keyword *Keyword // set when the item was (or would be) created
	Err     error    // set when it was refused
}
