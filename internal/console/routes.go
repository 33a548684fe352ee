package console

import (
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
)

// routes is every route of the console, in one place. A page is one line:
// who may reach it (public, a signed-in user's own, an account's, an
// account's environment's), its methods, its path and, for a page of an
// account, its gate (gate.go): none for a page that only shows, else what
// its forms and buttons change. TestFormRoutesAreGated fails for a route
// that takes a POST under an account without a gate.
func (s *Server) routes() *routeTable {
	t := &routeTable{s: s}
	static, _ := fs.Sub(files, "static")
	t.raw("GET /static/", http.StripPrefix("/static/", cacheFor(time.Hour, http.FileServerFS(static))))
	t.raw("GET /healthz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) }))
	t.raw("GET "+clearPath, http.HandlerFunc(clearCache))

	t.public("GET", "/{$}", s.home)
	t.public("GET POST", "/sign-in", s.signIn)
	t.public("POST", "/sign-in/code", s.signInCode)
	t.public("GET POST", "/setup", s.setup)
	t.public("GET POST", "/set-password", s.setPassword)
	t.public("POST", "/sign-out", s.signOut)

	// The user's own pages: their accounts, password, sessions, two-step.
	t.user("GET", "/accounts", s.accounts)
	t.user("GET", "/settings", s.settings)
	t.user("GET POST", "/settings/password", s.changePassword)
	t.user("POST", "/settings/sign-out-everywhere", s.signOutEverywhere)
	t.user("POST", "/settings/two-step", s.beginTwoStep)
	t.user("POST", "/settings/two-step/enable", s.enableTwoStep)
	t.user("GET POST", "/settings/two-step/disable", s.disableTwoStep)
	t.user("GET POST", "/settings/recovery-codes", s.recoveryCodes)

	// An account's pages, under /accounts/{account}.
	t.account("GET POST", "/settings", membersPage, s.accountSettings)
	t.account("GET", "/api-keys", none, s.keys)
	t.account("GET POST", "/api-keys/new", keysForm, s.newKey)
	t.account("GET", "/secrets/{token}", none, s.revealKey)
	for _, op := range keyOps {
		t.account("GET POST", "/api-keys/{key}/"+op.Name, keysForm, s.changeKey(op))
	}
	t.account("GET POST", "/api-keys/{key}/access", keysForm, s.keyAccess)
	t.account("GET", "/api-keys/{key}/uses", none, s.keyUses)
	t.account("GET", "/members", none, s.members)
	t.account("GET POST", "/members/new", membersForm, s.addMember)
	t.account("POST", "/members/{user}/role", membersPage, s.setRole)
	t.account("POST", "/members/{user}/link", membersPage, s.newLink)
	t.account("GET POST", "/members/{user}/remove", membersForm, s.removeMember)
	t.account("GET", "/webhooks", none, s.webhooks)
	t.account("POST", "/webhooks/new", keysPage, s.newWebhook)
	t.account("GET", "/webhooks/{endpoint}", none, s.webhookLog)
	t.account("POST", "/webhooks/{endpoint}/{op}", keysPage, s.changeWebhook)
	t.sandbox("POST", "/sample-data", campaignsPage, s.sandboxSampleData)
	t.sandbox("POST", "/simulate", campaignsPage, s.sandboxSimulate)
	t.sandbox("GET POST", "/reset", campaignsForm, s.sandboxReset)

	// An environment's advertising, under /accounts/{account}/{env}, for
	// each environment (see env).
	t.env("GET", "/campaigns", none, s.campaigns)
	t.env("GET POST", "/campaigns/new", campaignsForm, s.newCampaign)
	t.env("GET", "/campaigns/{campaign}", none, s.campaign)
	t.env("GET POST", "/ad-groups/{adgroup}/keywords/new", campaignsForm, s.newKeywords)
	t.env("GET POST", "/campaigns/{campaign}/ad-groups/new", campaignsForm, s.newAdGroup)
	t.env("GET", "/ad-groups/{adgroup}", none, s.adGroup)
	t.env("GET", "/keywords/{keyword}", none, s.keyword)
	for _, k := range adKinds {
		t.env("GET POST", k.base+"/edit", campaignsForm, s.editAd(k))
		for _, o := range k.ops {
			t.env("GET POST", k.base+"/"+o.Name, campaignsForm, s.changeAd(k, o))
		}
	}
	t.env("GET POST", "/campaigns/{campaign}/negatives", campaignsPage, s.negativesPage(adcamp.LevelCampaign))
	t.env("GET POST", "/ad-groups/{adgroup}/negatives", campaignsPage, s.negativesPage(adcamp.LevelAdGroup))
	t.env("GET POST", "/negative-lists/{list}", campaignsPage, s.negativesPage(adcamp.LevelList))
	t.env("GET POST", "/negative-lists", campaignsPage, s.negativeLists)
	t.env("POST", "/negatives/{negative}/{op}", campaignsPage, s.changeNegative)
	t.env("POST", "/negative-lists/{list}/delete", campaignsPage, s.deleteNegativeList)
	t.env("POST", "/campaigns/{campaign}/negative-lists/attach", campaignsPage, s.attachNegativeList)
	t.env("POST", "/campaigns/{campaign}/negative-lists/{list}/detach", campaignsPage, s.detachNegativeList)
	t.env("GET", "/performance", none, s.performance)
	t.env("GET", "/performance.csv", none, s.performanceCSV)
	t.env("GET", "/campaigns/{campaign}/performance", none, s.performance)
	t.env("GET", "/campaigns/{campaign}/performance.csv", none, s.performanceCSV)
	t.env("GET", "/ad-groups/{adgroup}/performance", none, s.performance)
	t.env("GET", "/ad-groups/{adgroup}/performance.csv", none, s.performanceCSV)
	t.env("GET", "/history", none, s.history)
	t.env("GET", "/history.csv", none, s.historyCSV)

	t.public("", "/", func(w http.ResponseWriter, r *http.Request) error {
		return adcamp.Errorf(adcamp.CodeNotFound, "There is no page at this address.")
	})
	return t
}

// routeTable collects the routes; handler builds the mux from them, so
// that a route exists only if the table has it.
type routeTable struct {
	s      *Server
	routes []route
}

// route is one pattern of the table.
type route struct {
	pattern string // "POST /accounts/{account}/members/new"
	gate    gate
	account bool // a page of an account (or of one of its environments)
	h       http.Handler
}

// add adds h for each of methods ("GET POST", or "" for any) at path.
func (t *routeTable) add(methods, path string, g gate, account bool, h http.Handler) {
	if methods == "" {
		t.routes = append(t.routes, route{pattern: path, gate: g, account: account, h: h})
		return
	}
	for _, m := range strings.Fields(methods) {
		t.routes = append(t.routes, route{pattern: m + " " + path, gate: g, account: account, h: h})
	}
}

// raw adds a handler of its own making: static files, health.
func (t *routeTable) raw(pattern string, h http.Handler) { t.add("", pattern, none, false, h) }

// public adds a page that needs no session.
func (t *routeTable) public(methods, path string, h handler) {
	t.add(methods, path, none, false, t.s.public(h))
}

// user adds a page of the signed-in user's own.
func (t *routeTable) user(methods, path string, h signedHandler) {
	t.add(methods, path, none, false, t.s.signedIn(h))
}

// account adds a page of an account, at /accounts/{account}+path.
func (t *routeTable) account(methods, path string, g gate, h signedHandler) {
	t.add(methods, "/accounts/{account}"+path, g, true, t.s.inAccount(t.s.gated(g, h)))
}

// env adds a page of an account's environment, once for each environment,
// under its own literal path: /accounts/{account}/sandbox+path.
func (t *routeTable) env(methods, path string, g gate, h signedHandler) {
	for _, env := range environments {
		t.envOnly(env, methods, path, g, h)
	}
}

// sandbox adds a page that only the sandbox has.
func (t *routeTable) sandbox(methods, path string, g gate, h signedHandler) {
	t.envOnly(adcamp.Sandbox, methods, path, g, h)
}

func (t *routeTable) envOnly(env adcamp.Environment, methods, path string, g gate, h signedHandler) {
	t.add(methods, "/accounts/{account}/"+string(env)+path, g, true, t.s.inEnv(env, t.s.gated(g, h)))
}

// handler is the mux of every route of the table.
func (t *routeTable) handler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range t.routes {
		mux.Handle(r.pattern, r.h)
	}
	return mux
}
