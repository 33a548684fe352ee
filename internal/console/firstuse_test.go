package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
)

// Tests of what a first-time user meets: messages in plain words, the
// environment kept from page to page, the roles described once.

// TestUsedSetupLink: a setup link that no longer works says what helps.
// Once someone can sign in, restarting serve prints no new link: the
// page says to sign in, or to ask an owner; before, a restart does.
func TestUsedSetupLink(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client()
	p := c.get("/setup?token=wrong").wantStatus(404)
	p.wantText("main", "not valid").wantText("main", "Restart adcamp serve")
	e.owner()
	p = c.get("/setup?token=wrong").wantStatus(404)
	p.wantText("main", "set up already").wantText("main", "Sign in").wantText("main", "ask an owner")
	if got := p.text("main"); strings.Contains(got, "Restart") || strings.Contains(got, "restart") {
		t.Errorf("once a user exists the setup link's page still advises a restart: %q", got)
	}
}

// roleSummaries are what each role may do, as the service's table of
// roles has it: a developer changes the sandbox's campaigns as well as
// its keys.
var roleSummaries = map[adcamp.Role]string{
	adcamp.RoleOwner:     "Changes everything: campaigns and API keys in production and the sandbox, and the members.",
	adcamp.RoleDeveloper: "Changes campaigns and API keys in the sandbox; sees everything else.",
	adcamp.RoleViewer:    "Sees everything, changes nothing.",
}

// TestRolesDescribedOnce: the members page and the form that adds one
// describe each role in the same words, the words of what the service
// lets it do.
func TestRolesDescribedOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, acc := e.owner()
	members := "/accounts/" + acc + "/members"
	p := owner.get(members).wantStatus(200)
	form := owner.get(members + "/new").wantStatus(200)
	for _, role := range adcamp.Roles {
		want := roleSummaries[role]
		if got := p.text(`.roles [data-role="` + string(role) + `"] dd`); got != want {
			t.Errorf("the members page describes a %s as %q, want %q", role, got, want)
		}
		if got := form.text(`input[name=role][value="` + string(role) + `"] + span`); !strings.Contains(got, want) {
			t.Errorf("the add-member form describes a %s as %q, want %q", role, got, want)
		}
	}
}

// TestReadOnlySaidEverywhere: a member who may not change what a page
// shows is told so, in the same words, on the campaign pages, the API
// keys page and the members page alike; an owner is told nothing.
func TestReadOnlySaidEverywhere(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, acc := e.owner()
	viewer, _ := e.member(acc, "viewer@example.com", adcamp.RoleViewer)
	dev, _ := e.member(acc, "dev@example.com", adcamp.RoleDeveloper)
	pages := []string{at(acc, adcamp.Production, "/campaigns"), "/accounts/" + acc + "/api-keys", "/accounts/" + acc + "/members"}
	for who, want := range map[*client]string{
		viewer: "You are a viewer of this account: you can see everything here, and change nothing.",
		dev:    "You are a developer of this account: you can see everything here, and change only campaigns and API keys in the sandbox.",
	} {
		for _, path := range pages {
			if got := who.get(path).wantStatus(200).text(".read-only"); got != want {
				t.Errorf("%s tells a member %q, want %q", path, got, want)
			}
		}
	}
	for _, path := range pages {
		if owner.get(path).has(".read-only") {
			t.Errorf("%s tells an owner they may not change things", path)
		}
	}
	if dev.get(at(acc, adcamp.Sandbox, "/campaigns")).has(".read-only") {
		t.Error("the sandbox's campaigns tell a developer they may not change them")
	}
}

// TestKeyManagersNamed: each column of the API keys page says who
// manages its keys, as the table of roles has it.
func TestKeyManagersNamed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, acc := e.owner()
	p := owner.get("/accounts/" + acc + "/api-keys").wantStatus(200)
	p.wantText(`section[aria-labelledby="h-production"] > p`, "Owners manage these keys.").
		wantText(`section[aria-labelledby="h-sandbox"] > p`, "Owners and developers manage these keys.")
}

// TestChannelAccountHint: the marketplace's hint mentions a channel
// account only when the form offers one to choose.
func TestChannelAccountHint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	create := at(acc, adcamp.Sandbox, "/campaigns/new")
	p := c.get(create).wantStatus(200)
	if p.has("#f-channel_account_id") || strings.Contains(p.text("#f-marketplace-hint"), "channel account") {
		t.Errorf("without channel accounts the form says %q, with %d channel account fields", p.text("#f-marketplace-hint"), p.doc.Find("#f-channel_account_id").Length())
	}
	if _, err := e.svc.CreateChannelAccount(admin, acc, "UK", "Acme UK"); err != nil {
		t.Fatal(err)
	}
	p = c.get(create).wantStatus(200).wantText("#f-marketplace-hint", "channel account")
	if !p.has("#f-channel_account_id") {
		t.Error("the form offers no channel account to choose")
	}
}

// TestMessagesWrittenWhole: the messages of the settings' forms are
// sentences of their own, not a field's label before the API's words
// ("Your password is not your password.").
func TestMessagesWrittenWhole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	p := c.post("/settings/two-step", nil).wantStatus(200)
	token, _ := p.doc.Find(`input[name="token"]`).Attr("value")
	c.post("/settings/two-step/enable", url.Values{"token": {token}, "code": {"000000"}, "password": {ownerPassword}}).wantStatus(http.StatusUnprocessableEntity).
		wantFieldError("code", "That is not the code your app shows now. Check that your phone's clock is right, then try again.")
	c.post("/settings/password", url.Values{"current_password": {ownerPassword}, "new_password": {ownerPassword}, "new_password_again": {ownerPassword}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("new_password", "Choose a new password, not your current one.")
	c.post("/accounts/"+acc+"/members/new", url.Values{"email": {""}, "role": {"viewer"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("email", "Enter an email address.")
}

// TestKeptPasteKeepsEveryLine: with "keep the valid ones", a paste of
// which nothing could be stored (its shared bid is wrong) is put back in
// the box whole, not only its lines that had problems of their own.
func TestKeptPasteKeepsEveryLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	env := adcamp.Sandbox
	g := newAdGroup(t, c, acc, env, newCampaign(t, c, acc, env, "Kept"), "G")
	add := at(acc, env, "/ad-groups/"+g+"/keywords/new")
	long := strings.Repeat("x", 81)
	p := c.post(add, url.Values{"items": {"red\n" + long + "\nblue"}, "match_type": {"exact"}, "bid": {"-1"}, "keep": {"on"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("bid", "The bid must be more than $0.00")
	if got := p.form(add).Get("items"); got != "red\n"+long+"\nblue" {
		t.Errorf("the box holds %q, want the three lines, none stored", got)
	}
	p.wantText("#line-issues", "Line 2: use at most 80 characters.")
}

// TestHistoryInPlainWords: the history names an API key by its name, with
// its id; gives money its currency sign as every other page does; and
// the pages write every date one way, YYYY-MM-DD, their date fields too,
// with a plain phrase for a campaign without dates.
func TestHistoryInPlainWords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	env := adcamp.Sandbox
	p := c.post("/accounts/"+acc+"/api-keys/new", url.Values{"environment": {"sandbox"}, "name": {"Reporting job"}}).wantStatus(200)
	api := &apiClient{t: t, e: e, env: env, key: p.text("#v-key"), secret: p.text("#v-secret")}
	ans := api.do("POST", "/campaigns", map[string]any{"name": "Spring", "budget_daily": 25, "marketplace": "US"})
	if ans.Status != 201 {
		t.Fatalf("create: %d %s", ans.Status, ans.Error.Message)
	}
	var camp struct{ ID string }
	mustJSON(t, ans.Data, &camp)
	edit := at(acc, env, "/campaigns/"+camp.ID+"/edit")
	c.post(edit, with(c.get(edit).form(edit), "budget_daily", "40")).wantStatus(200)

	p = c.get(at(acc, env, "/history")).wantStatus(200)
	lines := historyLines(p, "#main")
	named := "API key “Reporting job” (" + api.key + ", API)"
	wantLine(t, "history", lines, named+" created campaign: name Spring · budget $25.00")
	wantLine(t, "history", lines, "owner@example.com (console) changed budget $25.00 → $40.00")
	if got := p.text(`table.history td[data-label="What"]`); !strings.Contains(got, "API key “Reporting job” ("+api.key+")") {
		t.Errorf("the history names the key it created as %q", got)
	}

	list := c.get(at(acc, env, "/campaigns")).wantStatus(200).wantText(`td[data-label="Dates"]`, "No start or end date")
	form := c.get(at(acc, env, "/campaigns/new")).wantStatus(200)
	for path, pg := range map[string]*page{"campaigns": list, "history": p, "new campaign": form} {
		if m := monthName.FindString(pg.text("main")); m != "" {
			t.Errorf("the %s page writes a date %q: want YYYY-MM-DD", path, m)
		}
		if pg.has(`input[type=date]`) {
			t.Errorf("the %s page has a date picker, which writes dates as the browser's language does", path)
		}
	}
	if !form.has(`#f-end_date[placeholder="YYYY-MM-DD"]`) || !p.has(`#q-since[placeholder="YYYY-MM-DD"]`) {
		t.Error("a date field does not say how to write a date")
	}
	c.get(at(acc, env, "/history?since=yesterday")).wantStatus(http.StatusBadRequest).wantText("main", "Write the “From” date as YYYY-MM-DD")
}

// monthName finds a date written with a month's name.
var monthName = regexp.MustCompile(`\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b`)

// TestEnvironmentKept: the console remembers the environment last
// chosen: after the sandbox's campaigns, the API keys, members and
// settings pages lead back to the sandbox's campaigns and history, and
// mark it; their switch keeps the user on the same page; the switch of a
// page of campaigns leads to the same page of the other environment
// where there is one.
func TestEnvironmentKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	sandbox, production := at(acc, adcamp.Sandbox, ""), at(acc, adcamp.Production, "")
	pages := []string{"/accounts/" + acc + "/api-keys", "/accounts/" + acc + "/members", "/settings"}
	navigation := func(p *page, env adcamp.Environment) {
		t.Helper()
		base := at(acc, env, "")
		if !p.has(`nav[aria-label="Main"] a[href="`+base+`/campaigns"]`) || !p.has(`nav[aria-label="Main"] a[href="`+base+`/history"]`) {
			t.Errorf("%s: the navigation does not lead to the %s's campaigns and history", p.url, env)
		}
		if got := p.text(".env-switch [aria-current]"); !strings.HasPrefix(got, map[adcamp.Environment]string{adcamp.Production: "Production", adcamp.Sandbox: "Sandbox"}[env]) {
			t.Errorf("%s: the switch marks %q, want the %s", p.url, got, env)
		}
	}
	for _, path := range pages {
		navigation(c.get(path).wantStatus(200), adcamp.Production)
	}
	c.get(sandbox + "/campaigns").wantStatus(200)
	for _, path := range pages {
		p := c.get(path).wantStatus(200)
		navigation(p, adcamp.Sandbox)
		if !p.has(`.env-switch a[href="` + path + `?env=production"]`) {
			t.Errorf("%s: the switch does not keep the user on the page", path)
		}
		if p.has(".env-banner") {
			t.Errorf("%s, a page of both environments, has the banner of one", path)
		}
	}
	navigation(c.get(pages[0]+"?env=production").wantStatus(200), adcamp.Production)
	navigation(c.get(pages[1]).wantStatus(200), adcamp.Production)

	camp := newCampaign(t, c, acc, adcamp.Sandbox, "Spring")
	for from, to := range map[string]string{
		sandbox + "/campaigns":           production + "/campaigns",
		sandbox + "/campaigns/new":       production + "/campaigns/new",
		sandbox + "/history":             production + "/history",
		sandbox + "/campaigns/" + camp:   production + "/campaigns",
		production + "/campaigns/new":    sandbox + "/campaigns/new",
		sandbox + "/campaigns/new?x=bad": production + "/campaigns/new",
	} {
		if p := c.get(from).wantStatus(200); !p.has(`.env-switch a[href="` + to + `"]`) {
			t.Errorf("the switch of %s does not lead to %s", from, to)
		}
	}
}

// TestKeyPagesInTheirEnvironment: a page of one environment's API key (a
// new key's form, its secret, a change of it) is in that environment: the
// switch and the page's colour mark it, and Campaigns leads there after;
// the switch of a new key's form leads to the other's new key form.
func TestKeyPagesInTheirEnvironment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	keys := "/accounts/" + acc + "/api-keys"
	inEnv := func(p *page, env adcamp.Environment) {
		t.Helper()
		if got := p.text(".env-switch [aria-current]"); !strings.HasPrefix(got, envNames[env]) {
			t.Errorf("%s: the switch marks %q, want %s", p.url, got, envNames[env])
		}
		if class, _ := p.doc.Find("body").Attr("class"); class != "in-"+string(env) {
			t.Errorf("%s: the page is coloured %q, want in-%s", p.url, class, env)
		}
	}
	p := c.get(keys + "/new?environment=sandbox").wantStatus(200)
	inEnv(p, adcamp.Sandbox)
	if !p.has(`.env-switch a[href="` + keys + `/new?environment=production"]`) {
		t.Error("the switch of the new sandbox key form does not lead to the new production key form")
	}
	p = c.post(keys+"/new", url.Values{"environment": {"sandbox"}, "name": {"Job"}}).wantStatus(200)
	inEnv(p, adcamp.Sandbox)
	if !p.has(`nav[aria-label="Main"] a[href="` + at(acc, adcamp.Sandbox, "/campaigns") + `"]`) {
		t.Error("after a new sandbox key, Campaigns does not lead to the sandbox's")
	}
	key := e.keys(acc)[0].ID
	c.get(keys + "?env=production").wantStatus(200)
	p = c.get(keys + "/" + key + "/roll").wantStatus(200)
	inEnv(p, adcamp.Sandbox)
	if !p.has(`.env-switch a[href="` + keys + `?env=production"]`) {
		t.Error("the switch of a sandbox key's page does not lead to the API keys")
	}
	inEnv(c.get(keys+"/new?environment=production").wantStatus(200), adcamp.Production)
}

// envNames are the environments as the switch names them.
var envNames = map[adcamp.Environment]string{adcamp.Production: "Production", adcamp.Sandbox: "Sandbox"}

// TestInvitationSaysWhich: the page of an invitation link says which
// account, which role and who invited; the page of a reset link, none.
func TestInvitationSaysWhich(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	p := c.post("/accounts/"+acc+"/members/new", url.Values{"email": {"dev@example.com"}, "role": {"developer"}}).wantStatus(200)
	u, _ := url.Parse(p.text("#v-link"))
	p = e.client().get(u.RequestURI()).wantStatus(200)
	p.wantText(".invites", ownerEmail+" invited you to the account Acme as a developer.").
		wantText(".invites", roleSummaries[adcamp.RoleDeveloper]).wantText(".lead", "dev@example.com")
	p = c.post("/accounts/"+acc+"/members/new", url.Values{"email": {"cfo@example.com"}, "role": {"owner"}}).wantStatus(200)
	u, _ = url.Parse(p.text("#v-link"))
	e.client().get(u.RequestURI()).wantStatus(200).wantText(".invites", "to the account Acme as an owner.")

	reset, err := e.svc.PasswordLink(admin, ownerEmail)
	if err != nil {
		t.Fatal(err)
	}
	p = e.client().get("/set-password?token="+url.QueryEscape(reset.Token)).wantStatus(200).wantText("h1", "Choose a new password")
	if p.has(".invites") {
		t.Errorf("a reset link's page reads as an invitation: %q", p.text(".invites"))
	}
}

// TestFocusOnError: a form shown again with problems puts the focus on
// its first field with one, in the page's order, and on no other.
func TestFocusOnError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	focused := func(p *page) string {
		t.Helper()
		f := p.doc.Find("[autofocus]")
		if f.Length() != 1 {
			t.Errorf("%s: %d fields have the focus, want 1", p.url, f.Length())
		}
		id, _ := f.First().Attr("id")
		name, _ := f.First().Attr("name")
		return id + " " + name
	}
	create := at(acc, adcamp.Sandbox, "/campaigns/new")
	ok := url.Values{"name": {"Spring"}, "budget_daily": {"25"}, "marketplace": {"US"}}
	for _, c2 := range []struct {
		form url.Values
		want string
	}{
		{with(ok, "end_date", "2000-01-01"), "f-end_date end_date"},
		{with(ok, "budget_daily", "abc", "end_date", "soon"), "f-budget_daily budget_daily"},
		{with(ok, "marketplace", ""), "f-marketplace marketplace"},
	} {
		if got := focused(c.post(create, c2.form).wantStatus(http.StatusUnprocessableEntity)); got != c2.want {
			t.Errorf("%v: the focus is on %q, want %q", c2.form, got, c2.want)
		}
	}
	if got := focused(c.get("/accounts/" + acc + "/members/new")); got != "f-email email" {
		t.Errorf("a new form puts the focus on %q, want its first field", got)
	}
	p := c.post("/accounts/"+acc+"/members/new", url.Values{"email": {"dev@example.com"}, "role": {"emperor"}}).wantStatus(http.StatusUnprocessableEntity)
	if got := focused(p); got != " role" {
		t.Errorf("a wrong role puts the focus on %q, want the role's first choice", got)
	}
	// A sign-in refused: the email is kept, the password is typed again.
	p = e.client().post("/sign-in", url.Values{"email": {ownerEmail}, "password": {"not it"}}).wantStatus(http.StatusUnauthorized)
	if got := focused(p); got != "f-password password" {
		t.Errorf("a sign-in refused puts the focus on %q, want the password", got)
	}
}
