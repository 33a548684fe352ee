package postgres

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
)

// TestServiceUpdateRoundTrips counts the round trips of the service's
// update of a campaign as the API makes it (version-guarded, the campaign
// in the process's cache), for a change of its name and of its budget.
// A budget's change reads the campaign's spend for its serving status;
// read after the update, it made the version-guarded attempt fail and
// the update run again with row locks: three round trips more, and the
// sitting's updates cost PostgreSQL four times the ceiling's.
func TestServiceUpdateRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(pgtest.NewSchema(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	trips := &tripCounter{}
	cfg.ConnConfig.Tracer = trips
	db, err := openConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(service.Config{Store: db, Box: box})
	admin := service.WithOrigin(ctx, service.Origin{Actor: adcamp.Actor{Type: adcamp.ActorAdmin, ID: "root"}})
	a, err := svc.CreateAccount(admin, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c, err := svc.CreateCampaign(admin, tn, adcamp.CampaignInput{Name: adcamp.Some("Spring"),
		BudgetDaily: adcamp.Some("10.00"), Marketplace: adcamp.Some("US")}, false)
	if err != nil {
		t.Fatal(err)
	}
	budget := 10
	for _, u := range []struct {
		name string
		max  int64
		in   func() adcamp.CampaignInput
	}{
		{"name", 1, func() adcamp.CampaignInput { return adcamp.CampaignInput{Name: adcamp.Some("Summer")} }},
		// The spend's read, then the update with its records and the commit.
		{"budget", 2, func() adcamp.CampaignInput {
			budget++
			return adcamp.CampaignInput{BudgetDaily: adcamp.Some(adcamp.Money(budget * 100).String())}
		}},
	} {
		for round := range 2 { // the first fills the statement caches
			before := trips.n.Load()
			if _, err := svc.UpdateCampaign(service.VersionGuarded(admin), tn, c.ID, u.in(), service.IfMatch{}, false); err != nil {
				t.Fatalf("update of the %s: %v", u.name, err)
			}
			if n := trips.n.Load() - before; round == 1 && n > u.max {
				t.Errorf("an update of the %s took %d round trips, want at most %d", u.name, n, u.max)
			}
		}
	}
}
