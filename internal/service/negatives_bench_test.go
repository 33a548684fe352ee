package service_test

import (
	"crypto/rand"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
)

// benchTree makes a campaign with groups ad groups of perGroup keywords
// each ("keyword g-i shoes"), as an operator.
func benchTree(b *testing.B, f *fixture, tn adcamp.Tenant, groups, perGroup int) (campaign string, adGroups []string) {
	b.Helper()
	c, err := f.svc.CreateCampaign(admin, tn, campaignInput("Bench"), false)
	if err != nil {
		b.Fatal(err)
	}
	for g := range groups {
		grp, err := f.svc.CreateAdGroup(admin, tn, c.ID, adcamp.AdGroupInput{Name: adcamp.Some(fmt.Sprint("G", g)), DefaultBid: adcamp.Some("0.40")}, false)
		if err != nil {
			b.Fatal(err)
		}
		for from := 0; from < perGroup; from += adcamp.MaxKeywordBatch {
			var items []adcamp.KeywordInput
			for i := from; i < min(perGroup, from+adcamp.MaxKeywordBatch); i++ {
				items = append(items, adcamp.KeywordInput{Text: adcamp.Some(fmt.Sprintf("keyword %d-%d shoes", g, i)), MatchType: adcamp.Some(adcamp.MatchBroad)})
			}
			if _, err := f.svc.CreateKeywords(admin, tn, grp.ID, items, service.BatchOptions{Batch: true}); err != nil {
				b.Fatal(err)
			}
		}
		adGroups = append(adGroups, grp.ID)
	}
	return c.ID, adGroups
}

// BenchmarkCreateNegatives1000 creates a batch of 1,000 negatives (half
// exact, half phrase) in an ad group of 1,000 keywords, checked for
// duplicates and for the keywords they block, with their history: one
// service call, one transaction (ADCAMP_TEST_STORE=postgres for
// PostgreSQL).
func BenchmarkCreateNegatives1000(b *testing.B) {
	f := benchFixture(b)
	tn := adcamp.Tenant{AccountID: mustAccount(b, f), Environment: adcamp.Sandbox}
	_, groups := benchTree(b, f, tn, 1, 1000)
	b.ResetTimer()
	start := cpuTime()
	for n := range b.N {
		items := make([]adcamp.NegativeInput, adcamp.MaxNegativeBatch)
		for i := range items {
			m := adcamp.MatchExact
			if i%2 == 1 {
				m = adcamp.MatchPhrase
			}
			items[i] = adcamp.NegativeInput{Text: adcamp.Some(fmt.Sprintf("negative %d %d", n, i)), MatchType: adcamp.Some(m)}
		}
		if _, err := f.svc.CreateNegatives(admin, tn, service.NegativeParent{Level: adcamp.LevelAdGroup, ID: groups[0]}, items, service.BatchOptions{Batch: true}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkAttachList5000 attaches a list of 5,000 entries to a campaign
// of 10,000 keywords (10 ad groups of 1,000), warnings computed, with the
// serving feed's row; "+changes" also reads what the serving feed answers
// after it (Changes from the position before the attach: one record,
// reported as records/op). The detach after each attach is not timed.
func BenchmarkAttachList5000(b *testing.B) {
	f := benchFixture(b)
	tn := adcamp.Tenant{AccountID: mustAccount(b, f), Environment: adcamp.Sandbox}
	campaign, _ := benchTree(b, f, tn, 10, 1000)
	l, err := f.svc.CreateNegativeList(admin, tn, adcamp.NegativeListInput{Name: adcamp.Some("Big")}, false)
	if err != nil {
		b.Fatal(err)
	}
	for from := 0; from < adcamp.MaxNegativeListEntries; from += adcamp.MaxNegativeBatch {
		items := make([]adcamp.NegativeInput, adcamp.MaxNegativeBatch)
		for i := range items {
			items[i] = adcamp.NegativeInput{Text: adcamp.Some(fmt.Sprintf("entry %d", from+i)), MatchType: adcamp.Some(adcamp.MatchPhrase)}
		}
		if _, err := f.svc.CreateNegatives(admin, tn, service.NegativeParent{Level: adcamp.LevelList, ID: l.ID}, items, service.BatchOptions{Batch: true}); err != nil {
			b.Fatal(err)
		}
	}
	for _, withChanges := range []bool{false, true} {
		name := "attach"
		if withChanges {
			name = "attach+changes"
		}
		b.Run(name, func(b *testing.B) {
			records := 0
			start := cpuTime()
			for range b.N {
				b.StopTimer()
				pos, err := f.svc.Snapshot(ctx, adcamp.Production, func(service.FeedChange) error { return nil }) // a position only: production is empty
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := f.svc.AttachNegativeList(admin, tn, campaign, l.ID); err != nil {
					b.Fatal(err)
				}
				if withChanges {
					_, _, err := f.svc.Changes(ctx, adcamp.Sandbox, pos, 0, func(service.FeedChange) error { records++; return nil })
					if err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				if err := f.svc.DetachNegativeList(admin, tn, campaign, l.ID); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			reportCPU(b, start)
			if withChanges {
				b.ReportMetric(float64(records)/float64(b.N), "records/op")
			}
		})
	}
}

// benchFixture is newFixture for a benchmark: its own store, the real
// clock.
func benchFixture(b *testing.B) *fixture {
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		b.Fatal(err)
	}
	return &fixture{svc: service.New(service.Config{Store: openStore(b), Box: box, Now: time.Now})}
}

func mustAccount(b *testing.B, f *fixture) string {
	a, err := f.svc.CreateAccount(ctx, "Bench", "")
	if err != nil {
		b.Fatal(err)
	}
	return a.ID
}

// BenchmarkCreateKeywords1000 is the reference beside
// BenchmarkCreateNegatives1000: a batch of 1,000 keywords in the same
// conditions.
func BenchmarkCreateKeywords1000(b *testing.B) {
	f := benchFixture(b)
	tn := adcamp.Tenant{AccountID: mustAccount(b, f), Environment: adcamp.Sandbox}
	_, groups := benchTree(b, f, tn, 1, 1000)
	b.ResetTimer()
	start := cpuTime()
	for n := range b.N {
		items := make([]adcamp.KeywordInput, adcamp.MaxKeywordBatch)
		for i := range items {
			items[i] = adcamp.KeywordInput{Text: adcamp.Some(fmt.Sprintf("other %d %d", n, i)), MatchType: adcamp.Some(adcamp.MatchExact)}
		}
		if _, err := f.svc.CreateKeywords(admin, tn, groups[0], items, service.BatchOptions{Batch: true}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// cpuTime is the CPU time (user and system) the process has used: on a
// shared machine, a figure that other processes' load does not inflate
// as much as the wall time (a benchmark's ns/op).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU milliseconds per operation since start (the
// timer's pauses included: they are small beside the operations here).
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
