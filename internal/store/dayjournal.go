package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/adcamp/adcamp"
)

// The journal of days: PutDelivery does not add a batch's changes of the
// days to delivery_days itself. It appends them, encoded as one entry,
// to delivery_day_journal, and FoldDays adds the entries to
// delivery_days later, summed: every batch of an ad server's running
// totals changes the same keyword-days again, so a fold of many batches
// writes each of those rows once, where writing them with each batch was
// the largest part of the ingest's time (bench/README.md). The deltas
// are sums of integers, so folding entries in any order, together or
// apart, gives the same days. Reports fold what is pending before they
// read the days (the service's foldDays), so that they stay exact.

// dayJournalVersion is the first byte of an encoded entry.
const dayJournalVersion = 1

// EncodeDayDeltas encodes ds as one entry of the days' journal: a table
// of the distinct strings (ids repeat across a batch's deltas), then
// each delta as varints.
func EncodeDayDeltas(ds []DayDelta) []byte {
	index := make(map[string]uint64, len(ds)/2+8)
	var table []string
	ref := func(s string) uint64 {
		i, ok := index[s]
		if !ok {
			i = uint64(len(table))
			index[s] = i
			table = append(table, s)
		}
		return i
	}
	body := make([]byte, 0, len(ds)*24)
	for i := range ds {
		d := &ds[i]
		body = binary.AppendUvarint(body, ref(d.AccountID))
		body = binary.AppendUvarint(body, ref(string(d.Environment)))
		body = binary.AppendUvarint(body, uint64(d.Level))
		body = binary.AppendVarint(body, int64(d.Day))
		body = binary.AppendUvarint(body, ref(d.EntityID))
		body = binary.AppendUvarint(body, ref(d.CampaignID))
		body = binary.AppendUvarint(body, ref(d.AdGroupID))
		body = binary.AppendVarint(body, d.Impressions)
		body = binary.AppendVarint(body, d.Clicks)
		body = binary.AppendVarint(body, d.Orders)
		body = binary.AppendVarint(body, int64(d.Cost))
		body = binary.AppendVarint(body, int64(d.Sales))
	}
	size := 1 + 2*binary.MaxVarintLen64 + len(body)
	for _, s := range table {
		size += binary.MaxVarintLen64 + len(s)
	}
	out := make([]byte, 0, size)
	out = append(out, dayJournalVersion)
	out = binary.AppendUvarint(out, uint64(len(table)))
	for _, s := range table {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	out = binary.AppendUvarint(out, uint64(len(ds)))
	return append(out, body...)
}

var errDayEntry = errors.New("entry of the days' journal: truncated or malformed")

// decodeDayDeltas calls fn with each delta of an entry (fn's delta is
// reused).
func decodeDayDeltas(b []byte, fn func(*DayDelta)) error {
	if len(b) == 0 || b[0] != dayJournalVersion {
		return fmt.Errorf("entry of the days' journal: unknown version")
	}
	b = b[1:]
	bad := false
	uvarint := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	varint := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	strs := uvarint()
	if bad || strs > uint64(len(b)) {
		return errDayEntry
	}
	table := make([]string, strs)
	for i := range table {
		n := uvarint()
		if bad || n > uint64(len(b)) {
			return errDayEntry
		}
		table[i], b = string(b[:n]), b[n:]
	}
	str := func() string {
		i := uvarint()
		if i >= uint64(len(table)) {
			bad = true
			return ""
		}
		return table[i]
	}
	count := uvarint()
	if bad || count > uint64(len(b)) {
		return errDayEntry
	}
	var d DayDelta
	for range count {
		d.AccountID = str()
		d.Environment = adcamp.Environment(str())
		d.Level = ReportLevel(uvarint())
		d.Day = int32(varint())
		d.EntityID = str()
		d.CampaignID = str()
		d.AdGroupID = str()
		d.Impressions = varint()
		d.Clicks = varint()
		d.Orders = varint()
		d.Cost = adcamp.Money(varint())
		d.Sales = adcamp.Money(varint())
		if bad {
			return errDayEntry
		}
		fn(&d)
	}
	if len(b) != 0 {
		return errDayEntry
	}
	return nil
}

// DaySums sums the deltas of many entries of the journal by row of
// delivery_days: what one fold writes.
type DaySums struct {
	idx map[dayKey]int
	out []DayDelta
}

type dayKey struct {
	account string
	env     adcamp.Environment
	level   ReportLevel
	day     int32
	entity  string
}

// Add adds the deltas of an entry that EncodeDayDeltas wrote.
func (s *DaySums) Add(entry []byte) error {
	return decodeDayDeltas(entry, s.add)
}

func (s *DaySums) add(d *DayDelta) {
	if s.idx == nil {
		s.idx = make(map[dayKey]int)
	}
	k := dayKey{d.AccountID, d.Environment, d.Level, d.Day, d.EntityID}
	i, ok := s.idx[k]
	if !ok {
		s.idx[k] = len(s.out)
		s.out = append(s.out, *d)
		return
	}
	m := &s.out[i].Metrics
	m.Impressions += d.Impressions
	m.Clicks += d.Clicks
	m.Orders += d.Orders
	m.Cost += d.Cost
	m.Sales += d.Sales
}

// Deltas returns the sums, without those that net to nothing, in the
// order of delivery_days' primary key.
func (s *DaySums) Deltas() []DayDelta {
	kept := s.out[:0]
	for _, d := range s.out {
		if d.Metrics != (Metrics{}) {
			kept = append(kept, d)
		}
	}
	slices.SortFunc(kept, compareDays)
	s.idx, s.out = nil, nil
	return kept
}
