package console_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/adcamp/adcamp"
)

// The widths of a phone's screen and a desktop's window, in CSS pixels.
const (
	phoneWidth   = 390
	desktopWidth = 1280
)

// TestBrowserEveryPageNarrow: every page of the console, filled with the
// longest names, ids and values a user may give, fits a phone's screen
// (and a desktop's): nothing is cut off, and the page never scrolls
// sideways.
func TestBrowserEveryPageNarrow(t *testing.T) {
	ctx := newBrowser(t)
	e := newEnv(t)
	c, acc := e.owner()
	env := adcamp.Sandbox
	long := func(word string, n int) string { return strings.Repeat(word, n/len(word)+1)[:n] }

	// The longest of everything, made through the console.
	c.post("/accounts/"+acc+"/api-keys/new", url.Values{"environment": {"sandbox"}, "name": {long("Reportingjob", 100)},
		"scope_campaigns": {"read"}, "scope_history": {"none"}, "expires_at": {"365d"}, "rate_limit": {"99999"},
		"allowed_ips": {"2001:db8:1234:5678:9abc:def0:1234:0/112, 203.0.113.0/24, 198.51.100.0/24, 192.0.2.0/24"}}).wantStatus(200)
	c.post("/accounts/"+acc+"/api-keys/new", url.Values{"environment": {"production"}, "name": {"Live"}, "confirm": {ownerPassword}}).wantStatus(200)
	key := e.keys(acc)[0].ID
	api := e.apiFor(acc, env)
	p := c.post(at(acc, env, "/campaigns/new"), url.Values{"name": {long("Springclearance", 200)}, "budget_daily": {"999999.99"},
		"marketplace": {"US"}, "start_date": {"2099-01-01"}, "end_date": {"2099-12-31"}, "notes": {long("https://example.com/notes/", 1000)}}).wantStatus(200)
	camp := lastSegment(strings.Split(p.url, "?")[0])
	edit := at(acc, env, "/campaigns/"+camp+"/edit")
	c.post(edit, with(c.get(edit).form(edit), "name", long("Autumnclearance", 200), "budget_daily", "12345.67")).wantStatus(200)
	group := newAdGroup(t, c, acc, env, camp, long("Hikingbootsandjackets", 200))
	c.post(at(acc, env, "/ad-groups/"+group+"/keywords/new"), url.Values{"items": {long("waterproofhikingboots", 80) + "\nshort"}, "match_type": {"exact"}, "bid": {"999999.99"}}).wantStatus(200)
	kw := e.keywordID(api, group, "short")
	deliverLarge(t, e, env, kw, e.keywordID(api, group, long("waterproofhikingboots", 80)))
	p = c.post("/accounts/"+acc+"/members/new", url.Values{"email": {long("someone.with.a.very.long.name", 60) + "@" + long("subdomain.", 50) + "example.com"}, "role": {"viewer"}}).wantStatus(200)
	invitation, _ := url.Parse(p.text("#v-link"))
	member := e.userID(acc, strings.ToLower(long("someone.with.a.very.long.name", 60)+"@"+long("subdomain.", 50)+"example.com"))

	hook := c.post("/accounts/"+acc+"/webhooks/new?environment=sandbox", url.Values{"url": {"https://" + long("hooks.", 60) + "example.com/" + long("adcamp/", 300)},
		"description": {long("Billing and reporting ", 300)}, "event_types": adcamp.EventTypes}).wantStatus(201)
	hookID, _ := hook.doc.Find("tr[data-endpoint]").Attr("data-endpoint")

	signInBrowser(t, ctx, e, ownerEmail, ownerPassword)
	pages := []struct{ name, path string }{
		{"webhooks", "/accounts/" + acc + "/webhooks?environment=sandbox"},
		{"webhook-log", "/accounts/" + acc + "/webhooks/" + hookID + "?environment=sandbox"},
		{"api-keys", "/accounts/" + acc + "/api-keys"},
		{"key-new", "/accounts/" + acc + "/api-keys/new?environment=production"},
		{"key-roll", "/accounts/" + acc + "/api-keys/" + key + "/roll"},
		{"key-access", "/accounts/" + acc + "/api-keys/" + key + "/access"},
		{"key-uses", "/accounts/" + acc + "/api-keys/" + key + "/uses"},
		{"sandbox-reset", at(acc, env, "/reset")},
		{"members", "/accounts/" + acc + "/members"},
		{"member-new", "/accounts/" + acc + "/members/new"},
		{"member-remove", "/accounts/" + acc + "/members/" + member + "/remove"},
		{"settings", "/settings"},
		{"password", "/settings/password"},
		{"accounts", "/accounts"},
		{"campaigns", at(acc, env, "/campaigns")},
		{"campaign", at(acc, env, "/campaigns/"+camp)},
		{"campaign-new", at(acc, env, "/campaigns/new")},
		{"campaign-edit", edit},
		{"campaign-end", at(acc, env, "/campaigns/"+camp+"/end")},
		{"campaign-delete", at(acc, env, "/campaigns/"+camp+"/delete")},
		{"ad-group", at(acc, env, "/ad-groups/"+group)},
		{"ad-group-edit", at(acc, env, "/ad-groups/"+group+"/edit")},
		{"ad-group-new", at(acc, env, "/campaigns/"+camp+"/ad-groups/new")},
		{"keyword", at(acc, env, "/keywords/"+kw)},
		{"keyword-edit", at(acc, env, "/keywords/"+kw+"/edit")},
		{"keywords-new", at(acc, env, "/ad-groups/"+group+"/keywords/new")},
		{"performance", at(acc, env, "/performance")},
		{"performance-campaign", at(acc, env, "/campaigns/"+camp+"/performance?days=90&sort=-roas")},
		{"performance-ad-group", at(acc, env, "/ad-groups/"+group+"/performance")},
		{"performance-refused", at(acc, env, "/performance?from=2026-13-01&to=2026-01-01")},
		{"performance-empty", at(acc, adcamp.Production, "/performance")},
		{"history", at(acc, env, "/history")},
		{"history-campaign", at(acc, env, "/history?campaign_id="+camp)},
		{"not-found", "/no/such/page"},
		{"set-password", invitation.RequestURI()},
	}
	for _, pg := range pages {
		do(t, ctx, chromedp.EmulateViewport(desktopWidth, 900), chromedp.Navigate(e.console.URL+pg.path), chromedp.WaitVisible(chromedp.CSS("main h1")))
		fits(t, ctx, pg.name)
		do(t, ctx, chromedp.EmulateViewport(phoneWidth, 800))
		fits(t, ctx, pg.name)
	}

	// Pages that follow a form, on the phone: a refused paste's lines, a
	// secret shown once, an invitation's link, an edit that met another's
	// change, an authenticator's key.
	do(t, ctx, chromedp.Navigate(e.console.URL+at(acc, env, "/ad-groups/"+group+"/keywords/new")), chromedp.WaitVisible(chromedp.CSS("#f-items")))
	paste(t, ctx, "#f-items", "fine\n"+long("waytoolongkeyword", 81)+"\n"+long("waterproofhikingboots", 80))
	submit(t, ctx, "main form", "#line-issues")
	fits(t, ctx, "keywords-refused")
	do(t, ctx, chromedp.Navigate(e.console.URL+"/accounts/"+acc+"/api-keys/new?environment=sandbox"), chromedp.WaitVisible(chromedp.CSS("#f-name")),
		chromedp.SendKeys(chromedp.CSS("#f-name"), "Phone"))
	submit(t, ctx, "main form", "#v-secret")
	fits(t, ctx, "key-secret")
	do(t, ctx, chromedp.Navigate(e.console.URL+"/accounts/"+acc+"/members/new"), chromedp.WaitVisible(chromedp.CSS("#f-email")),
		chromedp.SendKeys(chromedp.CSS("#f-email"), long("another.long.name", 60)+"@example.com"))
	submit(t, ctx, "main form", "#v-link")
	fits(t, ctx, "member-link")
	do(t, ctx, chromedp.Navigate(e.console.URL+edit), chromedp.WaitVisible(chromedp.CSS("#f-budget_daily")))
	c.post(edit, with(c.get(edit).form(edit), "notes", long("changedelsewhere", 900))).wantStatus(200)
	do(t, ctx, chromedp.SetValue(chromedp.CSS("#f-notes"), long("typedhere", 900)))
	submit(t, ctx, "main form", ".conflict")
	fits(t, ctx, "campaign-conflict")
	do(t, ctx, chromedp.Navigate(e.console.URL+"/settings"), chromedp.WaitVisible(chromedp.CSS(".settings")))
	if count(t, ctx, `form[action="/settings/two-step"] input[type=password]`) > 0 {
		do(t, ctx, chromedp.SendKeys(chromedp.CSS(`form[action="/settings/two-step"] input[type=password]`), ownerPassword))
	}
	submit(t, ctx, `form[action="/settings/two-step"]`, "img.qr")
	fits(t, ctx, "two-step")
	click(t, ctx, ".who button")
	fits(t, ctx, "sign-in")
}

// fits checks that nothing on the page is wider than the window or cut
// off: the page does not scroll sideways, no element reaches past the
// window's right edge, and none holds more than it shows (clipped, cut
// with an ellipsis, or run out of its box), form fields aside, which
// scroll their own value. It saves the page's screenshot.
func fits(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	width, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.innerWidth`))
	if err != nil {
		t.Fatal(err)
	}
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowing))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("%s, %d px wide:\n\t%s", name, width, strings.Join(problems, "\n\t"))
	}
	shot(t, ctx, fmt.Sprintf("40-%dpx-%s", width, name))
}

// overflowing lists what on the page does not fit, outermost first.
const overflowing = `(() => {
	const screen = document.documentElement.clientWidth;
	const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
		(typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().split(/\s+/).join(".") : "");
	const text = el => JSON.stringify((el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 40));
	const out = [];
	if (document.documentElement.scrollWidth > screen) {
		out.push("the page is " + document.documentElement.scrollWidth + " px wide: it scrolls sideways");
	}
	// Hidden on purpose: for screen readers only, or off until focused.
	const hidden = el => {
		for (; el; el = el.parentElement) {
			const style = getComputedStyle(el);
			if (style.position === "absolute" && style.clip !== "auto") return true;
			if (el.matches(".skip, svg, script, style")) return true;
		}
		return false;
	};
	for (const el of document.body.querySelectorAll("*")) {
		if (hidden(el)) continue;
		const box = el.getBoundingClientRect();
		if (box.width === 0 || box.height === 0) continue;
		if (box.right > screen + 0.5) {
			out.push(name(el) + " " + text(el) + " reaches " + Math.round(box.right) + " px");
			continue;
		}
		if (el.matches("input, textarea, select")) continue;
		if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
			out.push(name(el) + " " + text(el) + " holds " + el.scrollWidth + " px in " + el.clientWidth + " px");
		}
	}
	return out.slice(0, 12);
})()`
