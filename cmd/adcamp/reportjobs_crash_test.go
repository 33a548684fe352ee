package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adcamp/adcamp/client"
)

// TestReportJobSurvivesSIGKILL: serve is killed with SIGKILL while its
// worker writes a report job, and started again on the same data: once
// the dead worker's lease has passed the job runs again from the start,
// ends done, and its file holds exactly the report's rows, each once.
func TestReportJobSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and kills a server process")
	}
	bin := buildBinary(t)
	dd := "--data-dir=" + t.TempDir()
	acc := mustJSON(t, "accounts", "create", "--name", "Reports", dd)["id"].(string)
	k := mustJSON(t, "keys", "create", "--account", acc, "--env", "sandbox", dd)
	prod, sandbox := freeAddr(t), freeAddr(t)
	// A lease of 2 s rather than 30: the restarted worker takes the job
	// over 2 s after the dead one last renewed it.
	env := []string{envTestReportLease + "=2s"}
	args := []string{dd, "--sandbox-addr", sandbox}
	proc := startProcessEnv(t, bin, prod, env, args...)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a bound on a stuck server, not a pace
	defer cancel()
	c, err := client.New(k["api_key"].(string), k["api_secret"].(string), client.WithBaseURL("http://"+sandbox),
		client.WithTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateSampleData(ctx); err != nil {
		t.Fatal(err)
	}
	// Budgets no simulated day exhausts, so that every hour of every
	// keyword has figures: some 75,000 rows to write.
	budget := client.USD("50000")
	for cmp, err := range c.AllCampaigns(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if cmp.Status == client.CampaignEnded {
			continue
		}
		if _, err := c.UpdateCampaign(ctx, cmp.ID, client.CampaignUpdate{BudgetDaily: &budget}, nil); err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now()
	sim, err := c.SimulateDelivery(ctx, 30)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("simulated %d hourly rows of %d keywords in %v", sim.Rows, sim.Keywords, time.Since(began).Round(time.Millisecond))

	// Every keyword's hours of the 29 days before today (the simulator
	// of the running server adds to today's hours only).
	yesterday := time.Now().UTC().AddDate(0, 0, -1)
	query := client.ReportOptions{Level: "keyword", Granularity: "hour",
		From: client.DateOf(yesterday.AddDate(0, 0, -28)), To: client.DateOf(yesterday)}
	j, err := c.CreateReportJob(ctx, client.ReportJobCreate{Level: query.Level, Granularity: query.Granularity,
		From: query.From.String(), To: query.To.String(), Format: "jsonl.gz"})
	if err != nil {
		t.Fatal(err)
	}
	began = time.Now()
	for {
		got, err := c.GetReportJob(ctx, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == "running" {
			break
		}
		if got.Status != "pending" {
			t.Fatalf("report job %s is %s before it was seen running: make the report larger", j.ID, got.Status)
		}
		if ctx.Err() != nil {
			t.Fatal("the job never ran")
		}
	}
	proc.Process.Signal(syscall.SIGKILL)
	proc.Wait()
	t.Logf("killed serve %v after the job was created", time.Since(began).Round(time.Millisecond))

	startProcessEnv(t, bin, prod, env, args...)
	if got, err := c.GetReportJob(ctx, j.ID); err != nil || got.Status != "running" {
		t.Fatalf("after the restart the job is %+v, %v; want it running still (its dead worker's lease)", got, err)
	}
	var seen []string
	done, err := c.WaitReportJob(ctx, j.ID, &client.WaitOptions{Interval: 100 * time.Millisecond, MaxInterval: time.Second,
		Progress: func(j *client.ReportJob) {
			if len(seen) == 0 || seen[len(seen)-1] != j.Status {
				seen = append(seen, j.Status)
			}
		}})
	if err != nil || done.Status != "done" {
		t.Fatalf("WaitReportJob = %+v, %v (statuses %q); want the job done", done, err, seen)
	}
	t.Logf("done %v after the restart: %d rows, %d bytes (statuses %q)", time.Since(began).Round(time.Millisecond),
		done.RowCount, done.SizeBytes, seen)

	rows := readJobRows(ctx, t, c, j.ID)
	if int64(len(rows)) != done.RowCount || len(rows) == 0 {
		t.Errorf("the file has %d rows, the job says %d", len(rows), done.RowCount)
	}
	// Each keyword's hour once, summing to the report's totals (its
	// first page; reading every page of 60,000 hourly rows takes minutes).
	var sum client.ReportMetrics
	seenRow := map[string]bool{}
	for _, r := range rows {
		key := r.KeywordID + " " + r.Hour.String()
		if seenRow[key] {
			t.Fatalf("the file has the hour %s of keyword %s twice", r.Hour, r.KeywordID)
		}
		seenRow[key] = true
		sum.Impressions += r.Impressions
		sum.Clicks += r.Clicks
		sum.Orders += r.Orders
		sum.Cost = client.Cents(sum.Cost.Cents() + r.Cost.Cents())
		sum.Sales = client.Cents(sum.Sales.Cents() + r.Sales.Cents())
	}
	first := query
	first.Limit = 1
	p, err := c.PerformanceReport(ctx, &first)
	if err != nil || p.Totals == nil {
		t.Fatalf("PerformanceReport = %+v, %v; want its totals", p, err)
	}
	want := client.ReportMetrics{Impressions: p.Totals.Impressions, Clicks: p.Totals.Clicks, Cost: p.Totals.Cost,
		Orders: p.Totals.Orders, Sales: p.Totals.Sales}
	if sum != want {
		t.Errorf("the file's rows sum to %+v, the report's totals are %+v", sum, want)
	}
	// The same job run without a crash writes the same rows.
	again, err := c.CreateReportJob(ctx, client.ReportJobCreate{Level: query.Level, Granularity: query.Granularity,
		From: query.From.String(), To: query.To.String(), Format: "jsonl.gz"})
	if err != nil {
		t.Fatal(err)
	}
	began = time.Now()
	if again, err = c.WaitReportJob(ctx, again.ID, &client.WaitOptions{Interval: 100 * time.Millisecond, MaxInterval: time.Second}); err != nil || again.Status != "done" {
		t.Fatalf("WaitReportJob(the same job again) = %+v, %v; want it done", again, err)
	}
	t.Logf("the same job without a crash: done in %v", time.Since(began).Round(time.Millisecond))
	if diff := cmp.Diff(readJobRows(ctx, t, c, again.ID), rows); diff != "" {
		t.Errorf("the rows of the job run across the crash differ from those of a run without (-without +across):\n%s", diff)
	}
}

// readJobRows downloads a jsonl.gz job's file and reads its rows.
func readJobRows(ctx context.Context, t *testing.T, c *client.Client, id string) []client.ReportRow {
	t.Helper()
	f, err := c.OpenReportJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rows []client.ReportRow
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r client.ReportRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d of the file of %s: %v", len(rows)+1, id, err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("the file of %s: %v", id, err)
	}
	return rows
}
