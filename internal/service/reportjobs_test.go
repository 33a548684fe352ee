package service_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// jobEnv is a service over a store with a sandbox account whose delivery
// the simulator backfilled.
type jobEnv struct {
	svc    *service.Service
	db     store.Store
	clk    *clock
	tenant adcamp.Tenant
	tree   simTree
}

func newJobEnv(t *testing.T) *jobEnv {
	t.Helper()
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	db := openStore(t)
	clk := &clock{now: time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)}
	svc := service.New(service.Config{Store: db, Box: box, Now: clk.Now})
	a, err := svc.CreateAccount(admin, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	e := &jobEnv{svc: svc, db: db, clk: clk, tenant: adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}}
	e.tree = newSimTree(t, svc, e.tenant, "100000.00")
	if _, err := svc.UpdateCampaign(admin, e.tenant, e.tree.campaign.ID, adcamp.CampaignInput{Name: adcamp.Some("=HYPERLINK(\"http://x\")")}, service.IfMatch{}, false); err != nil {
		t.Fatal(err)
	}
	svc.SetSimulator(service.SimulatorConfig{Enabled: true, Seed: 5})
	if _, err := svc.SimulateSandbox(admin, e.tenant, 3); err != nil {
		t.Fatal(err)
	}
	return e
}

// download returns the uncompressed file of job id.
func (e *jobEnv) download(t *testing.T, id string) (*service.ReportJob, []byte) {
	t.Helper()
	var buf bytes.Buffer
	var got *service.ReportJob
	err := e.svc.DownloadReportJob(ctx, e.tenant, id, func(j *service.ReportJob) error { got = j; return nil }, &buf)
	if err != nil {
		t.Fatalf("DownloadReportJob: %v", err)
	}
	if int64(buf.Len()) != got.Size {
		t.Errorf("downloaded %d bytes, the job says %d", buf.Len(), got.Size)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return got, b
}

// TestReportJobs: a job writes every row of its query, in JSON lines or
// CSV (with formula cells defused), is done with its counts and an
// event; an account is limited in jobs at once; a job not done cannot be
// downloaded; finished jobs are purged after 7 days.
func TestReportJobs(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t)
	q := service.ReportQuery{Level: service.LevelKeyword, Granularity: service.GranularityHour,
		From: adcamp.DateOf(time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)), To: adcamp.DateOf(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))}
	var want []string
	var totals service.ReportMetrics
	err := e.svc.EachPerformanceRow(ctx, e.tenant, q, func(r *service.ReportRow) error {
		want = append(want, r.KeywordID+" "+r.Hour.Format(time.RFC3339))
		totals.Cost += r.Cost
		totals.Clicks += r.Clicks
		return nil
	})
	if err != nil || len(want) == 0 {
		t.Fatalf("EachPerformanceRow = %d rows, %v", len(want), err)
	}

	if _, err := e.svc.CreateReportJob(ctx, e.tenant, q, "xlsx"); adcamp.ErrorCode(err) != adcamp.CodeValidation {
		t.Errorf("CreateReportJob(format xlsx) = %v, want VALIDATION_ERROR", err)
	}
	bad := q
	bad.Level = "country"
	if _, err := e.svc.CreateReportJob(ctx, e.tenant, bad, service.FormatCSV); adcamp.ErrorCode(err) != adcamp.CodeValidation {
		t.Errorf("CreateReportJob(level country) = %v, want VALIDATION_ERROR", err)
	}
	jl, err := e.svc.CreateReportJob(ctx, e.tenant, q, service.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	if jl.Status != service.JobPending || !strings.HasPrefix(jl.ID, adcamp.PrefixReportJob) {
		t.Errorf("CreateReportJob = %+v, want a pending rpj_ job", jl.ReportJob)
	}
	if err := e.svc.DownloadReportJob(ctx, e.tenant, jl.ID, func(*service.ReportJob) error { return nil }, io.Discard); adcamp.ErrorCode(err) != adcamp.CodeConflict {
		t.Errorf("DownloadReportJob(pending) = %v, want CONFLICT", err)
	}
	other := adcamp.Tenant{AccountID: e.tenant.AccountID, Environment: adcamp.Production}
	if _, err := e.svc.GetReportJob(ctx, other, jl.ID); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("GetReportJob(from production) = %v, want NOT_FOUND", err)
	}
	cq := q
	cq.Level, cq.Granularity = service.LevelCampaign, service.GranularityDay
	cj, err := e.svc.CreateReportJob(ctx, e.tenant, cq, service.FormatCSV)
	if err != nil {
		t.Fatal(err)
	}
	e.svc.SetReportJobs(service.ReportJobsConfig{MaxPerAccount: 2})
	if _, err := e.svc.CreateReportJob(ctx, e.tenant, q, service.FormatCSV); adcamp.ErrorCode(err) != adcamp.CodeRateLimited {
		t.Errorf("a third job at once = %v, want RATE_LIMITED", err)
	}

	for _, want := range []bool{true, true, false} {
		if ran, err := e.svc.RunReportJob(ctx, "w1"); ran != want || err != nil {
			t.Fatalf("RunReportJob = %v, %v; want %v", ran, err, want)
		}
	}
	got, body := e.download(t, jl.ID)
	if got.Status != service.JobDone || got.Rows != int64(len(want)) || got.ExpiresAt == nil || !got.ExpiresAt.Equal(e.clk.Now().Add(7*24*time.Hour)) {
		t.Errorf("job after its run = %+v, want done with %d rows, expiring in 7 days", got.ReportJob, len(want))
	}
	var lines []string
	var cost float64
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		var row map[string]any
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, row["keyword_id"].(string)+" "+row["hour"].(string))
		cost += row["cost"].(float64)
		if _, ok := row["ctr"]; !ok {
			t.Errorf("row without ctr: %s", sc.Text())
		}
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("the JSON lines' rows differ from the report's:\n%d lines, want %d", len(lines), len(want))
	}
	if c := adcamp.Money(cost*100 + 0.5); c != totals.Cost {
		t.Errorf("the JSON lines' cost = %s, want %s", c, totals.Cost)
	}

	got, body = e.download(t, cj.ID)
	recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || got.Rows != 3 || recs[0][0] != "date" || recs[0][2] != "campaign_name" {
		t.Fatalf("CSV by campaign and day = %d records (%d rows) %v, want a header and 3 days", len(recs), got.Rows, recs[0])
	}
	if name := recs[1][2]; name != `'=HYPERLINK("http://x")` {
		t.Errorf("CSV campaign name = %q, want the formula defused with an apostrophe", name)
	}

	evs, _, err := e.svc.Events(ctx, e.tenant, service.EventFilter{Types: []string{adcamp.EventReportJobDone}})
	if err != nil || len(evs) != 2 {
		t.Errorf("report_job.done events = %d, %v; want 2", len(evs), err)
	} else if !strings.Contains(string(evs[0].Payload), `"row_count":`) {
		t.Errorf("event payload = %s, want the job", evs[0].Payload)
	}

	e.clk.Advance(7*24*time.Hour + time.Minute)
	if n, err := e.svc.PurgeReportJobs(ctx); n != 2 || err != nil {
		t.Errorf("PurgeReportJobs after 7 days = %d, %v; want 2", n, err)
	}
	if _, err := e.svc.GetReportJob(ctx, e.tenant, jl.ID); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("GetReportJob after the purge = %v, want NOT_FOUND", err)
	}
}

// TestReportJobCrash: a job whose worker died (its lease passed) is run
// again by another, from the start; a job that died too often fails,
// with its event.
func TestReportJobCrash(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t)
	q := service.ReportQuery{Level: service.LevelKeyword, Granularity: service.GranularityDay,
		From: adcamp.DateOf(time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)), To: adcamp.DateOf(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))}
	j, err := e.svc.CreateReportJob(ctx, e.tenant, q, service.FormatCSV)
	if err != nil {
		t.Fatal(err)
	}
	// A worker claims it and dies mid-file, a chunk written.
	claim := func(owner string) *store.ReportJob {
		t.Helper()
		var c *store.ReportJob
		err := e.db.Write(ctx, func(tx store.Tx) error {
			var err error
			now := e.clk.Now()
			if c, err = tx.ClaimReportJob(ctx, owner, now, now.Add(30*time.Second)); err != nil || c == nil {
				return err
			}
			return tx.PutReportChunk(ctx, c.ID, 0, []byte("half a file"))
		})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := claim("dead"); c == nil || c.ID != j.ID || c.Attempts != 1 {
		t.Fatalf("claim = %+v, want the job, attempt 1", c)
	}
	if ran, err := e.svc.RunReportJob(ctx, "w2"); ran || err != nil {
		t.Errorf("RunReportJob while the lease holds = %v, %v; want nothing to run", ran, err)
	}
	e.clk.Advance(31 * time.Second)
	if ran, err := e.svc.RunReportJob(ctx, "w2"); !ran || err != nil {
		t.Fatalf("RunReportJob after the lease passed = %v, %v; want it run again", ran, err)
	}
	got, body := e.download(t, j.ID)
	if got.Status != service.JobDone || got.Attempts != 2 || !bytes.HasPrefix(body, []byte("date,campaign_id")) {
		t.Errorf("job run again = %+v, file %.40q; want done on attempt 2, the whole file", got.ReportJob, body)
	}

	// One that kills every worker fails after its third start.
	j, err = e.svc.CreateReportJob(ctx, e.tenant, q, service.FormatCSV)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		claim("dead")
		e.clk.Advance(31 * time.Second)
	}
	if ran, err := e.svc.RunReportJob(ctx, "w2"); !ran || err != nil {
		t.Fatalf("RunReportJob = %v, %v", ran, err)
	}
	f, err := e.svc.GetReportJob(ctx, e.tenant, j.ID)
	if err != nil || f.Status != service.JobFailed || !strings.Contains(f.ReportJob.Error, "stopped 3 times") {
		t.Errorf("job that crashed 3 times = %+v, %v; want failed", f.ReportJob, err)
	}
	evs, _, err := e.svc.Events(ctx, e.tenant, service.EventFilter{Types: []string{adcamp.EventReportJobFailed}})
	if err != nil || len(evs) != 1 {
		t.Errorf("report_job.failed events = %d, %v; want 1", len(evs), err)
	}
}

// TestReportChunks: a report by day or hour read in chunks of two
// rows, each its own transaction (a job's read), has the rows of the
// report's pages, names included (a deleted keyword's too), at every
// level.
func TestReportChunks(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t)
	if err := e.svc.DeleteKeyword(admin, e.tenant, e.tree.keywords[1].ID, service.IfMatch{}); err != nil {
		t.Fatal(err)
	}
	e.svc.SetReportJobs(service.ReportJobsConfig{ChunkRows: 2})
	from, to := adcamp.DateOf(time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)), adcamp.DateOf(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	for _, level := range []string{service.LevelCampaign, service.LevelAdGroup, service.LevelKeyword} {
		for _, g := range []string{service.GranularityDay, service.GranularityHour} {
			q := service.ReportQuery{Level: level, Granularity: g, From: from, To: to}
			var got []service.ReportRow
			err := e.svc.EachPerformanceRow(ctx, e.tenant, q, func(r *service.ReportRow) error {
				got = append(got, *r)
				return nil
			})
			if err != nil {
				t.Fatalf("EachPerformanceRow(%s by %s): %v", level, g, err)
			}
			var want []service.ReportRow
			q.Limit = service.MaxReportLimit
			for {
				p, err := e.svc.PerformanceReport(ctx, e.tenant, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range p.Rows {
					want = append(want, *r)
				}
				if q.Cursor = p.NextCursor; q.Cursor == "" {
					break
				}
			}
			if len(want) <= 2 {
				t.Errorf("%s by %s: %d rows, too few for chunks of 2", level, g, len(want))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s by %s: EachPerformanceRow's rows differ from the pages' (-pages +chunks):\n%s", level, g, diff)
			}
		}
	}
}
