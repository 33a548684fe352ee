package service

import (
	"context"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// CampaignContents counts what lies under one of the tenant's campaigns:
// what DeleteCampaign would take with it, for a page that asks to confirm
// a delete. It deletes nothing.
func (s *Ads) CampaignContents(ctx context.Context, t adcamp.Tenant, id string) (*Deleted, error) {
	if !adcamp.ValidID(adcamp.PrefixCampaign, id) {
		return nil, adcamp.NotFound("campaign", id)
	}
	var d Deleted
	err := s.read(ctx, func(tx store.Tx) error {
		if _, err := tx.GetCampaign(ctx, t, id); err != nil {
			return err
		}
		var err error
		d.AdGroups, d.Keywords, err = tx.CountChildren(ctx, t, id, "")
		return err
	})
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// AdGroupContents counts the keywords under one of the tenant's ad
// groups, as CampaignContents does for a campaign.
func (s *Ads) AdGroupContents(ctx context.Context, t adcamp.Tenant, id string) (*Deleted, error) {
	var d Deleted
	err := s.read(ctx, func(tx store.Tx) error {
		if _, err := s.lookupAdGroup(ctx, tx, t, id); err != nil {
			return err
		}
		var err error
		_, d.Keywords, err = tx.CountChildren(ctx, t, "", id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &d, nil
}
