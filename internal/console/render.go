package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"regexp"
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
	Can     service.Allowed
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

// withNotice adds a notice (a key of notices) to a local URL.
func withNotice(target, notice string) string {
	return target + "?done=" + url.QueryEscape(notice)
}

// notices are the confirmations a page shows after a change, by the key
// the redirect names: fixed texts, so that a link cannot make a page say
// anything else.
var notices = map[string]string{
	"webhook-enabled":   "The endpoint is enabled: events are sent to it again.",
	"webhook-disabled":  "The endpoint is disabled: no events are sent to it.",
	"webhook-tested":    "A test event is on its way: see the endpoint's deliveries.",
	"webhook-deleted":   "The endpoint is deleted.",
	"time-zone-saved":   "The time zone is saved: campaigns count their days in it from now on.",
	"key-disabled":      "The credential is disabled: the API refuses it from now on.",
	"key-enabled":       "The credential is enabled again.",
	"key-deleted":       "The credential is deleted.",
	"member-added":      "The member was added. They see the account the next time they sign in.",
	"role-changed":      "The role was changed.",
	"member-removed":    "The member was removed from the account.",
	"password-changed":  "Your password was changed. Your other sessions were ended.",
	"two-step-off":      "Two-step sign-in is off.",
	"signed-out-others": "Every other session was ended.",
	"signed-out":        "You are signed out.",
	"signed-out-all":    "You are signed out everywhere.",
	"sign-in-expired":   "That sign-in took too long; sign in again.",

	"campaign-created":  "The campaign was created. Add an ad group to it next.",
	"campaign-saved":    "The campaign was saved.",
	"campaign-paused":   "The campaign is paused.",
	"campaign-resumed":  "The campaign is active again.",
	"campaign-ended":    "The campaign has ended.",
	"campaign-deleted":  "The campaign was deleted, with {n:ad group} and {m:keyword}.",
	"ad-group-created":  "The ad group was created. Add keywords to it next.",
	"ad-group-saved":    "The ad group was saved.",
	"ad-group-paused":   "The ad group is paused.",
	"ad-group-resumed":  "The ad group is active again.",
	"ad-group-deleted":  "The ad group was deleted, with {m:keyword}.",
	"keyword-saved":     "The keyword was saved.",
	"keyword-paused":    "The keyword is paused.",
	"keyword-resumed":   "The keyword is active again.",
	"keyword-deleted":   "The keyword was deleted.",
	"keywords-added":    "{n:keyword} added.",
	"keywords-added-bl": "{n:keyword} added ({m:blank line} skipped).",
}

// countIn finds the counts of a notice: {n:keyword} is the number n of
// the URL with its noun, "3 keywords".
var countIn = regexp.MustCompile(`\{([nm]):([^}]+)\}`)

// notice returns the notice the request's URL names, if any, with its
// counts (numbers only: a link cannot make it say anything else).
func notice(r *http.Request) string {
	q := r.URL.Query()
	text, ok := notices[q.Get("done")]
	if !ok {
		return ""
	}
	bad := false
	text = countIn.ReplaceAllStringFunc(text, func(m string) string {
		sub := countIn.FindStringSubmatch(m)
		n, err := strconv.ParseUint(q.Get(sub[1]), 10, 31)
		if err != nil {
			bad = true
		}
		return counted(int64(n), sub[2])
	})
	if bad {
		return ""
	}
	return strings.ToUpper(text[:1]) + text[1:]
}

// withCounts adds a notice with its counts n and m to a local URL.
func withCounts(target, notice string, n, m int64) string {
	return withNotice(target, notice) + "&n=" + strconv.FormatInt(n, 10) + "&m=" + strconv.FormatInt(m, 10)
}

// form is a form's values and its problems, to show it again.
type form struct {
	values map[string]string
	errors map[string]string
	// Error is a problem of the whole form (a wrong password, a wait).
	Error string
	// Others are problems of fields the form does not show, listed
	// under Error.
	Others []string
	// focused says the page has given the focus to a field already;
	// refocus names the field to focus after a problem of the whole form
	// (the password, after a sign-in refused).
	focused bool
	refocus string
}

// newForm keeps the values of the named fields of r's form, to show them
// again (never a password's).
func newForm(r *http.Request, fields ...string) *form {
	f := &form{values: map[string]string{}, errors: map[string]string{}}
	for _, name := range fields {
		f.values[name] = r.PostFormValue(name)
	}
	return f
}

// Value is a field's value as sent.
func (f *form) Value(name string) string {
	if f == nil {
		return ""
	}
	return f.values[name]
}

// Err is the problem of a field, or "".
func (f *form) Err(name string) string {
	if f == nil {
		return ""
	}
	return f.errors[name]
}

// focusOn says whether the field name has the focus when the page loads:
// the first field with a problem, in the page's order, when any has one;
// else the field the form puts first (declared). Fields are rendered in
// the page's order, so the first asked with a problem is the first shown.
func (f *form) focusOn(name string, declared bool) bool {
	switch {
	case f == nil:
		return declared
	case len(f.errors) == 0 && f.Error != "" && f.refocus != "":
		return name == f.refocus
	case len(f.errors) == 0:
		return declared
	}
	if f.errors[name] == "" || f.focused {
		return false
	}
	f.focused = true
	return true
}

// Focus is focusOn for a field the page writes itself (radios).
func (f *form) Focus(name string) bool { return f.focusOn(name, false) }

// HasErrors reports whether anything is wrong with the form.
func (f *form) HasErrors() bool { return f != nil && (f.Error != "" || len(f.errors) > 0) }

// formCodes are the errors a form shows itself, with the status of the
// answer; any other error goes to the error page.
var formCodes = map[adcamp.Code]int{
	adcamp.CodeValidation:   http.StatusUnprocessableEntity,
	adcamp.CodeUnauthorized: http.StatusUnauthorized,
	adcamp.CodeRateLimited:  http.StatusTooManyRequests,
	adcamp.CodeConflict:     http.StatusConflict,
	adcamp.CodeForbidden:    http.StatusForbidden,

	adcamp.CodeInvalidStateTransition: http.StatusConflict,
	adcamp.CodeDuplicateKeyword:       http.StatusConflict,
	adcamp.CodePreconditionFailed:     http.StatusConflict,
}

// take records err on the form if the form can show it, and returns the
// status to answer with; 0 means err is for the error page.
func (f *form) take(err error) int {
	var e *adcamp.Error
	if !errors.As(err, &e) {
		return 0
	}
	status, ok := formCodes[e.Code]
	if !ok {
		return 0
	}
	if issues, ok := e.Details.([]adcamp.FieldIssue); ok && e.Code == adcamp.CodeValidation {
		for _, is := range issues {
			f.errors[is.Field] = issueText(is)
		}
		if len(issues) > 1 {
			f.Error = "Some fields need another look: see the messages below them."
		} else {
			f.Error = "A field needs another look: see the message below it."
		}
		return status
	}
	f.Error = e.Message
	return status
}

// fieldLabels name the fields of the service's validation errors as the
// forms label them.
var fieldLabels = map[string]string{
	"account_name":     "The account's name",
	"email":            "The email",
	"password":         "The password",
	"new_password":     "The new password",
	"current_password": "The current password",
	"confirm":          "Your password",
	"name":             "The name",
	"role":             "The role",
	"code":             "The code",
	"environment":      "The environment",

	"budget_daily":       "The daily budget",
	"marketplace":        "The marketplace",
	"channel_account_id": "The channel account",
	"start_date":         "The start date",
	"end_date":           "The end date",
	"notes":              "The notes",
	"status":             "The status",
	"version":            "The version",
	"default_bid":        "The default bid",
	"text":               "The text",
	"match_type":         "The match type",
	"bid":                "The bid",
	"items":              "The list",
	"page":               "The page",
	"page_size":          "The page size",
}

// sentence writes an issue of a kind the console has no words of its own
// for as a sentence about its field, in the API's words.
func sentence(label, issue string) string {
	if label == "" {
		label = "This field"
	}
	return label + " " + strings.TrimSuffix(issue, ".") + "."
}

// showForm renders name again with the problem err on its form, or
// returns err for the error page when the form cannot show it.
func (s *Server) showForm(w http.ResponseWriter, name string, p *page, err error) error {
	if p.Form == nil {
		p.Form = &form{values: map[string]string{}, errors: map[string]string{}}
	}
	status := p.Form.take(err)
	if status == 0 {
		return err
	}
	return s.render(w, status, name, p)
}

// fieldView is what the "field" part renders: a labelled input with its
// hint and its problem, tied to it for assistive technology.
type fieldView struct {
	Name, Label, Type, Value, Error, Hint, Autocomplete, InputMode, Placeholder string
	Required, Autofocus                                                         bool
	MaxLength                                                                   int
	Rows                                                                        int      // of a textarea
	Options                                                                     []option // of a select or radios
}

// DescribedBy lists the ids of the field's hint and problem.
func (v fieldView) DescribedBy() string {
	var ids []string
	if v.Hint != "" {
		ids = append(ids, "f-"+v.Name+"-hint")
	}
	if v.Error != "" {
		ids = append(ids, "f-"+v.Name+"-error")
	}
	return strings.Join(ids, " ")
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

// fieldFunc builds a fieldView: field .Form "email" "Email" "email"
// "autocomplete=email" "required" "hint=..."
func fieldFunc(f *form, name, label, typ string, opts ...string) fieldView {
	v := fieldView{Name: name, Label: label, Type: typ, Error: f.Err(name)}
	if typ != "password" {
		v.Value = f.Value(name)
	}
	for _, o := range opts {
		key, val, _ := strings.Cut(o, "=")
		switch key {
		case "autocomplete":
			v.Autocomplete = val
		case "hint":
			v.Hint = val
		case "inputmode":
			v.InputMode = val
		case "placeholder":
			v.Placeholder = val
		case "required":
			v.Required = true
		case "autofocus":
			v.Autofocus = true
		case "maxlength":
			v.MaxLength, _ = strconv.Atoi(val)
		case "rows":
			v.Rows, _ = strconv.Atoi(val)
		case "value":
			if v.Value == "" {
				v.Value = val
			}
		}
	}
	v.Autofocus = f.focusOn(name, v.Autofocus)
	return v
}

// formatTime writes a time for people: "2026-11-22 09:30 UTC". Its date
// is written as every date of the console is, and as its date fields
// take them: YYYY-MM-DD, the API's way, the same in every language.
func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// ago writes a duration in the past for people: "just now", "5 minutes
// ago", "3 days ago".
func ago(d time.Duration) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit + " ago"
		}
		return strconv.Itoa(n) + " " + unit + "s ago"
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour")
	}
	return plural(int(d/(24*time.Hour)), "day")
}

func itoa(n int) string { return strconv.Itoa(n) }

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
		Account: account, Role: role, Env: c.env, Current: c.current, Can: service.AllowedFor(role), Notice: notice(r)}
	if account != nil {
		p.Envs = envLinks(r, account.ID, section, c.env, c.current)
	}
	return p
}

// accountPath is the path of a page of the call's account.
func (c *call) accountPath(rest string) string {
	return "/accounts/" + url.PathEscape(c.account.ID) + rest
}
