package console

import (
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// What each role may do, for people. The words are made from the
// service's table of roles (service.AllowedFor), the one place that
// decides, so that the members page, the form that adds one and the note
// on a page a member may not change say the same, and say what is true.

// roleSummary describes what role r may do: "Changes campaigns and API
// keys in the sandbox; sees everything else."
func roleSummary(r adcamp.Role) string { return summaryOf(service.AllowedFor(r)) }

// summaryOf describes what a allows.
func summaryOf(a service.Allowed) string {
	changes := changesOf(a)
	switch {
	case len(changes) == 0:
		return "Sees everything, changes nothing."
	case a == service.AllowedFor(adcamp.RoleOwner):
		return "Changes everything: " + joinAnd(changes) + "."
	}
	return "Changes " + joinAnd(changes) + "; sees everything else."
}

// readOnlyNote says why a member with role r is shown no way to change
// some of what a page shows.
func readOnlyNote(r adcamp.Role) string {
	changes := changesOf(service.AllowedFor(r))
	what := "nothing"
	if len(changes) > 0 {
		what = "only " + joinAnd(changes)
	}
	return "You are " + aRole(r) + " of this account: you can see everything here, and change " + what + "."
}

// aRole names role r after "as" or "is": "a developer", "an owner".
func aRole(r adcamp.Role) string {
	if strings.IndexAny(string(r), "aeiou") == 0 {
		return "an " + string(r)
	}
	return "a " + string(r)
}

// changesOf lists what a lets a member change: "campaigns and API keys in
// the sandbox", "the members".
func changesOf(a service.Allowed) []string {
	campaigns := envsText(a.ProductionCampaigns, a.SandboxCampaigns)
	keys := envsText(a.ProductionKeys, a.SandboxKeys)
	var out []string
	switch {
	case campaigns != "" && campaigns == keys:
		out = append(out, "campaigns and API keys in "+campaigns)
	default:
		if campaigns != "" {
			out = append(out, "campaigns in "+campaigns)
		}
		if keys != "" {
			out = append(out, "API keys in "+keys)
		}
	}
	if a.Members {
		out = append(out, "the members")
	}
	return out
}

// envsText names the environments of which production and sandbox say
// whether each is one: "production and the sandbox", or "".
func envsText(production, sandbox bool) string {
	switch {
	case production && sandbox:
		return "production and the sandbox"
	case production:
		return "production"
	case sandbox:
		return "the sandbox"
	}
	return ""
}

// joinAnd lists parts for a sentence: "a", "a, and b", "a, b, and c"
// (the parts may hold an "and" of their own).
func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + ", and " + parts[len(parts)-1]
}

// keyManagers says who manages the API keys of env: "Owners manage these
// keys."
func keyManagers(env adcamp.Environment) string {
	var who []string
	for _, r := range adcamp.Roles {
		if service.AllowedFor(r).Keys(env) {
			who = append(who, string(r)+"s")
		}
	}
	if len(who) == 0 {
		return ""
	}
	s := strings.Join(who, " and ")
	return strings.ToUpper(s[:1]) + s[1:] + " manage these keys."
}
