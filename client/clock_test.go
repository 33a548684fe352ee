package client_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/client/signing"
)

// skewedServer is a fake API whose clock is an hour ahead of the
// client's: it refuses timestamps more than 300 s from its clock with
// 401 TIMESTAMP_EXPIRED, telling its time the way source says.
func skewedServer(t *testing.T, clk *fakeClock, source string) *fakeServer {
	serverNow := func() time.Time { return clk.Now().Add(time.Hour) }
	return newFakeServer(t, func(w http.ResponseWriter, r *http.Request) bool {
		now := serverNow()
		if r.URL.Path == "/api/v1/open/time" {
			return reply(200, fmt.Sprintf(`{"success":true,"data":{"unix":%d,"iso":"x"}}`, now.Unix()))(w, r)
		}
		ts, _ := strconv.ParseInt(r.Header.Get(signing.HeaderTimestamp), 10, 64)
		if d := ts - now.Unix(); d >= -300 && d <= 300 {
			return reply(200, campaignJSON)(w, r)
		}
		details := ""
		switch source {
		case "details":
			details = fmt.Sprintf(`,"details":{"server_time":%d,"server_time_iso":"x","skew_seconds":%d}`, now.Unix(), ts-now.Unix())
			w.Header().Set("Date", clk.Now().Add(-time.Hour).Format(http.TimeFormat)) // wrong: details win
		case "Date":
			w.Header().Set("Date", now.Format(http.TimeFormat))
		default:
			w.Header()["Date"] = nil // no Date header at all
		}
		body := `{"success":false,"error":{"code":"TIMESTAMP_EXPIRED","message":"too far","request_id":"req_fake"` + details + `}}`
		return reply(401, body)(w, r)
	})
}

func TestClockSkewCorrected(t *testing.T) {
	for _, tt := range []struct{ source, wantMethods string }{
		{"details", "[GET GET]"},
		{"Date", "[GET GET]"},
		{"GET /time", "[GET GET GET]"}, // the refused request, /time, the retry
	} {
		t.Run(tt.source, func(t *testing.T) {
			clk := newFakeClock()
			srv := skewedServer(t, clk, tt.source)
			c := fakeClient(t, srv.Server, clk)
			ctx := context.Background()
			if _, err := c.GetCampaign(ctx, "cmp_x"); err != nil {
				t.Fatalf("GetCampaign with a skewed server clock: %v", err)
			}
			if got := fmt.Sprint(methods(srv.Requests())); got != tt.wantMethods {
				t.Errorf("first call sent %s, want %s", got, tt.wantMethods)
			}
			if off := c.ClockOffset(); off != time.Hour {
				t.Errorf("ClockOffset = %v, want 1h", off)
			}
			before := len(srv.Requests())
			if _, err := c.DeleteCampaign(ctx, "cmp_x", nil); err != nil {
				t.Fatal(err)
			}
			if n := len(srv.Requests()) - before; n != 1 || len(clk.Slept()) != 0 {
				t.Errorf("a later call took %d requests and waits %v, want 1 and none", n, clk.Slept())
			}
		})
	}
}

func methods(reqs []*recorded) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Method)
	}
	return out
}

// TestClockCorrectedOnce: a server that refuses every timestamp gets the
// request twice (once corrected), not forever.
func TestClockCorrectedOnce(t *testing.T) {
	clk := newFakeClock()
	srv := newFakeServer(t, reply(401, apiError(client.CodeTimestampExpired, "too far"), "Date", clk.Now().Add(time.Hour).Format(http.TimeFormat)))
	c := fakeClient(t, srv.Server, clk)
	_, err := c.ListCampaigns(context.Background(), nil)
	if !client.IsTimestampExpired(err) || !client.IsUnauthorized(err) {
		t.Errorf("err = %v, want TIMESTAMP_EXPIRED", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestSyncClock(t *testing.T) {
	clk := newFakeClock()
	srv := skewedServer(t, clk, "GET /time")
	c := fakeClient(t, srv.Server, clk)
	if err := c.SyncClock(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetCampaign(context.Background(), "cmp_x"); err != nil || c.ClockOffset() != time.Hour {
		t.Errorf("after SyncClock: offset %v, err %v; want 1h and no error", c.ClockOffset(), err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (/time, then the call)", n)
	}
}
