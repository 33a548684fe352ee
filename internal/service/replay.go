package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// txKey carries a request's transaction in its context, so that every
// service call the request makes joins it (see Once).
type txKey struct{}

// write runs fn in the request's transaction if it has one, else in a new
// write transaction.
func (s *core) write(ctx context.Context, fn func(store.Tx) error) error {
	if tx, ok := ctx.Value(txKey{}).(store.Tx); ok {
		return fn(tx)
	}
	return s.store.Write(ctx, fn)
}

// writeAds is write for a change of campaigns, ad groups or keywords,
// whose rules rest on the rows read and changed: row locks suffice (see
// store.WithRowLocks).
func (s *core) writeAds(ctx context.Context, fn func(store.Tx) error) error {
	return s.write(store.WithRowLocks(ctx), fn)
}

// VersionGuarded marks ctx for a request whose only change is an update of
// a campaign (UpdateCampaign, in Once): it reads the campaign, then
// updates it guarded by the version read, so the store may read it
// without a lock and send the update with the commit
// (store.WithVersionGuards).
func VersionGuarded(ctx context.Context) context.Context {
	return store.WithVersionGuards(ctx)
}

// read runs fn in the request's transaction if it has one, else over a
// read-only view.
func (s *core) read(ctx context.Context, fn func(store.Tx) error) error {
	if tx, ok := ctx.Value(txKey{}).(store.Tx); ok {
		return fn(tx)
	}
	return s.store.Read(ctx, fn)
}

// readOne is read for an fn that makes one call on its Tx (see
// store.Store.ReadOne): cheaper where the store can skip the transaction.
func (s *core) readOne(ctx context.Context, fn func(store.Tx) error) error {
	if tx, ok := ctx.Value(txKey{}).(store.Tx); ok {
		return fn(tx)
	}
	return s.store.ReadOne(ctx, fn)
}

// How long answers are remembered. An Idempotency-Key for a day after
// the answer. A signature until its timestamp's window has closed, and a
// margin more: the window is judged by the clock of whichever process
// gets the request, and processes' clocks differ a little, so the record
// must not expire (or be purged by a process whose clock runs fast) while
// a process with a slower clock would still take the timestamp.
const (
	idempotencyTTL = 24 * time.Hour
	replayMargin   = 2 * time.Minute
)

// maxIdempotencyKey bounds the length of an Idempotency-Key.
const maxIdempotencyKey = 255

// ReplayKey names a mutating request for replay protection: always by
// its signature (scoped to the credential), and also by its
// Idempotency-Key when the client sent one (scoped to the account and
// environment). Both are checked: the key is not signed, so adding one to
// a captured request must not let it through as new.
type ReplayKey struct {
	account   string // whose budget the kept answer counts against
	names     []recordName
	hash      []byte // of method, path, query and body: tells a reused key from a retry
	lookFirst bool   // a name may hold an answer that saving would not find (a legacy one)
}

type recordName struct {
	scope, token string
	ttl          time.Duration // from when the answer is saved, or:
	expires      time.Time     // when set, the record's expiry whenever it is saved
	idempotency  bool
	legacy       bool // looked up, never saved
}

// SignedRequest is a mutating request as replay protection tells one from
// another. The query and If-Match are not signed, so two requests can
// share a signature and still differ: they are part of what a retry must
// repeat exactly.
type SignedRequest struct {
	Credential     *adcamp.APIKey // that the request was signed with
	IdempotencyKey string         // the client's, or ""
	Timestamp      string         // X-Timestamp, as authenticated
	Signature      string         // X-Signature, lower case
	Method         string
	Path           string // relative to the API prefix
	Query          string // raw, as sent
	IfMatch        string
	Body           []byte
}

// ReplayKeyFor names a mutating request.
func (s *Keys) ReplayKeyFor(r SignedRequest) (ReplayKey, error) {
	// method path?query, If-Match, then the body, as "%s %s?%s\nIf-Match: %s\n%s".
	h := sha256.New()
	head := make([]byte, 0, len(r.Method)+len(r.Path)+len(r.Query)+len(r.IfMatch)+13)
	head = append(append(append(head, r.Method...), ' '), r.Path...)
	head = append(append(append(head, '?'), r.Query...), "\nIf-Match: "...)
	h.Write(append(append(head, r.IfMatch...), '\n'))
	h.Write(r.Body)
	k := ReplayKey{hash: h.Sum(nil), account: r.Credential.AccountID}
	if r.IdempotencyKey != "" {
		if len(r.IdempotencyKey) > maxIdempotencyKey || !printableASCII(r.IdempotencyKey) {
			var issues adcamp.Issues
			issues.Add("Idempotency-Key", "must be 1 to %d printable ASCII characters", maxIdempotencyKey)
			return k, issues.Err()
		}
		k.names = append(k.names, recordName{scope: "idem:" + r.Credential.AccountID + ":" + string(r.Credential.Environment),
			token: r.IdempotencyKey, ttl: idempotencyTTL, idempotency: true})
	}
	// A signature's record is named by the request's timestamp, then a
	// hash of the timestamp and signature ("1795000000/3f9a..."): the
	// database holds no signature a reader of it could try elsewhere.
	// Requests' timestamps grow with time, so the records are appended at
	// the end of their index instead of scattered through ten minutes of
	// changes, where each insert would read a page and split some. The
	// record lives until the timestamp's window has closed, and a margin.
	ts, err := strconv.ParseInt(r.Timestamp, 10, 64)
	if err != nil {
		return k, fmt.Errorf("replay key of timestamp %q: %w", r.Timestamp, err)
	}
	scope := "sig:" + r.Credential.ID
	k.names = append(k.names, recordName{scope: scope, token: signatureToken(r.Timestamp, r.Signature),
		expires: time.Unix(ts, 0).Add(s.maxSkew + replayMargin)})
	// Earlier versions named it by the timestamp and the signature in clear
	// (the version before) or by the signature alone (the one before that).
	// A request signed before this process started, or shortly after while
	// processes of the version it replaced may still answer on the same
	// database, may have been answered under those names, so it is looked
	// up under them too.
	if ts < s.started.Add(legacyWindow).Unix() && !s.hashedOnly.Load() {
		k.names = append(k.names, recordName{scope: scope, token: r.Timestamp + "/" + r.Signature, legacy: true},
			recordName{scope: scope, token: r.Signature, legacy: true})
		k.lookFirst = true
	}
	return k, nil
}

// LoadSettings reads the installation settings the service follows: for
// now whether every replay record of the database has a hashed name, in
// which case no request is looked up under the earlier names (a database
// first served by this version, before any credential existed). Until it
// has run, requests are looked up under them too, which is safe.
func (s *Service) LoadSettings(ctx context.Context) error {
	err := s.store.ReadOne(ctx, func(tx store.Tx) error {
		_, err := tx.GetSetting(ctx, hashedNamesOnly)
		return err
	})
	if err == nil {
		s.hashedOnly.Store(true)
		return nil
	}
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
		return nil
	}
	return err
}

// legacyWindow is how long after this process started a request is also
// looked up under the names earlier versions gave records: the time for
// a rolling upgrade's last processes of the old version to stop.
const legacyWindow = 10 * time.Minute

// signatureToken names a signature's record: the timestamp, then the
// SHA-256 of timestamp and signature.
func signatureToken(timestamp, signature string) string {
	sum := sha256.Sum256([]byte(timestamp + "/" + signature))
	return timestamp + "/" + hex.EncodeToString(sum[:])
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// Answer is what a request was answered with, kept for its replays as the
// caller gave it: the service stores it and gives it back, and never
// reads it. (The HTTP layer keeps a status, a few headers and the body.)
type Answer struct {
	Status int
	Header []byte
	Body   []byte
	// Placeholder, if set, is kept instead of this answer when this one is
	// too large to keep, or the account's budget for kept answers is
	// spent (see maxKeptAnswer): a small answer saying that the request
	// was answered, for its replays.
	Placeholder *Answer
}

// Outcome says what becomes of a request's change and of its answer.
type Outcome int

// The outcomes.
const (
	// Commit: the change commits, with its answer.
	Commit Outcome = iota
	// Refuse: the request was refused for what it is (a client error):
	// the change is rolled back, and the answer is kept, so that the same
	// request is answered the same way.
	Refuse
	// Forget: the request failed for a passing reason (a rate limit, an
	// overload): the change is rolled back and the answer not kept, so
	// that a retry executes again.
	Forget
)

// errRollback undoes a request's transaction after it answered an error.
var errRollback = errors.New("rollback")

// errTaken: another request stored an answer under the same key first.
var errTaken = errors.New("request key taken")

// errReplayed ends a transaction that found the answer already stored.
var errReplayed = errors.New("replayed")

// Once executes a mutating request at most once per key. If an answer is
// stored under k it is returned (replayed), or IDEMPOTENCY_KEY_REUSED if k
// named another request. Otherwise fn runs in one transaction, which every
// service call made with fn's context joins, and its answer is stored in
// that same transaction: the change and the record of its answer commit
// together. fn says what becomes of both (Outcome): a refused request's
// change is rolled back and its answer stored on its own; a forgotten one
// is not stored, so a retry executes again. fn returns an error, rather
// than an answer, for a failure of the database: the store then retries fn
// when it can (a serialization failure), or Once returns the error.
//
// The first attempt does not look for a stored answer: storing its own
// fails if one exists (a replay, or a concurrent request with the same
// key that committed first), which rolls the attempt back, change and
// all, and the next attempt looks first and replays. Most requests are
// not replays, and so save a lookup.
//
// The requests served this way change campaigns, ad groups and keywords,
// whose rules rest on the rows they read and change: their transactions
// run with row locks (store.WithRowLocks).
func (s *Keys) Once(ctx context.Context, k ReplayKey, fn func(context.Context) (*Answer, Outcome, error)) (*Answer, bool, error) {
	ctx = store.WithRepeatable(store.WithRowLocks(ctx))
	for attempt := range 3 {
		var ans *Answer
		var outcome Outcome
		err := s.store.Write(ctx, func(tx store.Tx) error {
			checker, canCheck := tx.(store.RecordChecker)
			if attempt == 0 && k.lookFirst && canCheck {
				// The legacy names are checked with the commit, and a
				// record found there rolls this attempt back like a record
				// found by saving: the next attempt replays it.
				scope, tokens := k.legacyNames()
				if err := checker.RequireNoRecord(ctx, scope, tokens, s.Now()); err != nil {
					return err
				}
			} else if attempt > 0 || k.lookFirst {
				stored, err := s.recall(ctx, tx, k)
				if err != nil {
					return err
				}
				if stored != nil {
					ans = stored
					return errReplayed
				}
			}
			var err error
			fctx := context.WithValue(context.WithValue(ctx, txKey{}, tx), txnKey{}, adcamp.NewID(adcamp.PrefixTransaction, s.Now()))
			if ans, outcome, err = fn(fctx); err != nil {
				return err
			}
			if outcome != Commit {
				return errRollback
			}
			return s.save(ctx, tx, k, ans)
		})
		switch {
		case err == nil:
			return ans, false, nil
		case errors.Is(err, errReplayed):
			return ans, true, nil
		case errors.Is(err, errTaken) || errors.Is(err, store.ErrRecordTaken):
			continue // replay what is stored
		case errors.Is(err, errRollback) && outcome == Refuse:
			// Remembered on its own, all names or none.
			err = s.store.Write(ctx, func(tx store.Tx) error { return s.save(ctx, tx, k, ans) })
			if errors.Is(err, errTaken) || errors.Is(err, store.ErrRecordTaken) {
				continue // answered before: replay that answer, not this one
			}
			if err != nil {
				s.log.Error("store an error answer for replays", "err", err)
			}
			return ans, false, nil
		case errors.Is(err, errRollback):
			return ans, false, nil
		default:
			return nil, false, err
		}
	}
	return nil, false, adcamp.Errorf(adcamp.CodeConflict, "another request with the same key is being answered; retry")
}

// legacyNames are the names of k that are looked up, never saved: the
// tokens of the signature's scope that earlier versions used.
func (k ReplayKey) legacyNames() (scope string, tokens []string) {
	for _, n := range k.names {
		if n.legacy {
			scope, tokens = n.scope, append(tokens, n.token)
		}
	}
	return scope, tokens
}

// recall returns the answer stored under one of k's names, if any.
func (s *core) recall(ctx context.Context, tx store.Tx, k ReplayKey) (*Answer, error) {
	for _, n := range k.names {
		rec, err := tx.GetRecord(ctx, n.scope, n.token, s.Now())
		if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		if string(rec.RequestHash) != string(k.hash) {
			if n.idempotency {
				return nil, adcamp.Errorf(adcamp.CodeIdempotencyKeyReused,
					"this Idempotency-Key was used for a different request in the last 24 hours; use a new key")
			}
			// Same signature, another query or If-Match: neither a replay
			// to answer as before nor safe to execute (a captured request
			// with its unsigned parts changed looks just like this).
			return nil, adcamp.Errorf(adcamp.CodeConflict,
				"this signature was already used for a request with another query or If-Match; sign this one with a new timestamp")
		}
		return &Answer{Status: rec.Status, Header: rec.Header, Body: rec.Body}, nil
	}
	return nil, nil
}

// save stores ans under every name of k, or returns errTaken if one of
// them is already used.
func (s *core) save(ctx context.Context, tx store.Tx, k ReplayKey, ans *Answer) error {
	now := s.Now()
	kept := s.keptAnswer(k, ans, now)
	for _, n := range k.names {
		if n.legacy {
			continue
		}
		saved, err := tx.SaveRecord(ctx, &store.RequestRecord{
			Scope: n.scope, Token: n.token, RequestHash: k.hash, Status: kept.Status, Header: kept.Header, Body: kept.Body,
			CreatedAt: now, ExpiresAt: n.expiry(now),
		})
		if err != nil {
			return err
		}
		if !saved {
			return errTaken
		}
	}
	return nil
}

// expiry is when the record of name, saved at now, expires.
func (n recordName) expiry(now time.Time) time.Time {
	if !n.expires.IsZero() {
		return n.expires
	}
	return now.Add(n.ttl)
}

// keptAnswer is what is kept of ans under k's names: ans itself, or its
// placeholder if ans is over maxKeptAnswer, or over SmallAnswer and the
// account's budget cannot hold it under every name.
func (s *core) keptAnswer(k ReplayKey, ans *Answer, now time.Time) *Answer {
	if ans.Placeholder == nil {
		return ans
	}
	size := int64(len(ans.Header) + len(ans.Body))
	if size > maxKeptAnswer {
		return ans.Placeholder
	}
	if size <= SmallAnswer {
		return ans
	}
	var total int64
	var last time.Time
	for _, n := range k.names {
		if !n.legacy {
			total += size
			if e := n.expiry(now); e.After(last) {
				last = e
			}
		}
	}
	if !s.budget.take(k.account, total, last, now) {
		s.log.Warn("an answer was not kept for replays: the account's budget for kept answers is spent",
			"account", k.account, "bytes", size)
		return ans.Placeholder
	}
	return ans
}

// PurgeRecords forgets the answers whose time has passed.
func (s *Service) PurgeRecords(ctx context.Context) (int64, error) {
	var n int64
	err := s.store.Write(ctx, func(tx store.Tx) error {
		var err error
		n, err = tx.PurgeRecords(ctx, s.Now())
		return err
	})
	return n, err
}
