package service

import (
	"context"
	"slices"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Invite is an account a set-password link's user is a member of, for
// the page of the link: which account, with which role, added by whom.
type Invite struct {
	Account adcamp.Account
	Role    adcamp.Role
	// By names who added the user: a member's email, or an operator at
	// the command line ("an operator"); "" when the history no longer
	// says (its records are purged after a while).
	By string
}

// inviteHistory bounds the member records read to find who added a
// user: their role may have been changed a few times since.
const inviteHistory = 20

// PasswordLinkInvites returns the user a set-password link is for and the
// accounts they are a member of. Only the holder of a live link learns
// this, which the link's page shows them: the account they are invited
// to, their role, and who invited them.
func (s *Access) PasswordLinkInvites(ctx context.Context, token string) (*adcamp.User, []Invite, error) {
	var u *store.User
	var out []Invite
	err := s.read(ctx, func(tx store.Tx) error {
		k, err := tx.GetToken(ctx, hashToken(token), store.TokenPassword, s.Now())
		if err != nil {
			return asGone(err, errPasswordLink)
		}
		if u, err = tx.GetUser(ctx, k.UserID); err != nil {
			return err
		}
		ms, err := tx.ListMemberships(ctx, u.ID)
		if err != nil {
			return err
		}
		for _, m := range ms {
			inv, err := invite(ctx, tx, m)
			if err != nil {
				return err
			}
			out = append(out, inv)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return &u.User, out, nil
}

// invite describes membership m: its account, and who added the member,
// as the newest record of the member's creation names them.
func invite(ctx context.Context, tx store.Tx, m *adcamp.Member) (Invite, error) {
	a, err := tx.GetAccount(ctx, m.AccountID)
	if err != nil {
		return Invite{}, err
	}
	inv := Invite{Account: *a, Role: m.Role}
	records, err := tx.ListChanges(ctx, store.ChangeQuery{AccountID: m.AccountID, Environments: []adcamp.Environment{""},
		EntityType: adcamp.EntityMember, EntityID: m.User.ID, Limit: inviteHistory})
	if err != nil {
		return Invite{}, err
	}
	i := slices.IndexFunc(records, func(ch *adcamp.Change) bool { return ch.Operation == adcamp.OpCreate })
	if i < 0 {
		return inv, nil
	}
	switch by := records[i].Actor; by.Type {
	case adcamp.ActorAdmin:
		inv.By = "an operator"
	case adcamp.ActorUser:
		u, err := tx.GetUser(ctx, by.ID)
		if err != nil && adcamp.ErrorCode(err) != adcamp.CodeNotFound {
			return Invite{}, err
		}
		if err == nil {
			inv.By = u.Email
		}
	}
	return inv, nil
}
