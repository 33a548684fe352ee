package service

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Delivery figures: what the marketplace's ad server served, per keyword
// and hour, posted to the operator listener (docs/operator.md).

const (
	// MaxDeliveryBatch is the most rows one delivery request may hold.
	MaxDeliveryBatch = 10000
	// DeliveryWindow is how far back a delivery row's hour may lie: the
	// time an ad server has to send corrections.
	DeliveryWindow = 30 * 24 * time.Hour
	// maxDeliveryCount bounds impressions, clicks and orders of one row.
	maxDeliveryCount = 1_000_000_000_000
)

// DeliveryItem is one row of a delivery request, as decoded: the fields
// present, and the problems of shape the decoder found.
type DeliveryItem struct {
	KeywordID                   string
	Hour                        string
	Impressions, Clicks, Orders adcamp.Optional[int64]
	Cost, Sales                 adcamp.Optional[string] // JSON number text
	Invalid                     adcamp.Issues
}

// DeliveryResult is one row's outcome: nil Err when stored (or, in a
// whole-or-nothing request that failed, when it had no problem of its own).
type DeliveryResult struct {
	Err error
}

// IngestDelivery stores the rows of one request, each replacing the
// figures of its (keyword, hour). Without partial, any bad row stores
// nothing and the error lists every bad row's problems; with it, the good
// rows are stored and each row's outcome is returned. A keyword that does
// not exist in env is a row's problem (keyword_id). A later row of the
// same (keyword, hour) replaces an earlier one of the request.
func (s *Operator) IngestDelivery(ctx context.Context, env adcamp.Environment, items []DeliveryItem, partial bool) ([]DeliveryResult, error) {
	return s.ingestDelivery(ctx, env, items, partial)
}

// ingestDelivery is IngestDelivery, for the sandbox's simulator too.
func (s *core) ingestDelivery(ctx context.Context, env adcamp.Environment, items []DeliveryItem, partial bool) ([]DeliveryResult, error) {
	if len(items) == 0 || len(items) > MaxDeliveryBatch {
		var issues adcamp.Issues
		kind := adcamp.IssueTooMany
		if len(items) == 0 {
			kind = adcamp.IssueRequired
		}
		issues.AddKind("items", kind, strconv.Itoa(MaxDeliveryBatch), "must hold 1 to %d rows (got %d)", MaxDeliveryBatch, len(items))
		return nil, issues.Err()
	}
	now := s.Now()
	results := make([]DeliveryResult, len(items))
	rows := make([]store.DeliveryRow, len(items))
	issues := make([]adcamp.Issues, len(items))
	ids := make([]string, 0, len(items))
	seen := make(map[string]bool, len(items))
	for i := range items {
		issues[i] = checkDelivery(&items[i], &rows[i], now)
		if id := items[i].KeywordID; adcamp.ValidID(adcamp.PrefixKeyword, id) && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	err := s.write(ctx, func(tx store.Tx) error {
		where, err := tx.DeliveryKeywords(ctx, ids)
		if err != nil {
			return err
		}
		var all adcamp.Issues
		good := make([]store.DeliveryRow, 0, len(items))
		last := make(map[deliveryKey]int, len(items)) // index in good
		for i := range items {
			is := issues[i]
			if len(is) == 0 {
				k, ok := where[items[i].KeywordID]
				if !ok || k.Environment != env {
					is.Add("keyword_id", "is not a keyword of the %s environment", env)
				} else {
					rows[i].DeliveryKeyword = k
				}
			}
			if len(is) > 0 {
				results[i].Err = is.ErrUpTo(maxItemIssues)
				all = append(all, prefixIssues(results[i].Err.(*adcamp.Error).Details.([]adcamp.FieldIssue), true, i)...)
				continue
			}
			dk := deliveryKey{rows[i].KeywordID, rows[i].Hour.Unix()}
			if j, ok := last[dk]; ok {
				good[j] = rows[i]
				continue
			}
			last[dk] = len(good)
			good = append(good, rows[i])
		}
		if len(all) > 0 && !partial {
			return all.Err()
		}
		if len(good) == 0 {
			return nil
		}
		if err := datedRows(ctx, tx, good); err != nil {
			return err
		}
		before, err := s.daySpend(ctx, tx, good)
		if err != nil {
			return err
		}
		if err := tx.PutDelivery(ctx, good, now); err != nil {
			return err
		}
		return s.deliveryStored(ctx, tx, good, before, now)
	})
	if err != nil {
		return nil, err
	}
	s.daysJournaled()
	return results, nil
}

// datedRows sets each row's Day: the date of its hour in its account's
// time zone as it is now (docs/reports.md: a later change of zone moves
// the days of the hours sent afterwards, and of those corrected).
func datedRows(ctx context.Context, tx store.Tx, rows []store.DeliveryRow) error {
	zones := map[string]*time.Location{}
	for i := range rows {
		loc, ok := zones[rows[i].AccountID]
		if !ok {
			a, err := tx.GetAccount(ctx, rows[i].AccountID)
			if err != nil {
				return err
			}
			loc = zoneOf(a.TimeZone)
			zones[rows[i].AccountID] = loc
		}
		rows[i].Day = dayOfHour(rows[i].Hour, loc)
	}
	return nil
}

type deliveryKey struct {
	keyword string
	hour    int64
}

// checkDelivery validates one row into r, returning its problems.
func checkDelivery(in *DeliveryItem, r *store.DeliveryRow, now time.Time) adcamp.Issues {
	issues := append(adcamp.Issues{}, in.Invalid...)
	if in.KeywordID == "" {
		issues.AddKind("keyword_id", adcamp.IssueRequired, "", "is required")
	} else if !adcamp.ValidID(adcamp.PrefixKeyword, in.KeywordID) {
		issues.Add("keyword_id", "is not a keyword id")
	}
	r.KeywordID = in.KeywordID
	if in.Hour == "" {
		issues.AddKind("hour", adcamp.IssueRequired, "", "is required")
	} else if h, err := time.Parse(time.RFC3339, in.Hour); err != nil {
		issues.Add("hour", "must be an RFC 3339 time on the hour, such as 2026-11-27T09:00:00Z")
	} else if h = h.UTC(); !h.Equal(h.Truncate(time.Hour)) {
		issues.Add("hour", "must be on the hour (minutes and seconds zero), UTC")
	} else if h.After(now) {
		issues.Add("hour", "is in the future: the current hour is %s", now.Truncate(time.Hour).Format(time.RFC3339))
	} else if h.Add(time.Hour).Before(now.Add(-DeliveryWindow)) {
		issues.Add("hour", "is older than %d days: figures are accepted for %d days", int(DeliveryWindow/(24*time.Hour)), int(DeliveryWindow/(24*time.Hour)))
	} else {
		r.Hour = h
	}
	count := func(name string, v adcamp.Optional[int64], dst *int64) {
		if !v.Has() {
			return
		}
		n := v.Value
		if n < 0 || n > maxDeliveryCount {
			issues.Add(name, "must be an integer from 0 to %d", int64(maxDeliveryCount))
			return
		}
		*dst = n
	}
	count("impressions", in.Impressions, &r.Impressions)
	count("clicks", in.Clicks, &r.Clicks)
	count("orders", in.Orders, &r.Orders)
	if r.Clicks > r.Impressions {
		issues.Add("clicks", "must not exceed impressions (%d > %d)", r.Clicks, r.Impressions)
	}
	money := func(name string, v adcamp.Optional[string], dst *adcamp.Money) {
		if !v.Has() {
			return
		}
		m, err := adcamp.ParseMoney(v.Value)
		switch {
		case err != nil:
			issues.AddKind(name, adcamp.MoneyIssue(err), "", "must be an amount with at most two decimals, such as 12.50")
		case m < 0:
			issues.Add(name, "must not be negative")
		case m > adcamp.MaxMoney:
			issues.AddKind(name, adcamp.IssueTooLarge, adcamp.MaxMoney.String(), "must be at most %s", adcamp.MaxMoney)
		default:
			*dst = m
		}
	}
	money("cost", in.Cost, &r.Cost)
	money("sales", in.Sales, &r.Sales)
	return issues
}

// campaignDay is a campaign's spend on its account's today, with what
// deciding on its budget needs.
type campaignDay struct {
	tenant adcamp.Tenant
	day    adcamp.Date
	spend  adcamp.Money
}

// daySpend returns the spend today of the campaigns of rows.
func (s *core) daySpend(ctx context.Context, tx store.Tx, rows []store.DeliveryRow) (map[string]*campaignDay, error) {
	out := map[string]*campaignDay{}
	byAccount := map[string][]string{}
	for _, r := range rows {
		if out[r.CampaignID] == nil {
			out[r.CampaignID] = &campaignDay{tenant: adcamp.Tenant{AccountID: r.AccountID, Environment: r.Environment}}
			byAccount[r.AccountID] = append(byAccount[r.AccountID], r.CampaignID)
		}
	}
	for account, ids := range byAccount {
		a, err := tx.GetAccount(ctx, account)
		if err != nil {
			return nil, err
		}
		spend, day, err := s.spendToday(ctx, tx, a.TimeZone, ids)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			out[id].spend, out[id].day = spend[id], day
		}
	}
	return out, nil
}

// deliveryStored tells the serving feed of the campaigns whose budget the
// rows exhausted (or, corrected, restored): the rows' transaction appends
// them, so that their keywords leave (or return to) the feed with it; and
// writes the campaigns' budget events (budget_events.go).
func (s *core) deliveryStored(ctx context.Context, tx store.Tx, rows []store.DeliveryRow, before map[string]*campaignDay, now time.Time) error {
	after, err := s.daySpend(ctx, tx, rows)
	if err != nil {
		return err
	}
	var feed []store.FeedRow
	for id, a := range after {
		b := before[id]
		if a.spend == b.spend {
			continue
		}
		c, err := tx.GetCampaign(ctx, a.tenant, id)
		if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
			continue
		}
		if err != nil {
			return err
		}
		if err := s.budgetEvents(ctx, tx, budgetView{c, b.day, b.spend}, budgetView{c, a.day, a.spend}, now); err != nil {
			return err
		}
		if (b.spend >= c.BudgetDaily) != (a.spend >= c.BudgetDaily) {
			feed = append(feed, store.FeedRow{Environment: a.tenant.Environment, Kind: store.FeedCampaign, EntityID: id})
		}
	}
	if len(feed) == 0 {
		return nil
	}
	defer wakeFeed()
	return tx.AppendFeed(ctx, feed, now)
}

// SpendToday returns what each campaign of ids (all of accountID) has
// spent on the account's today.
func (s *core) spendToday(ctx context.Context, tx store.Tx, zone string, ids []string) (map[string]adcamp.Money, adcamp.Date, error) {
	day, from, to := accountDay(zone, s.Now())
	m, err := tx.CampaignSpend(ctx, ids, from, to)
	return m, day, err
}

// zoneCache keeps accounts' time zones for KeyCacheTTL: every answer of a
// campaign carries its spend on the account's today, and reading the
// account for its zone each time cost as much as the spend itself. A zone
// changed by this process is seen at once (SetAccountTimeZone), one
// changed by another within KeyCacheTTL, as a key's revocation is.
type zoneCache struct {
	mu sync.Mutex
	m  map[string]cachedZone
}

type cachedZone struct {
	zone    string
	fetched time.Time
}

func (c *zoneCache) get(accountID string, now time.Time) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	z, ok := c.m[accountID]
	if !ok || now.Sub(z.fetched) >= KeyCacheTTL || now.Before(z.fetched) {
		return "", false
	}
	return z.zone, true
}

func (c *zoneCache) put(accountID, zone string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedZones {
		c.m = make(map[string]cachedZone)
	}
	c.m[accountID] = cachedZone{zone, now}
}

// maxCachedZones bounds the cache: past it, it starts over.
const maxCachedZones = 10000

// accountZone returns the time zone of an account (cached, see zoneCache).
func (s *core) accountZone(ctx context.Context, accountID string) (string, error) {
	now := time.Now()
	if z, ok := s.zones.get(accountID, now); ok {
		return z, nil
	}
	var zone string
	err := s.readOne(ctx, func(tx store.Tx) error {
		a, err := tx.GetAccount(ctx, accountID)
		if err == nil {
			zone = a.TimeZone
		}
		return err
	})
	if err == nil {
		s.zones.put(accountID, zone, now)
	}
	return zone, err
}

// Serving is a campaign's serving status and spend on the account's today.
type Serving struct {
	Status     adcamp.ServingStatus
	SpendToday adcamp.Money
}

// NewCampaignServing is CampaignServing of a campaign just created (or
// checked by a dry run): it has spent nothing, having no keywords to
// spend on, so only the account's today is needed (its zone, cached), not
// a read of the spend.
func (s *Ads) NewCampaignServing(ctx context.Context, t adcamp.Tenant, c *adcamp.Campaign) (Serving, error) {
	zone, err := s.accountZone(ctx, t.AccountID)
	if err != nil {
		return Serving{}, err
	}
	today, _, _ := accountDay(zone, s.Now())
	return Serving{Status: adcamp.ServingOf(c, today, 0)}, nil
}

// CampaignServing returns the serving status and spend today of each of
// cs, all of tenant t, in order.
func (s *Ads) CampaignServing(ctx context.Context, t adcamp.Tenant, cs []*adcamp.Campaign) ([]Serving, error) {
	out := make([]Serving, len(cs))
	if len(cs) == 0 {
		return out, nil
	}
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	zone, err := s.accountZone(ctx, t.AccountID)
	if err != nil {
		return nil, err
	}
	var spend map[string]adcamp.Money
	var today adcamp.Date
	err = s.readOne(ctx, func(tx store.Tx) error {
		spend, today, err = s.spendToday(ctx, tx, zone, ids)
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, c := range cs {
		out[i] = Serving{Status: adcamp.ServingOf(c, today, spend[c.ID]), SpendToday: spend[c.ID]}
	}
	return out, nil
}
