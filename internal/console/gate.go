package console

import (
	"net/http"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// The role gate. Every route whose page holds a form or a button that
// changes something of an account is registered with a gate (see routes):
// the gate asks the service once whether the signed-in user may change
// what the route changes, and the page carries the answer in one field,
// page.MayChange, which the templates read to show the form or not. No
// handler asks again. The service stays the authority: it checks the
// user's role again inside the transaction of every change, so a gate
// only decides what a page shows.

// area is what a gated route changes.
type area int

const (
	noArea        area = iota
	campaignsArea      // the campaigns, ad groups, keywords and negatives of the route's environment
	keysArea           // the API keys and webhooks of the environment the request names
	membersArea        // the account's members and settings
)

// gate is a route's gate: what it changes, and whether its page is a
// form and nothing else. The form of a user who may not change its area
// is answered 403 with the service's refusal in place of the form; a page
// with forms on it (a list that takes a paste, the account settings) is
// shown without them.
type gate struct {
	area area
	form bool
}

// The gates of the routes table.
var (
	none = gate{}

	campaignsForm = gate{campaignsArea, true}  // a page that is a form or a confirmation
	campaignsPage = gate{campaignsArea, false} // a page with forms on it, or an action
	keysForm      = gate{keysArea, true}
	keysPage      = gate{keysArea, false}
	membersForm   = gate{membersArea, true}
	membersPage   = gate{membersArea, false}
)

// gated serves h behind gate g: it asks the service whether the user may
// change g's area of the call's account, once, and keeps the answer on
// the call for the page (see call.page).
func (s *Server) gated(g gate, h signedHandler) signedHandler {
	if g == none {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		var err error
		switch g.area {
		case campaignsArea:
			err = s.svc.MayChangeCampaigns(c.ctx, c.tenant())
		case keysArea:
			err = s.svc.MayChangeKeys(c.ctx, c.account.ID, keysEnvironment(r))
		case membersArea:
			err = s.svc.MayManageMembers(c.ctx, c.account.ID)
		}
		if err != nil && adcamp.ErrorCode(err) != adcamp.CodeForbidden {
			return err // the account is not theirs, or the service failed
		}
		c.gate, c.refusal = g, err
		return h(w, r, c)
	}
}

// keysEnvironment is the environment of the API keys or webhooks a
// request changes: the key's in its path (its id says it), else the one
// its form or link names. A key or environment that does not exist is
// the handler's to refuse (404).
func keysEnvironment(r *http.Request) adcamp.Environment {
	if id := r.PathValue("key"); id != "" {
		if strings.HasPrefix(id, "ak_"+adcamp.Production.KeyInfix()+"_") {
			return adcamp.Production
		}
		return adcamp.Sandbox
	}
	env, err := environmentOf(r)
	if err != nil {
		return adcamp.Sandbox
	}
	return env
}

// mayChange is what page.MayChange says: on a gated route, the service's
// answer; on a page that only shows (a campaign's page, the members),
// what the user's role allows in the page's area, from the service's
// table of roles, for the buttons that lead to the gated forms.
func (c *call) mayChange(section string) bool {
	if c.gate != none {
		return c.refusal == nil
	}
	can := service.AllowedFor(c.role)
	switch {
	case c.env != "":
		return can.Campaigns(c.env)
	case section == "keys" || section == "webhooks":
		return can.Keys(c.current)
	case section == "members" || section == "account":
		return can.Members
	}
	return false
}
