package postgres

import (
	"context"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Campaign totals are kept per tenant and stored status (migration 00008):
// a counter in campaign_counts plus the changes that triggers append to
// campaign_count_changes, which foldLoop folds into the counters. The
// totals of ad groups per campaign and of keywords per ad group are kept
// alike (migration 00009).

// foldEvery is how often the pending changes are folded into the
// counters: a list's total adds up those of its tenant, at most a quarter
// second of its writes.
const foldEvery = 250 * time.Millisecond

// vacuumEvery is how often the tables of pending changes are vacuumed
// (every so many folds). They are queues: a row lives until the next
// fold, a few hundred thousand rows an hour under load. Autovacuum visits
// a table at most once a minute (autovacuum_naptime), or never where it is
// off; meanwhile their indexes fill with the entries of deleted rows,
// which every list's total walks through: 20 pages read for a handful of
// pending rows at the end of a sitting, where a vacuumed index has 1.
const vacuumEvery = 8

func (db *DB) foldLoop(every time.Duration) {
	defer close(db.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-db.stop:
			return
		case <-t.C:
			// An error (the database busy or gone) leaves the changes
			// pending, still counted, until a later tick.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if err := db.foldCounts(ctx); err == nil && n%vacuumEvery == 0 {
				_ = db.vacuumCountChanges(ctx)
			}
			cancel()
		}
	}
}

// vacuumCountChanges vacuums the tables of pending changes. VACUUM takes
// no lock that writes or reads wait for, and on tables this small it
// takes a millisecond or two. A role that does not own them gets a
// warning, and the tables are left to autovacuum.
func (db *DB) vacuumCountChanges(ctx context.Context) error {
	_, err := db.pool.Exec(ctx, `VACUUM campaign_count_changes, ad_group_count_changes, keyword_count_changes`)
	return err
}

// foldCounts moves the pending changes into the counters: for each kind
// of counter one statement, so that a snapshot sees a change either
// pending or folded, never both or neither; then it removes the counters
// of ad groups and keywords that fell to zero (their parent, or all of its
// children of that kind, gone). It runs at READ COMMITTED, outside the
// serializable writes: they only ever add changes, so nothing of theirs
// conflicts with it. Two processes folding at once take turns on the rows,
// and a change is deleted, hence folded, by one of them only.
func (db *DB) foldCounts(ctx context.Context) error {
	// Without arguments pgx sends the statements as one simple query: one
	// round trip, one transaction.
	_, err := db.pool.Exec(ctx, `WITH folded AS (
			DELETE FROM campaign_count_changes RETURNING account_id, environment, status, n)
		INSERT INTO campaign_counts AS c (account_id, environment, status, n)
		SELECT account_id, environment, status, sum(n) FROM folded GROUP BY account_id, environment, status
		ON CONFLICT (account_id, environment, status) DO UPDATE SET n = c.n + excluded.n;

		WITH folded AS (
			DELETE FROM ad_group_count_changes RETURNING campaign_id, status, account_id, environment, n)
		INSERT INTO ad_group_counts AS c (campaign_id, status, account_id, environment, n)
		SELECT campaign_id, status, account_id, environment, sum(n) FROM folded
		GROUP BY campaign_id, status, account_id, environment
		ON CONFLICT (campaign_id, status) DO UPDATE SET n = c.n + excluded.n;

		WITH folded AS (
			DELETE FROM keyword_count_changes RETURNING ad_group_id, status, match_type, account_id, environment, n)
		INSERT INTO keyword_counts AS c (ad_group_id, status, match_type, account_id, environment, n)
		SELECT ad_group_id, status, match_type, account_id, environment, sum(n) FROM folded
		GROUP BY ad_group_id, status, match_type, account_id, environment
		ON CONFLICT (ad_group_id, status, match_type) DO UPDATE SET n = c.n + excluded.n;

		DELETE FROM ad_group_counts WHERE n = 0;
		DELETE FROM keyword_counts WHERE n = 0`)
	return err
}

// keptTotal is the total of a list of ad groups or keywords matching
// where: the counters in counts plus the pending changes, both tables with
// the columns that where compares (migration 00009).
func keptTotal(counts, changes, where string) string {
	return `SELECT ((SELECT coalesce(sum(n), 0) FROM ` + counts + ` WHERE ` + where + `)
		+ (SELECT coalesce(sum(n), 0) FROM ` + changes + ` WHERE ` + where + `))::bigint`
}

// campaignCount is a tenant's number of campaigns ($1 account, $2
// environment): its counters and its pending changes.
const campaignCount = `SELECT ((SELECT coalesce(sum(n), 0) FROM campaign_counts
		WHERE account_id = $1 AND environment = $2)
	+ (SELECT coalesce(sum(n), 0) FROM campaign_count_changes
		WHERE account_id = $1 AND environment = $2))::bigint`

// campaignStatusCount is a tenant's number of campaigns with the stored
// status $3, less those of them past their end date on $4 (not stored as
// ended yet, they read as ended), or for ended, plus all such campaigns
// of the tenant.
//
// The campaigns past their end date are found through
// campaigns_tenant_due, which holds only those not stored as ended: a few
// seconds' worth, as the service stores ended for them (DueCampaigns and
// SetCampaignsEnded). The end date is bounded as a row with the tenant,
// which only that index can take: with plain end_date < $4, PostgreSQL
// may take campaigns_due, every tenant's, and read the row of each entry
// there: thousands after a sweep of many tenants, until VACUUM removes
// the versions it left (a test's seeding read 1,078 blocks a list).
const campaignStatusCount = `WITH due AS (
		SELECT count(*) AS n FROM campaigns
		WHERE (account_id, environment, end_date) < ($1, $2, $4) AND status <> 'ended' AND end_date IS NOT NULL
		  AND account_id = $1 AND environment = $2 AND ($3 = 'ended' OR status = $3))
	SELECT ((SELECT coalesce(sum(n), 0) FROM campaign_counts
			WHERE account_id = $1 AND environment = $2 AND status = $3)
		+ (SELECT coalesce(sum(n), 0) FROM campaign_count_changes
			WHERE account_id = $1 AND environment = $2 AND status = $3)
		+ CASE WHEN $3 = 'ended' THEN 1 ELSE -1 END * (SELECT n FROM due))::bigint`

// campaignTotal is a list's total.
func (t *tx) campaignTotal(ctx context.Context, tn adcamp.Tenant, q store.ListQuery) (int64, error) {
	var total int64
	if q.Status == "" {
		err := t.tx.QueryRow(ctx, campaignCount, tn.AccountID, string(tn.Environment)).Scan(&total)
		return total, err
	}
	err := t.tx.QueryRow(ctx, campaignStatusCount, tn.AccountID, string(tn.Environment), string(q.Status), q.Today.String()).Scan(&total)
	return total, err
}
