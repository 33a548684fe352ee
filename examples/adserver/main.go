// Command adserver is a reference ad server for adcamp's operator
// interface (docs/operator.md): it takes a snapshot of the serving feed,
// follows its changes, "serves" random searches against the servable
// keywords at a chosen rate (an impression each, a click now and then,
// costing the keyword's bid), and posts the delivery figures of the
// current hour (running totals, which replace) every report interval.
// Campaigns spend, and stop at their daily budgets when the feed removes
// their keywords.
//
//	go run ./cmd/adcamp serve                      # in one terminal
//	go run ./examples/adserver -demo               # in another
//
// -demo prepares a fresh installation first: an operator key and an
// account with three sandbox campaigns of small budgets (through the
// admin command line on --data-dir and the sandbox API), and reports
// every 5 seconds. Without it, pass the operator key (-key, -secret or
// ADCAMP_OPERATOR_KEY, ADCAMP_OPERATOR_SECRET).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

func main() {
	base := flag.String("operator-url", "http://127.0.0.1:8083", "the operator listener")
	key := flag.String("key", os.Getenv("ADCAMP_OPERATOR_KEY"), "operator key (opk_…)")
	secret := flag.String("secret", os.Getenv("ADCAMP_OPERATOR_SECRET"), "operator secret (ops_…)")
	env := flag.String("environment", "sandbox", "production or sandbox")
	rate := flag.Float64("rate", 50, "searches served per second")
	report := flag.Duration("report", time.Minute, "how often delivery is posted")
	demo := flag.Bool("demo", false, "prepare a fresh adcamp (operator key, an account, three sandbox campaigns) and report every 5s")
	dataDir := flag.String("data-dir", "adcamp-data", "with -demo: the data directory of the adcamp serve to prepare")
	apiURL := flag.String("sandbox-url", "http://127.0.0.1:8081", "with -demo: the sandbox API")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var status func(context.Context)
	if *demo {
		d, err := prepareDemo(ctx, *dataDir, *apiURL)
		if err != nil {
			log.Fatalf("demo: %v", err)
		}
		*key, *secret, *env = d.operatorKey, d.operatorSecret, "sandbox"
		if *report == time.Minute {
			*report = 5 * time.Second
		}
		if *rate == 50 {
			*rate = 5 // budgets of a few dollars last a minute or so
		}
		status = d.status
	}
	if *key == "" || *secret == "" {
		log.Fatal("give the operator key: -key and -secret (adcamp operator-keys create --name NAME), or -demo")
	}
	c := &operatorClient{base: *base, key: *key, secret: *secret, env: *env, http: &http.Client{Timeout: 90 * time.Second}}
	s := newServer()
	if err := s.run(ctx, c, *rate, *report, status); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}

// server holds what is servable and what was served.
type server struct {
	mu     sync.Mutex
	feed   *feed
	ids    []string // of keywords, for random picks (rebuilt when stale)
	stale  bool
	served map[hourKey]*DeliveryRow
	cents  map[hourKey]int64
}

type hourKey struct {
	keyword string
	hour    time.Time
}

func newServer() *server {
	return &server{feed: newFeed(), served: map[hourKey]*DeliveryRow{}, cents: map[hourKey]int64{}}
}

func (s *server) run(ctx context.Context, c *operatorClient, rate float64, report time.Duration, status func(context.Context)) error {
	pos, err := c.Snapshot(ctx, s.feed.apply)
	if err != nil {
		return err
	}
	s.stale = true
	log.Printf("snapshot: %d servable keywords, %d negatives at position %s", len(s.feed.keywords), len(s.feed.negatives), pos)
	go s.follow(ctx, c, pos)
	go s.serve(ctx, rate)
	t := time.NewTicker(report)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		rows := s.delivery()
		if err := c.Deliver(ctx, rows); err != nil {
			log.Printf("delivery: %v (sent again at the next report: rows replace)", err)
			continue
		}
		s.mu.Lock()
		n := len(s.feed.keywords)
		s.mu.Unlock()
		log.Printf("posted %d delivery rows; %d keywords servable", len(rows), n)
		if status != nil {
			status(ctx)
		}
	}
}

// follow applies the feed's changes as they come.
func (s *server) follow(ctx context.Context, c *operatorClient, pos string) {
	for ctx.Err() == nil {
		changes, next, err := c.Changes(ctx, pos, 30*time.Second)
		if err != nil {
			log.Printf("changes: %v; again in 2s", err)
			time.Sleep(2 * time.Second)
			continue
		}
		s.mu.Lock()
		for _, ch := range changes {
			s.feed.apply(ch)
		}
		if len(changes) > 0 {
			s.stale = true
			log.Printf("changes: %d applied; %d keywords servable", len(changes), len(s.feed.keywords))
		}
		s.mu.Unlock()
		pos = next
	}
}

// serve answers random searches at rate a second: each is made from a
// servable keyword's text (sometimes with a word before or after it) and
// shows the keyword if its match type matches the search and none of its
// negatives does: an impression; one in 20 is clicked, at the keyword's
// bid.
func (s *server) serve(ctx context.Context, rate float64) {
	t := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		if s.stale {
			s.ids = s.ids[:0]
			for id := range s.feed.keywords {
				s.ids = append(s.ids, id)
			}
			s.stale = false
		}
		if len(s.ids) > 0 {
			k, ok := s.feed.keywords[s.ids[rand.IntN(len(s.ids))]]
			if !ok || !shows(k, s.feed.negativesOf(k), search(k.Text)) {
				s.mu.Unlock()
				continue
			}
			hk := hourKey{k.KeywordID, time.Now().UTC().Truncate(time.Hour)}
			row := s.served[hk]
			if row == nil {
				row = &DeliveryRow{KeywordID: k.KeywordID, Hour: hk.hour.Format(time.RFC3339)}
				s.served[hk] = row
			}
			row.Impressions++
			if rand.IntN(20) == 0 {
				row.Clicks++
				s.cents[hk] += cents(k.Bid)
				if rand.IntN(10) == 0 {
					row.Orders++
				}
			}
		}
		s.mu.Unlock()
	}
}

// delivery returns the running totals of the current and the previous
// hour (the last report of an hour may come after it ended).
func (s *server) delivery() []DeliveryRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UTC().Truncate(time.Hour)
	var rows []DeliveryRow
	for hk, row := range s.served {
		if hk.hour.Before(now.Add(-time.Hour)) {
			delete(s.served, hk)
			delete(s.cents, hk)
			continue
		}
		r := *row
		c := s.cents[hk]
		r.Cost = json.Number(fmt.Sprintf("%d.%02d", c/100, c%100))
		r.Sales = json.Number(fmt.Sprintf("%d.00", r.Orders*20))
		rows = append(rows, r)
	}
	return rows
}

// cents reads an amount such as 0.75.
func cents(n json.Number) int64 {
	f, _ := strconv.ParseFloat(string(n), 64)
	return int64(f*100 + 0.5)
}

// extraWords are added to searches made from keywords' texts.
var extraWords = []string{"cheap", "best", "free", "used", "sale", "kids", "near me"}

// search makes a search from a keyword's text: the text, or the text with
// a word before or after it.
func search(text string) string {
	switch rand.IntN(4) {
	case 0:
		return extraWords[rand.IntN(len(extraWords))] + " " + text
	case 1:
		return text + " " + extraWords[rand.IntN(len(extraWords))]
	}
	return text
}

// normalise folds a text as adcamp compares keywords: NFKC, case folded,
// runs of spaces as one.
func normalise(text string) []string {
	return strings.Fields(norm.NFKC.String(cases.Fold().String(norm.NFKC.String(text))))
}

// shows reports whether a search shows keyword k: its match type matches
// (exact: the whole search; phrase: its words in order, together; broad:
// each of its words somewhere) and none of negs, the negatives that apply
// to it, matches (exact: the whole search equals the negative's text;
// phrase: the negative's words appear in the search in order, together).
func shows(k Keyword, negs []Negative, q string) bool {
	words := normalise(q)
	kw := normalise(k.Text)
	switch k.MatchType {
	case "exact":
		if !slices.Equal(words, kw) {
			return false
		}
	case "phrase":
		if !containsRun(words, kw) {
			return false
		}
	default: // broad
		for _, w := range kw {
			if !slices.Contains(words, w) {
				return false
			}
		}
	}
	for _, n := range negs {
		nw := normalise(n.Text)
		if (n.MatchType == "exact" && slices.Equal(words, nw)) || (n.MatchType == "phrase" && containsRun(words, nw)) {
			return false
		}
	}
	return true
}

// containsRun reports whether run appears in words, in order and together.
func containsRun(words, run []string) bool {
	if len(run) == 0 {
		return true
	}
	for i := 0; i+len(run) <= len(words); i++ {
		if slices.Equal(words[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
