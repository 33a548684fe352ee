package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
)

// Handler tests of the pages of campaigns, ad groups and keywords, in
// each environment, compared with what the API says of the same account.

// TestCampaignForms: create, edit, pause, resume, end and delete a
// campaign through its forms, each invalid form with the API's words
// next to its fields, and each result as the API sees it.
func TestCampaignForms(t *testing.T) {
	t.Parallel()
	for _, env := range envs {
		t.Run(string(env), func(t *testing.T) {
			e := newEnv(t)
			c, acc := e.owner()
			api := e.apiFor(acc, env)
			list := at(acc, env, "/campaigns")

			p := c.get(list).wantStatus(200).wantText("h1", "Campaigns").wantText(".empty", "No campaign yet")
			if !p.has(`a[href="` + list + `/new"]`) {
				t.Error("an owner sees no link to create a campaign")
			}
			p = c.get(list + "/new").wantStatus(200)
			for _, f := range []string{"name", "budget_daily", "marketplace", "start_date", "end_date", "notes"} {
				if !p.has(`label[for="f-`+f+`"]`) || !p.has("#f-"+f) {
					t.Errorf("the campaign form has no labelled field %s", f)
				}
			}

			// Invalid: every problem the API names next to its field, in
			// the console's words.
			bad := url.Values{"name": {"  "}, "budget_daily": {"0"}, "marketplace": {"XX"},
				"start_date": {"2099-05-02"}, "end_date": {"2099-05-01"}, "notes": {"fine"}}
			p = c.post(list+"/new", bad).wantStatus(http.StatusUnprocessableEntity).wantText(".alert", "Some fields need another look")
			ans := api.do("POST", "/campaigns", map[string]any{"name": "  ", "budget_daily": 0, "marketplace": "XX",
				"start_date": "2099-05-02", "end_date": "2099-05-01", "notes": "fine"})
			if ans.Status != 400 || len(ans.Error.Details) != 4 {
				t.Fatalf("the API answers the same campaign with %d %+v, want 400 and 4 details", ans.Status, ans.Error.Details)
			}
			p.wantOwnWords(ans, map[string]string{"name": "Enter a name.", "budget_daily": "The daily budget must be more than $0.00.",
				"marketplace": "Choose a marketplace from the list.",
				"end_date":    "The end date is before the start date (2099-05-02): choose that day or a later one."})
			if v, _ := p.doc.Find("#f-notes").Html(); v != "fine" {
				t.Errorf("the notes typed are not shown again: %q", v)
			}
			if api.total("/campaigns") != 0 {
				t.Fatal("an invalid campaign was stored")
			}

			// Valid.
			p = c.post(list+"/new", url.Values{"name": {"Spring sale"}, "budget_daily": {"25.5"}, "marketplace": {"de"},
				"end_date": {"2099-12-31"}, "notes": {"For the spring.\nSecond line."}}).wantStatus(200)
			p.wantText(".notice", "campaign was created").wantText("h1", "Spring sale").wantText("h1 .badge", "Active")
			id := lastSegment(strings.Split(p.url, "?")[0])
			got := api.campaign(id)
			if got.Name != "Spring sale" || got.BudgetDaily != 25.5 || got.Marketplace != "DE" || got.EndDate == nil || *got.EndDate != "2099-12-31" ||
				got.StartDate != nil || got.Notes == nil || *got.Notes != "For the spring.\nSecond line." || got.Status != "active" {
				t.Errorf("the API shows the campaign as %+v", got)
			}
			p.wantText(".facts", "$25.50").wantText(".facts", "DE").wantText(".facts", "2099-12-31").wantText(".facts", id)
			c.get(list).wantStatus(200).wantText("tbody", "Spring sale").wantText("tbody", "$25.50").wantText(".pager", "1–1 of 1")

			// Edit: the form holds the values and the version.
			edit := list + "/" + id + "/edit"
			p = c.get(edit).wantStatus(200)
			form := p.form(edit)
			if form.Get("name") != "Spring sale" || form.Get("budget_daily") != "25.50" || form.Get("version") != "1" || form.Get("end_date") != "2099-12-31" {
				t.Fatalf("the edit form holds %v", form)
			}
			p = c.post(edit, with(form, "budget_daily", "-3", "end_date", "1999-01-01")).wantStatus(http.StatusUnprocessableEntity)
			ans = api.do("PUT", "/campaigns/"+id, map[string]any{"budget_daily": -3, "end_date": "1999-01-01"})
			p.wantOwnWords(ans, map[string]string{"budget_daily": "The daily budget must be more than $0.00.",
				"end_date": "Enter a date from 2000-01-01 to 2100-12-31."})
			if p.value("/edit", "version") != "1" {
				t.Error("an edit form shown again with its problems does not keep the version it was opened at")
			}
			c.post(edit, with(form, "budget_daily", "")).wantStatus(http.StatusUnprocessableEntity).wantFieldError("budget_daily", "Enter a daily budget, such as 25.50.")
			c.post(edit, with(form, "budget_daily", "40", "end_date", "", "notes", "")).wantStatus(200).wantText(".notice", "campaign was saved")
			if got := api.campaign(id); got.BudgetDaily != 40 || got.EndDate != nil || got.Notes != nil || got.Version != 2 || got.Name != "Spring sale" {
				t.Errorf("after the edit the API shows %+v; want budget 40, no end date, no notes, version 2", got)
			}

			// Pause and resume by the buttons of its page, end and delete
			// after a confirmation.
			page := list + "/" + id
			p = c.get(page)
			p = c.post(page+"/pause", p.form("/pause")).wantStatus(200).wantText(".notice", "paused").wantText("h1 .badge", "Paused")
			if api.campaign(id).Status != "paused" {
				t.Error("the API does not see the campaign paused")
			}
			c.post(page+"/resume", p.form("/resume")).wantStatus(200).wantText(".notice", "active again")
			c.get(page+"/end").wantStatus(200).wantText("h1", "End this campaign?").wantText("main", "cannot be resumed")
			p = c.post(page+"/end", c.get(page+"/end").form("/end")).wantStatus(200).wantText(".notice", "ended").wantText("h1 .badge", "Ended")
			if p.has(`a[href$="/edit"]`) || p.has(`form[action$="/pause"]`) || !p.has(`a[href$="/delete"]`) {
				t.Error("an ended campaign's page offers changes other than delete")
			}
			c.post(edit, with(form, "version", fmt.Sprint(api.campaign(id).Version))).
				wantStatus(http.StatusConflict).wantText(".alert", "has ended")
			c.get(page+"/delete").wantStatus(200).wantText(".warning", "0 ad groups and 0 keywords")
			p = c.post(page+"/delete", c.get(page+"/delete").form("/delete")).wantStatus(200).wantText(".notice", "deleted, with 0 ad groups and 0 keywords")
			if !strings.HasSuffix(p.url, "/campaigns?done=campaign-deleted&n=0&m=0") {
				t.Errorf("after a delete the console shows %s, want the list", p.url)
			}
			if s := api.status("/campaigns/" + id); s != 404 {
				t.Errorf("the API finds the deleted campaign: %d", s)
			}
			c.get(page).wantStatus(404)
			c.post(page+"/delete", url.Values{"version": {"1"}}).wantStatus(404)
		})
	}
}

// newCampaign creates a campaign through the console and returns its id.
func newCampaign(t *testing.T, c *client, acc string, env adcamp.Environment, name string) string {
	t.Helper()
	p := c.post(at(acc, env, "/campaigns/new"), url.Values{"name": {name}, "budget_daily": {"25"}, "marketplace": {"US"}}).wantStatus(200)
	return lastSegment(strings.Split(p.url, "?")[0])
}

// newAdGroup creates an ad group through the console and returns its id.
func newAdGroup(t *testing.T, c *client, acc string, env adcamp.Environment, campaign, name string) string {
	t.Helper()
	p := c.post(at(acc, env, "/campaigns/"+campaign+"/ad-groups/new"), url.Values{"name": {name}, "default_bid": {"0.40"}}).wantStatus(200)
	return lastSegment(strings.Split(p.url, "?")[0])
}

// TestStaleEdits: a form opened at a version that is no longer the
// entity's saves nothing, says so, and shows the current values and
// what was typed; a button of an outdated page does nothing either.
func TestStaleEdits(t *testing.T) {
	t.Parallel()
	for _, env := range envs {
		t.Run(string(env), func(t *testing.T) {
			e := newEnv(t)
			c, acc := e.owner()
			api := e.apiFor(acc, env)
			id := newCampaign(t, c, acc, env, "Summer")
			edit := at(acc, env, "/campaigns/"+id+"/edit")
			first, second := c.get(edit).form(edit), c.get(edit).form(edit) // two tabs
			c.post(edit, with(first, "budget_daily", "30")).wantStatus(200).wantText(".notice", "saved")
			p := c.post(edit, with(second, "budget_daily", "99", "name", "Summer!")).wantStatus(http.StatusConflict)
			p.wantText(".conflict h2", "This campaign was changed since you opened it").wantText(".conflict", "Nothing was saved").wantText(".conflict", "version 2")
			p.wantText(".compare", "Daily budget").wantText(".compare", "30.00").wantText(".compare", "99").wantText(".compare", "Summer!")
			if got := p.form(edit); got.Get("budget_daily") != "30.00" || got.Get("version") != "2" || got.Get("name") != "Summer" {
				t.Errorf("after a conflict the form holds %v, want the current values at version 2", got)
			}
			if got := api.campaign(id); got.BudgetDaily != 30 || got.Name != "Summer" || got.Version != 2 {
				t.Errorf("a stale form changed the campaign: %+v", got)
			}
			// Saved again from the refreshed form, it goes through.
			c.post(edit, with(p.form(edit), "budget_daily", "99")).wantStatus(200)
			if api.campaign(id).BudgetDaily != 99 {
				t.Error("the form saved again after a conflict did not save")
			}

			// A pause button of a page opened before a change.
			page := at(acc, env, "/campaigns/"+id)
			old := c.get(page).form("/pause")
			c.post(edit, c.get(edit).form(edit)).wantStatus(200)
			p = c.post(page+"/pause", old).wantStatus(http.StatusConflict).wantText(".alert", "was changed since you opened this page")
			if api.campaign(id).Status != "active" {
				t.Error("a stale pause paused the campaign")
			}
			c.post(page+"/pause", p.form("/pause")).wantStatus(200).wantText(".notice", "paused")
			// A delete confirmed from an outdated page.
			del := c.get(page + "/delete").form("/delete")
			c.post(page+"/resume", c.get(page).form("/resume")).wantStatus(200)
			c.post(page+"/delete", del).wantStatus(http.StatusConflict).wantText(".alert", "nothing was done")
			if api.status("/campaigns/"+id) != 200 {
				t.Error("a stale delete deleted the campaign")
			}
			// A form without its version is refused, not saved blindly.
			c.post(edit, with(first, "version", "")).wantStatus(http.StatusUnprocessableEntity).wantText(".alert", "Reload the page")

			// Ad groups and keywords alike.
			g := newAdGroup(t, c, acc, env, id, "Shoes")
			gEdit := at(acc, env, "/ad-groups/"+g+"/edit")
			gForm := c.get(gEdit).form(gEdit)
			c.post(gEdit, with(gForm, "default_bid", "0.55")).wantStatus(200)
			c.post(gEdit, with(gForm, "name", "Boots")).wantStatus(http.StatusConflict).
				wantText(".conflict", "This ad group was changed since you opened it").wantText(".compare", "Boots").wantText(".compare", "0.55")
			c.post(at(acc, env, "/ad-groups/"+g+"/keywords/new"), url.Values{"items": {"red shoes"}, "match_type": {"exact"}}).wantStatus(200)
			kw := e.keywordID(api, g, "red shoes")
			kEdit := at(acc, env, "/keywords/"+kw+"/edit")
			kForm := c.get(kEdit).form(kEdit)
			c.post(kEdit, with(kForm, "bid", "1.25")).wantStatus(200)
			c.post(kEdit, with(kForm, "text", "blue shoes")).wantStatus(http.StatusConflict).
				wantText(".conflict", "This keyword was changed since you opened it").wantText(".compare", "blue shoes").wantText(".compare", "1.25")
		})
	}
}

// keywordID finds a keyword of an ad group by its text, through the API.
func (e *testEnv) keywordID(api *apiClient, adGroup, text string) string {
	e.t.Helper()
	var l struct {
		Items []struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		} `json:"items"`
	}
	api.get("/ad-groups/"+adGroup+"/keywords?page_size=100", &l)
	for _, k := range l.Items {
		if k.Text == text {
			return k.ID
		}
	}
	e.t.Fatalf("no keyword %q in %s", text, adGroup)
	return ""
}

// TestAdGroupForms: create, edit, pause, resume and delete an ad group,
// and the campaign's page listing it.
func TestAdGroupForms(t *testing.T) {
	t.Parallel()
	for _, env := range envs {
		t.Run(string(env), func(t *testing.T) {
			e := newEnv(t)
			c, acc := e.owner()
			api := e.apiFor(acc, env)
			camp := newCampaign(t, c, acc, env, "Autumn")
			create := at(acc, env, "/campaigns/"+camp+"/ad-groups/new")
			p := c.get(create).wantStatus(200)
			if !p.has(`label[for="f-name"]`) || !p.has(`label[for="f-default_bid"]`) {
				t.Error("the ad group form lacks labelled fields")
			}
			p = c.post(create, url.Values{"name": {strings.Repeat("n", 201)}, "default_bid": {"0.123"}}).wantStatus(http.StatusUnprocessableEntity)
			ans := api.do("POST", "/campaigns/"+camp+"/ad-groups", map[string]any{"name": strings.Repeat("n", 201), "default_bid": 0.123})
			p.wantOwnWords(ans, map[string]string{"name": "Use at most 200 characters.",
				"default_bid": "Use at most two decimals, such as 25.50: amounts are in whole cents."})
			c.post(create, url.Values{"name": {"Boots"}}).wantStatus(http.StatusUnprocessableEntity).wantFieldError("default_bid", "Enter a default bid, such as 0.45.")
			p = c.post(create, url.Values{"name": {"Boots"}, "default_bid": {"0.45"}}).wantStatus(200).
				wantText(".notice", "ad group was created").wantText("h1", "Boots").wantText(".facts", "$0.45")
			g := lastSegment(strings.Split(p.url, "?")[0])
			c.get(at(acc, env, "/campaigns/"+camp)).wantText("tbody", "Boots").wantText("tbody", "$0.45").wantText(".pager", "of 1")

			edit := at(acc, env, "/ad-groups/"+g+"/edit")
			form := c.get(edit).form(edit)
			c.post(edit, with(form, "default_bid", "")).wantStatus(http.StatusUnprocessableEntity).wantFieldError("default_bid", "Enter a default bid, such as 0.45.")
			c.post(edit, with(form, "name", "Winter boots", "default_bid", "0.6")).wantStatus(200).wantText(".notice", "saved").wantText("h1", "Winter boots")
			var got struct {
				Name       string  `json:"name"`
				DefaultBid float64 `json:"default_bid"`
				Status     string  `json:"status"`
			}
			api.get("/ad-groups/"+g, &got)
			if got.Name != "Winter boots" || got.DefaultBid != 0.6 {
				t.Errorf("the API shows the ad group as %+v", got)
			}
			page := at(acc, env, "/ad-groups/"+g)
			c.post(page+"/pause", c.get(page).form("/pause")).wantStatus(200).wantText(".notice", "ad group is paused").wantText("h1 .badge", "Paused")
			api.get("/ad-groups/"+g, &got)
			if got.Status != "paused" {
				t.Error("the API does not see the ad group paused")
			}
			c.post(page+"/resume", c.get(page).form("/resume")).wantStatus(200).wantText(".notice", "active again")
			c.post(page+"/keywords/new", url.Values{"items": {"a\nb\nc"}, "match_type": {"broad"}}).wantStatus(200).wantText(".notice", "3 keywords added")
			c.get(page+"/delete").wantStatus(200).wantText(".warning", "3 keywords")
			c.get(at(acc, env, "/campaigns/"+camp+"/delete")).wantText(".warning", "1 ad group and 3 keywords")
			c.post(page+"/delete", c.get(page+"/delete").form("/delete")).wantStatus(200).wantText(".notice", "ad group was deleted, with 3 keywords")
			if api.status("/ad-groups/"+g) != 404 || api.total("/campaigns/"+camp+"/ad-groups") != 0 {
				t.Error("the API still finds the deleted ad group")
			}
		})
	}
}

// TestKeywordForms: a keyword's page, edit, pause and resume from the ad
// group's list, delete.
func TestKeywordForms(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	env := adcamp.Sandbox
	api := e.apiFor(acc, env)
	g := newAdGroup(t, c, acc, env, newCampaign(t, c, acc, env, "Kw"), "G")
	c.post(at(acc, env, "/ad-groups/"+g+"/keywords/new"), url.Values{"items": {"red shoes\nblue shoes"}, "match_type": {"phrase"}, "bid": {"0.9"}}).
		wantStatus(200).wantText(".notice", "2 keywords added")
	red := e.keywordID(api, g, "red shoes")
	page := at(acc, env, "/keywords/"+red)
	c.get(page).wantStatus(200).wantText("h1", "red shoes").wantText(".facts", "Phrase").wantText(".facts", "$0.90")
	edit := page + "/edit"
	form := c.get(edit).form(edit)
	if form.Get("match_type") != "phrase" || form.Get("bid") != "0.90" || form.Get("text") != "red shoes" {
		t.Fatalf("the keyword form holds %v", form)
	}
	p := c.post(edit, with(form, "text", "", "match_type", "fuzzy", "bid", "abc")).wantStatus(http.StatusUnprocessableEntity)
	ans := api.do("PUT", "/keywords/"+red, map[string]any{"text": "", "match_type": "fuzzy", "bid": "abc"})
	if ans.Status != 400 {
		t.Fatalf("the API answers %d", ans.Status)
	}
	p.wantFieldError("text", "Enter the keyword.").wantFieldError("bid", "Enter an amount in US dollars, such as 25 or 25.50.")
	p.wantText("fieldset.invalid .error", "Choose exact, phrase or broad.")
	c.post(edit, with(form, "text", "BLUE SHOES")).wantStatus(http.StatusConflict).wantText(".alert", "already exists in this ad group")
	c.post(edit, with(form, "text", "green shoes", "bid", "")).wantStatus(200).wantText(".notice", "keyword was saved").
		wantText(".facts", "$0.40 (the ad group's default)")

	// Pause and resume from the ad group's list come back to it.
	list := at(acc, env, "/ad-groups/"+g)
	p = c.get(list)
	if n := p.doc.Find(`tbody form[action$="/pause"] input[name="back"]`).Length(); n != 2 {
		t.Errorf("%d pause buttons in the list of 2 keywords", n)
	}
	p = c.post(page+"/pause", p.form(red+"/pause")).wantStatus(200).wantText(".notice", "keyword is paused")
	if !strings.HasPrefix(p.url, list+"?") {
		t.Errorf("a pause from the list ends at %s, want the list", p.url)
	}
	c.post(page+"/resume", p.form(red+"/resume")).wantStatus(200).wantText(".notice", "active again")
	c.get(list+"?status=paused").wantStatus(200).wantText(".empty", "No keyword matches")
	c.get(list+"?match_type=phrase").wantText(".pager", "of 2")
	c.get(list+"?status=sleeping").wantStatus(400).wantText("main", "status must be one of active, paused")
	c.post(page+"/delete", c.get(page+"/delete").form("/delete")).wantStatus(200).wantText(".notice", "keyword was deleted")
	if api.status("/keywords/"+red) != 404 {
		t.Error("the API still finds the deleted keyword")
	}
}

// fiftyLines are 50 keywords pasted, two of them bad (line 7 too long,
// line 31 with a tab from a spreadsheet), with two blank lines among
// them (4 and 20, not sent) and Windows line breaks.
func fiftyLines() (text string, bad map[int]string) {
	var lines []string
	for i := 1; len(lines) < 52; i++ {
		switch len(lines) + 1 {
		case 4, 20:
			lines = append(lines, "   ")
		case 7:
			lines = append(lines, strings.Repeat("long ", 17))
		case 31:
			lines = append(lines, "hiking boots\t0.80")
		default:
			lines = append(lines, fmt.Sprintf("keyword number %d", i))
		}
	}
	return strings.Join(lines, "\r\n") + "\r\n", map[int]string{7: "use at most 80 characters.", 31: "remove the control characters, such as tabs or line breaks."}
}

// TestKeywordPaste: keywords pasted in bulk are stored all or none, each
// bad line named by its line in the box; with "keep the valid ones" the
// valid ones are stored and the others listed and put back in the box;
// duplicates are reported as such, against the ad group and within the
// paste.
func TestKeywordPaste(t *testing.T) {
	t.Parallel()
	for _, env := range envs {
		t.Run(string(env), func(t *testing.T) {
			e := newEnv(t)
			c, acc := e.owner()
			api := e.apiFor(acc, env)
			g := newAdGroup(t, c, acc, env, newCampaign(t, c, acc, env, "Paste"), "Boots")
			add := at(acc, env, "/ad-groups/"+g+"/keywords/new")
			p := c.get(add).wantStatus(200)
			if !p.has(`label[for="f-items"]`) || !p.has(`textarea#f-items`) || p.form(add).Get("match_type") != "exact" ||
				!p.has(`input[type=checkbox][name=keep]`) || p.doc.Find(`label.choice input[name=match_type]`).Length() != 3 {
				t.Error("the paste form lacks its labelled box, its match types (exact first chosen) or its checkbox")
			}
			text, bad := fiftyLines()
			count := func() int64 { return api.total("/ad-groups/" + g + "/keywords") }

			// All or none: refused whole, each bad line named.
			p = c.post(add, url.Values{"items": {text}, "match_type": {"broad"}}).wantStatus(http.StatusUnprocessableEntity)
			p.wantText(".alert", "Nothing was stored: 2 of 50 lines need another look").wantText(".line-issues", "2 blank lines skipped").wantText(".line-issues", "store the other 48")
			issues := p.doc.Find("#line-issues li .line-issue")
			if issues.Length() != 2 || issues.Eq(0).Text() != "Line 7: "+bad[7] || issues.Eq(1).Text() != "Line 31: "+bad[31] {
				t.Errorf("the lines named are %q", issues.Text())
			}
			if got := p.form(add).Get("items"); got != strings.ReplaceAll(text, "\r\n", "\n") {
				t.Errorf("the box does not hold the paste again as it was:\n%q", got)
			}
			if n := count(); n != 0 {
				t.Fatalf("%d keywords stored by a paste refused whole", n)
			}
			// The same through the API: the same items named.
			var items []map[string]any
			for _, l := range strings.Split(strings.TrimSpace(text), "\r\n") {
				if strings.TrimSpace(l) != "" {
					items = append(items, map[string]any{"text": l, "match_type": "broad"})
				}
			}
			ans := api.do("POST", "/ad-groups/"+g+"/keywords", map[string]any{"items": items})
			if ans.Status != 400 || len(ans.Error.Details) != 2 || ans.Error.Details[0].Field != "items[5].text" || ans.Error.Details[1].Field != "items[28].text" {
				t.Errorf("the API answers %d %+v", ans.Status, ans.Error.Details)
			}

			// Keep the valid ones.
			p = c.post(add, url.Values{"items": {text}, "match_type": {"broad"}, "keep": {"on"}}).wantStatus(200)
			p.wantText(".notice", "48 of 50 keywords stored").wantText(".notice", "2 lines were not").wantText(".notice", "2 blank lines skipped")
			// Put back on their own, they are lines 1 and 2 of the box.
			p.wantText("#line-issues", "Line 1: "+bad[7]).wantText("#line-issues", "Line 2: "+bad[31])
			if got := p.form(add).Get("items"); got != strings.Repeat("long ", 17)+"\nhiking boots\t0.80" {
				t.Errorf("the box holds %q, want the two lines not stored", got)
			}
			if n := count(); n != 48 {
				t.Fatalf("%d keywords stored, want 48", n)
			}
			c.get(at(acc, env, "/ad-groups/"+g)).wantText(".pager", "1–20 of 48")

			// Duplicates, of the ad group and within the paste.
			dups := "keyword number 1\nfresh one\n\nKEYWORD NUMBER 2\nfresh one\n"
			p = c.post(add, url.Values{"items": {dups}, "match_type": {"broad"}}).wantStatus(http.StatusUnprocessableEntity)
			p.wantText(".alert", "Nothing was stored: 3 of 4 lines")
			got := p.doc.Find("#line-issues li.duplicate .line-issue")
			want := []string{`Line 1 (duplicate): this keyword is in the ad group already, with this match type.`,
				`Line 4 (duplicate): this keyword is in the ad group already, with this match type.`,
				`Line 5 (duplicate): it repeats line 2.`}
			if got.Length() != 3 {
				t.Fatalf("duplicates named: %q", got.Text())
			}
			for i, w := range want {
				if got.Eq(i).Text() != w {
					t.Errorf("duplicate %d named %q, want %q", i, got.Eq(i).Text(), w)
				}
			}
			// The same words as exact (another match type): no duplicates.
			c.post(add, url.Values{"items": {dups}, "match_type": {"exact"}}).wantStatus(http.StatusUnprocessableEntity).
				wantText("#line-issues", `Line 5 (duplicate): it repeats line 2.`)
			c.post(add, url.Values{"items": {"keyword number 1\nfresh one"}, "match_type": {"exact"}}).wantStatus(200).wantText(".notice", "2 keywords added")
			if n := count(); n != 50 {
				t.Fatalf("%d keywords, want 50", n)
			}

			// Problems of the whole form, said once.
			p = c.post(add, url.Values{"items": {"a\nb\nc"}, "match_type": {""}, "bid": {"-1"}}).wantStatus(http.StatusUnprocessableEntity)
			p.wantFieldError("bid", "The bid must be more than $0.00").wantText("#f-match_type-error", "Choose a match type.")
			if p.has("#line-issues") {
				t.Error("a problem of the shared bid is listed line by line")
			}
			c.post(add, url.Values{"items": {"\n  \n"}, "match_type": {"exact"}}).wantStatus(http.StatusUnprocessableEntity).
				wantFieldError("items", "Paste at least one keyword, one a line.")
			c.post(add, url.Values{"items": {strings.Repeat("x\n", 1001)}, "match_type": {"exact"}}).wantStatus(http.StatusUnprocessableEntity).
				wantFieldError("items", "Paste at most 1,000 keywords at once.")
			if n := count(); n != 50 {
				t.Errorf("%d keywords after refused pastes, want 50", n)
			}
		})
	}
}

// TestKeywordPasteLarge: a thousand keywords of 80 characters, more than
// the other forms' limit, are one paste.
func TestKeywordPasteLarge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	env := adcamp.Sandbox
	g := newAdGroup(t, c, acc, env, newCampaign(t, c, acc, env, "Large"), "Many")
	var b strings.Builder
	for i := range adcamp.MaxKeywordBatch {
		fmt.Fprintf(&b, "%-70s %09d\n", "ein sehr langes schlüsselwort für die größte liste", i)
	}
	c.post(at(acc, env, "/ad-groups/"+g+"/keywords/new"), url.Values{"items": {b.String()}, "match_type": {"phrase"}}).
		wantStatus(200).wantText(".notice", "1000 keywords added")
}

// tree makes a campaign, an ad group and a keyword in env through the
// console, and returns the paths of their pages.
func tree(t *testing.T, e *testEnv, c *client, acc string, env adcamp.Environment) (camp, group, kw string) {
	t.Helper()
	cid := newCampaign(t, c, acc, env, "Tree")
	gid := newAdGroup(t, c, acc, env, cid, "Branch")
	c.post(at(acc, env, "/ad-groups/"+gid+"/keywords/new"), url.Values{"items": {"leaf"}, "match_type": {"exact"}}).wantStatus(200)
	kid := e.keywordID(e.apiFor(acc, env), gid, "leaf")
	return at(acc, env, "/campaigns/"+cid), at(acc, env, "/ad-groups/"+gid), at(acc, env, "/keywords/"+kid)
}

// changes are the posts that change something under the pages of a
// campaign, an ad group and a keyword, each with what it sends.
func changes(acc string, env adcamp.Environment, camp, group, kw string) map[string]url.Values {
	v1 := url.Values{"version": {"1"}}
	return map[string]url.Values{
		at(acc, env, "/campaigns/new"): {"name": {"X"}, "budget_daily": {"5"}, "marketplace": {"US"}},
		camp + "/edit":                 {"version": {"1"}, "name": {"X"}, "budget_daily": {"5"}},
		camp + "/pause":                v1, camp + "/end": v1, camp + "/delete": v1,
		camp + "/ad-groups/new": {"name": {"X"}, "default_bid": {"1"}},
		group + "/edit":         {"version": {"1"}, "name": {"X"}, "default_bid": {"1"}},
		group + "/pause":        v1, group + "/delete": v1,
		group + "/keywords/new": {"items": {"x"}, "match_type": {"exact"}},
		kw + "/edit":            {"version": {"1"}, "text": {"x"}, "match_type": {"exact"}},
		kw + "/pause":           v1, kw + "/delete": v1,
	}
}

// TestCampaignRolesInPages: a viewer sees everything and is shown no way
// to change anything, and their hand-made posts are refused by the
// server; a developer changes the sandbox and only sees production.
func TestCampaignRolesInPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, acc := e.owner()
	viewer, _ := e.member(acc, "viewer@example.com", adcamp.RoleViewer)
	dev, _ := e.member(acc, "dev@example.com", adcamp.RoleDeveloper)
	for _, env := range envs {
		camp, group, kw := tree(t, e, owner, acc, env)
		api := e.apiFor(acc, env)
		refused := []*client{viewer}
		if env == adcamp.Production {
			refused = append(refused, dev)
		}
		for _, who := range refused {
			for _, path := range []string{at(acc, env, "/campaigns"), camp, group, kw} {
				p := who.get(path).wantStatus(200).wantText(".read-only", "can see everything")
				if p.has(`a[href$="/new"]`) || p.has(`a[href$="/edit"]`) || p.has(`a[href$="/delete"]`) || p.has(`a[href$="/end"]`) || p.has(`main form[method=post]`) {
					t.Errorf("%s: a member who may not change it is shown ways to", path)
				}
			}
			who.get(camp+"/edit").wantStatus(http.StatusForbidden).wantText(".alert", "you cannot create or change "+string(env)+" campaigns")
			if p := who.get(group + "/keywords/new").wantStatus(http.StatusForbidden); p.has("textarea") {
				t.Error("the paste form is shown to a member who may not use it")
			}
			if p := who.get(kw + "/delete").wantStatus(http.StatusForbidden); p.has(`form[action$="/delete"]`) {
				t.Error("the delete button is shown to a member who may not use it")
			}
			for path, form := range changes(acc, env, camp, group, kw) {
				who.post(path, form).wantStatus(http.StatusForbidden).wantText(".alert", "As a ")
			}
		}
		if n := api.total("/campaigns"); n != 1 {
			t.Errorf("%s: %d campaigns after refused posts, want 1", env, n)
		}
		var c apiCampaign
		api.get("/campaigns/"+lastSegment(camp), &c)
		if c.Version != 1 || c.Status != "active" || api.total("/ad-groups/"+lastSegment(group)+"/keywords") != 1 {
			t.Errorf("%s: the campaign changed under refused posts: %+v", env, c)
		}
	}
	// A developer changes the sandbox.
	camp := newCampaign(t, dev, acc, adcamp.Sandbox, "Dev's")
	if !dev.get(at(acc, adcamp.Sandbox, "/campaigns/"+camp)).has(`a[href$="/edit"]`) {
		t.Error("a developer is shown no way to change a sandbox campaign")
	}
	dev.get(at(acc, adcamp.Production, "/campaigns")).wantText(".read-only", "change only campaigns and API keys in the sandbox")
}

// TestAnotherAccountsCampaigns: another account's ids, another
// environment's and made-up ones are missing, by every page and post,
// and nothing of theirs changes.
func TestAnotherAccountsCampaigns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	other, err := e.svc.CreateAccount(ctx, "Other", "")
	if err != nil {
		t.Fatal(err)
	}
	stranger, _ := e.member(other.ID, "stranger@example.com", adcamp.RoleOwner)
	theirCamp, theirGroup, theirKw := tree(t, e, stranger, other.ID, adcamp.Sandbox)
	mineCamp, _, _ := tree(t, e, c, acc, adcamp.Production)
	ids := func(p string) string { return lastSegment(p) }
	for _, env := range envs {
		// Their ids under my account, in either environment.
		camp, group, kw := at(acc, env, "/campaigns/"+ids(theirCamp)), at(acc, env, "/ad-groups/"+ids(theirGroup)), at(acc, env, "/keywords/"+ids(theirKw))
		for _, path := range []string{camp, camp + "/edit", camp + "/delete", camp + "/ad-groups/new", group, group + "/edit",
			group + "/keywords/new", group + "/pause", kw, kw + "/edit", kw + "/delete"} {
			c.get(path).wantStatus(404)
		}
		for path, form := range changes(acc, env, camp, group, kw) {
			if strings.HasSuffix(path, "/campaigns/new") {
				continue
			}
			c.post(path, form).wantStatus(404)
		}
		// My account's pages under theirs.
		c.get(at(other.ID, env, "/campaigns")).wantStatus(404)
		c.post(at(other.ID, env, "/campaigns/new"), url.Values{"name": {"X"}, "budget_daily": {"5"}, "marketplace": {"US"}}).wantStatus(404)
	}
	// Mine, in the other environment, and made-up ids.
	c.get(at(acc, adcamp.Sandbox, "/campaigns/"+ids(mineCamp))).wantStatus(404)
	for _, path := range []string{"/campaigns/cmp_nosuchcampaign", "/ad-groups/adg_nosuch", "/keywords/kw_nosuch", "/campaigns/not-an-id/edit"} {
		c.get(at(acc, adcamp.Production, path)).wantStatus(404)
	}
	c.get("/accounts/" + acc + "/staging/campaigns").wantStatus(404)
	theirs := e.apiFor(other.ID, adcamp.Sandbox)
	if got := theirs.campaign(ids(theirCamp)); got.Version != 1 || got.Status != "active" || theirs.total("/ad-groups/"+ids(theirGroup)+"/keywords") != 1 {
		t.Errorf("the other account's campaign changed: %+v", got)
	}
}

// TestEnvironmentMarked: every page of the sandbox says so (banner, title,
// switch), production's say theirs, the switch is on every page of an
// account, and each environment shows its own campaigns only.
func TestEnvironmentMarked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	sCamp, sGroup, sKw := tree(t, e, c, acc, adcamp.Sandbox)
	pCamp, _, _ := tree(t, e, c, acc, adcamp.Production)
	for _, path := range []string{at(acc, adcamp.Sandbox, "/campaigns"), at(acc, adcamp.Sandbox, "/campaigns/new"), sCamp, sCamp + "/edit",
		sCamp + "/delete", sCamp + "/ad-groups/new", sGroup, sGroup + "/keywords/new", sKw, sKw + "/edit"} {
		p := c.get(path).wantStatus(200).wantText(".env-banner.sandbox", "Sandbox").wantText(".env-switch [aria-current]", "Sandbox")
		if !strings.HasPrefix(p.text("title"), "Sandbox · ") || !p.has("body.in-sandbox") || p.has(".env-banner.production") {
			t.Errorf("%s is not marked as the sandbox's: title %q", path, p.text("title"))
		}
	}
	for _, path := range []string{at(acc, adcamp.Production, "/campaigns"), pCamp, pCamp + "/edit"} {
		p := c.get(path).wantStatus(200).wantText(".env-banner.production", "Production").wantText(".env-switch [aria-current]", "Production")
		if p.has(".env-banner.sandbox") || strings.Contains(p.text("title"), "Sandbox") {
			t.Errorf("%s is marked as the sandbox's", path)
		}
	}
	for _, path := range []string{"/accounts/" + acc + "/api-keys", "/accounts/" + acc + "/members", "/settings"} {
		p := c.get(path).wantStatus(200)
		if !p.has(`.env-switch a[href="`+path+`?env=sandbox"]`) || !p.has(`.env-switch a[href="`+path+`?env=production"]`) {
			t.Errorf("%s has no environment switch", path)
		}
	}
	c.get(at(acc, adcamp.Sandbox, "/campaigns")).wantText(".pager", "1–1 of 1")
	c.get(at(acc, adcamp.Production, "/campaigns")).wantText(".pager", "1–1 of 1")
}

// TestCampaignList: paging with exact totals, newest first, and the
// status filter, as the API pages the same campaigns.
func TestCampaignList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	env := adcamp.Production
	api := e.apiFor(acc, env)
	for i := range 23 {
		e.clock.Advance(time.Second)
		ans := api.do("POST", "/campaigns", map[string]any{"name": fmt.Sprintf("C%02d", i), "budget_daily": 1, "marketplace": "US"})
		if ans.Status != 201 {
			t.Fatal(ans.Error.Message)
		}
	}
	list := at(acc, env, "/campaigns")
	p := c.get(list).wantText(".pager", "1–20 of 23 · page 1 of 2")
	if got := p.text("tbody tr:first-child th"); got != "C22" {
		t.Errorf("the first campaign listed is %q, want the newest, C22", got)
	}
	next, _ := p.doc.Find(`.pager a[rel=next]`).Attr("href")
	p = c.get(next).wantStatus(200).wantText(".pager", "21–23 of 23 · page 2 of 2")
	if got := p.text("tbody tr:last-child th"); got != "C00" || p.has(`.pager a[rel=next]`) || !p.has(`.pager a[rel=prev]`) {
		t.Errorf("page 2 ends with %q, want C00 and only a link back", got)
	}
	c.get(list+"?page=9").wantStatus(200).wantText(".pager", "None on this page, of 23").wantText(".pager a", "Back to page 1")
	c.get(list+"?page=abc").wantStatus(400).wantText("main", "page must be an integer")
	var first apiCampaign
	api.get("/campaigns/"+lastSegment(strings.Split(p.doc.Find("tbody tr:first-child th a").AttrOr("href", ""), "?")[0]), &first)
	c.post(at(acc, env, "/campaigns/"+first.ID+"/pause"), url.Values{"version": {"1"}}).wantStatus(200)
	p = c.get(list+"?status=paused").wantText(".pager", "1–1 of 1").wantText("tbody", first.Name)
	if v, _ := p.doc.Find("#q-status option[selected]").Attr("value"); v != "paused" {
		t.Errorf("the filter shows %q, want paused", v)
	}
	if n := api.total("/campaigns?status=paused"); n != 1 {
		t.Errorf("the API counts %d paused campaigns", n)
	}
	c.get(list+"?status=ended").wantText(".empty", "No ended campaign")
	c.get(list+"?status=bogus").wantStatus(400).wantText("main", "status must be one of active, paused, ended")
	// A notice's counts are numbers, or there is no notice.
	c.get(list+"?done=campaign-deleted&n=2&m=1").wantText(".notice", "with 2 ad groups and 1 keyword.")
	if c.get(list + "?done=campaign-deleted&n=<b>&m=1").has(".notice") {
		t.Error("a notice shows counts that are not numbers")
	}
}

// TestCampaignChannelAccount: a campaign may name a channel account
// instead of a marketplace, as in the API.
func TestCampaignChannelAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	ca, err := e.svc.CreateChannelAccount(admin, acc, "UK", "Acme UK")
	if err != nil {
		t.Fatal(err)
	}
	env := adcamp.Sandbox
	create := at(acc, env, "/campaigns/new")
	id := fmt.Sprint(ca.ID)
	if p := c.get(create); !p.has(`#f-channel_account_id option[value="`+id+`"]`) || !strings.Contains(p.text("#f-channel_account_id"), "Acme UK (UK") {
		t.Fatal("the form offers no choice of the account's channel account")
	}
	c.post(create, url.Values{"name": {"X"}, "budget_daily": {"5"}, "marketplace": {"DE"}, "channel_account_id": {id}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("marketplace", "The channel account you chose sells on UK: choose UK here, or leave the marketplace empty.")
	c.post(create, url.Values{"name": {"X"}, "budget_daily": {"5"}, "channel_account_id": {"999999"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("channel_account_id", "Choose one of your channel accounts.")
	c.post(create, url.Values{"name": {"X"}, "budget_daily": {"5"}, "channel_account_id": {"x"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("channel_account_id", "Choose one of your channel accounts.")
	p := c.post(create, url.Values{"name": {"Via UK"}, "budget_daily": {"5"}, "channel_account_id": {id}}).wantStatus(200)
	p.wantText(".facts", "Acme UK").wantText(".facts", "UK")
	got := e.apiFor(acc, env).campaign(lastSegment(strings.Split(p.url, "?")[0]))
	if got.Marketplace != "UK" {
		t.Errorf("the API shows the campaign on %q, want UK", got.Marketplace)
	}
}

// TestCampaignFormsGuarded: a campaign form posted from another site is
// refused, and a paste beyond the largest batch is refused with a reason.
func TestCampaignFormsGuarded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	env := adcamp.Production
	g := newAdGroup(t, c, acc, env, newCampaign(t, c, acc, env, "Guarded"), "G")
	c.header = http.Header{"Origin": {"http://evil.example"}}
	c.post(at(acc, env, "/campaigns/new"), url.Values{"name": {"csrf"}, "budget_daily": {"5"}, "marketplace": {"US"}}).
		wantStatus(http.StatusForbidden).wantText("main", "sent from another site")
	c.header = http.Header{}
	if n := e.apiFor(acc, env).total("/campaigns"); n != 1 {
		t.Errorf("%d campaigns after a cross-origin post, want 1", n)
	}
	huge := strings.Repeat(strings.Repeat("x", 80)+"\n", 14000)
	c.post(at(acc, env, "/ad-groups/"+g+"/keywords/new"), url.Values{"items": {huge}, "match_type": {"exact"}}).
		wantStatus(http.StatusRequestEntityTooLarge).wantText("main", "at most 1,000 keywords of up to 80 characters in one paste")
}
