package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// BenchmarkHistoryScale reads the history of one entity, one campaign,
// one actor and one tenant (first page and a page deep in it) with
// 100,000 or (ADCAMP_BENCH_SCALE=1) 1,000,000 and 10,000,000 change
// records in the table, and writes one record: none of it may grow with
// the table. A size's pattern is anchored (records=1000000 alone would
// match 10000000 too):
//
//	go test -run '^$' -bench BenchmarkHistoryScale ./internal/sqlite/
//	ADCAMP_BENCH_SCALE=1 go test -run '^$' -bench 'BenchmarkHistoryScale/records=1000000$' -benchtime 2000x ./internal/sqlite/
//
// The seeded file is kept in os.TempDir() as
// adcamp-bench-history-<schema>-<size>.db (about 0.6 GB for 1,000,000,
// 6 GB for 10,000,000, whose seeding took over half an hour on a shared
// 2-core machine).
// The records: 1,000 accounts in two environments, entities of ten
// records each; the measured tenant holds a tenth of all, its measured
// campaign 100 records (and keywords under it), one keyword 20.
func BenchmarkHistoryScale(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			if n > 100_000 && os.Getenv(scaleEnv) == "" {
				b.Skipf("set %s=1 to run with %d records (the first run seeds them: many minutes)", scaleEnv, n)
			}
			db := openHistoryScale(b, n)
			ctx := context.Background()
			tn := []adcamp.Environment{adcamp.Production}
			base := store.ChangeQuery{AccountID: "acc_measured", Environments: tn, Limit: 51}
			// A cursor in the middle of the measured tenant's records.
			var mid string
			q := base
			q.Before, q.Limit = adcamp.ChangeIDBound(historyStart.Add(time.Duration(n/2)*time.Millisecond)), 1
			db.ReadOne(ctx, func(tx store.Tx) error {
				cs, err := tx.ListChanges(ctx, q)
				if len(cs) == 1 {
					mid = cs[0].ID
				}
				return err
			})
			for _, c := range []struct {
				name string
				edit func(*store.ChangeQuery)
				want int
			}{
				{"entity", func(q *store.ChangeQuery) { q.EntityID = "kw_measured" }, 20},
				{"campaign", func(q *store.ChangeQuery) { q.CampaignID = "cmp_measured" }, 51},
				{"ad group", func(q *store.ChangeQuery) { q.AdGroupID = "adg_measured" }, 51},
				{"actor", func(q *store.ChangeQuery) { q.ActorType, q.ActorID = adcamp.ActorAPIKey, "ak_measured" }, 51},
				{"entity type", func(q *store.ChangeQuery) { q.EntityType = adcamp.EntityKeyword }, 51},
				{"tenant", func(q *store.ChangeQuery) {}, 51},
				{"tenant and members", func(q *store.ChangeQuery) { q.Environments = []adcamp.Environment{adcamp.Production, ""} }, 51},
				{"tenant deep page", func(q *store.ChangeQuery) { q.Before = mid }, 51},
			} {
				q := base
				c.edit(&q)
				b.Run("ListChanges/"+c.name, func(b *testing.B) {
					for b.Loop() {
						var got int
						err := db.ReadOne(ctx, func(tx store.Tx) error {
							cs, err := tx.ListChanges(ctx, q)
							got = len(cs)
							return err
						})
						if err != nil || got != c.want {
							b.Fatalf("ListChanges(%s) = %d records, %v; want %d", c.name, got, err, c.want)
						}
					}
				})
			}
			b.Run("AddChanges/one", func(b *testing.B) {
				for b.Loop() {
					id, at := adcamp.NewChangeID(time.Now())
					c := &adcamp.Change{ID: id, OccurredAt: at, AccountID: "acc_measured", Environment: adcamp.Production,
						EntityType: adcamp.EntityCampaign, EntityID: "cmp_new", CampaignID: "cmp_new", Operation: adcamp.OpUpdate,
						Actor: adcamp.Actor{Type: adcamp.ActorAPIKey, ID: "ak_measured"}, RequestID: "req_x", TransactionID: "txn_x"}
					if err := db.Write(ctx, func(tx store.Tx) error { return tx.AddChanges(ctx, []*adcamp.Change{c}) }); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// historyStart is the time of the first seeded record; each next one is
// a millisecond later.
var historyStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// openHistoryScale opens a store on a copy of the seeded history of n
// records, seeding it first if it is not cached.
func openHistoryScale(b *testing.B, n int) *sqlite.DB {
	b.Helper()
	dir := b.TempDir()
	st := openScaleStore(b, dir)
	raw := openFile(b, dir, "_pragma=synchronous(OFF)&_pragma=cache_size(-262144)")
	raw.SetMaxOpenConns(1)
	cache := filepath.Join(os.TempDir(), fmt.Sprintf("adcamp-bench-history-%s-%d.db", scaleKey(b, raw), n))
	if _, err := os.Stat(cache); err != nil {
		start := time.Now()
		seedHistory(b, raw, n)
		b.Logf("seeded %d change records in %v", n, time.Since(start).Round(time.Millisecond))
		st.Close()
		if _, err := raw.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			b.Fatal(err)
		}
		raw.Close()
		tmp := fmt.Sprintf("%s.%d.tmp", cache, os.Getpid())
		copyFile(b, filepath.Join(dir, sqlite.FileName), tmp)
		if err := os.Rename(tmp, cache); err != nil {
			b.Fatal(err)
		}
	} else {
		st.Close()
		raw.Close()
		path := filepath.Join(dir, sqlite.FileName)
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
		copyFile(b, cache, path)
	}
	db := openScaleStore(b, dir)
	b.Cleanup(func() { db.Close() })
	return db
}

// seedHistory writes n records, oldest first, 500 to an INSERT and
// 50,000 to a transaction.
func seedHistory(b *testing.B, raw *sql.DB, n int) {
	b.Helper()
	const perInsert, perTx = 500, 50_000
	tx, err := raw.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i += perInsert {
		var sb strings.Builder
		sb.WriteString(`INSERT INTO changes (id, occurred_at, account_id, environment, entity_type, entity_id, campaign_id,
			ad_group_id, operation, changes, actor_type, actor_id, request_id, idempotency_key, transaction_id) VALUES `)
		args := make([]any, 0, perInsert*15)
		for j := i; j < min(i+perInsert, n); j++ {
			if j > i {
				sb.WriteByte(',')
			}
			sb.WriteString(`(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
			args = append(args, historyRecord(j, n)...)
		}
		if _, err := tx.Exec(sb.String(), args...); err != nil {
			b.Fatalf("seed: %v", err)
		}
		if (i+perInsert)%perTx == 0 {
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			if tx, err = raw.Begin(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// historyRecord is the values of seeded record j of n (see
// BenchmarkHistoryScale).
func historyRecord(j, n int) []any {
	at := historyStart.Add(time.Duration(j) * time.Millisecond)
	var id ulid.ULID
	id.SetTime(ulid.Timestamp(at))
	id.SetEntropy([]byte{0, 0, byte(j >> 56), byte(j >> 48), byte(j >> 40), byte(j >> 32), byte(j >> 24), byte(j >> 16), byte(j >> 8), byte(j)})
	account, env := fmt.Sprintf("acc_%04d", j%1000), string(adcamp.Production)
	if (j/1000)%2 == 1 {
		env = string(adcamp.Sandbox)
	}
	measured := j%10 == 0
	if measured {
		account, env = "acc_measured", string(adcamp.Production)
	}
	types := []adcamp.EntityType{adcamp.EntityCampaign, adcamp.EntityAdGroup, adcamp.EntityKeyword, adcamp.EntityAPIKey, adcamp.EntityMember}
	typ := types[(j/10)%5]
	entity, campaign, adGroup := fmt.Sprintf("x_%09d", j/10), any(nil), any(nil)
	switch {
	case j%(n/20) == 0:
		typ, entity, campaign, adGroup = adcamp.EntityKeyword, "kw_measured", "cmp_measured", "adg_measured"
	case j%(n/100) == 0 && (j/(n/100))%2 == 0:
		typ, entity, campaign, adGroup = adcamp.EntityKeyword, fmt.Sprintf("kw_%09d", j), "cmp_measured", "adg_measured"
	case j%(n/100) == 0:
		typ, entity, campaign = adcamp.EntityCampaign, "cmp_measured", "cmp_measured"
	case typ == adcamp.EntityCampaign:
		campaign = entity
	case typ == adcamp.EntityAdGroup:
		campaign, adGroup = fmt.Sprintf("c_%09d", j/100), entity
	case typ == adcamp.EntityKeyword:
		campaign, adGroup = fmt.Sprintf("c_%09d", j/100), fmt.Sprintf("g_%09d", j/50)
	case typ == adcamp.EntityMember:
		env = ""
	}
	actorType, actorID := adcamp.ActorUser, fmt.Sprintf("usr_%04d", j%997)
	if measured && j%20 == 0 {
		actorType, actorID = adcamp.ActorAPIKey, "ak_measured"
	}
	return []any{"chg_" + strings.ToLower(id.String()), at.UnixMicro(), account, env, string(typ), entity, campaign, adGroup,
		string(adcamp.OpUpdate), `{"budget_daily":{"old":"25.00","new":"40.00"}}`, string(actorType), actorID,
		fmt.Sprintf("req_%024d", j), "", fmt.Sprintf("txn_%024d", j)}
}
