package sqlite

import (
	"bytes"
	"context"
	"strings"
	"sync"

	"github.com/adcamp/adcamp/internal/store"
)

// liveKeywords is what the writer knows exists among keywords: those it
// found in transactions that committed, under the generation of
// deletions they read (keyword_deletions, which a trigger changes at
// every deleted keyword, migration 00049). While the generation read is
// that one, none of them has been deleted since, by any transaction or
// process, and DeliveryKeywords takes them without a lookup; a new
// generation forgets them all. Keywords created since do not matter: a
// known keyword exists whatever else was added.
type liveKeywords struct {
	mu  sync.Mutex
	gen []byte
	ids map[string]struct{}
}

// each calls fn for each of ids, with whether it is known to exist
// under gen (none is when the generation is another).
func (l *liveKeywords) each(gen []byte, ids []string, fn func(id string, known bool)) {
	if l != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	valid := l != nil && l.ids != nil && bytes.Equal(l.gen, gen)
	for _, id := range ids {
		known := false
		if valid {
			_, known = l.ids[id]
		}
		fn(id, known)
	}
}

// add records ids as existing under gen, committed.
func (l *liveKeywords) add(gen []byte, ids []string) {
	if l == nil || len(ids) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ids == nil || !bytes.Equal(l.gen, gen) || len(l.ids)+len(ids) > store.MaxCachedPlaces {
		// A new generation, or past the bound: start over, as the place
		// cache does.
		l.gen, l.ids = bytes.Clone(gen), make(map[string]struct{}, len(ids))
	}
	for _, id := range ids {
		if len(l.ids) >= store.MaxCachedPlaces {
			break
		}
		l.ids[strings.Clone(id)] = struct{}{} // not the request's memory
	}
}

// liveStage is what one transaction of the writer found of keywords,
// given to its liveKeywords once it commits; a write rolled back to its
// savepoint undoes its part (Mark, Undo), as HourStage does.
type liveStage struct {
	cache *liveKeywords
	gen   []byte
	ids   []string
}

// each is liveKeywords.each of the writer's (every keyword unknown in a
// read's transaction).
func (s *liveStage) each(gen []byte, ids []string, fn func(id string, known bool)) {
	var c *liveKeywords
	if s != nil {
		c = s.cache
	}
	c.each(gen, ids, fn)
}

// put stages ids, found under gen. A transaction that changed the
// generation since it staged others (it deleted keywords) keeps only
// those of the new one.
func (s *liveStage) put(gen []byte, ids []string) {
	if s == nil {
		return
	}
	if !bytes.Equal(s.gen, gen) {
		s.gen, s.ids = gen, nil
	}
	s.ids = append(s.ids, ids...)
}

func (s *liveStage) mark() int {
	if s == nil {
		return 0
	}
	return len(s.ids)
}

func (s *liveStage) undo(mark int) {
	if s != nil && mark < len(s.ids) {
		s.ids = s.ids[:mark]
	}
}

// commit gives the staged keywords to the cache: call it once the
// transaction has committed.
func (s *liveStage) commit() {
	if s != nil {
		s.cache.add(s.gen, s.ids)
		s.gen, s.ids = nil, nil
	}
}

// deletionGeneration reads the generation of the keywords' deletions.
func (t *tx) deletionGeneration(ctx context.Context) ([]byte, error) {
	var gen []byte
	err := t.queryRow(ctx, `SELECT generation FROM keyword_deletions`).Scan(&gen)
	return gen, err
}
