package service_test

import (
	"fmt"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

func neg(text string, m adcamp.MatchType) adcamp.NegativeInput {
	return adcamp.NegativeInput{Text: adcamp.Some(text), MatchType: adcamp.Some(m)}
}

func TestBlocks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		m       adcamp.MatchType
		neg, kw string
		want    bool
	}{
		{adcamp.MatchExact, "Red Shoes", "red  shoes", true},
		{adcamp.MatchExact, "red shoes", "red shoes sale", false},
		{adcamp.MatchExact, "ＳＨＯＥＳ", "shoes", true},
		{adcamp.MatchPhrase, "red shoes", "buy red shoes now", true},
		{adcamp.MatchPhrase, "red shoes", "red running shoes", false},
		{adcamp.MatchPhrase, "red shoes", "shoes red", false},
		{adcamp.MatchPhrase, "red", "redder shoes", false},
		{adcamp.MatchPhrase, "STRASSE", "die straße", true},
	} {
		n := &adcamp.NegativeKeyword{Text: c.neg, MatchType: c.m}
		if got := n.Blocks(c.kw); got != c.want {
			t.Errorf("%s negative %q Blocks(%q) = %v, want %v", c.m, c.neg, c.kw, got, c.want)
		}
	}
}

func TestNegatives(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, _ := f.setup()
	tn := adcamp.Tenant{AccountID: acc, Environment: adcamp.Sandbox}
	c, g, k := f.tree(tn) // keyword "red shoes" (phrase)
	group := service.NegativeParent{Level: adcamp.LevelAdGroup, ID: g}
	campaign := service.NegativeParent{Level: adcamp.LevelCampaign, ID: c}

	// A negative that blocks the active keyword is stored, with a warning.
	out, err := f.svc.CreateNegatives(admin, tn, group, []adcamp.NegativeInput{neg("Red", adcamp.MatchPhrase)}, service.BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Warnings) != 1 || out.Warnings[0].KeywordID != k || out.Warnings[0].Text != "red shoes" {
		t.Errorf("warnings = %+v, want the keyword %s", out.Warnings, k)
	}
	n := out.Results[0].Negative
	if n.CampaignID != c || n.AdGroupID != g || n.Status != adcamp.StatusActive || n.Version != 1 {
		t.Errorf("negative = %+v", n)
	}
	// One that does not block warns of nothing.
	out, err = f.svc.CreateNegatives(admin, tn, campaign, []adcamp.NegativeInput{neg("red", adcamp.MatchExact)}, service.BatchOptions{})
	if err != nil || len(out.Warnings) != 0 {
		t.Errorf("CreateNegatives of a non-blocking negative = %+v, %v; want no warning", out, err)
	}

	// Look-alikes are duplicates; broad is refused; a batch is whole or nothing.
	_, err = f.svc.CreateNegatives(admin, tn, group, []adcamp.NegativeInput{neg("ＲＥＤ", adcamp.MatchPhrase)}, service.BatchOptions{})
	wantCode(t, "CreateNegatives of a look-alike", err, adcamp.CodeDuplicateKeyword)
	_, err = f.svc.CreateNegatives(admin, tn, group, []adcamp.NegativeInput{neg("ok", adcamp.MatchExact), neg("bad", adcamp.MatchBroad)},
		service.BatchOptions{Batch: true})
	wantCode(t, "CreateNegatives with broad", err, adcamp.CodeValidation, "items[1].match_type")
	out, err = f.svc.CreateNegatives(admin, tn, group, []adcamp.NegativeInput{neg("ok", adcamp.MatchExact), neg("bad", adcamp.MatchBroad), neg("OK", adcamp.MatchExact)},
		service.BatchOptions{Batch: true, Partial: true})
	if err != nil || out.Results[0].Negative == nil || out.Results[1].Err == nil || adcamp.ErrorCode(out.Results[2].Err) != adcamp.CodeDuplicateKeyword {
		t.Errorf("partial batch = %+v, %v", out, err)
	}
	page, err := f.svc.ListNegatives(admin, tn, group, adcamp.NegativeFilter{Page: 1, PageSize: 10})
	if err != nil || page.TotalItems != 2 {
		t.Errorf("ListNegatives = %+v, %v; want 2", page, err)
	}

	// Another account's ids are not found.
	other, _ := f.svc.CreateAccount(ctx, "Other", "")
	ot := adcamp.Tenant{AccountID: other.ID, Environment: adcamp.Sandbox}
	_, err = f.svc.CreateNegatives(admin, ot, group, []adcamp.NegativeInput{neg("x", adcamp.MatchExact)}, service.BatchOptions{})
	wantCode(t, "CreateNegatives in another account's ad group", err, adcamp.CodeNotFound)
	_, err = f.svc.GetNegative(admin, ot, n.ID)
	wantCode(t, "GetNegative of another account", err, adcamp.CodeNotFound)
	wantCode(t, "DeleteNegative of another account", f.svc.DeleteNegative(admin, ot, n.ID, service.IfMatch{}), adcamp.CodeNotFound)

	// The blocked keywords of the ad group; pausing the negative clears it.
	blocked, err := f.svc.ListBlockedKeywords(admin, tn, g, adcamp.KeywordFilter{Page: 1, PageSize: 10})
	if err != nil || blocked.TotalItems != 1 || blocked.Items[0].ID != k {
		t.Errorf("ListBlockedKeywords = %+v, %v; want %s", blocked, err, k)
	}
	up, err := f.svc.UpdateNegative(admin, tn, n.ID, adcamp.NegativeInput{Status: adcamp.Some(adcamp.StatusPaused)}, service.IfMatch{}, false)
	if err != nil || up.Status != adcamp.StatusPaused || up.Version != 2 {
		t.Errorf("UpdateNegative = %+v, %v", up, err)
	}
	_, err = f.svc.UpdateNegative(admin, tn, n.ID, adcamp.NegativeInput{Text: adcamp.Some("blue")}, service.IfMatch{}, false)
	wantCode(t, "UpdateNegative of the text", err, adcamp.CodeValidation)
	blocked, _ = f.svc.ListBlockedKeywords(admin, tn, g, adcamp.KeywordFilter{Page: 1, PageSize: 10})
	if blocked.TotalItems != 0 {
		t.Errorf("ListBlockedKeywords after the pause = %d, want 0", blocked.TotalItems)
	}

	// What applies to the keyword: the ad group's active and the campaign's.
	eff, err := f.svc.EffectiveNegatives(admin, tn, []string{k, "kw_nothing"})
	if err != nil || len(eff) != 1 || len(eff[k]) != 2 {
		t.Errorf("EffectiveNegatives = %v, %v; want 2 for %s", eff, err, k)
	}

	// History: a create, the update, and a delete with the ad group.
	if _, err := f.svc.DeleteAdGroup(admin, tn, g, service.IfMatch{}); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, ch := range f.history(tn, adcamp.ChangeFilter{EntityType: adcamp.EntityNegativeKeyword}) {
		if ch.EntityID == n.ID {
			lines = append(lines, fmt.Sprintf("%s %s", ch.Operation, fields(ch)))
		}
	}
	want := []string{"delete text=Red→null match_type=phrase→null status=paused→null list_id=null→null",
		"update status=active→paused", "create text=null→Red match_type=null→phrase status=null→active list_id=null→null"}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("history of %s =\n %q\nwant\n %q", n.ID, lines, want)
	}

	// Nothing changes under an ended campaign.
	if _, err := f.svc.UpdateCampaign(admin, tn, c, adcamp.CampaignInput{Status: adcamp.Some(adcamp.StatusEnded)}, service.IfMatch{}, false); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.CreateNegatives(admin, tn, campaign, []adcamp.NegativeInput{neg("late", adcamp.MatchExact)}, service.BatchOptions{})
	wantCode(t, "CreateNegatives under an ended campaign", err, adcamp.CodeInvalidStateTransition)
}

// fields writes a record's field changes as name=old→new.
func fields(ch *adcamp.Change) string {
	s := ""
	for i, f := range ch.Changes {
		if i > 0 {
			s += " "
		}
		s += f.Field + "=" + strOrNull(f.Old) + "→" + strOrNull(f.New)
	}
	return s
}

func strOrNull(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

func TestNegativeLists(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, owner := f.setup()
	tn := adcamp.Tenant{AccountID: acc, Environment: adcamp.Sandbox}
	c, _, k := f.tree(tn) // keyword "red shoes"
	viewer := f.member(acc, "viewer@example.com", adcamp.RoleViewer)
	_, err := f.svc.CreateNegativeList(as(viewer.User.ID), tn, adcamp.NegativeListInput{Name: adcamp.Some("Brands")}, false)
	wantCode(t, "CreateNegativeList by a viewer", err, adcamp.CodeForbidden)
	l, err := f.svc.CreateNegativeList(as(owner.User.ID), tn, adcamp.NegativeListInput{Name: adcamp.Some(" Brands ")}, false)
	if err != nil || l.Name != "Brands" {
		t.Fatalf("CreateNegativeList = %+v, %v", l, err)
	}
	list := service.NegativeParent{Level: adcamp.LevelList, ID: l.ID}
	out, err := f.svc.CreateNegatives(admin, tn, list, []adcamp.NegativeInput{neg("shoes", adcamp.MatchPhrase), neg("acme", adcamp.MatchExact)}, service.BatchOptions{Batch: true})
	if err != nil || len(out.Warnings) != 0 {
		t.Fatalf("CreateNegatives in an unattached list = %+v, %v; want no warnings", out, err)
	}
	a, err := f.svc.AttachNegativeList(admin, tn, c, l.ID)
	if err != nil || len(a.Warnings) != 1 || a.Warnings[0].KeywordID != k {
		t.Errorf("AttachNegativeList = %+v, %v; want a warning for %s", a, err, k)
	}
	// Adding to an attached list warns too.
	out, err = f.svc.CreateNegatives(admin, tn, list, []adcamp.NegativeInput{neg("RED SHOES", adcamp.MatchExact)}, service.BatchOptions{})
	if err != nil || len(out.Warnings) != 1 {
		t.Errorf("CreateNegatives in an attached list = %+v, %v; want 1 warning", out, err)
	}
	got, _ := f.svc.GetNegativeList(admin, tn, l.ID)
	if got.Entries != 3 || got.Campaigns != 1 {
		t.Errorf("GetNegativeList = %+v, want 3 entries, 1 campaign", got)
	}
	_, err = f.svc.RemoveListEntries(admin, tn, l.ID, []string{out.Results[0].Negative.ID, "nkw_01m8zzzzzzzzzzzzzzzzzzzzzz"})
	wantCode(t, "RemoveListEntries with a stranger", err, adcamp.CodeValidation, "ids[1]")
	if _, err := f.svc.RemoveListEntries(admin, tn, l.ID, []string{out.Results[0].Negative.ID}); err != nil {
		t.Errorf("RemoveListEntries = %v", err)
	}
	// At most 20 lists per campaign.
	for i := range adcamp.MaxListsPerCampaign {
		extra, _ := f.svc.CreateNegativeList(admin, tn, adcamp.NegativeListInput{Name: adcamp.Some(fmt.Sprint("L", i))}, false)
		_, err = f.svc.AttachNegativeList(admin, tn, c, extra.ID)
		if i < adcamp.MaxListsPerCampaign-1 && err != nil {
			t.Fatalf("attach %d: %v", i, err)
		}
	}
	wantCode(t, "AttachNegativeList of a 21st", err, adcamp.CodeConflict)
	if err := f.svc.DetachNegativeList(admin, tn, c, l.ID); err != nil {
		t.Errorf("DetachNegativeList = %v", err)
	}
	wantCode(t, "DetachNegativeList again", f.svc.DetachNegativeList(admin, tn, c, l.ID), adcamp.CodeNotFound)
	if err := f.svc.DeleteNegativeList(admin, tn, l.ID, service.IfMatch{}); err != nil {
		t.Errorf("DeleteNegativeList = %v", err)
	}
}

func TestListHoldsAtMost5000(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, _ := f.setup()
	tn := adcamp.Tenant{AccountID: acc, Environment: adcamp.Sandbox}
	l, err := f.svc.CreateNegativeList(admin, tn, adcamp.NegativeListInput{Name: adcamp.Some("Big")}, false)
	if err != nil {
		t.Fatal(err)
	}
	list := service.NegativeParent{Level: adcamp.LevelList, ID: l.ID}
	batch := func(from, n int) error {
		items := make([]adcamp.NegativeInput, n)
		for i := range items {
			items[i] = neg(fmt.Sprint("entry ", from+i), adcamp.MatchExact)
		}
		_, err := f.svc.CreateNegatives(admin, tn, list, items, service.BatchOptions{Batch: true})
		return err
	}
	for from := 0; from < adcamp.MaxNegativeListEntries-1; from += adcamp.MaxNegativeBatch {
		if err := batch(from, min(adcamp.MaxNegativeBatch, adcamp.MaxNegativeListEntries-1-from)); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, "a batch of 2 into a list of 4,999", batch(10000, 2), adcamp.CodeValidation, "5000")
	if err := batch(20000, 1); err != nil {
		t.Errorf("the 5,000th entry: %v", err)
	}
	wantCode(t, "the 5,001st entry", batch(30000, 1), adcamp.CodeValidation)
}
