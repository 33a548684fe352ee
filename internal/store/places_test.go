package store

import (
	"strconv"
	"testing"

	"github.com/adcamp/adcamp"
)

func TestPlaceCache(t *testing.T) {
	var nilCache *PlaceCache
	nilCache.Put("kw_1", DeliveryKeyword{AccountID: "acc"})
	if _, ok := nilCache.Get("kw_1"); ok {
		t.Error("a nil cache holds a place")
	}
	var c PlaceCache
	place := DeliveryKeyword{AccountID: "acc_1", Environment: adcamp.Sandbox, CampaignID: "cmp_1", AdGroupID: "adg_1"}
	if _, ok := c.Get("kw_1"); ok {
		t.Error("an empty cache holds a place")
	}
	c.Put("kw_1", place)
	c.Put("kw_2", DeliveryKeyword{AccountID: string([]byte("acc_1")), Environment: adcamp.Sandbox, CampaignID: "cmp_1", AdGroupID: "adg_1"})
	if got, ok := c.Get("kw_1"); !ok || got != place {
		t.Errorf("Get(kw_1) = %+v, %v; want %+v", got, ok, place)
	}
	if len(c.ids) != 4 {
		t.Errorf("%d ids held for two keywords of one ad group, want 4 (each once)", len(c.ids))
	}
	for i := range MaxCachedPlaces {
		c.Put("kw_x"+strconv.Itoa(i), place)
	}
	if len(c.places) > MaxCachedPlaces {
		t.Errorf("%d places cached, want at most %d", len(c.places), MaxCachedPlaces)
	}
	if _, ok := c.Get("kw_1"); ok {
		t.Error("the cache kept its first places past its bound; want it to start over")
	}
}
