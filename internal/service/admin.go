package service

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// NewCredential is a freshly created or rolled credential. Secret is
// shown to the caller once and never again.
type NewCredential struct {
	adcamp.APIKey
	Secret string
}

// CreateAccount creates an account holder.
func (s *core) CreateAccount(ctx context.Context, name, email string) (*adcamp.Account, error) {
	var issues adcamp.Issues
	name = strings.TrimSpace(name)
	checkText(&issues, "name", name, 200)
	if email != "" && (!strings.Contains(email, "@") || utf8.RuneCountInString(email) > 254) {
		issues.AddKind("email", adcamp.IssueNotEmail, "", "must be an email address")
	}
	if err := issues.Err(); err != nil {
		return nil, err
	}
	now := s.Now().Truncate(time.Second)
	a := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, now), Name: name, Email: email, CreatedAt: now}
	err := s.write(ctx, func(tx store.Tx) error { return tx.CreateAccount(ctx, a) })
	return a, err
}

// CreateChannelAccount records a seller account of accountID on a marketplace.
func (s *core) CreateChannelAccount(ctx context.Context, accountID, marketplace, name string) (*adcamp.ChannelAccount, error) {
	var issues adcamp.Issues
	name = strings.TrimSpace(name)
	checkText(&issues, "name", name, 200)
	marketplace = s.checkMarketplace(&issues, "marketplace", marketplace)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	c := &adcamp.ChannelAccount{AccountID: accountID, Marketplace: marketplace, Name: name, CreatedAt: s.Now().Truncate(time.Second)}
	err := s.write(ctx, func(tx store.Tx) error {
		if _, err := tx.GetAccount(ctx, accountID); err != nil {
			return err
		}
		return tx.CreateChannelAccount(ctx, c)
	})
	return c, err
}

// CreateKey issues a credential for an account in one environment (see
// CreateKeyWith).
func (s *Keys) CreateKey(ctx context.Context, accountID string, env adcamp.Environment) (*NewCredential, error) {
	return s.CreateKeyWith(ctx, KeyRequest{AccountID: accountID, Environment: env})
}

// ListKeys returns an account's credentials, oldest first, without secrets.
func (s *Keys) ListKeys(ctx context.Context, accountID string) ([]adcamp.APIKey, error) {
	var out []adcamp.APIKey
	err := s.read(ctx, func(tx store.Tx) error {
		if _, err := s.authorize(ctx, tx, accountID, actRead, adcamp.NotFound("account", accountID)); err != nil {
			return err
		}
		if _, err := tx.GetAccount(ctx, accountID); err != nil {
			return err
		}
		keys, err := tx.ListCredentials(ctx, accountID)
		for _, k := range keys {
			out = append(out, s.publicKey(k))
		}
		return err
	})
	return out, err
}

// SetKeyDisabled disables or re-enables a credential.
func (s *Keys) SetKeyDisabled(ctx context.Context, id string, disabled bool) (*adcamp.APIKey, error) {
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
		k.Disabled = disabled
		out = s.publicKey(k)
		if err := tx.UpdateCredential(ctx, k); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		recordKey(h, adcamp.OpUpdate, &prev, &out, false)
		return h.write(ctx, tx)
	})
	s.keys.forget(id)
	return &out, err
}

// DeleteKey removes a credential for good.
func (s *Keys) DeleteKey(ctx context.Context, id string) error {
	defer s.keys.forget(id)
	return s.write(ctx, func(tx store.Tx) error {
		k, err := tx.GetCredential(ctx, id)
		if err != nil {
			return err
		}
		if err := s.mayChangeKey(ctx, tx, k); err != nil {
			return err
		}
		if err := tx.DeleteCredential(ctx, id); err != nil {
			return err
		}
		prev := s.publicKey(k)
		h := s.newHistory(ctx, s.Now())
		recordKey(h, adcamp.OpDelete, &prev, nil, false)
		return h.write(ctx, tx)
	})
}

// DefaultRollGrace is how long a rolled key's old secret keeps verifying
// unless the operator says otherwise; MaxRollGrace is the longest grace a
// roll accepts.
const (
	DefaultRollGrace = 24 * time.Hour
	MaxRollGrace     = 30 * 24 * time.Hour
)

// RollKey issues a new secret for an existing credential. The old secret
// keeps verifying for grace, then stops; a grace of 0 revokes it at once
// (a leaked secret). A negative grace, or one over MaxRollGrace, is refused.
func (s *Keys) RollKey(ctx context.Context, id string, grace time.Duration) (*NewCredential, error) {
	if grace < 0 || grace > MaxRollGrace {
		var issues adcamp.Issues
		issues.Add("grace", "must be from 0 (the old secret stops at once) to %s, got %s", fmtDays(MaxRollGrace), grace)
		return nil, issues.Err()
	}
	var out *NewCredential
	err := s.write(ctx, func(tx store.Tx) error {
		k, err := tx.GetCredential(ctx, id)
		if err != nil {
			return err
		}
		if err := s.mayChangeKey(ctx, tx, k); err != nil {
			return err
		}
		old, _, _, err := openSecrets(s.box, k)
		if err != nil {
			return err
		}
		prev := s.publicKey(k)
		secret := "sk_" + k.Environment.KeyInfix() + "_" + randomToken(32, true)
		k.PreviousExpiresAt = nil
		if grace > 0 {
			expires := s.Now().Add(grace).Truncate(time.Second)
			k.PreviousExpiresAt = &expires
		} else {
			old = nil
		}
		seal(s.box, k, []byte(secret), old)
		out = &NewCredential{APIKey: s.publicKey(k), Secret: secret}
		if err := tx.UpdateCredential(ctx, k); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		recordKey(h, adcamp.OpUpdate, &prev, &out.APIKey, true)
		return h.write(ctx, tx)
	})
	s.keys.forget(id)
	return out, err
}

// fmtDays writes a whole number of days as "30 days" (720h0m0s otherwise).
func fmtDays(d time.Duration) string {
	return strconv.Itoa(int(d/(24*time.Hour))) + " days"
}

// publicKey is the record shown to operators: a previous-secret expiry
// that has passed is no longer worth showing.
func (s *core) publicKey(k *store.Credential) adcamp.APIKey {
	pub := k.APIKey
	if pub.PreviousExpiresAt != nil && !pub.PreviousExpiresAt.After(s.Now()) {
		pub.PreviousExpiresAt = nil
	}
	if pub.AllowedIPs == nil {
		pub.AllowedIPs = []netip.Prefix{}
	}
	return pub
}

// randomToken returns n random bytes as URL-safe text: base64url for
// secrets, lower-case base32 for key ids (easier to read aloud).
func randomToken(n int, b64 bool) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	if b64 {
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}
