package console

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adcamp/adcamp"
)

// TestParsePaste: each item keeps the number of its line in the box,
// whatever the line breaks; blank lines are skipped and counted; the last
// line break starts no line.
func TestParsePaste(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text string
		lines      []int
		texts      []string
		blank      int
	}{
		{"unix", "a\nb\n", []int{1, 2}, []string{"a", "b"}, 0},
		{"windows", "a\r\n\r\nb\r\n", []int{1, 3}, []string{"a", "b"}, 1},
		{"old mac", "a\r  \rb", []int{1, 3}, []string{"a", "b"}, 1},
		{"blank ends", "\n\n  a  \n\n", []int{3}, []string{"  a  "}, 3},
		{"nothing", "", nil, nil, 0},
		{"tab kept", "x\ty", []int{1}, []string{"x\ty"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := parsePaste(c.text, "phrase", " 0.50 ")
			if !cmp.Equal(p.lines, c.lines) || !cmp.Equal(p.texts, c.texts) || p.blank != c.blank || len(p.items) != len(c.lines) {
				t.Errorf("parsePaste(%q) = lines %v, texts %q, blank %d; want %v, %q, %d", c.text, p.lines, p.texts, p.blank, c.lines, c.texts, c.blank)
			}
			for _, in := range p.items {
				if in.MatchType != adcamp.Some(adcamp.MatchPhrase) || in.Bid != adcamp.Some(" 0.50 ") {
					t.Errorf("an item is %+v, want the match type and bid of the form", in)
				}
			}
		})
	}
	if p := parsePaste("a", "", "  "); p.items[0].MatchType.Set || p.items[0].Bid.Set {
		t.Errorf("no match type and a blank bid are sent as %+v, want both left out", p.items[0])
	}
}

// TestOutcome: the service's outcomes of batch items become the lines
// they came from, in the console's words, duplicates said as such, and
// problems of the shared fields the form's, once. When the valid items
// were kept, the lines refused are numbered as they are put back in the
// box, and a repeat names no line that is no longer there.
func TestOutcome(t *testing.T) {
	t.Parallel()
	p := parsePaste("red\n\nblue\nred\n"+strings.Repeat("x", 81), "exact", "")
	dup := &adcamp.Error{Code: adcamp.CodeDuplicateKeyword, Details: []adcamp.FieldIssue{
		{Field: "text", Issue: `"red" (exact) repeats items[0].text`, Kind: adcamp.IssueRepeats, Param: "0"}}}
	bad := &adcamp.Error{Code: adcamp.CodeValidation, Details: []adcamp.FieldIssue{
		{Field: "text", Issue: "must be at most 80 characters (got 81)", Kind: adcamp.IssueTooLong, Param: "80"},
		{Field: "bid", Issue: "must be greater than 0", Kind: adcamp.IssueNotPositive}}}
	results := []adcamp.BatchResult{{Keyword: &adcamp.Keyword{}}, {Keyword: &adcamp.Keyword{}}, {Err: dup}, {Err: bad}}
	for _, c := range []struct {
		kept bool
		want []string
	}{
		{false, []string{"Line 4 (duplicate): it repeats line 1.", "Line 5: use at most 80 characters."}},
		{true, []string{"Line 1 (duplicate): it repeats an earlier line, which was stored.", "Line 2: use at most 80 characters."}},
	} {
		lines, fields, stored := p.outcome(results, c.kept)
		var got []string
		for _, l := range lines {
			got = append(got, l.String())
		}
		if !cmp.Equal(got, c.want) || stored != 2 || fields["bid"] != "The bid must be more than $0.00, or empty for the ad group's default." || len(fields) != 1 {
			t.Errorf("outcome(kept %v) = %q, %v, %d; want %q, the bid's problem, 2", c.kept, got, fields, stored, c.want)
		}
	}
}
