package service

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/store"
)

// The marketplace's side (docs/operator.md): the credentials of its ad
// server, which sign requests to the operator listener, and accounts'
// time zones. Operator keys belong to the installation, like users: they
// are made with the admin command line and recorded in no account's
// history (no account's data changes).

// Prefixes of operator credentials: never "ak_", so that the account
// listeners' lookup refuses them as unknown, and the operator listener's
// refuses account keys the same way.
const (
	operatorKeyPrefix    = "opk_"
	operatorSecretPrefix = "ops_"
)

// NewOperatorKey is a created operator key with its secret, shown once.
type NewOperatorKey struct {
	store.OperatorKey
	Secret string
}

func operatorAD(id string) []byte { return []byte(id + "\x00operator") }

// CreateOperatorKey makes an operator credential.
func (s *Operator) CreateOperatorKey(ctx context.Context, name string) (*NewOperatorKey, error) {
	var issues adcamp.Issues
	name = strings.TrimSpace(name)
	checkText(&issues, "name", name, maxKeyName)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	now := s.Now().Truncate(time.Second)
	k := &store.OperatorKey{ID: operatorKeyPrefix + randomToken(15, false), Name: name, CreatedAt: now}
	secret := operatorSecretPrefix + randomToken(32, true)
	k.Secret = s.box.Seal([]byte(secret), operatorAD(k.ID))
	if err := s.write(ctx, func(tx store.Tx) error { return tx.CreateOperatorKey(ctx, k) }); err != nil {
		return nil, err
	}
	return &NewOperatorKey{OperatorKey: *k, Secret: secret}, nil
}

// ListOperatorKeys returns every operator key, oldest first.
func (s *Operator) ListOperatorKeys(ctx context.Context) ([]*store.OperatorKey, error) {
	var out []*store.OperatorKey
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		out, err = tx.ListOperatorKeys(ctx)
		return err
	})
	return out, err
}

// SetOperatorKeyDisabled disables or enables an operator key.
func (s *Operator) SetOperatorKeyDisabled(ctx context.Context, id string, disabled bool) (*store.OperatorKey, error) {
	var out *store.OperatorKey
	err := s.write(ctx, func(tx store.Tx) error {
		if err := tx.SetOperatorKeyDisabled(ctx, id, disabled); err != nil {
			return err
		}
		var err error
		out, err = tx.GetOperatorKey(ctx, id)
		return err
	})
	return out, err
}

// DeleteOperatorKey removes an operator key for good.
func (s *Operator) DeleteOperatorKey(ctx context.Context, id string) error {
	return s.write(ctx, func(tx store.Tx) error { return tx.DeleteOperatorKey(ctx, id) })
}

// AuthenticateOperator checks a request to the operator listener as
// Authenticate checks one to an account listener (the same headers,
// schemes and order of checks), against operator keys. The environment
// of r is ignored: an operator key serves both.
func (s *Operator) AuthenticateOperator(ctx context.Context, r AuthRequest) (*store.OperatorKey, error) {
	now := s.Now()
	for _, h := range [...]struct{ name, value string }{
		{signing.HeaderAPIKey, r.APIKey}, {signing.HeaderTimestamp, r.Timestamp}, {signing.HeaderSignature, r.Signature},
	} {
		if h.value == "" {
			return nil, authError(adcamp.CodeUnauthorized, now, nil, "missing %s header", h.name)
		}
		if h.name == r.Repeated {
			return nil, authError(adcamp.CodeUnauthorized, now, nil, "the %s header must be sent once", h.name)
		}
	}
	if err := s.checkTimestamp(r.Timestamp, now); err != nil {
		return nil, err
	}
	ts, _ := strconv.ParseInt(r.Timestamp, 10, 64)
	skew := &[]int64{ts - now.Unix()}[0]
	unknown := authError(adcamp.CodeUnauthorized, now, skew, "unknown operator key: the operator listener takes only keys made by adcamp operator-keys create")
	if !strings.HasPrefix(r.APIKey, operatorKeyPrefix) || len(r.APIKey) > 64 {
		return nil, unknown
	}
	var k *store.OperatorKey
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		k, err = tx.GetOperatorKey(ctx, r.APIKey)
		return err
	})
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
		return nil, unknown
	}
	if err != nil {
		return nil, err
	}
	if r.ReadBody != nil {
		if r.Body, err = r.ReadBody(); err != nil {
			return nil, err
		}
	}
	secret, err := s.box.Open(k.Secret, operatorAD(k.ID))
	if err != nil {
		s.log.Error("a stored operator secret does not open: its key is refused", "key_id", k.ID, "err", err)
		return nil, unknown
	}
	live := &liveKey{key: &store.Credential{APIKey: adcamp.APIKey{ID: k.ID, Disabled: k.Disabled}},
		secrets: []*signing.Verifier{signing.NewVerifier(string(secret))}}
	scheme := s.verify(live, r, now)
	if scheme == "" {
		code := adcamp.CodeInvalidSignature
		if s.signing == SigningB {
			code = adcamp.CodeSignatureInvalid
		}
		return nil, authError(code, now, skew, "signature does not match")
	}
	if k.Disabled {
		if scheme == signing.SchemeB {
			return nil, authError(adcamp.CodeAPIKeyDisabled, now, skew, "operator key is disabled")
		}
		return nil, authError(adcamp.CodeUnauthorized, now, skew, "operator key is disabled")
	}
	return k, nil
}

// SetAccountTimeZone sets the IANA time zone an account's days are
// counted in, and records the change in the account's history.
func (s *Access) SetAccountTimeZone(ctx context.Context, accountID, zone string) (*adcamp.Account, error) {
	if _, err := LoadZone(zone); err != nil {
		var issues adcamp.Issues
		issues.Add("time_zone", "must be an IANA time zone name such as UTC or Asia/Seoul")
		return nil, issues.Err()
	}
	var out *adcamp.Account
	err := s.write(ctx, func(tx store.Tx) error {
		if _, err := s.authorize(ctx, tx, accountID, actMembers, adcamp.NotFound("account", accountID)); err != nil {
			return err
		}
		a, err := tx.GetAccount(ctx, accountID)
		if err != nil {
			return err
		}
		old := a.TimeZone
		if err := tx.SetAccountTimeZone(ctx, accountID, zone); err != nil {
			return err
		}
		a.TimeZone = zone
		out = a
		h := s.newHistory(ctx, s.Now())
		h.add(accountID, "", adcamp.EntityAccount, accountID, "", "", adcamp.OpUpdate,
			[]adcamp.FieldChange{{Field: "time_zone", Old: text(old), New: text(zone)}})
		return h.write(ctx, tx) // which tells the serving feed (appendFeedOf)
	})
	if err == nil {
		s.zones.put(accountID, zone, time.Now()) // this process sees it at once (delivery.go)
	}
	return out, err
}

// LoadZone loads an IANA time zone by name, refusing "Local" and "" (whose
// meaning depends on the machine).
func LoadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" || len(name) > 64 {
		return nil, errors.New("not an IANA time zone name")
	}
	return time.LoadLocation(name)
}

// zoneOf is the account's zone, UTC for one that does not load.
func zoneOf(name string) *time.Location {
	if loc, err := LoadZone(name); err == nil {
		return loc
	}
	return time.UTC
}

// accountDay returns the account's day containing now, and its bounds in
// UTC: [from, to).
func accountDay(zone string, now time.Time) (day adcamp.Date, from, to time.Time) {
	loc := zoneOf(zone)
	local := now.In(loc)
	y, m, d := local.Date()
	from = time.Date(y, m, d, 0, 0, 0, 0, loc)
	to = time.Date(y, m, d+1, 0, 0, 0, 0, loc)
	return adcamp.DateOf(time.Date(y, m, d, 0, 0, 0, 0, time.UTC)), from.UTC(), to.UTC()
}
