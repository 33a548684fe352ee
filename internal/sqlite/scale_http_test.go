package sqlite_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/jsonlog"
	"github.com/adcamp/adcamp/internal/metrics"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// BenchmarkScaleHTTP gets campaigns by id through the HTTP API (issue 39,
// item 3): the production handler wired as serve wires it (signed
// requests, the JSON access log, metrics; the rate limit off), over the
// seeded database of BenchmarkScale, the measured tenant holding 100 or
// 1,000,000 campaigns beside 10,000 other accounts. Each request asks for
// one of the tenant's campaigns drawn at random from all of them. It
// reports the median and the 99th percentile of the requests' times on
// the clock (p50-ns, p99-ns) and in CPU (cpu-p50-ns, cpu-p99-ns: the
// figures a shared machine leaves comparable) beside ns/op;
// bench/million.sh runs it.
//
//	ADCAMP_BENCH_SCALE=1 go test -run '^$' -bench BenchmarkScaleHTTP -benchtime 20000x ./internal/sqlite/
//
// ADCAMP_BENCH_READ_MEMORY=cacheKiB,mmapBytes gives the reader
// connections that page cache and memory map instead of what Open sizes
// (sqlite.WithReadMemory), to compare settings.
func BenchmarkScaleHTTP(b *testing.B) {
	for _, n := range []int{100, 1_000_000} {
		b.Run(fmt.Sprintf("campaigns=%d/get", n), func(b *testing.B) {
			if n >= 1_000_000 && os.Getenv(scaleEnv) == "" {
				b.Skipf("set %s=1 to run with %d campaigns (the first run seeds them, a minute or more)", scaleEnv, n)
			}
			var opts []sqlite.Option
			if m, ok := readMemoryEnv(b); ok {
				opts = append(opts, sqlite.WithReadMemory(m))
			}
			newScaleAPI(b, openScale(b, n, n, opts...)).gets(b)
		})
	}
}

// scaleHTTPWarmup is how many gets each run makes before it measures
// (ADCAMP_BENCH_WARMUP sets another number): a server that has answered
// a while, its statements prepared, its connections open, and the pages
// of the tenant's campaigns read once (100,000 gets read nearly every
// page of the million: a memory map faults a page in the first time only).
const scaleHTTPWarmup = 100_000

// readMemoryEnv reads ADCAMP_BENCH_READ_MEMORY.
func readMemoryEnv(b *testing.B) (sqlite.ReadMemory, bool) {
	v := os.Getenv("ADCAMP_BENCH_READ_MEMORY")
	if v == "" {
		return sqlite.ReadMemory{}, false
	}
	cache, mmap, ok := strings.Cut(v, ",")
	c, err1 := strconv.ParseInt(cache, 10, 64)
	m, err2 := strconv.ParseInt(mmap, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		b.Fatalf("ADCAMP_BENCH_READ_MEMORY=%q: want cacheKiB,mmapBytes", v)
	}
	return sqlite.ReadMemory{CacheKiB: c, MmapBytes: m}, true
}

// scaleAPI is the Open API over a seeded store, with a production key of
// the measured tenant. Its clock stands still, so every signature is
// fresh.
type scaleAPI struct {
	ids         []byte // the tenant's campaign ids, idLen bytes each
	idLen       int
	h           http.Handler
	now         time.Time
	key, secret string
}

func newScaleAPI(b *testing.B, s storetest.Scale) *scaleAPI {
	b.Helper()
	ctx := context.Background()
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		b.Fatal(err)
	}
	if err := service.CheckSecrets(ctx, s.DB, box); err != nil {
		b.Fatal(err)
	}
	log := slog.New(jsonlog.New(io.Discard, nil))
	now := time.Now().UTC().Truncate(time.Second)
	svc := service.New(service.Config{Store: s.DB, Box: box, Now: func() time.Time { return now }, Logger: log})
	if err := svc.LoadSettings(ctx); err != nil {
		b.Fatal(err)
	}
	env := s.Tenant.Environment
	h, err := httpapi.New(svc.Ads, svc.Keys, env, log.With("env", string(env)),
		httpapi.WithMetrics(metrics.New(nil)), httpapi.WithRateLimit(0))
	if err != nil {
		b.Fatal(err)
	}
	k, err := svc.CreateKey(ctx, s.Tenant.AccountID, env)
	if err != nil {
		b.Fatal(err)
	}
	// The ids in one array of bytes, which the collector does not scan:
	// a million strings would make each of its cycles longer at a
	// million campaigns than at a hundred, and so the requests it runs
	// beside.
	a := &scaleAPI{idLen: len(s.Sample[0]), h: h, now: now, key: k.ID, secret: k.Secret}
	for _, id := range s.Sample {
		if len(id) != a.idLen {
			b.Fatalf("campaign ids of %d and %d bytes", a.idLen, len(id))
		}
		a.ids = append(a.ids, id...)
	}
	return a
}

// gets serves GET /campaigns/{id} of random campaigns of the tenant,
// timing each ServeHTTP; requests are built and signed outside the timer,
// a hundred at a time.
func (a *scaleAPI) gets(b *testing.B) {
	rnd := mrand.New(mrand.NewPCG(3, 4))
	next := func() *http.Request {
		i := rnd.IntN(len(a.ids) / a.idLen)
		id := string(a.ids[i*a.idLen : (i+1)*a.idLen])
		r := httptest.NewRequest("GET", signing.PrefixCanonical+"/campaigns/"+id, nil)
		signing.SignRequest(r, signing.SchemeA, a.key, a.secret, nil, a.now)
		return r
	}
	// ServeHTTP runs the whole request on the calling goroutine (the
	// store's statements run without a context to watch), so the thread's
	// CPU time is the request's: unlike the time on the clock, it leaves
	// out the time the thread waits for a core, most of it on a shared
	// machine.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w := &scaleWriter{header: http.Header{}}
	serve := func(r *http.Request) (wall, cpu time.Duration) {
		w.status = 0
		clear(w.header)
		start, startCPU := time.Now(), threadCPU(b)
		a.h.ServeHTTP(w, r)
		cpu, wall = threadCPU(b)-startCPU, time.Since(start)
		if w.status != http.StatusOK {
			b.Fatalf("GET %s = %d, want 200", r.URL, w.status)
		}
		return wall, cpu
	}
	warmup := scaleHTTPWarmup
	if v := os.Getenv("ADCAMP_BENCH_WARMUP"); v != "" {
		var err error
		if warmup, err = strconv.Atoi(v); err != nil {
			b.Fatalf("ADCAMP_BENCH_WARMUP=%q: %v", v, err)
		}
	}
	for range warmup {
		serve(next())
	}
	runtime.GC()
	var batch []*http.Request
	walls := make([]time.Duration, 0, 1<<16)
	cpus := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	reads, faults := readCalls(b), minorFaults(b)
	for b.Loop() {
		if len(batch) == 0 {
			b.StopTimer()
			for range 100 {
				batch = append(batch, next())
			}
			b.StartTimer()
		}
		wall, cpu := serve(batch[0])
		walls, cpus = append(walls, wall), append(cpus, cpu)
		batch = batch[1:]
	}
	b.ReportMetric(float64(readCalls(b)-reads)/float64(len(walls)), "reads/op")
	b.ReportMetric(float64(minorFaults(b)-faults)/float64(len(walls)), "faults/op")
	slices.Sort(walls)
	slices.Sort(cpus)
	b.ReportMetric(float64(quantile(walls, 0.50).Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(quantile(walls, 0.99).Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(quantile(cpus, 0.50).Nanoseconds()), "cpu-p50-ns")
	b.ReportMetric(float64(quantile(cpus, 0.99).Nanoseconds()), "cpu-p99-ns")
	anon, file := rss(b)
	b.ReportMetric(anon, "rss-anon-MiB")
	b.ReportMetric(file, "rss-file-MiB")
}

// threadCPU returns the CPU time the calling thread has used.
func threadCPU(b *testing.B) time.Duration {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		b.Fatalf("clock_gettime: %v", errno)
	}
	return time.Duration(ts.Nano())
}

// readCalls returns how many read system calls (read, pread) the
// process has made: SQLite's page cache reads each page it misses with
// one.
func readCalls(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "syscr: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("no syscr in /proc/self/io")
	return 0
}

// minorFaults returns the process's minor page faults: reading a page of
// a memory map the first time takes one (and maps up to 16 pages around).
func minorFaults(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Minflt
}

// quantile is the q-quantile of sorted (the nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

// rss returns the process's resident memory, anonymous and mapped from
// files, in MiB (from /proc/self/status).
func rss(b *testing.B) (anon, file float64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "RssAnon" && name != "RssFile") {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		if err != nil {
			b.Fatalf("/proc/self/status %s: %v", name, err)
		}
		if name == "RssAnon" {
			anon = kb / 1024
		} else {
			file = kb / 1024
		}
	}
	return anon, file
}

// scaleWriter is a ResponseWriter that keeps the status and drops the
// body.
type scaleWriter struct {
	header http.Header
	status int
}

func (w *scaleWriter) Header() http.Header { return w.header }

func (w *scaleWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *scaleWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return len(p), nil
}
