package store

import (
	"strings"
	"sync"
)

// HourCache remembers the figures last stored for each (keyword, hour) of
// delivery_hours by this process: an ad server sends the running totals of the
// same keywords' hour again and again, and the ingest needs the stored
// figures of each row (the change of its day and of its campaign's spend
// are the difference), which it otherwise reads in its transaction, a
// third of a 10,000-row request's time. Only committed figures go in: a
// transaction stages what it stores and the store applies it after the
// commit (HourStage). SQLite's one writer is the only process that
// writes the rows, and whatever deletes them clears the cache; on
// PostgreSQL, where any process may write them, a cached row is written
// only where it still holds what the cache says. A nil cache caches
// nothing.
type HourCache struct {
	mu    sync.Mutex
	hours map[HourKey]HourState
	ids   map[string]string // the keys' keyword ids, each a copy held once
}

// HourKey is a row's key in delivery_hours.
type HourKey struct {
	KeywordID string
	Hour      int64 // Unix microseconds
}

// HourState is what is stored of a row of delivery_hours: its day (0
// undated) and its figures.
type HourState struct {
	Day int32
	Metrics
}

// HourEntry is a row's key and what is stored of it.
type HourEntry struct {
	HourKey
	HourState
}

// MaxCachedHours bounds an HourCache: past it, it starts over (about 150
// bytes a row).
const MaxCachedHours = 200_000

// Get returns what is stored of the row of k, if cached.
func (c *HourCache) Get(k HourKey) (HourState, bool) {
	if c == nil {
		return HourState{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.hours[k]
	return s, ok
}

// apply caches es, committed, in order (a later entry of a key wins).
func (c *HourCache) apply(es []HourEntry) {
	if c == nil || len(es) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hours == nil || len(c.hours)+len(es) > MaxCachedHours {
		c.hours = make(map[HourKey]HourState, min(len(es), MaxCachedHours))
		c.ids = make(map[string]string, min(len(es), MaxCachedHours))
	}
	for _, e := range es {
		if len(c.hours) >= MaxCachedHours {
			return
		}
		// A copy of the id, not the request's: a string that shares the
		// memory of a request's body would keep the whole body alive.
		id, ok := c.ids[e.KeywordID]
		if !ok {
			id = strings.Clone(e.KeywordID)
			c.ids[id] = id
		}
		c.hours[HourKey{KeywordID: id, Hour: e.Hour}] = e.HourState
	}
}

// Clear forgets every row: what deletes hourly rows calls it (at once,
// which is safe whether or not its transaction commits).
func (c *HourCache) Clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hours, c.ids = nil, nil
}

// HourStage is what one transaction of the writer stored in
// delivery_hours, for its HourCache once it commits. Each write of a
// batch of writes runs in a savepoint: Mark before it, and Undo to the
// mark if it is rolled back.
type HourStage struct {
	Cache   *HourCache
	pending []HourEntry
}

// Fresh reports whether nothing is staged: the cache then holds what
// this transaction sees. Once a write of the transaction has stored
// hourly rows, the next reads them from the database, where they are.
func (s *HourStage) Fresh() bool { return s != nil && len(s.pending) == 0 }

// Cached returns what the cache holds of the row of k (nothing for a
// nil stage).
func (s *HourStage) Cached(k HourKey) (HourState, bool) {
	if s == nil {
		return HourState{}, false
	}
	return s.Cache.Get(k)
}

// Put stages es.
func (s *HourStage) Put(es ...HourEntry) {
	if s != nil {
		s.pending = append(s.pending, es...)
	}
}

// Mark returns the point Undo goes back to.
func (s *HourStage) Mark() int {
	if s == nil {
		return 0
	}
	return len(s.pending)
}

// Undo forgets what was staged after mark.
func (s *HourStage) Undo(mark int) {
	if s != nil && mark < len(s.pending) {
		s.pending = s.pending[:mark]
	}
}

// Forget clears the cache and what is staged: for what deletes hourly
// rows, whose transaction may have staged some of them before (at once,
// which is safe whether or not the transaction commits: what is not
// cached is read).
func (s *HourStage) Forget() {
	if s != nil {
		s.Cache.Clear()
		s.pending = nil
	}
}

// Stored stages what a delivery stores for rows (one per key) over old,
// the stored rows of their keys: each row's figures, and its day (the
// row's, or else the stored one).
func (s *HourStage) Stored(rows []DeliveryRow, old []HourFigures) {
	if s == nil {
		return
	}
	stored := make(map[HourKey]int32, len(old))
	for _, o := range old {
		stored[HourKey{KeywordID: o.KeywordID, Hour: o.Hour}] = o.Day
	}
	es := make([]HourEntry, len(rows))
	for i, r := range rows {
		k := HourKey{KeywordID: r.KeywordID, Hour: r.Hour.UnixMicro()}
		day := r.Day
		if day == 0 {
			day = stored[k]
		}
		es[i] = HourEntry{HourKey: k, HourState: HourState{Day: day,
			Metrics: Metrics{Impressions: r.Impressions, Clicks: r.Clicks, Orders: r.Orders, Cost: r.Cost, Sales: r.Sales}}}
	}
	s.Put(es...)
}

// Commit gives the staged rows to the cache: call it once the
// transaction has committed.
func (s *HourStage) Commit() {
	if s != nil {
		s.Cache.apply(s.pending)
		s.pending = nil
	}
}
