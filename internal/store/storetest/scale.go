package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Scale is a store seeded for the scale benchmarks: Tenant holds N
// campaigns (with other tenants beside it), and Sample holds ids of some
// of them, in random order.
type Scale struct {
	DB     store.Store
	Tenant adcamp.Tenant
	N      int
	Sample []string
}

// ScaleSpan is the time over which the scale benchmarks' campaigns were
// created, up to the seeding.
const ScaleSpan = 2 * 365 * 24 * time.Hour

// ScaleOrder deals the campaigns that both stores' scale benchmarks seed,
// in creation order: n of the measured tenant interleaved at random with
// others of other tenants, created evenly from start over ScaleSpan.
type ScaleOrder struct {
	rnd          *rand.Rand
	start        time.Time
	step         time.Duration
	n, total     int
	mine, theirs int
}

// NewScaleOrder deals n campaigns of the measured tenant and others of
// other tenants, drawing from rnd.
func NewScaleOrder(rnd *rand.Rand, start time.Time, n, others int) *ScaleOrder {
	total := n + others
	return &ScaleOrder{rnd: rnd, start: start, step: ScaleSpan / time.Duration(max(total, 1)), n: n, total: total}
}

// Next returns the next campaign: when it was created, whether it is the
// measured tenant's, and its number among the measured tenant's campaigns
// or among the others. ok is false once all are dealt.
func (o *ScaleOrder) Next() (created time.Time, measured bool, i int, ok bool) {
	k := o.mine + o.theirs
	if k == o.total {
		return time.Time{}, false, 0, false
	}
	created = o.start.Add(time.Duration(k) * o.step)
	if o.rnd.IntN(o.total-k) < o.n-o.mine {
		o.mine++
		return created, true, o.mine - 1, true
	}
	o.theirs++
	return created, false, o.theirs - 1, true
}

// ScaleMix is the status and dates of the i-th campaign of a tenant, as
// both stores' scale benchmarks seed them: 2 in 100 ended, 10 paused, the
// rest active; one in ten with a start and an end date 30 days after its
// creation (zero when it has none), so that most of those are past their end
// when the benchmark runs.
func ScaleMix(i int, created time.Time) (status adcamp.Status, startDate, endDate adcamp.Date) {
	status = adcamp.StatusActive
	switch r := i % 100; {
	case r < 2:
		status = adcamp.StatusEnded
	case r < 12:
		status = adcamp.StatusPaused
	}
	if i%10 == 5 {
		startDate, endDate = adcamp.DateOf(created), adcamp.DateOf(created.AddDate(0, 0, 30))
	}
	return status, startDate, endDate
}

// BenchScale runs the hot operations on s, each one ReadOne or Write per
// call as the service makes it: get by id and update of the sampled
// campaigns, the first page of the list, page 1,000, the first page of
// the active ones, and create. Reads come first and create last, so that
// the created rows change no other figure.
func BenchScale(b *testing.B, s Scale) {
	b.Run("get", s.benchGet)
	b.Run("list-page-1", s.benchList(store.ListQuery{Limit: 20}))
	b.Run("list-page-1000", s.benchList(store.ListQuery{Limit: 20, Offset: 999 * 20}))
	b.Run("list-active-page-1", s.benchList(store.ListQuery{Status: adcamp.StatusActive, Limit: 20}))
	b.Run("update", s.benchUpdate)
	b.Run("create", s.benchCreate)
}

func (s Scale) benchGet(b *testing.B) {
	ctx := b.Context()
	i := 0
	for b.Loop() {
		id := s.Sample[i%len(s.Sample)]
		i++
		err := s.DB.ReadOne(ctx, func(tx store.Tx) error {
			_, err := tx.GetCampaign(ctx, s.Tenant, id)
			return err
		})
		if err != nil {
			b.Fatalf("GetCampaign(%s): %v", id, err)
		}
	}
}

// benchList lists with q, after checking that the page is full (or as
// full as the total allows) and the total counts every campaign.
func (s Scale) benchList(q store.ListQuery) func(b *testing.B) {
	return func(b *testing.B) {
		ctx := b.Context()
		q.Today = adcamp.DateOf(time.Now())
		list := func() (items []*adcamp.Campaign, total int64) {
			err := s.DB.ReadOne(ctx, func(tx store.Tx) (err error) {
				items, total, err = tx.ListCampaigns(ctx, s.Tenant, q)
				return err
			})
			if err != nil {
				b.Fatalf("ListCampaigns(%+v): %v", q, err)
			}
			return items, total
		}
		items, total := list()
		if want := min(q.Limit, max(0, int(total)-q.Offset)); len(items) != want {
			b.Fatalf("ListCampaigns(%+v) = %d items of %d, want %d", q, len(items), total, want)
		}
		if q.Status == "" && total < int64(s.N) {
			b.Fatalf("ListCampaigns(%+v) total = %d, want at least %d", q, total, s.N)
		}
		for b.Loop() {
			list()
		}
	}
}

// benchUpdate reads a sampled campaign and raises its budget, in one
// write, as a PATCH does.
func (s Scale) benchUpdate(b *testing.B) {
	ctx := b.Context()
	i := 0
	for b.Loop() {
		id := s.Sample[i%len(s.Sample)]
		i++
		err := s.DB.Write(ctx, func(tx store.Tx) error {
			c, err := tx.GetCampaign(ctx, s.Tenant, id)
			if err != nil {
				return err
			}
			prev := *c
			c.Version++
			c.BudgetDaily++
			c.UpdatedAt = time.Now()
			return tx.UpdateCampaign(ctx, c, &prev)
		})
		if err != nil {
			b.Fatalf("update %s: %v", id, err)
		}
	}
}

func (s Scale) benchCreate(b *testing.B) {
	ctx := b.Context()
	for b.Loop() {
		now := time.Now()
		c := &adcamp.Campaign{
			ID: adcamp.NewID(adcamp.PrefixCampaign, now), AccountID: s.Tenant.AccountID, Environment: s.Tenant.Environment,
			Name: "Spring sale", BudgetDaily: 2500, Marketplace: "US", Status: adcamp.StatusActive, Version: 1,
			CreatedAt: now, UpdatedAt: now,
		}
		if err := s.DB.Write(ctx, func(tx store.Tx) error { return tx.CreateCampaign(ctx, c) }); err != nil {
			b.Fatalf("CreateCampaign: %v", err)
		}
	}
}

// EndDueCampaigns stores ended for the campaigns past their end date on
// today, as the service does when it starts and every few seconds after
// (less the history it writes): DueCampaigns and SetCampaignsEnded, batch
// campaigns a transaction, until none is left, which it then checks. It
// returns how many it ended.
func EndDueCampaigns(tb testing.TB, db store.Store, today adcamp.Date, batch int) int {
	tb.Helper()
	ctx := context.Background()
	ended := 0
	for {
		var n int
		err := db.Write(ctx, func(tx store.Tx) error {
			due, err := tx.DueCampaigns(ctx, today, batch)
			if err != nil {
				return err
			}
			ids := make([]string, len(due))
			for i, c := range due {
				ids[i] = c.ID
			}
			n = len(ids)
			if n == 0 {
				return nil
			}
			return tx.SetCampaignsEnded(ctx, ids)
		})
		if err != nil {
			tb.Fatalf("end due campaigns: %v", err)
		}
		ended += n
		if n < batch {
			break
		}
	}
	// A write: DueCampaigns may lock what it finds (FOR UPDATE), which a
	// read-only transaction may not.
	err := db.Write(ctx, func(tx store.Tx) error {
		due, err := tx.DueCampaigns(ctx, today, 1)
		if err == nil && len(due) > 0 {
			err = fmt.Errorf("campaign %s is still due", due[0].ID)
		}
		return err
	})
	if err != nil {
		tb.Fatalf("after ending due campaigns: %v", err)
	}
	return ended
}
