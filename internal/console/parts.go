package console

// The content of the templates' shared parts (templates/parts): choices,
// status buttons, filters, facts.

import (
	"strings"

	"github.com/adcamp/adcamp"
)

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

// fact is a line of facts about an entity.
type fact struct{ Label, Value string }
