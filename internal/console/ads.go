package console

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// The advertising of an account: its campaigns, their ad groups and their
// keywords, in one environment at a time. The environment is part of
// every address (/accounts/{account}/sandbox/campaigns/...), never a
// setting kept aside, so that two tabs cannot disagree about which one a
// form changes. Every page calls the service as the API does, with the
// signed-in user as the origin of each change (see newCall); the service
// checks the user's role in each change's own transaction.

// environments are the environments, in the order the switch shows them.
var environments = []adcamp.Environment{adcamp.Production, adcamp.Sandbox}

// adsRoutes installs the pages of campaigns, ad groups and keywords, for
// each environment under its own literal path.
func (s *Server) adsRoutes(mux *http.ServeMux) {
	for _, env := range environments {
		base := "/accounts/{account}/" + string(env)
		page := func(methods, path string, h signedHandler) {
			for _, m := range strings.Fields(methods) {
				mux.Handle(m+" "+base+path, s.inEnv(env, h))
			}
		}
		page("GET", "/campaigns", s.campaigns)
		page("GET POST", "/campaigns/new", s.newCampaign)
		page("GET", "/campaigns/{campaign}", s.campaign)
		page("GET POST", "/campaigns/{campaign}/edit", s.editCampaign)
		for _, op := range campaignOps {
			page("GET POST", "/campaigns/{campaign}/"+op.Name, s.changeCampaign(op))
		}
		page("GET POST", "/campaigns/{campaign}/ad-groups/new", s.newAdGroup)
		page("GET", "/ad-groups/{adgroup}", s.adGroup)
		page("GET POST", "/ad-groups/{adgroup}/edit", s.editAdGroup)
		for _, op := range childOps {
			page("GET POST", "/ad-groups/{adgroup}/"+op.Name, s.changeAdGroup(op))
			page("GET POST", "/keywords/{keyword}/"+op.Name, s.changeKeyword(op))
		}
		page("GET POST", "/ad-groups/{adgroup}/keywords/new", s.newKeywords)
		page("GET", "/keywords/{keyword}", s.keyword)
		page("GET POST", "/keywords/{keyword}/edit", s.editKeyword)
		s.negativesRoutes(page)
		page("GET", "/history", s.history)
		page("GET", "/history.csv", s.historyCSV)
	}
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

// mayChange says whether to show the user the buttons and forms that
// change the environment's campaigns. The service decides again on every
// change.
func (c *call) mayChange() bool { return service.AllowedFor(c.role).Campaigns(c.env) }

// The paths of an environment's pages, for templates and redirects.
func campaignPath(id string) string { return "/campaigns/" + url.PathEscape(id) }
func adGroupPath(id string) string  { return "/ad-groups/" + url.PathEscape(id) }
func keywordPath(id string) string  { return "/keywords/" + url.PathEscape(id) }

// formOf is a form that shows values, such as an entity's before an edit.
func formOf(values map[string]string) *form {
	return &form{values: values, errors: map[string]string{}}
}

// versionOf reads the version an edit form (or a button's form) was
// opened at: the precondition of its change.
func versionOf(r *http.Request) (service.IfMatch, error) {
	v, err := strconv.ParseInt(r.PostFormValue("version"), 10, 64)
	if err != nil || v < 1 {
		return service.IfMatch{}, errNoVersion
	}
	return service.IfMatch{Set: true, Versions: []int64{v}}, nil
}

var errNoVersion = adcamp.Errorf(adcamp.CodeValidation,
	"This form does not say which version of the page it was opened at, so it was not saved. Reload the page and try again.")

// isStale reports whether err says the entity changed since its form was
// opened (412 PRECONDITION_FAILED in the API).
func isStale(err error) bool { return adcamp.ErrorCode(err) == adcamp.CodePreconditionFailed }

// showChange renders name with err on its form, as showForm does; a
// problem of a field the form does not show is listed with the form's
// message rather than lost.
func (s *Server) showChange(w http.ResponseWriter, name string, p *page, err error, fields ...string) error {
	if p.Form == nil {
		p.Form = formOf(map[string]string{})
	}
	status := p.Form.take(err)
	if status == 0 {
		return err
	}
	p.Form.adopt(fields)
	return s.render(w, status, name, p)
}

// adopt moves the problems of fields the form does not show to Others,
// in the order of their fields' names.
func (f *form) adopt(fields []string) {
	shown := 0
	for _, name := range slices.Sorted(maps.Keys(f.errors)) {
		if len(fields) == 0 || slices.Contains(fields, name) {
			shown++
			continue
		}
		f.Others = append(f.Others, shortLabel(name)+": "+f.errors[name])
		delete(f.errors, name)
	}
	if len(f.Others) > 0 && shown == 0 {
		f.Error = "This was not saved:"
	}
}

// conflict is what an edit form shows when its entity was changed after
// the form was opened (by someone else, or in another tab): nothing was
// saved, the form now holds the current values, and what the user typed
// that differs is listed so that nothing of theirs is lost.
type conflict struct {
	Kind    string // "campaign", "ad group", "keyword"
	Version int64  // the entity's version now
	Rows    []conflictRow
}

// conflictRow is a field whose current value differs from what was typed.
type conflictRow struct {
	Label, Saved, Typed string
}

// labelled is a field of a form and its label.
type labelled struct{ Name, Label string }

// newConflict compares what was typed on form typed with the values saved
// now.
func newConflict(kind string, version int64, fields []labelled, typed *form, saved map[string]string) *conflict {
	c := &conflict{Kind: kind, Version: version}
	for _, f := range fields {
		t, v := strings.TrimSpace(typed.Value(f.Name)), strings.TrimSpace(saved[f.Name])
		if t != v {
			c.Rows = append(c.Rows, conflictRow{Label: f.Label, Saved: v, Typed: t})
		}
	}
	return c
}

// pager is the paging of a list: which items are shown of how many, and
// the links to the pages around.
type pager struct {
	First, Last, Total int64 // the items shown, numbered from 1, of Total
	Page, Pages        int64
	Prev, Next         string // "" at the ends
	FirstPage          string // a link back to page 1 past the end
}

// defaultPageSize is the API's default page size.
const defaultPageSize = 20

// pageParam reads ?page= (1 if absent); anything else but a positive
// integer is 0, which the service refuses as the API does.
func pageParam(r *http.Request) int {
	v := r.URL.Query().Get("page")
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// newPager pages a list at path, whose other parameters are q.
func newPager[T any](p *adcamp.Page[T], path string, q url.Values) pager {
	pg := pager{Total: p.TotalItems, Page: int64(p.Page), Pages: p.TotalPages()}
	if len(p.Items) > 0 {
		pg.First = int64((p.Page-1)*p.PageSize) + 1
		pg.Last = pg.First + int64(len(p.Items)) - 1
	}
	link := func(n int64) string {
		v := url.Values{}
		for k, vs := range q {
			if len(vs) > 0 && vs[0] != "" {
				v.Set(k, vs[0])
			}
		}
		if n > 1 {
			v.Set("page", strconv.FormatInt(n, 10))
		}
		if len(v) == 0 {
			return path
		}
		return path + "?" + v.Encode()
	}
	if pg.Page > 1 && pg.Page <= pg.Pages {
		pg.Prev = link(pg.Page - 1)
	}
	if pg.Page < pg.Pages {
		pg.Next = link(pg.Page + 1)
	}
	if pg.Page > pg.Pages && pg.Total > 0 {
		pg.FirstPage = link(1)
	}
	return pg
}

// option is a choice of a select.
type option struct{ Value, Label string }

// statusOptions are the choices of a status filter: every status, or one.
func statusOptions(statuses []adcamp.Status) []option {
	opts := []option{{"", "Any status"}}
	for _, st := range statuses {
		opts = append(opts, option{string(st), statusName(st)})
	}
	return opts
}

// statusName is a status for people: "Active".
func statusName(s adcamp.Status) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(string(s[:1])) + string(s[1:])
}

// op is a change of a campaign, an ad group or a keyword made by a button
// and confirmed on a page of its own (which also serves a link followed
// without JavaScript): pause, resume, end or delete.
type op struct {
	Name    string        // in the path
	Status  adcamp.Status // the status it sets; "" for delete
	Verb    string        // "Pause", for the button and the title
	Done    string        // "paused", for the notice
	Danger  bool
	Explain map[string]string // by kind ("campaign", "ad group", "keyword")
}

var (
	opPause = &op{Name: "pause", Status: adcamp.StatusPaused, Verb: "Pause", Done: "paused", Explain: map[string]string{
		"campaign": "Its ads stop showing until you resume it. Its ad groups and keywords keep their own status.",
		"ad group": "Its ads stop showing until you resume it. Its keywords keep their own status.",
		"keyword":  "It stops matching searches until you resume it.",
	}}
	opResume = &op{Name: "resume", Status: adcamp.StatusActive, Verb: "Resume", Done: "resumed", Explain: map[string]string{
		"campaign": "It becomes active again: its active ad groups and keywords show ads again.",
		"ad group": "It becomes active again: its active keywords match searches again.",
		"keyword":  "It becomes active again and matches searches.",
	}}
	opEnd = &op{Name: "end", Status: adcamp.StatusEnded, Verb: "End", Done: "ended", Danger: true, Explain: map[string]string{
		"campaign": "Its ads stop for good. An ended campaign cannot be resumed or changed, and nothing can be added under it; it can only be deleted.",
	}}
	opDelete = &op{Name: "delete", Verb: "Delete", Done: "deleted", Danger: true, Explain: map[string]string{
		"campaign": "This cannot be undone.",
		"ad group": "This cannot be undone.",
		"keyword":  "This cannot be undone.",
	}}
)

// campaignOps and childOps are the confirmed changes of a campaign, and
// of an ad group or a keyword.
var (
	campaignOps = []*op{opPause, opResume, opEnd, opDelete}
	childOps    = []*op{opPause, opResume, opDelete}
)

// opView is the content of the page that confirms an op.
type opView struct {
	Op      *op
	Kind    string // "campaign", "ad group", "keyword"
	Name    string // what the entity is called
	Status  adcamp.Status
	Facts   []fact
	Takes   string // what a delete takes with it: "2 ad groups and 50 keywords"
	Action  string // where the form posts
	Back    string // where Cancel leads
	Version int64
	// Closed says why the op cannot be done now (an ended campaign), and
	// then no button is shown; the service refuses it anyway.
	Closed string
	// Stale says the entity changed since the page that asked was opened.
	Stale bool
}

// fact is a line of facts about an entity.
type fact struct{ Label, Value string }

// counted writes a count for people: "1 keyword", "3 keywords".
func counted(n int64, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + one + "s"
}

// money writes an amount for people: "$25.00".
func money(m adcamp.Money) string { return "$" + m.String() }

// dateText writes a date, or "" for none.
func dateText(d adcamp.Date) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}

// buttonView is a button that changes a status at once (the
// "status-button" part).
type buttonView struct {
	Action  string
	Version int64
	Label   string
	For     string // what it acts on, for screen readers, in a list
	Back    string // where to come back to, if not the entity's page
	Small   bool
}

// newButton builds a buttonView: button "/path/pause" 3 "Pause"
// "for=red shoes" "back=ad-group" "small".
func newButton(action string, version int64, label string, opts ...string) buttonView {
	b := buttonView{Action: action, Version: version, Label: label}
	for _, o := range opts {
		key, val, _ := strings.Cut(o, "=")
		switch key {
		case "for":
			b.For = val
		case "back":
			b.Back = val
		case "small":
			b.Small = true
		}
	}
	return b
}

// filterView is a filter of a list (the "filter" part).
type filterView struct {
	ID, Name, Label, Value string
	Options                []option
}

func newFilter(id, name, label, value string, opts []option) filterView {
	return filterView{ID: id, Name: name, Label: label, Value: value, Options: opts}
}

// Path is the path of a page of the page's account and environment.
func (p *page) Path(rest string) string {
	return "/accounts/" + url.PathEscape(p.Account.ID) + "/" + string(p.Env) + rest
}

// CampaignsHome is where the navigation's Campaigns leads: the campaigns
// of the environment the user is in.
func (p *page) CampaignsHome() string {
	return "/accounts/" + url.PathEscape(p.Account.ID) + "/" + string(p.Current) + "/campaigns"
}

// ReadOnly says why the page shows no way to change some of what it
// shows, if it does not: the campaigns of an environment the member may
// not change, the API keys of one, the members. Every page says it in the
// same words (the "read-only" part).
func (p *page) ReadOnly() string {
	var limited bool
	switch {
	case p.Env != "":
		limited = !p.Can.Campaigns(p.Env)
	case p.Section == "keys":
		limited = !p.Can.Keys(adcamp.Production) || !p.Can.Keys(adcamp.Sandbox)
	case p.Section == "members":
		limited = !p.Can.Members
	}
	if !limited || p.Role == "" {
		return ""
	}
	return readOnlyNote(p.Role)
}
