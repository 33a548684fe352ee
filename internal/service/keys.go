package service

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Credentials as the console manages them. The operations are those of
// the admin command line (admin.go), with what a console user adds: a
// name, who created it, role checks (see authorize), and the password
// asked again before a production credential is created or rolled.

const (
	// ChartDays is how many days of requests per credential the console
	// shows.
	ChartDays = 14
	// usageKeptDays is how long requests per day are kept.
	usageKeptDays = 31
	// maxKeyName bounds a credential's name, in characters.
	maxKeyName = 100
	// revealTimeout bounds the wait between creating a secret and
	// showing it once.
	revealTimeout = 10 * time.Minute
)

// KeyRequest asks for a new credential.
type KeyRequest struct {
	AccountID   string
	Environment adcamp.Environment
	Name        string
	// Scopes are its levels per group (nil: write on every group).
	Scopes *adcamp.Scopes
	// Limits restrict it further: expiry, allowed addresses, rate limit.
	Limits adcamp.KeyLimits
	// Confirm is the password (or a code of their authenticator app) of
	// the console user asking: a production credential needs it.
	Confirm string
}

// CreateKeyWith issues a credential with a name. A console user must be
// an owner for production, an owner or developer for the sandbox, and
// confirm a production credential with their password.
func (s *Keys) CreateKeyWith(ctx context.Context, r KeyRequest) (*NewCredential, error) {
	var issues adcamp.Issues
	name := strings.TrimSpace(r.Name)
	if name != "" {
		checkText(&issues, "name", name, maxKeyName)
	}
	if _, ok := adcamp.ParseEnvironment(string(r.Environment)); !ok {
		issues.AddKind("environment", adcamp.IssueNotOneOf, "production, sandbox", "must be production or sandbox")
	}
	checkLimits(&issues, r.Limits, s.Now())
	if err := issues.Err(); err != nil {
		return nil, err
	}
	if err := s.confirmKeyChange(ctx, r.AccountID, r.Environment, r.Confirm); err != nil {
		return nil, err
	}
	now := s.Now().Truncate(time.Second)
	env := r.Environment
	id := "ak_" + env.KeyInfix() + "_" + randomToken(15, false)
	secret := "sk_" + env.KeyInfix() + "_" + randomToken(32, true)
	by := OriginOf(ctx).Actor
	k := &store.Credential{
		APIKey: adcamp.APIKey{ID: id, AccountID: r.AccountID, Environment: env, CreatedAt: now, Name: name, CreatedBy: &by,
			Scopes: adcamp.AllWrite, AllowedIPs: r.Limits.AllowedIPs, RateLimit: r.Limits.RateLimit},
	}
	if r.Scopes != nil {
		k.Scopes = *r.Scopes
	}
	if e := r.Limits.ExpiresAt; e != nil {
		t := e.UTC().Truncate(time.Second)
		k.ExpiresAt = &t
	}
	seal(s.box, k, []byte(secret), nil)
	err := s.write(ctx, func(tx store.Tx) error {
		if _, err := s.authorize(ctx, tx, r.AccountID, keyAction(env), adcamp.NotFound("account", r.AccountID)); err != nil {
			return err
		}
		if _, err := tx.GetAccount(ctx, r.AccountID); err != nil {
			return err
		}
		if err := tx.CreateCredential(ctx, k); err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		recordKey(h, adcamp.OpCreate, nil, &k.APIKey, false)
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return &NewCredential{APIKey: s.publicKey(k), Secret: secret}, nil
}

// confirmKeyChange asks a console user for their password before a
// change of a production credential, once their role allows it (so that
// a member who may not is told so, not asked for a password).
func (s *core) confirmKeyChange(ctx context.Context, accountID string, env adcamp.Environment, confirm string) error {
	userID, err := actorUser(ctx)
	if err != nil || env != adcamp.Production {
		return nil // not a console user, or the sandbox
	}
	err = s.read(ctx, func(tx store.Tx) error {
		_, err := s.authorize(ctx, tx, accountID, actProductionKeys, adcamp.NotFound("account", accountID))
		return err
	})
	if err != nil {
		return err
	}
	if confirm == "" {
		var issues adcamp.Issues
		issues.AddKind("confirm", adcamp.IssueRequired, "", "is needed: enter your password to change a production credential")
		return issues.Err()
	}
	return s.confirmIdentity(ctx, userID, "confirm", confirm)
}

// mayChangeKey authorizes a change of credential k.
func (s *core) mayChangeKey(ctx context.Context, tx store.Tx, k *store.Credential) error {
	_, err := s.authorize(ctx, tx, k.AccountID, keyAction(k.Environment), adcamp.NotFound("API key", k.ID))
	return err
}

// RollKeyWith is RollKey for a console user, who confirms the roll of a
// production credential with their password.
func (s *Keys) RollKeyWith(ctx context.Context, id string, grace time.Duration, confirm string) (*NewCredential, error) {
	var k *store.Credential
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		k, err = tx.GetCredential(ctx, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.confirmKeyChange(ctx, k.AccountID, k.Environment, confirm); err != nil {
		return nil, asGone(err, adcamp.NotFound("API key", id))
	}
	return s.RollKey(ctx, id, grace)
}

// Key returns a credential of accountID, for a member of it.
func (s *Keys) Key(ctx context.Context, accountID, id string) (*adcamp.APIKey, error) {
	var out adcamp.APIKey
	err := s.read(ctx, func(tx store.Tx) error {
		if _, err := s.authorize(ctx, tx, accountID, actRead, adcamp.NotFound("account", accountID)); err != nil {
			return err
		}
		k, err := tx.GetCredential(ctx, id)
		if err != nil {
			return err
		}
		if k.AccountID != accountID {
			return adcamp.NotFound("API key", id)
		}
		out = s.publicKey(k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DayUses is a credential's requests on one day (UTC).
type DayUses struct {
	Day      adcamp.Date
	Requests int64
}

// KeyView is a credential as the console shows it.
type KeyView struct {
	adcamp.APIKey
	// CreatorEmail is the email of the console user who created it, if
	// one did.
	CreatorEmail string
	// Uses are its requests on each of the last ChartDays days, oldest
	// first, today's so far included. Requests are counted in memory and
	// written with last_used_at, so the figures lag by a few seconds.
	Uses []DayUses
}

// KeyViews lists the credentials of accountID, oldest first, with their
// requests per day, for a member of it: ListKeys, and what the console
// shows beside each key.
func (s *Keys) KeyViews(ctx context.Context, accountID string) ([]KeyView, error) {
	keys, err := s.ListKeys(ctx, accountID)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	days := make([]adcamp.Date, ChartDays)
	for i := range days {
		days[i] = adcamp.DateOf(now.AddDate(0, 0, i-(ChartDays-1)))
	}
	var uses map[store.CredentialDay]int64
	emails := map[string]string{}
	err = s.read(ctx, func(tx store.Tx) error {
		var err error
		if uses, err = tx.ListCredentialUses(ctx, accountID, days[0]); err != nil {
			return err
		}
		for _, k := range keys {
			if by := k.CreatedBy; by != nil && by.Type == adcamp.ActorUser && emails[by.ID] == "" {
				u, err := tx.GetUser(ctx, by.ID)
				if err != nil && adcamp.ErrorCode(err) != adcamp.CodeNotFound {
					return err
				}
				if err == nil {
					emails[by.ID] = u.Email
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]KeyView, 0, len(keys))
	for _, k := range keys {
		v := KeyView{APIKey: k}
		if k.CreatedBy != nil && k.CreatedBy.Type == adcamp.ActorUser {
			v.CreatorEmail = emails[k.CreatedBy.ID]
		}
		for _, day := range days {
			v.Uses = append(v.Uses, DayUses{Day: day, Requests: uses[store.CredentialDay{KeyID: k.ID, Day: day}]})
		}
		out = append(out, v)
	}
	return out, nil
}

// revealed is what a reveal token holds, sealed.
type revealed struct {
	Key    NewCredential `json:"key"`
	Rolled bool          `json:"rolled"`
}

// HoldSecret keeps a new or rolled credential's secret, sealed, for the
// console user of ctx to see once (RevealSecret) within revealTimeout,
// and returns the token to reveal it with. It lets the page that shows
// the secret be a page of its own, which a reload cannot show again.
func (s *Keys) HoldSecret(ctx context.Context, k *NewCredential, rolled bool) (string, error) {
	userID, err := actorUser(ctx)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(revealed{Key: *k, Rolled: rolled})
	if err != nil {
		return "", err
	}
	token, hash := newToken()
	now := s.Now()
	err = s.write(ctx, func(tx store.Tx) error {
		return tx.CreateToken(ctx, &store.Token{Hash: hash, Purpose: store.TokenReveal, UserID: userID,
			Data: s.box.Seal(data, hash), CreatedAt: now, ExpiresAt: now.Add(revealTimeout)})
	})
	return token, err
}

// errSecretGone answers a second look at a secret.
var errSecretGone = adcamp.Errorf(adcamp.CodeNotFound,
	"This secret was shown once already and is not kept: adcamp stores it only encrypted, for checking signatures. If it was not saved, roll the credential for a new one.")

// RevealSecret returns a secret held by HoldSecret, once, to the user who
// made it.
func (s *Keys) RevealSecret(ctx context.Context, token string) (k *NewCredential, rolled bool, err error) {
	userID, err := actorUser(ctx)
	if err != nil {
		return nil, false, err
	}
	hash := hashToken(token)
	now := s.Now()
	var held *store.Token
	err = s.write(ctx, func(tx store.Tx) error {
		t, err := tx.GetToken(ctx, hash, store.TokenReveal, now)
		if adcamp.ErrorCode(err) == adcamp.CodeNotFound || (err == nil && t.UserID != userID) {
			return errSecretGone
		}
		if err != nil {
			return err
		}
		held, err = tx.TakeToken(ctx, hash, store.TokenReveal, now)
		return asGone(err, errSecretGone)
	})
	if err != nil {
		return nil, false, err
	}
	data, err := s.box.Open(held.Data, hash)
	if err != nil {
		return nil, false, err
	}
	var r revealed
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, false, err
	}
	return &r.Key, r.Rolled, nil
}

// keyDay counts a credential's requests of one day, as recordUse does:
// days since 1970-01-01 UTC, cheaper to get per request than a date.
type keyDay struct {
	id  string
	day int64
}

// usesByDate turns recordUse's counts into the store's.
func usesByDate(uses map[keyDay]int64) map[store.CredentialDay]int64 {
	out := make(map[store.CredentialDay]int64, len(uses))
	for k, n := range uses {
		d := adcamp.DateOf(time.Unix(k.day*secondsPerDay, 0).UTC())
		out[store.CredentialDay{KeyID: k.id, Day: d}] += n
	}
	return out
}

// MayChangeKeys answers what a change of a credential of env in
// accountID would meet for the actor of ctx: nil, or the refusal (role,
// membership). Pages call it to explain before a form is filled in; the
// changes check again.
func (s *Keys) MayChangeKeys(ctx context.Context, accountID string, env adcamp.Environment) error {
	return s.read(ctx, func(tx store.Tx) error {
		_, err := s.authorize(ctx, tx, accountID, keyAction(env), adcamp.NotFound("account", accountID))
		return err
	})
}
