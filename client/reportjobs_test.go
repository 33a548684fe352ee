package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
)

// jobJSON is the envelope of a report job in status.
func jobJSON(status string) string {
	return `{"success":true,"data":{"id":"rpj_1","status":"` + status + `","format":"csv.gz","level":"campaign",` +
		`"granularity":"day","from":"2026-11-01","to":"2026-11-07","campaign_id":null,"ad_group_id":null,` +
		`"status_filter":null,"sort":null,"row_count":0,"size_bytes":0,"error":null,"created_at":"2026-11-22T09:30:00Z",` +
		`"started_at":null,"finished_at":null,"expires_at":null}}`
}

func TestWaitReportJobBacksOff(t *testing.T) {
	clk := newFakeClock()
	srv := newFakeServer(t,
		reply(200, jobJSON("pending")),
		reply(200, jobJSON("running"), "Retry-After", "5"),
		reply(429, apiError(client.CodeRateLimited, "slow down"), "Retry-After", "7"),
		reply(200, jobJSON("running")),
		reply(200, jobJSON("done")))
	c := fakeClient(t, srv.Server, clk, client.WithMaxAttempts(1))
	var seen []string
	j, err := c.WaitReportJob(context.Background(), "rpj_1", &client.WaitOptions{Interval: time.Second, MaxInterval: 4 * time.Second,
		Progress: func(j *client.ReportJob) { seen = append(seen, j.Status) }})
	if err != nil || j.Status != "done" {
		t.Fatalf("WaitReportJob = %+v, %v; want the job done", j, err)
	}
	if got, want := strings.Join(seen, " "), "pending running running done"; got != want {
		t.Errorf("progress saw %q, want %q", got, want)
	}
	// 1 s, then 1.5 s raised to the answer's Retry-After (5 s), 2.25 s
	// raised to the 429's (7 s), then 3.375 s.
	want := []time.Duration{time.Second, 5 * time.Second, 7 * time.Second, 3375 * time.Millisecond}
	if got := clk.Slept(); !equalDurations(got, want) {
		t.Errorf("waits %v, want %v", got, want)
	}
}

func TestWaitReportJobGrowsToMaxInterval(t *testing.T) {
	clk := newFakeClock()
	answers := []answer{}
	for range 8 {
		answers = append(answers, reply(200, jobJSON("running")))
	}
	srv := newFakeServer(t, append(answers, reply(200, jobJSON("failed")))...)
	c := fakeClient(t, srv.Server, clk)
	j, err := c.WaitReportJob(context.Background(), "rpj_1", nil)
	if err != nil || j.Status != "failed" {
		t.Fatalf("WaitReportJob = %+v, %v; want the job, failed, and no error", j, err)
	}
	slept := clk.Slept()
	if len(slept) != 8 || slept[0] != time.Second || slept[7] != 10*time.Second {
		t.Errorf("waits %v; want 8 from 1 s growing to 10 s", slept)
	}
}

func TestWaitReportJobEnds(t *testing.T) {
	t.Run("an error", func(t *testing.T) {
		clk := newFakeClock()
		srv := newFakeServer(t, reply(200, jobJSON("running")), reply(404, apiError(client.CodeNotFound, "no such job")))
		c := fakeClient(t, srv.Server, clk)
		j, err := c.WaitReportJob(context.Background(), "rpj_1", nil)
		if !client.IsNotFound(err) || j == nil || j.Status != "running" {
			t.Errorf("WaitReportJob = %+v, %v; want NOT_FOUND with the last state read", j, err)
		}
	})
	t.Run("the context", func(t *testing.T) {
		clk := newFakeClock()
		srv := newFakeServer(t, reply(200, jobJSON("pending")))
		c := fakeClient(t, srv.Server, clk)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		reads := 0
		j, err := c.WaitReportJob(ctx, "rpj_1", &client.WaitOptions{Progress: func(*client.ReportJob) {
			if reads++; reads == 3 {
				cancel()
			}
		}})
		if !errors.Is(err, context.Canceled) || j == nil || reads != 3 || len(srv.Requests()) != 3 {
			t.Errorf("WaitReportJob = %+v, %v after %d reads; want context.Canceled after the third", j, err, reads)
		}
	})
}

// fileAnswer sends size bytes of a report file in parts, pausing after
// each but the last.
func fileAnswer(size, parts int, pause time.Duration) answer {
	return func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/gzip")
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.Header().Set("Content-Disposition", `attachment; filename="report-rpj_1.csv.gz"`)
		part := make([]byte, size/parts)
		for i := range parts {
			if i == parts-1 {
				part = make([]byte, size-(parts-1)*len(part))
			}
			if _, err := w.Write(part); err != nil {
				return true
			}
			http.NewResponseController(w).Flush()
			if i < parts-1 {
				select {
				case <-time.After(pause):
				case <-r.Context().Done():
					return true
				}
			}
		}
		return true
	}
}

// TestDownloadReportJobStreams: a file larger than any answer the client
// reads into memory arrives whole, and the timeout bounds the pauses of
// a download, not its length.
func TestDownloadReportJobStreams(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	const big = 40 << 20 // beyond the 32 MiB an answer is read up to
	srv := newFakeServer(t, fileAnswer(big, 4, 0))
	c := fakeClient(t, srv.Server, clk)
	n, err := c.DownloadReportJob(context.Background(), "rpj_1", io.Discard)
	if err != nil || n != big {
		t.Errorf("DownloadReportJob(40 MiB) = %d, %v; want %d bytes", n, err, big)
	}

	// Four pauses of 400 ms, each well within the 1 s timeout, make a
	// download longer than it.
	srv = newFakeServer(t, fileAnswer(5000, 5, 400*time.Millisecond))
	c = fakeClient(t, srv.Server, clk, client.WithTimeout(time.Second))
	f, err := c.OpenReportJob(context.Background(), "rpj_1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil || len(b) != 5000 || f.Size != 5000 || f.Name != "report-rpj_1.csv.gz" {
		t.Errorf("OpenReportJob read %d bytes, %v; Size %d, Name %q; want 5000 bytes of report-rpj_1.csv.gz", len(b), err, f.Size, f.Name)
	}
}

func TestDownloadReportJobStalls(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	srv := newFakeServer(t, fileAnswer(2000, 2, time.Hour))
	c := fakeClient(t, srv.Server, clk, client.WithTimeout(100*time.Millisecond))
	n, err := c.DownloadReportJob(context.Background(), "rpj_1", io.Discard)
	if err == nil || n != 1000 || !strings.Contains(err.Error(), "no data from the server") {
		t.Errorf("DownloadReportJob(a stalled file) = %d, %v; want the first 1000 bytes and a timeout", n, err)
	}
}

func TestDownloadReportJobNotDone(t *testing.T) {
	clk := newFakeClock()
	srv := newFakeServer(t, reply(409, apiError(client.CodeConflict, "the job is running")))
	c := fakeClient(t, srv.Server, clk)
	n, err := c.DownloadReportJob(context.Background(), "rpj_1", io.Discard)
	if e := asError(t, err); e.Code != client.CodeConflict || n != 0 || len(srv.Requests()) != 1 {
		t.Errorf("DownloadReportJob(a running job) = %d, %v; want CONFLICT at once", n, err)
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
