package service

import (
	"context"
	"slices"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// openCampaign returns the tenant's campaign if things may still be
// created or changed under it: NOT_FOUND if it is missing, and
// INVALID_STATE_TRANSITION if it has ended.
func (s *core) openCampaign(ctx context.Context, tx store.Tx, t adcamp.Tenant, id string) (*adcamp.Campaign, error) {
	c, err := tx.GetCampaign(ctx, t, id)
	if err != nil {
		return nil, err
	}
	if c.EffectiveStatus(s.today()) == adcamp.StatusEnded {
		return nil, adcamp.Errorf(adcamp.CodeInvalidStateTransition,
			"campaign %q has ended; nothing under it can be created or changed", id)
	}
	return c, nil
}

// openAdGroup returns the tenant's ad group if its campaign is open.
func (s *core) openAdGroup(ctx context.Context, tx store.Tx, t adcamp.Tenant, id string) (*adcamp.AdGroup, error) {
	g, err := s.lookupAdGroup(ctx, tx, t, id)
	if err != nil {
		return nil, err
	}
	if _, err := s.openCampaign(ctx, tx, t, g.CampaignID); err != nil {
		return nil, err
	}
	return g, nil
}

// checkChildStatus checks the status of an ad group or keyword.
func checkChildStatus(issues *adcamp.Issues, field string, o adcamp.Optional[adcamp.Status]) (adcamp.Status, bool) {
	if !notNull(issues, field, o) {
		return "", false
	}
	if !slices.Contains(adcamp.ChildStatuses, o.Value) {
		issues.AddKind(field, adcamp.IssueNotOneOf, joinValues(adcamp.ChildStatuses), "must be active or paused")
		return "", false
	}
	return o.Value, true
}

// CreateAdGroup validates in and stores a new ad group under a campaign.
func (s *Ads) CreateAdGroup(ctx context.Context, t adcamp.Tenant, campaignID string, in adcamp.AdGroupInput, dryRun bool) (*adcamp.AdGroup, error) {
	if !adcamp.ValidID(adcamp.PrefixCampaign, campaignID) {
		return nil, adcamp.NotFound("campaign", campaignID)
	}
	now := s.Now()
	g := &adcamp.AdGroup{
		ID: adcamp.NewID(adcamp.PrefixAdGroup, now), CampaignID: campaignID, AccountID: t.AccountID,
		Environment: t.Environment, Status: adcamp.StatusActive, Version: 1, CreatedAt: now, UpdatedAt: now,
	}
	issues := append(adcamp.Issues{}, in.Invalid...)
	if in.Version.Set {
		issues.AddKind("version", adcamp.IssueReadOnly, "", "is read-only")
	}
	if requireValue(&issues, "name", in.Name) {
		g.Name = strings.TrimSpace(in.Name.Value)
		checkText(&issues, "name", g.Name, 200)
	}
	if requireValue(&issues, "default_bid", in.DefaultBid) {
		g.DefaultBid = checkMoney(&issues, "default_bid", in.DefaultBid.Value)
	}
	if st, ok := checkChildStatus(&issues, "status", in.Status); ok {
		g.Status = st
	}
	err := s.transact(ctx, dryRun, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "campaign", campaignID); err != nil {
			return err
		}
		if _, err := s.openCampaign(ctx, tx, t, campaignID); err != nil {
			return err
		}
		if err := issues.Err(); err != nil || dryRun {
			return err
		}
		if err := tx.CreateAdGroup(ctx, g); err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		recordAdGroup(h, adcamp.OpCreate, nil, g)
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// GetAdGroup returns one of the tenant's ad groups.
func (s *Ads) GetAdGroup(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.AdGroup, error) {
	var g *adcamp.AdGroup
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		g, err = s.lookupAdGroup(ctx, tx, t, id)
		return err
	})
	return g, err
}

// ListAdGroups returns one page of a campaign's ad groups, newest first.
func (s *Ads) ListAdGroups(ctx context.Context, t adcamp.Tenant, campaignID string, f adcamp.AdGroupFilter) (*adcamp.Page[*adcamp.AdGroup], error) {
	var issues adcamp.Issues
	checkPaging(&issues, f.Page, f.PageSize)
	checkFilter(&issues, "status", f.Status, adcamp.ChildStatuses)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	if !adcamp.ValidID(adcamp.PrefixCampaign, campaignID) {
		return nil, adcamp.NotFound("campaign", campaignID)
	}
	p := &adcamp.Page[*adcamp.AdGroup]{Page: f.Page, PageSize: f.PageSize}
	err := s.read(ctx, func(tx store.Tx) error {
		if _, err := tx.GetCampaign(ctx, t, campaignID); err != nil {
			return err
		}
		var err error
		p.Items, p.TotalItems, err = tx.ListAdGroups(ctx, t, campaignID, pageQuery(f.Page, f.PageSize, f.Status))
		return err
	})
	return p, err
}

// UpdateAdGroup merges in into an ad group, as UpdateCampaign does.
func (s *Ads) UpdateAdGroup(ctx context.Context, t adcamp.Tenant, id string, in adcamp.AdGroupInput, ifMatch IfMatch, dryRun bool) (*adcamp.AdGroup, error) {
	var g *adcamp.AdGroup
	err := s.transact(ctx, dryRun, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "ad group", id); err != nil {
			return err
		}
		var err error
		if g, err = s.lookupAdGroup(ctx, tx, t, id); err != nil {
			return err
		}
		prev := *g
		if err := checkVersion("ad group", g.ID, g.Version, ifMatch, in.Version); err != nil {
			return err
		}
		if _, err := s.openCampaign(ctx, tx, t, g.CampaignID); err != nil {
			return err
		}
		issues := append(adcamp.Issues{}, in.Invalid...)
		if !(in.Name.Set || in.DefaultBid.Set || in.Status.Set) {
			issues.Add("body", "must contain at least one of name, default_bid, status")
		}
		if notNull(&issues, "name", in.Name) {
			g.Name = strings.TrimSpace(in.Name.Value)
			checkText(&issues, "name", g.Name, 200)
		}
		if notNull(&issues, "default_bid", in.DefaultBid) {
			g.DefaultBid = checkMoney(&issues, "default_bid", in.DefaultBid.Value)
		}
		if st, ok := checkChildStatus(&issues, "status", in.Status); ok {
			g.Status = st
		}
		if err := issues.Err(); err != nil {
			return err
		}
		g.Version++
		g.UpdatedAt = s.Now()
		if dryRun {
			return nil
		}
		if err := tx.UpdateAdGroup(ctx, g, &prev); err != nil {
			return err
		}
		h := s.newHistory(ctx, g.UpdatedAt)
		recordAdGroup(h, adcamp.OpUpdate, &prev, g)
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// lookupAdGroup finds the tenant's ad group; a malformed id is simply
// not found, without a query.
func (s *core) lookupAdGroup(ctx context.Context, tx store.Tx, t adcamp.Tenant, id string) (*adcamp.AdGroup, error) {
	if !adcamp.ValidID(adcamp.PrefixAdGroup, id) {
		return nil, adcamp.NotFound("ad group", id)
	}
	return tx.GetAdGroup(ctx, t, id)
}

// Deleted reports what a delete removed.
type Deleted struct {
	AdGroups int64 // ad groups removed with a campaign
	Keywords int64 // keywords removed with a campaign or an ad group
}

// DeleteAdGroup removes an ad group and its keywords.
func (s *Ads) DeleteAdGroup(ctx context.Context, t adcamp.Tenant, id string, ifMatch IfMatch) (*Deleted, error) {
	var d Deleted
	err := s.writeAds(ctx, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "ad group", id); err != nil {
			return err
		}
		g, err := s.lookupAdGroup(ctx, tx, t, id)
		if err != nil {
			return err
		}
		if err := checkVersion("ad group", g.ID, g.Version, ifMatch, adcamp.Optional[int64]{}); err != nil {
			return err
		}
		if _, err := s.openCampaign(ctx, tx, t, g.CampaignID); err != nil {
			return err
		}
		_, keywords, err := tx.Subtree(ctx, t, "", id)
		if err != nil {
			return err
		}
		d.Keywords = int64(len(keywords))
		negatives, err := negativesUnder(ctx, tx, t, "", id)
		if err != nil {
			return err
		}
		if err := tx.DeleteAdGroup(ctx, t, id); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		recordNegativeDeletes(h, negatives)
		recordSubtree(h, g.CampaignID, nil, keywords)
		recordAdGroup(h, adcamp.OpDelete, g, nil)
		return h.write(ctx, tx)
	})
	return &d, err
}

// pageQuery turns paging parameters into a store query.
func pageQuery(page, size int, status adcamp.Status) store.ListQuery {
	return store.ListQuery{Status: status, Limit: size, Offset: (page - 1) * size}
}
