package console

// Notices: the confirmation a page shows after a change, named in the
// address a form redirects to.

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

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
