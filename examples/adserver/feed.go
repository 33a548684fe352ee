package main

// feed is what the ad server holds of the serving feed: the servable
// keywords, the active negatives by scope, and the lists attached to each
// campaign. A keyword's negatives are computed when a search is served
// (negativesOf), so a change of negatives is one record, whatever the
// keywords it applies to.
type feed struct {
	keywords  map[string]Keyword
	negatives map[string]Negative            // by id
	byScope   map[string]map[string]Negative // by "scope:scope_id", then id
	lists     map[string][]string            // campaign id → attached list ids
}

func newFeed() *feed {
	return &feed{keywords: map[string]Keyword{}, negatives: map[string]Negative{},
		byScope: map[string]map[string]Negative{}, lists: map[string][]string{}}
}

// apply applies one change (or a snapshot's record, as an upsert).
func (f *feed) apply(ch Change) {
	switch {
	case ch.Keyword != nil:
		f.keywords[ch.Keyword.KeywordID] = *ch.Keyword
	case ch.KeywordID != "":
		delete(f.keywords, ch.KeywordID)
	case ch.Negative != nil:
		f.removeNegative(ch.Negative.NegativeID) // its scope never changes, but be safe
		n := *ch.Negative
		f.negatives[n.NegativeID] = n
		key := n.Scope + ":" + n.ScopeID
		if f.byScope[key] == nil {
			f.byScope[key] = map[string]Negative{}
		}
		f.byScope[key][n.NegativeID] = n
	case ch.NegativeID != "":
		f.removeNegative(ch.NegativeID)
	case ch.CampaignLists != nil:
		f.lists[ch.CampaignLists.CampaignID] = ch.CampaignLists.ListIDs
	case ch.CampaignListsOf != "":
		delete(f.lists, ch.CampaignListsOf)
	}
}

func (f *feed) removeNegative(id string) {
	n, ok := f.negatives[id]
	if !ok {
		return // removing what is not held is harmless
	}
	delete(f.negatives, id)
	key := n.Scope + ":" + n.ScopeID
	delete(f.byScope[key], id)
	if len(f.byScope[key]) == 0 {
		delete(f.byScope, key)
	}
}

// negativesOf returns the negatives that apply to a keyword: its ad
// group's, its campaign's, and those of the lists attached to its
// campaign.
func (f *feed) negativesOf(k Keyword) []Negative {
	var out []Negative
	add := func(scope, id string) {
		for _, n := range f.byScope[scope+":"+id] {
			out = append(out, n)
		}
	}
	add("ad_group", k.AdGroupID)
	add("campaign", k.CampaignID)
	for _, l := range f.lists[k.CampaignID] {
		add("list", l)
	}
	return out
}
