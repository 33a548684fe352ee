// Package store defines what the service needs from a database. Adapters
// (internal/sqlite, internal/postgres) translate these calls into SQL
// and nothing more: validation, tenancy decisions, ids and secrets are the
// service's business.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/adcamp/adcamp"
)

// Store is a database holding every account's data.
type Store interface {
	// Write runs fn in one read-write transaction, committed if fn returns
	// nil and rolled back otherwise (or if fn panics). A store may run fn
	// again after a serialization failure, so fn must not keep state from
	// an earlier run.
	Write(ctx context.Context, fn func(Tx) error) error
	// Read runs fn over a consistent read-only view.
	Read(ctx context.Context, fn func(Tx) error) error
	// ReadOne is Read for an fn that makes exactly one call on its Tx. A
	// store may run it without a transaction: one call is consistent on
	// its own (a single statement is its own view; a call of several
	// statements opens a transaction for them).
	ReadOne(ctx context.Context, fn func(Tx) error) error
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	Close() error
}

// Tx is the set of operations available inside a transaction. Lookups of
// a missing row return an *adcamp.Error with code NOT_FOUND.
type Tx interface {
	ConsoleTx
	ChangesTx
	OperatorTx
	ReportTx
	ReportJobsTx
	KeyTrailTx
	NegativesTx
	WebhooksTx
	CreateAccount(ctx context.Context, a *adcamp.Account) error
	GetAccount(ctx context.Context, id string) (*adcamp.Account, error)

	// CreateChannelAccount stores c and sets its ID.
	CreateChannelAccount(ctx context.Context, c *adcamp.ChannelAccount) error
	GetChannelAccount(ctx context.Context, accountID string, id int64) (*adcamp.ChannelAccount, error)

	CreateCredential(ctx context.Context, k *Credential) error
	GetCredential(ctx context.Context, id string) (*Credential, error)
	ListCredentials(ctx context.Context, accountID string) ([]*Credential, error)
	// UpdateCredential writes the mutable fields of k: secrets, disabled,
	// scopes and limits.
	UpdateCredential(ctx context.Context, k *Credential) error
	DeleteCredential(ctx context.Context, id string) error
	// TouchCredentials records last use times; unknown ids are ignored.
	TouchCredentials(ctx context.Context, used map[string]time.Time) error
	// AllCredentials returns every credential, of every account (for the
	// checks the service makes at start).
	AllCredentials(ctx context.Context) ([]*Credential, error)

	// GetSetting returns the value of an installation setting, or
	// NOT_FOUND.
	GetSetting(ctx context.Context, name string) ([]byte, error)
	// AddSetting stores a setting unless one of that name exists, and
	// reports whether it stored it.
	AddSetting(ctx context.Context, name string, value []byte) (bool, error)
	// SetSetting stores a setting, replacing any of that name.
	SetSetting(ctx context.Context, name string, value []byte) error

	CreateCampaign(ctx context.Context, c *adcamp.Campaign) error
	GetCampaign(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.Campaign, error)
	ListCampaigns(ctx context.Context, t adcamp.Tenant, q ListQuery) ([]*adcamp.Campaign, int64, error)
	// UpdateCampaign writes the mutable fields of c if its stored version
	// is c.Version-1; otherwise it returns PRECONDITION_FAILED. prev, if
	// not nil, is the campaign as read in this transaction: the store may
	// then write only the fields that differ from it (an indexed column
	// left alone costs nothing to keep its index).
	UpdateCampaign(ctx context.Context, c, prev *adcamp.Campaign) error
	// DeleteCampaign removes a campaign with its ad groups and keywords.
	DeleteCampaign(ctx context.Context, t adcamp.Tenant, id string) error

	CreateAdGroup(ctx context.Context, g *adcamp.AdGroup) error
	GetAdGroup(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.AdGroup, error)
	ListAdGroups(ctx context.Context, t adcamp.Tenant, campaignID string, q ListQuery) ([]*adcamp.AdGroup, int64, error)
	// UpdateAdGroup is UpdateCampaign for ad groups.
	UpdateAdGroup(ctx context.Context, g, prev *adcamp.AdGroup) error
	// DeleteAdGroup removes an ad group with its keywords.
	DeleteAdGroup(ctx context.Context, t adcamp.Tenant, id string) error

	// CreateKeywords stores a batch of keywords with few statements. A
	// keyword whose text key is taken in its ad group and match type
	// fails the whole call with DUPLICATE_KEYWORD.
	CreateKeywords(ctx context.Context, ks []*adcamp.Keyword) error
	// TakenKeywordKeys returns which of keys (match type and text key) are
	// already used in an ad group, other than by keyword exceptID.
	TakenKeywordKeys(ctx context.Context, adGroupID, exceptID string, keys []KeywordKey) (map[KeywordKey]bool, error)
	GetKeyword(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.Keyword, error)
	ListKeywords(ctx context.Context, t adcamp.Tenant, adGroupID string, q ListQuery) ([]*adcamp.Keyword, int64, error)
	// UpdateKeyword is UpdateCampaign for keywords, and fails like
	// CreateKeywords on a duplicate.
	UpdateKeyword(ctx context.Context, k, prev *adcamp.Keyword) error
	DeleteKeyword(ctx context.Context, t adcamp.Tenant, id string) error
	// CountChildren counts what lies under a campaign or an ad group (the
	// other id empty): ad groups and keywords.
	CountChildren(ctx context.Context, t adcamp.Tenant, campaignID, adGroupID string) (adGroups, keywords int64, err error)

	ListChannelAccounts(ctx context.Context, accountID string, q ListQuery) ([]*adcamp.ChannelAccount, int64, error)

	// SaveRecord stores r unless a record with its scope and token exists
	// that has not expired at r.CreatedAt; it reports whether r was stored.
	// A store may instead send it with the commit, reporting true: the
	// Write then fails with ErrRecordTaken if r was not stored.
	SaveRecord(ctx context.Context, r *RequestRecord) (bool, error)
	// GetRecord returns the live record of scope and token at now, or
	// NOT_FOUND.
	GetRecord(ctx context.Context, scope, token string, now time.Time) (*RequestRecord, error)
	// PurgeRecords deletes the records expired at now.
	PurgeRecords(ctx context.Context, now time.Time) (int64, error)
}

// ErrRecordTaken fails a Write whose SaveRecord a store deferred to the
// commit (see SaveRecord) and found a live record under its name: the
// transaction was rolled back, as if SaveRecord had reported false.
var ErrRecordTaken = errors.New("store: a live request record has this name")

// RecordChecker is a Tx that can check that no live request record has
// one of a list of names without a round trip of its own (Once looks up
// the names that earlier versions gave records this way, before running
// a request that may be a replay of one they answered).
type RecordChecker interface {
	// RequireNoRecord makes the transaction fail with ErrRecordTaken if a
	// record of scope and one of tokens lives at now; the store may check
	// only when the transaction commits, so the call itself may report nil.
	RequireNoRecord(ctx context.Context, scope string, tokens []string, now time.Time) error
}

// mark returns ctx marked with key, for Write or Read to see (marked).
func mark(ctx context.Context, key any) context.Context {
	return context.WithValue(ctx, key, true)
}

// marked reports whether ctx is marked with key.
func marked(ctx context.Context, key any) bool {
	v, _ := ctx.Value(key).(bool)
	return v
}

type repeatableKey struct{}

// WithRepeatable marks ctx for Write: fn changes nothing but through its
// Tx, and may run again from the start, so a store may roll a first run
// back and run it anew. (PostgreSQL's store runs every write again after a
// serialization failure; SQLite's runs the writes so marked in a batch
// without a savepoint each, and runs a batch again, those that had
// succeeded, when one of them fails.) The service marks the requests that
// Once runs: their answers are kept, not written out, until the commit.
func WithRepeatable(ctx context.Context) context.Context {
	return mark(ctx, repeatableKey{})
}

// Repeatable reports whether ctx is marked by WithRepeatable.
func Repeatable(ctx context.Context) bool {
	return marked(ctx, repeatableKey{})
}

type rowLocksKey struct{}

// WithRowLocks marks ctx for Write: the transaction's correctness rests
// only on the rows it reads and then changes, which a store may lock as
// it reads them (a read in a write transaction of a campaign, ad group or
// keyword locks the row until the commit) instead of running the
// transaction at SERIALIZABLE. Its other reads (an account, a member, a
// channel account) are then those of a moment before the commit, as if
// the transaction had run before any concurrent change of them, which
// keeps the history serializable as long as no concurrent transaction
// decides on what this one writes from a read that is not locked. The
// service marks the changes of campaigns, ad groups and keywords with
// their replay records; everything else (members and their roles,
// credentials, counted invariants) stays serializable.
func WithRowLocks(ctx context.Context) context.Context {
	return mark(ctx, rowLocksKey{})
}

// RowLocks reports whether ctx is marked by WithRowLocks.
func RowLocks(ctx context.Context) bool {
	return marked(ctx, rowLocksKey{})
}

type versionGuardsKey struct{}

// WithVersionGuards marks ctx for Write, besides WithRowLocks: every row
// the transaction changes it has read first, its update of the row checks
// the version it read (UpdateCampaign), and it reads nothing after its
// first change. A store may then send the reads unlocked, each on its own,
// or start from a copy of the row it keeps, and the changes with the
// commit: a concurrent change of the row between the two makes the update
// find another version, and the store runs the transaction again with row
// locks (so that requests that all change one row still queue rather than
// fail). From a copy, the store also runs it again when it fails, or ends
// without an update that checks the copy (a dry run). The API marks an
// update of a campaign (service.VersionGuarded).
func WithVersionGuards(ctx context.Context) context.Context {
	return mark(ctx, versionGuardsKey{})
}

// VersionGuards reports whether ctx is marked by WithVersionGuards.
func VersionGuards(ctx context.Context) bool {
	return marked(ctx, versionGuardsKey{})
}

type backgroundReadsKey struct{}

// WithBackgroundReads marks ctx for Read: the reads are a background
// job's (a report job's rows: long, in key order, each row read once),
// which a store may run on connections of their own that keep nothing of
// what they read, so that the job neither takes the API's connections nor
// leaves the whole range it read in the process's memory.
func WithBackgroundReads(ctx context.Context) context.Context {
	return mark(ctx, backgroundReadsKey{})
}

// BackgroundReads reports whether ctx is marked by WithBackgroundReads.
func BackgroundReads(ctx context.Context) bool {
	return marked(ctx, backgroundReadsKey{})
}

// RequestRecord is the stored answer to a mutating request.
type RequestRecord struct {
	Scope       string
	Token       string
	RequestHash []byte
	Status      int
	Header      []byte // JSON object of header name to value
	Body        []byte
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// KeywordKey is what keyword uniqueness is decided on within an ad group.
type KeywordKey struct {
	MatchType adcamp.MatchType
	TextKey   string // adcamp.KeywordKey of the text
}

// KeysOfType are the text keys of one match type.
type KeysOfType struct {
	MatchType adcamp.MatchType
	TextKeys  []string
}

// ByMatchType groups keys by match type, in the order types first appear:
// a store looks each group up through its unique index (ad group, match
// type, text key) in TakenKeywordKeys.
func ByMatchType(keys []KeywordKey) []KeysOfType {
	var groups []KeysOfType
	for _, k := range keys {
		i := 0
		for i < len(groups) && groups[i].MatchType != k.MatchType {
			i++
		}
		if i == len(groups) {
			groups = append(groups, KeysOfType{MatchType: k.MatchType})
		}
		groups[i].TextKeys = append(groups[i].TextKeys, k.TextKey)
	}
	return groups
}

// Credential is a stored credential: its public record and its encrypted secrets.
type Credential struct {
	adcamp.APIKey
	Secret         []byte // ciphertext of the current secret
	PreviousSecret []byte // ciphertext of the secret before the last roll, or nil
}

// ListQuery selects one page of a list, newest first (created_at, then
// id, descending).
type ListQuery struct {
	// Status filters by status ("" for all). For campaigns it is the
	// effective status: one whose end_date is before Today counts as ended.
	Status    adcamp.Status
	Today     adcamp.Date      // UTC; campaigns only
	MatchType adcamp.MatchType // keywords only; "" for all
	Limit     int              // may be far more than a page holds (every keyword of an ad group)
	Offset    int
}

// MaxPrealloc is the most items a store makes room for before it has read
// them: a Limit of "all" must not reserve room for a billion.
const MaxPrealloc = 1000
