package operatorapi_test

import (
	"bytes"
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
// replacing those of the request before in turn every other time.
func BenchmarkDelivery(b *testing.B) {
	e := newEnv(b, openBench(b))
	id, secret := e.operatorKey()
	var keywords []string
	var account string
	for range 10 {
		tr := e.tree(account, adcamp.Production, "1000000.00", 1000)
		account = tr.tenant.AccountID
		for _, k := range tr.keywords {
			keywords = append(keywords, k.ID)
		}
	}
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
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		body := bodies[i%len(bodies)]
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
	elapsed, used := time.Since(start), cpuTime()-cpu
	b.ReportMetric(float64(b.N*len(keywords))/elapsed.Seconds(), "rows/s")
	// The CPU the process used (server and client) per request: what a
	// shared machine's load changes least.
	b.ReportMetric(float64(used.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
