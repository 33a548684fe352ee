package service

import (
	"context"
	"fmt"
	"slices"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The sandbox's own operations: emptying an account's sandbox, and filling
// it with a realistic set to test a client against. Neither exists in
// production, where they are missing (404).

// SandboxCounts says how many of each entity a sandbox operation removed
// or created.
type SandboxCounts struct {
	Campaigns int64 `json:"campaigns"`
	AdGroups  int64 `json:"ad_groups"`
	Keywords  int64 `json:"keywords"`
}

// resetBatch is how many campaigns ResetSandbox reads at a time.
const resetBatch = 100

func sandboxOnly(t adcamp.Tenant, what string) error {
	if t.Environment != adcamp.Sandbox {
		return adcamp.Errorf(adcamp.CodeNotFound, "%s exists only in the sandbox", what)
	}
	return nil
}

// ResetSandbox deletes every campaign of t (a sandbox tenant) with its ad
// groups and keywords, in one transaction with a history record for each,
// as DeleteCampaign would, and says how many it removed.
func (s *Ads) ResetSandbox(ctx context.Context, t adcamp.Tenant) (*SandboxCounts, error) {
	if err := sandboxOnly(t, "reset"); err != nil {
		return nil, err
	}
	var n SandboxCounts
	err := s.writeAds(ctx, func(tx store.Tx) error {
		n = SandboxCounts{}
		if err := s.mayChangeAds(ctx, tx, t, "account", t.AccountID); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		for {
			page, _, err := tx.ListCampaigns(ctx, t, store.ListQuery{Today: s.today(), Limit: resetBatch})
			if err != nil || len(page) == 0 {
				if err == nil {
					err = h.write(ctx, tx)
				}
				return err
			}
			for _, c := range page {
				groups, keywords, err := tx.Subtree(ctx, t, c.ID, "")
				if err != nil {
					return err
				}
				if err := tx.DeleteCampaign(ctx, t, c.ID); err != nil {
					return err
				}
				if err := tx.DeleteCampaignDelivery(ctx, c.ID); err != nil {
					return err
				}
				if err := tx.DeleteCampaignReports(ctx, t, c.ID); err != nil {
					return err
				}
				recordSubtree(h, c.ID, groups, keywords)
				s.recordCampaign(h, adcamp.OpDelete, c, nil)
				n.Campaigns++
				n.AdGroups += int64(len(groups))
				n.Keywords += int64(len(keywords))
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// sampleCampaign is one campaign of the sample set.
type sampleCampaign struct {
	name, budget, marketplace string
	status                    adcamp.Status
	groups                    []sampleGroup
}

type sampleGroup struct {
	name, bid string
	status    adcamp.Status
	products  []string
}

var sampleModifiers = []string{"", "best", "cheap", "for men", "for women", "for kids", "waterproof", "sale", "premium", "2026"}

// sampleSet is the sample data: campaigns in several marketplaces and
// statuses, each with ad groups whose keywords combine products with
// modifiers in every match type.
var sampleSet = []sampleCampaign{
	{"Running shoes — always on", "45.00", "US", adcamp.StatusActive, []sampleGroup{
		{"Trail running", "0.85", adcamp.StatusActive, []string{"trail running shoes", "trail runners", "off road running shoes"}},
		{"Road running", "0.95", adcamp.StatusActive, []string{"road running shoes", "marathon shoes", "lightweight running shoes"}},
		{"Brand defence", "0.40", adcamp.StatusPaused, []string{"acme running", "acme shoes"}},
	}},
	{"Winter jackets DE", "30.00", "DE", adcamp.StatusPaused, []sampleGroup{
		{"Daunenjacken", "0.70", adcamp.StatusActive, []string{"daunenjacke", "winterjacke", "steppjacke"}},
		{"Regenjacken", "0.55", adcamp.StatusActive, []string{"regenjacke", "outdoorjacke"}},
	}},
	{"Kitchen JP launch", "5000.00", "JP", adcamp.StatusActive, []sampleGroup{
		{"Knives", "60.00", adcamp.StatusActive, []string{"包丁", "三徳包丁", "kitchen knife"}},
		{"Cookware", "45.00", adcamp.StatusActive, []string{"フライパン", "鍋", "cast iron pan"}},
	}},
	{"Back to school UK", "20.00", "UK", adcamp.StatusEnded, []sampleGroup{
		{"Backpacks", "0.60", adcamp.StatusActive, []string{"school backpack", "rucksack"}},
		{"Stationery", "0.35", adcamp.StatusPaused, []string{"pencil case", "fountain pen"}},
	}},
}

// sampleKeywords are an ad group's keywords: every product with each
// modifier, in the three match types in turn, with a bid on some.
func sampleKeywords(g sampleGroup) []adcamp.KeywordInput {
	types := []adcamp.MatchType{adcamp.MatchExact, adcamp.MatchPhrase, adcamp.MatchBroad}
	var out []adcamp.KeywordInput
	i := 0
	for _, p := range g.products {
		for _, m := range sampleModifiers {
			text := p
			if m != "" {
				text = p + " " + m
			}
			in := adcamp.KeywordInput{Text: adcamp.Some(text), MatchType: adcamp.Some(types[i%3])}
			if i%4 == 1 {
				in.Bid = adcamp.Some(fmt.Sprintf("%d.%02d", 1+i%3, (i*7)%100))
			}
			if i%9 == 8 {
				in.Status = adcamp.Some(adcamp.StatusPaused)
			}
			out = append(out, in)
			i++
		}
	}
	return out
}

// SampleData fills t (a sandbox tenant) with the sample set and says how
// much it created. A marketplace of the set that the deployment does not
// accept is replaced by one it does. Each entity is created as the API
// would (with its history record); a campaign meant to be paused or ended
// is then changed so. With the delivery simulator on, the account's last
// 30 days of delivery are then simulated (SimulateSandbox).
func (s *Ads) SampleData(ctx context.Context, t adcamp.Tenant) (*SandboxCounts, error) {
	if err := sandboxOnly(t, "sample-data"); err != nil {
		return nil, err
	}
	var n SandboxCounts
	for i, sc := range sampleSet {
		market := sc.marketplace
		if !slices.Contains(s.marketplaces, market) {
			market = s.marketplaces[i%len(s.marketplaces)]
		}
		c, err := s.CreateCampaign(ctx, t, adcamp.CampaignInput{Name: adcamp.Some(sc.name), BudgetDaily: adcamp.Some(sc.budget),
			Marketplace: adcamp.Some(market), Notes: adcamp.Some("Sample data: change or delete it freely.")}, false)
		if err != nil {
			return nil, err
		}
		n.Campaigns++
		for _, sg := range sc.groups {
			g, err := s.CreateAdGroup(ctx, t, c.ID, adcamp.AdGroupInput{Name: adcamp.Some(sg.name), DefaultBid: adcamp.Some(sg.bid)}, false)
			if err != nil {
				return nil, err
			}
			n.AdGroups++
			if sg.status != adcamp.StatusActive {
				if _, err := s.UpdateAdGroup(ctx, t, g.ID, adcamp.AdGroupInput{Status: adcamp.Some(sg.status)}, IfMatch{}, false); err != nil {
					return nil, err
				}
			}
			res, err := s.CreateKeywords(ctx, t, g.ID, sampleKeywords(sg), BatchOptions{Batch: true})
			if err != nil {
				return nil, err
			}
			n.Keywords += int64(len(res))
		}
		if sc.status != adcamp.StatusActive {
			if _, err := s.UpdateCampaign(ctx, t, c.ID, adcamp.CampaignInput{Status: adcamp.Some(sc.status)}, IfMatch{}, false); err != nil {
				return nil, err
			}
		}
	}
	if s.SimulatorEnabled() { // an integrator's report code has figures to read at once
		days := s.simulator().SampleDays
		if days <= 0 || days > MaxSimulateDays {
			days = MaxSimulateDays
		}
		if _, err := s.SimulateSandbox(ctx, t, days); err != nil {
			return nil, err
		}
	}
	return &n, nil
}
