package store

import (
	"cmp"
	"slices"
	"strings"

	"github.com/adcamp/adcamp"
)

// DeliveryPlan is how a batch of delivery rows is written over the rows
// stored for their keys: both stores read the stored rows first (for the
// days they were added to), so they know which keys are new, which
// change and which are sent again unchanged, and by how much each
// campaign's hour moves. Writing that, rather than upserting every row
// and summing each touched (campaign, hour) again over delivery_hours,
// was most of the ingest's speed-up (bench/notes/2026-11-27-operator-speed.md).
type DeliveryPlan struct {
	// Insert holds the rows of keys not stored.
	Insert []DeliveryRow
	// Update holds the rows of stored keys whose figures or day change,
	// Day set to the day to store (the stored one when the row has none).
	// Where the row lies stays the stored row's (a keyword never moves to
	// another ad group or campaign, so the stores may give the stored
	// rows the batch rows' places).
	Update []DeliveryRow
	// Spend is what to add to campaign_hour_spend, none zero.
	Spend []HourSpend
	// Days is what to add to delivery_days (DayDeltas).
	Days []DayDelta
}

// HourSpend is a change of one row of campaign_hour_spend.
type HourSpend struct {
	CampaignID string
	Hour       int64 // Unix microseconds
	Cost       adcamp.Money
}

// PlanDelivery plans the writing of rows (one per key) over old, the
// stored rows of their keys, dated or not (Day 0).
func PlanDelivery(old []HourFigures, rows []DeliveryRow) DeliveryPlan {
	stored := make(map[HourKey]int32, len(old))
	for i := range old {
		stored[HourKey{old[i].KeywordID, old[i].Hour}] = int32(i)
	}
	p := DeliveryPlan{Insert: make([]DeliveryRow, 0, max(0, len(rows)-len(old))), Update: make([]DeliveryRow, 0, len(old))}
	var spend spendSums
	days := make([]int32, len(rows))  // the day each row goes to
	oldOf := make([]int32, len(rows)) // the stored row of each, -1 for none
	for j, r := range rows {
		h := r.Hour.UnixMicro()
		i, ok := stored[HourKey{r.KeywordID, h}]
		if !ok {
			days[j], oldOf[j] = r.Day, -1
			p.Insert = append(p.Insert, r)
			spend.add(r.CampaignID, h, r.Cost)
			continue
		}
		oldOf[j] = i
		o := &old[i]
		if r.Day == 0 {
			r.Day = o.Day
		}
		days[j] = r.Day
		if r.Day == o.Day && (Metrics{r.Impressions, r.Clicks, r.Orders, r.Cost, r.Sales}) == o.Metrics {
			continue // sent again: nothing changes
		}
		r.DeliveryKeyword = o.DeliveryKeyword
		p.Update = append(p.Update, r)
		spend.add(o.CampaignID, h, r.Cost-o.Cost)
	}
	for _, h := range spend.sums {
		if h.Cost != 0 {
			p.Spend = append(p.Spend, h)
		}
	}
	p.Days = dayDeltas(old, rows, days, oldOf) // journaled: the fold sorts what it writes
	return p
}

// spendSums sums changes of cost by campaign and hour, in the order
// first added.
type spendSums struct {
	at   map[spendKey]int // index in sums
	sums []HourSpend
}

type spendKey struct {
	campaign string
	hour     int64
}

func (s *spendSums) add(campaign string, hour int64, cost adcamp.Money) {
	// A batch's rows come by keyword, so most often the same campaign's
	// hour as the row before: that one is found without the map.
	if n := len(s.sums); n > 0 && s.sums[n-1].Hour == hour && s.sums[n-1].CampaignID == campaign {
		s.sums[n-1].Cost += cost
		return
	}
	k := spendKey{campaign, hour}
	if i, ok := s.at[k]; ok {
		s.sums[i].Cost += cost
		return
	}
	if s.at == nil {
		s.at = make(map[spendKey]int)
	}
	s.at[k] = len(s.sums)
	s.sums = append(s.sums, HourSpend{campaign, hour, cost})
}

// SortDelivery returns rows in the order of delivery_hours' primary key
// (keyword, hour), a copy: both stores read and write the rows of a
// batch in that order, so that consecutive rows fall on the same pages
// (an ad server sends its keywords in no particular order, and a batch
// in the order sent touched each page many times, far apart). The rows
// are large: their places are sorted, then the rows copied in order.
func SortDelivery(rows []DeliveryRow) []DeliveryRow {
	compare := func(a, b *DeliveryRow) int {
		if c := strings.Compare(a.KeywordID, b.KeywordID); c != 0 {
			return c
		}
		return a.Hour.Compare(b.Hour)
	}
	sorted := true
	for i := 1; i < len(rows) && sorted; i++ {
		sorted = compare(&rows[i-1], &rows[i]) <= 0
	}
	if sorted {
		return slices.Clone(rows)
	}
	order := make([]int32, len(rows))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int { return compare(&rows[i], &rows[j]) })
	out := make([]DeliveryRow, len(rows))
	for k, i := range order {
		out[k] = rows[i]
	}
	return out
}

// compareDays orders day deltas as delivery_days' primary key.
func compareDays(a, b DayDelta) int {
	if c := strings.Compare(a.AccountID, b.AccountID); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Environment), string(b.Environment)); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(a.Level, b.Level), cmp.Compare(a.Day, b.Day), strings.Compare(a.EntityID, b.EntityID))
}
