package store

import (
	"fmt"
	"testing"
)

// TestHourCacheStaysBounded: past MaxCachedHours rows the cache starts
// over rather than grow, and a stage gives it only what it kept.
func TestHourCacheStaysBounded(t *testing.T) {
	c := new(HourCache)
	entry := func(i int) HourEntry {
		return HourEntry{HourKey{fmt.Sprintf("kw_%07d", i), 3600e6}, HourState{Day: 20261128, Metrics: Metrics{Impressions: int64(i)}}}
	}
	fill := func(from, to int) {
		s := &HourStage{Cache: c}
		for i := from; i < to; i++ {
			s.Put(entry(i))
		}
		s.Commit()
	}
	fill(0, MaxCachedHours-10)
	if got, ok := c.Get(entry(5).HourKey); !ok || got != entry(5).HourState {
		t.Fatalf("Get(kw 5) = %+v, %v; want %+v", got, ok, entry(5).HourState)
	}
	fill(MaxCachedHours-10, MaxCachedHours+10) // 20 more: over the bound
	if n := len(c.hours); n != 20 {
		t.Errorf("after %d rows the cache holds %d; want it started over with the last 20", MaxCachedHours+10, n)
	}
	if _, ok := c.Get(entry(5).HourKey); ok {
		t.Errorf("kw 5 still cached after the cache started over")
	}
	s := &HourStage{Cache: c}
	s.Put(entry(1))
	mark := s.Mark()
	s.Put(entry(2))
	s.Undo(mark)
	s.Commit()
	if _, ok := c.Get(entry(2).HourKey); ok {
		t.Errorf("a row staged after the mark and undone is cached")
	}
	if _, ok := c.Get(entry(1).HourKey); !ok {
		t.Errorf("a row staged before the mark is not cached")
	}
	c.Clear()
	if _, ok := c.Get(entry(1).HourKey); ok {
		t.Errorf("a row is cached after Clear")
	}
}
