package sdktest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/internal/service"
)

// TestSDKReportJobs: the SDK creates a job over simulated sandbox
// delivery, waits for it (a worker of the server runs it) and downloads
// its file, whole or as a stream, with the same rows as the report.
func TestSDKReportJobs(t *testing.T) {
	s := newSandbox(t, nil)
	s.svc.SetSimulator(service.SimulatorConfig{Enabled: true, Seed: 9, SampleDays: 2})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := s.client()
	if _, err := c.CreateSampleData(ctx); err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Format("2006-01-02")
	from := time.Now().UTC().AddDate(0, 0, -6).Format("2006-01-02")
	j, err := c.CreateReportJob(ctx, client.ReportJobCreate{Level: "campaign", Granularity: "day", From: from, To: today, Format: "jsonl.gz"})
	if err != nil {
		t.Fatal(err)
	}
	// No worker runs yet: the job stays pending, its file is not there,
	// and a wait ends with its context.
	if _, err := c.DownloadReportJob(ctx, j.ID, io.Discard); client.ErrorCode(err) != client.CodeConflict {
		t.Errorf("DownloadReportJob(pending) = %v, want CONFLICT", err)
	}
	short, stop := context.WithCancel(ctx)
	pending, err := c.WaitReportJob(short, j.ID, &client.WaitOptions{Interval: 10 * time.Millisecond,
		Progress: func(j *client.ReportJob) { stop() }})
	if !errors.Is(err, context.Canceled) || pending == nil || pending.Status != "pending" {
		t.Errorf("WaitReportJob(a cancelled context) = %+v, %v; want the pending job and context.Canceled", pending, err)
	}

	go s.svc.RunReportJobs(ctx, "sdktest")
	var seen []string
	done, err := c.WaitReportJob(ctx, j.ID, &client.WaitOptions{Interval: 20 * time.Millisecond, MaxInterval: 100 * time.Millisecond,
		Progress: func(j *client.ReportJob) { seen = append(seen, j.Status) }})
	if err != nil || done.Status != "done" || done.RowCount == 0 || len(seen) == 0 || seen[len(seen)-1] != "done" {
		t.Fatalf("WaitReportJob = %+v, %v (progress saw %q); want done with rows", done, err, seen)
	}
	list, err := c.ListReportJobs(ctx)
	if err != nil || len(list) != 1 || list[0].ID != j.ID || list[0].Status != "done" {
		t.Errorf("ListReportJobs = %+v, %v; want the one job, done", list, err)
	}
	var buf bytes.Buffer
	n, err := c.DownloadReportJob(ctx, j.ID, &buf)
	if err != nil || n != done.SizeBytes {
		t.Fatalf("DownloadReportJob = %d, %v; want %d bytes", n, err, done.SizeBytes)
	}
	f, err := c.OpenReportJob(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size != done.SizeBytes || f.Name != "report-"+j.ID+".jsonl.gz" {
		t.Errorf("OpenReportJob: Size %d, Name %q; want %d, report-%s.jsonl.gz", f.Size, f.Name, done.SizeBytes, j.ID)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rows []client.ReportRow
	dec := json.NewDecoder(zr)
	for {
		var r client.ReportRow
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the streamed file: %v", err)
		}
		rows = append(rows, r)
	}
	if int64(len(rows)) != done.RowCount {
		t.Errorf("the streamed file has %d rows, the job says %d", len(rows), done.RowCount)
	}
	if zb, _ := io.ReadAll(mustGzip(t, buf.Bytes())); strings.Count(string(zb), "\n") != len(rows) {
		t.Errorf("the downloaded file and the streamed one differ")
	}
	var want []client.ReportRow
	for r, err := range c.PerformanceRows(ctx, &client.ReportOptions{Level: "campaign", Granularity: "day",
		From: mustDate(t, from), To: mustDate(t, today)}, nil) {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("the file's rows differ from the report's (-report +file):\n%s", diff)
	}
}

func mustGzip(t *testing.T, b []byte) io.Reader {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

func mustDate(t *testing.T, s string) client.Date {
	t.Helper()
	d, err := client.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
