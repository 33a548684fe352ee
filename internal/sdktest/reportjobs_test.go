package sdktest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/internal/service"
)

// TestSDKReportJobs: the SDK creates a job over simulated sandbox
// delivery, waits for it (a worker of the server runs it) and downloads
// its file.
func TestSDKReportJobs(t *testing.T) {
	s := newSandbox(t, nil)
	s.svc.SetSimulator(service.SimulatorConfig{Enabled: true, Seed: 9, SampleDays: 2})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go s.svc.RunReportJobs(ctx, "sdktest")
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
	seen := 0
	done, err := c.WaitReportJob(ctx, j.ID, 50*time.Millisecond, func(*client.ReportJob) { seen++ })
	if err != nil || done.Status != "done" || done.RowCount == 0 || seen == 0 {
		t.Fatalf("WaitReportJob = %+v, %v (progress called %d times); want done with rows", done, err, seen)
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
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zr)
	if lines := strings.Count(string(b), "\n"); int64(lines) != done.RowCount {
		t.Errorf("the file has %d lines, the job says %d rows", lines, done.RowCount)
	}
}
