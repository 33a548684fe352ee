package operatorapi_test

import (
	"fmt"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// BenchmarkAttachFeed attaches a list of 5,000 entries to a campaign of
// 10,000 keywords (10 ad groups of 1,000) through the service, then reads
// over HTTP every answer of changes that follows it, as an ad server
// would: it reports the time of both, the answers' bytes and their
// changes (ADCAMP_TEST_STORE=postgres for PostgreSQL). The detach after
// each attach, and its answer, are not timed.
func BenchmarkAttachFeed(b *testing.B) {
	e := newEnv(b, openBench(b))
	id, secret := e.operatorKey()
	fc := &feedClient{e: e, id: id, secret: secret, environment: adcamp.Production}
	tr := e.tree("", adcamp.Production, "100.00", 0)
	tn := tr.tenant
	for g := range 10 {
		grp, err := e.svc.CreateAdGroup(admin, tn, tr.campaign.ID, adcamp.AdGroupInput{Name: adcamp.Some(fmt.Sprint("G", g)), DefaultBid: adcamp.Some("0.40")}, false)
		if err != nil {
			b.Fatal(err)
		}
		items := make([]adcamp.KeywordInput, adcamp.MaxKeywordBatch)
		for i := range items {
			items[i] = adcamp.KeywordInput{Text: adcamp.Some(fmt.Sprintf("keyword %d-%d shoes", g, i)), MatchType: adcamp.Some(adcamp.MatchBroad)}
		}
		if _, err := e.svc.CreateKeywords(admin, tn, grp.ID, items, service.BatchOptions{Batch: true}); err != nil {
			b.Fatal(err)
		}
	}
	l, err := e.svc.CreateNegativeList(admin, tn, adcamp.NegativeListInput{Name: adcamp.Some("Big")}, false)
	if err != nil {
		b.Fatal(err)
	}
	for from := 0; from < adcamp.MaxNegativeListEntries; from += adcamp.MaxNegativeBatch {
		items := make([]adcamp.NegativeInput, adcamp.MaxNegativeBatch)
		for i := range items {
			items[i] = adcamp.NegativeInput{Text: adcamp.Some(fmt.Sprintf("entry %d", from+i)), MatchType: adcamp.Some(adcamp.MatchPhrase)}
		}
		if _, err := e.svc.CreateNegatives(admin, tn, service.NegativeParent{Level: adcamp.LevelList, ID: l.ID}, items, service.BatchOptions{Batch: true}); err != nil {
			b.Fatal(err)
		}
	}
	_, pos := fc.snapshot()
	drain := func() (changes, bytes int) {
		for {
			cs, next, n := fc.answer(pos)
			pos = next
			if len(cs) == 0 {
				return changes, bytes
			}
			changes, bytes = changes+len(cs), bytes+n
		}
	}
	drain() // the list's entries and the keywords, made after the snapshot's position on PostgreSQL
	b.ResetTimer()
	changes, bytes := 0, 0
	for range b.N {
		if _, err := e.svc.AttachNegativeList(admin, tn, tr.campaign.ID, l.ID); err != nil {
			b.Fatal(err)
		}
		c, n := drain()
		changes, bytes = changes+c, bytes+n
		b.StopTimer()
		if err := e.svc.DetachNegativeList(admin, tn, tr.campaign.ID, l.ID); err != nil {
			b.Fatal(err)
		}
		drain()
		b.StartTimer()
	}
	b.ReportMetric(float64(changes)/float64(b.N), "changes/op")
	b.ReportMetric(float64(bytes)/float64(b.N), "answer-bytes/op")
}
