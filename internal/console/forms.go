package console

// Forms: what a form was sent with, the problems the service found in it
// (each next to its field), and the conflict an edit form shows when its
// entity changed since it was opened.

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

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

// given sets o to the form's field name when it is not blank: a blank
// field is a field left out, as in an API request.
func given(o *adcamp.Optional[string], r *http.Request, name string) {
	if v := r.PostFormValue(name); strings.TrimSpace(v) != "" {
		*o = adcamp.Some(v)
	}
}

// clearable sets o to the form's field name, or to null (clear it) when
// it is blank.
func clearable(o *adcamp.Optional[string], r *http.Request, name string) {
	if v := r.PostFormValue(name); strings.TrimSpace(v) != "" {
		*o = adcamp.Some(v)
	} else {
		*o = adcamp.Null[string]()
	}
}

// required sets o to the form's field name, which an edit may not leave
// blank: the service then says it is required, as on create.
func required(o *adcamp.Optional[string], invalid *adcamp.Issues, r *http.Request, name string) {
	if v := r.PostFormValue(name); strings.TrimSpace(v) != "" {
		*o = adcamp.Some(v)
	} else {
		invalid.AddKind(name, adcamp.IssueRequired, "", "is required")
	}
}
