package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/adcamp/adcamp"
)

// Browser tests of the campaign pages: the main journeys of an account
// holder, in each environment, each result compared with what the API
// says of the same account. Screenshots go where the other browser tests
// put theirs.

// page checks what every page should be (one h1, a label for every
// field, the environment marked) and saves its screenshot.
func checkPage(t *testing.T, ctx context.Context, env adcamp.Environment, name string) {
	t.Helper()
	unlabelled, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(
		'main input:not([type=hidden]), main select, main textarea')).filter(el => el.labels.length === 0).map(el => el.name || el.id)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(unlabelled) > 0 {
		t.Errorf("%s: fields without a label: %v", name, unlabelled)
	}
	if n := count(t, ctx, "h1"); n != 1 {
		t.Errorf("%s: %d h1 headings, want 1", name, n)
	}
	if n := count(t, ctx, "[onclick], a[role=button], div[role=button]"); n != 0 {
		t.Errorf("%s: %d make-believe buttons", name, n)
	}
	if env == adcamp.Sandbox && count(t, ctx, ".env-banner.sandbox") != 1 {
		t.Errorf("%s: the sandbox's page has no sandbox banner", name)
	}
	if env == adcamp.Production && count(t, ctx, ".env-banner.sandbox") != 0 {
		t.Errorf("%s: production's page has the sandbox banner", name)
	}
	shot(t, ctx, name)
}

// paste puts text in the textarea sel, as a paste would.
func paste(t *testing.T, ctx context.Context, sel, text string) {
	t.Helper()
	js, _ := json.Marshal(text)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(document.querySelector(%q).value = %s) !== null`, sel, js))); err != nil {
		t.Fatalf("paste into %s: %v", sel, err)
	}
}

// narrow checks the page at 360 px wide: nothing wider than the screen.
func narrow(t *testing.T, ctx context.Context, env adcamp.Environment, name string) {
	t.Helper()
	do(t, ctx, chromedp.EmulateViewport(360, 780))
	checkPage(t, ctx, env, name)
	if w := pageWidth(t, ctx); w > 360 {
		t.Errorf("%s: at 360 px the page is %d px wide: it scrolls sideways", name, w)
	}
	do(t, ctx, chromedp.EmulateViewport(1280, 900))
}

// TestBrowserCampaignJourney: in each environment, create a campaign (a
// first try with mistakes), add an ad group, paste 50 keywords of which 2
// are bad (refused whole, then stored with "keep the valid ones"), edit
// the campaign in two tabs (the second save meets the conflict), pause
// and delete it.
func TestBrowserCampaignJourney(t *testing.T) {
	for i, env := range envs {
		t.Run(string(env), func(t *testing.T) {
			ctx := newBrowser(t)
			e := newEnv(t)
			_, acc := e.owner()
			api := e.apiFor(acc, env)
			name := func(s string) string { return fmt.Sprintf("%d-%s-%s", 20+i, env, s) }
			signInBrowser(t, ctx, e, ownerEmail, ownerPassword)

			// The switch keeps the API keys page; the navigation's
			// Campaigns then leads to the environment chosen.
			click(t, ctx, `.env-switch a.env-`+string(env))
			if got := textOf(t, ctx, "main h1"); got != "API keys" {
				t.Fatalf("the switch of the API keys page leads to %q", got)
			}
			click(t, ctx, `nav[aria-label="Main"] a[href$="/campaigns"]`)
			if got := textOf(t, ctx, "main h1"); got != "Campaigns "+strings.ToUpper(string(env)) {
				t.Fatalf("after the switch, Campaigns leads to %q", got)
			}
			checkPage(t, ctx, env, name("01-campaigns-empty"))

			// A campaign, first with mistakes.
			click(t, ctx, `main a[href$="/campaigns/new"]`)
			do(t, ctx, chromedp.SendKeys(chromedp.CSS("#f-budget_daily"), "0"),
				chromedp.SetValue(chromedp.CSS("#f-start_date"), "2099-05-02"), chromedp.SetValue(chromedp.CSS("#f-end_date"), "2099-05-01"))
			submit(t, ctx, "main form", ".alert")
			ans := api.do("POST", "/campaigns", map[string]any{"name": "", "budget_daily": 0, "start_date": "2099-05-02", "end_date": "2099-05-01"})
			if len(ans.Error.Details) != 4 {
				t.Fatalf("the API answers %+v", ans.Error)
			}
			own := map[string]string{"name": "Enter a name.", "budget_daily": "The daily budget must be more than $0.00.",
				"marketplace": "Choose a marketplace.", "end_date": "The end date is before the start date (2099-05-02): choose that day or a later one."}
			for _, d := range ans.Error.Details {
				if got := textOf(t, ctx, "#f-"+d.Field+"-error"); got != own[d.Field] {
					t.Errorf("next to %s the page says %q, want %q (the API says %q)", d.Field, got, own[d.Field], d.Issue)
				}
			}
			if id, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`)); err != nil || id != "f-name" {
				t.Errorf("after the errors the focus is on %q (%v), want the first field with one, f-name", id, err)
			}
			checkPage(t, ctx, env, name("02-campaign-form-errors"))
			do(t, ctx, chromedp.SendKeys(chromedp.CSS("#f-name"), "Spring sale"), chromedp.SetValue(chromedp.CSS("#f-budget_daily"), "25.50"),
				chromedp.SetValue(chromedp.CSS("#f-end_date"), "2099-12-31"), chromedp.SetValue(chromedp.CSS("#f-marketplace"), "DE"),
				chromedp.SendKeys(chromedp.CSS("#f-notes"), "Boots and jackets for the spring."))
			submit(t, ctx, "main form", ".notice")
			campaignPath := mustLocation(t, ctx)
			id := lastSegment(campaignPath)
			if c := api.campaign(id); c.Name != "Spring sale" || c.BudgetDaily != 25.5 || c.Marketplace != "DE" || c.StartDate == nil || *c.StartDate != "2099-05-02" {
				t.Errorf("the API shows the new campaign as %+v", c)
			}

			// An ad group.
			click(t, ctx, `main a[href$="/ad-groups/new"]`)
			do(t, ctx, chromedp.SendKeys(chromedp.CSS("#f-name"), "Hiking boots"), chromedp.SendKeys(chromedp.CSS("#f-default_bid"), "0.45"))
			checkPage(t, ctx, env, name("04-ad-group-form"))
			submit(t, ctx, "main form", ".notice")
			group := lastSegment(mustLocation(t, ctx))
			if api.status("/ad-groups/"+group) != 200 {
				t.Fatal("the API does not find the new ad group")
			}

			// 50 keywords pasted, 2 of them bad: refused whole.
			click(t, ctx, `main a[href$="/keywords/new"]`)
			text, bad := fiftyLines()
			paste(t, ctx, "#f-items", text)
			do(t, ctx, chromedp.Click(chromedp.CSS(`input[name=match_type][value="broad"]`)))
			checkPage(t, ctx, env, name("05-keywords-paste"))
			submit(t, ctx, "main form", "#line-issues")
			if got := textOf(t, ctx, "#line-issues"); !strings.Contains(got, "Line 7: "+bad[7]) || !strings.Contains(got, "Line 31: "+bad[31]) {
				t.Errorf("the refused paste names %q", got)
			}
			if got := textOf(t, ctx, ".alert"); !strings.Contains(got, "Nothing was stored: 2 of 50 lines") {
				t.Errorf("the refused paste says %q", got)
			}
			keywords := "/ad-groups/" + group + "/keywords"
			if n := api.total(keywords); n != 0 {
				t.Fatalf("%d keywords stored by a paste refused whole", n)
			}
			checkPage(t, ctx, env, name("06-keywords-refused"))
			// The same box, now keeping the valid ones.
			do(t, ctx, chromedp.Click(chromedp.CSS(`input[name=keep]`)))
			submit(t, ctx, "main form", ".notice")
			if got := textOf(t, ctx, ".notice"); !strings.Contains(got, "48 of 50 keywords stored") {
				t.Errorf("keeping the valid ones says %q", got)
			}
			if n := api.total(keywords); n != 48 {
				t.Errorf("%d keywords stored keeping the valid ones, want 48", n)
			}
			checkPage(t, ctx, env, name("07-keywords-kept"))
			do(t, ctx, chromedp.Navigate(e.console.URL+at(acc, env, "/ad-groups/"+group)), chromedp.WaitVisible(chromedp.CSS("table.keywords")))
			if got := textOf(t, ctx, ".pager"); !strings.Contains(got, "of 48") {
				t.Errorf("the ad group's page counts %q", got)
			}
			checkPage(t, ctx, env, name("08-ad-group"))
			narrow(t, ctx, env, name("09-ad-group-360px"))

			// The campaign edited in two tabs.
			edit := e.console.URL + campaignPath + "/edit"
			tab2, closeTab2 := chromedp.NewContext(ctx)
			defer closeTab2()
			do(t, ctx, chromedp.Navigate(edit), chromedp.WaitVisible(chromedp.CSS("#f-budget_daily")))
			do(t, tab2, chromedp.Navigate(edit), chromedp.WaitVisible(chromedp.CSS("#f-budget_daily")))
			do(t, ctx, chromedp.SetValue(chromedp.CSS("#f-budget_daily"), "30"))
			submit(t, ctx, "main form", ".notice")
			do(t, tab2, chromedp.SetValue(chromedp.CSS("#f-budget_daily"), "99"), chromedp.SetValue(chromedp.CSS("#f-name"), "Spring sale!"))
			submit(t, tab2, "main form", ".conflict")
			if got := textOf(t, tab2, ".conflict"); !strings.Contains(got, "This campaign was changed since you opened it") || !strings.Contains(got, "99") {
				t.Errorf("the second tab's save says %q", got)
			}
			if v, _ := chromedp.Run(tab2, chromedp.Value(chromedp.CSS("#f-budget_daily"))); v != "30.00" {
				t.Errorf("after the conflict the form shows the budget %q, want the current 30.00", v)
			}
			checkPage(t, tab2, env, name("10-campaign-conflict"))
			if c := api.campaign(id); c.BudgetDaily != 30 || c.Name != "Spring sale" {
				t.Errorf("the second tab overwrote the first: %+v", c)
			}

			// Pause, then delete.
			do(t, ctx, chromedp.Navigate(e.console.URL+campaignPath), chromedp.WaitVisible(chromedp.CSS(".facts")))
			checkPage(t, ctx, env, name("03-campaign"))
			click(t, ctx, `main form[action$="/pause"] button`)
			if got := textOf(t, ctx, ".notice"); !strings.Contains(got, "paused") || api.campaign(id).Status != "paused" {
				t.Errorf("the pause says %q, and the API %q", got, api.campaign(id).Status)
			}
			checkPage(t, ctx, env, name("11-campaign-paused"))
			narrow(t, ctx, env, name("12-campaign-360px"))
			click(t, ctx, `main a[href$="/delete"]`)
			if got := textOf(t, ctx, ".warning"); !strings.Contains(got, "1 ad group and 48 keywords") {
				t.Errorf("the delete's confirmation says %q", got)
			}
			checkPage(t, ctx, env, name("13-campaign-delete"))
			submit(t, ctx, "main form", ".notice")
			if got := textOf(t, ctx, ".notice"); !strings.Contains(got, "deleted, with 1 ad group and 48 keywords") {
				t.Errorf("after the delete the page says %q", got)
			}
			if api.status("/campaigns/"+id) != 404 || api.status("/ad-groups/"+group) != 404 {
				t.Error("the API still finds the deleted campaign or its ad group")
			}
			checkPage(t, ctx, env, name("14-campaigns-after-delete"))

			// The history names each change and who made it, the deleted
			// campaign's too.
			click(t, ctx, `nav[aria-label="Main"] a[href$="/history"]`)
			if got := textOf(t, ctx, "table.history"); !strings.Contains(got, "owner@example.com (console) deleted keyword") {
				t.Errorf("the history's newest lines are not the delete's: %q", got)
			}
			do(t, ctx, chromedp.SetValue(chromedp.CSS("#q-entity-type"), "campaign"))
			submit(t, ctx, "form.history-filters", "table.history")
			got := textOf(t, ctx, "table.history")
			for _, want := range []string{"owner@example.com (console) deleted campaign", "owner@example.com (console) changed status active → paused",
				"owner@example.com (console) changed budget $25.50 → $30.00", "owner@example.com (console) created campaign"} {
				if !strings.Contains(got, want) {
					t.Errorf("the history does not say %q", want)
				}
			}
			checkPage(t, ctx, env, name("15-history"))
			narrow(t, ctx, env, name("16-history-360px"))
		})
	}
}

// TestBrowserCampaignViewer: a viewer sees a campaign and no way to
// change it; a hand-made post with their session is refused.
func TestBrowserCampaignViewer(t *testing.T) {
	ctx := newBrowser(t)
	e := newEnv(t)
	owner, acc := e.owner()
	camp, group, _ := tree(t, e, owner, acc, adcamp.Sandbox)
	e.member(acc, "viewer@example.com", adcamp.RoleViewer)
	signInBrowser(t, ctx, e, "viewer@example.com", "the passphrase of viewer@example.com")
	for _, path := range []string{camp, group} {
		do(t, ctx, chromedp.Navigate(e.console.URL+path), chromedp.WaitVisible(chromedp.CSS(".facts")))
		if n := count(t, ctx, `main a[href$="/edit"], main a[href$="/delete"], main a[href$="/new"], main form[method=post]`); n != 0 {
			t.Errorf("%s: a viewer sees %d ways to change things", path, n)
		}
	}
	checkPage(t, ctx, adcamp.Sandbox, "30-sandbox-viewer-ad-group")
	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{e.console.URL}})
	if err != nil {
		t.Fatal(err)
	}
	c := e.client()
	u, _ := url.Parse(e.console.URL)
	for _, k := range cookies.Cookies {
		c.http.Jar.SetCookies(u, []*http.Cookie{{Name: k.Name, Value: k.Value, Path: "/"}})
	}
	c.post(camp+"/pause", url.Values{"version": {"1"}}).wantStatus(http.StatusForbidden).wantText(".alert", "As a viewer")
	if st := e.apiFor(acc, adcamp.Sandbox).campaign(lastSegment(camp)).Status; st != "active" {
		t.Errorf("a viewer's hand-made post made the campaign %s", st)
	}
}
