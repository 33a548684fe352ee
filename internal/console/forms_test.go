package console_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/console"
)

// errorLog records the console's log records of level error, and passes
// every record on to the test's log.
type errorLog struct {
	slog.Handler
	mu     sync.Mutex
	errors []string
}

func (h *errorLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		h.mu.Lock()
		h.errors = append(h.errors, r.Message)
		h.mu.Unlock()
	}
	return h.Handler.Handle(ctx, r)
}

func (h *errorLog) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.errors
	h.errors = nil
	return out
}

// formActions crawls the console as c from start, following its links
// (at most limit pages), and returns the action of every form that posts,
// one of each route: by the route's shape, its ids left out.
func formActions(c *client, start string, limit int) map[string]string {
	c.t.Helper()
	actions, seen, queue := map[string]string{}, map[string]bool{start: true}, []string{start}
	for len(queue) > 0 && len(seen) <= limit {
		p := c.get(queue[0])
		queue = queue[1:]
		p.doc.Find(`form[method="post"]`).Each(func(_ int, f *goquery.Selection) {
			if a, ok := f.Attr("action"); ok {
				a = strings.SplitN(a, "?", 2)[0]
				actions[idInPath.ReplaceAllString(a, "/{id}")] = a
			}
		})
		p.doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
			href, _ := a.Attr("href")
			if !strings.HasPrefix(href, "/") || strings.HasPrefix(href, "//") || strings.HasPrefix(href, "/static/") ||
				strings.Contains(href, ".csv") || seen[href] {
				return
			}
			seen[href] = true
			queue = append(queue, href)
		})
	}
	return actions
}

// idInPath finds the ids in a path (acc_..., ak_test_..., usr_...).
var idInPath = regexp.MustCompile(`/[a-z]+(_[a-z]+)?_[0-9a-z]{10,}`)

// TestMalformedForms: every form of the console answers a body it cannot
// read (bad % escapes, a malformed Content-Type, a broken multipart body),
// or a bad query string, with 400 and a plain message, and a body over
// its limit with 413; never 500, nothing logged as an error, nothing
// changed; for an owner, a viewer and someone signed out alike. The forms
// are found by crawling the console's pages.
func TestMalformedForms(t *testing.T) {
	t.Parallel()
	log := &errorLog{Handler: slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})}
	e := newEnv(t, func(c *console.Config) { c.Logger = slog.New(log) })
	owner, acc := e.owner()
	viewer, _ := e.member(acc, "viewer@example.com", adcamp.RoleViewer)
	e.member(acc, "invited@example.com", adcamp.RoleDeveloper)
	if _, err := e.svc.AddMember(admin, acc, "pending@example.com", adcamp.RoleViewer); err != nil {
		t.Fatal(err)
	}
	owner.post("/accounts/"+acc+"/api-keys/new", url.Values{"environment": {"sandbox"}, "name": {"CI"}}).wantStatus(200)
	for _, env := range envs {
		api := e.apiFor(acc, env)
		var cmp, grp apiCampaign
		ans := api.do("POST", "/campaigns", map[string]any{"name": "Spring", "budget_daily": 25, "marketplace": "US"})
		if ans.Status != 201 || json.Unmarshal(ans.Data, &cmp) != nil {
			t.Fatalf("create a campaign: %d %s", ans.Status, ans.Error.Message)
		}
		ans = api.do("POST", "/campaigns/"+cmp.ID+"/ad-groups", map[string]any{"name": "Shoes", "default_bid": 0.5})
		if ans.Status != 201 || json.Unmarshal(ans.Data, &grp) != nil {
			t.Fatalf("create an ad group: %d %s", ans.Status, ans.Error.Message)
		}
		if ans = api.do("POST", "/ad-groups/"+grp.ID+"/keywords", map[string]any{"text": "red shoes", "match_type": "exact"}); ans.Status != 201 {
			t.Fatalf("create a keyword: %d %s", ans.Status, ans.Error.Message)
		}
	}
	found := formActions(owner, "/", 120)
	for shape, a := range formActions(e.client(), "/sign-in", 5) {
		found[shape] = a
	}
	// Forms shown only after a post: the second step of a sign-in, the
	// one that confirms an authenticator, and the one-time links' pages.
	for _, a := range []string{"/sign-in/code", "/settings/two-step/enable", "/setup", "/set-password"} {
		found[a] = a
	}
	var actions []string
	for _, a := range found {
		actions = append(actions, a)
	}
	sort.Strings(actions)
	if len(actions) < 30 {
		t.Fatalf("the crawl found %d forms, want every one: %v", len(actions), actions)
	}
	t.Logf("%d forms: %v", len(actions), actions)

	const form = "application/x-www-form-urlencoded"
	big := "items=" + strings.Repeat("x", 1<<20)
	cases := []struct {
		name, query, contentType, body string
		status                         int
	}{
		{"bad escapes", "", form, "name=%zz&items=a%", 400},
		{"a lone escape", "", form, "%", 400},
		{"semicolons", "", form, "a=1;b=2", 400},
		{"malformed Content-Type", "", form + "; charset", "name=x", 400},
		{"malformed Content-Type parameters", "", "application/x-www-form-urlencoded; ===", "name=x", 400},
		{"multipart without a boundary", "", "multipart/form-data", "name=x", 400},
		{"broken multipart", "", "multipart/form-data; boundary=XYZ", "--XYZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end", 400},
		{"bad query string", "?next=%zz", form, "name=x", 400},
		{"too large", "", form, big, 413},
	}
	before := len(allChanges(t, e, acc))
	for _, who := range []struct {
		name string
		c    *client
	}{{"owner", owner}, {"viewer", viewer}, {"signed out", e.client()}} {
		for _, c := range cases {
			for _, a := range actions {
				req, _ := http.NewRequest("POST", e.console.URL+a+c.query, strings.NewReader(c.body))
				req.Header.Set("Content-Type", c.contentType)
				u, _ := url.Parse(e.console.URL)
				for _, k := range who.c.http.Jar.Cookies(u) {
					req.AddCookie(k)
				}
				resp, err := http.DefaultTransport.RoundTrip(req)
				if err != nil {
					t.Fatalf("%s, %s, POST %s: %v", who.name, c.name, a, err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != c.status || !strings.Contains(string(b), "nothing was changed") {
					t.Errorf("%s, %s: POST %s = %d, want %d and a plain message", who.name, c.name, a, resp.StatusCode, c.status)
				}
				if errs := log.take(); len(errs) > 0 {
					t.Errorf("%s, %s: POST %s logged errors %q", who.name, c.name, a, errs)
				}
			}
		}
	}
	if after := len(allChanges(t, e, acc)); after != before {
		t.Errorf("%d change records after malformed forms, want %d: something changed", after, before)
	}
	// GET pages read their query as strictly.
	owner.get("/accounts/"+acc+"/api-keys?x=%zz").wantStatus(400).wantText("main", "nothing was changed")
	e.client().get("/sign-in?next=%zz").wantStatus(400)
}

// allChanges lists the account's change records, of both environments and
// its members.
func allChanges(t *testing.T, e *testEnv, acc string) []*adcamp.Change {
	t.Helper()
	recs, _, err := e.svc.ListChanges(admin, adcamp.Tenant{AccountID: acc}, adcamp.ChangeFilter{Limit: adcamp.MaxChangeLimit})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
