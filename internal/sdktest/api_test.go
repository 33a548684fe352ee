package sdktest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
)

// today returns today's date (UTC), shifted by days.
func today(days int) client.Date { return client.DateOf(time.Now().UTC().AddDate(0, 0, days)) }

// must returns v, and panics (failing the test, with the line in the
// stack) if err is not nil: for steps that set up what a test checks.
func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return v
}

// TestCampaignTree builds and takes apart a campaign tree through every
// route, against the real server.
func TestCampaignTree(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	ch := must(s.svc.CreateChannelAccount(ctx, s.accountID, "DE", "Acme DE"))

	accounts := must(c.ListChannelAccounts(ctx, nil))
	if len(accounts.Items) != 1 || accounts.Items[0].ID != ch.ID || accounts.Items[0].Marketplace != "DE" {
		t.Fatalf("ListChannelAccounts = %+v, want the one channel account %d", accounts, ch.ID)
	}
	for acc, err := range c.AllChannelAccounts(ctx) {
		if err != nil || acc != accounts.Items[0] {
			t.Errorf("AllChannelAccounts yielded %+v, %v; want %+v", acc, err, accounts.Items[0])
		}
	}

	cmp := must(c.CreateCampaign(ctx, client.CampaignCreate{Name: "Spring sale", BudgetDaily: client.USD("25.5"),
		Marketplace: "us", StartDate: today(0), EndDate: today(30)}, nil))
	if cmp.Status != client.CampaignActive || cmp.Marketplace != "US" || cmp.BudgetDaily != client.Cents(2550) ||
		cmp.Version != 1 || cmp.ChannelAccountID != 0 || cmp.EndDate != today(30) {
		t.Errorf("CreateCampaign = %+v", cmp)
	}
	byChannel := must(c.CreateCampaign(ctx, client.CampaignCreate{Name: "DE sale", BudgetDaily: client.Cents(1000),
		ChannelAccountID: ch.ID}, nil))
	if byChannel.Marketplace != "DE" || byChannel.ChannelAccountID != ch.ID || !byChannel.StartDate.IsZero() {
		t.Errorf("CreateCampaign(channel account) = %+v, want marketplace DE and channel account %d", byChannel, ch.ID)
	}
	if got := must(c.GetCampaign(ctx, cmp.ID)); *got != *cmp {
		t.Errorf("GetCampaign = %+v, want %+v", got, cmp)
	}

	ag := must(c.CreateAdGroup(ctx, cmp.ID, client.AdGroupCreate{Name: "Shoes", DefaultBid: client.USD("0.75")}, nil))
	paused := must(c.CreateAdGroup(ctx, cmp.ID, client.AdGroupCreate{Name: "Socks", DefaultBid: client.USD("0.30"),
		Status: client.StatusPaused}, nil))
	if ag.CampaignID != cmp.ID || ag.Status != client.StatusActive || ag.DefaultBid.String() != "0.75" {
		t.Errorf("CreateAdGroup = %+v", ag)
	}
	groups := must(c.ListAdGroups(ctx, cmp.ID, &client.AdGroupListOptions{Status: client.StatusPaused}))
	if groups.TotalItems != 1 || groups.Items[0].ID != paused.ID {
		t.Errorf("ListAdGroups(paused) = %+v, want only %s", groups, paused.ID)
	}
	ag = must(c.UpdateAdGroup(ctx, ag.ID, client.AdGroupUpdate{Name: client.Ptr("Running shoes")}, nil))
	if got := must(c.GetAdGroup(ctx, ag.ID)); got.Name != "Running shoes" || got.Version != 2 {
		t.Errorf("GetAdGroup after update = %+v, want the new name at version 2", got)
	}

	testKeywords(t, c, ag.ID)
	testCampaignLifecycle(t, c, cmp, byChannel)

	if _, err := c.DeleteAdGroup(ctx, paused.ID, nil); err != nil {
		t.Fatal(err)
	}
	del := must(c.DeleteCampaign(ctx, cmp.ID, nil))
	if !del.Deleted || del.DeletedAdGroups != 1 || del.DeletedKeywords != 1 {
		t.Errorf("DeleteCampaign = %+v, want 1 ad group and 1 keyword deleted with it", del)
	}
	if _, err := c.GetAdGroup(ctx, ag.ID); !client.IsNotFound(err) {
		t.Errorf("GetAdGroup after deleting its campaign: err = %v, want NOT_FOUND", err)
	}
}

func testKeywords(t *testing.T, c *client.Client, adGroupID string) {
	t.Helper()
	ctx := context.Background()
	red := must(c.CreateKeyword(ctx, adGroupID, client.KeywordCreate{Text: "red shoes", MatchType: client.MatchExact,
		Bid: client.USD("1.10")}, nil))
	blue := must(c.CreateKeyword(ctx, adGroupID, client.KeywordCreate{Text: "blue shoes", MatchType: client.MatchBroad}, nil))
	if red.Bid != client.Cents(110) || blue.Bid != 0 || blue.Status != client.StatusActive {
		t.Errorf("CreateKeyword = %+v and %+v", red, blue)
	}
	red = must(c.UpdateKeyword(ctx, red.ID, client.KeywordUpdate{Bid: client.Null[client.Money]()}, nil))
	blue = must(c.UpdateKeyword(ctx, blue.ID, client.KeywordUpdate{Bid: client.Set(client.USD("0.90")),
		Status: client.Ptr(client.StatusPaused)}, nil))
	if red.Bid != 0 || red.Version != 2 || blue.Bid != client.Cents(90) || blue.Status != client.StatusPaused {
		t.Errorf("UpdateKeyword: red = %+v, blue = %+v", red, blue)
	}
	exact := must(c.ListKeywords(ctx, adGroupID, &client.KeywordListOptions{MatchType: client.MatchExact}))
	pausedKw := must(c.ListKeywords(ctx, adGroupID, &client.KeywordListOptions{Status: client.StatusPaused}))
	if exact.TotalItems != 1 || exact.Items[0].ID != red.ID || pausedKw.TotalItems != 1 || pausedKw.Items[0].ID != blue.ID {
		t.Errorf("ListKeywords filters: exact = %+v, paused = %+v", exact, pausedKw)
	}
	if got := must(c.GetKeyword(ctx, red.ID)); *got != *red {
		t.Errorf("GetKeyword = %+v, want %+v", got, red)
	}
	if d := must(c.DeleteKeyword(ctx, blue.ID, nil)); !d.Deleted || d.ID != blue.ID {
		t.Errorf("DeleteKeyword = %+v", d)
	}
	if _, err := c.GetKeyword(ctx, blue.ID); !client.IsNotFound(err) {
		t.Errorf("GetKeyword after delete: err = %v, want NOT_FOUND", err)
	}
}

func testCampaignLifecycle(t *testing.T, c *client.Client, cmp, other *client.Campaign) {
	t.Helper()
	ctx := context.Background()
	if got := must(c.PauseCampaign(ctx, cmp.ID)); got.Status != client.CampaignPaused {
		t.Errorf("PauseCampaign: status %s", got.Status)
	}
	if got := must(c.ResumeCampaign(ctx, cmp.ID)); got.Status != client.CampaignActive {
		t.Errorf("ResumeCampaign: status %s", got.Status)
	}
	if got := must(c.EndCampaign(ctx, other.ID)); got.Status != client.CampaignEnded {
		t.Errorf("EndCampaign: status %s", got.Status)
	}
	_, err := c.UpdateCampaign(ctx, other.ID, client.CampaignUpdate{Name: client.Ptr("Again")}, nil)
	if !client.IsInvalidStateTransition(err) || !client.IsConflict(err) {
		t.Errorf("UpdateCampaign(ended): err = %v, want 409 INVALID_STATE_TRANSITION", err)
	}
	_, err = c.CreateAdGroup(ctx, other.ID, client.AdGroupCreate{Name: "Late", DefaultBid: client.Cents(10)}, nil)
	if !client.IsConflict(err) {
		t.Errorf("CreateAdGroup(ended campaign): err = %v, want 409", err)
	}
}

// countingTransport counts the requests a client sends.
type countingTransport struct {
	n    int
	next http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n++
	return c.next.RoundTrip(r)
}

func TestAllCampaignsWalksEveryPage(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	count := &countingTransport{next: http.DefaultTransport}
	c := s.client(client.WithHTTPClient(&http.Client{Transport: count}))
	ctx := context.Background()
	want := map[string]bool{}
	for i := range 250 {
		cmp := must(c.CreateCampaign(ctx, client.CampaignCreate{Name: fmt.Sprintf("Campaign %03d", i),
			BudgetDaily: client.Cents(int64(100 + i)), Marketplace: "US"}, nil))
		want[cmp.ID] = true
	}
	count.n = 0
	seen := map[string]bool{}
	for cmp, err := range c.AllCampaigns(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[cmp.ID] || !want[cmp.ID] {
			t.Fatalf("AllCampaigns yielded %s twice or unexpectedly", cmp.ID)
		}
		seen[cmp.ID] = true
	}
	if len(seen) != 250 || count.n != 3 {
		t.Errorf("AllCampaigns yielded %d campaigns in %d requests, want 250 in 3", len(seen), count.n)
	}
	page := must(c.ListCampaigns(ctx, &client.CampaignListOptions{ListOptions: client.ListOptions{Page: 2, PageSize: 20}}))
	if len(page.Items) != 20 || page.Page != 2 || page.TotalItems != 250 || page.TotalPages != 13 {
		t.Errorf("ListCampaigns(page 2 of 20) = %d items, page %d, %d items on %d pages; want 20, 2, 250, 13",
			len(page.Items), page.Page, page.TotalItems, page.TotalPages)
	}
	count.n = 0
	for range c.AllCampaigns(ctx, nil) {
		break
	}
	for _, err := range c.AllCampaigns(ctx, &client.CampaignListOptions{Status: client.CampaignPaused}) {
		t.Fatalf("AllCampaigns(paused) yielded something (err %v), want nothing", err)
	}
	if count.n != 2 {
		t.Errorf("stopping after one item and an empty filter took %d requests, want 2", count.n)
	}
}

func TestIteratorYieldsError(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	n := 0
	for _, err := range c.AllAdGroups(context.Background(), "cmp_01m7q5cqg06b8994h5jr7na6t9", nil) {
		n++
		if !client.IsNotFound(err) {
			t.Errorf("AllAdGroups(missing campaign) yielded err %v, want NOT_FOUND", err)
		}
	}
	if n != 1 {
		t.Errorf("AllAdGroups(missing campaign) yielded %d times, want once", n)
	}
}

// newAdGroup creates a campaign and an ad group for keyword tests.
func newAdGroup(t *testing.T, c *client.Client) *client.AdGroup {
	t.Helper()
	ctx := context.Background()
	cmp := must(c.CreateCampaign(ctx, client.CampaignCreate{Name: "Keywords", BudgetDaily: client.USD("40"), Marketplace: "DE"}, nil))
	return must(c.CreateAdGroup(ctx, cmp.ID, client.AdGroupCreate{Name: "Shoes", DefaultBid: client.USD("0.50")}, nil))
}

func TestKeywordBatchOf1000(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	ag := newAdGroup(t, c)
	items := make([]client.KeywordCreate, client.MaxBatch)
	for i := range items {
		items[i] = client.KeywordCreate{Text: fmt.Sprintf("keyword %04d", i), MatchType: client.MatchPhrase}
	}
	got := must(c.CreateKeywords(ctx, ag.ID, items, nil))
	if len(got) != 1000 || got[0].Text != "keyword 0000" || got[999].Text != "keyword 0999" || got[5].AdGroupID != ag.ID {
		t.Fatalf("CreateKeywords(1000) = %d keywords, want 1000 in request order", len(got))
	}
	n := 0
	for _, err := range c.AllKeywords(ctx, ag.ID, &client.KeywordListOptions{MatchType: client.MatchPhrase}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1000 {
		t.Errorf("AllKeywords = %d keywords, want 1000", n)
	}
	_, err := c.CreateKeywords(ctx, ag.ID, append(items, client.KeywordCreate{Text: "one too many", MatchType: client.MatchExact}), nil)
	if e := asError(t, err); !client.IsValidation(err) || len(e.Details) != 1 || e.Details[0].Field != "items" {
		t.Errorf("CreateKeywords(1001): err = %v, want VALIDATION_ERROR on items", err)
	}
}

func TestKeywordBatchAllOrNothing(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	ag := newAdGroup(t, c)
	_, err := c.CreateKeywords(ctx, ag.ID, []client.KeywordCreate{
		{Text: "fine", MatchType: client.MatchExact},
		{Text: "", MatchType: client.MatchExact},
		{Text: "dear", MatchType: "fuzzy"},
	}, nil)
	e := asError(t, err)
	if !client.IsValidation(err) || e.StatusCode != 400 || len(e.Details) != 2 ||
		e.Details[0].Field != "items[1].text" || e.Details[1].Field != "items[2].match_type" {
		t.Errorf("CreateKeywords(bad items) = %v, details %+v; want both bad items named", err, e.Details)
	}
	if page := must(c.ListKeywords(ctx, ag.ID, nil)); page.TotalItems != 0 {
		t.Errorf("after a refused batch the ad group has %d keywords, want 0", page.TotalItems)
	}
}

func TestKeywordBatchPartialFailure(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	ag := newAdGroup(t, c)
	must(c.CreateKeyword(ctx, ag.ID, client.KeywordCreate{Text: "Red Shoes", MatchType: client.MatchExact}, nil))
	res := must(c.CreateKeywordsPartial(ctx, ag.ID, []client.KeywordCreate{
		{Text: "running shoes", MatchType: client.MatchExact},
		{Text: "", MatchType: client.MatchExact},
		{Text: "RED SHOES", MatchType: client.MatchExact},
		{Text: "trail", MatchType: client.MatchPhrase, Bid: client.USD("0.40")},
	}, nil))
	if res.Created != 2 || res.Failed != 2 || len(res.Items) != 4 {
		t.Fatalf("CreateKeywordsPartial = %d created, %d failed, %d items; want 2, 2, 4", res.Created, res.Failed, len(res.Items))
	}
	ok0, bad, dup, ok3 := res.Items[0], res.Items[1], res.Items[2], res.Items[3]
	if ok0.Err != nil || ok0.Status != 201 || ok0.Keyword == nil || ok0.Keyword.Text != "running shoes" {
		t.Errorf("item 0 = %+v, want created", ok0)
	}
	if e := asError(t, bad.Err); !client.IsValidation(bad.Err) || bad.Status != 400 || bad.Index != 1 ||
		e.Details[0].Field != "text" || e.RequestID == "" || bad.Keyword != nil {
		t.Errorf("item 1 = %+v (%v), want VALIDATION_ERROR on text", bad, bad.Err)
	}
	if !client.IsDuplicateKeyword(dup.Err) || !client.IsConflict(dup.Err) || dup.Status != 409 {
		t.Errorf("item 2 = %+v (%v), want DUPLICATE_KEYWORD", dup, dup.Err)
	}
	if ok3.Err != nil || ok3.Keyword.Bid != client.Cents(40) {
		t.Errorf("item 3 = %+v, want created with bid 0.40", ok3)
	}
	if page := must(c.ListKeywords(ctx, ag.ID, nil)); page.TotalItems != 3 {
		t.Errorf("the ad group has %d keywords, want 3", page.TotalItems)
	}
}

func TestDuplicateKeywordIsTyped(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	ag := newAdGroup(t, c)
	must(c.CreateKeyword(ctx, ag.ID, client.KeywordCreate{Text: "Straße", MatchType: client.MatchExact}, nil))
	_, err := c.CreateKeyword(ctx, ag.ID, client.KeywordCreate{Text: "STRASSE", MatchType: client.MatchExact}, nil)
	e := asError(t, err)
	if !client.IsDuplicateKeyword(err) || e.StatusCode != http.StatusConflict || client.ErrorCode(err) != client.CodeDuplicateKeyword ||
		len(e.Details) != 1 || e.Details[0].Field != "text" {
		t.Errorf("CreateKeyword(duplicate) = %#v, want 409 DUPLICATE_KEYWORD on text", e)
	}
	if !strings.HasPrefix(e.RequestID, "req_") || !strings.Contains(err.Error(), e.RequestID) {
		t.Errorf("err = %q, want it to carry the request id %q", err, e.RequestID)
	}
}

func TestNotFoundIsTyped(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	for _, id := range []string{"cmp_01m7q5cqg06b8994h5jr7na6t9", "a/b c", "adg_01m80v39s1rbqjszbkfg0k74m4"} {
		_, err := c.GetCampaign(ctx, id)
		e := asError(t, err)
		if !client.IsNotFound(err) || e.StatusCode != 404 || e.Code != client.CodeNotFound || e.RequestID == "" {
			t.Errorf("GetCampaign(%q) = %v, want 404 NOT_FOUND with a request id", id, err)
		}
	}
	for _, id := range []string{"", ".", ".."} {
		if _, err := c.DeleteCampaign(ctx, id, nil); err == nil || client.ErrorCode(err) != "" {
			t.Errorf("DeleteCampaign(%q) = %v, want the client to refuse it", id, err)
		}
	}
	if n := s.requests.Load(); n != 3 {
		t.Errorf("the server got %d requests, want 3", n)
	}
}

func TestIfMatch(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	cmp := must(c.CreateCampaign(ctx, client.CampaignCreate{Name: "v1", BudgetDaily: client.USD("10"), Marketplace: "US"}, nil))
	cmp = must(c.UpdateCampaign(ctx, cmp.ID, client.CampaignUpdate{Name: client.Ptr("v2")}, &client.UpdateOptions{IfMatch: 1}))
	_, err := c.UpdateCampaign(ctx, cmp.ID, client.CampaignUpdate{Name: client.Ptr("stale")}, &client.UpdateOptions{IfMatch: 1})
	if e := asError(t, err); !client.IsPreconditionFailed(err) || e.StatusCode != 412 {
		t.Errorf("UpdateCampaign(IfMatch 1 at version 2) = %v, want 412 PRECONDITION_FAILED", err)
	}
	if _, err := c.DeleteCampaign(ctx, cmp.ID, &client.DeleteOptions{IfMatch: 1}); !client.IsPreconditionFailed(err) {
		t.Errorf("DeleteCampaign(IfMatch 1 at version 2) = %v, want 412", err)
	}
	if got := must(c.GetCampaign(ctx, cmp.ID)); got.Name != "v2" || got.Version != 2 {
		t.Errorf("after refused changes the campaign is %q at version %d, want v2 at 2", got.Name, got.Version)
	}
	if _, err := c.DeleteCampaign(ctx, cmp.ID, &client.DeleteOptions{IfMatch: 2}); err != nil {
		t.Errorf("DeleteCampaign(IfMatch 2) = %v", err)
	}
}

func TestNullClearsEndDate(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	cmp := must(c.CreateCampaign(ctx, client.CampaignCreate{Name: "Dated", BudgetDaily: client.USD("10"), Marketplace: "US",
		StartDate: today(1), EndDate: today(60)}, nil))
	got := must(c.UpdateCampaign(ctx, cmp.ID, client.CampaignUpdate{EndDate: client.Null[client.Date]()}, nil))
	if !got.EndDate.IsZero() || got.StartDate != today(1) {
		t.Errorf("after clearing end_date: start %s, end %s; want start %s and no end", got.StartDate, got.EndDate, today(1))
	}
	if got = must(c.UpdateCampaign(ctx, cmp.ID, client.CampaignUpdate{EndDate: client.Set(today(90))}, nil)); got.EndDate != today(90) {
		t.Errorf("UpdateCampaign(end_date) answered end %s, want %s", got.EndDate, today(90))
	}
	if got = must(c.GetCampaign(ctx, cmp.ID)); got.EndDate != today(90) || got.Version != 3 {
		t.Errorf("after setting end_date: %s at version %d, want %s at 3", got.EndDate, got.Version, today(90))
	}
}

func TestValidateOnlyStoresNothing(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	dry := &client.CreateOptions{ValidateOnly: true}
	ghost := must(c.CreateCampaign(ctx, client.CampaignCreate{Name: "Ghost", BudgetDaily: client.USD("10"), Marketplace: "US"}, dry))
	if ghost.ID == "" || ghost.Name != "Ghost" {
		t.Errorf("CreateCampaign(validate only) = %+v, want the would-be campaign", ghost)
	}
	if _, err := c.GetCampaign(ctx, ghost.ID); !client.IsNotFound(err) {
		t.Errorf("GetCampaign(validated only) = %v, want NOT_FOUND", err)
	}
	ag := newAdGroup(t, c)
	upd := must(c.UpdateAdGroup(ctx, ag.ID, client.AdGroupUpdate{DefaultBid: client.Ptr(client.USD("9.99"))},
		&client.UpdateOptions{ValidateOnly: true}))
	if upd.DefaultBid != client.USD("9.99") || must(c.GetAdGroup(ctx, ag.ID)).DefaultBid != client.USD("0.50") {
		t.Errorf("UpdateAdGroup(validate only) changed the stored ad group")
	}
	items := []client.KeywordCreate{{Text: "a", MatchType: client.MatchExact}, {Text: "b", MatchType: client.MatchExact}}
	must(c.CreateKeywords(ctx, ag.ID, items, dry))
	res := must(c.CreateKeywordsPartial(ctx, ag.ID, items, dry))
	if res.Created != 2 || res.Items[0].Status != 200 {
		t.Errorf("CreateKeywordsPartial(validate only) = %+v, want 2 items at 200", res)
	}
	if n := must(c.ListCampaigns(ctx, nil)).TotalItems; n != 1 {
		t.Errorf("%d campaigns stored, want 1 (not the validated one)", n)
	}
	if n := must(c.ListKeywords(ctx, ag.ID, nil)).TotalItems; n != 0 {
		t.Errorf("%d keywords stored, want 0", n)
	}
}

func TestValidationErrorListsEveryField(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	_, err := c.CreateCampaign(context.Background(), client.CampaignCreate{BudgetDaily: client.Cents(-5)}, nil)
	e := asError(t, err)
	fields := map[string]bool{}
	for _, d := range e.Details {
		fields[d.Field] = true
	}
	if !client.IsValidation(err) || !fields["name"] || !fields["budget_daily"] {
		t.Errorf("CreateCampaign(bad) = %v, details %+v; want name and budget_daily", err, e.Details)
	}
}

func TestWrongSecretIsUnauthorized(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	good := s.client()
	const secret = "sk_test_thisIsNotTheRightSecretAtAll000000000"
	c, err := client.New(good.APIKey(), secret, client.WithBaseURL(s.srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListCampaigns(context.Background(), nil)
	e := asError(t, err)
	if !client.IsUnauthorized(err) || e.Code != client.CodeInvalidSignature || e.AuthDetails["server_time"] == nil {
		t.Errorf("wrong secret: err = %v, auth details %v; want INVALID_SIGNATURE with server_time", err, e.AuthDetails)
	}
	if msg := err.Error(); strings.Contains(msg, secret) || strings.Contains(msg, "\n") {
		t.Errorf("err = %q: want one line without the secret", msg)
	}
	if n := s.requests.Load(); n != 1 {
		t.Errorf("the server got %d requests, want 1 (no retry)", n)
	}
}

func TestSchemeB(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client(client.WithScheme(client.SchemeB))
	ctx := context.Background()
	cmp := must(c.CreateCampaign(ctx, client.CampaignCreate{Name: "B", BudgetDaily: client.USD("1"), Marketplace: "JP"}, nil))
	must(c.DeleteCampaign(ctx, cmp.ID, nil))
}

// TestServerClockAhead: the real server's clock is an hour ahead. The
// first call is refused once, the client corrects its clock from the
// error's details, and later calls go through at once.
func TestServerClockAhead(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, func() time.Time { return time.Now().Add(time.Hour) })
	c := s.client()
	ctx := context.Background()
	must(c.ListCampaigns(ctx, nil))
	if off := c.ClockOffset(); off < time.Hour-5*time.Second || off > time.Hour+5*time.Second {
		t.Errorf("ClockOffset = %v, want about 1h", off)
	}
	must(c.CreateCampaign(ctx, client.CampaignCreate{Name: "Later", BudgetDaily: client.USD("1"), Marketplace: "US"}, nil))
	if n := s.requests.Load(); n != 3 {
		t.Errorf("the server got %d requests, want 3 (one refused, then two)", n)
	}
	st := must(c.ServerTime(ctx))
	if d := time.Until(st); d < 59*time.Minute {
		t.Errorf("ServerTime is %v from the local clock, want about 1h", d)
	}
}

// TestSameChangeTwiceInOneSecond: the server treats a repeated signature
// as a replay, so the client signs two identical changes made within one
// second with different timestamps, and both are executed.
func TestSameChangeTwiceInOneSecond(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	frozen := time.Now()
	c := s.client(client.WithClock(func() time.Time { return frozen }))
	ctx := context.Background()
	cmp := must(c.CreateCampaign(ctx, client.CampaignCreate{Name: "v1", BudgetDaily: client.USD("10"), Marketplace: "US"}, nil))
	for want := int64(2); want <= 3; want++ {
		got := must(c.UpdateCampaign(ctx, cmp.ID, client.CampaignUpdate{BudgetDaily: client.Ptr(client.USD("11"))}, nil))
		if got.Version != want {
			t.Fatalf("update %d: version %d, want %d (the second was taken for a replay)", want-1, got.Version, want)
		}
	}
	// A PUT retried after a 412 with the same body is executed too.
	_, err := c.UpdateCampaign(ctx, cmp.ID, client.CampaignUpdate{Name: client.Ptr("v4")}, &client.UpdateOptions{IfMatch: 1})
	if !client.IsPreconditionFailed(err) {
		t.Fatalf("stale If-Match: %v, want 412", err)
	}
	got := must(c.UpdateCampaign(ctx, cmp.ID, client.CampaignUpdate{Name: client.Ptr("v4")}, &client.UpdateOptions{IfMatch: 3}))
	if got.Version != 4 || got.Name != "v4" {
		t.Errorf("retry with a fresh If-Match = version %d name %q, want 4 v4", got.Version, got.Name)
	}
}
