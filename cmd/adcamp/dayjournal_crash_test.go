package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/jackc/pgx/v5"
)

// TestDayJournalSurvivesSIGKILL: serve is killed with SIGKILL while the
// changes of the days of a delivery backfill wait in the journal of days
// (no fold ran: the pause between folds is an hour), and started again on
// the same data: the reports by day then hold exactly what the hours
// hold, and the journal is empty.
func TestDayJournalSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and kills a server process")
	}
	dir := t.TempDir()
	dayJournalCrash(t, []string{"--data-dir=" + dir}, func(ctx context.Context) (int, error) {
		// Read-write: after a kill the WAL's index must be rebuilt to read
		// what the WAL holds, which a read-only connection cannot do.
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_pragma=busy_timeout(10000)")
		if err != nil {
			return 0, err
		}
		defer db.Close()
		var n int
		err = db.QueryRowContext(ctx, `SELECT count(*) FROM delivery_day_journal`).Scan(&n)
		return n, err
	})
}

// TestDayJournalSurvivesSIGKILLPostgres: the same on PostgreSQL.
func TestDayJournalSurvivesSIGKILLPostgres(t *testing.T) {
	t.Parallel()
	schema := pgtest.NewSchema(t)
	if testing.Short() {
		t.Skip("builds and kills a server process")
	}
	keyFile := filepath.Join(t.TempDir(), "master.key")
	key := make([]byte, 32)
	rand.Read(key)
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dayJournalCrash(t, []string{"--database-url", schema.URL, "--master-key-file", keyFile}, func(ctx context.Context) (int, error) {
		conn, err := pgx.Connect(ctx, schema.URL)
		if err != nil {
			return 0, err
		}
		defer conn.Close(ctx)
		var n int
		err = conn.QueryRow(ctx, `SELECT count(*) FROM delivery_day_journal`).Scan(&n)
		return n, err
	})
}

// dayJournalCrash runs the test of TestDayJournalSurvivesSIGKILL on the
// store that storeArgs name; journal counts the entries of its journal
// of days.
func dayJournalCrash(t *testing.T, storeArgs []string, journal func(context.Context) (int, error)) {
	bin := buildBinary(t)
	acc := mustJSON(t, append([]string{"accounts", "create", "--name", "Journal"}, storeArgs...)...)["id"].(string)
	k := mustJSON(t, append([]string{"keys", "create", "--account", acc, "--env", "sandbox"}, storeArgs...)...)
	prod, sandbox := freeAddr(t), freeAddr(t)
	args := append([]string{"--sandbox-addr", sandbox}, storeArgs...)
	proc := startProcessEnv(t, bin, prod, []string{envTestDayFoldPause + "=1h"}, args...)

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
	sim, err := c.SimulateDelivery(ctx, 3)
	if err != nil || sim.Rows == 0 {
		t.Fatalf("SimulateDelivery = %+v, %v; want rows", sim, err)
	}
	proc.Process.Signal(syscall.SIGKILL)
	proc.Wait()

	// serve folds at its start, before it serves, and purges (which
	// folds first) a minute later: with the pause at an hour, nothing
	// folds the backfill's entries before the kill.
	n, err := journal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("the journal of days is empty after %d rows: a fold ran before the kill", sim.Rows)
	}
	t.Logf("killed serve with %d entries in the journal of days, after %d hourly rows", n, sim.Rows)

	startProcessEnv(t, bin, prod, nil, args...)
	// The days before today: the restarted server's simulator adds to
	// today's hours only.
	yesterday := time.Now().UTC().AddDate(0, 0, -1)
	totals := func(granularity string) client.ReportMetrics {
		t.Helper()
		p, err := c.PerformanceReport(ctx, &client.ReportOptions{Level: "campaign", Granularity: granularity,
			From: client.DateOf(yesterday.AddDate(0, 0, -2)), To: client.DateOf(yesterday), Limit: 1})
		if err != nil || p.Totals == nil {
			t.Fatalf("PerformanceReport(%s) = %+v, %v; want its totals", granularity, p, err)
		}
		return client.ReportMetrics{Impressions: p.Totals.Impressions, Clicks: p.Totals.Clicks, Cost: p.Totals.Cost,
			Orders: p.Totals.Orders, Sales: p.Totals.Sales}
	}
	hours, days := totals("hour"), totals("day")
	if hours.Impressions == 0 || days != hours {
		t.Errorf("after the restart the days sum to %+v, the hours to %+v; want the same, not zero", days, hours)
	}
	if n, err := journal(ctx); err != nil || n != 0 {
		t.Errorf("%d entries left in the journal of days after a report (%v)", n, err)
	}
}
