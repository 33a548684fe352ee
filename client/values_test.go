package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
)

func TestParseMoney(t *testing.T) {
	tests := []struct {
		in      string
		want    client.Money
		wantErr error
	}{
		{"12.5", 1250, nil}, {"12.50", 1250, nil}, {"12.500", 1250, nil}, {"1250e-2", 1250, nil},
		{"1e2", 10000, nil}, {"1E+2", 10000, nil}, {"0.01", 1, nil}, {"-3", -300, nil}, {"0", 0, nil},
		{"0.000", 0, nil}, {"0e-999", 0, nil}, {"1000000.00", 100000000, nil}, {"92233720368547758.07", 1<<63 - 1, nil},
		{"12.345", 0, client.ErrMoneyPrecision}, {"0.001", 0, client.ErrMoneyPrecision}, {"1e-3", 0, client.ErrMoneyPrecision},
		{"92233720368547758.08", 0, client.ErrMoneyRange}, {"1e30", 0, client.ErrMoneyRange},
		{"", 0, client.ErrMoneySyntax}, {"abc", 0, client.ErrMoneySyntax}, {".5", 0, client.ErrMoneySyntax},
		{"5.", 0, client.ErrMoneySyntax}, {"1e", 0, client.ErrMoneySyntax}, {"12,50", 0, client.ErrMoneySyntax},
		{"+1", 0, client.ErrMoneySyntax}, {`"12.50"`, 0, client.ErrMoneySyntax}, {"1e1234567", 0, client.ErrMoneySyntax},
		{"--1", 0, client.ErrMoneySyntax}, {"1.2.3", 0, client.ErrMoneySyntax},
	}
	for _, tt := range tests {
		got, err := client.ParseMoney(tt.in)
		if got != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestMoneyFormatAndJSON(t *testing.T) {
	for m, want := range map[client.Money]string{
		client.Cents(1250): "12.50", client.Cents(5): "0.05", client.Cents(-5): "-0.05",
		client.USD("1000000"): "1000000.00", client.Cents(-1 << 63): "-92233720368547758.08",
	} {
		if got := m.String(); got != want {
			t.Errorf("Money(%d).String() = %q, want %q", m.Cents(), got, want)
		}
	}
	type doc struct {
		M client.Money `json:"m"`
	}
	b, _ := json.Marshal(doc{client.USD("7.5")})
	if string(b) != `{"m":7.50}` {
		t.Errorf("json.Marshal = %s, want {\"m\":7.50}", b)
	}
	var d doc
	if err := json.Unmarshal([]byte(`{"m":0.1}`), &d); err != nil || d.M != 10 {
		t.Errorf("Unmarshal 0.1 = %d, %v; want 10 cents exactly", d.M, err)
	}
	d.M = 99
	if err := json.Unmarshal([]byte(`{"m":null}`), &d); err != nil || d.M != 99 {
		t.Errorf("Unmarshal null = %d, %v; want unchanged", d.M, err)
	}
	for _, bad := range []string{`{"m":"12.50"}`, `{"m":1.001}`, `{"m":true}`} {
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("Unmarshal(%s) succeeded, want an error", bad)
		}
	}
}

func TestUSDPanicsOnInexactAmount(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "1.234") {
			t.Errorf("USD(\"1.234\") recovered %v, want a panic naming the amount", r)
		}
	}()
	client.USD("1.234")
}

func TestUpdateJSON(t *testing.T) {
	end := client.Date{Year: 2027, Month: time.March, Day: 31}
	tests := []struct {
		in   any
		want string
	}{
		{client.CampaignUpdate{}, `{}`},
		{client.CampaignUpdate{EndDate: client.Null[client.Date]()}, `{"end_date":null}`},
		{client.CampaignUpdate{Name: client.Ptr(""), EndDate: client.Set(end)}, `{"name":"","end_date":"2027-03-31"}`},
		{client.CampaignUpdate{BudgetDaily: client.Ptr(client.Cents(0)), Status: client.Ptr(client.CampaignEnded)},
			`{"budget_daily":0.00,"status":"ended"}`},
		{client.KeywordUpdate{Bid: client.Set(client.USD("0.9"))}, `{"bid":0.90}`},
		{client.KeywordUpdate{Bid: client.Null[client.Money]()}, `{"bid":null}`},
		{client.CampaignCreate{Name: "x", BudgetDaily: client.Cents(100), Marketplace: "US"}, `{"name":"x","budget_daily":1.00,"marketplace":"US"}`},
		{client.KeywordCreate{Text: "x", MatchType: client.MatchBroad}, `{"text":"x","match_type":"broad"}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.in)
		if err != nil || string(b) != tt.want {
			t.Errorf("json.Marshal(%+v) = %s, %v; want %s", tt.in, b, err, tt.want)
		}
	}
}

func TestNullableAndDate(t *testing.T) {
	var n client.Nullable[client.Date]
	if !n.IsZero() || n.IsNull() || n.String() != "absent" {
		t.Errorf("zero Nullable: IsZero %v, IsNull %v, %s", n.IsZero(), n.IsNull(), n)
	}
	if err := json.Unmarshal([]byte(`"2026-12-01"`), &n); err != nil {
		t.Fatal(err)
	}
	if d, ok := n.Get(); !ok || d.String() != "2026-12-01" || d.Time() != time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) {
		t.Errorf("Nullable from JSON = %v, %v", d, ok)
	}
	if err := json.Unmarshal([]byte(`null`), &n); err != nil || !n.IsNull() || n.String() != "null" {
		t.Errorf("Nullable from null: IsNull %v, %v", n.IsNull(), err)
	}
	var c client.Campaign
	if err := json.Unmarshal([]byte(`{"start_date":null,"end_date":"2027-03-31","channel_account_id":null,"budget_daily":12.5}`), &c); err != nil {
		t.Fatal(err)
	}
	if !c.StartDate.IsZero() || c.EndDate.String() != "2027-03-31" || c.ChannelAccountID != 0 || c.BudgetDaily != 1250 {
		t.Errorf("Campaign from JSON = %+v", c)
	}
	for _, bad := range []string{"2026-13-01", "2026-1-1", "", "tomorrow"} {
		if _, err := client.ParseDate(bad); err == nil {
			t.Errorf("ParseDate(%q) succeeded", bad)
		}
	}
}

func TestErrorIsOneLine(t *testing.T) {
	e := &client.Error{StatusCode: 401, Code: client.CodeInvalidSignature, RequestID: "req_1",
		Message: "no match; expected one of:\n1795000000GET/x\nGET\n/x"}
	want := `adcamp: 401 INVALID_SIGNATURE: no match; expected one of:\n1795000000GET/x\nGET\n/x (request req_1)`
	if got := e.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("listing: %w", e)
	if !client.IsUnauthorized(wrapped) || client.ErrorCode(wrapped) != client.CodeInvalidSignature || client.IsNotFound(wrapped) {
		t.Errorf("predicates on a wrapped *Error are wrong")
	}
	if client.IsNotFound(nil) || client.ErrorCode(errors.New("x")) != "" {
		t.Errorf("predicates on nil or a plain error are wrong")
	}
}

func TestNewValidatesOptions(t *testing.T) {
	tests := []struct {
		name string
		key  string
		opts []client.Option
	}{
		{"no key", "", nil},
		{"bad URL", "k", []client.Option{client.WithBaseURL("ftp://example.com")}},
		{"URL with query", "k", []client.Option{client.WithBaseURL("http://example.com/api/v1/open?x=1")}},
		{"bad scheme", "k", []client.Option{client.WithScheme("c")}},
		{"no attempts", "k", []client.Option{client.WithMaxAttempts(0)}},
		{"negative timeout", "k", []client.Option{client.WithTimeout(-time.Second)}},
	}
	for _, tt := range tests {
		if _, err := client.New(tt.key, "s", tt.opts...); err == nil {
			t.Errorf("%s: New succeeded, want an error", tt.name)
		}
	}
	for in, want := range map[string]string{
		"":                                  client.ProductionURL + "/",
		"http://h:1":                        "http://h:1/api/v1/open/",
		"https://h/v1":                      "https://h/v1/",
		"https://h/api/v1/open/":            "https://h/api/v1/open/",
		client.SandboxURL:                   "http://127.0.0.1:8081/api/v1/open/",
		"http://proxy.example/adcamp/v1///": "http://proxy.example/adcamp/v1///",
	} {
		var opts []client.Option
		if in != "" {
			opts = append(opts, client.WithBaseURL(in))
		}
		c, err := client.New("k", "s", opts...)
		if err != nil || c.BaseURL() != want {
			t.Errorf("WithBaseURL(%q): BaseURL() = %q, %v; want %q", in, c.BaseURL(), err, want)
		}
	}
}

// TestBaseURLPasswordNeverShown: a base URL refused for holding a
// password (or for not parsing) is named in the error without it.
func TestBaseURLPasswordNeverShown(t *testing.T) {
	for _, u := range []string{
		"https://user:s3cr3t@api.example/api/v1/open",
		"https://user:s3cr3t@[::1/api",
		"ftp://user:s3cr3t@api.example/",
		"https://user:s3%zzcr3t@api.example/",
	} {
		_, err := client.New("k", "s", client.WithBaseURL(u))
		if err == nil || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "s3%zz") {
			t.Errorf("New(WithBaseURL(%q)) = %v; want an error without the password", u, err)
		}
	}
}

// TestSecretNeverShown prints and logs a client every way, and checks the
// logs and errors of real requests, for the secret and the signatures.
func TestSecretNeverShown(t *testing.T) {
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := newFakeServer(t, reply(503, apiError(client.CodeUnavailable, "busy")),
		reply(401, apiError(client.CodeInvalidSignature, "no match")))
	c := fakeClient(t, srv.Server, newFakeClock(), client.WithLogger(logger))
	var out []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T"} {
		out = append(out, fmt.Sprintf(verb, c))
	}
	holder := struct {
		Exported   *client.Client
		unexported *client.Client
	}{c, c}
	out = append(out, fmt.Sprintf("%+v %#v", holder, holder), c.String(), c.GoString())
	logger.Info("the client", "client", c)
	_, err := c.ListCampaigns(context.Background(), nil)
	if !client.IsUnauthorized(err) {
		t.Fatalf("err = %v, want the fake 401", err)
	}
	out = append(out, err.Error(), fmt.Sprintf("%+v %#v", err, err), logs.String())
	all := strings.Join(out, "\n")
	secrets := []string{fakeSecret, fmt.Sprintf("%x", fakeSecret), fmt.Sprintf("%X", fakeSecret)}
	for _, r := range srv.Requests() {
		secrets = append(secrets, r.Header.Get("X-Signature"))
	}
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("the output shows %q:\n%s", s, all)
		}
	}
	if !strings.Contains(all, fakeKey) || !strings.Contains(c.String(), "[REDACTED]") {
		t.Errorf("the output should name the API key and show the secret as [REDACTED]:\n%s", c)
	}
	for _, want := range []string{`"method":"GET"`, `"path":"/api/v1/open/campaigns"`, `"status":503`, `"attempt":1`,
		`"request_id":"req_fake"`, `"msg":"adcamp retry"`, `"status":401`, `"attempt":2`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the logs lack %s:\n%s", want, logs.String())
		}
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestEscapedIDsAreSignedAsSent(t *testing.T) {
	srv := newFakeServer(t, reply(200, campaignJSON))
	c := fakeClient(t, srv.Server, newFakeClock())
	if _, err := c.GetCampaign(context.Background(), "spring/2026 café"); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/api/v1/open/campaigns/spring%2F2026%20caf%C3%A9" {
		t.Errorf("path sent = %s, want the id escaped as one segment", r.Path)
	}
	checkSignature(t, r)
}
