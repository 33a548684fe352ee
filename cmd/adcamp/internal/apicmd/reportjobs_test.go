package apicmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/client/reportcsv"
	"github.com/adcamp/adcamp/internal/service"
)

// runStderr runs a command against the sandbox and returns its stdout and
// stderr.
func (s *apiSandbox) runStderr(args ...string) (stdout, stderr string, err error) {
	s.t.Helper()
	var out, errOut bytes.Buffer
	lookup := func(name string) (string, bool) { v, ok := s.env[name]; return v, ok }
	err = Run(context.Background(), Env{Lookup: lookup, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut},
		args[0]+" "+args[1], args[2:])
	return out.String(), errOut.String(), err
}

// writerFunc is a function as an io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// gunzipCSV reads a csv.gz file.
func gunzipCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	recs, err := csv.NewReader(zr).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

func TestAPIReportJobs(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	s.svc.SetSimulator(service.SimulatorConfig{Enabled: true, Seed: 3, SampleDays: 2})
	s.ok("sandbox", "sample-data")
	dir := t.TempDir()
	to := time.Now().UTC()
	filters := []string{"--level", "campaign", "--granularity", "day", "--from", to.AddDate(0, 0, -6).Format("2006-01-02"),
		"--to", to.Format("2006-01-02")}

	// No worker runs yet: the job stays pending.
	var pending client.ReportJob
	s.okJSON(&pending, append([]string{"reports", "job", "create", "--wait=false"}, filters...)...)
	if pending.Status != "pending" || pending.Format != "csv.gz" || pending.Level != "campaign" {
		t.Errorf("reports job create --wait=false --json = %+v, want a pending csv.gz job of campaigns", pending)
	}
	out := s.fail(1, "reports", "job", "download", pending.ID, "--out", filepath.Join(dir, "early.csv.gz"))
	wantContains(t, "reports job download of a pending job", out, "is pending")
	out = s.ok("reports", "job", "get", pending.ID)
	wantContains(t, "reports job get", out, pending.ID, "pending", "csv.gz")
	s.fail(2, "reports", "job", "create", "--wait=false", "--out", filepath.Join(dir, "x.csv.gz"))
	s.fail(2, "reports", "job", "create", "--format", "xlsx")
	out = s.fail(2, "reports", "job", "create", "--out", filepath.Join(dir, "nowhere", "x.csv.gz"))
	wantContains(t, "reports job create into no directory", out, "no directory")
	s.fail(2, "reports", "job", "get")
	s.fail(2, "reports", "job", "frobnicate")

	// Interrupted (Ctrl-C) at its first progress line, the wait stops
	// and says how to get the file later; no file is written. (Another
	// format: the same create signed in the same second would be answered
	// as a replay of this one, and an interrupted command does not wait
	// for the next second.)
	stopped := filepath.Join(dir, "stopped.csv.gz")
	ictx, interrupt := context.WithCancel(context.Background())
	lookup := func(name string) (string, bool) { v, ok := s.env[name]; return v, ok }
	err := Run(ictx, Env{Lookup: lookup, Stdout: io.Discard, Stderr: writerFunc(func(p []byte) (int, error) { interrupt(); return len(p), nil })},
		"reports job", append([]string{"create", "--format", "jsonl.gz", "--out", stopped}, filters...))
	if err == nil || !strings.Contains(err.Error(), "stopped waiting; the report job goes on") || !strings.Contains(err.Error(), "reports job download rpj_") {
		t.Errorf("reports job create, interrupted = %v; want it to say the job goes on and how to download it", err)
	}
	if _, err := os.Stat(stopped); err == nil {
		t.Errorf("an interrupted reports job create wrote %s", stopped)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.svc.RunReportJobs(ctx, "apicmd-test")

	file := filepath.Join(dir, "campaigns.csv.gz")
	stdout, stderr, err := s.runStderr(append([]string{"reports", "job", "create", "--out", file}, filters...)...)
	if err != nil {
		t.Fatalf("reports job create: %v\n%s", err, stderr)
	}
	wantContains(t, "reports job create's stdout", stdout, "Wrote "+file, "rows", "bytes (csv.gz)")
	wantContains(t, "reports job create's progress", stderr, "report job rpj_", ": done, ")
	if lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); len(lines) > 3 || strings.Contains(stderr, "\r") {
		t.Errorf("progress on a stream that is no terminal = %q; want a plain line per status", stderr)
	}
	info, err := os.Stat(file)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the file: %v, %v; want mode 0600", info, err)
	}
	recs := gunzipCSV(t, file)
	var rows []client.ReportRow
	s.okJSON(&struct {
		Items *[]client.ReportRow `json:"items"`
	}{&rows}, append([]string{"reports", "performance"}, filters...)...)
	if len(recs) != len(rows)+1 || len(rows) == 0 || recs[0][0] != "date" {
		t.Fatalf("the file has %d records, the report %d rows; want a header and each row", len(recs), len(rows))
	}
	for i, r := range rows {
		if rec := recs[i+1]; rec[0] != r.Date.String() || rec[1] != r.CampaignID || rec[2] != reportcsv.Defuse(r.CampaignName) {
			t.Errorf("file record %d = %q, want the report's row %s %s", i+1, rec, r.Date, r.CampaignID)
		}
	}

	// An existing file is refused before a job is made, unless --force.
	var before []client.ReportJob
	s.okJSON(&struct {
		Items *[]client.ReportJob `json:"items"`
	}{&before}, "reports", "jobs")
	out = s.fail(2, append([]string{"reports", "job", "create", "--out", file}, filters...)...)
	wantContains(t, "reports job create over a file", out, "exists", "--force")
	var after []client.ReportJob
	s.okJSON(&struct {
		Items *[]client.ReportJob `json:"items"`
	}{&after}, "reports", "jobs")
	if len(after) != len(before) || len(before) != 3 {
		t.Errorf("reports jobs: %d jobs before the refused create, %d after; want 3 and 3", len(before), len(after))
	}
	var forced client.ReportJob
	s.okJSON(&forced, append([]string{"reports", "job", "create", "--format", "jsonl.gz", "--out", file, "--force"}, filters...)...)
	if forced.Status != "done" || forced.Format != "jsonl.gz" || forced.RowCount != int64(len(rows)) {
		t.Errorf("reports job create --force --json = %+v, want the done job with %d rows", forced, len(rows))
	}

	// The pending job ran meanwhile: download it.
	other := filepath.Join(dir, "again.csv.gz")
	s.ok("reports", "job", "download", pending.ID, "--out", other)
	if again := gunzipCSV(t, other); !reflect.DeepEqual(again, recs) {
		t.Errorf("the download of the first job differs from the second job's file")
	}
	s.fail(2, "reports", "job", "download", pending.ID, "--out", other)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".part") {
			t.Errorf("a temporary file was left: %s", e.Name())
		}
	}

	out = s.ok("reports", "jobs")
	wantContains(t, "reports jobs", out, pending.ID, forced.ID, "4 report jobs, newest first.")
	var printed any
	s.okJSON(&printed, "reports", "job", "get", forced.ID)
	if want := s.apiData("report-jobs/" + forced.ID); !reflect.DeepEqual(printed, want) {
		got, _ := json.Marshal(printed)
		api, _ := json.Marshal(want)
		t.Errorf("reports job get --json printed\n%s\nthe API's data is\n%s", got, api)
	}
}

// TestReportJobProgress: on a terminal the line is rewritten in place
// and ended once; elsewhere a line per status.
func TestReportJobProgress(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	for _, tc := range []struct {
		tty  bool
		want string
	}{
		{true, "\rreport job rpj_1: pending, 0s\x1b[K\rreport job rpj_1: running, 2s\x1b[K\rreport job rpj_1: running, 4s\x1b[K" +
			"\rreport job rpj_1: done, 120 rows, 6s\x1b[K\n"},
		{false, "report job rpj_1: pending, 0s\nreport job rpj_1: running, 2s\nreport job rpj_1: done, 120 rows, 6s\n"},
	} {
		var buf bytes.Buffer
		clock = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
		p := newProgress(&buf, "rpj_1", now)
		p.tty = tc.tty
		for _, j := range []client.ReportJob{{Status: "pending"}, {Status: "running"}, {Status: "running"}, {Status: "done", RowCount: 120}} {
			p.show(&j)
			clock = clock.Add(2 * time.Second)
		}
		p.end()
		if buf.String() != tc.want {
			t.Errorf("progress (terminal %v) wrote %q, want %q", tc.tty, buf.String(), tc.want)
		}
	}
}
