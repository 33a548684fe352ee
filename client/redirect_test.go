package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
)

// TestRedirectsNotFollowed: a server that redirects gets the signed
// request no further: not to another host (over http or https), not to
// itself; the answer is an error naming where it pointed. A client given
// its own *http.Client follows none either.
func TestRedirectsNotFollowed(t *testing.T) {
	elsewhere := newFakeServer(t, reply(200, campaignJSON))
	for _, status := range []int{301, 302, 307, 308} {
		for _, own := range []bool{false, true} {
			redirecting := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) bool {
				http.Redirect(w, r, elsewhere.URL+r.URL.Path, status)
				return true
			})
			var opts []client.Option
			if own {
				opts = append(opts, client.WithHTTPClient(&http.Client{}))
			}
			c := fakeClient(t, redirecting.Server, newFakeClock(), opts...)
			_, err := c.CreateCampaign(context.Background(), client.CampaignCreate{Name: "x", BudgetDaily: client.USD("1"), Marketplace: "US"}, nil)
			var e *client.Error
			if !errors.As(err, &e) || e.StatusCode != status || !strings.Contains(e.Message, elsewhere.URL) {
				t.Errorf("%d (own client %v): err = %v, want an *Error %d naming the redirect's target", status, own, err, status)
			}
			if n := len(elsewhere.Requests()); n != 0 {
				t.Fatalf("%d (own client %v): the other host got %d requests", status, own, n)
			}
		}
	}
}

// TestClockCorrectionBounded: an unauthenticated answer may move the
// client's clock by an hour at most; a server claiming more is not
// believed (the client would sign requests valid at another time).
func TestClockCorrectionBounded(t *testing.T) {
	clk := newFakeClock()
	far := clk.Now().Add(2 * time.Hour)
	body := fmt.Sprintf(`{"success":false,"error":{"code":"TIMESTAMP_EXPIRED","message":"too far","request_id":"req_fake",`+
		`"details":{"server_time":%d,"server_time_iso":"x","skew_seconds":-7200}}}`, far.Unix())
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/api/v1/open/time" {
			return reply(200, fmt.Sprintf(`{"success":true,"data":{"unix":%d,"iso":"x"}}`, far.Unix()))(w, r)
		}
		return reply(401, body)(w, r)
	})
	c := fakeClient(t, srv.Server, clk)
	if _, err := c.GetCampaign(context.Background(), "cmp_x"); !client.IsTimestampExpired(err) {
		t.Errorf("GetCampaign = %v, want the TIMESTAMP_EXPIRED answer", err)
	}
	if off := c.ClockOffset(); off != 0 {
		t.Errorf("ClockOffset = %v after a server claimed 2 h, want 0", off)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no retry with a corrected clock)", n)
	}
	if err := c.SyncClock(context.Background()); err == nil || c.ClockOffset() != 0 {
		t.Errorf("SyncClock with a server 2 h ahead = %v (offset %v), want an error and no offset", err, c.ClockOffset())
	}
}

// plainTransport sends https requests to a plain http server, as a
// network attacker in the middle would answer them.
type plainTransport struct{ to *url.URL }

func (p plainTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = "http", p.to.Host
	return http.DefaultTransport.RoundTrip(r)
}

// TestClockNotTakenWithoutTLS: with an https base URL, a server time that
// did not come over TLS is not taken.
func TestClockNotTakenWithoutTLS(t *testing.T) {
	clk := newFakeClock()
	srv := skewedServer(t, clk, "details") // an hour ahead
	u, _ := url.Parse(srv.URL)
	c, err := client.New(fakeKey, fakeSecret, client.WithBaseURL("https://api.example/api/v1/open"),
		client.WithHTTPClient(&http.Client{Transport: plainTransport{u}}), client.WithClock(clk.Now), client.WithSleep(clk.Sleep))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetCampaign(context.Background(), "cmp_x"); !client.IsTimestampExpired(err) {
		t.Errorf("GetCampaign = %v, want the TIMESTAMP_EXPIRED answer, uncorrected", err)
	}
	if off := c.ClockOffset(); off != 0 {
		t.Errorf("ClockOffset = %v from an answer without TLS, want 0", off)
	}
}
