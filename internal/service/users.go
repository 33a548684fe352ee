package service

import (
	"context"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// How long one-time links stay valid.
const (
	SetupLinkTimeout    = time.Hour
	PasswordLinkTimeout = 72 * time.Hour
)

// NeedsSetup reports whether the console has no user yet, so that the
// first one must be created with a setup link.
func (s *Access) NeedsSetup(ctx context.Context) (bool, error) {
	var has bool
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		has, err = tx.HasUsers(ctx)
		return err
	})
	return !has, err
}

// NewSetupLink returns a one-time token for the page that creates the
// first account and its owner, valid for SetupLinkTimeout, or "" when the
// console has users already.
func (s *Access) NewSetupLink(ctx context.Context) (string, error) {
	now := s.Now()
	var token string
	err := s.write(ctx, func(tx store.Tx) error {
		if has, err := tx.HasUsers(ctx); has || err != nil {
			return err
		}
		var hash []byte
		token, hash = newToken()
		return tx.CreateToken(ctx, &store.Token{Hash: hash, Purpose: store.TokenSetup, CreatedAt: now, ExpiresAt: now.Add(SetupLinkTimeout)})
	})
	return token, err
}

// The answers to a setup link that no longer works. Once someone can sign
// in, serve prints no new link (see NewSetupLink), so advising a restart
// would not help: signing in, or being added by an owner, does.
var (
	errSetupLink = adcamp.Errorf(adcamp.CodeNotFound,
		"This setup link is not valid: it was used already, or it has expired. Restart adcamp serve: while no one can sign in, it prints a new one.")
	errSetUpAlready = adcamp.Errorf(adcamp.CodeNotFound,
		"adcamp is set up already, so this one-time setup link no longer works. Sign in with your email and password; "+
			"if you have no account here yet, ask an owner of one to add you as a member.")
)

// CheckSetupLink answers NOT_FOUND unless token is a setup link that can
// still be used.
func (s *Access) CheckSetupLink(ctx context.Context, token string) error {
	return s.read(ctx, func(tx store.Tx) error { return checkSetupLink(ctx, tx, token, s.Now(), false) })
}

// checkSetupLink checks in tx that the console has no user and that token
// is a live setup link, which take uses up.
func checkSetupLink(ctx context.Context, tx store.Tx, token string, now time.Time, take bool) error {
	has, err := tx.HasUsers(ctx)
	if err != nil {
		return err
	}
	if has {
		return errSetUpAlready
	}
	if take {
		_, err = tx.TakeToken(ctx, hashToken(token), store.TokenSetup, now)
	} else {
		_, err = tx.GetToken(ctx, hashToken(token), store.TokenSetup, now)
	}
	return asGone(err, errSetupLink)
}

// asGone returns gone for a NOT_FOUND err, and err otherwise.
func asGone(err, gone error) error {
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
		return gone
	}
	return err
}

// SetupRequest is the form of the setup page.
type SetupRequest struct {
	Token       string
	AccountName string
	Email       string
	Password    string
}

// Setup uses a setup link: it creates the first account, its owner (the
// console's first user) and a session for them, in one transaction.
func (s *Access) Setup(ctx context.Context, r SetupRequest) (*SignIn, error) {
	if err := s.CheckSetupLink(ctx, r.Token); err != nil {
		return nil, err
	}
	var issues adcamp.Issues
	name, email := strings.TrimSpace(r.AccountName), normalizeEmail(r.Email)
	checkText(&issues, "account_name", name, 200)
	checkEmail(&issues, "email", email)
	checkNewPassword(&issues, "password", r.Password, email)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	hash, err := s.hashPasswordSlot(ctx, r.Password)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	created := now.Truncate(time.Second)
	acc := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, now), Name: name, Email: email, CreatedAt: created}
	u := &store.User{User: adcamp.User{ID: adcamp.NewID(adcamp.PrefixUser, now), Email: email, CreatedAt: created, PasswordSet: true},
		PasswordHash: hash}
	out := &SignIn{User: u.User}
	err = s.write(ctx, func(tx store.Tx) error {
		if err := checkSetupLink(ctx, tx, r.Token, now, true); err != nil {
			return err
		}
		if err := tx.CreateAccount(ctx, acc); err != nil {
			return err
		}
		if err := tx.CreateUser(ctx, u); err != nil {
			return err
		}
		m := &adcamp.Member{AccountID: acc.ID, User: u.User, Role: adcamp.RoleOwner, AddedAt: created}
		if err := tx.CreateMember(ctx, m); err != nil {
			return err
		}
		// The first owner adds themselves, through the setup link.
		h := s.newHistory(ctx, now)
		if h.origin.Actor.Type == adcamp.ActorSystem {
			h.origin.Actor = adcamp.Actor{Type: adcamp.ActorUser, ID: u.ID}
		}
		recordMember(h, adcamp.OpCreate, nil, m)
		if err := h.write(ctx, tx); err != nil {
			return err
		}
		var err error
		out.Session, err = startSession(ctx, tx, u.ID, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Invitation is a member added to an account. A user who had no password
// yet gets a one-time link to set one: Token, valid until ExpiresAt.
type Invitation struct {
	Member    adcamp.Member
	Token     string // "" when the user has a password already, or PendingElsewhere
	ExpiresAt time.Time
	// PendingElsewhere says the user has no password yet but belongs to
	// another account too, whose invitation they are to use: no link is
	// made here, since whoever held it could sign in to that account.
	PendingElsewhere bool
}

// AddMember adds the user with email (created if new) to accountID with
// role. Only an owner (or the admin command line) may. A user without a
// password gets a new set-password link, which replaces any earlier one,
// if the caller may have one (see mayLink); otherwise they set their
// password through the invitation they have, and see this account when
// they sign in.
func (s *Access) AddMember(ctx context.Context, accountID, email string, role adcamp.Role) (*Invitation, error) {
	var issues adcamp.Issues
	email = normalizeEmail(email)
	checkEmail(&issues, "email", email)
	if _, ok := adcamp.ParseRole(string(role)); !ok {
		issues.AddKind("role", adcamp.IssueNotOneOf, joinValues(adcamp.Roles), "must be owner, developer or viewer")
	}
	if err := issues.Err(); err != nil {
		return nil, err
	}
	now := s.Now()
	out := &Invitation{}
	err := s.write(ctx, func(tx store.Tx) error {
		if _, err := s.authorize(ctx, tx, accountID, actMembers, adcamp.NotFound("account", accountID)); err != nil {
			return err
		}
		if _, err := tx.GetAccount(ctx, accountID); err != nil {
			return err
		}
		u, err := tx.GetUserByEmail(ctx, email)
		created := adcamp.ErrorCode(err) == adcamp.CodeNotFound
		if created {
			u = &store.User{User: adcamp.User{ID: adcamp.NewID(adcamp.PrefixUser, now), Email: email, CreatedAt: now.Truncate(time.Second)}}
			err = tx.CreateUser(ctx, u)
		}
		if err != nil {
			return err
		}
		link := !u.PasswordSet
		if link && !created {
			if link, err = mayLink(ctx, tx, u.ID, accountID); err != nil {
				return err
			}
			out.PendingElsewhere = !link
		}
		out.Member = adcamp.Member{AccountID: accountID, User: u.User, Role: role, AddedAt: now.Truncate(time.Second)}
		if err := tx.CreateMember(ctx, &out.Member); err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		recordMember(h, adcamp.OpCreate, nil, &out.Member)
		if err := h.write(ctx, tx); err != nil {
			return err
		}
		if link {
			out.Token, out.ExpiresAt, err = newPasswordToken(ctx, tx, u.ID, now)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// mayLink reports whether the caller of ctx may have a set-password link
// for userID, a user without a password, who is (or is being made) a
// member of accountID. A link lets whoever holds it choose the password
// and sign in as the user, in every account they belong to, so it is for
// someone entitled to all of them: the user belongs to no other account,
// or the caller is a console user who owns every other one. The admin
// command line's users create gets no more (it may be run for one
// account's owner); an operator who means to hand out a link for a user
// whatever their accounts has PasswordLink.
func mayLink(ctx context.Context, tx store.Tx, userID, accountID string) (bool, error) {
	ms, err := tx.ListMemberships(ctx, userID)
	if err != nil {
		return false, err
	}
	actor := OriginOf(ctx).Actor
	for _, m := range ms {
		if m.AccountID == accountID {
			continue
		}
		if actor.Type != adcamp.ActorUser {
			return false, nil
		}
		mine, err := tx.GetMember(ctx, m.AccountID, actor.ID)
		if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if mine.Role != adcamp.RoleOwner {
			return false, nil
		}
	}
	return true, nil
}

// newPasswordToken replaces the set-password links of userID with a new
// one. The caller checks that it may (mayLink).
func newPasswordToken(ctx context.Context, tx store.Tx, userID string, now time.Time) (string, time.Time, error) {
	if err := tx.DeleteUserTokens(ctx, userID, store.TokenPassword); err != nil {
		return "", time.Time{}, err
	}
	token, hash := newToken()
	expires := now.Add(PasswordLinkTimeout)
	err := tx.CreateToken(ctx, &store.Token{Hash: hash, Purpose: store.TokenPassword, UserID: userID, CreatedAt: now, ExpiresAt: expires})
	return token, expires, err
}

// PasswordLink returns a new one-time link for the user with email to set
// their password, replacing earlier ones (an invitation's too): for an
// operator at the command line whose user forgot theirs, or lost their
// invitation. It is the one link made whatever accounts the user belongs
// to, so only an operator may ask for it: it lets whoever holds it into
// every one of them (after the user's authenticator, if they have one).
// Console users never can (it would let an owner of one account take
// over a member who is also in others).
func (s *Access) PasswordLink(ctx context.Context, email string) (*Invitation, error) {
	if a := OriginOf(ctx).Actor; a.Type != adcamp.ActorAdmin && a.Type != adcamp.ActorSystem {
		return nil, adcamp.Errorf(adcamp.CodeForbidden, "only an operator can reset a password")
	}
	now := s.Now()
	out := &Invitation{}
	err := s.write(ctx, func(tx store.Tx) error {
		u, err := tx.GetUserByEmail(ctx, normalizeEmail(email))
		if err != nil {
			return err
		}
		out.Member.User = u.User
		out.Token, out.ExpiresAt, err = newPasswordToken(ctx, tx, u.ID, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

var errPasswordLink = adcamp.Errorf(adcamp.CodeNotFound,
	"This link is not valid: it was used already, it has expired, or a newer one was made. Ask an owner of the account for a new one.")

// PasswordLinkUser returns the user a set-password link is for.
func (s *Access) PasswordLinkUser(ctx context.Context, token string) (*adcamp.User, error) {
	var u *store.User
	err := s.read(ctx, func(tx store.Tx) error {
		k, err := tx.GetToken(ctx, hashToken(token), store.TokenPassword, s.Now())
		if err != nil {
			return asGone(err, errPasswordLink)
		}
		u, err = tx.GetUser(ctx, k.UserID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &u.User, nil
}

// SetPassword uses a set-password link: it sets the user's password, ends
// their other sessions, and signs them in (or, with an authenticator,
// takes them to the second step).
func (s *Access) SetPassword(ctx context.Context, token, password string) (*SignIn, error) {
	u, err := s.PasswordLinkUser(ctx, token)
	if err != nil {
		return nil, err
	}
	var issues adcamp.Issues
	checkNewPassword(&issues, "password", password, u.Email)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	hash, err := s.hashPasswordSlot(ctx, password)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	var su *store.User
	err = s.write(ctx, func(tx store.Tx) error {
		k, err := tx.TakeToken(ctx, hashToken(token), store.TokenPassword, now)
		if err != nil {
			return asGone(err, errPasswordLink)
		}
		if su, err = tx.GetUser(ctx, k.UserID); err != nil {
			return err
		}
		su.PasswordHash, su.PasswordSet = hash, true
		if err := tx.UpdateUser(ctx, su); err != nil {
			return err
		}
		_, err = tx.DeleteUserSessions(ctx, su.ID, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.signedIn(ctx, su, "email:"+su.Email)
}

// ChangePassword changes the password of the user of the session token,
// who confirms with the current one, and ends their other sessions.
func (s *Access) ChangePassword(ctx context.Context, token, current, next string) error {
	ss, err := s.Session(ctx, token)
	if err != nil {
		return err
	}
	var issues adcamp.Issues
	checkNewPassword(&issues, "new_password", next, ss.User.Email)
	if next == current && len(issues) == 0 {
		issues.AddKind("new_password", adcamp.IssueSamePassword, "", "must differ from the current one")
	}
	if err := s.confirmPassword(ctx, ss.User.ID, "current_password", current); err != nil {
		return err
	}
	if err := issues.Err(); err != nil {
		return err
	}
	hash, err := s.hashPasswordSlot(ctx, next)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx store.Tx) error {
		u, err := tx.GetUser(ctx, ss.User.ID)
		if err != nil {
			return err
		}
		u.PasswordHash = hash
		if err := tx.UpdateUser(ctx, u); err != nil {
			return err
		}
		_, err = tx.DeleteUserSessions(ctx, u.ID, ss.hash)
		return err
	})
}

// confirmPassword checks the password of userID again, before a
// sensitive change. A wrong one is a validation error on field, counted
// as a failed sign-in of the user's email (so a stolen session cannot
// guess the password at leisure).
func (s *core) confirmPassword(ctx context.Context, userID, field, password string) error {
	return s.confirm(ctx, userID, field, password, false)
}

// confirmIdentity is confirmPassword that also accepts, from a user with
// an authenticator, a current code of it.
func (s *core) confirmIdentity(ctx context.Context, userID, field, secret string) error {
	return s.confirm(ctx, userID, field, secret, true)
}

func (s *core) confirm(ctx context.Context, userID, field, secret string, codeToo bool) error {
	var u *store.User
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		u, err = tx.GetUser(ctx, userID)
		return err
	})
	if err != nil {
		return err
	}
	keys := throttleKeys(u.Email, "")
	if err := s.throttled(ctx, keys); err != nil {
		return err
	}
	var issues adcamp.Issues
	if codeToo && u.TwoStep && len(normalizeCode(secret)) == 6 {
		if s.checkCode(ctx, userID, secret) == nil {
			return nil
		}
		issues.AddKind(field, adcamp.IssueWrongSecret, "", "is not your password, nor a current code of your authenticator app")
		return s.failed(ctx, keys, issues.Err())
	}
	hash := u.PasswordHash
	if hash == "" {
		hash = dummyHash()
	}
	ok, _, err := s.checkPasswordSlot(ctx, hash, secret)
	if err != nil {
		return err
	}
	if !ok || u.PasswordHash == "" {
		issues.AddKind(field, adcamp.IssueWrongPassword, "", "is not your password")
		return s.failed(ctx, keys, issues.Err())
	}
	return nil
}
