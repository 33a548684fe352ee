package store

import (
	"context"
	"time"

	"github.com/adcamp/adcamp"
)

// ConsoleTx is what the account console needs from a transaction: its
// users and their membership of accounts, sessions, one-time tokens,
// sign-in failures, recovery codes, and the credentials' uses per day.
// Tokens, sessions and recovery codes are kept as hashes only: whoever
// reads the database cannot sign in with what they find.
type ConsoleTx interface {
	// HasUsers reports whether any console user exists.
	HasUsers(ctx context.Context) (bool, error)
	// CreateUser stores u; an email taken by another user is CONFLICT.
	CreateUser(ctx context.Context, u *User) error
	GetUser(ctx context.Context, id string) (*User, error)
	// GetUserByEmail finds a user by their email as stored (lower case).
	GetUserByEmail(ctx context.Context, email string) (*User, error)
	// UpdateUser writes the mutable fields of u: its password hash and
	// its two-step sign-in (TOTP) fields.
	UpdateUser(ctx context.Context, u *User) error

	// CreateMember adds a user to an account; a user already a member
	// is CONFLICT.
	CreateMember(ctx context.Context, m *adcamp.Member) error
	// GetMember returns a user's membership of an account, with the user.
	GetMember(ctx context.Context, accountID, userID string) (*adcamp.Member, error)
	// ListMembers returns an account's members, in the order they were
	// added (then by user id).
	ListMembers(ctx context.Context, accountID string) ([]*adcamp.Member, error)
	// ListMemberships returns the accounts a user is a member of, in the
	// order they were added to them (then by account id).
	ListMemberships(ctx context.Context, userID string) ([]*adcamp.Member, error)
	SetMemberRole(ctx context.Context, accountID, userID string, role adcamp.Role) error
	DeleteMember(ctx context.Context, accountID, userID string) error
	// CountOwners counts the owners of an account.
	CountOwners(ctx context.Context, accountID string) (int64, error)

	CreateSession(ctx context.Context, s *Session) error
	// GetSession finds a session by the hash of its token.
	GetSession(ctx context.Context, hash []byte) (*Session, error)
	// TouchSession records that a session was used at at.
	TouchSession(ctx context.Context, hash []byte, at time.Time) error
	DeleteSession(ctx context.Context, hash []byte) error
	// DeleteUserSessions ends every session of a user but the one whose
	// hash is keep (nil for none), and says how many it ended.
	DeleteUserSessions(ctx context.Context, userID string, keep []byte) (int64, error)
	// PurgeSessions deletes the sessions last used before idleBefore or
	// created before createdBefore.
	PurgeSessions(ctx context.Context, idleBefore, createdBefore time.Time) (int64, error)

	CreateToken(ctx context.Context, t *Token) error
	// GetToken returns the token with hash and purpose that has not
	// expired at now, or NOT_FOUND.
	GetToken(ctx context.Context, hash []byte, purpose TokenPurpose, now time.Time) (*Token, error)
	// TakeToken is GetToken that also deletes the token: it is used once.
	TakeToken(ctx context.Context, hash []byte, purpose TokenPurpose, now time.Time) (*Token, error)
	// DeleteUserTokens deletes a user's tokens of one purpose.
	DeleteUserTokens(ctx context.Context, userID string, purpose TokenPurpose) error
	// PurgeTokens deletes the tokens expired at now.
	PurgeTokens(ctx context.Context, now time.Time) (int64, error)

	// AddSignInFailure records a failed sign-in at at under each key (an
	// email, a client address).
	AddSignInFailure(ctx context.Context, keys []string, at time.Time) error
	// SignInFailures counts the failures of key at or after since, and
	// gives the time of the earliest of them.
	SignInFailures(ctx context.Context, key string, since time.Time) (n int64, first time.Time, err error)
	// ClearSignInFailures forgets the failures of key.
	ClearSignInFailures(ctx context.Context, key string) error
	// PurgeSignInFailures deletes the failures before before.
	PurgeSignInFailures(ctx context.Context, before time.Time) (int64, error)

	// SetRecoveryCodes replaces a user's recovery codes with hashes.
	SetRecoveryCodes(ctx context.Context, userID string, hashes [][]byte) error
	// UseRecoveryCode deletes a user's recovery code, or answers NOT_FOUND.
	UseRecoveryCode(ctx context.Context, userID string, hash []byte) error
	CountRecoveryCodes(ctx context.Context, userID string) (int64, error)

	// AddCredentialUses adds to the counts of requests per credential and
	// day; unknown credentials are ignored.
	AddCredentialUses(ctx context.Context, uses map[CredentialDay]int64) error
	// ListCredentialUses returns the counts of an account's credentials
	// from since on, by credential and day.
	ListCredentialUses(ctx context.Context, accountID string, since adcamp.Date) (map[CredentialDay]int64, error)
	// PurgeCredentialUses deletes the counts of days before before.
	PurgeCredentialUses(ctx context.Context, before adcamp.Date) (int64, error)
}

// User is a stored console user: the public record, and what signs them in.
type User struct {
	adcamp.User
	// PasswordHash is the password's Argon2id hash in the PHC string
	// format, parameters included; "" until the user sets a password.
	PasswordHash string
	// TOTPSecret is the sealed key of the user's authenticator app, nil
	// when two-step sign-in is off.
	TOTPSecret []byte
	// TOTPLastStep is the time step (Unix time / 30 s) of the last code
	// accepted, so that no code is accepted twice.
	TOTPLastStep int64
}

// Session is a signed-in browser. Its token is the cookie's value; only
// the token's SHA-256 is stored.
type Session struct {
	Hash       []byte
	UserID     string
	CreatedAt  time.Time
	LastSeenAt time.Time
}

// TokenPurpose says what a one-time token is for.
type TokenPurpose string

// The purposes of one-time tokens.
const (
	TokenSetup    TokenPurpose = "setup"    // create the first account and its owner
	TokenPassword TokenPurpose = "password" // set a user's password (an invitation)
	TokenSignIn   TokenPurpose = "signin"   // a password accepted, a second factor awaited
	TokenTOTP     TokenPurpose = "totp"     // an authenticator being set up
	TokenReveal   TokenPurpose = "reveal"   // a new secret, to be shown once
)

// Token is a one-time token: a link or a step of a form. Only the token's
// SHA-256 is stored.
type Token struct {
	Hash    []byte
	Purpose TokenPurpose
	UserID  string // "" for a setup token
	// Data is what the token carries, sealed under the master key (the
	// secret to reveal, the authenticator's key), or nil.
	Data      []byte
	CreatedAt time.Time
	ExpiresAt time.Time
}

// CredentialDay names a credential's requests of one day (UTC).
type CredentialDay struct {
	KeyID string
	Day   adcamp.Date
}
