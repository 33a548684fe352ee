package operatorapi_test

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// vmRSS returns the process's resident set, in bytes.
func vmRSS() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkSnapshot streams a snapshot of ADCAMP_BENCH_KEYWORDS servable
// keywords (default 100,000) over HTTP and reports its time and how much
// the process's resident memory grew while it ran.
func BenchmarkSnapshot(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("ADCAMP_BENCH_KEYWORDS")); err == nil {
		n = v
	}
	db := openBench(b)
	e := newEnv(b, db)
	id, secret := e.operatorKey()
	tr := e.tree("", adcamp.Production, "100.00", 0)
	// Keywords straight through the store, 10,000 to an ad group.
	for made := 0; made < n; {
		g := &adcamp.AdGroup{ID: adcamp.NewID(adcamp.PrefixAdGroup, testNow), CampaignID: tr.campaign.ID, AccountID: tr.tenant.AccountID,
			Environment: adcamp.Production, Name: "G", DefaultBid: 50, Status: adcamp.StatusActive, Version: 1, CreatedAt: testNow, UpdatedAt: testNow}
		if err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateAdGroup(ctx, g) }); err != nil {
			b.Fatal(err)
		}
		for range 10 {
			ks := make([]*adcamp.Keyword, 0, 1000)
			for range min(1000, n-made) {
				ks = append(ks, &adcamp.Keyword{ID: adcamp.NewID(adcamp.PrefixKeyword, testNow), AdGroupID: g.ID, AccountID: g.AccountID,
					Environment: adcamp.Production, Text: fmt.Sprintf("keyword %d", made), MatchType: adcamp.MatchBroad,
					Status: adcamp.StatusActive, Version: 1, CreatedAt: testNow, UpdatedAt: testNow})
				made++
			}
			if len(ks) == 0 {
				break
			}
			if err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateKeywords(ctx, ks) }); err != nil {
				b.Fatal(err)
			}
		}
	}
	runtime.GC()
	b.ResetTimer()
	for range b.N {
		before := vmRSS()
		peak := before
		done := make(chan struct{})
		go func() {
			for {
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
					peak = max(peak, vmRSS())
				}
			}
		}()
		start := time.Now()
		req, _ := http.NewRequest("GET", e.operator.URL+"/operator/v1/serving/snapshot?environment=production", nil)
		signing.SignRequest(req, signing.SchemeB, id, secret, nil, e.clock.Now())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		lines := 0
		for sc.Scan() {
			lines++
		}
		resp.Body.Close()
		elapsed := time.Since(start)
		close(done)
		if lines != n+1 {
			b.Fatalf("snapshot of %d lines, want %d", lines, n+1)
		}
		b.ReportMetric(elapsed.Seconds(), "s/snapshot")
		b.ReportMetric(float64(peak-before)/(1<<20), "MiB-RSS-growth")
		b.ReportMetric(float64(n)/elapsed.Seconds(), "keywords/s")
	}
}

// BenchmarkFeedLatency measures how long after a change's commit a
// long-polling reader has it: a change is made, its Write returns, and
// the time until the long-poll's answer arrives is recorded; p50 and p99.
func BenchmarkFeedLatency(b *testing.B) {
	e := newEnv(b, openBench(b))
	tr := e.tree("", adcamp.Production, "100.00", 1)
	id, secret := e.operatorKey()
	fc := &feedClient{e: e, id: id, secret: secret, environment: adcamp.Production}
	state, pos := fc.snapshot()
	pos = fc.follow(state, pos)
	var lat []time.Duration
	status := []adcamp.Status{adcamp.StatusPaused, adcamp.StatusActive}
	b.ResetTimer()
	for i := range b.N {
		got := make(chan time.Time, 1)
		next := make(chan string, 1)
		go func() {
			var p string
			for p == "" || p == pos {
				_, body := fc.get("/operator/v1/serving/changes?environment=production&wait=30s&after=" + pos)
				s := string(body)
				j := strings.Index(s, `"position":"`)
				p = s[j+12 : j+12+strings.IndexByte(s[j+12:], '"')]
				if strings.Contains(s, `"op"`) {
					break
				}
				pos = p
			}
			got <- time.Now()
			next <- p
		}()
		time.Sleep(20 * time.Millisecond) // the long-poll is waiting
		if _, err := e.svc.UpdateKeyword(admin, tr.tenant, tr.keywords[0].ID, adcamp.KeywordInput{Status: adcamp.Some(status[i%2])}, service.IfMatch{}, false); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		lat = append(lat, (<-got).Sub(committed))
		pos = <-next
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms-p99")
}
