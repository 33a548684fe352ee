package service

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Scoped keys: what a credential may do (scopes), until when (expiry), from
// where (allowed addresses), how often (its own rate limit), and the trail
// of its last uses.

const (
	// MaxKeyRateLimit bounds a credential's own rate limit, in requests
	// per second.
	MaxKeyRateLimit = 100000
	// maxAllowedIPs bounds a credential's allowed address ranges.
	maxAllowedIPs = 50
	// MaxKeyLifetime bounds how far ahead a credential's expiry may be.
	MaxKeyLifetime = 10 * 366 * 24 * time.Hour
)

// KeyUpdate changes a credential's scopes and limits; a nil field (an
// absent Optional) is left as it is.
type KeyUpdate struct {
	Scopes *adcamp.Scopes
	// ExpiresAt: null clears the expiry.
	ExpiresAt  adcamp.Optional[time.Time]
	AllowedIPs *[]netip.Prefix
	RateLimit  *int
}

// checkLimits validates a credential's restrictions as of now.
func checkLimits(issues *adcamp.Issues, l adcamp.KeyLimits, now time.Time) {
	if l.ExpiresAt != nil {
		switch {
		case !l.ExpiresAt.After(now):
			issues.Add("expires_at", "must be in the future (server time %s)", now.Format(time.RFC3339))
		case l.ExpiresAt.Sub(now) > MaxKeyLifetime:
			issues.Add("expires_at", "must be at most 10 years ahead")
		}
	}
	if len(l.AllowedIPs) > maxAllowedIPs {
		issues.Add("allowed_ips", "at most %d ranges, got %d", maxAllowedIPs, len(l.AllowedIPs))
	}
	if l.RateLimit < 0 || l.RateLimit > MaxKeyRateLimit {
		issues.Add("rate_limit", "must be from 0 (the server's limit alone) to %d requests per second", MaxKeyRateLimit)
	}
}

// UpdateKey changes a credential's scopes and limits, with the change in
// its history. An expiry in the past is refused: disable the key instead.
func (s *Keys) UpdateKey(ctx context.Context, id string, u KeyUpdate) (*adcamp.APIKey, error) {
	now := s.Now()
	var out adcamp.APIKey
	err := s.write(ctx, func(tx store.Tx) error {
		k, err := tx.GetCredential(ctx, id)
		if err != nil {
			return err
		}
		if err := s.mayChangeKey(ctx, tx, k); err != nil {
			return err
		}
		prev := s.publicKey(k)
		if u.Scopes != nil {
			k.Scopes = *u.Scopes
		}
		if u.ExpiresAt.Set {
			k.ExpiresAt = nil
			if !u.ExpiresAt.Null {
				t := u.ExpiresAt.Value.UTC().Truncate(time.Second)
				k.ExpiresAt = &t
			}
		}
		if u.AllowedIPs != nil {
			k.AllowedIPs = *u.AllowedIPs
		}
		if u.RateLimit != nil {
			k.RateLimit = *u.RateLimit
		}
		var issues adcamp.Issues
		l := k.Limits()
		if !u.ExpiresAt.Has() {
			l.ExpiresAt = nil // an expiry kept as it was is not checked again
		}
		checkLimits(&issues, l, now)
		if err := issues.Err(); err != nil {
			return err
		}
		out = s.publicKey(k)
		if err := tx.UpdateCredential(ctx, k); err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		recordKey(h, adcamp.OpUpdate, &prev, &out, false)
		return h.write(ctx, tx)
	})
	s.keys.forget(id)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// KeyTrail returns the last uses of credential id of accountID, newest
// first, for a member of it. Uses are written in batches with
// last_used_at: the newest may be a few seconds late.
func (s *Keys) KeyTrail(ctx context.Context, accountID, id string) ([]store.KeyUse, error) {
	var out []store.KeyUse
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
		out, err = tx.ListKeyUses(ctx, id)
		return err
	})
	return out, err
}

// checkKeyLimits refuses a credential whose signature verified but that
// has expired, is used from an address outside its ranges, or lacks the
// scope the operation needs, in that order.
func checkKeyLimits(k *adcamp.APIKey, r AuthRequest, now time.Time, skew *int64) error {
	if k.Expired(now) {
		e := authError(adcamp.CodeUnauthorized, now, skew, "API key expired at %s", k.ExpiresAt.Format(time.RFC3339))
		e.Details.(map[string]any)["expired_at"] = k.ExpiresAt.Format(time.RFC3339)
		return e
	}
	if !k.AllowsAddr(r.ClientAddr) {
		e := authError(adcamp.CodeIPNotAllowed, now, skew,
			"API key may not be used from %s; it is limited to %s", r.ClientAddr, prefixList(k.AllowedIPs))
		e.Details.(map[string]any)["client_ip"] = r.ClientAddr.String()
		return e
	}
	if !k.Scopes.Allows(r.Scope) {
		e := authError(adcamp.CodeInsufficientScope, now, skew,
			"API key lacks scope %s, which %s needs (it has %s=%s)", r.Scope, r.Route, r.Scope.Group, k.Scopes.Of(r.Scope.Group))
		d := e.Details.(map[string]any)
		d["required_scope"] = r.Scope.String()
		d["granted_scope"] = string(r.Scope.Group) + ":" + k.Scopes.Of(r.Scope.Group).String()
		return e
	}
	return nil
}

func prefixList(ps []netip.Prefix) string {
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = p.String()
	}
	return strings.Join(texts, ", ")
}

// ParseLifetime reads a lifetime as the command line takes it: "90d",
// "12h", "30m" or any time.ParseDuration text.
func ParseLifetime(text string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(text, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days <= 0 {
			return 0, fmt.Errorf("%q is not a number of days like 90d", text)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(text)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a lifetime like 90d or 12h", text)
	}
	return d, nil
}

// KeyByID returns credential id, for whoever may change it (the admin
// command line).
func (s *Keys) KeyByID(ctx context.Context, id string) (*adcamp.APIKey, error) {
	var out adcamp.APIKey
	err := s.read(ctx, func(tx store.Tx) error {
		k, err := tx.GetCredential(ctx, id)
		if err != nil {
			return err
		}
		if err := s.mayChangeKey(ctx, tx, k); err != nil {
			return err
		}
		out = s.publicKey(k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateKeyWith is UpdateKey for a console user, who confirms a change of
// a production credential with their password.
func (s *Keys) UpdateKeyWith(ctx context.Context, id string, u KeyUpdate, confirm string) (*adcamp.APIKey, error) {
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
	return s.UpdateKey(ctx, id, u)
}
