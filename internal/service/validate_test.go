package service

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adcamp/adcamp"
)

// fields lists the fields an error names, or nil.
func fields(err error) []string {
	e, ok := err.(*adcamp.Error)
	if !ok {
		return nil
	}
	issues, _ := e.Details.([]adcamp.FieldIssue)
	var out []string
	for _, is := range issues {
		out = append(out, is.Field)
	}
	return out
}

func TestCheckPaging(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		page, size int
		want       []string // fields refused
	}{
		{1, 1, nil},
		{1, 100, nil},
		{7, 20, nil},
		{0, 20, []string{"page"}},
		{-1, 20, []string{"page"}},
		{1, 0, []string{"page_size"}},
		{1, 101, []string{"page_size"}},
		{0, 0, []string{"page", "page_size"}},
		{1 << 30, 100, []string{"page"}}, // past any offset a database takes
		{(1 << 31) / 100, 100, nil},
	} {
		var issues adcamp.Issues
		checkPaging(&issues, tc.page, tc.size)
		if got := fields(issues.Err()); !slices.Equal(got, tc.want) {
			t.Errorf("checkPaging(%d, %d) refuses %v, want %v", tc.page, tc.size, got, tc.want)
		}
	}
}

// TestMergeCampaign: an update sets what it names, clears what it nulls,
// keeps the rest, and checks everything before it refuses.
func TestMergeCampaign(t *testing.T) {
	t.Parallel()
	s := New(Config{Now: func() time.Time { return time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC) }})
	day := func(s string) adcamp.Date { d, _ := adcamp.ParseDate(s); return d }
	current := adcamp.Campaign{
		ID: "cmp_x", Name: "Spring", BudgetDaily: 1000, Marketplace: "US", Status: adcamp.StatusActive,
		StartDate: day("2026-12-01"), EndDate: day("2026-12-31"), Notes: "n", Version: 3,
	}
	for _, tc := range []struct {
		name string
		in   adcamp.CampaignInput
		want func(c *adcamp.Campaign) // the change expected; nil: refused
		code adcamp.Code              // when refused
		bad  []string                 // the fields refused, for VALIDATION_ERROR
	}{
		{name: "name and budget", in: adcamp.CampaignInput{Name: adcamp.Some("  Summer "), BudgetDaily: adcamp.Some("12.5")},
			want: func(c *adcamp.Campaign) { c.Name, c.BudgetDaily = "Summer", 1250 }},
		{name: "null clears a date and the notes", in: adcamp.CampaignInput{EndDate: adcamp.Null[string](), Notes: adcamp.Null[string]()},
			want: func(c *adcamp.Campaign) { c.EndDate, c.Notes = adcamp.Date{}, "" }},
		{name: "pause", in: adcamp.CampaignInput{Status: adcamp.Some(adcamp.StatusPaused)},
			want: func(c *adcamp.Campaign) { c.Status = adcamp.StatusPaused }},
		{name: "end", in: adcamp.CampaignInput{Status: adcamp.Some(adcamp.StatusEnded)},
			want: func(c *adcamp.Campaign) { c.Status = adcamp.StatusEnded }},
		{name: "nothing to change", in: adcamp.CampaignInput{}, code: adcamp.CodeValidation, bad: []string{"body"}},
		{name: "read-only after create", in: adcamp.CampaignInput{Marketplace: adcamp.Some("DE"), ChannelAccountID: adcamp.Some[int64](1)},
			code: adcamp.CodeValidation, bad: []string{"marketplace", "channel_account_id"}},
		{name: "every bad field at once",
			in: adcamp.CampaignInput{Name: adcamp.Null[string](), BudgetDaily: adcamp.Some("0"),
				StartDate: adcamp.Some("2026-13-01"), Status: adcamp.Some[adcamp.Status]("archived")},
			code: adcamp.CodeValidation, bad: []string{"name", "budget_daily", "start_date", "status"}},
		{name: "end before start", in: adcamp.CampaignInput{StartDate: adcamp.Some("2027-01-10")},
			code: adcamp.CodeValidation, bad: []string{"end_date"}},
		{name: "end before today", in: adcamp.CampaignInput{EndDate: adcamp.Some("2026-11-23")},
			code: adcamp.CodeValidation, bad: []string{"end_date"}},
		{name: "budget over the bound", in: adcamp.CampaignInput{BudgetDaily: adcamp.Some("1000000.01")},
			code: adcamp.CodeValidation, bad: []string{"budget_daily"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := current
			err := s.mergeCampaign(&c, tc.in)
			if tc.want == nil {
				if adcamp.ErrorCode(err) != tc.code || !slices.Equal(fields(err), tc.bad) {
					t.Errorf("mergeCampaign = %v (fields %v), want %s refusing %v", err, fields(err), tc.code, tc.bad)
				}
				return
			}
			want := current
			tc.want(&want)
			if err != nil {
				t.Fatalf("mergeCampaign: %v", err)
			}
			if diff := cmp.Diff(want, c); diff != "" {
				t.Errorf("mergeCampaign (-want +got):\n%s", diff)
			}
		})
	}
	ended := current
	ended.Status = adcamp.StatusEnded
	if err := s.mergeCampaign(&ended, adcamp.CampaignInput{Status: adcamp.Some(adcamp.StatusActive)}); adcamp.ErrorCode(err) != adcamp.CodeInvalidStateTransition {
		t.Errorf("ended → active = %v, want INVALID_STATE_TRANSITION", err)
	}
}

func TestCheckText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"Spring sale", true},
		{"春のセール 🎉", true},
		{strings.Repeat("é", 200), true},
		{strings.Repeat("é", 201), false},
		{"", false},
		{"tab\there", false},
		{"line\nbreak", false},
	} {
		var issues adcamp.Issues
		checkText(&issues, "name", tc.in, 200)
		if got := issues.Err() == nil; got != tc.ok {
			t.Errorf("checkText(%.20q) accepted = %v, want %v (%v)", tc.in, got, tc.ok, issues)
		}
	}
}
