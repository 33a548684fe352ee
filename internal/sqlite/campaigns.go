package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

const campaignColumns = `id, account_id, environment, name, budget_daily, marketplace, channel_account_id,
	start_date, end_date, status, version, created_at, updated_at, notes`

// campaignSelect is what reads select: the columns but the tenant's, which
// every read names in its WHERE (each column read costs, per row).
const campaignSelect = `id, name, budget_daily, marketplace, channel_account_id,
	start_date, end_date, status, version, created_at, updated_at, notes`

// campaignScanner reads the campaigns of one tenant (campaignSelect
// rows) or, made for no tenant, of any (campaignColumns rows). Its
// destinations are made once, and the campaigns it returns are allocated
// together, up to the number of rows it was made for.
type campaignScanner struct {
	tn      adcamp.Tenant
	block   []adcamp.Campaign
	c       adcamp.Campaign
	channel nullInt
	start   nullText
	end     nullText
	created intCol
	updated intCol
	dest    []any
}

func newCampaignScanner(tn adcamp.Tenant, rows int) *campaignScanner {
	s := &campaignScanner{tn: tn, block: make([]adcamp.Campaign, 0, max(rows, 1))}
	s.dest = []any{&s.c.ID}
	if tn == (adcamp.Tenant{}) {
		s.dest = append(s.dest, &s.c.AccountID, (*string)(&s.c.Environment))
	}
	s.dest = append(s.dest, &s.c.Name, (*intCol)(&s.c.BudgetDaily), &s.c.Marketplace,
		&s.channel, &s.start, &s.end, (*nullText)(&s.c.Status), (*intCol)(&s.c.Version), &s.created, &s.updated,
		(*nullText)(&s.c.Notes))
	return s
}

// scan reads one row; it has the signature list pages take.
func (s *campaignScanner) scan(row rowScanner) (*adcamp.Campaign, error) {
	if err := row.Scan(s.dest...); err != nil {
		return nil, err
	}
	c := s.c
	if s.tn != (adcamp.Tenant{}) {
		c.AccountID, c.Environment = s.tn.AccountID, s.tn.Environment
	}
	if s.channel.valid {
		id := s.channel.n
		c.ChannelAccountID = &id
	}
	var err error
	if c.StartDate, err = scanDate(s.start); err != nil {
		return nil, err
	}
	if c.EndDate, err = scanDate(s.end); err != nil {
		return nil, err
	}
	c.CreatedAt, c.UpdatedAt = fromMicros(int64(s.created)), fromMicros(int64(s.updated))
	if len(s.block) == cap(s.block) { // more rows than announced
		s.block = make([]adcamp.Campaign, 0, cap(s.block))
	}
	s.block = append(s.block, c)
	return &s.block[len(s.block)-1], nil
}

// nullDate stores the zero date as NULL.
func nullDate(d adcamp.Date) sql.NullString {
	return sql.NullString{String: d.String(), Valid: !d.IsZero()}
}

func (t *tx) CreateCampaign(ctx context.Context, c *adcamp.Campaign) error {
	_, err := t.exec(ctx,
		`INSERT INTO campaigns (`+campaignColumns+`)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		c.ID, c.AccountID, c.Environment, c.Name, c.BudgetDaily, c.Marketplace, c.ChannelAccountID,
		nullDate(c.StartDate), nullDate(c.EndDate), c.Status, c.Version,
		micros(c.CreatedAt), micros(c.UpdatedAt), c.Notes)
	return err
}

func (t *tx) GetCampaign(ctx context.Context, tn adcamp.Tenant, id string) (*adcamp.Campaign, error) {
	c, err := newCampaignScanner(tn, 1).scan(t.queryRow(ctx,
		`SELECT `+campaignSelect+` FROM campaigns WHERE id = $1 AND account_id = $2 AND environment = $3`,
		id, tn.AccountID, tn.Environment))
	if err != nil {
		return nil, notFound(err, "campaign", id)
	}
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
	return t.listCampaigns(ctx, tn, q, nil)
}

// ListCampaignsSpend reads each campaign's spend with the page, as a
// column of the page's statement: a correlated range of
// campaign_hour_spend's primary key per row. Read apart (CampaignSpend),
// it was a second statement a page, through json_each, a fifth of a
// list's CPU (bench/notes/39-sqlite.md).
func (t *tx) ListCampaignsSpend(ctx context.Context, tn adcamp.Tenant, q store.ListQuery, from, to time.Time) ([]*adcamp.Campaign, []adcamp.Money, int64, error) {
	sp := &pageSpend{from: micros(from), to: micros(to)}
	cs, total, err := t.listCampaigns(ctx, tn, q, sp)
	if err != nil {
		return nil, nil, 0, err
	}
	return cs, sp.spend, total, nil
}

// pageSpend asks listCampaigns for the campaigns' spend over [from, to)
// (micros), and receives it, in the page's order.
type pageSpend struct {
	from, to int64
	sum      nullInt // the row's, scanned
	spend    []adcamp.Money
}

// column is the spend's column for a page over n parameters, of a table
// named alias in the page's statement; its own two parameters follow
// the n (args gets them). It holds no comma, so that qualify leaves it
// whole.
func (sp *pageSpend) column(alias string, args []any) (string, []any) {
	n := len(args)
	return `, (SELECT SUM(cost) FROM campaign_hour_spend s WHERE s.campaign_id = ` + alias + `.id AND s.hour >= $` +
		itoa(n+1) + ` AND s.hour < $` + itoa(n+2) + `)`, append(args, sp.from, sp.to)
}

func (t *tx) listCampaigns(ctx context.Context, tn adcamp.Tenant, q store.ListQuery, sp *pageSpend) ([]*adcamp.Campaign, int64, error) {
	where := `account_id = $1 AND environment = $2` + statusClause(q.Status)
	args := []any{tn.AccountID, tn.Environment}
	if q.Status != "" {
		args = append(args, q.Status, q.Today.String())
	}
	sc := newCampaignScanner(tn, q.Limit)
	scan := sc.scan
	// columns selects the page's campaigns, and their spend if asked for
	// (adding its parameters to args).
	columns := func(args []any) (string, []any) {
		if sp == nil {
			return campaignSelect, args
		}
		col, args := sp.column(pageAlias("campaigns", q.Offset), args)
		return campaignSelect + col, args
	}
	if sp != nil {
		sc.dest = append(sc.dest, &sp.sum)
		scan = func(row rowScanner) (*adcamp.Campaign, error) {
			c, err := sc.scan(row)
			if err == nil {
				sp.spend = append(sp.spend, adcamp.Money(sp.sum.n))
			}
			return c, err
		}
	}
	if q.Status == "" {
		cols, args := columns(args)
		items, total, found, err := pageWithTotal(ctx, t, campaignCount, "campaigns", cols, where, args, q, scan)
		if err != nil || found {
			return items, total, err
		}
		// An empty page: past the end, or no campaigns at all.
		total, _, err = t.campaignTotal(ctx, tn, q)
		return nil, total, err
	}
	if err := t.consistent(ctx); err != nil {
		return nil, 0, err
	}
	total, due, err := t.campaignTotal(ctx, tn, q)
	if err != nil {
		return nil, 0, err
	}
	if due == 0 {
		// Stored status is effective status: the status index alone
		// gives the page, however many campaigns have ended by date.
		where, args = `account_id = $1 AND environment = $2 AND status = $3`, args[:3]
	}
	cols, args := columns(args)
	return page(ctx, t, total, "campaigns", cols, where, args, q, scan)
}

// campaignCount is a tenant's number of campaigns ($1 account, $2
// environment), from the counters kept by triggers.
const campaignCount = `SELECT coalesce(sum(n), 0) FROM campaign_counts WHERE account_id = $1 AND environment = $2`

// campaignTotal answers a list's total from campaign_counts (kept by
// triggers), corrected for the campaigns whose end_date has passed while
// their stored status is not ended yet (until the service stores it
// through DueCampaigns and SetCampaignsEnded): those read as ended. due is
// how many such campaigns the tenant has with the status asked for (any
// status but ended, for the ended filter).
func (t *tx) campaignTotal(ctx context.Context, tn adcamp.Tenant, q store.ListQuery) (total, due int64, err error) {
	if q.Status == "" {
		err := t.queryRow(ctx, campaignCount, tn.AccountID, tn.Environment).Scan(&total)
		return total, 0, err
	}
	err = t.queryRow(ctx, `SELECT coalesce((SELECT n FROM campaign_counts
			WHERE account_id = $1 AND environment = $2 AND status = $3), 0)`, tn.AccountID, tn.Environment, q.Status).Scan(&total)
	if err != nil {
		return 0, 0, err
	}
	// Through campaigns_due, which holds only campaigns not stored as
	// ended: few, once the service has stored ended for the due ones.
	err = t.queryRow(ctx, `SELECT count(*) FROM campaigns INDEXED BY campaigns_due
		WHERE end_date < $4 AND status <> 'ended' AND end_date IS NOT NULL
		  AND account_id = $1 AND environment = $2 AND ($3 = 'ended' OR status = $3)`,
		tn.AccountID, tn.Environment, q.Status, q.Today.String()).Scan(&due)
	if q.Status == adcamp.StatusEnded {
		return total + due, due, err
	}
	return total - due, due, err
}

func (t *tx) UpdateCampaign(ctx context.Context, c, prev *adcamp.Campaign) error {
	// Only what changed: SQLite rewrites the index entries of every column
	// in the SET list, changed or not (three times the cost of an update
	// on a million campaigns). At most 64 texts, all kept prepared.
	args := []any{c.ID, c.AccountID, c.Environment, c.Version, micros(c.UpdatedAt)}
	set := `version = $4, updated_at = $5`
	for _, f := range []struct {
		column  string
		changed bool
		value   any
	}{
		{"name", prev == nil || c.Name != prev.Name, c.Name},
		{"budget_daily", prev == nil || c.BudgetDaily != prev.BudgetDaily, c.BudgetDaily},
		{"start_date", prev == nil || c.StartDate != prev.StartDate, nullDate(c.StartDate)},
		{"end_date", prev == nil || c.EndDate != prev.EndDate, nullDate(c.EndDate)},
		{"status", prev == nil || c.Status != prev.Status, c.Status},
		{"notes", prev == nil || c.Notes != prev.Notes, c.Notes},
	} {
		if f.changed {
			args = append(args, f.value)
			set += `, ` + f.column + ` = $` + itoa(len(args))
		}
	}
	res, err := t.exec(ctx, `UPDATE campaigns SET `+set+`
		 WHERE id = $1 AND account_id = $2 AND environment = $3 AND version = $4 - 1`, args...)
	return affectedVersion(res, err, "campaign", c.ID)
}

func (t *tx) DeleteCampaign(ctx context.Context, tn adcamp.Tenant, id string) error {
	res, err := t.exec(ctx,
		`DELETE FROM campaigns WHERE id = $1 AND account_id = $2 AND environment = $3`,
		id, tn.AccountID, tn.Environment)
	return affectedOne(res, err, "campaign", id)
}
