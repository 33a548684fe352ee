package sqlite_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// The scale benchmark measures the hot store operations on one tenant
// holding 100 (small data: a full first page), 1,000 or 1,000,000
// campaigns, with scaleOthers accounts of a few campaigns each beside it:
// their cost must not grow with the data.
//
//	go test -run '^$' -bench BenchmarkScale ./internal/sqlite/            # 100 and 1,000
//	ADCAMP_BENCH_SCALE=1 go test -run '^$' -bench BenchmarkScale ./internal/sqlite/
//
// Seeding 1,000,000 campaigns takes a while, so each size's seeded
// database is kept in os.TempDir() as adcamp-bench-scale-<key>-<size>.db,
// where key is a hash of the migrated schema and scaleSeedVersion: a
// changed schema or seed builds a new file, and an old one is never reused.
// Every run works on a copy of it. Remove the files
// (rm "${TMPDIR:-/tmp}"/adcamp-bench-scale-*) to reclaim the space, about
// 0.5 GB for 1,000,000 campaigns.
const (
	scaleOthers      = 10_000 // accounts beside the measured one
	scaleSample      = 4096   // campaigns looked up and updated, spread over the tenant
	scaleSeedVersion = 1      // bump when seedScale changes what it stores
	scaleInsertRows  = 500    // rows of one multi-row INSERT (13 variables each)
	scaleTxRows      = 50_000 // rows of one seeding transaction
	scaleEnv         = "ADCAMP_BENCH_SCALE"
)

var scaleSizes = []int{100, 1_000, 1_000_000}

// BenchmarkScale runs each operation as the service does, one ReadOne or
// Write per call, on each size, after the sweep the service makes when it
// starts (storetest.EndDueCampaigns). Reads come first and create last, so that
// the created rows change no other figure.
func BenchmarkScale(b *testing.B) {
	for _, n := range scaleSizes {
		b.Run(fmt.Sprintf("campaigns=%d", n), func(b *testing.B) {
			if n >= 1_000_000 && os.Getenv(scaleEnv) == "" {
				b.Skipf("set %s=1 to run with %d campaigns (the first run seeds them, a minute or more)", scaleEnv, n)
			}
			storetest.BenchScale(b, openScale(b, n, scaleSample))
		})
	}
}

// openScale opens a store with opts on a copy of the seeded database of
// size n, seeding it first if it is not cached, with a sample of about
// sample of the measured tenant's campaigns.
func openScale(b *testing.B, n, sample int, opts ...sqlite.Option) storetest.Scale {
	b.Helper()
	dir := b.TempDir()
	st := openScaleStore(b, dir) // creates the schema, to key the cache
	raw := openFile(b, dir, "_pragma=synchronous(OFF)&_pragma=cache_size(-262144)")
	raw.SetMaxOpenConns(1)
	cache := filepath.Join(os.TempDir(), fmt.Sprintf("adcamp-bench-scale-%s-%d.db", scaleKey(b, raw), n))
	_, err := os.Stat(cache)
	seed := err != nil
	if seed {
		start := time.Now()
		seedScale(b, raw, n)
		b.Logf("seeded %d campaigns and %d other accounts in %v", n, scaleOthers, time.Since(start).Round(time.Millisecond))
	}
	// With every connection closed, the file holds everything (the last
	// close checkpoints the WAL and removes it).
	st.Close()
	if _, err := raw.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatalf("checkpoint: %v", err)
	}
	raw.Close()
	path := filepath.Join(dir, sqlite.FileName)
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		b.Fatalf("%s-wal holds %d bytes after closing every connection", path, fi.Size())
	}
	if seed {
		// Under a name of its own first: another process may be seeding
		// the same size, and either's file will do.
		tmp := fmt.Sprintf("%s.%d.tmp", cache, os.Getpid())
		copyFile(b, path, tmp)
		if err := os.Rename(tmp, cache); err != nil {
			b.Fatal(err)
		}
	} else {
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
		copyFile(b, cache, path)
	}
	db := openScaleStore(b, dir, opts...)
	b.Cleanup(func() { db.Close() })
	storetest.EndDueCampaigns(b, db, adcamp.DateOf(time.Now()), 1000)
	s := storetest.Scale{DB: db, N: n}
	s.Tenant, s.Sample = scaleTenant(b, dir, n, sample)
	return s
}

func openScaleStore(b *testing.B, dir string, opts ...sqlite.Option) *sqlite.DB {
	b.Helper()
	st, err := sqlite.Open(context.Background(), dir, opts...)
	if err != nil {
		b.Fatalf("sqlite.Open: %v", err)
	}
	return st
}

// scaleKey names the seeded data of the schema db has.
func scaleKey(b *testing.B, db *sql.DB) string {
	b.Helper()
	rows, err := db.Query(`SELECT type, name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name`)
	if err != nil {
		b.Fatalf("read schema: %v", err)
	}
	defer rows.Close()
	h := sha256.New()
	fmt.Fprintf(h, "seed %d, %d others, span %v\n", scaleSeedVersion, scaleOthers, storetest.ScaleSpan)
	for rows.Next() {
		var typ, name, text string
		if err := rows.Scan(&typ, &name, &text); err != nil {
			b.Fatalf("read schema: %v", err)
		}
		fmt.Fprintf(h, "%s %s %s\n", typ, name, text)
	}
	if err := rows.Err(); err != nil {
		b.Fatalf("read schema: %v", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// scaleTenant returns the measured tenant (its account is named
// "Measured") and a sample of about sample of its campaign ids, spread
// evenly over creation time, in random order.
func scaleTenant(b *testing.B, dir string, n, sample int) (adcamp.Tenant, []string) {
	b.Helper()
	db := openFile(b, dir, "_pragma=query_only(1)")
	defer db.Close()
	tn := adcamp.Tenant{Environment: adcamp.Production}
	if err := db.QueryRow(`SELECT id FROM accounts WHERE name = 'Measured'`).Scan(&tn.AccountID); err != nil {
		b.Fatalf("find the measured account: %v", err)
	}
	rows, err := db.Query(`SELECT id FROM campaigns WHERE account_id = ? AND environment = ?
		ORDER BY created_at DESC, id DESC`, tn.AccountID, tn.Environment)
	if err != nil {
		b.Fatalf("sample campaigns: %v", err)
	}
	defer rows.Close()
	step := max(1, n/sample)
	var ids []string
	for i := 0; rows.Next(); i++ {
		var id string
		if err := rows.Scan(&id); err != nil {
			b.Fatalf("sample campaigns: %v", err)
		}
		if i%step == 0 {
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil || len(ids) == 0 {
		b.Fatalf("sample campaigns: %d ids, error %v", len(ids), err)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return tn, ids
}

// seedScale stores the measured account with n campaigns and scaleOthers
// accounts of 1 to 5 campaigns each, with plain multi-row INSERTs on db
// (one connection) in large transactions. The triggers on campaigns keep
// campaign_counts right. Campaigns are stored in creation order, the
// tenants' interleaved, created evenly over storetest.ScaleSpan up to now; ids are
// the service's (adcamp.NewID at the creation time). The measured tenant's
// campaigns are 88% active, 10% paused and 2% ended, and one in ten has
// an end date 30 days after its creation, most of them past.
func seedScale(b *testing.B, db *sql.DB, n int) {
	b.Helper()
	rnd := rand.New(rand.NewPCG(uint64(n), scaleSeedVersion))
	now := time.Now().UTC()
	start := now.Add(-storetest.ScaleSpan)

	accounts := make([]string, scaleOthers)
	var owners []int // the account of each other campaign, shuffled
	for i := range accounts {
		accounts[i] = adcamp.NewID(adcamp.PrefixAccount, start)
		for range 1 + rnd.IntN(5) {
			owners = append(owners, i)
		}
	}
	rnd.Shuffle(len(owners), func(i, j int) { owners[i], owners[j] = owners[j], owners[i] })
	measured := adcamp.NewID(adcamp.PrefixAccount, start)
	ins := newScaleInserter(b, db, "accounts", "id, name, email, created_at")
	ins.add(measured, "Measured", "", start.UnixMicro())
	for i, id := range accounts {
		ins.add(id, "Other "+strconv.Itoa(i), "", start.UnixMicro())
	}
	ins.close()

	ins = newScaleInserter(b, db, "campaigns", `id, account_id, environment, name, budget_daily, marketplace,
		channel_account_id, start_date, end_date, status, version, created_at, updated_at`)
	order := storetest.NewScaleOrder(rnd, start, n, len(owners))
	for {
		created, measuredOne, i, ok := order.Next()
		if !ok {
			break
		}
		account := measured
		if !measuredOne {
			account = accounts[owners[i]]
		}
		status, sd, ed := storetest.ScaleMix(i, created)
		var startDate, endDate any
		if !ed.IsZero() {
			startDate, endDate = sd.String(), ed.String()
		}
		us := created.UnixMicro()
		ins.add(adcamp.NewID(adcamp.PrefixCampaign, created), account, string(adcamp.Production),
			"Campaign "+strconv.Itoa(i), 2500+i%100*100, "US", nil, startDate, endDate, status, 1, us, us)
	}
	ins.close()
}

// scaleInserter stores rows with a prepared multi-row INSERT, committing
// every scaleTxRows rows.
type scaleInserter struct {
	b       *testing.B
	db      *sql.DB
	table   string
	columns string
	width   int // columns per row
	full    *sql.Stmt
	tx      *sql.Tx
	args    []any
	inTx    int // rows in the open transaction
}

func newScaleInserter(b *testing.B, db *sql.DB, table, columns string) *scaleInserter {
	ins := &scaleInserter{b: b, db: db, table: table, columns: columns, width: strings.Count(columns, ",") + 1}
	ins.full = ins.prepare(scaleInsertRows)
	return ins
}

// prepare prepares the INSERT of rows rows.
func (ins *scaleInserter) prepare(rows int) *sql.Stmt {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", ins.width), ",") + ")"
	q := `INSERT INTO ` + ins.table + ` (` + ins.columns + `) VALUES ` +
		strings.TrimSuffix(strings.Repeat(row+",", rows), ",")
	s, err := ins.db.Prepare(q)
	if err != nil {
		ins.b.Fatalf("prepare INSERT INTO %s: %v", ins.table, err)
	}
	return s
}

func (ins *scaleInserter) add(values ...any) {
	ins.args = append(ins.args, values...)
	if len(ins.args) == scaleInsertRows*ins.width {
		ins.flush(ins.full)
	}
}

// flush inserts the pending rows with s, or with a statement of their
// number if s is nil.
func (ins *scaleInserter) flush(s *sql.Stmt) {
	rows := len(ins.args) / ins.width
	if rows == 0 {
		return
	}
	if s == nil {
		// Prepared before the transaction: the pool's one connection is
		// the transaction's once it begins.
		s = ins.prepare(rows)
		defer s.Close()
	}
	if ins.tx == nil {
		tx, err := ins.db.Begin()
		if err != nil {
			ins.b.Fatalf("begin: %v", err)
		}
		ins.tx = tx
	}
	if _, err := ins.tx.Stmt(s).Exec(ins.args...); err != nil {
		ins.b.Fatalf("INSERT INTO %s: %v", ins.table, err)
	}
	ins.args = ins.args[:0]
	if ins.inTx += rows; ins.inTx >= scaleTxRows {
		ins.commit()
	}
}

func (ins *scaleInserter) commit() {
	if ins.tx == nil {
		return
	}
	if err := ins.tx.Commit(); err != nil {
		ins.b.Fatalf("commit: %v", err)
	}
	ins.tx, ins.inTx = nil, 0
}

// close stores the rows still pending.
func (ins *scaleInserter) close() {
	ins.commit()
	ins.flush(nil)
	ins.commit()
	ins.full.Close()
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	src, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		b.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
}
