package console_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/adcamp/adcamp"
)

// TestBrowserNegatives: an owner pastes negative keywords on an ad
// group's tab (one blocks a keyword: the page warns; a repeat is named by
// its line), creates a shared list with entries and attaches it to the
// campaign, each step checked through the API.
func TestBrowserNegatives(t *testing.T) {
	ctx := newBrowser(t)
	e := newEnv(t)
	_, acc := e.owner()
	env := adcamp.Sandbox
	api := e.apiFor(acc, env)
	var camp, group struct{ ID string }
	json.Unmarshal(api.do("POST", "/campaigns", map[string]any{"name": "Spring", "budget_daily": 20, "marketplace": "US"}).Data, &camp)
	json.Unmarshal(api.do("POST", "/campaigns/"+camp.ID+"/ad-groups", map[string]any{"name": "Boots", "default_bid": 0.5}).Data, &group)
	api.do("POST", "/ad-groups/"+group.ID+"/keywords", map[string]any{"items": []map[string]any{
		{"text": "free hiking boots", "match_type": "broad"}, {"text": "leather boots", "match_type": "exact"}}})
	signInBrowser(t, ctx, e, ownerEmail, ownerPassword)

	do(t, ctx, chromedp.Navigate(e.console.URL+at(acc, env, "/ad-groups/"+group.ID)), chromedp.WaitVisible(chromedp.CSS("main h1")))
	click(t, ctx, `main a[href$="/negatives"]`)
	checkPage(t, ctx, env, "40-negatives-empty")
	paste(t, ctx, "#f-items", "free\ncheap\n\nFREE\n")
	submit(t, ctx, "main form[action$=\"/negatives\"]", "#paste-result")
	if got := textOf(t, ctx, "#paste-result"); !strings.Contains(got, "2 negative keywords added") {
		t.Errorf("the paste says %q", got)
	}
	if got := textOf(t, ctx, "#line-issues"); !strings.Contains(got, "Line 4 (duplicate)") {
		t.Errorf("the refused line reads %q", got)
	}
	if got := textOf(t, ctx, "#warnings"); !strings.Contains(got, "free hiking boots") {
		t.Errorf("the warnings read %q", got)
	}
	if n := api.total("/ad-groups/" + group.ID + "/negative-keywords"); n != 2 {
		t.Errorf("the API counts %d negatives, want 2", n)
	}
	checkPage(t, ctx, env, "41-negatives-pasted")
	narrow(t, ctx, env, "42-negatives-360px")
	click(t, ctx, `main form[action$="/pause"] button`)
	if n := api.total("/ad-groups/" + group.ID + "/negative-keywords?status=paused"); n != 1 {
		t.Errorf("after a pause the API counts %d paused, want 1", n)
	}

	// A shared list, attached to the campaign.
	do(t, ctx, chromedp.Navigate(e.console.URL+at(acc, env, "/negative-lists")), chromedp.WaitVisible(chromedp.CSS("#f-name")))
	checkPage(t, ctx, env, "43-shared-lists-empty")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#f-name"), "Materials"))
	submit(t, ctx, "main form", "#f-items")
	paste(t, ctx, "#f-items", "leather\nsuede")
	submit(t, ctx, "main form[action*=\"/negative-lists/\"]", "#paste-result")
	checkPage(t, ctx, env, "44-shared-list")
	do(t, ctx, chromedp.Navigate(e.console.URL+at(acc, env, "/campaigns/"+camp.ID+"/negatives")), chromedp.WaitVisible(chromedp.CSS("#f-list")))
	submit(t, ctx, "main form[action$=\"/attach\"]", "#warnings")
	if got := textOf(t, ctx, "#warnings"); !strings.Contains(got, "blocks 1 active keyword") {
		t.Errorf("the attach says %q", got)
	}
	var lists struct{ Items []struct{ Name string } }
	api.get("/campaigns/"+camp.ID+"/negative-keyword-lists", &lists)
	if len(lists.Items) != 1 || lists.Items[0].Name != "Materials" {
		t.Errorf("the API lists %+v attached", lists.Items)
	}
	checkPage(t, ctx, env, "45-campaign-negatives")
	do(t, ctx, chromedp.Navigate(e.console.URL+at(acc, env, "/negative-lists")), chromedp.WaitVisible(chromedp.CSS("table.negative-lists")))
	checkPage(t, ctx, env, "46-shared-lists")
}
