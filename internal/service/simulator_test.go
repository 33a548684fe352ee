package service_test

import (
	"crypto/rand"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// simTree is a campaign with an ad group of four keywords, one of them
// paused, in tenant t.
type simTree struct {
	campaign *adcamp.Campaign
	keywords []*adcamp.Keyword
}

func newSimTree(t *testing.T, svc *service.Service, tenant adcamp.Tenant, budget string) simTree {
	t.Helper()
	c, err := svc.CreateCampaign(admin, tenant, adcamp.CampaignInput{Name: adcamp.Some("Sim " + budget), BudgetDaily: adcamp.Some(budget),
		Marketplace: adcamp.Some("US")}, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := svc.CreateAdGroup(admin, tenant, c.ID, adcamp.AdGroupInput{Name: adcamp.Some("G"), DefaultBid: adcamp.Some("1.20")}, false)
	if err != nil {
		t.Fatal(err)
	}
	in := []adcamp.KeywordInput{
		{Text: adcamp.Some("running shoes"), MatchType: adcamp.Some(adcamp.MatchExact)},
		{Text: adcamp.Some("running shoes"), MatchType: adcamp.Some(adcamp.MatchPhrase), Bid: adcamp.Some("2.00")},
		{Text: adcamp.Some("shoes"), MatchType: adcamp.Some(adcamp.MatchBroad), Bid: adcamp.Some("0.40")},
		{Text: adcamp.Some("paused shoes"), MatchType: adcamp.Some(adcamp.MatchBroad), Status: adcamp.Some(adcamp.StatusPaused)},
	}
	res, err := svc.CreateKeywords(admin, tenant, g.ID, in, service.BatchOptions{Batch: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := simTree{campaign: c}
	for _, r := range res {
		tr.keywords = append(tr.keywords, r.Keyword)
	}
	return tr
}

// daySpends returns a campaign's spend on each of the last days UTC days
// before now's (the accounts of these tests are on UTC).
func daySpends(t *testing.T, db store.Store, campaignID string, now time.Time, days int) []adcamp.Money {
	t.Helper()
	out := make([]adcamp.Money, days)
	today := now.Truncate(24 * time.Hour)
	err := db.Read(ctx, func(tx store.Tx) error {
		for i := range days {
			from := today.AddDate(0, 0, -i)
			m, err := tx.CampaignSpend(ctx, []string{campaignID}, from, from.Add(24*time.Hour))
			if err != nil {
				return err
			}
			out[i] = m[campaignID]
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSandboxSimulator: the simulator backfills a sandbox account's last
// days through the delivery path, stops each campaign at its budget
// (which then reads budget_exhausted), posts the same figures for the
// same seed and other figures for another, runs only when turned on, and
// never touches production.
func TestSandboxSimulator(t *testing.T) {
	t.Parallel()
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	db := openStore(t)
	clk := &clock{now: time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)}
	svc := service.New(service.Config{Store: db, Box: box, Now: clk.Now})
	a, err := svc.CreateAccount(admin, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	sandbox := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}
	prod := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	rich := newSimTree(t, svc, sandbox, "100000.00")
	poor := newSimTree(t, svc, sandbox, "3.00")
	live := newSimTree(t, svc, prod, "100000.00")

	if _, err := svc.SimulateSandbox(admin, sandbox, 3); adcamp.ErrorCode(err) != adcamp.CodeConflict {
		t.Errorf("SimulateSandbox with the simulator off = %v, want CONFLICT", err)
	}
	if n, err := svc.SimulatorTick(ctx); n != 0 || err != nil {
		t.Errorf("SimulatorTick with the simulator off = %d, %v; want 0, nil", n, err)
	}
	svc.SetSimulator(service.SimulatorConfig{Enabled: true, Seed: 7})
	if _, err := svc.SimulateSandbox(admin, prod, 3); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("SimulateSandbox(production) = %v, want NOT_FOUND", err)
	}
	for _, days := range []int{0, 31} {
		if _, err := svc.SimulateSandbox(admin, sandbox, days); adcamp.ErrorCode(err) != adcamp.CodeValidation {
			t.Errorf("SimulateSandbox(days %d) = %v, want VALIDATION_ERROR", days, err)
		}
	}

	got, err := svc.SimulateSandbox(admin, sandbox, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Two days and 9 hours and a half of today: 58 hours, the last one so far.
	want := service.Simulated{Days: 3, From: adcamp.DateOf(time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)),
		To: adcamp.DateOf(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)), Keywords: 6, Rows: 6 * 58}
	if *got != want {
		t.Errorf("SimulateSandbox(3) = %+v, want %+v", got, want)
	}
	richDays := daySpends(t, db, rich.campaign.ID, clk.Now(), 4)
	for i, d := range richDays[:3] {
		if d <= 0 {
			t.Errorf("rich campaign's spend %d days ago = %s, want some", i, d)
		}
	}
	if richDays[3] != 0 {
		t.Errorf("rich campaign's spend 3 days ago (before the backfill) = %s, want 0", richDays[3])
	}
	for i, d := range daySpends(t, db, poor.campaign.ID, clk.Now(), 3) {
		if d != 300 {
			t.Errorf("poor campaign's spend %d days ago = %s, want its budget 3.00 exactly", i, d)
		}
	}
	serving, err := svc.CampaignServing(ctx, sandbox, []*adcamp.Campaign{rich.campaign, poor.campaign})
	if err != nil {
		t.Fatal(err)
	}
	if serving[0].Status != adcamp.ServingServing || serving[1].Status != adcamp.ServingBudgetExhausted || serving[1].SpendToday != 300 {
		t.Errorf("serving after the backfill = %+v, want the rich serving and the poor budget_exhausted at 3.00", serving)
	}
	if d := daySpends(t, db, live.campaign.ID, clk.Now(), 3); d[0]+d[1]+d[2] != 0 {
		t.Errorf("production spend after the backfill = %v, want none", d)
	}

	// The same seed posts the same figures again; another seed others.
	if _, err := svc.SimulateSandbox(admin, sandbox, 3); err != nil {
		t.Fatal(err)
	}
	if again := daySpends(t, db, rich.campaign.ID, clk.Now(), 4); again[0] != richDays[0] || again[1] != richDays[1] || again[2] != richDays[2] {
		t.Errorf("spend after the same backfill again = %v, want %v", again, richDays)
	}
	svc.SetSimulator(service.SimulatorConfig{Enabled: true, Seed: 8})
	if _, err := svc.SimulateSandbox(admin, sandbox, 3); err != nil {
		t.Fatal(err)
	}
	if other := daySpends(t, db, rich.campaign.ID, clk.Now(), 3); other[0] == richDays[0] && other[1] == richDays[1] && other[2] == richDays[2] {
		t.Errorf("spend with another seed = %v, the same as with the first", other)
	}

	// The running totals of the current hour grow as it passes; the tick
	// never posts to production.
	svc.SetSimulator(service.SimulatorConfig{Enabled: true, Seed: 7})
	if _, err := svc.SimulatorTick(ctx); err != nil {
		t.Fatal(err)
	}
	before := daySpends(t, db, rich.campaign.ID, clk.Now(), 1)[0]
	clk.Advance(25 * time.Minute)
	n, err := svc.SimulatorTick(ctx)
	if err != nil || n != 6*2 {
		t.Errorf("SimulatorTick = %d, %v; want %d rows (the previous hour and this one)", n, err, 6*2)
	}
	if after := daySpends(t, db, rich.campaign.ID, clk.Now(), 1)[0]; after < before {
		t.Errorf("today's spend went from %s to %s as the hour passed, want more", before, after)
	}
	if d := daySpends(t, db, live.campaign.ID, clk.Now(), 1); d[0] != 0 {
		t.Errorf("production spend after a tick = %v, want none", d)
	}
	if d := daySpends(t, db, poor.campaign.ID, clk.Now(), 1); d[0] != 300 {
		t.Errorf("the poor campaign's spend after a tick = %v, want its budget, 3.00", d)
	}
}
