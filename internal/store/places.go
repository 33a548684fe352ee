package store

import (
	"sync"

	"github.com/adcamp/adcamp"
)

// PlaceCache remembers where keywords lie, for DeliveryKeywords: a
// keyword never moves to another ad group, an ad group never to another
// campaign, and neither to another account or environment, so a
// keyword's place, once read, stays true for as long as the keyword
// exists. The stores still find every keyword of a delivery request in
// the request's transaction (a deleted one is a row's error at once, in
// any process), through the primary key alone, and read the places only
// of those not cached: four lookups a row became one. A nil cache caches
// nothing.
type PlaceCache struct {
	mu     sync.Mutex
	places map[string]DeliveryKeyword
	ids    map[string]string // the places' ids, each held once
}

// MaxCachedPlaces bounds a PlaceCache: past it, it starts over (about 150
// bytes a keyword).
const MaxCachedPlaces = 200_000

// Get returns the place of keyword id, if cached.
func (c *PlaceCache) Get(id string) (DeliveryKeyword, bool) {
	if c == nil {
		return DeliveryKeyword{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.places[id]
	return k, ok
}

// Put caches the place of keyword id.
func (c *PlaceCache) Put(id string, k DeliveryKeyword) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.places == nil || len(c.places) >= MaxCachedPlaces {
		c.places = make(map[string]DeliveryKeyword)
		c.ids = make(map[string]string)
	}
	intern := func(s string) string {
		if held, ok := c.ids[s]; ok {
			return held
		}
		c.ids[s] = s
		return s
	}
	k.AccountID, k.CampaignID, k.AdGroupID = intern(k.AccountID), intern(k.CampaignID), intern(k.AdGroupID)
	k.Environment = adcamp.Environment(intern(string(k.Environment)))
	c.places[id] = k
}
