package console

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/adcamp/adcamp"
)

// The environment a user is working in. Pages of campaigns, ad groups,
// keywords and the history belong to one environment, named in their
// address (see ads.go), which every form changes: two tabs cannot
// disagree about that. The pages of an account as a whole (API keys,
// members, settings) belong to none; there the console remembers the
// environment last chosen, in a cookie, so that the navigation's
// Campaigns and History lead back to it and the switch marks it. The
// cookie is a preference only: no form reads it.

// envCookie names the cookie of the environment last chosen.
const envCookie = "adcamp_env"

func (s *Server) envCookieName() string {
	if s.secure {
		return "__Host-" + envCookie
	}
	return envCookie
}

// chooseEnv is the environment r's address chooses (?env=, which the
// switch of a page of no environment sends), or else the one chosen last,
// or else production. A choice is remembered for the pages that follow;
// a page of an environment is its own choice (see inEnv).
func (s *Server) chooseEnv(w http.ResponseWriter, r *http.Request) adcamp.Environment {
	remembered := adcamp.Production
	if c, err := r.Cookie(s.envCookieName()); err == nil {
		if e, ok := adcamp.ParseEnvironment(c.Value); ok {
			remembered = e
		}
	}
	chosen, ok := adcamp.ParseEnvironment(r.URL.Query().Get("env"))
	if !ok {
		return remembered
	}
	if chosen != remembered {
		s.rememberEnv(w, chosen)
	}
	return chosen
}

// enter puts the page of c in env: a page of one environment (its
// campaigns, or one of its API keys) is a choice of it, which the
// navigation and the switch follow and the console remembers.
func (s *Server) enter(w http.ResponseWriter, c *call, env adcamp.Environment) {
	if c.current != env {
		s.rememberEnv(w, env)
		c.current = env
	}
}

// rememberEnv keeps env as the environment chosen last.
func (s *Server) rememberEnv(w http.ResponseWriter, env adcamp.Environment) {
	http.SetCookie(w, &http.Cookie{Name: s.envCookieName(), Value: string(env), Path: "/", MaxAge: 365 * 24 * 60 * 60,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
}

// envLink is an environment in the switch: where choosing it leads.
type envLink struct {
	Env     adcamp.Environment
	URL     string
	Current bool
}

// bothEnvs are the pages of an environment that every environment has,
// after /accounts/{account}/{env}: the switch leads to the same page in
// the other. From any other (a campaign, which is one environment's
// only) it leads to the other's campaigns; likewise from a new key's
// form to the other's, and from a key's page to the API keys.
var bothEnvs = []string{"/campaigns", "/campaigns/new", "/performance", "/history"}

// envLinks are the switch of the page of r, in section, whose account is
// accountID and whose environment is current.
func envLinks(r *http.Request, accountID, section string, env, current adcamp.Environment) []envLink {
	account := "/accounts/" + url.PathEscape(accountID)
	links := make([]envLink, 0, len(environments))
	for _, to := range environments {
		l := envLink{Env: to, Current: to == current}
		switch {
		case env != "":
			rest := "/campaigns"
			if _, path, ok := strings.Cut(r.Pattern, "/accounts/{account}/"+string(env)); ok && slices.Contains(bothEnvs, path) {
				rest = path
			}
			l.URL = account + "/" + string(to) + rest
		case section == "keys" && strings.HasSuffix(r.Pattern, "/api-keys/new"):
			l.URL = account + "/api-keys/new?environment=" + string(to)
		case section == "keys":
			l.URL = account + "/api-keys?env=" + string(to)
		case section == "members":
			l.URL = account + "/members?env=" + string(to)
		case section == "webhooks":
			l.URL = account + "/webhooks?environment=" + string(to)
		case section == "settings":
			l.URL = "/settings?env=" + string(to)
		default:
			l.URL = "/accounts?env=" + string(to)
		}
		links = append(links, l)
	}
	return links
}
