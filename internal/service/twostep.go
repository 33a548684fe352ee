package service

import (
	"context"
	"crypto/subtle"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Two-step sign-in: a user may add an authenticator app (TOTP, RFC 6238:
// six digits every 30 seconds). Its key is stored sealed under the master
// key. A code is accepted once only (the step of the last one accepted is
// kept), within one step of the server's clock either way. Ten recovery
// codes, shown once, each stand in for a code once.

const (
	totpPeriod        = 30 // seconds
	totpIssuer        = "adcamp"
	recoveryCodeCount = 10
	// twoStepSetupTimeout bounds the time to scan the key and confirm it.
	twoStepSetupTimeout = 15 * time.Minute
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// actorUser returns the console user of ctx's origin, or UNAUTHORIZED.
func actorUser(ctx context.Context) (string, error) {
	a := OriginOf(ctx).Actor
	if a.Type != adcamp.ActorUser || a.ID == "" {
		return "", errNoSession
	}
	return a.ID, nil
}

// totpAAD binds a sealed TOTP key to its user.
func totpAAD(userID string) []byte { return []byte("totp " + userID) }

// TwoStepSetup is an authenticator being added: the key to enter in the
// app (Secret, base32) or to scan (URL, otpauth://), and the token of the
// form that confirms it with a first code.
type TwoStepSetup struct {
	Token  string
	Secret string
	URL    string
}

// BeginTwoStep starts adding an authenticator for the user of ctx.
func (s *Access) BeginTwoStep(ctx context.Context) (*TwoStepSetup, error) {
	userID, err := actorUser(ctx)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	out := &TwoStepSetup{}
	err = s.write(ctx, func(tx store.Tx) error {
		u, err := tx.GetUser(ctx, userID)
		if err != nil {
			return err
		}
		if u.TwoStep {
			return adcamp.Errorf(adcamp.CodeConflict, "Two-step sign-in is on already.")
		}
		key, err := totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: u.Email, Period: totpPeriod})
		if err != nil {
			return err
		}
		token, hash := newToken()
		out.Token, out.Secret, out.URL = token, key.Secret(), key.URL()
		if err := tx.DeleteUserTokens(ctx, userID, store.TokenTOTP); err != nil {
			return err
		}
		return tx.CreateToken(ctx, &store.Token{Hash: hash, Purpose: store.TokenTOTP, UserID: userID,
			Data: s.box.Seal([]byte(key.URL()), hash), CreatedAt: now, ExpiresAt: now.Add(twoStepSetupTimeout)})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

var errSetupGone = adcamp.Errorf(adcamp.CodeNotFound, "This setup has expired; start again.")

// PendingTwoStep returns the authenticator being added under token, to
// show it again.
func (s *Access) PendingTwoStep(ctx context.Context, token string) (*TwoStepSetup, error) {
	userID, err := actorUser(ctx)
	if err != nil {
		return nil, err
	}
	var k *store.Token
	err = s.readOne(ctx, func(tx store.Tx) error {
		var err error
		k, err = tx.GetToken(ctx, hashToken(token), store.TokenTOTP, s.Now())
		return err
	})
	if err != nil || k.UserID != userID {
		return nil, errSetupGone
	}
	url, err := s.box.Open(k.Data, k.Hash)
	if err != nil {
		return nil, err
	}
	key, err := otp.NewKeyFromURL(string(url))
	if err != nil {
		return nil, err
	}
	return &TwoStepSetup{Token: token, Secret: key.Secret(), URL: key.URL()}, nil
}

// EnableTwoStep confirms the authenticator being added with a code of it
// and the user's password (as turning it off does: whoever borrowed a
// session must not bind their own authenticator and lock the user out),
// turns two-step sign-in on and returns the recovery codes, shown once.
func (s *Access) EnableTwoStep(ctx context.Context, token, code, password string) ([]string, error) {
	setup, err := s.PendingTwoStep(ctx, token)
	if err != nil {
		return nil, err
	}
	userID, _ := actorUser(ctx)
	if err := s.confirmPassword(ctx, userID, "password", password); err != nil {
		return nil, err
	}
	step, ok := matchTOTP(setup.Secret, code, 0, s.Now())
	if !ok {
		var issues adcamp.Issues
		issues.AddKind("code", adcamp.IssueWrongCode, "", "is not the code the app shows now; check the app's clock and try again")
		return nil, issues.Err()
	}
	codes, hashes := newRecoveryCodes()
	err = s.write(ctx, func(tx store.Tx) error {
		if _, err := tx.TakeToken(ctx, hashToken(token), store.TokenTOTP, s.Now()); err != nil {
			return errSetupGone
		}
		u, err := tx.GetUser(ctx, userID)
		if err != nil {
			return err
		}
		u.TOTPSecret, u.TOTPLastStep = s.box.Seal([]byte(setup.Secret), totpAAD(userID)), step
		if err := tx.UpdateUser(ctx, u); err != nil {
			return err
		}
		return tx.SetRecoveryCodes(ctx, userID, hashes)
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTwoStep turns two-step sign-in off for the user of ctx, who
// confirms with their password.
func (s *Access) DisableTwoStep(ctx context.Context, password string) error {
	userID, err := actorUser(ctx)
	if err != nil {
		return err
	}
	if err := s.confirmPassword(ctx, userID, "password", password); err != nil {
		return err
	}
	return s.write(ctx, func(tx store.Tx) error {
		u, err := tx.GetUser(ctx, userID)
		if err != nil {
			return err
		}
		u.TOTPSecret, u.TOTPLastStep = nil, 0
		return clearTwoStep(ctx, tx, u)
	})
}

// TwoStepReset is what ResetTwoStep did.
type TwoStepReset struct {
	User adcamp.User
	// Accounts are the accounts the user belongs to, whose history
	// records the reset.
	Accounts      []string
	SessionsEnded int64
}

// ResetTwoStep turns two-step sign-in off for the user with email, for an
// operator at the command line: the way back for a user who lost their
// authenticator and their recovery codes, who may be the only owner of
// an account, with no one else to ask. Their recovery codes go, and their
// sessions end (whoever bound an authenticator may hold one); they sign
// in with their password next. Each account they belong to records it in
// its history, by the operator.
func (s *Access) ResetTwoStep(ctx context.Context, email string) (*TwoStepReset, error) {
	if a := OriginOf(ctx).Actor; a.Type != adcamp.ActorAdmin && a.Type != adcamp.ActorSystem {
		return nil, adcamp.Errorf(adcamp.CodeForbidden, "only an operator can turn off another user's two-step sign-in")
	}
	now := s.Now()
	var out *TwoStepReset
	err := s.write(ctx, func(tx store.Tx) error {
		u, err := tx.GetUserByEmail(ctx, normalizeEmail(email))
		if err != nil {
			return err
		}
		if !u.TwoStep {
			return adcamp.Errorf(adcamp.CodeConflict, "Two-step sign-in is off for %s already.", u.Email)
		}
		u.TOTPSecret, u.TOTPLastStep, u.TwoStep = nil, 0, false
		out = &TwoStepReset{User: u.User}
		if err := clearTwoStep(ctx, tx, u); err != nil {
			return err
		}
		if out.SessionsEnded, err = tx.DeleteUserSessions(ctx, u.ID, nil); err != nil {
			return err
		}
		ms, err := tx.ListMemberships(ctx, u.ID)
		if err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		for _, m := range ms {
			recordTwoStep(h, m, true, false)
			out.Accounts = append(out.Accounts, m.AccountID)
		}
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// clearTwoStep stores u without its authenticator, and deletes its
// recovery codes, an authenticator being added, and sign-ins awaiting
// their second step.
func clearTwoStep(ctx context.Context, tx store.Tx, u *store.User) error {
	if err := tx.UpdateUser(ctx, u); err != nil {
		return err
	}
	if err := tx.SetRecoveryCodes(ctx, u.ID, nil); err != nil {
		return err
	}
	for _, p := range []store.TokenPurpose{store.TokenTOTP, store.TokenSignIn} {
		if err := tx.DeleteUserTokens(ctx, u.ID, p); err != nil {
			return err
		}
	}
	return nil
}

// NewRecoveryCodes replaces the recovery codes of the user of ctx, who
// confirms with their password, and returns the new ones, shown once.
func (s *Access) NewRecoveryCodes(ctx context.Context, password string) ([]string, error) {
	userID, err := actorUser(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.confirmPassword(ctx, userID, "password", password); err != nil {
		return nil, err
	}
	codes, hashes := newRecoveryCodes()
	err = s.write(ctx, func(tx store.Tx) error {
		u, err := tx.GetUser(ctx, userID)
		if err != nil {
			return err
		}
		if !u.TwoStep {
			return adcamp.Errorf(adcamp.CodeConflict, "Two-step sign-in is off: there are no recovery codes to replace.")
		}
		return tx.SetRecoveryCodes(ctx, userID, hashes)
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// RecoveryCodesLeft counts the unused recovery codes of the user of ctx.
func (s *Access) RecoveryCodesLeft(ctx context.Context) (int64, error) {
	userID, err := actorUser(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	err = s.readOne(ctx, func(tx store.Tx) error {
		var err error
		n, err = tx.CountRecoveryCodes(ctx, userID)
		return err
	})
	return n, err
}

// newRecoveryCodes returns recovery codes (ten lower-case letters and
// digits, written xxxxx-xxxxx: 50 bits each) and their hashes.
func newRecoveryCodes() (codes []string, hashes [][]byte) {
	for range recoveryCodeCount {
		c := randomToken(7, false)[:10]
		codes = append(codes, c[:5]+"-"+c[5:])
		hashes = append(hashes, hashToken(c))
	}
	return codes, hashes
}

// normalizeCode reads a code as typed: spaces and dashes left out, lower
// case.
func normalizeCode(code string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(code)))
}

// matchTOTP returns the time step whose code is code, looking one step
// either side of now, among the steps after lastStep (so that a code
// accepted once is not accepted again).
func matchTOTP(secret, code string, lastStep int64, now time.Time) (int64, bool) {
	code = normalizeCode(code)
	if len(code) != 6 {
		return 0, false
	}
	cur := now.Unix() / totpPeriod
	for step := cur - 1; step <= cur+1; step++ {
		if step <= lastStep {
			continue
		}
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*totpPeriod, 0), totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step, true
		}
	}
	return 0, false
}

var errBadCode = adcamp.Errorf(adcamp.CodeUnauthorized, "That code is not right, or was used already.")

// checkCode accepts a current code of the user's authenticator, once, or
// one of their recovery codes, once.
func (s *core) checkCode(ctx context.Context, userID, code string) error {
	now := s.Now()
	return s.write(ctx, func(tx store.Tx) error {
		u, err := tx.GetUser(ctx, userID)
		if err != nil {
			return err
		}
		if !u.TwoStep {
			return errBadCode
		}
		if c := normalizeCode(code); len(c) == 10 {
			if err := tx.UseRecoveryCode(ctx, userID, hashToken(c)); err != nil {
				return errBadCode
			}
			return nil
		}
		secret, err := s.box.Open(u.TOTPSecret, totpAAD(userID))
		if err != nil {
			return err
		}
		step, ok := matchTOTP(string(secret), code, u.TOTPLastStep, now)
		if !ok {
			return errBadCode
		}
		u.TOTPLastStep = step
		return tx.UpdateUser(ctx, u)
	})
}
