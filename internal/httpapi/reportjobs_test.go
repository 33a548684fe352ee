package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/csv"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
)

// TestReportJobsAPI: POST /report-jobs queues a job (202), GET follows
// it, the download is 409 until it is done and then the gzipped file;
// another account's job is 404, and an account's jobs at once are
// limited (429).
func TestReportJobsAPI(t *testing.T) {
	e := newEnv(t)
	_, sandbox := e.account("Acme")
	_, stranger := e.account("Other")
	e.svc.SetSimulator(service.SimulatorConfig{Enabled: true, Seed: 2})
	c := sandbox.createCampaign(`{"name":"Shoes","budget_daily":1000,"marketplace":"US"}`)
	g := sandbox.do("POST", "/campaigns/"+c["id"].(string)+"/ad-groups", `{"name":"G","default_bid":1.5}`)
	want(t, g, http.StatusCreated, "")
	want(t, sandbox.do("POST", "/ad-groups/"+g.Data()["id"].(string)+"/keywords", `{"text":"shoes","match_type":"broad"}`), http.StatusCreated, "")
	want(t, sandbox.do("POST", "/sandbox/simulate?days=2", ""), http.StatusOK, "")

	for _, body := range []string{
		`{"level":"keyword","from":"2026-11-21","to":"2026-11-22"}`,
		`{"level":"keyword","from":"2026-11-21","to":"2026-11-22","format":"xlsx"}`,
		`{"level":"keyword","from":"21/11/2026","to":"2026-11-22","format":"csv.gz"}`,
		`{"level":"keyword","from":"2026-11-21","to":"2026-11-22","format":"csv.gz","limit":"5"}`,
	} {
		want(t, sandbox.do("POST", "/report-jobs", body), http.StatusBadRequest, "VALIDATION_ERROR")
	}
	r := sandbox.do("POST", "/report-jobs", `{"level":"keyword","granularity":"day","from":"2026-11-21","to":"2026-11-22","format":"csv.gz"}`)
	want(t, r, http.StatusAccepted, "")
	id := r.Data()["id"].(string)
	if r.Data()["status"] != "pending" || r.Header.Get("Location") != "/api/v1/open/report-jobs/"+id {
		t.Errorf("POST /report-jobs = %v, Location %q", r.Data(), r.Header.Get("Location"))
	}
	want(t, sandbox.do("GET", "/report-jobs/"+id+"/download", ""), http.StatusConflict, "CONFLICT")
	want(t, stranger.do("GET", "/report-jobs/"+id, ""), http.StatusNotFound, "NOT_FOUND")
	want(t, stranger.do("GET", "/report-jobs/"+id+"/download", ""), http.StatusNotFound, "NOT_FOUND")
	want(t, sandbox.do("GET", "/report-jobs/rpj_nope", ""), http.StatusNotFound, "NOT_FOUND")

	if ran, err := e.svc.RunReportJob(context.Background(), "test"); !ran || err != nil {
		t.Fatalf("RunReportJob = %v, %v", ran, err)
	}
	r = sandbox.do("GET", "/report-jobs/"+id, "")
	want(t, r, http.StatusOK, "")
	if r.Data()["status"] != "done" || r.Data()["row_count"] != float64(2) || r.Data()["expires_at"] == nil {
		t.Errorf("GET /report-jobs/{id} after its run = %v, want done with 2 rows", r.Data())
	}
	req := sandbox.newRequest("GET", "/report-jobs/"+id+"/download", "")
	sandbox.sign(req, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/gzip" ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), id+".csv.gz") || resp.ContentLength != int64(len(raw)) {
		t.Fatalf("download = %d %v (%d bytes, %v)", resp.StatusCode, resp.Header, len(raw), err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zr)
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) != 3 || recs[1][6] != "shoes" {
		t.Errorf("downloaded CSV = %q, %v; want a header and 2 days of the keyword", b, err)
	}

	e.svc.SetReportJobs(service.ReportJobsConfig{MaxPerAccount: 1})
	want(t, sandbox.do("POST", "/report-jobs", `{"level":"campaign","from":"2026-11-21","to":"2026-11-22","format":"jsonl.gz"}`), http.StatusAccepted, "")
	r = sandbox.do("POST", "/report-jobs", `{"level":"campaign","from":"2026-11-21","to":"2026-11-22","format":"jsonl.gz"}`)
	want(t, r, http.StatusTooManyRequests, "RATE_LIMITED")
	if got := r.Header.Get("Retry-After"); got == "" {
		t.Errorf("the 429 of a report job beyond the account's limit has no Retry-After")
	}
}

// TestReportJobFileGoneAPI: on SQLite a job's file is kept in reports.db,
// which a backup does not hold; a done job whose file is not there (as
// after a restore) answers its download 404 NOT_FOUND in the envelope,
// saying to create the job again, and GET still shows the job.
func TestReportJobFileGoneAPI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := newEnv(t, func(c *service.Config) { c.Store = db })
	_, sandbox := e.account("Acme")
	r := sandbox.do("POST", "/report-jobs", `{"level":"campaign","from":"2026-11-21","to":"2026-11-22","format":"csv.gz"}`)
	want(t, r, http.StatusAccepted, "")
	id := r.Data()["id"].(string)
	if ran, err := e.svc.RunReportJob(context.Background(), "test"); !ran || err != nil {
		t.Fatalf("RunReportJob = %v, %v", ran, err)
	}
	files, err := sql.Open("sqlite", filepath.Join(dir, sqlite.ReportsFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer files.Close()
	if res, err := files.Exec(`DELETE FROM report_file_chunks`); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n == 0 {
		t.Fatal("the job's file is not in reports.db")
	}
	r = sandbox.do("GET", "/report-jobs/"+id+"/download", "")
	want(t, r, http.StatusNotFound, "NOT_FOUND")
	if msg, _ := r.Error()["message"].(string); !strings.Contains(msg, "no longer available") || !strings.Contains(msg, "create the job again") {
		t.Errorf("download of a job without its file: message %q, want it no longer available, to create again", msg)
	}
	want(t, sandbox.do("GET", "/report-jobs/"+id, ""), http.StatusOK, "")
}
