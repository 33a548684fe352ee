package service

import (
	"context"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// UserEmails returns the email of each user among userIDs, for the
// console's history of accountID to name the people in it ("owner@example.com
// (console) changed ..."). The caller must be able to see the account; an
// id that names no user (one deleted since) is left out. The console
// passes the actor ids of the account's own records only.
func (s *Service) UserEmails(ctx context.Context, accountID string, userIDs []string) (map[string]string, error) {
	out := make(map[string]string, len(userIDs))
	err := s.read(ctx, func(tx store.Tx) error {
		if _, err := s.authorize(ctx, tx, accountID, actRead, adcamp.NotFound("account", accountID)); err != nil {
			return err
		}
		for _, id := range userIDs {
			if _, done := out[id]; done {
				continue
			}
			u, err := tx.GetUser(ctx, id)
			if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
				continue
			}
			if err != nil {
				return err
			}
			out[id] = u.Email
		}
		return nil
	})
	return out, err
}
