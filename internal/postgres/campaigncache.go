package postgres

import (
	"sync"

	"github.com/adcamp/adcamp"
)

// campaignCache holds the campaigns this process last stored or read, so
// that the first attempt of a version-guarded write (an update of a
// campaign, store.WithVersionGuards) can start from its copy instead of a
// round trip that reads the row: the update is then one round trip, as a
// create is. The copy is a guess, checked where it matters:
//
//   - the guarded UPDATE changes the row only if its version, status and
//     channel account are still those of the copy (every change of a
//     campaign counts up its version but two: the system ending it, which
//     changes its status, and the deletion of its channel account, which
//     clears that), and fails the attempt otherwise (errVersionMoved);
//   - an attempt that read a copy and failed for any reason (a version
//     that If-Match names, a rule the old state broke), or that changed
//     nothing the guard could check (a dry run), is not answered either:
//     Write runs it again with row locks, on the row as stored.
//
// So a copy that another process made stale costs a second attempt, never
// a wrong answer. GET requests never read the cache. It holds at most
// maxCachedCampaigns campaigns, the oldest put out first.
type campaignCache struct {
	mu   sync.Mutex
	byID map[string]adcamp.Campaign
	ring []string // ids in the order they came in, for eviction
	next int      // the ring's oldest slot
}

// maxCachedCampaigns bounds the cache, and maxCachedNotes the campaigns
// it takes (a campaign's notes may be 1,000 characters): a campaign with
// short notes is about 300 bytes here, at most about 800, so the cache
// stays under 13 MiB.
const (
	maxCachedCampaigns = 16384
	maxCachedNotes     = 256 // bytes
)

func newCampaignCache(size int) *campaignCache {
	return &campaignCache{byID: make(map[string]adcamp.Campaign, size), ring: make([]string, 0, size)}
}

// get returns the tenant's campaign id, if the cache has it.
func (c *campaignCache) get(tn adcamp.Tenant, id string) (adcamp.Campaign, bool) {
	if c == nil {
		return adcamp.Campaign{}, false
	}
	c.mu.Lock()
	got, ok := c.byID[id]
	c.mu.Unlock()
	if !ok || got.AccountID != tn.AccountID || got.Environment != tn.Environment {
		return adcamp.Campaign{}, false
	}
	return got, true
}

// put stores a copy of camp, unless the cache has a later version of it
// (a read that was overtaken by a write of this process) or camp's notes
// are long (then it forgets camp).
func (c *campaignCache) put(camp *adcamp.Campaign) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(camp.Notes) > maxCachedNotes {
		delete(c.byID, camp.ID)
		return
	}
	if old, ok := c.byID[camp.ID]; ok {
		if old.Version <= camp.Version {
			c.byID[camp.ID] = *camp
		}
		return
	}
	if len(c.ring) < cap(c.ring) {
		c.ring = append(c.ring, camp.ID)
	} else {
		delete(c.byID, c.ring[c.next])
		c.ring[c.next] = camp.ID
		c.next = (c.next + 1) % len(c.ring)
	}
	c.byID[camp.ID] = *camp
}

// remove forgets campaigns (deleted, or changed without a new version).
func (c *campaignCache) remove(ids ...string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	for _, id := range ids {
		delete(c.byID, id)
	}
	c.mu.Unlock()
}
