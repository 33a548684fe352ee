package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

const campaignColumns = `id, account_id, environment, name, budget_daily, marketplace, channel_account_id,
	start_date, end_date, status, version, created_at, updated_at, notes`

// campaignByID selects the campaign $1 of the tenant ($2, $3) through
// the primary key. Written as equalities, the tenant's columns would let
// PostgreSQL take campaigns_tenant (account_id, environment, created_at,
// id) instead, which it does on a table without statistics (new, not yet
// analyzed: a fresh installation, every run of the sitting): a lookup by id
// then read the tenant's whole range of that index (104 blocks instead of
// 3 for a tenant of 4,000 campaigns). IS NOT DISTINCT FROM is the same
// test on these NOT NULL columns, and no index serves it.
const campaignByID = `id = $1 AND account_id IS NOT DISTINCT FROM $2 AND environment IS NOT DISTINCT FROM $3`

// scanCampaign reads a row of campaignColumns into a campaignRow from a
// pool. Its text columns become one string that the campaign's fields
// share (see rowText), and the columns of adcamp's named types
// (Environment, Money, Status) are read as plain text and integers and
// converted here: pgx would convert a named type by reflection at every
// value (4 % of the server's CPU on a list). A row costs two allocations,
// its text and the campaign, where a string a column and every local whose
// address went to Scan cost fifteen (a list's page of 20: 321 allocations
// a request, 79 now; BenchmarkRequest/ListCampaigns on PostgreSQL).
func scanCampaign(r row) (*adcamp.Campaign, error) {
	cr := campaignRows.Get().(*campaignRow)
	defer campaignRows.Put(cr)
	cr.text.reset()
	cr.channel = nil
	if err := r.Scan(cr.dest...); err != nil {
		return nil, err
	}
	s := cr.text.text()
	col := func(i int) string {
		v, _ := cr.text.col(s, i)
		return v
	}
	c := &adcamp.Campaign{ID: col(campaignID), AccountID: col(campaignAccount),
		Environment: adcamp.Environment(col(campaignEnvironment)), Name: col(campaignName),
		BudgetDaily: adcamp.Money(cr.budget), Marketplace: col(campaignMarketplace), ChannelAccountID: cr.channel,
		Status: adcamp.Status(col(campaignStatus)), Notes: col(campaignNotes), Version: cr.version,
		CreatedAt: fromMicros(cr.created), UpdatedAt: fromMicros(cr.updated)}
	var err error
	if c.StartDate, err = textDate(cr.text.col(s, campaignStart)); err != nil {
		return nil, err
	}
	if c.EndDate, err = textDate(cr.text.col(s, campaignEnd)); err != nil {
		return nil, err
	}
	return c, nil
}

// campaignRow is what scanCampaign scans a row into, reused from row to
// row through campaignRows.
type campaignRow struct {
	text                              *rowText
	budget, version, created, updated int64
	channel                           *int64
	dest                              []any // campaignColumns' destinations, in order
}

// The text columns of campaignColumns, as rowText numbers them.
const (
	campaignID = iota
	campaignAccount
	campaignEnvironment
	campaignName
	campaignMarketplace
	campaignStart
	campaignEnd
	campaignStatus
	campaignNotes
	campaignTextColumns
)

var campaignRows = sync.Pool{New: func() any {
	cr := &campaignRow{text: newRowText(campaignTextColumns)}
	t := cr.text.cols
	cr.dest = []any{&t[campaignID], &t[campaignAccount], &t[campaignEnvironment], &t[campaignName], &cr.budget,
		&t[campaignMarketplace], &cr.channel, &t[campaignStart], &t[campaignEnd], &t[campaignStatus],
		&cr.version, &cr.created, &cr.updated, &t[campaignNotes]}
	return cr
}}

// nullDate stores the zero date as NULL.
func nullDate(d adcamp.Date) *string {
	if d.IsZero() {
		return nil
	}
	s := d.String()
	return &s
}

// textDate reads a stored date, a column of rowText: NULL is the zero date.
func textDate(s string, null bool) (adcamp.Date, error) {
	if null {
		return adcamp.Date{}, nil
	}
	d, err := adcamp.ParseDate(s)
	if err != nil {
		return d, fmt.Errorf("postgres: stored date %q: %w", s, err)
	}
	return d, nil
}

// insertCampaign stores a new campaign ($1 to $14, as CreateCampaign
// gives them) and the change to its tenant's count (see counts.go), as
// WITH queries of one statement (insertCampaignAlone sends them alone).
// The count's change was a row trigger's until migration 00018: a
// PL/pgSQL call per row, a fifth of the time PostgreSQL spent on a create.
const insertCampaign = `main AS (INSERT INTO campaigns (` + campaignColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)),
	counted AS (INSERT INTO campaign_count_changes (account_id, environment, status, n) VALUES ($2, $3, $10, 1))`

var insertCampaignAlone = `WITH ` + insertCampaign + ` SELECT`

func (t *tx) CreateCampaign(ctx context.Context, c *adcamp.Campaign) error {
	args := []any{c.ID, c.AccountID, string(c.Environment), c.Name, int64(c.BudgetDaily), c.Marketplace,
		c.ChannelAccountID, nullDate(c.StartDate), nullDate(c.EndDate), string(c.Status), c.Version,
		micros(c.CreatedAt), micros(c.UpdatedAt), c.Notes}
	if t.pipe != nil {
		// With the commit, inside the replay record's statement when one
		// follows (see SaveRecord).
		t.pipe.queueWith(insertCampaignAlone, insertCampaign, "", args, execErr)
		t.pipe.store(c)
		return nil
	}
	return t.later(ctx, execErr, insertCampaignAlone, args...)
}

func (t *tx) GetCampaign(ctx context.Context, tn adcamp.Tenant, id string) (*adcamp.Campaign, error) {
	if t.pipe != nil && t.pipe.unlocked {
		// The first attempt of a version-guarded write may start from the
		// copy in the cache (see campaignCache).
		if c, ok := t.cache.get(tn, id); ok {
			t.pipe.cached = true
			t.pipe.unchecked = append(t.pipe.unchecked, id)
			return &c, nil
		}
	}
	c, err := scanCampaign(t.tx.QueryRow(ctx,
		`SELECT `+campaignColumns+` FROM campaigns WHERE `+campaignByID+t.lock(),
		id, tn.AccountID, string(tn.Environment)))
	if err != nil {
		return nil, notFound(err, "campaign", id)
	}
	t.cache.put(c)
	return c, nil
}

// statusClause selects campaigns by effective status ($3 is status, $4 today).
func statusClause(status adcamp.Status) string {
	switch status {
	case "":
		return ""
	case adcamp.StatusEnded:
		return ` AND (status = $3 OR end_date < $4)`
	default:
		return ` AND status = $3 AND (end_date IS NULL OR end_date >= $4)`
	}
}

func (t *tx) ListCampaigns(ctx context.Context, tn adcamp.Tenant, q store.ListQuery) ([]*adcamp.Campaign, int64, error) {
	return campaignPage(ctx, t, tn, q, func(int) string { return campaignColumns }, nil, scanCampaign)
}

// campaignPage reads the page of tn's campaigns that q asks for, with the
// list's total in the same statement (pageWithTotal; campaignTotal alone
// for an empty page). columns(first) is the page's column list, which may
// use extra, the arguments numbered from first after the list's own.
func campaignPage[T any](ctx context.Context, t *tx, tn adcamp.Tenant, q store.ListQuery,
	columns func(first int) string, extra []any, scan func(row) (T, error)) ([]T, int64, error) {
	where := `account_id = $1 AND environment = $2` + statusClause(q.Status)
	args := []any{tn.AccountID, string(tn.Environment)}
	totalSQL := campaignCount
	if q.Status != "" {
		args = append(args, string(q.Status), q.Today.String())
		totalSQL = campaignStatusCount
	}
	first := len(args) + 1
	// A page of all of a tenant's campaigns is a prepared statement, whose
	// generic plan walks campaigns_tenant, the index in the page's order,
	// as the plan for any tenant's values would (TestListsReadAPage): it
	// saves parsing and planning the statement and its total at every
	// list (0.4 and 0.3 ms of PostgreSQL's time in the sitting, by its log
	// of durations). A page by status is planned for its values: the
	// generic plan of those may take campaigns_tenant and filter.
	pageArgs := append(args, extra...)
	if q.Status != "" {
		pageArgs = planned(pageArgs)
	}
	items, total, found, err := pageWithTotal(ctx, t, totalSQL, "campaigns", columns(first), where, pageArgs, q, scan)
	if err != nil || found {
		return items, total, err
	}
	// An empty page: past the end, or no campaigns at all.
	total, err = t.campaignTotal(ctx, tn, q)
	return nil, total, err
}

// updateCampaign stores a campaign's new state (the arguments of
// UpdateCampaign), if its version is the one before.
const updateCampaign = `UPDATE campaigns SET name = $4, budget_daily = $5, start_date = $6, end_date = $7,
	status = $8, version = $9, updated_at = $10, notes = $11
	WHERE ` + campaignByID + ` AND version = $9 - 1`

// guardedUpdate is updateCampaign if the status and channel account are
// still $12 and $13 as well (the two columns that change without a new
// version: see campaignCache), as the WITH query main that returns 1 for
// the row it changed; versionGuard raises AD002 (migration 00017) when it
// changed none.
const (
	guardedUpdate = `main AS (` + updateCampaign + ` AND status = $12
	AND channel_account_id IS NOT DISTINCT FROM $13 RETURNING 1)`
	versionGuard          = `adcamp_version_moved()`
	guardedUpdateCampaign = `WITH ` + guardedUpdate + `
	SELECT CASE WHEN NOT EXISTS (SELECT FROM main) THEN ` + versionGuard + ` END`
)

// UpdateCampaign writes every mutable field: PostgreSQL leaves an index
// alone when its columns keep their values (a HOT update). The service has
// read the row in this transaction, and the statement goes with the
// commit: locked as read, the version matches; read without a lock or
// taken from the cache (store.WithVersionGuards), the statement checks
// that the version, status and channel account are still those of prev.
func (t *tx) UpdateCampaign(ctx context.Context, c, prev *adcamp.Campaign) error {
	args := []any{c.ID, c.AccountID, string(c.Environment), c.Name, int64(c.BudgetDaily), nullDate(c.StartDate),
		nullDate(c.EndDate), string(c.Status), c.Version, micros(c.UpdatedAt), c.Notes}
	if t.pipe != nil && t.pipe.unlocked && prev != nil {
		// Read without a lock, or from the cache: the statement fails
		// (AD002, migration 00017) if the row moved since, so that the
		// rest of the batch, the commit included, is skipped. It goes
		// inside the replay record's statement when one follows (see
		// SaveRecord).
		t.pipe.queueWith(guardedUpdateCampaign, guardedUpdate, versionGuard,
			append(args, string(prev.Status), prev.ChannelAccountID), versionMoved)
		t.pipe.unchecked = slices.DeleteFunc(t.pipe.unchecked, func(id string) bool { return id == c.ID })
		t.pipe.store(c)
		return nil
	}
	if t.pipe != nil && t.pipe.unlocked {
		return errNeedsLocks
	}
	if t.pipe != nil {
		t.pipe.store(c)
	}
	return t.later(ctx, func(tag pgconn.CommandTag, err error) error { return affectedVersion(tag, err, "campaign", c.ID) },
		updateCampaign, args...)
}

// versionMoved turns the failure of migration 00017's function into
// errVersionMoved.
func versionMoved(_ pgconn.CommandTag, err error) error {
	var e *pgconn.PgError
	if errors.As(err, &e) && e.Code == "AD002" {
		return errVersionMoved
	}
	return err
}

func (t *tx) DeleteCampaign(ctx context.Context, tn adcamp.Tenant, id string) error {
	t.cache.remove(id)
	tag, err := t.tx.Exec(ctx,
		`DELETE FROM campaigns WHERE `+campaignByID,
		id, tn.AccountID, string(tn.Environment))
	return affectedOne(tag, err, "campaign", id)
}
