package console_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/adcamp/adcamp"
)

// Handler tests of the history: the History section of each entity's
// page, the environment's history page with its filters and paging, and
// the CSV export, each line naming its actor and door.

// historyLines returns the "Change" cells of a page's history tables.
func historyLines(p *page, selector string) []string {
	var lines []string
	p.doc.Find(selector + " table.history td.change").Each(func(_ int, s *goquery.Selection) {
		lines = append(lines, strings.Join(strings.Fields(s.Text()), " "))
	})
	return lines
}

func wantLine(t *testing.T, where string, lines []string, want string) {
	t.Helper()
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) }) {
		t.Errorf("%s: no line says %q; lines:\n%s", where, want, strings.Join(lines, "\n"))
	}
}

func mustJSON(t *testing.T, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
}

func TestHistoryNamesEveryDoor(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	api := e.apiFor(acc, adcamp.Production)
	list := at(acc, adcamp.Production, "/campaigns")

	// The owner creates a campaign and raises its budget in the console.
	p := c.post(list+"/new", url.Values{"name": {"Spring sale"}, "budget_daily": {"25"}, "marketplace": {"US"}}).wantStatus(200)
	id := lastSegment(strings.Split(p.url, "?")[0])
	edit := list + "/" + id + "/edit"
	c.post(edit, with(c.get(edit).form(edit), "budget_daily", "40")).wantStatus(200)

	// A program adds an ad group through the API and pauses it.
	ans := api.do("POST", "/campaigns/"+id+"/ad-groups", map[string]any{"name": "Shoes", "default_bid": 0.5})
	if ans.Status != 201 {
		t.Fatalf("create ad group: %d %s", ans.Status, ans.Error.Message)
	}
	var g struct{ ID string }
	mustJSON(t, ans.Data, &g)
	if ans := api.do("PUT", "/ad-groups/"+g.ID, map[string]any{"status": "paused"}); ans.Status != 200 {
		t.Fatalf("pause: %d %s", ans.Status, ans.Error.Message)
	}

	// The campaign's page: its own changes and its ad group's, newest first.
	p = c.get(list + "/" + id).wantStatus(200)
	lines := historyLines(p, "#main")
	wantLine(t, "campaign page", lines, "owner@example.com (console) changed budget $25.00 → $40.00")
	wantLine(t, "campaign page", lines, "owner@example.com (console) created campaign")
	wantLine(t, "campaign page", lines, "API key "+api.key+" (API) changed status active → paused")
	wantLine(t, "campaign page", lines, "API key "+api.key+" (API) created ad group")
	if len(lines) != 4 || !strings.Contains(lines[0], "paused") || !strings.Contains(lines[3], "created campaign") {
		t.Errorf("campaign page: %d lines, want 4, newest first:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	// The ad group's page: its own only.
	p = c.get(at(acc, adcamp.Production, "/ad-groups/"+g.ID)).wantStatus(200)
	if lines := historyLines(p, "#main"); len(lines) != 2 {
		t.Errorf("ad group page: %d lines, want its 2:\n%s", len(lines), strings.Join(lines, "\n"))
	}

	// The history page, filtered by who.
	hist := at(acc, adcamp.Production, "/history")
	p = c.get(hist).wantStatus(200).wantText("h1", "History")
	wantLine(t, "history", historyLines(p, "#main"), "owner@example.com (console) changed budget $25.00 → $40.00")
	p = c.get(hist + "?actor_type=api_key").wantStatus(200)
	for _, l := range historyLines(p, "#main") {
		if !strings.Contains(l, "(API)") {
			t.Errorf("history filtered to API keys shows %q", l)
		}
	}
	p = c.get(hist + "?entity_type=campaign&since=2000-01-01").wantStatus(200)
	if lines := historyLines(p, "#main"); len(lines) != 2 {
		t.Errorf("history of campaigns: %d lines, want 2:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	c.get(hist+"?since=yesterday").wantStatus(http.StatusBadRequest).wantText("main", "“From” date")

	// The sandbox has none of it; another account sees none of it.
	if lines := historyLines(c.get(at(acc, adcamp.Sandbox, "/history")).wantStatus(200), "#main"); slices.ContainsFunc(lines, func(l string) bool {
		return strings.Contains(l, "budget") || strings.Contains(l, "ad group")
	}) {
		t.Errorf("the sandbox's history shows production's changes: %q", lines)
	}
	other, err := e.svc.CreateAccount(ctx, "Other", "")
	if err != nil {
		t.Fatal(err)
	}
	stranger, _ := e.member(other.ID, "stranger@example.com", adcamp.RoleOwner)
	stranger.get(hist).wantStatus(http.StatusNotFound)
	stranger.get(hist + ".csv").wantStatus(http.StatusNotFound)

	// A deleted campaign's history stays readable.
	del := list + "/" + id + "/delete"
	c.post(del, c.get(del).form(del)).wantStatus(200)
	p = c.get(hist + "?campaign_id=" + id).wantStatus(200)
	lines = historyLines(p, "#main")
	wantLine(t, "deleted campaign's history", lines, "owner@example.com (console) deleted campaign")
	wantLine(t, "deleted campaign's history", lines, "owner@example.com (console) deleted ad group")
	wantLine(t, "deleted campaign's history", lines, "changed budget $25.00 → $40.00")
}

func TestHistoryPagesAndCSV(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	api := e.apiFor(acc, adcamp.Sandbox)
	var camp struct{ ID string }
	mustJSON(t, api.do("POST", "/campaigns", map[string]any{"name": "=HYPERLINK(\"http://x\")", "budget_daily": 10, "marketplace": "US"}).Data, &camp)
	var g struct{ ID string }
	mustJSON(t, api.do("POST", "/campaigns/"+camp.ID+"/ad-groups", map[string]any{"name": "G", "default_bid": 0.25}).Data, &g)
	var items []map[string]any
	for i := range 60 {
		items = append(items, map[string]any{"text": fmt.Sprintf("shoe %02d", i), "match_type": "exact"})
	}
	if ans := api.do("POST", "/ad-groups/"+g.ID+"/keywords", map[string]any{"items": items}); ans.Status != 201 {
		t.Fatalf("batch: %d %s", ans.Status, ans.Error.Message)
	}

	// 64 records (the owner's membership, the key, the campaign, the ad
	// group, 60 keywords): a first page of 50, then the 14 older.
	hist := at(acc, adcamp.Sandbox, "/history")
	p := c.get(hist).wantStatus(200)
	first := historyLines(p, "#main")
	older, ok := p.doc.Find(`a[rel="next"]`).Attr("href")
	if len(first) != adcamp.DefaultChangeLimit || !ok {
		t.Fatalf("first page: %d lines, older link %v", len(first), ok)
	}
	// Changes made meanwhile do not shift the older pages.
	api.do("PUT", "/campaigns/"+camp.ID, map[string]any{"budget_daily": 11})
	p = c.get(older).wantStatus(200)
	rest := historyLines(p, "#main")
	if len(rest) != 14 || p.has(`a[rel="next"]`) {
		t.Fatalf("second page: %d lines (want 14), a next link: %v", len(rest), p.has(`a[rel="next"]`))
	}
	for i, want := range []string{"created campaign: name =HYPERLINK", "created API key", "owner@example.com (console) added member: email owner@example.com · role owner"} {
		if got := rest[len(rest)-3+i]; !strings.Contains(got, want) {
			t.Errorf("line %d from the oldest is %q, want %q", 3-i, got, want)
		}
	}
	if slices.ContainsFunc(rest, func(l string) bool { return slices.Contains(first, l) && strings.Contains(l, "shoe") }) {
		t.Error("a keyword's line is on both pages")
	}
	if !p.has(`a[href="` + hist + `"]`) {
		t.Error("a later page has no way back to the newest")
	}

	// The CSV of the ad group's keywords: one row a field, formulas defused.
	p = c.get(hist + ".csv?entity_type=keyword")
	p.wantStatus(200)
	if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("CSV Content-Type = %q", ct)
	}
	if cd := p.header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") {
		t.Errorf("CSV Content-Disposition = %q", cd)
	}
	rows, err := csv.NewReader(strings.NewReader(p.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	col := func(name string) int { return slices.Index(head, name) }
	texts := 0
	for _, r := range rows[1:] {
		if r[col("entity_type")] != "keyword" || r[col("operation")] != "create" || r[col("actor_type")] != "api_key" ||
			r[col("actor_id")] != api.key || r[col("environment")] != "sandbox" || r[col("ad_group_id")] != g.ID {
			t.Fatalf("CSV row %q", r)
		}
		if r[col("field")] == "text" {
			texts++
		}
	}
	if texts != 60 {
		t.Errorf("CSV has %d keyword texts, want 60", texts)
	}
	p = c.get(hist + ".csv?entity_type=campaign")
	rows, _ = csv.NewReader(strings.NewReader(p.body)).ReadAll()
	found := false
	for _, r := range rows[1:] {
		if r[col("field")] == "name" {
			found = true
			if got := r[col("new")]; got != `'=HYPERLINK("http://x")` {
				t.Errorf("CSV name cell = %q, want the formula defused", got)
			}
		}
		if r[col("field")] == "budget_daily" && r[col("operation")] == "update" && (r[col("old")] != "10.00" || r[col("new")] != "11.00") {
			t.Errorf("CSV budget change = %q → %q, want 10.00 → 11.00", r[col("old")], r[col("new")])
		}
	}
	if !found {
		t.Errorf("the campaign's CSV has no name row: %q", rows)
	}
}
