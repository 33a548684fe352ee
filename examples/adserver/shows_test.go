package main

import "testing"

func TestShowsHonoursNegatives(t *testing.T) {
	k := Keyword{Text: "Running Shoes", MatchType: "phrase", Negatives: []Negative{
		{Text: "cheap running shoes", MatchType: "exact"},
		{Text: "shoes  KIDS", MatchType: "phrase"},
	}}
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
		if got := shows(k, c.q); got != c.want {
			t.Errorf("shows(%q) = %v, want %v", c.q, got, c.want)
		}
	}
	exact := Keyword{Text: "red hat", MatchType: "exact"}
	if !shows(exact, "Red Hat") || shows(exact, "red hat sale") {
		t.Error("an exact keyword shows only for its whole text")
	}
}
