package service

import (
	"context"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The sandbox's delivery simulator (docs/sandbox.md): in the sandbox, and
// only there, adcamp plays the marketplace's ad server for itself. For
// each servable keyword it makes up plausible hourly figures from the
// keyword's bid and match type, stops each campaign at its daily budget
// as an ad server does, and posts them through IngestDelivery, the path
// the operator API's delivery takes: the reports, the spend, the serving
// status and the serving feed see them as they would see real figures.
//
// The figures of a keyword in an hour are a function of the seed, the
// keyword's id and the hour, so that a run again over the same data gives
// the same figures. adcamp serve posts the current hour's running totals
// every minute (RunSimulator); POST /sandbox/simulate backfills days.

// DefaultSimulatorSeed is the simulator's seed when none is given: fixed,
// so that several processes over one database post the same figures.
const DefaultSimulatorSeed = 1

// MaxSimulateDays bounds a backfill: delivery figures are accepted for
// DeliveryWindow (30 days), and a backfill of N days covers today and the
// N-1 days before it.
const MaxSimulateDays = 30

// SimulatorConfig configures the sandbox's delivery simulator.
type SimulatorConfig struct {
	Enabled bool
	Seed    uint64
	// SampleDays is how many days of delivery sample data comes with
	// (MaxSimulateDays when 0; tests ask for fewer).
	SampleDays int
}

// SetSimulator configures the sandbox's delivery simulator (off until
// called: a library never makes up figures unless told to; adcamp serve
// turns it on unless --sandbox-simulator=false).
func (s *Service) SetSimulator(c SimulatorConfig) { s.sim.Store(&c) }

// simulator returns the simulator's configuration.
func (s *core) simulator() SimulatorConfig {
	if c := s.sim.Load(); c != nil {
		return *c
	}
	return SimulatorConfig{}
}

// SimulatorEnabled reports whether the sandbox's simulator is on.
func (s *core) SimulatorEnabled() bool { return s.simulator().Enabled }

// Simulated says what a backfill posted.
type Simulated struct {
	Days     int         `json:"days"`
	From     adcamp.Date `json:"from"` // the account's first day covered
	To       adcamp.Date `json:"to"`   // its today, covered up to now
	Keywords int         `json:"keywords"`
	Rows     int         `json:"rows"`
}

// SimulateSandbox backfills the last days of t's sandbox (today and the
// days-1 before it, in the account's time zone; the current hour so far)
// with simulated delivery, replacing the figures of its servable
// keywords in those hours.
func (s *Ads) SimulateSandbox(ctx context.Context, t adcamp.Tenant, days int) (*Simulated, error) {
	if err := sandboxOnly(t, "simulate"); err != nil {
		return nil, err
	}
	if err := s.read(ctx, func(tx store.Tx) error { return s.mayChangeAds(ctx, tx, t, "account", t.AccountID) }); err != nil {
		return nil, err
	}
	if !s.SimulatorEnabled() {
		return nil, adcamp.Errorf(adcamp.CodeConflict, "the sandbox's delivery simulator is off on this deployment (adcamp serve --sandbox-simulator=false)")
	}
	if days < 1 || days > MaxSimulateDays {
		var issues adcamp.Issues
		issues.Add("days", "must be a whole number from 1 to %d (figures are accepted for %d days), got %d", MaxSimulateDays, MaxSimulateDays, days)
		return nil, issues.Err()
	}
	var zone string
	err := s.read(ctx, func(tx store.Tx) error {
		a, err := tx.GetAccount(ctx, t.AccountID)
		if err == nil {
			zone = a.TimeZone
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	now := s.Now()
	today, _, _ := accountDay(zone, now)
	loc := zoneOf(zone)
	l := now.In(loc)
	first := time.Date(l.Year(), l.Month(), l.Day()-(days-1), 0, 0, 0, 0, loc).UTC()
	if oldest := now.Add(-DeliveryWindow).Truncate(time.Hour).Add(time.Hour); first.Before(oldest) {
		first = oldest
	}
	fromDay, _, _ := accountDay(zone, first)
	n, k, err := s.simulate(ctx, store.FeedScope{AccountIDs: []string{t.AccountID}}, first, now)
	if err != nil {
		return nil, err
	}
	return &Simulated{Days: days, From: fromDay, To: today, Keywords: k, Rows: n}, nil
}

// SimulatorTick posts the simulated figures of every sandbox account's
// servable keywords for the previous hour (whole) and the current one
// (so far).
func (s *Service) SimulatorTick(ctx context.Context) (rows int, err error) {
	if !s.SimulatorEnabled() {
		return 0, nil
	}
	now := s.Now()
	rows, _, err = s.simulate(ctx, store.FeedScope{All: true}, now.Truncate(time.Hour).Add(-time.Hour), now)
	return rows, err
}

// RunSimulator runs SimulatorTick every interval until ctx ends.
func (s *Service) RunSimulator(ctx context.Context, interval time.Duration) {
	if !s.SimulatorEnabled() {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := s.SimulatorTick(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("sandbox delivery simulator", "err", err)
		} else if n > 0 {
			s.log.Debug("sandbox delivery simulated", "rows", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// simKeyword is a keyword the simulator serves.
type simKeyword struct {
	id        string
	matchType adcamp.MatchType
	bid       adcamp.Money
}

// simCampaign is a campaign the simulator serves, with its keywords.
type simCampaign struct {
	c        adcamp.Campaign
	zone     string
	keywords []simKeyword
}

// simulate posts the simulated figures of the sandbox keywords of scope
// whose statuses are active, for the hours from from (on the hour) to
// now's (so far). Each campaign's spend of the day of from before from is
// read from the store; the later hours' spend is the simulation's own.
// It returns the rows posted and the keywords simulated.
func (s *core) simulate(ctx context.Context, scope store.FeedScope, from, now time.Time) (int, int, error) {
	var camps []*simCampaign
	base := map[string]adcamp.Money{}
	err := s.read(ctx, func(tx store.Tx) error {
		camps = nil
		byID := map[string]*simCampaign{}
		err := tx.ScanServing(ctx, adcamp.Sandbox, scope, func(k *store.ServingKeyword) error {
			if k.Status != adcamp.StatusActive || k.AdGroupStatus != adcamp.StatusActive || k.Campaign.Status != adcamp.StatusActive {
				return nil
			}
			c := byID[k.Campaign.ID]
			if c == nil {
				c = &simCampaign{c: k.Campaign, zone: k.AccountTimeZone}
				byID[c.c.ID] = c
				camps = append(camps, c)
			}
			bid := k.DefaultBid
			if k.Bid != nil {
				bid = *k.Bid
			}
			c.keywords = append(c.keywords, simKeyword{id: k.ID, matchType: k.MatchType, bid: bid})
			return nil
		})
		if err != nil {
			return err
		}
		byZone := map[string][]string{}
		for _, c := range camps {
			byZone[c.zone] = append(byZone[c.zone], c.c.ID)
		}
		for zone, ids := range byZone {
			_, dayFrom, _ := accountDay(zone, from)
			if !dayFrom.Before(from) {
				continue
			}
			m, err := tx.CampaignSpend(ctx, ids, dayFrom, from)
			if err != nil {
				return err
			}
			for id, v := range m {
				base[id] = v
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	var batch []DeliveryItem
	rows, keywords := 0, 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if _, err := s.ingestDelivery(ctx, adcamp.Sandbox, batch, true); err != nil {
			return err
		}
		rows += len(batch)
		batch = batch[:0]
		return nil
	}
	current := now.Truncate(time.Hour)
	seed := s.simulator().Seed
	figs := []simFigures{}
	for _, c := range camps {
		keywords += len(c.keywords)
		loc := zoneOf(c.zone)
		var day adcamp.Date
		spent := base[c.c.ID]
		for h := from; !h.After(current); h = h.Add(time.Hour) {
			d, _, _ := accountDay(c.zone, h)
			if d != day {
				if !day.IsZero() {
					spent = 0
				}
				day = d
			}
			if adcamp.ServingOf(&c.c, d, 0) != adcamp.ServingServing {
				continue
			}
			frac := 1.0
			if h.Equal(current) {
				frac = float64(now.Sub(h)) / float64(time.Hour)
			}
			localHour := h.In(loc).Hour()
			figs = figs[:0]
			var cost adcamp.Money
			for _, k := range c.keywords {
				f := simHour(seed, k, h, localHour, frac)
				if spent >= c.c.BudgetDaily {
					f = simFigures{} // the ad server stopped serving it for the day
				}
				cost += f.cost
				figs = append(figs, f)
			}
			if spent < c.c.BudgetDaily && spent+cost > c.c.BudgetDaily {
				capHour(figs, c.c.BudgetDaily-spent, cost)
				cost = c.c.BudgetDaily - spent
			}
			spent += cost
			hour := h.Format(time.RFC3339)
			for i, k := range c.keywords {
				f := figs[i]
				batch = append(batch, DeliveryItem{KeywordID: k.id, Hour: hour,
					Impressions: adcamp.Some(f.impressions), Clicks: adcamp.Some(f.clicks), Orders: adcamp.Some(f.orders),
					Cost: adcamp.Some(f.cost.String()), Sales: adcamp.Some(f.sales.String())})
				if len(batch) == MaxDeliveryBatch {
					if err := flush(); err != nil {
						return rows, keywords, err
					}
				}
			}
		}
	}
	return rows, keywords, flush()
}

// simFigures are one keyword's figures in one hour.
type simFigures struct {
	impressions, clicks, orders int64
	cost, sales                 adcamp.Money
}

// Per match type: impressions an hour at the day's peak for a bid of
// 1.00, click-through and conversion rates. Broad matches more searches
// and converts less.
var simMatch = map[adcamp.MatchType]struct{ impressions, ctr, conversion float64 }{
	adcamp.MatchExact:  {40, 0.045, 0.12},
	adcamp.MatchPhrase: {90, 0.028, 0.09},
	adcamp.MatchBroad:  {180, 0.014, 0.06},
}

// simHour makes up k's figures in hour h (localHour in its account's
// zone), frac of the way through it.
func simHour(seed uint64, k simKeyword, h time.Time, localHour int, frac float64) simFigures {
	hs := fnv.New64a()
	hs.Write([]byte(k.id))
	r := rand.New(rand.NewPCG(seed, hs.Sum64()^uint64(h.Unix())))
	m, ok := simMatch[k.matchType]
	if !ok {
		m = simMatch[adcamp.MatchBroad]
	}
	// Searches follow the day: few at night, most in the evening.
	daily := 0.12 + 0.88*math.Pow(math.Sin(math.Pi*float64((localHour+19)%24)/24), 2)
	// A higher bid wins more auctions, with diminishing returns.
	bid := float64(k.bid) / 100
	win := math.Min(3, math.Max(0.2, math.Sqrt(bid)))
	noise := func(spread float64) float64 { return 1 - spread + 2*spread*r.Float64() }
	round := func(x float64) int64 { // stochastic, so that small rates still add up
		n := math.Floor(x)
		if r.Float64() < x-n {
			n++
		}
		return int64(n)
	}
	var f simFigures
	impressions := round(m.impressions * daily * win * noise(0.35))
	clicks := min(impressions, round(float64(impressions)*m.ctr*noise(0.5)))
	orders := min(clicks, round(float64(clicks)*m.conversion*noise(0.6)))
	// Each click costs what beat the next bid: 50 to 95% of the bid.
	cpc := adcamp.Money(math.Max(1, math.Round(float64(k.bid)*(0.5+0.45*r.Float64()))))
	price := adcamp.Money(math.Round(2500 * noise(0.6))) // an order's value, around 25.00
	// Running totals of the hour so far: frac of the whole hour's figures.
	f.impressions = int64(float64(impressions) * frac)
	f.clicks = min(f.impressions, int64(float64(clicks)*frac))
	f.orders = min(f.clicks, int64(float64(orders)*frac))
	f.cost = adcamp.Money(f.clicks) * cpc
	f.sales = adcamp.Money(f.orders) * price
	return f
}

// capHour cuts figs, whose cost is total, to cost exactly left: the ad
// server stopped serving the campaign when its budget ran out, part of
// the way through the hour. The cents lost to rounding go to the first
// keyword with a cost, so that the day's spend is the budget exactly and
// the campaign reads budget_exhausted.
func capHour(figs []simFigures, left, total adcamp.Money) {
	ratio := float64(left) / float64(total)
	var sum adcamp.Money
	for i := range figs {
		f := &figs[i]
		f.impressions = int64(float64(f.impressions) * ratio)
		f.clicks = min(f.impressions, int64(float64(f.clicks)*ratio))
		f.orders = min(f.clicks, int64(float64(f.orders)*ratio))
		f.sales = adcamp.Money(float64(f.sales) * ratio)
		f.cost = adcamp.Money(float64(f.cost) * ratio)
		sum += f.cost
	}
	for i := range figs {
		if figs[i].cost > 0 || i == len(figs)-1 {
			figs[i].cost += left - sum
			return
		}
	}
}
