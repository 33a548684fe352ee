// Command backupwrites measures what writes see while adcamp backup runs:
// it keeps -c clients creating campaigns on a running adcamp serve, runs
// the backup command given after the flags after -window, and reports the
// latency of the writes before, during and after it (p50, p99, the
// longest), and the longest time no write completed. With -cmd (repeated)
// it runs each shell command in turn instead, a -window apart, to tell
// apart what a backup does (hold a snapshot, use a core, write a file).
// bench/backup.sh runs it; bench/notes/backup.md records what it showed.
//
//	backupwrites -url http://127.0.0.1:18081 -key K -secret S -c 16 -seed 100000 -- adcamp backup --to F --data-dir D
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adcamp/adcamp/client/signing"
)

type config struct {
	url, key, secret string
	conc, seed       int
	window           time.Duration
}

// write is one acknowledged create: when it began and how long it took.
type write struct {
	start   time.Time
	elapsed time.Duration
}

func main() {
	var cfg config
	flag.StringVar(&cfg.url, "url", "http://127.0.0.1:18081", "the production listener of adcamp serve")
	flag.StringVar(&cfg.key, "key", "", "API key")
	flag.StringVar(&cfg.secret, "secret", "", "API secret")
	flag.IntVar(&cfg.conc, "c", 16, "concurrent writers")
	flag.IntVar(&cfg.seed, "seed", 0, "campaigns to create first, unmeasured, so that the database has a size")
	flag.DurationVar(&cfg.window, "window", 5*time.Second, "measured time before and after the backup")
	var cmds []*exec.Cmd
	flag.Func("cmd", "a shell command to run instead of the one after the flags (repeatable)", func(s string) error {
		cmds = append(cmds, exec.Command("sh", "-c", s))
		return nil
	})
	flag.Parse()
	if flag.NArg() > 0 {
		cmds = append(cmds, exec.Command(flag.Arg(0), flag.Args()[1:]...))
	}
	if len(cmds) == 0 || cfg.key == "" {
		log.Fatal("usage: backupwrites -key K -secret S [flags] -- BACKUP COMMAND...")
	}
	if cfg.seed > 0 {
		seed(cfg)
	}
	var mu sync.Mutex
	var writes []write
	var failed atomic.Int64
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range cfg.conc {
		wg.Go(func() {
			c := &http.Client{Timeout: 30 * time.Second}
			for i := 0; ctx.Err() == nil; i++ {
				start := time.Now()
				if !create(c, cfg, fmt.Sprintf("m%d-%d", w, i)) {
					failed.Add(1)
					continue
				}
				mu.Lock()
				writes = append(writes, write{start, time.Since(start)})
				mu.Unlock()
			}
		})
	}
	time.Sleep(cfg.window)
	type phase struct {
		name       string
		start, end time.Time
	}
	var phases []phase
	for _, cmd := range cmds {
		start := time.Now()
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			log.Fatalf("%v: %v", cmd.Args, err)
		}
		phases = append(phases, phase{strings.Join(cmd.Args, " "), start, time.Now()})
		time.Sleep(cfg.window)
	}
	stop()
	wg.Wait()
	fmt.Printf("%d writers; %d writes failed\n", cfg.conc, failed.Load())
	report("before", writes, time.Time{}, phases[0].start, phases[0].start)
	for i, p := range phases {
		fmt.Printf("%s took %v\n", p.name, p.end.Sub(p.start).Round(time.Millisecond))
		report("during", writes, p.start, p.end, p.start)
		next := time.Now()
		if i+1 < len(phases) {
			next = phases[i+1].start
		}
		report("after", writes, p.end, next, p.start)
	}
}

// report prints the writes that began in [from, to); with GAPS set in the
// environment, it lists each new longest gap over 50 ms, by when it ended
// from zero (the backup's start).
func report(name string, all []write, from, to, zero time.Time) {
	var lat []time.Duration
	var ends []time.Time
	for _, w := range all {
		if !w.start.Before(from) && w.start.Before(to) {
			lat = append(lat, w.elapsed)
			ends = append(ends, w.start.Add(w.elapsed))
		}
	}
	if len(lat) == 0 {
		fmt.Printf("%-7s no writes\n", name)
		return
	}
	slices.Sort(lat)
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	var gap time.Duration
	for i := 1; i < len(ends); i++ {
		if d := ends[i].Sub(ends[i-1]); d > gap {
			gap = d
			if os.Getenv("GAPS") != "" && d > 50*time.Millisecond {
				fmt.Printf("  gap of %v ending at %+.3fs\n", d.Round(time.Millisecond), ends[i].Sub(zero).Seconds())
			}
		}
	}
	pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
	fmt.Printf("%-7s %6d writes  p50 %6.1f ms  p99 %6.1f ms  longest %6.1f ms  longest with no write completing %6.1f ms\n",
		name, len(lat), ms(pct(0.5)), ms(pct(0.99)), ms(lat[len(lat)-1]), ms(gap))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// seed creates cfg.seed campaigns with cfg.conc clients.
func seed(cfg config) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range cfg.conc {
		wg.Go(func() {
			c := &http.Client{Timeout: 30 * time.Second}
			for i := next.Add(1); i <= int64(cfg.seed); i = next.Add(1) {
				create(c, cfg, fmt.Sprintf("seed-%d", i))
			}
		})
	}
	wg.Wait()
}

// create sends one signed POST /campaigns and reports whether it was
// answered 201.
func create(c *http.Client, cfg config, name string) bool {
	body := []byte(`{"name":"` + name + `","budget_daily":12.5,"marketplace":"US"}`)
	req, err := http.NewRequest("POST", cfg.url+"/api/v1/open/campaigns", bytes.NewReader(body))
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	signing.SignRequest(req, signing.SchemeA, cfg.key, cfg.secret, body, time.Now())
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusCreated
}
