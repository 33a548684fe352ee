package service

import (
	"context"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Membership returns the membership of the console user of ctx in
// accountID; NOT_FOUND if they are not a member (whether or not the
// account exists).
func (s *Access) Membership(ctx context.Context, accountID string) (*adcamp.Member, error) {
	userID, err := actorUser(ctx)
	if err != nil {
		return nil, err
	}
	var m *adcamp.Member
	err = s.readOne(ctx, func(tx store.Tx) error {
		var err error
		m, err = tx.GetMember(ctx, accountID, userID)
		return err
	})
	if err != nil {
		return nil, asGone(err, adcamp.NotFound("account", accountID))
	}
	return m, nil
}

// AccountRole is an account and the role a user has in it.
type AccountRole struct {
	Account adcamp.Account
	Role    adcamp.Role
}

// Accounts lists the accounts of the console user of ctx, in the order
// they joined them.
func (s *Access) Accounts(ctx context.Context) ([]AccountRole, error) {
	userID, err := actorUser(ctx)
	if err != nil {
		return nil, err
	}
	var out []AccountRole
	err = s.read(ctx, func(tx store.Tx) error {
		ms, err := tx.ListMemberships(ctx, userID)
		if err != nil {
			return err
		}
		for _, m := range ms {
			a, err := tx.GetAccount(ctx, m.AccountID)
			if err != nil {
				return err
			}
			out = append(out, AccountRole{Account: *a, Role: m.Role})
		}
		return nil
	})
	return out, err
}

// Account returns an account its user's membership lets them see.
func (s *Access) Account(ctx context.Context, accountID string) (*adcamp.Account, error) {
	var a *adcamp.Account
	err := s.read(ctx, func(tx store.Tx) error {
		if _, err := s.authorize(ctx, tx, accountID, actRead, adcamp.NotFound("account", accountID)); err != nil {
			return err
		}
		var err error
		a, err = tx.GetAccount(ctx, accountID)
		return err
	})
	return a, err
}

// Members lists the members of accountID, in the order they were added.
// Every member may see them.
func (s *Access) Members(ctx context.Context, accountID string) ([]*adcamp.Member, error) {
	var out []*adcamp.Member
	err := s.read(ctx, func(tx store.Tx) error {
		if _, err := s.authorize(ctx, tx, accountID, actRead, adcamp.NotFound("account", accountID)); err != nil {
			return err
		}
		if _, err := tx.GetAccount(ctx, accountID); err != nil {
			return err
		}
		var err error
		out, err = tx.ListMembers(ctx, accountID)
		return err
	})
	return out, err
}

// Member returns one member of accountID.
func (s *Access) Member(ctx context.Context, accountID, userID string) (*adcamp.Member, error) {
	var out *adcamp.Member
	err := s.read(ctx, func(tx store.Tx) error {
		if _, err := s.authorize(ctx, tx, accountID, actRead, adcamp.NotFound("account", accountID)); err != nil {
			return err
		}
		var err error
		out, err = tx.GetMember(ctx, accountID, userID)
		return err
	})
	return out, err
}

// SetMemberRole changes a member's role. Only an owner may, and the last
// owner of an account cannot step down: someone must be left to manage
// it.
func (s *Access) SetMemberRole(ctx context.Context, accountID, userID string, role adcamp.Role) (*adcamp.Member, error) {
	if _, ok := adcamp.ParseRole(string(role)); !ok {
		var issues adcamp.Issues
		issues.AddKind("role", adcamp.IssueNotOneOf, joinValues(adcamp.Roles), "must be owner, developer or viewer")
		return nil, issues.Err()
	}
	var out *adcamp.Member
	err := s.write(ctx, func(tx store.Tx) error {
		m, err := s.changeMember(ctx, tx, accountID, userID)
		if err != nil {
			return err
		}
		if m.Role == adcamp.RoleOwner && role != adcamp.RoleOwner {
			if err := notLastOwner(ctx, tx, m, "made a "+string(role)); err != nil {
				return err
			}
		}
		prev := *m
		m.Role = role
		out = m
		if err := tx.SetMemberRole(ctx, accountID, userID, role); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		recordMember(h, adcamp.OpUpdate, &prev, m)
		return h.write(ctx, tx)
	})
	return out, err
}

// RemoveMember takes a user out of an account. Only an owner may, and
// not the account's last owner. Their sessions stay (they may be members
// of other accounts), but nothing of this account is theirs to see from
// the next request on.
func (s *Access) RemoveMember(ctx context.Context, accountID, userID string) (*adcamp.Member, error) {
	var out *adcamp.Member
	err := s.write(ctx, func(tx store.Tx) error {
		m, err := s.changeMember(ctx, tx, accountID, userID)
		if err != nil {
			return err
		}
		if m.Role == adcamp.RoleOwner {
			if err := notLastOwner(ctx, tx, m, "removed"); err != nil {
				return err
			}
		}
		out = m
		if err := tx.DeleteMember(ctx, accountID, userID); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		recordMember(h, adcamp.OpDelete, m, nil)
		return h.write(ctx, tx)
	})
	return out, err
}

// NewInvitation makes a new set-password link for a member who has not
// set a password yet (the first link was lost, or expired), if the
// caller may have one (see mayLink).
func (s *Access) NewInvitation(ctx context.Context, accountID, userID string) (*Invitation, error) {
	now := s.Now()
	out := &Invitation{}
	err := s.write(ctx, func(tx store.Tx) error {
		m, err := s.changeMember(ctx, tx, accountID, userID)
		if err != nil {
			return err
		}
		if m.User.PasswordSet {
			return adcamp.Errorf(adcamp.CodeConflict,
				"%s has set a password already; if they forgot it, an operator can make a new link with adcamp users reset-password.", m.User.Email)
		}
		if ok, err := mayLink(ctx, tx, userID, accountID); err != nil || !ok {
			if err == nil {
				err = adcamp.Errorf(adcamp.CodeForbidden, "Only an operator can make a new link for %s (adcamp users reset-password): "+
					"they were invited to another account too, and whoever held the link could sign in there.", m.User.Email)
			}
			return err
		}
		out.Member = *m
		out.Token, out.ExpiresAt, err = newPasswordToken(ctx, tx, userID, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// changeMember authorizes a change of a member of accountID and returns
// the member.
func (s *core) changeMember(ctx context.Context, tx store.Tx, accountID, userID string) (*adcamp.Member, error) {
	if _, err := s.authorize(ctx, tx, accountID, actMembers, adcamp.NotFound("account", accountID)); err != nil {
		return nil, err
	}
	m, err := tx.GetMember(ctx, accountID, userID)
	if err != nil {
		return nil, asGone(err, adcamp.NotFound("member", userID))
	}
	return m, nil
}

// notLastOwner refuses a change that would leave the account of owner m
// without an owner.
func notLastOwner(ctx context.Context, tx store.Tx, m *adcamp.Member, change string) error {
	n, err := tx.CountOwners(ctx, m.AccountID)
	if err != nil {
		return err
	}
	if n <= 1 {
		return adcamp.Errorf(adcamp.CodeConflict,
			"%s is the account's only owner and cannot be %s; make another member an owner first.", m.User.Email, change)
	}
	return nil
}

// MayManageMembers is MayChangeKeys for the account's members.
func (s *Access) MayManageMembers(ctx context.Context, accountID string) error {
	return s.read(ctx, func(tx store.Tx) error {
		_, err := s.authorize(ctx, tx, accountID, actMembers, adcamp.NotFound("account", accountID))
		return err
	})
}
