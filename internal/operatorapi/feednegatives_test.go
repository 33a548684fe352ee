package operatorapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// TestFeedNegativeRecords: each change of negatives answers its own small
// records, never the keywords they apply to: a negative created, paused
// or deleted is one record; attaching or detaching a list, whatever its
// entries and the campaign's keywords, one record; deleting the campaign
// removes its keywords, its negatives and its lists' record. After each,
// following equals a fresh snapshot, and the negatives an ad server
// computes from the records equal those the Open API says apply.
func TestFeedNegativeRecords(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		t.Parallel()
		e := newEnv(t, open(t))
		id, secret := e.operatorKey()
		fc := &feedClient{e: e, id: id, secret: secret, environment: adcamp.Production}
		tr := e.tree("", adcamp.Production, "20.00", 30)
		tn := tr.tenant
		state, pos := fc.snapshot()
		pos = fc.barrier(state, pos)

		// step makes a change, then checks the one answer that follows it
		// (its kinds of changes, as "op kind", and their number).
		step := func(name string, want map[string]int, change func() error) {
			t.Helper()
			if err := change(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// On PostgreSQL a change waits for the transactions of the
			// server that began before it (other tests', which under the
			// race detector may last seconds): ask until it comes. (What
			// the setup wrote is behind the barrier.)
			changes, next, _ := fc.answer(pos)
			for deadline := time.Now().Add(60 * time.Second); len(changes) == 0 && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
				changes, next, _ = fc.answer(next)
			}
			// Counted: the changes that change what is held (on PostgreSQL
			// an answer may repeat records an earlier one answered).
			got := map[string]int{}
			for _, c := range changes {
				before := fmt.Sprint(state)
				fc.apply(state, c)
				if fmt.Sprint(state) != before {
					got[kindOf(c)]++
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: the answer holds %v, want %v", name, got, want)
			}
			pos = fc.settle(state, next, name)
			checkEffective(t, e, adcamp.Production, state, name)
		}
		negs := func(prefix string, n int) []adcamp.NegativeInput {
			items := make([]adcamp.NegativeInput, n)
			for i := range items {
				items[i] = adcamp.NegativeInput{Text: adcamp.Some(fmt.Sprintf("%s %d", prefix, i)), MatchType: adcamp.Some(adcamp.MatchPhrase)}
			}
			return items
		}
		var groupNeg, campaignNeg *adcamp.NegativeKeyword
		step("an ad group's negative", map[string]int{"upsert negative": 1}, func() error {
			b, err := e.svc.CreateNegatives(admin, tn, service.NegativeParent{Level: adcamp.LevelAdGroup, ID: tr.group.ID}, negs("cheap", 1), service.BatchOptions{})
			if err == nil {
				groupNeg = b.Results[0].Negative
			}
			return err
		})
		step("a campaign's negative", map[string]int{"upsert negative": 1}, func() error {
			b, err := e.svc.CreateNegatives(admin, tn, service.NegativeParent{Level: adcamp.LevelCampaign, ID: tr.campaign.ID}, negs("free", 1), service.BatchOptions{})
			if err == nil {
				campaignNeg = b.Results[0].Negative
			}
			return err
		})
		var list *adcamp.NegativeList
		var entries []string
		step("a list of 200 entries", map[string]int{"upsert negative": 200}, func() error {
			var err error
			if list, err = e.svc.CreateNegativeList(admin, tn, adcamp.NegativeListInput{Name: adcamp.Some("L")}, false); err != nil {
				return err
			}
			b, err := e.svc.CreateNegatives(admin, tn, service.NegativeParent{Level: adcamp.LevelList, ID: list.ID}, negs("used", 200), service.BatchOptions{Batch: true})
			if err == nil {
				for _, r := range b.Results {
					entries = append(entries, r.Negative.ID)
				}
			}
			return err
		})
		step("the list attached", map[string]int{"upsert campaign_lists": 1}, func() error {
			_, err := e.svc.AttachNegativeList(admin, tn, tr.campaign.ID, list.ID)
			return err
		})
		if n := carryNegatives(state); n != 30 {
			t.Errorf("negatives apply to %d keywords, want all 30", n)
		}
		if got := effectiveNegatives(state)[tr.keywords[0].ID]; len(got) != 202 {
			t.Errorf("a keyword has %d negatives, want 202 (the ad group's, the campaign's, the list's 200)", len(got))
		}
		step("an entry paused", map[string]int{"remove negative": 1}, func() error {
			_, err := e.svc.UpdateNegative(admin, tn, entries[0], adcamp.NegativeInput{Status: adcamp.Some(adcamp.StatusPaused)}, service.IfMatch{}, false)
			return err
		})
		step("entries removed", map[string]int{"remove negative": 3}, func() error {
			_, err := e.svc.RemoveListEntries(admin, tn, list.ID, entries[1:4])
			return err
		})
		step("the ad group's negative paused", map[string]int{"remove negative": 1}, func() error {
			_, err := e.svc.UpdateNegative(admin, tn, groupNeg.ID, adcamp.NegativeInput{Status: adcamp.Some(adcamp.StatusPaused)}, service.IfMatch{}, false)
			return err
		})
		step("the ad group's negative resumed", map[string]int{"upsert negative": 1}, func() error {
			_, err := e.svc.UpdateNegative(admin, tn, groupNeg.ID, adcamp.NegativeInput{Status: adcamp.Some(adcamp.StatusActive)}, service.IfMatch{}, false)
			return err
		})
		step("the list detached", map[string]int{"remove campaign_lists": 1}, func() error {
			return e.svc.DetachNegativeList(admin, tn, tr.campaign.ID, list.ID)
		})
		step("the list attached again", map[string]int{"upsert campaign_lists": 1}, func() error {
			_, err := e.svc.AttachNegativeList(admin, tn, tr.campaign.ID, list.ID)
			return err
		})
		step("the campaign's negative deleted", map[string]int{"remove negative": 1}, func() error {
			return e.svc.DeleteNegative(admin, tn, campaignNeg.ID, service.IfMatch{})
		})
		step("the campaign deleted", map[string]int{"remove keyword": 30, "remove negative": 1, "remove campaign_lists": 1}, func() error {
			_, err := e.svc.DeleteCampaign(admin, tn, tr.campaign.ID, service.IfMatch{})
			return err
		})
		step("the list deleted", map[string]int{"remove negative": 196}, func() error {
			return e.svc.DeleteNegativeList(admin, tn, list.ID, service.IfMatch{})
		})
		if len(state) != 1 {
			t.Errorf("the feed holds %d records once everything is deleted, want 1 (the barrier's keyword)", len(state))
		}
	})
}

// kindOf names a change as "op kind".
func kindOf(c feedChange) string {
	switch {
	case c.Keyword != nil || c.KeywordID != "":
		return c.Op + " keyword"
	case c.Negative != nil || c.NegativeID != "":
		return c.Op + " negative"
	}
	return c.Op + " campaign_lists"
}

// TestFeedChangesPaged: a change that touches more records than an
// answer's limit is answered over several answers of at most that many,
// each position within the stretch, until the last; following them equals
// a fresh snapshot. A change made between two pages is answered too.
func TestFeedChangesPaged(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		t.Parallel()
		e := newEnv(t, open(t))
		id, secret := e.operatorKey()
		fc := &feedClient{e: e, id: id, secret: secret, environment: adcamp.Production, limit: 7}
		tr := e.tree("", adcamp.Production, "20.00", 30)
		state, pos := fc.snapshot()
		pos = fc.barrier(state, pos)
		if _, err := e.svc.UpdateAdGroup(admin, tr.tenant, tr.group.ID, adcamp.AdGroupInput{Status: adcamp.Some(adcamp.StatusPaused)}, service.IfMatch{}, false); err != nil {
			t.Fatal(err)
		}
		var sizes []int
		// On PostgreSQL a change waits for the transactions of the server
		// that began before it (other tests'): empty answers are asked again.
		for i, deadline := 0, time.Now().Add(60*time.Second); len(sizes) < 10 && time.Now().Before(deadline); i++ {
			changes, next, _ := fc.answer(pos)
			pos = next
			if len(changes) == 0 {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			sizes = append(sizes, len(changes))
			for _, c := range changes {
				fc.apply(state, c)
			}
			if paged := strings.Contains(next, "-"); paged != (len(sizes)%5 != 0) {
				t.Errorf("answer %d: position %q", i, next)
			}
			if len(sizes) == 2 { // resumed the keywords meanwhile: answered after the stretch
				if _, err := e.svc.UpdateAdGroup(admin, tr.tenant, tr.group.ID, adcamp.AdGroupInput{Status: adcamp.Some(adcamp.StatusActive)}, service.IfMatch{}, false); err != nil {
					t.Fatal(err)
				}
			}
		}
		if want := "[7 7 7 7 2 7 7 7 7 2]"; fmt.Sprint(sizes) != want {
			t.Errorf("answers of %v changes, want %s", sizes, want)
		}
		fc.settle(state, pos, "paged")
		if n := len(state); n != 31 {
			t.Errorf("following holds %d keywords, want 31 (the ad group's 30 and the barrier's)", n)
		}
		// A position within a stretch that is no position answers 400.
		for _, bad := range []string{"1-", "1-2-", "x-2-3kw_a", "1-x-3kw_a", "5-3-3kw_a", "4-4-3kw_a"} {
			if status, body := fc.get("/operator/v1/serving/changes?environment=production&after=" + bad); status != 400 {
				t.Errorf("after=%s: %d %s", bad, status, body)
			}
		}
		if status, body := fc.get("/operator/v1/serving/changes?environment=production&limit=0&after=" + pos); status != 400 {
			t.Errorf("limit=0: %d %s", status, body)
		}
	})
}
