package console

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// pages are the console's templates, parsed once: each page with the
// layout and the shared parts.
type pages map[string]*template.Template

func parsePages() (*pages, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/parts/*.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(files, "templates/pages/*.html")
	if err != nil {
		return nil, err
	}
	ps := pages{}
	for _, name := range names {
		t, err := template.Must(base.Clone()).ParseFS(files, name)
		if err != nil {
			return nil, err
		}
		ps[path.Base(name)] = t
	}
	return &ps, nil
}

// page is what every template gets: the layout's parts, and the page's
// own Data.
type page struct {
	Title    string
	Section  string // the navigation's current item: "campaigns", "keys", "members", "settings"
	User     *adcamp.User
	Accounts []service.AccountRole
	Account  *adcamp.Account // the account the page is about, or nil
	Role     adcamp.Role
	// Env is the environment of a page of campaigns, ad groups or
	// keywords ("" elsewhere): the layout marks the sandbox on each.
	Env adcamp.Environment
	// Current is the environment the user is in, Env or the one chosen
	// last, which the navigation leads to and the switch marks; Envs is
	// the switch.
	Current adcamp.Environment
	Envs    []envLink
	Can     service.Allowed // what the user's role allows, for the notes of pages that show and the keys of both environments
	// MayChange says whether the page shows the forms and buttons that
	// change what it shows: the gate's answer (gate.go), the one field
	// the templates read for it.
	MayChange bool
	// refusal is the service's refusal of a gated form's change: the form
	// is answered with it (403) rather than shown.
	refusal error
	Notice  string // a confirmation of what was just done
	Form    *form
	Data    any
}

// render writes page p with template name, rendered completely first, so
// that a template failure is a clean error page rather than half a page.
func (s *Server) render(w http.ResponseWriter, status int, name string, p *page) error {
	t, ok := (*s.pages)[name]
	if !ok {
		return fmt.Errorf("no template %q", name)
	}
	if p.refusal != nil && status == http.StatusOK {
		if p.Form == nil {
			p.Form = formOf(map[string]string{})
		}
		status = p.Form.take(p.refusal)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", p); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// redirect answers a form posted with success: the browser loads target
// with a GET, so that a reload does not post the form again. A target
// that is not one of the console's own paths (see localPath) goes to the
// home page instead: no answer of the console leads to another site.
func redirect(w http.ResponseWriter, r *http.Request, target string) error {
	if localPath(target) == "" {
		target = "/"
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
	return nil
}

var funcs = template.FuncMap{
	// statusOp is the button that toggles a status: "resume" for paused.
	"statusOp": statusOp,
	// field builds a fieldView: field .Form "email" "Email" "email"
	// "autocomplete=email" "required" "hint=..."
	"field": fieldFunc,
	// choice is field for a select or radios: choice .Form "marketplace"
	// "Marketplace" .Data.Options "hint=..."
	"choice": func(f *form, name, label string, opts []option, more ...string) fieldView {
		v := fieldFunc(f, name, label, "select", more...)
		v.Options = opts
		return v
	},
	"statusName": func(v any) string { return statusName(adcamp.Status(fmt.Sprint(v))) },
	// options are choices after a first one of no value: options "None"
	// .Data.Channels
	"options": func(first string, opts []option) []option { return append([]option{{"", first}}, opts...) },
	"money":   money,
	"dates":   campaignDates,
	"button":  newButton,
	"filter":  newFilter,
	"when":    formatTime,
	"list":    func(v ...string) []string { return v },
	"ago": func(t *time.Time, now time.Time) string {
		if t == nil {
			return "never"
		}
		return ago(now.Sub(*t))
	},
	"envName": func(e adcamp.Environment) string {
		if e == adcamp.Production {
			return "Production"
		}
		return "Sandbox"
	},
	"roleName": func(r adcamp.Role) string {
		if r == "" {
			return ""
		}
		return strings.ToUpper(string(r[:1])) + string(r[1:])
	},
	"roles": func() []adcamp.Role { return adcamp.Roles },
	// roleSummary says what a role may do (see roles.go).
	"roleSummary": roleSummary,
	"aRole":       aRole,
	"keyManagers": keyManagers,
	// creator names who created a credential: a member's email, or an
	// operator at the command line.
	"creator": func(k keyCard) string {
		switch {
		case k.CreatorEmail != "":
			return k.CreatorEmail
		case k.CreatedBy != nil && k.CreatedBy.Type == adcamp.ActorAdmin:
			return "an operator (" + k.CreatedBy.ID + ")"
		}
		return ""
	},
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

// PerformanceHome is where the navigation's Performance leads: the
// performance of the environment the user is in.
func (p *page) PerformanceHome() string {
	return "/accounts/" + url.PathEscape(p.Account.ID) + "/" + string(p.Current) + "/performance"
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
