package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/adcamp/adcamp"
)

// decodeAll returns the deltas of an entry.
func decodeAll(b []byte) ([]DayDelta, error) {
	var ds []DayDelta
	err := decodeDayDeltas(b, func(d *DayDelta) { ds = append(ds, *d) })
	return ds, err
}

// randomDeltas makes n deltas over a few accounts, campaigns, ad groups,
// keywords and days, with figures of either sign.
func randomDeltas(r *rand.Rand, n int) []DayDelta {
	out := make([]DayDelta, n)
	for i := range out {
		k := r.IntN(50)
		d := DayDelta{
			AccountID:   fmt.Sprintf("acc_%d", k%3),
			Environment: []adcamp.Environment{adcamp.Production, adcamp.Sandbox}[k%2],
			Level:       ReportLevel(1 + r.IntN(3)),
			Day:         20261120 + int32(r.IntN(3)),
			CampaignID:  fmt.Sprintf("cmp_%d", k%5),
			AdGroupID:   fmt.Sprintf("adg_%d", k%10),
			EntityID:    fmt.Sprintf("kw_%d", k),
			Metrics: Metrics{Impressions: r.Int64N(2000) - 1000, Clicks: r.Int64N(20) - 10, Orders: r.Int64N(4) - 2,
				Cost: adcamp.Money(r.Int64N(1<<40) - 1<<39), Sales: adcamp.Money(r.Int64N(100000) - 50000)},
		}
		if d.Level == LevelCampaign {
			d.AdGroupID = ""
		}
		out[i] = d
	}
	return out
}

func TestDayJournalRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 3000} {
		ds := randomDeltas(r, n)
		got, err := decodeAll(EncodeDayDeltas(ds))
		if err != nil {
			t.Fatalf("%d deltas: %v", n, err)
		}
		if !slices.Equal(ds, got) {
			t.Errorf("%d deltas decoded to %d, not the same", n, len(got))
		}
	}
}

func TestDayJournalRejectsDamage(t *testing.T) {
	entry := EncodeDayDeltas(randomDeltas(rand.New(rand.NewPCG(3, 4)), 40))
	for cut := range len(entry) {
		if _, err := decodeAll(entry[:cut]); err == nil {
			t.Fatalf("an entry cut to %d of %d bytes decoded", cut, len(entry))
		}
	}
	if _, err := decodeAll(append(slices.Clone(entry), 0)); err == nil {
		t.Error("an entry with a byte more decoded")
	}
	bad := slices.Clone(entry)
	bad[0] = 9
	if _, err := decodeAll(bad); err == nil {
		t.Error("an entry of an unknown version decoded")
	}
}

// TestDaySumsMatchOneByOne: summing entries gives what adding every
// delta to its row one at a time gives, in any order of the entries.
func TestDaySumsMatchOneByOne(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var entries [][]byte
	want := map[dayKey]DayDelta{}
	for range 12 {
		ds := randomDeltas(r, 200)
		entries = append(entries, EncodeDayDeltas(ds))
		for _, d := range ds {
			k := dayKey{d.AccountID, d.Environment, d.Level, d.Day, d.EntityID}
			w, ok := want[k]
			if !ok {
				w = d
				w.Metrics = Metrics{}
			}
			w.Impressions += d.Impressions
			w.Clicks += d.Clicks
			w.Orders += d.Orders
			w.Cost += d.Cost
			w.Sales += d.Sales
			want[k] = w
		}
	}
	var wantList []DayDelta
	for _, d := range want {
		if d.Metrics != (Metrics{}) {
			wantList = append(wantList, d)
		}
	}
	slices.SortFunc(wantList, compareDays)
	for _, order := range [][]int{r.Perm(len(entries)), r.Perm(len(entries))} {
		var s DaySums
		for _, i := range order {
			if err := s.Add(entries[i]); err != nil {
				t.Fatal(err)
			}
		}
		if got := s.Deltas(); !slices.Equal(got, wantList) {
			t.Fatalf("sums of %d entries in order %v: %d rows, want %d", len(entries), order, len(got), len(wantList))
		}
	}
}
