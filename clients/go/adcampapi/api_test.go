package adcampapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/adcamp/adcamp/clients/go/adcampapi"
)

// answer is what every generated response type offers.
type answer interface {
	StatusCode() int
	GetBody() []byte
}

// decode checks a generated call's status and decodes its body strictly
// into T: an unknown member, trailing data or a wrong type fails the test.
func decode[T any](t *testing.T, what string, r answer, err error, status int) T {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if r.StatusCode() != status {
		t.Fatalf("%s = %d, want %d\n%s", what, r.StatusCode(), status, r.GetBody())
	}
	return strict[T](t, what, r.GetBody())
}

func strict[T any](t *testing.T, what string, raw []byte) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: the body does not decode strictly into %T: %v\n%s", what, v, err, raw)
	}
	if dec.More() {
		t.Fatalf("%s: data after the body\n%s", what, raw)
	}
	return v
}

// union decodes a generated oneOf strictly into one of its branches.
func union[T any](t *testing.T, what string, u json.Marshaler) T {
	t.Helper()
	raw, err := u.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return strict[T](t, what, raw)
}

// wantError checks an error answer: its status, its code, and that it
// decodes strictly into the envelope (and its details into their type).
func wantError(t *testing.T, what string, r answer, err error, status int, code adcampapi.ErrorCode) adcampapi.ErrorEnvelope {
	t.Helper()
	e := decode[adcampapi.ErrorEnvelope](t, what, r, err, status)
	if bool(e.Success) || e.Error.Code != code || !strings.HasPrefix(e.Error.RequestId, "req_") {
		t.Fatalf("%s: error %+v, want %s with a request id", what, e.Error, code)
	}
	if e.Error.Details != nil && e.Error.Code != adcampapi.ErrorCodeUNAUTHORIZED {
		union[adcampapi.FieldIssueList](t, what+" details", e.Error.Details)
	}
	return e
}

func ptr[T any](v T) *T { return &v }

func date(t *testing.T, s string) *openapi_types.Date {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return &openapi_types.Date{Time: d}
}

// TestGeneratedClient drives a live adcamp serve through the client that
// oapi-codegen generates from openapi.yaml with its default settings, over
// the whole API, and decodes every answer strictly into the generated types.
func TestGeneratedClient(t *testing.T) {
	srv := startServer(t)
	ctx := context.Background()
	a := &signer{key: srv.key, secret: srv.secret, scheme: "a"}
	c, err := adcampapi.NewClientWithResponses(srv.sandbox, adcampapi.WithRequestEditorFn(a.edit))
	if err != nil {
		t.Fatal(err)
	}
	b := &signer{key: srv.key, secret: srv.secret, scheme: "b"}
	cb, err := adcampapi.NewClientWithResponses(srv.sandbox, adcampapi.WithRequestEditorFn(b.edit))
	if err != nil {
		t.Fatal(err)
	}

	// The clock, unsigned, and the health checks at the listener's root.
	tm, err := c.GetServerTimeWithResponse(ctx)
	now := decode[adcampapi.TimeResponse](t, "GET /time", tm, err, 200)
	if d := time.Since(time.Unix(now.Data.Unix, 0)); d < -time.Minute || d > time.Minute {
		t.Errorf("server time %d is %v away from this clock", now.Data.Unix, d)
	}
	root, err := adcampapi.NewClientWithResponses(strings.TrimSuffix(srv.sandbox, "/api/v1/open"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := root.GetHealthWithResponse(ctx)
	decode[adcampapi.HealthResponse](t, "GET /healthz", h, err, 200)
	ready, err := root.GetReadinessWithResponse(ctx)
	if r := decode[adcampapi.HealthResponse](t, "GET /readyz", ready, err, 200); r.Data.Status != adcampapi.HealthStatusReady {
		t.Errorf("GET /readyz: status %q", r.Data.Status)
	}

	// Channel accounts: the one the operator made.
	ca, err := c.ListChannelAccountsWithResponse(ctx, &adcampapi.ListChannelAccountsParams{PageSize: ptr(10)})
	cas := decode[adcampapi.ChannelAccountListResponse](t, "GET /channel-accounts", ca, err, 200)
	if len(cas.Data.Items) != 1 || cas.Data.Items[0].Id != srv.channelAccountID || cas.Data.Items[0].Marketplace != "DE" {
		t.Fatalf("channel accounts = %+v, want the one made by the admin command", cas.Data.Items)
	}
	if ca.Headers200 == nil || ca.Headers200.RateLimitLimit == nil || *ca.Headers200.RateLimitLimit != 40000 {
		t.Errorf("GET /channel-accounts: RateLimit-Limit %v, want 40000 (the default burst)", ca.Headers200)
	}

	campaignID := campaigns(t, ctx, c, cb, srv)
	adGroupID := adGroups(t, ctx, c, campaignID)
	keywords(t, ctx, c, cb, adGroupID)
	errorsAndReplays(t, ctx, c, campaignID)

	// Deleting the campaign takes its ad groups and keywords with it.
	del, err := c.DeleteCampaignWithResponse(ctx, campaignID, nil)
	gone := decode[adcampapi.DeletedResponse](t, "DELETE campaign", del, err, 200)
	if !bool(gone.Data.Deleted) || gone.Data.DeletedAdGroups == nil || *gone.Data.DeletedAdGroups != 1 ||
		gone.Data.DeletedKeywords == nil || *gone.Data.DeletedKeywords == 0 {
		t.Errorf("DELETE campaign = %+v, want one ad group and its keywords deleted with it", gone.Data)
	}
	get, err := c.GetCampaignWithResponse(ctx, campaignID)
	wantError(t, "GET deleted campaign", get, err, 404, adcampapi.ErrorCodeNOTFOUND)
}

// campaigns creates, reads, lists and updates campaigns, and returns the id
// of one that is active.
func campaigns(t *testing.T, ctx context.Context, c, cb *adcampapi.ClientWithResponses, srv *server) string {
	t.Helper()
	body := adcampapi.CampaignCreate{Name: "Spring sale", BudgetDaily: 999999.99, Marketplace: ptr("us"),
		StartDate: date(t, time.Now().UTC().Format(time.DateOnly)), EndDate: date(t, "2099-12-31")}
	r, err := c.CreateCampaignWithResponse(ctx, nil, body)
	cmp := decode[adcampapi.CampaignResponse](t, "POST /campaigns", r, err, 201).Data
	if cmp.BudgetDaily != 999999.99 || cmp.Marketplace != "US" || cmp.Status != adcampapi.CampaignStatusActive ||
		cmp.Version != 1 || cmp.ChannelAccountId != nil || cmp.EndDate == nil || cmp.EndDate.String() != "2099-12-31" {
		t.Errorf("POST /campaigns = %+v", cmp)
	}
	if h := r.Headers201; h == nil || h.Location == nil || *h.Location != "/api/v1/open/campaigns/"+cmp.Id ||
		h.ETag == nil || *h.ETag != `"1"` || h.IdempotentReplayed != nil {
		t.Errorf("POST /campaigns headers = %+v, want Location, ETag \"1\" and no Idempotent-Replayed", h)
	}

	// By channel account, signed with Scheme B; and a dry run.
	r, err = cb.CreateCampaignWithResponse(ctx, nil, adcampapi.CampaignCreate{Name: "Herbst", BudgetDaily: 0.07, ChannelAccountId: &srv.channelAccountID})
	byCA := decode[adcampapi.CampaignResponse](t, "POST /campaigns (channel account, Scheme B)", r, err, 201).Data
	if byCA.Marketplace != "DE" || byCA.ChannelAccountId == nil || *byCA.ChannelAccountId != srv.channelAccountID || byCA.BudgetDaily != 0.07 {
		t.Errorf("campaign by channel account = %+v", byCA)
	}
	r, err = c.CreateCampaignWithResponse(ctx, &adcampapi.CreateCampaignParams{ValidateOnly: ptr(true)}, adcampapi.CampaignCreate{Name: "Dry", BudgetDaily: 1, Marketplace: ptr("JP")})
	decode[adcampapi.CampaignResponse](t, "POST /campaigns?validate_only=true", r, err, 200)

	g, err := c.GetCampaignWithResponse(ctx, cmp.Id)
	if got := decode[adcampapi.CampaignResponse](t, "GET campaign", g, err, 200).Data; got.Id != cmp.Id || got.Name != "Spring sale" {
		t.Errorf("GET campaign = %+v", got)
	}
	head, err := c.HeadGetCampaignWithResponse(ctx, cmp.Id)
	if err != nil || head.StatusCode() != 200 || len(head.Body) != 0 || head.Headers200 == nil || head.Headers200.ETag == nil || *head.Headers200.ETag != `"1"` {
		t.Errorf("HEAD campaign = %v %+v, %v; want 200, ETag \"1\", no body", head.StatusCode(), head.Headers200, err)
	}

	l, err := c.ListCampaignsWithResponse(ctx, &adcampapi.ListCampaignsParams{PageSize: ptr(1), Status: ptr(adcampapi.CampaignStatusActive)})
	page := decode[adcampapi.CampaignListResponse](t, "GET /campaigns", l, err, 200).Data
	if page.TotalItems != 2 || page.TotalPages != 2 || len(page.Items) != 1 || page.Items[0].Id != byCA.Id {
		t.Errorf("GET /campaigns?page_size=1&status=active = %+v, want 2 in 2 pages, newest first", page)
	}

	// Pause with If-Match; a stale If-Match changes nothing.
	u, err := c.UpdateCampaignWithResponse(ctx, byCA.Id, &adcampapi.UpdateCampaignParams{IfMatch: ptr(`"1"`)},
		adcampapi.CampaignUpdate{Status: ptr(adcampapi.CampaignStatusPaused), BudgetDaily: ptr(12.5)})
	paused := decode[adcampapi.CampaignResponse](t, "PUT campaign", u, err, 200).Data
	if paused.Status != adcampapi.CampaignStatusPaused || paused.Version != 2 || paused.BudgetDaily != 12.5 {
		t.Errorf("PUT campaign = %+v", paused)
	}
	u, err = c.UpdateCampaignWithResponse(ctx, byCA.Id, &adcampapi.UpdateCampaignParams{IfMatch: ptr(`"1"`)}, adcampapi.CampaignUpdate{Name: ptr("Stale")})
	wantError(t, "PUT campaign, stale If-Match", u, err, 412, adcampapi.ErrorCodePRECONDITIONFAILED)

	// The generated body cannot say null (an omitted pointer is left out), so
	// clearing a date goes through the raw-body variant.
	u, err = c.UpdateCampaignWithBodyWithResponse(ctx, cmp.Id, nil, "application/json", strings.NewReader(`{"end_date":null}`))
	if cleared := decode[adcampapi.CampaignResponse](t, "PUT campaign end_date null", u, err, 200).Data; cleared.EndDate != nil {
		t.Errorf("end_date after null = %v", cleared.EndDate)
	}

	// Ended is final: 409.
	u, err = c.UpdateCampaignWithResponse(ctx, byCA.Id, nil, adcampapi.CampaignUpdate{Status: ptr(adcampapi.CampaignStatusEnded)})
	decode[adcampapi.CampaignResponse](t, "PUT campaign ended", u, err, 200)
	u, err = c.UpdateCampaignWithResponse(ctx, byCA.Id, nil, adcampapi.CampaignUpdate{Status: ptr(adcampapi.CampaignStatusActive)})
	wantError(t, "PUT ended campaign", u, err, 409, adcampapi.ErrorCodeINVALIDSTATETRANSITION)
	return cmp.Id
}

// adGroups creates, reads, lists, updates and deletes ad groups, and
// returns the id of one left in place.
func adGroups(t *testing.T, ctx context.Context, c *adcampapi.ClientWithResponses, campaignID string) string {
	t.Helper()
	r, err := c.CreateAdGroupWithResponse(ctx, campaignID, nil, adcampapi.AdGroupCreate{Name: " Shoes ", DefaultBid: 0.75})
	ag := decode[adcampapi.AdGroupResponse](t, "POST ad group", r, err, 201).Data
	if ag.Name != "Shoes" || ag.DefaultBid != 0.75 || ag.Status != adcampapi.ChildStatusActive || ag.CampaignId != campaignID {
		t.Errorf("POST ad group = %+v", ag)
	}
	r, err = c.CreateAdGroupWithResponse(ctx, campaignID, nil, adcampapi.AdGroupCreate{Name: "Sandals", DefaultBid: 1.11, Status: ptr(adcampapi.ChildStatusPaused)})
	other := decode[adcampapi.AdGroupResponse](t, "POST paused ad group", r, err, 201).Data

	g, err := c.GetAdGroupWithResponse(ctx, ag.Id)
	decode[adcampapi.AdGroupResponse](t, "GET ad group", g, err, 200)
	l, err := c.ListAdGroupsWithResponse(ctx, campaignID, &adcampapi.ListAdGroupsParams{Status: ptr(adcampapi.ChildStatusPaused)})
	if page := decode[adcampapi.AdGroupListResponse](t, "GET ad groups", l, err, 200).Data; page.TotalItems != 1 || page.Items[0].Id != other.Id {
		t.Errorf("GET ad groups?status=paused = %+v", page)
	}
	u, err := c.UpdateAdGroupWithResponse(ctx, ag.Id, &adcampapi.UpdateAdGroupParams{IfMatch: ptr(`"1"`)}, adcampapi.AdGroupUpdate{DefaultBid: ptr(1.0), Name: ptr("Road shoes")})
	if up := decode[adcampapi.AdGroupResponse](t, "PUT ad group", u, err, 200).Data; up.DefaultBid != 1 || up.Version != 2 {
		t.Errorf("PUT ad group = %+v", up)
	}
	u, err = c.UpdateAdGroupWithResponse(ctx, ag.Id, nil, adcampapi.AdGroupUpdate{DefaultBid: ptr(0.001)})
	e := wantError(t, "PUT ad group, bid beyond the cent", u, err, 400, adcampapi.ErrorCodeVALIDATIONERROR)
	if issues := union[adcampapi.FieldIssueList](t, "details", e.Error.Details); len(issues) != 1 || issues[0].Field != "default_bid" {
		t.Errorf("details = %+v, want default_bid", issues)
	}
	d, err := c.DeleteAdGroupWithResponse(ctx, other.Id, &adcampapi.DeleteAdGroupParams{IfMatch: ptr(`"1"`)})
	if gone := decode[adcampapi.DeletedResponse](t, "DELETE ad group", d, err, 200).Data; gone.Id != other.Id || gone.DeletedKeywords == nil {
		t.Errorf("DELETE ad group = %+v", gone)
	}
	return ag.Id
}

// keywords creates keywords one at a time and in batches (atomic and with
// partial failure), and reads, lists, updates and deletes them.
func keywords(t *testing.T, ctx context.Context, c, cb *adcampapi.ClientWithResponses, adGroupID string) {
	t.Helper()
	create := func(what string, params *adcampapi.CreateKeywordsParams, body adcampapi.KeywordCreateOrBatch, status int) adcampapi.KeywordCreatedResponse {
		t.Helper()
		r, err := c.CreateKeywordsWithResponse(ctx, adGroupID, params, body)
		return decode[adcampapi.KeywordCreatedResponse](t, what, r, err, status)
	}
	var one adcampapi.KeywordCreateOrBatch
	if err := one.FromKeywordCreate(adcampapi.KeywordCreate{Text: "red shoes", MatchType: adcampapi.Exact}); err != nil {
		t.Fatal(err)
	}
	kw := union[adcampapi.Keyword](t, "single keyword", create("POST keyword", nil, one, 201).Data)
	if kw.Bid != nil || kw.Text != "red shoes" || kw.Status != adcampapi.ChildStatusActive {
		t.Errorf("POST keyword = %+v, want bid null", kw)
	}

	var batch adcampapi.KeywordCreateOrBatch
	if err := batch.FromKeywordBatch(adcampapi.KeywordBatch{Items: []adcampapi.KeywordCreate{
		{Text: "running shoes", MatchType: adcampapi.Broad, Bid: ptr(1.1)},
		{Text: "Laufschuhe", MatchType: adcampapi.Phrase, Status: ptr(adcampapi.ChildStatusPaused)},
	}}); err != nil {
		t.Fatal(err)
	}
	items := union[adcampapi.KeywordItems](t, "batch", create("POST keyword batch", nil, batch, 201).Data).Items
	if len(items) != 2 || items[0].Bid == nil || *items[0].Bid != 1.1 || items[1].Status != adcampapi.ChildStatusPaused {
		t.Errorf("POST keyword batch = %+v", items)
	}

	// All or nothing: one bad item refuses the batch, naming it by index.
	var bad adcampapi.KeywordCreateOrBatch
	if err := bad.FromKeywordBatch(adcampapi.KeywordBatch{Items: []adcampapi.KeywordCreate{
		{Text: "fine", MatchType: adcampapi.Exact}, {Text: " ", MatchType: adcampapi.Exact},
	}}); err != nil {
		t.Fatal(err)
	}
	r, err := c.CreateKeywordsWithResponse(ctx, adGroupID, nil, bad)
	e := wantError(t, "POST bad batch", r, err, 400, adcampapi.ErrorCodeVALIDATIONERROR)
	if issues := union[adcampapi.FieldIssueList](t, "details", e.Error.Details); len(issues) != 1 || issues[0].Field != "items[1].text" {
		t.Errorf("bad batch details = %+v, want items[1].text", issues)
	}
	// A duplicate (case folded) of a stored keyword: 409.
	var dup adcampapi.KeywordCreateOrBatch
	dup.FromKeywordCreate(adcampapi.KeywordCreate{Text: "RED SHOES", MatchType: adcampapi.Exact})
	r, err = c.CreateKeywordsWithResponse(ctx, adGroupID, nil, dup)
	wantError(t, "POST duplicate keyword", r, err, 409, adcampapi.ErrorCodeDUPLICATEKEYWORD)

	// With partial_failure=true the good items are stored: 207, one result each.
	r, err = cb.CreateKeywordsWithResponse(ctx, adGroupID, &adcampapi.CreateKeywordsParams{PartialFailure: ptr(true)}, bad)
	res := decode[adcampapi.KeywordBatchResultResponse](t, "POST batch, partial_failure", r, err, 207).Data
	if res.Created != 1 || res.Failed != 1 || len(res.Items) != 2 {
		t.Fatalf("partial batch = %+v, want 1 created and 1 failed", res)
	}
	created := union[adcampapi.KeywordBatchItemCreated](t, "item 0", res.Items[0])
	failed := union[adcampapi.KeywordBatchItemFailed](t, "item 1", res.Items[1])
	if created.Status != adcampapi.N201 || created.Data.Text != "fine" || failed.Status != adcampapi.N400 ||
		failed.Error.Code != adcampapi.KeywordBatchItemErrorCodeVALIDATIONERROR {
		t.Errorf("partial batch items = %+v, %+v", created, failed)
	}

	g, err := c.GetKeywordWithResponse(ctx, kw.Id)
	decode[adcampapi.KeywordResponse](t, "GET keyword", g, err, 200)
	l, err := c.ListKeywordsWithResponse(ctx, adGroupID, &adcampapi.ListKeywordsParams{MatchType: ptr(adcampapi.Exact), PageSize: ptr(100)})
	if page := decode[adcampapi.KeywordListResponse](t, "GET keywords", l, err, 200).Data; page.TotalItems != 2 {
		t.Errorf("GET keywords?match_type=exact = %d keywords, want 2 (red shoes, fine)", page.TotalItems)
	}
	u, err := c.UpdateKeywordWithResponse(ctx, kw.Id, nil, adcampapi.KeywordUpdate{Bid: ptr(2.5), Status: ptr(adcampapi.ChildStatusPaused)})
	if up := decode[adcampapi.KeywordResponse](t, "PUT keyword", u, err, 200).Data; up.Bid == nil || *up.Bid != 2.5 || up.Version != 2 {
		t.Errorf("PUT keyword = %+v", up)
	}
	u, err = c.UpdateKeywordWithBodyWithResponse(ctx, kw.Id, nil, "application/json", strings.NewReader(`{"bid":null}`))
	if up := decode[adcampapi.KeywordResponse](t, "PUT keyword bid null", u, err, 200).Data; up.Bid != nil {
		t.Errorf("bid after null = %v", *up.Bid)
	}
	u, err = c.UpdateKeywordWithResponse(ctx, kw.Id, nil, adcampapi.KeywordUpdate{Text: ptr("running shoes"), MatchType: ptr(adcampapi.Broad)})
	wantError(t, "PUT keyword onto another", u, err, 409, adcampapi.ErrorCodeDUPLICATEKEYWORD)
	d, err := c.DeleteKeywordWithResponse(ctx, created.Data.Id, nil)
	decode[adcampapi.DeletedResponse](t, "DELETE keyword", d, err, 200)
}

// errorsAndReplays covers the error answers the other steps do not, and
// the replay headers.
func errorsAndReplays(t *testing.T, ctx context.Context, c *adcampapi.ClientWithResponses, campaignID string) {
	t.Helper()
	r, err := c.CreateCampaignWithResponse(ctx, nil, adcampapi.CampaignCreate{Name: "", BudgetDaily: 12.345, Marketplace: ptr("XX")})
	e := wantError(t, "POST invalid campaign", r, err, 400, adcampapi.ErrorCodeVALIDATIONERROR)
	fields := map[string]bool{}
	for _, i := range union[adcampapi.FieldIssueList](t, "details", e.Error.Details) {
		fields[i.Field] = true
	}
	if !fields["name"] || !fields["budget_daily"] || !fields["marketplace"] {
		t.Errorf("invalid campaign details name %v, want name, budget_daily and marketplace", fields)
	}
	r, err = c.CreateCampaignWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(`{"name":"x","budget_daily":"12.50","marketplace":"US"}`))
	wantError(t, "POST campaign with a string budget", r, err, 400, adcampapi.ErrorCodeINVALIDJSON)
	r, err = c.CreateCampaignWithBodyWithResponse(ctx, nil, "text/plain", strings.NewReader(`{}`))
	wantError(t, "POST campaign as text/plain", r, err, 415, adcampapi.ErrorCodeUNSUPPORTEDMEDIATYPE)
	g, err := c.GetCampaignWithResponse(ctx, "cmp_01m7q5cqg06b8994h5jr7na6t9")
	wantError(t, "GET missing campaign", g, err, 404, adcampapi.ErrorCodeNOTFOUND)
	l, err := c.ListCampaignsWithResponse(ctx, &adcampapi.ListCampaignsParams{PageSize: ptr(101)})
	wantError(t, "GET /campaigns?page_size=101", l, err, 400, adcampapi.ErrorCodeVALIDATIONERROR)

	// An unsigned request: 401 with the server's clock in details.
	unsigned, err := adcampapi.NewClientWithResponses(c.ClientInterface.(*adcampapi.Client).Server)
	if err != nil {
		t.Fatal(err)
	}
	l, err = unsigned.ListCampaignsWithResponse(ctx, nil)
	e = wantError(t, "GET /campaigns unsigned", l, err, 401, adcampapi.ErrorCodeUNAUTHORIZED)
	if auth := union[adcampapi.AuthErrorDetails](t, "401 details", e.Error.Details); auth.ServerTime == 0 {
		t.Errorf("401 details = %+v, want the server's clock", auth)
	}

	// The same Idempotency-Key: the first answer again, marked replayed; with
	// another body, 409 IDEMPOTENCY_KEY_REUSED.
	key := &adcampapi.CreateAdGroupParams{IdempotencyKey: ptr(fmt.Sprintf("test-%d", time.Now().UnixNano()))}
	first, err := c.CreateAdGroupWithResponse(ctx, campaignID, key, adcampapi.AdGroupCreate{Name: "Once", DefaultBid: 2})
	decode[adcampapi.AdGroupResponse](t, "POST ad group with a key", first, err, 201)
	again, err := c.CreateAdGroupWithResponse(ctx, campaignID, key, adcampapi.AdGroupCreate{Name: "Once", DefaultBid: 2})
	decode[adcampapi.AdGroupResponse](t, "POST ad group with the key again", again, err, 201)
	if h := again.Headers201; h == nil || h.IdempotentReplayed == nil || *h.IdempotentReplayed != "true" || !bytes.Equal(again.Body, first.Body) {
		t.Errorf("the retry is not the first answer replayed: %+v\n%s\n%s", h, first.Body, again.Body)
	}
	reused, err := c.CreateAdGroupWithResponse(ctx, campaignID, key, adcampapi.AdGroupCreate{Name: "Twice", DefaultBid: 2})
	wantError(t, "POST ad group, key reused", reused, err, 409, adcampapi.ErrorCodeIDEMPOTENCYKEYREUSED)
	d, err := c.DeleteAdGroupWithResponse(ctx, strict[adcampapi.AdGroupResponse](t, "first", first.Body).Data.Id, nil)
	decode[adcampapi.DeletedResponse](t, "DELETE the keyed ad group", d, err, 200)

	// HEAD of an error has its status and no body.
	h, err := c.HeadGetKeywordWithResponse(ctx, "kw_01m80v3rdkhzrdz6xbwbcvqhh8")
	if err != nil || h.StatusCode() != http.StatusNotFound || len(h.Body) != 0 {
		t.Errorf("HEAD missing keyword = %d with %d bytes, %v; want 404 and no body", h.StatusCode(), len(h.Body), err)
	}
}
