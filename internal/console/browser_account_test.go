package console_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/adcamp/adcamp"
)

// TestBrowserAccountSettings: an owner reaches the account's settings from
// the navigation, is refused a time zone that does not exist (the focus on
// the field, the problem said beside it), saves another, and the campaign
// page counts its spend in that zone's day.
func TestBrowserAccountSettings(t *testing.T) {
	ctx := newBrowser(t)
	e := newEnv(t)
	_, acc := e.owner()
	api := e.apiFor(acc, adcamp.Production)
	var camp struct{ ID string }
	json.Unmarshal(api.do("POST", "/campaigns", map[string]any{"name": "Spring", "budget_daily": 20, "marketplace": "US"}).Data, &camp)
	signInBrowser(t, ctx, e, ownerEmail, ownerPassword)

	campaign := e.console.URL + at(acc, adcamp.Production, "/campaigns/"+camp.ID)
	do(t, ctx, chromedp.Navigate(campaign), chromedp.WaitVisible(chromedp.CSS("main h1")))
	if got := textOf(t, ctx, "main"); !strings.Contains(got, "the account's day, UTC") {
		t.Errorf("the campaign page before any change does not count in UTC: %q", got)
	}
	click(t, ctx, `nav a[href="/accounts/`+acc+`/settings"]`)
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#f-time_zone")))
	if got := textOf(t, ctx, ".facts"); !strings.Contains(got, "UTC") {
		t.Errorf("the settings show %q, want the time zone UTC", got)
	}
	checkPage(t, ctx, adcamp.Production, "50-account-settings")

	do(t, ctx, chromedp.SetValue(chromedp.CSS("#f-time_zone"), "Mars/Olympus"))
	submit(t, ctx, "main form", "#f-time_zone-error")
	if got := textOf(t, ctx, "#f-time_zone-error"); !strings.Contains(got, "IANA") {
		t.Errorf("the refused time zone reads %q", got)
	}
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`)); err != nil || got != "f-time_zone" {
		t.Errorf("after the refusal the focus is on %q (%v), want f-time_zone", got, err)
	}
	checkPage(t, ctx, adcamp.Production, "51-account-settings-refused")

	do(t, ctx, chromedp.SetValue(chromedp.CSS("#f-time_zone"), "Asia/Seoul"))
	submit(t, ctx, "main form", ".facts")
	if got := textOf(t, ctx, ".facts"); !strings.Contains(got, "Asia/Seoul") {
		t.Errorf("after saving, the settings show %q", got)
	}
	if got := textOf(t, ctx, "main"); !strings.Contains(got, "The time zone is saved") {
		t.Errorf("after saving, the page does not say so: %q", got)
	}
	narrow(t, ctx, adcamp.Production, "52-account-settings-360px")
	do(t, ctx, chromedp.Navigate(campaign), chromedp.WaitVisible(chromedp.CSS("main h1")))
	if got := textOf(t, ctx, "main"); !strings.Contains(got, "the account's day, Asia/Seoul") {
		t.Errorf("the campaign page does not count its spend in Asia/Seoul: %q", got)
	}
}
