package service

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
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
func (s *Service) write(ctx context.Context, fn func(store.Tx) error) error {
	if tx, ok := ctx.Value(txKey{}).(store.Tx); ok {
		return fn(tx)
	}
	return s.store.Write(ctx, fn)
}

// read runs fn in the request's transaction if it has one, else over a
// read-only view.
func (s *Service) read(ctx context.Context, fn func(store.Tx) error) error {
	if tx, ok := ctx.Value(txKey{}).(store.Tx); ok {
		return fn(tx)
	}
	return s.store.Read(ctx, fn)
}

// readOne is read for an fn that makes one call on its Tx (see
// store.Store.ReadOne): cheaper where the store can skip the transaction.
func (s *Service) readOne(ctx context.Context, fn func(store.Tx) error) error {
	if tx, ok := ctx.Value(txKey{}).(store.Tx); ok {
		return fn(tx)
	}
	return s.store.ReadOne(ctx, fn)
}

// How long answers are remembered: a signature for twice the timestamp
// window (it cannot verify later than that), an Idempotency-Key for a day.
const idempotencyTTL = 24 * time.Hour

// MaxIdempotencyKey bounds the length of an Idempotency-Key.
const MaxIdempotencyKey = 255

// ReplayKey names a mutating request for replay protection: always by
// its signature (scoped to the credential), and also by its
// Idempotency-Key when the client sent one (scoped to the account and
// environment). Both are checked: the key is not signed, so adding one to
// a captured request must not let it through as new.
type ReplayKey struct {
	names     []recordName
	hash      []byte // of method, path, query and body: tells a reused key from a retry
	lookFirst bool   // a name may hold an answer that saving would not find (a legacy one)
}

type recordName struct {
	scope, token string
	ttl          time.Duration
	idempotency  bool
	legacy       bool // looked up, never saved
}

// KeyFor names a mutating request. timestamp and signature are its
// X-Timestamp (as authenticated) and X-Signature (lower case). method, path
// (relative to the API prefix), query, If-Match and body identify the
// request itself: the query and If-Match are not signed, so two requests
// can share a signature and still differ.
func (s *Service) KeyFor(cred *adcamp.APIKey, idempotencyKey, timestamp, signature, method, path, query, ifMatch string, body []byte) (ReplayKey, error) {
	// method path?query, If-Match, then the body, as "%s %s?%s\nIf-Match: %s\n%s".
	h := sha256.New()
	head := make([]byte, 0, len(method)+len(path)+len(query)+len(ifMatch)+13)
	head = append(append(append(head, method...), ' '), path...)
	head = append(append(append(head, '?'), query...), "\nIf-Match: "...)
	h.Write(append(append(head, ifMatch...), '\n'))
	h.Write(body)
	k := ReplayKey{hash: h.Sum(nil)}
	if idempotencyKey != "" {
		if len(idempotencyKey) > MaxIdempotencyKey || !printableASCII(idempotencyKey) {
			var issues adcamp.Issues
			issues.Add("Idempotency-Key", "must be 1 to %d printable ASCII characters", MaxIdempotencyKey)
			return k, issues.Err()
		}
		k.names = append(k.names, recordName{scope: "idem:" + cred.AccountID + ":" + string(cred.Environment),
			token: idempotencyKey, ttl: idempotencyTTL, idempotency: true})
	}
	// A signature's record is named by the request's timestamp, then the
	// signature ("1795000000/3f9a..."; the timestamp is signed, so it adds
	// nothing a replay could change). Requests' timestamps grow with time,
	// so the records are appended at the end of their index instead of
	// scattered through ten minutes of changes, where each insert would
	// read a page and split some.
	scope := "sig:" + cred.ID
	k.names = append(k.names, recordName{scope: scope, token: timestamp + "/" + signature, ttl: 2 * s.maxSkew})
	// Earlier versions named it by the signature alone, and such a record
	// lives 2×maxSkew. A request signed before this process started may
	// have been answered under that name (by the version this one replaced,
	// on the same database), so it is looked up under both.
	if ts, err := strconv.ParseInt(timestamp, 10, 64); err == nil && ts < s.started.Unix() {
		k.names = append(k.names, recordName{scope: scope, token: signature, legacy: true})
		k.lookFirst = true
	}
	return k, nil
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// Answer is a rendered HTTP answer, as stored for replays.
type Answer struct {
	Status int
	Header map[string]string // the headers worth replaying: Content-Type, Location, ETag
	Body   []byte
}

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
// together. An error answer (4xx) rolls the change back and is stored on
// its own; a 5xx or a 429 is not stored, so a retry executes again. fn
// returns an error, rather than an answer, for a failure of the database:
// the store then retries fn when it can (a serialization failure), or
// Once returns the error.
//
// The first attempt does not look for a stored answer: storing its own
// fails if one exists (a replay, or a concurrent request with the same
// key that committed first), which rolls the attempt back, change and
// all, and the next attempt looks first and replays. Most requests are
// not replays, and so save a lookup.
func (s *Service) Once(ctx context.Context, k ReplayKey, fn func(context.Context) (*Answer, error)) (*Answer, bool, error) {
	for attempt := range 3 {
		var ans *Answer
		err := s.store.Write(ctx, func(tx store.Tx) error {
			if attempt > 0 || k.lookFirst {
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
			if ans, err = fn(context.WithValue(ctx, txKey{}, tx)); err != nil {
				return err
			}
			if ans.Status >= 400 {
				return errRollback
			}
			return s.save(ctx, tx, k, ans)
		})
		switch {
		case err == nil:
			return ans, false, nil
		case errors.Is(err, errReplayed):
			return ans, true, nil
		case errors.Is(err, errTaken):
			continue // replay what is stored
		case errors.Is(err, errRollback) && ans.Status < 500 && ans.Status != http.StatusTooManyRequests:
			// Remembered on its own, all names or none.
			err = s.store.Write(ctx, func(tx store.Tx) error { return s.save(ctx, tx, k, ans) })
			if errors.Is(err, errTaken) {
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

// recall returns the answer stored under one of k's names, if any.
func (s *Service) recall(ctx context.Context, tx store.Tx, k ReplayKey) (*Answer, error) {
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
		ans := &Answer{Status: rec.Status, Body: rec.Body}
		if err := json.Unmarshal(rec.Header, &ans.Header); err != nil {
			return nil, fmt.Errorf("stored answer of %s: %w", n.scope, err)
		}
		return ans, nil
	}
	return nil, nil
}

// save stores ans under every name of k, or returns errTaken if one of
// them is already used.
func (s *Service) save(ctx context.Context, tx store.Tx, k ReplayKey, ans *Answer) error {
	header, err := headerJSON(ans.Header)
	if err != nil {
		return err
	}
	now := s.Now()
	for _, n := range k.names {
		if n.legacy {
			continue
		}
		saved, err := tx.SaveRecord(ctx, &store.RequestRecord{
			Scope: n.scope, Token: n.token, RequestHash: k.hash, Status: ans.Status, Header: header, Body: ans.Body,
			CreatedAt: now, ExpiresAt: now.Add(n.ttl),
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

// headerJSON encodes h as a JSON object, as json.Marshal would but without
// reflection for the usual headers: names and values of printable ASCII,
// which strconv.Quote writes as valid JSON strings (it escapes only the
// quote and the backslash among them). Others go to json.Marshal.
func headerJSON(h map[string]string) ([]byte, error) {
	names := make([]string, 0, len(h))
	for name, v := range h {
		if !printableASCII(name) || !printableASCII(v) {
			return json.Marshal(h)
		}
		names = append(names, name)
	}
	slices.Sort(names) // json.Marshal's order
	b := make([]byte, 0, 96)
	b = append(b, '{')
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(strconv.AppendQuote(b, name), ':')
		b = strconv.AppendQuote(b, h[name])
	}
	return append(b, '}'), nil
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
