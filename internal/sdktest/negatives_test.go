package sdktest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/adcamp/adcamp/client"
)

func TestNegativesThroughTheSDK(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	ag := newAdGroup(t, c)
	kw := must(c.CreateKeyword(ctx, ag.ID, client.KeywordCreate{Text: "free shoes", MatchType: client.MatchBroad}, nil))

	items := make([]client.NegativeKeywordCreate, client.MaxNegativeBatch)
	for i := range items {
		items[i] = client.NegativeKeywordCreate{Text: fmt.Sprintf("negative %04d", i), MatchType: client.MatchExact}
	}
	items[0] = client.NegativeKeywordCreate{Text: "FREE", MatchType: client.MatchPhrase}
	out := must(c.CreateNegatives(ctx, client.AdGroupNegatives(ag.ID), items, nil))
	if len(out.Items) != 1000 || out.Items[0].Level != client.LevelAdGroup || out.Items[0].CampaignID != ag.CampaignID {
		t.Fatalf("CreateNegatives = %d items, first %+v", len(out.Items), out.Items[0])
	}
	if len(out.Warnings) != 1 || out.Warnings[0].KeywordID != kw.ID || out.Warnings[0].NegativeKeywordID != out.Items[0].ID {
		t.Errorf("warnings = %+v, want %s blocked by %s", out.Warnings, kw.ID, out.Items[0].ID)
	}
	n := 0
	for _, err := range c.AllNegatives(ctx, client.AdGroupNegatives(ag.ID), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1000 {
		t.Errorf("AllNegatives = %d, want 1000", n)
	}
	_, err := c.CreateNegatives(ctx, client.CampaignNegatives(ag.CampaignID), []client.NegativeKeywordCreate{
		{Text: "x", MatchType: client.MatchExact}, {Text: "X", MatchType: client.MatchExact}}, nil)
	if !client.IsDuplicateKeyword(err) {
		t.Errorf("a repeated text: err = %v, want DUPLICATE_KEYWORD", err)
	}
	part := must(c.CreateNegativesPartial(ctx, client.CampaignNegatives(ag.CampaignID), []client.NegativeKeywordCreate{
		{Text: "x", MatchType: client.MatchExact}, {Text: "y", MatchType: client.MatchBroad}}, nil))
	if part.Created != 1 || part.Failed != 1 || !client.IsValidation(part.Items[1].Err) {
		t.Errorf("CreateNegativesPartial = %+v", part)
	}

	blocked := must(c.ListKeywords(ctx, ag.ID, &client.KeywordListOptions{Blocked: true}))
	if blocked.TotalItems != 1 {
		t.Errorf("blocked keywords = %d, want 1", blocked.TotalItems)
	}
	paused := must(c.UpdateNegative(ctx, out.Items[0].ID, client.NegativeKeywordUpdate{Status: client.StatusPaused}, &client.UpdateOptions{IfMatch: 1}))
	if paused.Status != client.StatusPaused || paused.Version != 2 {
		t.Errorf("UpdateNegative = %+v", paused)
	}

	l := must(c.CreateNegativeList(ctx, client.NegativeListCreate{Name: "Brands"}, nil))
	entries := must(c.CreateNegatives(ctx, client.ListEntries(l.ID), []client.NegativeKeywordCreate{{Text: "shoes", MatchType: client.MatchPhrase}}, nil))
	a := must(c.AttachList(ctx, ag.CampaignID, l.ID))
	if len(a.Warnings) != 1 {
		t.Errorf("AttachList warnings = %+v, want 1", a.Warnings)
	}
	if ls := must(c.AttachedLists(ctx, ag.CampaignID)); len(ls) != 1 || ls[0].Entries != 1 || ls[0].Campaigns != 1 {
		t.Errorf("AttachedLists = %+v", ls)
	}
	if removed := must(c.RemoveListEntries(ctx, l.ID, []string{entries.Items[0].ID})); len(removed) != 1 {
		t.Errorf("RemoveListEntries = %v", removed)
	}
	if err := c.DetachList(ctx, ag.CampaignID, l.ID); err != nil {
		t.Error(err)
	}
	for _, err := range c.AllNegativeLists(ctx) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.DeleteNegativeList(ctx, l.ID, nil))
	if _, err := c.GetNegative(ctx, entries.Items[0].ID); !client.IsNotFound(err) {
		t.Errorf("GetNegative of a removed entry: %v, want NOT_FOUND", err)
	}
}
