package service_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/lowpriority"
	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// BenchmarkReports measures the reports of issue 34, item 7, on an
// account of ADCAMP_BENCH_REPORT_KEYWORDS keywords (10,000 if unset: 100
// campaigns of 10 ad groups of 10 keywords at that size) with figures
// every day for 400 days, beside 100 other accounts of 10 keywords × 400
// days, on SQLite and (with ADCAMP_TEST_POSTGRES_URL) PostgreSQL:
//
//	go test ./internal/service/ -run '^$' -bench BenchmarkReports -benchtime 5x -timeout 60m
//
// The entities are created through the service; their daily figures are
// written straight into delivery_days with bulk SQL (seedReportDays), in
// the shape the ingest's roll-up writes (store.DayDeltas: a row per
// level, day and entity, each level the exact sum of the level below),
// since seeding 4 M days through the ingest takes longer than a sitting
// (bench/notes/reports.md). The SQLite database is kept between runs in
// the temporary directory (ADCAMP_BENCH_REPORT_DIR to choose another;
// delete it to seed again). Each sub-benchmark reports its median and
// slowest run (ms-median, ms-max); the job's also its rows and the
// growth of the process's resident memory while it ran (rss-growth-MB).
func BenchmarkReports(b *testing.B) {
	nkw := 10000
	if s := os.Getenv("ADCAMP_BENCH_REPORT_KEYWORDS"); s != "" {
		nkw, _ = strconv.Atoi(s)
	}
	b.Run("sqlite", func(b *testing.B) {
		dir := os.Getenv("ADCAMP_BENCH_REPORT_DIR")
		if dir == "" {
			dir = filepath.Join(os.TempDir(), fmt.Sprintf("adcamp-bench-reports-%d", nkw))
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		db, err := sqlite.Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		raw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
		if err != nil {
			b.Fatal(err)
		}
		defer raw.Close()
		benchReports(b, db, &sqliteSeeder{db: raw}, filepath.Join(dir, "seeded.json"), nkw)
	})
	b.Run("postgres", func(b *testing.B) {
		// The schema bench_reports_N is kept between runs too (with its
		// seed's record in the temporary directory): drop it to seed again.
		base := pgtest.BaseURL(b)
		schema := fmt.Sprintf("bench_reports_%d", nkw)
		cache := filepath.Join(os.TempDir(), schema+".json")
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			b.Fatal(err)
		}
		defer admin.Close(ctx)
		var kept bool
		if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&kept); err != nil {
			b.Fatal(err)
		}
		if _, err := os.Stat(cache); !kept || err != nil {
			os.Remove(cache)
			if _, err := admin.Exec(ctx, `DROP SCHEMA IF EXISTS `+schema+` CASCADE; CREATE SCHEMA `+schema); err != nil {
				b.Fatal(err)
			}
		}
		u, err := url.Parse(base)
		if err != nil {
			b.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		db, err := postgres.Open(ctx, u.String())
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		conn, err := pgx.Connect(ctx, u.String())
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		benchReports(b, db, &pgSeeder{conn: conn}, cache, nkw)
	})
}

// benchSeed is what a seeded database holds: the big account and its
// entities' ids.
type benchSeed struct {
	Account   string
	Keywords  int
	Campaigns []string
}

// daySeeder writes an account's daily figures in bulk.
type daySeeder interface {
	// seed writes 400 days (to 2026-11-22) of figures for keywords
	// (id, ad group, campaign), keyword i's day n (0 the first) as
	// reportFigures says, at the three levels.
	seed(ctx context.Context, account string, keywords [][3]string) error
	// done runs what a long-running database does to the new rows
	// (PostgreSQL's autovacuum: the statistics and the visibility map).
	done(ctx context.Context) error
}

// The figures of keyword i on the n-th day, as SQL over i and n (both
// seeders use them): deterministic, never all zero.
const (
	figImpressions = `100 + i % 37 + n % 11`
	figClicks      = `i % 7 + n % 3`
	figCost        = `i % 300 + n`
	figOrders      = `i % 2`
	figSales       = `i % 900 + 3 * n`
)

type sqliteSeeder struct{ db *sql.DB }

func (s *sqliteSeeder) seed(ctx context.Context, account string, keywords [][3]string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS seed_keywords (i INTEGER PRIMARY KEY, id TEXT, ad_group_id TEXT, campaign_id TEXT)`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM seed_keywords`); err != nil {
		return err
	}
	sorted := slices.Clone(keywords)
	slices.SortFunc(sorted, func(a, b [3]string) int { return strings.Compare(a[0], b[0]) })
	ins, err := tx.PrepareContext(ctx, `INSERT INTO seed_keywords VALUES ($1, $2, $3, $4)`)
	if err != nil {
		return err
	}
	for i, k := range sorted {
		if _, err := ins.ExecContext(ctx, i, k[0], k[1], k[2]); err != nil {
			return err
		}
	}
	ins.Close()
	// Day by day, keywords by id: the primary key's order.
	if _, err := tx.ExecContext(ctx, `WITH RECURSIVE d(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM d WHERE n < 399)
		INSERT INTO delivery_days (account_id, environment, level, day, entity_id, campaign_id, ad_group_id,
			impressions, clicks, cost, orders, sales)
		SELECT $1, 'production', 3, CAST(replace(date('2026-11-22', '-' || (399 - n) || ' days'), '-', '') AS INTEGER),
			id, campaign_id, ad_group_id, `+figImpressions+`, `+figClicks+`, `+figCost+`, `+figOrders+`, `+figSales+`
		FROM d CROSS JOIN seed_keywords ORDER BY n, i`, account); err != nil {
		return err
	}
	if err := sumLevels(ctx, tx, account); err != nil {
		return err
	}
	return tx.Commit()
}

// sumLevels writes the ad groups' and campaigns' days of account as the
// sums of its keywords', as the ingest's roll-up keeps them.
func sumLevels(ctx context.Context, tx interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, account string) error {
	for _, q := range []string{
		`INSERT INTO delivery_days (account_id, environment, level, day, entity_id, campaign_id, ad_group_id,
			impressions, clicks, cost, orders, sales)
		SELECT account_id, environment, 2, day, ad_group_id, campaign_id, ad_group_id,
			SUM(impressions), SUM(clicks), SUM(cost), SUM(orders), SUM(sales)
		FROM delivery_days WHERE account_id = $1 AND environment = 'production' AND level = 3
		GROUP BY account_id, environment, day, ad_group_id, campaign_id ORDER BY day, ad_group_id`,
		`INSERT INTO delivery_days (account_id, environment, level, day, entity_id, campaign_id, ad_group_id,
			impressions, clicks, cost, orders, sales)
		SELECT account_id, environment, 1, day, campaign_id, campaign_id, '',
			SUM(impressions), SUM(clicks), SUM(cost), SUM(orders), SUM(sales)
		FROM delivery_days WHERE account_id = $1 AND environment = 'production' AND level = 2
		GROUP BY account_id, environment, day, campaign_id ORDER BY day, campaign_id`,
	} {
		if _, err := tx.ExecContext(ctx, q, account); err != nil {
			return err
		}
	}
	return nil
}

// done moves the seed's write-ahead log into the database, as the
// store's checkpoints do in the background.
func (s *sqliteSeeder) done(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

type pgSeeder struct{ conn *pgx.Conn }

func (s *pgSeeder) seed(ctx context.Context, account string, keywords [][3]string) error {
	tx, err := s.conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE IF NOT EXISTS seed_keywords (i INTEGER PRIMARY KEY, id TEXT COLLATE "C", ad_group_id TEXT, campaign_id TEXT)`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `TRUNCATE seed_keywords`); err != nil {
		return err
	}
	sorted := slices.Clone(keywords)
	slices.SortFunc(sorted, func(a, b [3]string) int { return strings.Compare(a[0], b[0]) })
	rows := make([][]any, len(sorted))
	for i, k := range sorted {
		rows[i] = []any{i, k[0], k[1], k[2]}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"seed_keywords"}, []string{"i", "id", "ad_group_id", "campaign_id"}, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO delivery_days (account_id, environment, level, day, entity_id, campaign_id, ad_group_id,
			impressions, clicks, cost, orders, sales)
		SELECT $1, 'production', 3, to_char(DATE '2026-11-22' - (399 - n), 'YYYYMMDD')::int,
			id, campaign_id, ad_group_id, `+figImpressions+`, `+figClicks+`, `+figCost+`, `+figOrders+`, `+figSales+`
		FROM generate_series(0, 399) AS n CROSS JOIN seed_keywords ORDER BY n, i`, account); err != nil {
		return err
	}
	if err := sumLevels(ctx, pgxExec{tx}, account); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func (s *pgSeeder) done(ctx context.Context) error {
	_, err := s.conn.Exec(ctx, `VACUUM ANALYZE delivery_days`)
	return err
}

// pgxExec gives a pgx transaction sumLevels' ExecContext.
type pgxExec struct{ tx pgx.Tx }

func (p pgxExec) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	_, err := p.tx.Exec(ctx, q, args...)
	return nil, err
}

// benchNow is the sittings' clock: the figures end on its day.
var benchNow = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

func benchReports(b *testing.B, db store.Store, seeder daySeeder, cache string, nkw int) {
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, _ := secrets.New(key)
	clk := &clock{now: benchNow}
	svc := service.New(service.Config{Store: db, Box: box, Now: clk.Now})
	var seed benchSeed
	if cache != "" {
		if data, err := os.ReadFile(cache); err == nil && json.Unmarshal(data, &seed) == nil && seed.Keywords == nkw {
			b.Logf("seeded before (%s)", cache)
		} else {
			seed = benchSeed{}
		}
	}
	if seed.Account == "" {
		start := time.Now()
		seed = seedReports(b, svc, seeder, nkw)
		b.Logf("seeded %d keywords × 400 days beside 100 accounts × 10 keywords × 400 days in %v (load %s)",
			nkw, time.Since(start).Round(time.Second), loadAverage())
		if cache != "" {
			data, _ := json.Marshal(seed)
			if err := os.WriteFile(cache, data, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	tn := adcamp.Tenant{AccountID: seed.Account, Environment: adcamp.Production}
	today := adcamp.DateOf(benchNow)
	day := func(n int) adcamp.Date { return adcamp.DateOf(benchNow.AddDate(0, 0, -n)) }
	for _, c := range []struct {
		name string
		q    service.ReportQuery
	}{
		{"campaign summary 400 days", service.ReportQuery{Level: "campaign", From: day(399), To: today}},
		{"campaign summary 400 days by -cost", service.ReportQuery{Level: "campaign", From: day(399), To: today, Sort: "-cost"}},
		{"keyword summary 90 days", service.ReportQuery{Level: "keyword", From: day(89), To: today}},
		{"keyword summary 90 days by -cost", service.ReportQuery{Level: "keyword", From: day(89), To: today, Sort: "-cost"}},
		{"keyword summary 90 days by -roas", service.ReportQuery{Level: "keyword", From: day(89), To: today, Sort: "-roas"}},
		{"keyword summary 90 days page 50", service.ReportQuery{Level: "keyword", From: day(89), To: today, Cursor: "page 50"}},
		{"keyword summary 90 days of a campaign", service.ReportQuery{Level: "keyword", From: day(89), To: today, CampaignID: seed.Campaigns[0]}},
		{"keyword summary 90 days status active", service.ReportQuery{Level: "keyword", From: day(89), To: today, Status: "active"}},
		{"ad group by day 30 days", service.ReportQuery{Level: "ad_group", Granularity: "day", From: day(29), To: today}},
		{"keyword by day 400 days", service.ReportQuery{Level: "keyword", Granularity: "day", From: day(399), To: today}},
	} {
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			if c.q.Cursor != "" {
				c.q.Cursor = cursorAt(b, svc, tn, c.q, 49)
			}
			var ds, cpu []time.Duration
			for b.Loop() {
				t0, c0 := time.Now(), processCPU()
				p, err := svc.PerformanceReport(admin, tn, c.q)
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t0))
				cpu = append(cpu, processCPU()-c0)
				if len(p.Rows) == 0 || (c.q.Cursor == "" && p.Totals == nil) {
					b.Fatalf("%s: empty", c.name)
				}
			}
			reportDurations(b, ds)
			slices.Sort(cpu)
			b.ReportMetric(float64(cpu[len(cpu)/2])/1e6, "cpu-ms-median")
		})
	}
	b.Run("job_csv.gz_keyword_by_day_400_days", func(b *testing.B) {
		benchReportJob(b, svc, tn, service.ReportQuery{Level: "keyword", Granularity: "day", From: day(399), To: today}, int64(nkw)*400)
	})
	b.Run("job_csv.gz_keyword_by_day_40_days", func(b *testing.B) {
		benchReportJob(b, svc, tn, service.ReportQuery{Level: "keyword", Granularity: "day", From: day(39), To: today}, int64(nkw)*40)
	})
	b.Run("api_p99_beside_job", func(b *testing.B) {
		benchAPIBesideJob(b, svc, tn, service.ReportQuery{Level: "keyword", Granularity: "day", From: day(399), To: today}, seed.Campaigns)
	})
}

// cursorAt returns the cursor of page n (0 the first) of q.
func cursorAt(b *testing.B, svc *service.Service, tn adcamp.Tenant, q service.ReportQuery, n int) string {
	q.Limit = service.DefaultReportLimit
	q.Cursor = ""
	for range n {
		p, err := svc.PerformanceReport(admin, tn, q)
		if err != nil {
			b.Fatal(err)
		}
		q.Cursor = p.NextCursor
	}
	return q.Cursor
}

// seedReports creates the accounts and entities through svc and writes
// their days with seeder.
func seedReports(b *testing.B, svc *service.Service, seeder daySeeder, nkw int) benchSeed {
	a, err := svc.CreateAccount(admin, "Big", "")
	if err != nil {
		b.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	seed := benchSeed{Account: a.ID, Keywords: nkw}
	var keywords [][3]string
	const perGroup, perCampaign = 10, 10
	for len(keywords) < nkw {
		c, err := svc.CreateCampaign(admin, tn, adcamp.CampaignInput{Name: adcamp.Some(fmt.Sprintf("Campaign %d", len(seed.Campaigns))),
			BudgetDaily: adcamp.Some("1000"), Marketplace: adcamp.Some("US")}, false)
		if err != nil {
			b.Fatal(err)
		}
		seed.Campaigns = append(seed.Campaigns, c.ID)
		for g := 0; g < perCampaign && len(keywords) < nkw; g++ {
			grp, err := svc.CreateAdGroup(admin, tn, c.ID, adcamp.AdGroupInput{Name: adcamp.Some(fmt.Sprintf("Group %d", g)), DefaultBid: adcamp.Some("0.50")}, false)
			if err != nil {
				b.Fatal(err)
			}
			items := make([]adcamp.KeywordInput, min(perGroup, nkw-len(keywords)))
			for i := range items {
				items[i] = adcamp.KeywordInput{Text: adcamp.Some(fmt.Sprintf("keyword %d", len(keywords)+i)), MatchType: adcamp.Some(adcamp.MatchExact)}
			}
			res, err := svc.CreateKeywords(admin, tn, grp.ID, items, service.BatchOptions{Batch: true})
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range res {
				if r.Err != nil {
					b.Fatal(r.Err)
				}
				keywords = append(keywords, [3]string{r.Keyword.ID, grp.ID, c.ID})
			}
		}
	}
	if err := seeder.seed(ctx, a.ID, keywords); err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		o, err := svc.CreateAccount(admin, fmt.Sprintf("Other %d", i), "")
		if err != nil {
			b.Fatal(err)
		}
		var kws [][3]string
		for k := range 10 {
			kws = append(kws, [3]string{fmt.Sprintf("kw_%s_%02d", o.ID[4:], k), fmt.Sprintf("adg_%s_%d", o.ID[4:], k/5), "cmp_" + o.ID[4:]})
		}
		if err := seeder.seed(ctx, o.ID, kws); err != nil {
			b.Fatal(err)
		}
	}
	if err := seeder.done(ctx); err != nil {
		b.Fatal(err)
	}
	return seed
}

// reportDurations reports the median and the slowest of ds.
func reportDurations(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2])/1e6, "ms-median")
	b.ReportMetric(float64(ds[len(ds)-1])/1e6, "ms-max")
	b.Logf("n=%d median %v min %v max %v (load %s)", len(ds), ds[len(ds)/2].Round(time.Millisecond),
		ds[0].Round(time.Millisecond), ds[len(ds)-1].Round(time.Millisecond), loadAverage())
}

// benchReportJob creates a job of q and runs it, once per iteration,
// sampling the process's resident memory while it runs.
func benchReportJob(b *testing.B, svc *service.Service, tn adcamp.Tenant, q service.ReportQuery, wantRows int64) {
	var ds, cpus []time.Duration
	var growth, anonGrowth int64
	for b.Loop() {
		j, err := svc.CreateReportJob(admin, tn, q, service.FormatCSV)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		before, anonBefore := residentBytes(), residentAnonBytes()
		var peak, anonPeak atomic.Int64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				if r := residentBytes(); r > peak.Load() {
					peak.Store(r)
				}
				if r := residentAnonBytes(); r > anonPeak.Load() {
					anonPeak.Store(r)
				}
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
		}()
		t0, c0 := time.Now(), processCPU()
		ran, err := svc.RunReportJob(ctx, "bench")
		d, cpu := time.Since(t0), processCPU()-c0
		close(stop)
		wg.Wait()
		if err != nil || !ran {
			b.Fatalf("RunReportJob = %v, %v", ran, err)
		}
		got, err := svc.GetReportJob(admin, tn, j.ID)
		if err != nil {
			b.Fatal(err)
		}
		if got.Status != service.JobDone || got.Rows != wantRows {
			b.Fatalf("job %s: %d rows, want %d (%s)", got.Status, got.Rows, wantRows, got.Error)
		}
		ds = append(ds, d)
		growth = max(growth, peak.Load()-before)
		anonGrowth = max(anonGrowth, anonPeak.Load()-anonBefore)
		cpus = append(cpus, cpu)
		b.Logf("job: %d rows, %.1f MB gzipped, in %v (CPU %v); resident %d MB before, peak %d MB; of it anonymous %d MB before, peak %d MB",
			got.Rows, float64(got.Size)/1e6, d.Round(time.Millisecond), cpu.Round(time.Millisecond), before>>20, peak.Load()>>20,
			anonBefore>>20, anonPeak.Load()>>20)
	}
	reportDurations(b, ds)
	slices.Sort(cpus)
	b.ReportMetric(float64(cpus[len(cpus)/2])/1e6, "cpu-ms-median")
	b.ReportMetric(float64(growth)/(1<<20), "rss-growth-MB")
	// The resident size counts the pages of the database file that SQLite's
	// readers map, which are the kernel's page cache; the anonymous part
	// is the process's own memory.
	b.ReportMetric(float64(anonGrowth)/(1<<20), "rss-anon-growth-MB")
}

// benchAPIBesideJob measures the account API's latency (a page of
// campaigns, one campaign) for a few seconds without a report job, then
// while the job of q runs, and reports both p99s.
func benchAPIBesideJob(b *testing.B, svc *service.Service, tn adcamp.Tenant, q service.ReportQuery, campaigns []string) {
	// As adcamp serve does: the API's calls mark the foreground, which
	// the job gives way to.
	fg := &lowpriority.Foreground{}
	svc.SetReportJobs(service.ReportJobsConfig{Foreground: fg})
	defer svc.SetReportJobs(service.ReportJobsConfig{})
	call := func(i int) error {
		fg.Mark()
		defer fg.Mark()
		if i%2 == 0 {
			_, err := svc.ListCampaigns(admin, tn, adcamp.CampaignFilter{Page: 1, PageSize: 20})
			return err
		}
		_, err := svc.GetCampaign(admin, tn, campaigns[i%len(campaigns)])
		return err
	}
	measure := func(until func() bool) []time.Duration {
		var ds []time.Duration
		for i := 0; !until(); i++ {
			t0 := time.Now()
			if err := call(i); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
			time.Sleep(2 * time.Millisecond) // a client's pace, not a flood
		}
		slices.Sort(ds)
		return ds
	}
	p := func(ds []time.Duration, q float64) time.Duration { return ds[int(float64(len(ds)-1)*q)] }
	for b.Loop() {
		deadline := time.Now().Add(10 * time.Second)
		alone := measure(func() bool { return time.Now().After(deadline) })
		if _, err := svc.CreateReportJob(admin, tn, q, service.FormatCSV); err != nil {
			b.Fatal(err)
		}
		var done atomic.Bool
		go func() {
			defer done.Store(true)
			if _, err := svc.RunReportJob(ctx, "bench"); err != nil {
				b.Error(err)
			}
		}()
		// The job gives way to the calls (a tenth of a processor while
		// they come): a minute of them beside it is enough, then it
		// finishes alone.
		started := time.Now()
		beside := measure(func() bool { return done.Load() || time.Since(started) > time.Minute })
		for !done.Load() {
			time.Sleep(10 * time.Millisecond)
		}
		b.ReportMetric(float64(p(alone, 0.99))/1e6, "ms-p99-alone")
		b.ReportMetric(float64(p(beside, 0.99))/1e6, "ms-p99-beside-job")
		b.ReportMetric(float64(p(beside, 0.99))/float64(p(alone, 0.99)), "p99-ratio")
		b.Logf("API alone: %d calls, p50 %v p99 %v; beside the job: %d calls, p50 %v p99 %v (load %s)",
			len(alone), p(alone, 0.5), p(alone, 0.99), len(beside), p(beside, 0.5), p(beside, 0.99), loadAverage())
	}
}

// processCPU is the CPU time this process has used (user and system):
// the store's work on SQLite, not PostgreSQL's server.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// residentBytes is the process's resident set size (Linux).
func residentBytes() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// residentAnonBytes is the anonymous part of the process's resident set
// (RssAnon, Linux): without the mapped files.
func residentAnonBytes() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "RssAnon:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// loadAverage is the machine's load over the last minute.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}
