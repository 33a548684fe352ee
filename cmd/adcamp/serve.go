package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/netutil"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/jsonlog"
	"github.com/adcamp/adcamp/internal/lowpriority"
	"github.com/adcamp/adcamp/internal/metrics"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// defaultRateLimit is generous on purpose: above what one SQLite process
// can serve, so that it never limits a well-behaved client, while a
// runaway one on a larger deployment still meets a ceiling.
const defaultRateLimit = 20000

// defaultAuthFailureLimit is how many failed authentications a second a
// client address may make (burst twice that) before it is refused for a
// while: far above a client with a wrong clock or a typo in its secret,
// far below a flood of guesses.
const defaultAuthFailureLimit = 20

// defaultMaxConnections caps the open connections of each API listener,
// so that clients holding connections open cannot take every file
// descriptor the database needs too. Past it, new connections wait in the
// kernel's queue until one closes.
const defaultMaxConnections = 8192

// simulatorTick is how often the sandbox's delivery simulator posts the
// current hour's running totals.
const simulatorTick = time.Minute

// maxHistoryDays bounds --history-retention (a century; 0 keeps all).
const maxHistoryDays = 36500

// serveConfig is the configuration of adcamp serve (CONTRACT §7).
type serveConfig struct {
	store          *storeFlags
	productionAddr string
	sandboxAddr    string
	signing        string
	rateLimit      int
	authFailures   int
	maxConns       int
	tlsCert        string
	tlsKey         string
	marketplaces   string
	logLevel       string
	debugAddr      string
	metricsAddr    string
	consoleAddr    string
	consoleURL     string
	operatorAddr   string
	feedRetention  time.Duration
	historyDays    int // days change records are kept; 0 keeps them all
	trustedProxies string
	trusted        []netip.Prefix
	ops            opsConfig
	// webhooksAllowPrivate lets webhooks go to private and loopback
	// addresses (tests, receivers inside one's network).
	webhooksAllowPrivate bool
	simulator            bool   // the sandbox's delivery simulator
	simulatorSeed        uint64 // its seed
	reportWorkers        int    // report jobs run at once by this process
	reportJobsPerAccount int    // an account's report jobs pending or running at most
	// reportLease is the report jobs' lease, from ADCAMP_TEST_REPORT_JOB_LEASE
	// (0: the service's 30 s). No flag: only tests shorten it
	// (TestReportJobSurvivesSIGKILL), so as not to wait 30 s for a re-run.
	reportLease time.Duration
	// dayFoldPause is the least time between two folds of the days'
	// journal, from ADCAMP_TEST_DAY_FOLD_PAUSE (service.FoldPause
	// otherwise). No flag: only tests lengthen it
	// (TestDayJournalSurvivesSIGKILL), to leave entries in the journal.
	dayFoldPause time.Duration
}

func (c *cli) serveFlags(args []string) (*serveConfig, error) {
	fs := c.newFlags("serve")
	cfg := &serveConfig{store: c.storeFlags(fs)}
	str := func(p *string, name, def, help string) { fs.StringVar(p, name, c.envDefault(envName(name), def), help) }
	str(&cfg.productionAddr, "production-addr", "127.0.0.1:8080", "listen address of the production API; empty turns it off")
	str(&cfg.sandboxAddr, "sandbox-addr", "127.0.0.1:8081", "listen address of the sandbox API; empty turns it off")
	str(&cfg.signing, "signing", "auto", "signing schemes accepted: auto (A and B), a or b")
	str(&cfg.tlsCert, "tls-cert", "", "TLS certificate file (PEM); with --tls-key serves HTTPS, TLS 1.2+")
	str(&cfg.tlsKey, "tls-key", "", "TLS private key file (PEM)")
	str(&cfg.marketplaces, "marketplaces", strings.Join(service.DefaultMarketplaces, ","), "accepted marketplace site codes, comma-separated")
	str(&cfg.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	str(&cfg.debugAddr, "debug-addr", "", "listen address of the Go profiler (/debug/pprof/); empty (the default) turns it off")
	str(&cfg.consoleAddr, "console-addr", "127.0.0.1:8082", "listen address of the account console; empty turns it off")
	str(&cfg.operatorAddr, "operator-addr", "127.0.0.1:8083", "listen address of the operator listener (the marketplace's ad server); empty turns it off")
	str(&cfg.consoleURL, "console-url", "", "the console's address as its users reach it (https://... behind a proxy), for its links")
	str(&cfg.trustedProxies, "trusted-proxies", "",
		"CIDR ranges of the proxies whose X-Forwarded-For is believed (comma-separated); empty: the connection's address counts")
	str(&cfg.metricsAddr, "metrics-addr", "127.0.0.1:9090",
		"listen address of the Prometheus metrics (GET /metrics), never on an API listener; empty turns it off")
	counts := []struct {
		name, help string
		def        int
		dst        *int
		text       string
	}{
		{"rate-limit", "requests per second per credential and process, burst 2N; 0 turns it off", defaultRateLimit, &cfg.rateLimit, ""},
		{"auth-failure-limit", "failed authentications per second per client address, burst 2N, before its requests are refused; 0 turns it off",
			defaultAuthFailureLimit, &cfg.authFailures, ""},
		{"max-connections", "open connections per API listener; 0: no limit", defaultMaxConnections, &cfg.maxConns, ""},
		{"report-job-workers", "report jobs this process runs at once (docs/report-jobs.md); 0 runs none here", 1, &cfg.reportWorkers, ""},
		{"report-jobs-per-account", "report jobs an account may have pending or running at once in an environment (429 beyond)",
			service.DefaultMaxReportJobs, &cfg.reportJobsPerAccount, ""},
		{"history-retention", "days the change history is kept, older records purged in the background; 0 keeps everything",
			int(service.DefaultHistoryRetention / (24 * time.Hour)), &cfg.historyDays, ""},
	}
	c.feedFlags(fs, cfg)
	finishOps := c.opsFlags(fs, &cfg.ops)
	fs.BoolVar(&cfg.webhooksAllowPrivate, "webhooks-allow-private", false,
		"deliver webhooks to loopback, private and link-local addresses too (refused by default)")
	fs.BoolVar(&cfg.simulator, "sandbox-simulator", c.envDefault(envName("sandbox-simulator"), "true") != "false",
		"simulate delivery in the sandbox: hourly figures for its servable keywords, and POST /sandbox/simulate (docs/sandbox.md)")
	seed := c.envDefault(envName("sandbox-seed"), strconv.Itoa(service.DefaultSimulatorSeed))
	fs.Func("sandbox-seed", fmt.Sprintf("seed of the sandbox's delivery simulator: the same seed, data and hour give the same figures (default %d)",
		service.DefaultSimulatorSeed), func(v string) error { seed = v; return nil })
	for i := range counts {
		n := &counts[i]
		n.text = c.envDefault(envName(n.name), strconv.Itoa(n.def))
		fs.Func(n.name, fmt.Sprintf("%s (default %d)", n.help, n.def), func(s string) error {
			n.text = s
			return nil
		})
	}
	_, err := c.parse(fs, args)
	if err != nil {
		return nil, err
	}
	for _, n := range counts {
		v, err := strconv.Atoi(n.text)
		if err != nil || v < 0 {
			return nil, usageError("--%s must be a whole number ≥ 0, got %q", n.name, n.text)
		}
		*n.dst = v
	}
	if err := finishOps(cfg); err != nil {
		return nil, err
	}
	if cfg.simulatorSeed, err = strconv.ParseUint(seed, 10, 64); err != nil {
		return nil, usageError("--sandbox-seed must be a whole number ≥ 0, got %q", seed)
	}
	cfg.dayFoldPause = service.FoldPause
	if v, ok := c.lookup(envTestDayFoldPause); ok && v != "" {
		if cfg.dayFoldPause, err = time.ParseDuration(v); err != nil || cfg.dayFoldPause <= 0 {
			return nil, usageError("%s must be a duration such as 1h, got %q", envTestDayFoldPause, v)
		}
	}
	if v, ok := c.lookup(envTestReportLease); ok && v != "" {
		if cfg.reportLease, err = time.ParseDuration(v); err != nil || cfg.reportLease <= 0 {
			return nil, usageError("%s must be a duration such as 2s, got %q", envTestReportLease, v)
		}
	}
	trusted, err := adcamp.ParsePrefixes([]string{cfg.trustedProxies})
	if err != nil {
		return nil, usageError("--trusted-proxies: %v", err)
	}
	cfg.trusted = trusted
	if cfg.historyDays > maxHistoryDays {
		return nil, usageError("--history-retention must be at most %d days, got %d (0 keeps everything)", maxHistoryDays, cfg.historyDays)
	}
	switch cfg.signing {
	case "auto", "a", "b":
	default:
		return nil, usageError("--signing must be auto, a or b, got %q", cfg.signing)
	}
	if u, err := url.Parse(cfg.consoleURL); cfg.consoleURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return nil, usageError("--console-url must be an http:// or https:// address, got %q", cfg.consoleURL)
	}
	if (cfg.tlsCert == "") != (cfg.tlsKey == "") {
		return nil, usageError("--tls-cert and --tls-key go together")
	}
	if cfg.productionAddr == "" && cfg.sandboxAddr == "" {
		return nil, usageError("both --production-addr and --sandbox-addr are empty: nothing to serve")
	}
	return cfg, nil
}

// serve runs adcamp serve: it parses the flags, opens the database and
// the service, binds every listener, and serves until ctx ends.
func (c *cli) serve(ctx context.Context, args []string) error {
	cfg, err := c.serveFlags(args)
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.logLevel)); err != nil {
		return usageError("--log-level: %v", err)
	}
	logOut := newBufferedLog(c.stderr, 200*time.Millisecond)
	defer logOut.Close()
	log := slog.New(jsonlog.New(logOut, &slog.HandlerOptions{Level: level}))

	app, err := c.openServe(ctx, cfg, log)
	if err != nil {
		if ctx.Err() != nil { // stopped while starting: not a failure
			return nil
		}
		return err
	}
	defer app.db.Close()
	ls, err := app.listen(cfg)
	defer ls.close()
	if err != nil {
		return err
	}
	if err := c.announceConsole(ctx, app, cfg, ls); err != nil {
		return err
	}
	if c.ready != nil {
		c.ready(ls.addrs())
	}
	return app.run(ctx, ls)
}

// app is what serve runs: the database, the service over it, and the
// process's metrics and logger.
type app struct {
	db      store.Store
	svc     *service.Service
	metrics *metrics.Metrics
	// foreground marks the requests of the API, console and operator
	// listeners, which report jobs give way to (lowpriority.Pacer).
	foreground *lowpriority.Foreground
	log        *slog.Logger
	ops        *opsRuntime
	sole       bool // the only process on its store (SQLite)
	// webhooksAllowPrivate is serve --webhooks-allow-private.
	webhooksAllowPrivate bool
	reportWorkers        int           // serve --report-job-workers
	dayFoldPause         time.Duration // see serveConfig
}

// envTestReportLease shortens the report jobs' lease, for tests.
const envTestReportLease = "ADCAMP_TEST_REPORT_JOB_LEASE"

// envTestDayFoldPause lengthens the pause between two folds of the days'
// journal, for tests that need entries left in it.
const envTestDayFoldPause = "ADCAMP_TEST_DAY_FOLD_PAUSE"

// openServe opens the store and builds the service of serve.
func (c *cli) openServe(ctx context.Context, cfg *serveConfig, log *slog.Logger) (*app, error) {
	db, box, err := c.openWarn(ctx, cfg.store, func(msg string) { log.Warn(msg) })
	if err != nil {
		return nil, err
	}
	svc := newService(db, box, log, service.Config{
		Signing:          service.SigningMode(cfg.signing),
		Marketplaces:     strings.Split(cfg.marketplaces, ","),
		HistoryRetention: time.Duration(cfg.historyDays) * 24 * time.Hour,
	})
	svc.SetFeedRetention(cfg.feedRetention)
	foreground := &lowpriority.Foreground{}
	svc.SetReportJobs(service.ReportJobsConfig{MaxPerAccount: cfg.reportJobsPerAccount, Lease: cfg.reportLease,
		Foreground: foreground})
	svc.SetSimulator(service.SimulatorConfig{Enabled: cfg.simulator && cfg.sandboxAddr != "", Seed: cfg.simulatorSeed})
	if err := svc.LoadSettings(ctx); err != nil {
		db.Close()
		return nil, err
	}
	pools, _ := db.(store.StatsReporter)
	m := metrics.New(pools)
	b := readBuildInfo()
	m.SetBuildInfo(b.Version, b.Commit, b.GoVersion)
	m.DayJournal(svc.DaysJournaled)
	return &app{db: db, svc: svc, metrics: m, foreground: foreground, log: log, ops: &opsRuntime{cfg: cfg.ops, dataDir: cfg.store.dataDir},
		sole: cfg.store.databaseURL == "", webhooksAllowPrivate: cfg.webhooksAllowPrivate, reportWorkers: cfg.reportWorkers,
		dayFoldPause: cfg.dayFoldPause}, nil
}

// listener is one bound address and the server that will serve it.
type listener struct {
	name string // production, sandbox, debug...
	srv  *http.Server
	l    net.Listener
}

// listeners are serve's bound listeners, in the order they were bound.
type listeners []listener

// addrs maps each listener's name to its bound address.
func (ls listeners) addrs() map[string]string {
	m := make(map[string]string, len(ls))
	for _, l := range ls {
		m[l.name] = l.l.Addr().String()
	}
	return m
}

func (ls listeners) close() {
	for _, l := range ls {
		l.l.Close()
	}
}

// listen binds every listener of cfg: an API listener per environment
// (over TLS when configured), the metrics' and the profiler's. On an error it returns
// those bound so far, for the caller to close.
func (a *app) listen(cfg *serveConfig) (listeners, error) {
	var tlsConfig *tls.Config
	if cfg.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.tlsCert, cfg.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("load TLS certificate: %w", err)
		}
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	var ls listeners
	for _, e := range []struct {
		env  adcamp.Environment
		addr string
	}{{adcamp.Production, cfg.productionAddr}, {adcamp.Sandbox, cfg.sandboxAddr}} {
		if e.addr == "" {
			continue
		}
		h, err := httpapi.New(a.svc.Ads, a.svc.Keys, e.env, a.log.With("env", string(e.env)), httpapi.WithMetrics(a.metrics),
			httpapi.WithRateLimit(cfg.rateLimit), httpapi.WithAuthFailureLimit(cfg.authFailures),
			httpapi.WithTrustedProxies(cfg.trusted))
		if err != nil {
			return ls, err
		}
		l, err := net.Listen("tcp", e.addr)
		if err != nil {
			return ls, fmt.Errorf("%s API: %w", e.env, err)
		}
		if cfg.maxConns > 0 {
			l = netutil.LimitListener(l, cfg.maxConns)
		}
		if tlsConfig != nil {
			l = tls.NewListener(l, tlsConfig)
		}
		ls = append(ls, listener{string(e.env), newHTTPServer(a.foreground.Wrap(h), a.log, serverTimeouts), l})
		a.log.Info("listening", "env", string(e.env), "url", scheme+"://"+l.Addr().String()+signing.PrefixCanonical)
	}
	if cfg.metricsAddr != "" {
		l, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
			return ls, fmt.Errorf("metrics listener (--metrics-addr, empty turns it off): %w", err)
		}
		ls = append(ls, listener{"metrics", newHTTPServer(httpapi.MetricsHandler(a.metrics, a.ops.notDraining, a.svc.Ready), a.log, serverTimeouts), l})
		a.log.Info("metrics listening", "url", "http://"+l.Addr().String()+"/metrics")
	}
	if cfg.consoleAddr != "" {
		l, err := a.listenConsole(cfg, tlsConfig)
		if err != nil {
			return ls, err
		}
		ls = append(ls, l)
	}
	if cfg.operatorAddr != "" {
		l, err := a.listenOperator(cfg, tlsConfig)
		if err != nil {
			return ls, err
		}
		ls = append(ls, l)
	}
	if cfg.debugAddr != "" {
		l, err := net.Listen("tcp", cfg.debugAddr)
		if err != nil {
			return ls, fmt.Errorf("debug listener: %w", err)
		}
		ls = append(ls, listener{"debug", newHTTPServer(debugHandler(), a.log, debugTimeouts), l})
		a.log.Info("profiler listening", "url", "http://"+l.Addr().String()+"/debug/pprof/")
	}
	return ls, nil
}

// run serves ls and runs the background duties until ctx ends or a
// listener fails, then finishes the requests in flight and the background
// work (for up to --shutdown-timeout, see shutdown) and stops.
func (a *app) run(ctx context.Context, ls listeners) error {
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	// Before the first request: what a killed process left in the
	// journal of days, so that RunDayFold's pause counts from here.
	a.svc.FoldAtStart(runCtx)
	var wg sync.WaitGroup
	wg.Go(func() { a.svc.Run(runCtx, 5*time.Second) })
	wg.Go(func() { a.runWebhooks(runCtx, a.webhooksAllowPrivate) })
	wg.Go(func() { a.svc.RunFeed(runCtx, feedTick) })
	wg.Go(func() { a.svc.RunDayFold(runCtx, a.dayFoldPause) })
	wg.Go(func() { a.svc.RunSimulator(runCtx, simulatorTick) })
	for i := range a.reportWorkers {
		owner := fmt.Sprintf("%s/%d/%s/%d", hostname(), os.Getpid(), adcamp.NewID("", time.Now()), i)
		wg.Go(func() { a.svc.RunReportJobs(runCtx, owner) })
	}
	a.startBackground(runCtx, &wg)

	errc := make(chan error, len(ls))
	for _, l := range ls {
		go func() { errc <- l.srv.Serve(l.l) }()
	}
	var serveErr error
	select {
	case <-ctx.Done():
		a.log.Info("shutting down")
	case serveErr = <-errc:
	}
	a.shutdown(ctx, ls, stopRun, &wg)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return nil
}

// timeouts keep slow or idle clients from holding connections forever.
type timeouts struct {
	header, read, write, idle time.Duration
}

// serverTimeouts are the limits of adcamp serve: a client has 5 s to send
// its headers and 30 s for the whole request (a 1 MiB body at 35 KB/s).
var serverTimeouts = timeouts{header: 5 * time.Second, read: 30 * time.Second, write: 30 * time.Second, idle: 120 * time.Second}

func newHTTPServer(h http.Handler, log *slog.Logger, t timeouts) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.header,
		ReadTimeout:       t.read,
		WriteTimeout:      t.write,
		IdleTimeout:       t.idle,
		// The API answers headers over httpapi.MaxHeaderBytes with 431 in
		// its envelope; net/http answers beyond this, in plain text.
		MaxHeaderBytes: httpapi.ServerMaxHeaderBytes,
		// OPTIONS * goes to the handler too, which answers it in the
		// envelope, rather than net/http's empty 200.
		DisableGeneralOptionsHandler: true,
		ErrorLog:                     slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// hostname names this machine in the leases of report jobs.
func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}
