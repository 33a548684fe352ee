package service

import (
	"context"
	"slices"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// MaxPageSize bounds page_size on every list.
const MaxPageSize = 100

// view is a campaign as a client sees it: the stored record with
// its effective status.
func (s *core) view(c *adcamp.Campaign) *adcamp.Campaign {
	c.Status = c.EffectiveStatus(s.today())
	return c
}

// CreateCampaign validates in and stores a new active campaign. With
// dryRun it validates fully and returns the campaign it would create,
// storing nothing.
func (s *Ads) CreateCampaign(ctx context.Context, t adcamp.Tenant, in adcamp.CampaignInput, dryRun bool) (*adcamp.Campaign, error) {
	now := s.Now()
	c := &adcamp.Campaign{
		ID: adcamp.NewID(adcamp.PrefixCampaign, now), AccountID: t.AccountID, Environment: t.Environment,
		Status: adcamp.StatusActive, Version: 1, CreatedAt: now, UpdatedAt: now,
	}
	issues := append(adcamp.Issues{}, in.Invalid...)
	if in.Status.Set {
		issues.AddKind("status", adcamp.IssueReadOnly, "", "is read-only: a new campaign is always active")
	}
	if in.Version.Set {
		issues.AddKind("version", adcamp.IssueReadOnly, "", "is read-only")
	}
	if requireValue(&issues, "name", in.Name) {
		c.Name = strings.TrimSpace(in.Name.Value)
		checkText(&issues, "name", c.Name, 200)
	}
	if requireValue(&issues, "budget_daily", in.BudgetDaily) {
		c.BudgetDaily = checkMoney(&issues, "budget_daily", in.BudgetDaily.Value)
	}
	if in.Marketplace.Has() {
		c.Marketplace = s.checkMarketplace(&issues, "marketplace", in.Marketplace.Value)
	} else if !in.ChannelAccountID.Has() {
		issues.AddKind("marketplace", adcamp.IssueRequired, "", "is required unless channel_account_id is given")
	}
	if in.StartDate.Has() {
		c.StartDate = checkDate(&issues, "start_date", in.StartDate.Value)
	}
	if in.EndDate.Has() {
		c.EndDate = checkDate(&issues, "end_date", in.EndDate.Value)
		if !c.EndDate.IsZero() && c.EndDate.Before(s.today()) {
			issues.AddKind("end_date", adcamp.IssuePast, s.today().String(), "must not be before today (%s, UTC)", s.today())
		}
	}
	checkDateOrder(&issues, c)
	if in.Notes.Has() {
		c.Notes = checkNotes(&issues, in.Notes.Value)
	}

	err := s.transact(ctx, dryRun, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "account", t.AccountID); err != nil {
			return err
		}
		if in.ChannelAccountID.Has() {
			if err := s.resolveChannelAccount(ctx, tx, &issues, c, in.ChannelAccountID.Value); err != nil {
				return err
			}
		}
		if err := issues.Err(); err != nil {
			return err
		}
		if dryRun {
			return nil
		}
		if err := tx.CreateCampaign(ctx, c); err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		s.recordCampaign(h, adcamp.OpCreate, nil, c)
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return s.view(c), nil
}

// resolveChannelAccount sets c's channel account and, from it, its
// marketplace, which must agree with a marketplace given alongside.
func (s *core) resolveChannelAccount(ctx context.Context, tx store.Tx, issues *adcamp.Issues, c *adcamp.Campaign, id int64) error {
	ca, err := tx.GetChannelAccount(ctx, c.AccountID, id)
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
		issues.AddKind("channel_account_id", adcamp.IssueNoSuchChannel, "", "no such channel account")
		return nil
	}
	if err != nil {
		return err
	}
	c.ChannelAccountID = &ca.ID
	switch c.Marketplace {
	case "":
		c.Marketplace = ca.Marketplace
	case ca.Marketplace:
	default:
		issues.AddKind("marketplace", adcamp.IssueOtherMarket, ca.Marketplace, "is %s but channel account %d is on %s", c.Marketplace, id, ca.Marketplace)
	}
	return nil
}

func checkDateOrder(issues *adcamp.Issues, c *adcamp.Campaign) {
	if !c.StartDate.IsZero() && !c.EndDate.IsZero() && c.EndDate.Before(c.StartDate) {
		issues.AddKind("end_date", adcamp.IssueBeforeStart, c.StartDate.String(), "must not be before start_date (%s)", c.StartDate)
	}
}

// GetCampaign returns one of the tenant's campaigns.
func (s *Ads) GetCampaign(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.Campaign, error) {
	if !adcamp.ValidID(adcamp.PrefixCampaign, id) {
		return nil, adcamp.NotFound("campaign", id)
	}
	var c *adcamp.Campaign
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		c, err = tx.GetCampaign(ctx, t, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.view(c), nil
}

// GetCampaignServing is GetCampaign with the campaign's serving status and
// spend today, read with it in one statement.
func (s *Ads) GetCampaignServing(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.Campaign, Serving, error) {
	if !adcamp.ValidID(adcamp.PrefixCampaign, id) {
		return nil, Serving{}, adcamp.NotFound("campaign", id)
	}
	zone, err := s.accountZone(ctx, t.AccountID)
	if err != nil {
		return nil, Serving{}, err
	}
	today, from, to := accountDay(zone, s.Now())
	var c *adcamp.Campaign
	var spend adcamp.Money
	err = s.readOne(ctx, func(tx store.Tx) error {
		var err error
		c, spend, err = tx.GetCampaignSpend(ctx, t, id, from, to)
		return err
	})
	if err != nil {
		return nil, Serving{}, err
	}
	return s.view(c), Serving{Status: adcamp.ServingOf(c, today, spend), SpendToday: spend}, nil
}

// ListCampaigns returns one page of the tenant's campaigns, newest first.
func (s *Ads) ListCampaigns(ctx context.Context, t adcamp.Tenant, f adcamp.CampaignFilter) (*adcamp.Page[*adcamp.Campaign], error) {
	p, _, err := s.listCampaigns(ctx, t, f, false)
	return p, err
}

// ListCampaignsServing is ListCampaigns with each campaign's serving
// status and spend today (in the order of the page's items), read in the
// same transaction as the page.
func (s *Ads) ListCampaignsServing(ctx context.Context, t adcamp.Tenant, f adcamp.CampaignFilter) (*adcamp.Page[*adcamp.Campaign], []Serving, error) {
	return s.listCampaigns(ctx, t, f, true)
}

func (s *Ads) listCampaigns(ctx context.Context, t adcamp.Tenant, f adcamp.CampaignFilter, serving bool) (*adcamp.Page[*adcamp.Campaign], []Serving, error) {
	var issues adcamp.Issues
	checkPaging(&issues, f.Page, f.PageSize)
	checkFilter(&issues, "status", f.Status, adcamp.CampaignStatuses)
	if err := issues.Err(); err != nil {
		return nil, nil, err
	}
	var zone string
	if serving {
		var err error
		if zone, err = s.accountZone(ctx, t.AccountID); err != nil {
			return nil, nil, err
		}
	}
	p := &adcamp.Page[*adcamp.Campaign]{Page: f.Page, PageSize: f.PageSize}
	var spend []adcamp.Money // the page's campaigns' spend today, in order
	today, from, to := accountDay(zone, s.Now())
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		q := pageQuery(f.Page, f.PageSize, f.Status)
		q.Today = s.today()
		if !serving {
			p.Items, p.TotalItems, err = tx.ListCampaigns(ctx, t, q)
			return err
		}
		p.Items, spend, p.TotalItems, err = tx.ListCampaignsSpend(ctx, t, q, from, to)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	var sv []Serving
	if serving {
		sv = make([]Serving, len(p.Items))
	}
	for i, c := range p.Items {
		s.view(c)
		if serving {
			sv[i] = Serving{Status: adcamp.ServingOf(c, today, spend[i]), SpendToday: spend[i]}
		}
	}
	return p, sv, nil
}

// checkPaging checks page ≥ 1 and 1 ≤ page_size ≤ MaxPageSize.
func checkPaging(issues *adcamp.Issues, page, size int) {
	if page < 1 {
		issues.Add("page", "must be an integer ≥ 1")
	}
	if size < 1 || size > MaxPageSize {
		issues.Add("page_size", "must be an integer from 1 to %d", MaxPageSize)
	}
	if page > 1 && size > 0 && page > (1<<31)/size {
		issues.Add("page", "is too large")
	}
}

// IfMatch is a client's precondition on the version of an entity: when Set,
// the current version must be one of Versions.
type IfMatch struct {
	Set      bool
	Versions []int64
}

// UpdateCampaign merges in into a campaign. A failed precondition (ifMatch,
// or a version field in the body) changes nothing.
func (s *Ads) UpdateCampaign(ctx context.Context, t adcamp.Tenant, id string, in adcamp.CampaignInput, ifMatch IfMatch, dryRun bool) (*adcamp.Campaign, error) {
	c, _, err := s.UpdateCampaignServing(ctx, t, id, in, ifMatch, dryRun)
	return c, err
}

// UpdateCampaignServing is UpdateCampaign, also answering the campaign's
// serving status and spend today when the update read them: a change of
// its budget, status or dates does, in its transaction, for the budget
// events. Otherwise sv is nil, and CampaignServing tells.
func (s *Ads) UpdateCampaignServing(ctx context.Context, t adcamp.Tenant, id string, in adcamp.CampaignInput, ifMatch IfMatch, dryRun bool) (_ *adcamp.Campaign, sv *Serving, _ error) {
	if !adcamp.ValidID(adcamp.PrefixCampaign, id) {
		return nil, nil, adcamp.NotFound("campaign", id)
	}
	var c *adcamp.Campaign
	err := s.transact(ctx, dryRun, func(tx store.Tx) error {
		sv = nil // a retried transaction starts over
		if err := s.mayChangeAds(ctx, tx, t, "campaign", id); err != nil {
			return err
		}
		var err error
		if c, err = tx.GetCampaign(ctx, t, id); err != nil {
			return err
		}
		if err := checkVersion("campaign", c.ID, c.Version, ifMatch, in.Version); err != nil {
			return err
		}
		if c.EffectiveStatus(s.today()) == adcamp.StatusEnded {
			return adcamp.Errorf(adcamp.CodeInvalidStateTransition,
				"campaign %q has ended; an ended campaign accepts no change but delete", c.ID)
		}
		prev := *c
		if err := s.mergeCampaign(c, in); err != nil {
			return err
		}
		c.Version++
		c.UpdatedAt = s.Now()
		if dryRun {
			return nil
		}
		// Its serving status may change: budget events (budget_events.go).
		// The spend is read before the update: on PostgreSQL a read after
		// a change makes the version-guarded attempt start over with row
		// locks, in two more round trips (store.WithVersionGuards).
		served := prev.BudgetDaily != c.BudgetDaily || prev.Status != c.Status || prev.StartDate != c.StartDate ||
			prev.EndDate != c.EndDate
		var v budgetView
		if served {
			if v, err = s.campaignBudgetView(ctx, tx, c, c.UpdatedAt); err != nil {
				return err
			}
		}
		if err := tx.UpdateCampaign(ctx, c, &prev); err != nil {
			return err
		}
		if served {
			was := v
			was.c = &prev
			if err := s.budgetEvents(ctx, tx, was, v, c.UpdatedAt); err != nil {
				return err
			}
			sv = &Serving{Status: adcamp.ServingOf(c, v.day, v.spend), SpendToday: v.spend}
		}
		h := s.newHistory(ctx, c.UpdatedAt)
		s.recordCampaign(h, adcamp.OpUpdate, &prev, c)
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, nil, err
	}
	return s.view(c), sv, nil
}

// mergeCampaign applies the fields present in in to c, after checking all.
func (s *core) mergeCampaign(c *adcamp.Campaign, in adcamp.CampaignInput) error {
	issues := append(adcamp.Issues{}, in.Invalid...)
	if !(in.Name.Set || in.BudgetDaily.Set || in.StartDate.Set || in.EndDate.Set || in.Status.Set || in.Notes.Set ||
		in.Marketplace.Set || in.ChannelAccountID.Set) {
		issues.Add("body", "must contain at least one of name, budget_daily, start_date, end_date, status, notes")
	}
	if in.Marketplace.Set {
		issues.AddKind("marketplace", adcamp.IssueReadOnly, "", "is read-only after create")
	}
	if in.ChannelAccountID.Set {
		issues.AddKind("channel_account_id", adcamp.IssueReadOnly, "", "is read-only after create")
	}
	if notNull(&issues, "name", in.Name) {
		c.Name = strings.TrimSpace(in.Name.Value)
		checkText(&issues, "name", c.Name, 200)
	}
	if notNull(&issues, "budget_daily", in.BudgetDaily) {
		c.BudgetDaily = checkMoney(&issues, "budget_daily", in.BudgetDaily.Value)
	}
	if in.StartDate.Set {
		c.StartDate = adcamp.Date{}
		if !in.StartDate.Null {
			c.StartDate = checkDate(&issues, "start_date", in.StartDate.Value)
		}
	}
	if in.EndDate.Set {
		c.EndDate = adcamp.Date{}
		if !in.EndDate.Null {
			c.EndDate = checkDate(&issues, "end_date", in.EndDate.Value)
			if !c.EndDate.IsZero() && c.EndDate.Before(s.today()) {
				issues.AddKind("end_date", adcamp.IssuePast, s.today().String(), "must not be before today (%s, UTC); to end a campaign now, set status to ended", s.today())
			}
		}
	}
	checkDateOrder(&issues, c)
	if in.Notes.Set {
		c.Notes = ""
		if !in.Notes.Null {
			c.Notes = checkNotes(&issues, in.Notes.Value)
		}
	}
	from := c.Status
	if notNull(&issues, "status", in.Status) && checkOneOf(&issues, "status", in.Status.Value, adcamp.CampaignStatuses) {
		c.Status = in.Status.Value
	}
	if err := issues.Err(); err != nil {
		return err
	}
	if !adcamp.CanTransition(from, c.Status) {
		return adcamp.Errorf(adcamp.CodeInvalidStateTransition, "a campaign cannot go from %s to %s", from, c.Status)
	}
	return nil
}

// DeleteCampaign removes a campaign and everything under it, in one
// transaction, and reports how much went with it.
func (s *Ads) DeleteCampaign(ctx context.Context, t adcamp.Tenant, id string, ifMatch IfMatch) (*Deleted, error) {
	if !adcamp.ValidID(adcamp.PrefixCampaign, id) {
		return nil, adcamp.NotFound("campaign", id)
	}
	var d Deleted
	err := s.writeAds(ctx, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "campaign", id); err != nil {
			return err
		}
		c, err := tx.GetCampaign(ctx, t, id)
		if err != nil {
			return err
		}
		if err := checkVersion("campaign", c.ID, c.Version, ifMatch, adcamp.Optional[int64]{}); err != nil {
			return err
		}
		groups, keywords, err := tx.Subtree(ctx, t, id, "")
		if err != nil {
			return err
		}
		d.AdGroups, d.Keywords = int64(len(groups)), int64(len(keywords))
		negatives, err := negativesUnder(ctx, tx, t, id, "")
		if err != nil {
			return err
		}
		if err := tx.DeleteCampaign(ctx, t, id); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		recordNegativeDeletes(h, negatives)
		recordSubtree(h, c.ID, groups, keywords)
		s.recordCampaign(h, adcamp.OpDelete, c, nil)
		return h.write(ctx, tx)
	})
	return &d, err
}

// checkVersion enforces the client's preconditions: If-Match and a
// version field in the body must both name the current version.
func checkVersion(kind, id string, current int64, ifMatch IfMatch, body adcamp.Optional[int64]) error {
	if ifMatch.Set && !slices.Contains(ifMatch.Versions, current) {
		return adcamp.Errorf(adcamp.CodePreconditionFailed,
			"%s %q is at version %d, which If-Match does not name; fetch it again and retry", kind, id, current)
	}
	if body.Has() && body.Value != current {
		return adcamp.Errorf(adcamp.CodePreconditionFailed,
			"%s %q is at version %d, not %d (version); fetch it again and retry", kind, id, current, body.Value)
	}
	return nil
}

// transact runs fn in a write transaction, or in a read transaction when
// it is a dry run that stores nothing.
func (s *core) transact(ctx context.Context, dryRun bool, fn func(store.Tx) error) error {
	if dryRun {
		return s.read(ctx, fn)
	}
	return s.writeAds(ctx, fn)
}
