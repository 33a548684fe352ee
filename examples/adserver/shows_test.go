package main

import "testing"

func TestShowsHonoursNegatives(t *testing.T) {
	k := Keyword{Text: "Running Shoes", MatchType: "phrase"}
	negs := []Negative{
		{Text: "cheap running shoes", MatchType: "exact"},
		{Text: "shoes  KIDS", MatchType: "phrase"},
	}
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"running shoes", true},
		{"best running shoes", true},
		{"cheap  RUNNING shoes", false}, // the exact negative, folded
		{"cheap running shoes sale", true},
		{"running shoes kids", false}, // the phrase negative
		{"kids shoes running", false}, // the keyword's phrase is not there
		{"shoes running", false},
	} {
		if got := shows(k, negs, c.q); got != c.want {
			t.Errorf("shows(%q) = %v, want %v", c.q, got, c.want)
		}
	}
	exact := Keyword{Text: "red hat", MatchType: "exact"}
	if !shows(exact, nil, "Red Hat") || shows(exact, nil, "red hat sale") {
		t.Error("an exact keyword shows only for its whole text")
	}
}

// TestFeedAppliesNegatives: a keyword's negatives are its ad group's, its
// campaign's and those of the lists attached to its campaign, as the
// feed's records say, and follow their changes.
func TestFeedAppliesNegatives(t *testing.T) {
	f := newFeed()
	k := Keyword{KeywordID: "kw_1", Text: "running shoes", MatchType: "phrase", AdGroupID: "adg_1", CampaignID: "cmp_1"}
	other := Keyword{KeywordID: "kw_2", Text: "running shoes", MatchType: "phrase", AdGroupID: "adg_2", CampaignID: "cmp_2"}
	for _, ch := range []Change{
		{Op: "upsert", Keyword: &k},
		{Op: "upsert", Keyword: &other},
		{Op: "upsert", Negative: &Negative{NegativeID: "nkw_1", Scope: "ad_group", ScopeID: "adg_1", Text: "kids", MatchType: "phrase"}},
		{Op: "upsert", Negative: &Negative{NegativeID: "nkw_2", Scope: "campaign", ScopeID: "cmp_1", Text: "cheap", MatchType: "phrase"}},
		{Op: "upsert", Negative: &Negative{NegativeID: "nkw_3", Scope: "list", ScopeID: "nkl_1", Text: "used", MatchType: "phrase"}},
	} {
		f.apply(ch)
	}
	blocked := func(k Keyword, q string) bool { return !shows(k, f.negativesOf(k), q) }
	steps := []struct {
		name   string
		change *Change
		q      string
		k      Keyword
		want   bool // blocked
	}{
		{"the ad group's negative", nil, "running shoes kids", k, true},
		{"not another ad group's", nil, "running shoes kids", other, false},
		{"the campaign's negative", nil, "cheap running shoes", k, true},
		{"a list not attached", nil, "used running shoes", k, false},
		{"the list attached", &Change{Op: "upsert", CampaignLists: &CampaignLists{CampaignID: "cmp_1", ListIDs: []string{"nkl_1"}}}, "used running shoes", k, true},
		{"not to another campaign", nil, "used running shoes", other, false},
		{"an entry added to it", &Change{Op: "upsert", Negative: &Negative{NegativeID: "nkw_4", Scope: "list", ScopeID: "nkl_1", Text: "free", MatchType: "phrase"}}, "free running shoes", k, true},
		{"the entry removed", &Change{Op: "remove", NegativeID: "nkw_4"}, "free running shoes", k, false},
		{"the list detached", &Change{Op: "remove", CampaignListsOf: "cmp_1"}, "used running shoes", k, false},
		{"the ad group's negative removed", &Change{Op: "remove", NegativeID: "nkw_1"}, "running shoes kids", k, false},
		{"a removal of what is not held", &Change{Op: "remove", NegativeID: "nkw_9"}, "cheap running shoes", k, true},
	}
	for _, s := range steps {
		if s.change != nil {
			f.apply(*s.change)
		}
		if got := blocked(s.k, s.q); got != s.want {
			t.Errorf("%s: %q blocked = %v, want %v", s.name, s.q, got, s.want)
		}
	}
}
