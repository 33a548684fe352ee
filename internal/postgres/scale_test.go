package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// BenchmarkScale is internal/sqlite's scale benchmark on PostgreSQL: the
// hot store operations on one tenant holding 100, 1,000 or 1,000,000
// campaigns, beside scaleOthers accounts of one to five campaigns each,
// seeded alike (interleaved in time, one in ten with an end date, most of
// those past and swept to ended). Each size is seeded into a fresh schema,
// dropped afterwards (a million campaigns take a few minutes: set
// ADCAMP_BENCH_SCALE=1 for that size).
//
//	ADCAMP_TEST_POSTGRES_URL=... go test -run '^$' -bench BenchmarkScale ./internal/postgres/
func BenchmarkScale(b *testing.B) {
	pgtest.BaseURL(b)
	for _, n := range []int{100, 1_000, 1_000_000} {
		b.Run(fmt.Sprintf("campaigns=%d", n), func(b *testing.B) {
			if n >= 1_000_000 && os.Getenv("ADCAMP_BENCH_SCALE") == "" {
				b.Skipf("set ADCAMP_BENCH_SCALE=1 to run with %d campaigns (seeding takes minutes)", n)
			}
			f, _ := seedScale(b, n)
			storetest.BenchScale(b, f)
		})
	}
}

const (
	scaleOthers = 10_000
	scaleSample = 4096
)

// seedScale loads the data into a new schema with COPY (the counting triggers run as for any
// insert), folds the counts, sweeps the campaigns past their end date as
// the service does when it starts, and analyzes the tables.
func seedScale(b testing.TB, n int) (storetest.Scale, *pgtest.Schema) {
	ctx := context.Background()
	s := pgtest.NewSchema(b)
	db, err := Open(ctx, s.URL)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	conn, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)

	began := time.Now()
	rnd := rand.New(rand.NewPCG(uint64(n), 1))
	now := time.Now().UTC()
	start := now.Add(-storetest.ScaleSpan)
	measured := adcamp.NewID(adcamp.PrefixAccount, start)
	accounts := [][]any{{measured, "Measured", "", start.UnixMicro()}}
	var owners []string // the account of each other campaign, shuffled
	for i := range scaleOthers {
		id := adcamp.NewID(adcamp.PrefixAccount, start)
		accounts = append(accounts, []any{id, "Other " + strconv.Itoa(i), "", start.UnixMicro()})
		for range 1 + rnd.IntN(5) {
			owners = append(owners, id)
		}
	}
	rnd.Shuffle(len(owners), func(i, j int) { owners[i], owners[j] = owners[j], owners[i] })
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"accounts"}, []string{"id", "name", "email", "created_at"},
		pgx.CopyFromRows(accounts)); err != nil {
		b.Fatalf("copy accounts: %v", err)
	}

	today := adcamp.DateOf(now)
	order := storetest.NewScaleOrder(rnd, start, n, len(owners))
	rows := pgx.CopyFromFunc(func() ([]any, error) {
		created, measuredOne, i, ok := order.Next()
		if !ok {
			return nil, nil
		}
		account := measured
		if !measuredOne {
			account = owners[i]
		}
		status, sd, ed := storetest.ScaleMix(i, created)
		if !ed.IsZero() && ed.Before(today) {
			// Stored as the sweep leaves it (EndDueCampaigns below): a
			// sweep of the seeded rows would leave their old versions,
			// and campaigns_tenant_due's entries, to a VACUUM that other
			// tests' open snapshots keep from removing them; a list's
			// total would read them all (TestListsReadAPage).
			status = adcamp.StatusEnded
		}
		startDate, endDate := nullDate(sd), nullDate(ed)
		us := created.UnixMicro()
		return []any{adcamp.NewID(adcamp.PrefixCampaign, created), account, string(adcamp.Production),
			"Campaign " + strconv.Itoa(i), int64(2500 + i%100*100), "US", nil, startDate, endDate, status, int64(1), us, us}, nil
	})
	cols := []string{"id", "account_id", "environment", "name", "budget_daily", "marketplace", "channel_account_id",
		"start_date", "end_date", "status", "version", "created_at", "updated_at"}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"campaigns"}, cols, rows); err != nil {
		b.Fatalf("copy campaigns: %v", err)
	}
	storetest.EndDueCampaigns(b, db, today, 10_000)
	if err := db.foldCounts(ctx); err != nil {
		b.Fatalf("foldCounts: %v", err)
	}
	for _, table := range []string{"accounts", "campaigns", "campaign_counts", "campaign_count_changes"} {
		if _, err := conn.Exec(ctx, `VACUUM ANALYZE `+table); err != nil {
			b.Fatalf("vacuum %s: %v", table, err)
		}
	}
	b.Logf("seeded %d campaigns and %d other accounts in %v", n, scaleOthers, time.Since(began).Round(time.Millisecond))

	f := storetest.Scale{DB: db, Tenant: adcamp.Tenant{AccountID: measured, Environment: adcamp.Production}, N: n}
	ids, err := conn.Query(ctx, `SELECT id FROM campaigns WHERE account_id = $1 ORDER BY created_at DESC, id DESC`, measured)
	if err != nil {
		b.Fatal(err)
	}
	every := max(1, n/scaleSample)
	for i := 0; ids.Next(); i++ {
		var id string
		if err := ids.Scan(&id); err != nil {
			b.Fatal(err)
		}
		if i%every == 0 {
			f.Sample = append(f.Sample, id)
		}
	}
	if err := ids.Err(); err != nil || len(f.Sample) == 0 {
		b.Fatalf("sample campaigns: %d ids, error %v", len(f.Sample), err)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(f.Sample), func(i, j int) { f.Sample[i], f.Sample[j] = f.Sample[j], f.Sample[i] })
	return f, s
}
