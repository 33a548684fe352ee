package service

import (
	"context"
	"fmt"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The webhook events of campaigns' budgets (docs/webhooks.md), written in
// the transaction of the change that causes them, as the history's are:
//
//   - campaign.budget_exhausted when a campaign's serving status becomes
//     budget_exhausted (delivery reported its spend up to the budget, or
//     the budget was lowered to it), and campaign.budget_restored when it
//     leaves budget_exhausted (the budget raised, a correction of the
//     spend, the account's new day — when the serving feed answers its
//     keywords again — or a pause or end that now holds it back instead);
//   - campaign.spend_threshold when its spend on the account's day reaches
//     50, 80 or 100 % of its daily budget: each threshold once per campaign
//     and account day (a setting keeps the highest sent and its day).

// spendThresholds are the percentages of campaign.spend_threshold.
var spendThresholds = []int64{50, 80, 100}

// budgetView is a campaign with its day and its spend on that day.
type budgetView struct {
	c     *adcamp.Campaign
	day   adcamp.Date
	spend adcamp.Money
}

// settingThresholds keeps, per campaign, "DAY PERCENT": the highest
// threshold sent on that account day.
func settingThresholds(campaignID string) string { return "webhook.spend_threshold." + campaignID }

// budgetEvents writes the events of a campaign going from before to
// after (the same campaign: its fields, its day or its spend changed).
func (s *core) budgetEvents(ctx context.Context, tx store.Tx, before, after budgetView, now time.Time) error {
	c := after.c
	var evs []*adcamp.Event
	st0, st1 := adcamp.ServingOf(before.c, before.day, before.spend), adcamp.ServingOf(c, after.day, after.spend)
	base := budgetData{CampaignID: c.ID, Day: after.day.String(), SpendToday: after.spend, BudgetDaily: c.BudgetDaily,
		ServingStatus: st1, PreviousServingStatus: st0}
	switch {
	case st0 == st1:
	case st1 == adcamp.ServingBudgetExhausted:
		evs = append(evs, s.budgetEvent(c, adcamp.EventCampaignBudgetExhausted, now, base))
	case st0 == adcamp.ServingBudgetExhausted:
		evs = append(evs, s.budgetEvent(c, adcamp.EventCampaignBudgetRestored, now, base))
	}
	reached := int64(0)
	for _, p := range spendThresholds {
		if c.BudgetDaily > 0 && int64(after.spend)*100 >= p*int64(c.BudgetDaily) {
			reached = p
		}
	}
	if reached > 0 {
		key := settingThresholds(c.ID)
		sent := int64(0)
		v, err := tx.GetSetting(ctx, key)
		switch {
		case err == nil:
			var day string
			if _, err := fmt.Sscanf(string(v), "%s %d", &day, &sent); err != nil || day != after.day.String() {
				sent = 0
			}
		case adcamp.ErrorCode(err) != adcamp.CodeNotFound:
			return err
		}
		if reached > sent {
			for _, p := range spendThresholds {
				if p > sent && p <= reached {
					d := base
					d.Threshold = p
					d.ServingStatus, d.PreviousServingStatus = st1, ""
					evs = append(evs, s.budgetEvent(c, adcamp.EventCampaignSpendThreshold, now, d))
				}
			}
			if err := tx.SetSetting(ctx, key, []byte(fmt.Sprintf("%s %d", after.day, reached))); err != nil {
				return err
			}
		}
	}
	if len(evs) == 0 {
		return nil
	}
	return tx.AddEvents(ctx, evs)
}

// budgetData is the data of the budget events.
type budgetData struct {
	CampaignID            string               `json:"campaign_id"`
	Day                   string               `json:"day"` // the account's day
	SpendToday            adcamp.Money         `json:"spend_today"`
	BudgetDaily           adcamp.Money         `json:"budget_daily"`
	Threshold             int64                `json:"threshold,omitempty"` // percent, spend_threshold only
	ServingStatus         adcamp.ServingStatus `json:"serving_status"`
	PreviousServingStatus adcamp.ServingStatus `json:"previous_serving_status,omitempty"`
}

func (s *core) budgetEvent(c *adcamp.Campaign, typ string, now time.Time, data budgetData) *adcamp.Event {
	cid, at := s.changeIDs.New(now) // monotonic, as the history's: events sort in the order made
	e := &adcamp.Event{ID: eventID(cid), AccountID: c.AccountID, Environment: c.Environment, Type: typ,
		OccurredAt: at, CampaignID: c.ID}
	e.Payload = payload(e, data)
	return e
}

// campaignBudgetView reads a campaign's day and spend now, for
// budgetEvents.
// The account's zone comes from the cache of zones when it holds it, as
// for every answer's spend (zoneCache).
func (s *core) campaignBudgetView(ctx context.Context, tx store.Tx, c *adcamp.Campaign, now time.Time) (budgetView, error) {
	zone, ok := s.zones.get(c.AccountID, time.Now()) // the cache's clock, as accountZone's
	if !ok {
		a, err := tx.GetAccount(ctx, c.AccountID)
		if err != nil {
			return budgetView{}, err
		}
		zone = a.TimeZone
		s.zones.put(c.AccountID, zone, time.Now())
	}
	day, from, to := accountDay(zone, now)
	spend, err := tx.CampaignSpend(ctx, []string{c.ID}, from, to)
	return budgetView{c: c, day: day, spend: spend[c.ID]}, err
}

// dayTurnedEvents writes the budget events of the campaigns of accounts
// whose day turned between last and now (FeedTick).
func (s *core) dayTurnedEvents(ctx context.Context, tx store.Tx, accounts map[string]string, last, now time.Time) error {
	for id, zone := range accounts {
		d0, from0, to0 := accountDay(zone, last)
		d1, from1, to1 := accountDay(zone, now)
		for _, env := range []adcamp.Environment{adcamp.Production, adcamp.Sandbox} {
			var cs []*adcamp.Campaign
			for {
				page, _, err := tx.ListCampaigns(ctx, adcamp.Tenant{AccountID: id, Environment: env}, store.ListQuery{Limit: 1000, Offset: len(cs)})
				if err != nil {
					return err
				}
				cs = append(cs, page...)
				if len(page) < 1000 {
					break
				}
			}
			if len(cs) == 0 {
				continue
			}
			ids := make([]string, len(cs))
			for i, c := range cs {
				ids[i] = c.ID
			}
			spend0, err := tx.CampaignSpend(ctx, ids, from0, to0)
			if err != nil {
				return err
			}
			spend1, err := tx.CampaignSpend(ctx, ids, from1, to1)
			if err != nil {
				return err
			}
			for _, c := range cs {
				if err := s.budgetEvents(ctx, tx, budgetView{c, d0, spend0[c.ID]}, budgetView{c, d1, spend1[c.ID]}, now); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
