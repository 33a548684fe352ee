package operatorapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// openBench opens the store of a benchmark: SQLite, or PostgreSQL with
// ADCAMP_TEST_STORE=postgres.
func openBench(b *testing.B) store.Store {
	var db store.Store
	var err error
	if os.Getenv("ADCAMP_TEST_STORE") == "postgres" {
		db, err = postgres.Open(ctx, pgtest.NewSchema(b).URL)
	} else {
		db, err = sqlite.Open(ctx, b.TempDir())
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkDelivery posts 10,000-row delivery requests, one client at a
// time, over real HTTP, and reports rows a second. Each request is the
// running totals of 10,000 keywords (of 10 campaigns) for one hour,
// replacing those of the request before in turn every other time. The
// fold of the days runs beside, as in serve, and the time counted ends
// when it has folded the last request's days: the pace is one the
// daily figures keep (backlog-entries, what the fold had left at the
// last request, shows whether it kept up).
func BenchmarkDelivery(b *testing.B) {
	e := newEnv(b, openBench(b))
	id, secret := e.operatorKey()
	keywords := benchKeywords(e)
	bodies := make([][]byte, 4)
	for h := range bodies {
		rows := make([]map[string]any, len(keywords))
		hour := testNow.Truncate(time.Hour).Add(-time.Duration(h%2) * time.Hour).Format(time.RFC3339)
		for i, k := range keywords {
			rows[i] = map[string]any{"keyword_id": k, "hour": hour, "impressions": 1000 + h, "clicks": 10 + i%7,
				"cost": json.Number("1.25"), "orders": i % 3, "sales": json.Number("19.99")}
		}
		bodies[h], _ = json.Marshal(map[string]any{"items": rows})
	}
	foldCtx, stopFold := context.WithCancel(ctx)
	folded := make(chan struct{})
	go func() { e.svc.RunDayFold(foldCtx, service.FoldPause); close(folded) }()
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		postBench(b, e, id, secret, bodies[i%len(bodies)])
	}
	last := time.Now()
	stopFold()
	<-folded
	if _, err := e.svc.FoldDays(ctx); err != nil { // what the last fold left, if anything
		b.Fatal(err)
	}
	elapsed, used := time.Since(start), cpuTime()-cpu
	b.ReportMetric(float64(time.Since(last).Milliseconds()), "last-fold-ms")
	b.ReportMetric(float64(b.N*len(keywords))/elapsed.Seconds(), "rows/s")
	// The CPU the process used (server and client) per request: what a
	// shared machine's load changes least.
	b.ReportMetric(float64(used.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkDayFold measures the roll-up of the daily figures alone: 10
// delivery requests of 10,000 rows are journaled (no fold running), then
// one fold adds them all to the days, timed; rows/s is the requests'
// rows over the fold's time, the pace of delivery the roll-up keeps.
// running_totals sends the same keywords' running totals of two hours,
// as BenchmarkDelivery (the fold sums ten requests into one write of
// each keyword-day); distinct_days sends each request's rows for
// another day, so nothing sums (a backfill of ten days).
func BenchmarkDayFold(b *testing.B) {
	for _, name := range []string{"running_totals", "distinct_days"} {
		b.Run(name, func(b *testing.B) {
			e := newEnv(b, openBench(b))
			id, secret := e.operatorKey()
			keywords := benchKeywords(e)
			const requests = 10
			var folding time.Duration
			for n := 0; n < b.N; n++ {
				for h := range requests {
					back := time.Duration(h%2) * time.Hour
					if name == "distinct_days" {
						back = time.Duration(h) * 24 * time.Hour
					}
					hour := testNow.Truncate(time.Hour).Add(-back).Format(time.RFC3339)
					rows := make([]map[string]any, len(keywords))
					for i, k := range keywords {
						rows[i] = map[string]any{"keyword_id": k, "hour": hour, "impressions": 1000 + 100*n + h, "clicks": 10 + i%7,
							"cost": json.Number("1.25"), "orders": i % 3, "sales": json.Number("19.99")}
					}
					body, _ := json.Marshal(map[string]any{"items": rows})
					postBench(b, e, id, secret, body)
				}
				start := time.Now()
				n, err := e.svc.FoldDays(ctx)
				folding += time.Since(start)
				if err != nil || n != requests {
					b.Fatalf("FoldDays = %d, %v; want the %d requests' entries", n, err, requests)
				}
			}
			b.ReportMetric(float64(folding.Milliseconds())/float64(b.N), "fold-ms")
			b.ReportMetric(float64(b.N*requests*len(keywords))/folding.Seconds(), "rows/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// benchKeywords makes the 10,000 keywords of the delivery benchmarks:
// 10 campaigns of 1,000, in one account, budgets no delivery reaches.
func benchKeywords(e *env) []string {
	var keywords []string
	var account string
	for range 10 {
		tr := e.tree(account, adcamp.Production, "1000000.00", 1000)
		account = tr.tenant.AccountID
		for _, k := range tr.keywords {
			keywords = append(keywords, k.ID)
		}
	}
	return keywords
}

// postBench posts one delivery request, signed with operator key id.
func postBench(b *testing.B, e *env, id, secret string, body []byte) {
	req, _ := http.NewRequest("POST", e.operator.URL+"/operator/v1/delivery", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	signing.SignRequest(req, signing.SchemeB, id, secret, body, e.clock.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("delivery = %d %s", resp.StatusCode, raw)
	}
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
