package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/backup"
)

// opsConfig is the part of serve's configuration for operators:
// scheduled backups and the bound on a graceful shutdown.
type opsConfig struct {
	backupDir       string
	backupEvery     time.Duration
	backupKeep      int
	shutdownTimeout time.Duration
}

// Defaults and bounds of opsConfig.
const (
	defaultBackupEvery     = 24 * time.Hour
	defaultBackupKeep      = 7
	defaultShutdownTimeout = 30 * time.Second
	minBackupEvery         = time.Minute // scheduled backups are named to the second
)

// opsFlags adds opsConfig's flags to fs; finish, called once fs is
// parsed, checks them and fills o.
func (c *cli) opsFlags(fs *flag.FlagSet, o *opsConfig) (finish func(cfg *serveConfig) error) {
	fs.StringVar(&o.backupDir, "backup-dir", c.envDefault(envName("backup-dir"), ""),
		"directory of scheduled online backups of the SQLite database; empty (the default) schedules none")
	texts := map[string]*string{}
	for _, f := range []struct{ name, def, help string }{
		{"backup-every", defaultBackupEvery.String(), "time between scheduled backups, counted from the newest in --backup-dir"},
		{"backup-keep", strconv.Itoa(defaultBackupKeep), "scheduled backups kept in --backup-dir, the newest; older ones are removed"},
		{"shutdown-timeout", defaultShutdownTimeout.String(), "on SIGTERM, how long requests in flight and background work have to finish"},
	} {
		text := c.envDefault(envName(f.name), f.def)
		texts[f.name] = &text
		fs.Func(f.name, fmt.Sprintf("%s (default %s)", f.help, f.def), func(s string) error { text = s; return nil })
	}
	return func(cfg *serveConfig) error {
		var err error
		if o.backupEvery, err = time.ParseDuration(*texts["backup-every"]); err != nil || o.backupEvery < minBackupEvery {
			return usageError("--backup-every must be a duration of at least %s (24h, 6h30m), got %q", minBackupEvery, *texts["backup-every"])
		}
		if o.backupKeep, err = strconv.Atoi(*texts["backup-keep"]); err != nil || o.backupKeep < 1 {
			return usageError("--backup-keep must be a whole number ≥ 1, got %q", *texts["backup-keep"])
		}
		if o.shutdownTimeout, err = time.ParseDuration(*texts["shutdown-timeout"]); err != nil || o.shutdownTimeout <= 0 {
			return usageError("--shutdown-timeout must be a positive duration (30s, 2m), got %q", *texts["shutdown-timeout"])
		}
		if o.backupDir != "" && cfg.store.databaseURL != "" {
			return usageError("--backup-dir schedules backups of the SQLite database; on PostgreSQL use pg_dump " +
				"(docs/operations.md, \"PostgreSQL\")")
		}
		return nil
	}
}

// opsRuntime is what serve keeps for operators while it runs.
type opsRuntime struct {
	cfg      opsConfig
	dataDir  string
	draining atomic.Bool // set when shutdown begins: /readyz answers 503
}

// notDraining is a check of the metrics listener's /readyz: a process
// shutting down should be sent nothing new.
func (o *opsRuntime) notDraining(context.Context) error {
	if o.draining.Load() {
		return adcamp.Errorf(adcamp.CodeUnavailable, "shutting down")
	}
	return nil
}

// startBackground starts serve's background work for operators (the
// scheduled backups), each of which stops when ctx ends; wg waits for it.
func (a *app) startBackground(ctx context.Context, wg *sync.WaitGroup) {
	if a.ops.cfg.backupDir == "" {
		return
	}
	figures := a.metrics.Backups()
	s := &backup.Schedule{DataDir: a.ops.dataDir, Dir: a.ops.cfg.backupDir, Every: a.ops.cfg.backupEvery,
		Keep: a.ops.cfg.backupKeep, Options: backup.Options{Version: readBuildInfo().Version}, Log: a.log,
		Done: func(m *backup.Manifest, err error) {
			if err != nil {
				figures.Done(time.Time{}, 0, err)
				return
			}
			figures.Done(m.CreatedAt, m.Size, nil)
		},
		Found: func(m *backup.Manifest) { figures.Done(m.CreatedAt, m.Size, nil) }}
	wg.Go(func() { s.Run(ctx) })
}

// shutdown stops serve within --shutdown-timeout: /readyz answers 503 at
// once; every listener but the metrics' stops accepting and finishes its
// requests in flight; then the background work is told to stop and
// waited for; the metrics listener goes last, so that /livez and /readyz
// answer while the rest drains. What is still running at the deadline is
// cut off.
func (a *app) shutdown(ctx context.Context, ls listeners, stopBackground func(), background *sync.WaitGroup) {
	a.ops.draining.Store(true)
	deadline, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.ops.cfg.shutdownTimeout)
	defer cancel()
	var metrics listeners
	var servers sync.WaitGroup
	for _, l := range ls {
		if l.name == "metrics" {
			metrics = append(metrics, l)
			continue
		}
		servers.Go(func() { a.stopServer(deadline, l) })
	}
	servers.Wait()
	stopBackground()
	stopped := make(chan struct{})
	go func() { background.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-deadline.Done():
		a.log.Error("background work did not stop within --shutdown-timeout; exiting without it",
			"shutdown_timeout", a.ops.cfg.shutdownTimeout.String())
	}
	for _, l := range metrics {
		a.stopServer(deadline, l)
	}
}

// stopServer shuts l's server down gracefully, or at the deadline closes
// the connections left.
func (a *app) stopServer(deadline context.Context, l listener) {
	if err := l.srv.Shutdown(deadline); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			a.log.Error("requests still in flight at --shutdown-timeout: connections closed", "listener", l.name)
		} else {
			a.log.Error("shutdown", "listener", l.name, "err", err)
		}
		l.srv.Close()
	}
}
