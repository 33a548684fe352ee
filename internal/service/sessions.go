package service

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/mail"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// How long a console session lasts: it ends after SessionIdleTimeout
// without a request, and SessionLifetime after sign-in whatever happens.
const (
	SessionIdleTimeout = 12 * time.Hour
	SessionLifetime    = 7 * 24 * time.Hour
	// sessionTouchEvery spares a write per request: a session's last use
	// is written when it is older than this.
	sessionTouchEvery = time.Minute
	// secondStepTimeout bounds the wait between a password accepted and
	// the authenticator code that completes the sign-in.
	secondStepTimeout = 5 * time.Minute
)

// Sign-in throttling: after SignInLimitPerEmail failures for one email,
// or SignInLimitPerAddress from one client address, within
// SignInWindow, sign-ins are refused until the oldest failure leaves the
// window. The email's limit holds whether or not a user has that email,
// so the refusal says nothing about which emails exist.
const (
	SignInWindow          = 15 * time.Minute
	SignInLimitPerEmail   = 10
	SignInLimitPerAddress = 20
)

// console is the Service's state for the console.
type console struct {
	// hashing bounds the password hashes computed at once: each takes
	// 19 MiB and a core for tens of milliseconds.
	hashing chan struct{}
	// purgedAt is when purgeConsole last ran (Unix seconds).
	purgedAt atomic.Int64
}

// slot waits for a turn to hash a password.
func (s *core) slot(ctx context.Context) (release func(), err error) {
	select {
	case s.console.hashing <- struct{}{}:
		return func() { <-s.console.hashing }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// checkPasswordSlot is checkPassword in a hashing slot.
func (s *core) checkPasswordSlot(ctx context.Context, encoded, password string) (ok, rehash bool, err error) {
	release, err := s.slot(ctx)
	if err != nil {
		return false, false, err
	}
	defer release()
	return checkPassword(encoded, password)
}

// hashPasswordSlot is hashPassword in a hashing slot.
func (s *core) hashPasswordSlot(ctx context.Context, password string) (string, error) {
	release, err := s.slot(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return hashPassword(password), nil
}

// newToken returns a random token (URL-safe, 256 bits) and its hash, the
// only form in which it is stored.
func newToken() (token string, hash []byte) {
	token = randomToken(32, true)
	return token, hashToken(token)
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// normalizeEmail is an email as stored: trimmed, in lower case.
func normalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// checkEmail adds an issue if email (normalized) is not a plain address.
func checkEmail(issues *adcamp.Issues, field, email string) {
	a, err := mail.ParseAddress(email)
	switch {
	case email == "":
		issues.AddKind(field, adcamp.IssueEmpty, "", "must not be empty")
	case len(email) > 254:
		issues.AddKind(field, adcamp.IssueTooLong, "254", "must be at most 254 characters")
	case err != nil || a.Address != email || a.Name != "" || strings.IndexFunc(email, unicode.IsSpace) >= 0:
		issues.AddKind(field, adcamp.IssueNotEmail, "", "must be an email address, such as ann@example.com")
	}
}

// SignInRequest is a sign-in form.
type SignInRequest struct {
	Email      string
	Password   string
	ClientAddr string // the client's IP address, for throttling
}

// SignIn is the outcome of a step of signing in: a session, or a second
// step to take.
type SignIn struct {
	User adcamp.User
	// Session is the new session's token (the cookie's value), when
	// signed in.
	Session string
	// SecondStep is set instead when the user must also give a code of
	// their authenticator app: the token of that step (see SignInCode).
	SecondStep string
}

// errSignIn is the one answer to a wrong email or password: it does not
// say which was wrong.
var errSignIn = adcamp.Errorf(adcamp.CodeUnauthorized, "The email or the password is not right.")

// SignIn checks an email and a password. It is throttled per email and
// per client address (see SignInWindow); failures are recorded.
func (s *Access) SignIn(ctx context.Context, r SignInRequest) (*SignIn, error) {
	email := normalizeEmail(r.Email)
	keys := throttleKeys(email, r.ClientAddr)
	if err := s.throttled(ctx, keys); err != nil {
		return nil, err
	}
	var u *store.User
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		u, err = tx.GetUserByEmail(ctx, email)
		return err
	})
	if err != nil && adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		return nil, err
	}
	hash := dummyHash()
	if u != nil && u.PasswordHash != "" {
		hash = u.PasswordHash
	}
	ok, rehash, err := s.checkPasswordSlot(ctx, hash, r.Password)
	if err != nil {
		return nil, err
	}
	if !ok || u == nil || u.PasswordHash == "" {
		return nil, s.failed(ctx, keys, errSignIn)
	}
	if rehash {
		s.rehash(ctx, u.ID, r.Password)
	}
	return s.signedIn(ctx, u, keys[0])
}

// throttleKeys names what failures are counted by: the email, and the
// client's address when known.
func throttleKeys(email, addr string) []string {
	keys := []string{"email:" + email}
	if addr != "" {
		keys = append(keys, "addr:"+addr)
	}
	return keys
}

// throttled refuses when any of keys has reached its limit of failures.
func (s *core) throttled(ctx context.Context, keys []string) error {
	now := s.Now()
	for _, k := range keys {
		limit := int64(SignInLimitPerEmail)
		if strings.HasPrefix(k, "addr:") {
			limit = SignInLimitPerAddress
		}
		var n int64
		var first time.Time
		err := s.readOne(ctx, func(tx store.Tx) error {
			var err error
			n, first, err = tx.SignInFailures(ctx, k, now.Add(-SignInWindow))
			return err
		})
		if err != nil {
			return err
		}
		if n >= limit {
			wait := max(first.Add(SignInWindow).Sub(now), time.Second)
			minutes := int((wait + time.Minute - 1) / time.Minute)
			unit := "minutes"
			if minutes == 1 {
				unit = "minute"
			}
			return &adcamp.Error{Code: adcamp.CodeRateLimited,
				Message: fmt.Sprintf("Too many failed attempts to sign in. Wait %d %s, then try again.", minutes, unit),
				Details: map[string]any{"retry_after_seconds": int64((wait + time.Second - 1) / time.Second)}}
		}
	}
	return nil
}

// failed records a failure under keys and returns err.
func (s *core) failed(ctx context.Context, keys []string, err error) error {
	now := s.Now()
	werr := s.write(ctx, func(tx store.Tx) error { return tx.AddSignInFailure(ctx, keys, now) })
	if werr != nil {
		return werr
	}
	return err
}

// rehash stores password again under today's parameters; a failure only
// postpones it to the next sign-in.
func (s *core) rehash(ctx context.Context, userID, password string) {
	h, err := s.hashPasswordSlot(ctx, password)
	if err == nil {
		err = s.write(ctx, func(tx store.Tx) error {
			u, err := tx.GetUser(ctx, userID)
			if err != nil {
				return err
			}
			u.PasswordHash = h
			return tx.UpdateUser(ctx, u)
		})
	}
	if err != nil {
		s.log.Warn("store a password hash with today's parameters", "user", userID, "err", err)
	}
}

// signedIn completes a sign-in whose password was right: the email's
// failures are forgotten (not the address's), and either a session
// starts or, for a user with an authenticator, the second step.
func (s *core) signedIn(ctx context.Context, u *store.User, emailKey string) (*SignIn, error) {
	now := s.Now()
	out := &SignIn{User: u.User}
	err := s.write(ctx, func(tx store.Tx) error {
		if err := tx.ClearSignInFailures(ctx, emailKey); err != nil {
			return err
		}
		if u.TwoStep {
			token, hash := newToken()
			out.SecondStep = token
			return tx.CreateToken(ctx, &store.Token{Hash: hash, Purpose: store.TokenSignIn, UserID: u.ID,
				CreatedAt: now, ExpiresAt: now.Add(secondStepTimeout)})
		}
		var err error
		out.Session, err = startSession(ctx, tx, u.ID, now)
		return err
	})
	return out, err
}

// startSession creates a session for userID in tx and returns its token.
func startSession(ctx context.Context, tx store.Tx, userID string, now time.Time) (string, error) {
	token, hash := newToken()
	return token, tx.CreateSession(ctx, &store.Session{Hash: hash, UserID: userID, CreatedAt: now, LastSeenAt: now})
}

// SecondStepUser returns the user of a sign-in awaiting its second step,
// or NOT_FOUND if the step has expired.
func (s *Access) SecondStepUser(ctx context.Context, secondStep string) (*adcamp.User, error) {
	var u *store.User
	err := s.read(ctx, func(tx store.Tx) error {
		k, err := tx.GetToken(ctx, hashToken(secondStep), store.TokenSignIn, s.Now())
		if err != nil {
			return errSecondStepGone
		}
		u, err = tx.GetUser(ctx, k.UserID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &u.User, nil
}

var errSecondStepGone = adcamp.Errorf(adcamp.CodeNotFound, "This sign-in has expired; sign in again.")

// SignInCode completes a sign-in with a code of the user's authenticator
// app (each accepted once) or one of their recovery codes. It is
// throttled like SignIn.
func (s *Access) SignInCode(ctx context.Context, secondStep, code, clientAddr string) (*SignIn, error) {
	u, err := s.SecondStepUser(ctx, secondStep)
	if err != nil {
		return nil, err
	}
	keys := throttleKeys(u.Email, clientAddr)
	if err := s.throttled(ctx, keys); err != nil {
		return nil, err
	}
	if err := s.checkCode(ctx, u.ID, code); err != nil {
		return nil, s.failed(ctx, keys, err)
	}
	now := s.Now()
	out := &SignIn{User: *u}
	err = s.write(ctx, func(tx store.Tx) error {
		if _, err := tx.TakeToken(ctx, hashToken(secondStep), store.TokenSignIn, now); err != nil {
			return errSecondStepGone
		}
		if err := tx.ClearSignInFailures(ctx, keys[0]); err != nil {
			return err
		}
		var err error
		out.Session, err = startSession(ctx, tx, u.ID, now)
		return err
	})
	return out, err
}

// Session is a signed-in browser's session.
type Session struct {
	User       adcamp.User
	CreatedAt  time.Time
	LastSeenAt time.Time
	hash       []byte
}

var errNoSession = adcamp.Errorf(adcamp.CodeUnauthorized, "Sign in to continue.")

// Session returns the session of token, or UNAUTHORIZED if there is none
// or it has ended (idle for SessionIdleTimeout, or older than
// SessionLifetime). It records the session's use.
func (s *Access) Session(ctx context.Context, token string) (*Session, error) {
	if token == "" || len(token) > 100 {
		return nil, errNoSession
	}
	now := s.Now()
	hash := hashToken(token)
	var out *Session
	err := s.read(ctx, func(tx store.Tx) error {
		ss, err := tx.GetSession(ctx, hash)
		if err != nil {
			return err
		}
		u, err := tx.GetUser(ctx, ss.UserID)
		if err != nil {
			return err
		}
		out = &Session{User: u.User, CreatedAt: ss.CreatedAt, LastSeenAt: ss.LastSeenAt, hash: hash}
		return nil
	})
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
		return nil, errNoSession
	}
	if err != nil {
		return nil, err
	}
	if now.Sub(out.LastSeenAt) >= SessionIdleTimeout || now.Sub(out.CreatedAt) >= SessionLifetime {
		if err := s.write(ctx, func(tx store.Tx) error { return tx.DeleteSession(ctx, hash) }); err != nil {
			return nil, err
		}
		return nil, adcamp.Errorf(adcamp.CodeUnauthorized, "Your session has ended; sign in again.")
	}
	if now.Sub(out.LastSeenAt) >= sessionTouchEvery {
		err := s.write(ctx, func(tx store.Tx) error { return tx.TouchSession(ctx, hash, now) })
		if adcamp.ErrorCode(err) == adcamp.CodeNotFound { // ended meanwhile
			return nil, errNoSession
		}
		if err != nil {
			return nil, err
		}
		out.LastSeenAt = now
	}
	return out, nil
}

// SignOut ends the session of token.
func (s *Access) SignOut(ctx context.Context, token string) error {
	return s.write(ctx, func(tx store.Tx) error { return tx.DeleteSession(ctx, hashToken(token)) })
}

// SignOutEverywhere ends every session of the user of token, that one
// included, and says how many it ended.
func (s *Access) SignOutEverywhere(ctx context.Context, token string) (int64, error) {
	ss, err := s.Session(ctx, token)
	if err != nil {
		return 0, err
	}
	var n int64
	err = s.write(ctx, func(tx store.Tx) error {
		var err error
		n, err = tx.DeleteUserSessions(ctx, ss.User.ID, nil)
		return err
	})
	return n, err
}

// consolePurgeEvery is how often purgeConsole does its work.
const consolePurgeEvery = time.Minute

// purgeConsole deletes what the console no longer needs: sessions ended,
// tokens expired, sign-in failures out of the window, and requests per day
// older than the charts show. It does so at most every consolePurgeEvery.
func (s *core) purgeConsole(ctx context.Context) {
	now := s.Now()
	last := s.console.purgedAt.Load()
	if now.Unix()-last < int64(consolePurgeEvery/time.Second) || !s.console.purgedAt.CompareAndSwap(last, now.Unix()) {
		return
	}
	err := s.store.Write(ctx, func(tx store.Tx) error {
		if _, err := tx.PurgeSessions(ctx, now.Add(-SessionIdleTimeout), now.Add(-SessionLifetime)); err != nil {
			return err
		}
		if _, err := tx.PurgeTokens(ctx, now); err != nil {
			return err
		}
		if _, err := tx.PurgeSignInFailures(ctx, now.Add(-SignInWindow)); err != nil {
			return err
		}
		_, err := tx.PurgeCredentialUses(ctx, adcamp.DateOf(now.AddDate(0, 0, -usageKeptDays)))
		return err
	})
	if err != nil {
		s.log.Error("purge the console's expired sessions and tokens", "err", err)
	}
}
