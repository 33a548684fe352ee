package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Handler tests of the pages of campaigns, ad groups and keywords, in
// each environment, compared with what the API says of the same account.

// TestCampaignForms: create, edit, pause, resume, end and delete a
// campaign through its forms, each invalid form with the API's words
// next to its fields, and each result as the API sees it.
func TestCampaignForms(t *testing.T) {
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

			// Invalid: every problem next to its field, in the API's words.
			bad := url.Values{"name": {"  "}, "budget_daily": {"0"}, "marketplace": {"XX"},
				"start_date": {"2099-05-02"}, "end_date": {"2099-05-01"}, "notes": {"fine"}}
			p = c.post(list+"/new", bad).wantStatus(http.StatusUnprocessableEntity).wantText(".alert", "Some fields need another look")
			ans := api.do("POST", "/campaigns", map[string]any{"name": "  ", "budget_daily": 0, "marketplace": "XX",
				"start_date": "2099-05-02", "end_date": "2099-05-01", "notes": "fine"})
			if ans.Status != 400 || len(ans.Error.Details) != 4 {
				t.Fatalf("the API answers the same campaign with %d %+v, want 400 and 4 details", ans.Status, ans.Error.Details)
			}
			for _, d := range ans.Error.Details {
				p.wantFieldError(d.Field, d.Issue)
			}
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
			for _, d := range ans.Error.Details {
				p.wantFieldError(d.Field, d.Issue)
			}
			if p.value("/edit", "version") != "1" {
				t.Error("an edit form shown again with its problems does not keep the version it was opened at")
			}
			c.post(edit, with(form, "budget_daily", "")).wantStatus(http.StatusUnprocessableEntity).wantFieldError("budget_daily", "is required")
			p = c.post(edit, with(form, "budget_daily", "40", "end_date", "", "notes", "")).wantStatus(200).wantText(".notice", "campaign was saved")
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
