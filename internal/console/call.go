package console

// The call: who is asking (the session, the user's accounts and role in
// the page's account, its environment), and the page it is shown.

import (
	"context"
	"net/http"
	"net/url"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// call is what a signed-in request brings to its handler.
type call struct {
	ctx      context.Context // carries the user as the origin of changes
	token    string          // the session's token
	session  *service.Session
	accounts []service.AccountRole
	// For a page of an account: the account and the user's role there.
	account *adcamp.Account
	role    adcamp.Role
	// For a page of campaigns, ad groups or keywords: its environment.
	env adcamp.Environment
	// The environment the user is in (see chooseEnv).
	current adcamp.Environment
	// The route's gate, and the service's answer to it (nil: the user may).
	gate    gate
	refusal error
}

// page returns the page of c with its title and section. A page of no
// account (settings) names the user's account if they have one only, so
// that the navigation leads back to it.
func (c *call) page(r *http.Request, title, section string) *page {
	account, role := c.account, c.role
	if account == nil && len(c.accounts) == 1 {
		account, role = &c.accounts[0].Account, c.accounts[0].Role
	}
	p := &page{Title: title, Section: section, User: &c.session.User, Accounts: c.accounts,
		Account: account, Role: role, Env: c.env, Current: c.current, Can: service.AllowedFor(role), Notice: notice(r),
		MayChange: c.mayChange(section)}
	if c.gate.form {
		p.refusal = c.refusal
	}
	if account != nil {
		p.Envs = envLinks(r, account.ID, section, c.env, c.current)
	}
	return p
}

// accountPath is the path of a page of the call's account.
func (c *call) accountPath(rest string) string {
	return "/accounts/" + url.PathEscape(c.account.ID) + rest
}

// inEnv serves a page of an account's environment env.
func (s *Server) inEnv(env adcamp.Environment, h signedHandler) http.Handler {
	return s.inAccount(func(w http.ResponseWriter, r *http.Request, c *call) error {
		c.env = env
		s.enter(w, c, env)
		return h(w, r, c)
	})
}

// tenant is what the call's pages show and change: the account in the
// page's environment.
func (c *call) tenant() adcamp.Tenant {
	return adcamp.Tenant{AccountID: c.account.ID, Environment: c.env}
}

// envPath is the path of a page of the call's account and environment.
func (c *call) envPath(rest string) string {
	return c.accountPath("/" + string(c.env) + rest)
}
