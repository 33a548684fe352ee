// Package sqlite implements store.Store over an embedded SQLite database
// (modernc.org/sqlite, pure Go, no cgo).
//
// The database runs in WAL mode with foreign keys on and a busy timeout.
// Writes go through one connection (SQLite allows one writer at a time, and
// queueing in Go is cheaper than spinning on SQLITE_BUSY); reads use a pool
// of read-only connections that never block the writer. Several processes
// may open the same file (the admin CLI while serve runs): write
// transactions start with BEGIN IMMEDIATE and wait up to the busy timeout.
// The report jobs' files are kept in a database of their own beside it,
// ReportsFileName, so that writing them commits nothing to the main
// database (reportFiles).
//
// What it cannot do: serve several machines. For that, use PostgreSQL.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// FileName is the database file inside the data directory.
const FileName = "adcamp.db"

// DB is a store.Store over one SQLite file.
type DB struct {
	write *sql.DB // one connection
	read  *sql.DB // a pool of read-only connections

	writeStmts, readStmts *stmtCache
	writes                *batcher

	background      *sql.DB // background readers (see Read)
	backgroundStmts *stmtCache

	checkpoints *sql.DB // one connection, for checkpointLoop
	files       *reportFiles
	stop        chan struct{}
	stopped     chan struct{}
	stopOnce    sync.Once
	closeOnce   sync.Once

	notices []string // see Notices
	unlock  func()   // releases the data directory's shared lock (LockShared)
}

var _ store.Store = (*DB)(nil)

// Open opens (creating if needed) the database in dir and brings its schema
// up to date. The directory is made 0700 and the database's files 0600,
// whatever they were: they hold every account's data. It refuses a
// database that a newer adcamp has migrated (store.SchemaTooNewError), and
// a directory that a restore holds; while the database is open, no
// restore can take the directory (LockShared).
func Open(ctx context.Context, dir string, opts ...Option) (*DB, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	path := filepath.Join(dir, FileName)
	if err := private(dir, path, filepath.Join(dir, ReportsFileName)); err != nil {
		return nil, err
	}
	unlock, err := LockShared(dir)
	if err != nil {
		return nil, err
	}
	db, err := open(ctx, dir, path, &o)
	if err != nil {
		unlock()
		return nil, err
	}
	db.unlock = unlock
	return db, nil
}

// Option changes how Open opens a database.
type Option func(*options)

type options struct {
	beforeMigrate func(ctx context.Context, s store.Schema) error
	upTo          int64       // 0: the latest version
	readMemory    *ReadMemory // nil: sized by readMemoryFor
}

// ReadMemory is what the reader connections hold of the database in
// memory: each one's page cache, and the memory map they read the file
// through (see readMemoryFor).
type ReadMemory struct {
	CacheKiB  int64 // page cache of each reader connection, in KiB (SQLite's default: 2,000)
	MmapBytes int64 // memory map of the file, in bytes; 0 reads with pread into the page cache
}

// WithReadMemory has Open give the reader connections m instead of what
// it sizes for the database and the machine: for the benchmarks that
// compare settings.
func WithReadMemory(m ReadMemory) Option {
	return func(o *options) { o.readMemory = &m }
}

// UpTo has Open migrate the database no further than version: for tests
// of upgrades, which need a database as an older adcamp left it.
func UpTo(version int64) Option {
	return func(o *options) { o.upTo = version }
}

// BeforeMigrate has Open call fn before it applies migrations to a
// database that holds data (one at a version above 0), with where its
// schema stands; an error from fn stops Open before any migration. serve
// backs the database up there.
func BeforeMigrate(fn func(ctx context.Context, s store.Schema) error) Option {
	return func(o *options) { o.beforeMigrate = fn }
}

// open is Open once the directory is locked.
func open(ctx context.Context, dir, path string, o *options) (*DB, error) {
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)"
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas
	// The writer leaves checkpoints to checkpointLoop, up to a WAL of
	// walCheckpointPages pages (should the loop fall behind for good).
	w, err := sql.Open("sqlite", dsn+"&_txlock=immediate&_pragma=wal_autocheckpoint("+itoa(walCheckpointPages)+")")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	db := &DB{write: w, writeStmts: newStmtCache(w)}
	db.writes = &batcher{stmts: db.writeStmts, caches: &writerCaches{places: new(store.PlaceCache), hours: new(store.HourCache), live: new(liveKeywords)}}
	if err := db.migrate(ctx, dir, o); err != nil {
		w.Close()
		return nil, err
	}
	mem := readMemoryFor(path)
	if o.readMemory != nil {
		mem = *o.readMemory
	}
	r, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)"+mem.pragmas())
	if err != nil {
		w.Close()
		return nil, err
	}
	n := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	db.read, db.readStmts = r, newStmtCache(r)
	// The background readers: no memory map, SQLite's default page cache
	// (see DB.Read).
	bg, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)"+ReadMemory{CacheKiB: 2000}.pragmas())
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	bg.SetMaxOpenConns(backgroundReaders)
	bg.SetConnMaxIdleTime(time.Minute)
	db.background, db.backgroundStmts = bg, newStmtCache(bg)
	ck, err := sql.Open("sqlite", dsn)
	if err != nil {
		bg.Close()
		r.Close()
		w.Close()
		return nil, err
	}
	ck.SetMaxOpenConns(1)
	files, err := openReportFiles(ctx, filepath.Join(dir, ReportsFileName))
	if err != nil {
		ck.Close()
		bg.Close()
		r.Close()
		w.Close()
		return nil, fmt.Errorf("open the report jobs' files: %w", err)
	}
	db.files, db.writeStmts.files, db.readStmts.files = files, files, files
	db.checkpoints, db.stop, db.stopped = ck, make(chan struct{}), make(chan struct{})
	go db.checkpointLoop(checkpointEvery)
	return db, nil
}

// readMemoryFor sizes the readers' memory for the database at path on
// this machine, when Open opens it.
//
// A database under mmapFrom keeps SQLite's defaults: a page cache of
// 2,000 KiB per reader connection, read into with pread. Its pages in
// use fit there, and the process's resident memory stays small (issue 39
// holds the mixed sitting, on a new database, to 64 MiB).
//
// From mmapFrom up, the readers read the file through a memory map of
// up to mmapMax or a quarter of the machine's memory, whichever is less
// (SQLite maps no more than the file holds; the WAL's pages are still
// read with pread). With a million campaigns, a get by id read 1.8 pages
// a request that the page cache had lost (a pread each), and took 1.3
// times as long as with a hundred; through the map it reads none, and takes
// 1.05 times as long once the pages have been read once
// (bench/notes/2026-11-27-million-gets.md). A larger page cache did as
// well only once it held the whole file, in each connection's own copy
// (anonymous memory, the file's size times the connections); the map's
// pages are the kernel's page cache, one copy shared by every connection
// and process, which the kernel takes back when memory runs short. They
// count in the process's resident memory (RssFile) once read: so only
// for a database too big for the small figure to hold anyway.
//
// The size is chosen when the process opens the database: one that grows
// past mmapFrom is read through a map from the next start.
func readMemoryFor(path string) ReadMemory {
	m := ReadMemory{CacheKiB: 2000}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() < mmapFrom {
		return m
	}
	m.MmapBytes = mmapMax
	if ram := physicalMemory(); ram > 0 {
		m.MmapBytes = min(m.MmapBytes, ram/4)
	}
	return m
}

// mmapFrom and mmapMax bound the readers' memory map (see readMemoryFor).
// mmapMax is the most this build of SQLite maps (SQLITE_MAX_MMAP_SIZE).
const (
	mmapFrom = 64 << 20
	mmapMax  = 0x7fff0000
)

// pragmas are m's settings as DSN parameters.
func (m ReadMemory) pragmas() string {
	return "&_pragma=cache_size(-" + strconv.FormatInt(m.CacheKiB, 10) + ")&_pragma=mmap_size(" + strconv.FormatInt(m.MmapBytes, 10) + ")"
}

// private makes dir (created if needed) 0700, and the databases at paths
// 0600, creating their files before SQLite does: SQLite would create them
// with the mode the umask leaves (0644, commonly), and gives their -wal
// and -shm files the database file's mode. The directory is changed where
// the process may (it may not own a directory it was given).
func private(dir string, paths ...string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	os.Chmod(dir, 0o700)
	files := []string{filepath.Join(dir, "migrate.lock")}
	for _, path := range paths {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("create the database: %w", err)
		}
		f.Close()
		files = append(files, path, path+"-wal", path+"-shm")
	}
	for _, p := range files {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("make %s private: %w", filepath.Base(p), err)
		}
	}
	return nil
}

// Checkpoints copy the pages written to the WAL back into the database
// file; once all are copied, the next write starts the WAL over. SQLite
// runs one in the commit that takes the WAL past wal_autocheckpoint pages,
// in the writer's time, and the changes of that batch wait for it. Here:
//
//   - a PASSIVE checkpoint runs every checkpointEvery on a connection of
//     its own, beside the writer, and copies most pages (a page written
//     many times in between, the last page of an index or a counter, is
//     copied once);
//   - under a steady stream of writes it cannot copy the pages written
//     while it ran, so the WAL could never start over: it runs again while
//     many were left (checkpointBeside), then the writer's next batch,
//     once answered, copies the few still left (batcher.checkpoint);
//   - the writer's own checkpoint at walCheckpointPages stays as the
//     bound should the loop fall behind for good (a disk slower than the
//     writes): far above what a long reader leaves behind, see below.
//
// Measured (bench/notes/2026-11-23-sqlite-sitting.md): at 64 connections
// this machine appends about 16,000 pages a second to the WAL. With the bound at 20,000 pages the
// writer reached it about once a second, and that commit, checkpointing a
// second's pages and syncing them, took 25 to 140 ms instead of 1 to 3.
// Checkpoints every 2 s rather than every second lowered the p99 of
// changes at 64 connections from 24-28 ms to 19-25 (every 250 ms: 29-32,
// and 12-14 ms at 16 connections; every 4 s: 17-23, for a WAL of a
// quarter of a GB under that load): each one's syncs slow the writes
// around it. The WAL holds up to checkpointEvery of writes, and so does
// what a power cut can take (synchronous=NORMAL syncs at checkpoints).
//
// A long reader (a backup's copy, which holds its snapshot for seconds)
// keeps every checkpoint from copying the pages written after its
// snapshot began, so the WAL grows by seconds of writes: past 100,000
// pages in a backup of a 540 MB database under 16 busy writers. With
// the bound there, the writer's next commit after the reader let go
// copied that backlog itself, syncs included, and every write waited for
// it: the 90 to 190 ms stalls at the end of a backup's copy
// (bench/notes/backup.md). With the bound at a million pages (4 GB) the
// backlog goes back beside the writer, by the backup's own slices and
// this loop; the WAL file keeps its size once grown (SQLite reuses it).
const (
	checkpointEvery    = 2 * time.Second
	checkpointPasses   = 4
	checkpointLeft     = 64      // pages: few enough for the writer to copy
	catchUpMax         = 2048    // pages (8 MB): the most the writer is asked to copy
	walCheckpointPages = 1000000 // 4 GB: a minute of writes at the rate above
)

func (db *DB) checkpointLoop(every time.Duration) {
	defer close(db.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
			db.checkpointBeside()
		}
	}
}

// stopCheckpoints stops checkpointLoop and waits for it to end.
func (db *DB) stopCheckpoints() {
	db.stopOnce.Do(func() {
		close(db.stop)
		<-db.stopped
	})
}

// checkpointBeside runs PASSIVE checkpoints on the checkpoint connection,
// then has the writer's next batch catch up. Each pass copies what was in
// the WAL when it began; the pages written meanwhile are left. A first
// pass copies a period's pages (a second's took 50 to 70 ms here), so another
// follows while the last left many (at most checkpointPasses in all), and
// the writer, which the batches behind it wait for, catches up on a few:
// 1 to 4 ms instead of 9 to 19. An error (the database busy or gone)
// leaves the WAL to grow until the next tick or the writer's own
// checkpoint.
func (db *DB) checkpointBeside() {
	last, left := -1, 0
	for range checkpointPasses {
		var busy, log, copied int
		if err := db.checkpoints.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &copied); err != nil {
			return
		}
		left = log - copied
		// log counts the WAL's pages; it shrinks when the WAL started
		// over after the last pass had copied everything.
		if last >= 0 && (log < last || log-last < checkpointLeft) {
			break
		}
		last = log
	}
	// The writer copies what is left in its own time, and every change
	// waits for it: only a few pages. After a long reader (a backup's
	// copy holds one snapshot for seconds) the passes cannot catch up
	// with a WAL of tens of thousands of pages, and a writer copying them
	// held every write up for 0.6 s (bench/notes/backup.md); those are
	// left to the next tick.
	if left <= catchUpMax {
		db.writes.catchUp.Store(true)
	}
}

// migrate applies the embedded migrations under an exclusive file lock, so
// that processes starting together on one data directory take turns. It
// refuses a database migrated by a newer adcamp, and runs o.beforeMigrate
// first when there is something to apply to a database with data.
func (db *DB) migrate(ctx context.Context, dir string, o *options) error {
	lock, err := os.OpenFile(filepath.Join(dir, "migrate.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	s, err := schemaOf(ctx, db.write)
	if err != nil {
		return err
	}
	if err := s.Check(); err != nil {
		return err
	}
	if o.upTo > 0 {
		s.Pending = slices.DeleteFunc(s.Pending, func(m store.Migration) bool { return m.Version > o.upTo })
	}
	if len(s.Pending) > 0 && s.Current > 0 && o.beforeMigrate != nil {
		if err := o.beforeMigrate(ctx, s); err != nil {
			return fmt.Errorf("before migrating the database from version %05d: %w", s.Current, err)
		}
	}
	p, err := newProvider(db.write, &db.notices)
	if err != nil {
		return err
	}
	if o.upTo > 0 {
		_, err = p.UpTo(ctx, o.upTo)
	} else {
		_, err = p.Up(ctx)
	}
	if err != nil {
		return fmt.Errorf("migrate database: %w", err)
	}
	return nil
}

// newProvider returns the migrations: the embedded SQL files, and the
// ones written in Go, which add what they find for the operator to
// notices.
func newProvider(db *sql.DB, notices *[]string) (*goose.Provider, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	rekey := goose.NewGoMigration(10, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
		collisions, err := store.RekeyKeywords(ctx, tx)
		for _, c := range collisions {
			*notices = append(*notices, "migration 00010: "+c.String())
		}
		return err
	}}, nil)
	return goose.NewProvider(goose.DialectSQLite3, db, sub, goose.WithGoMigrations(rekey))
}

// Notices returns what the migrations run by Open found for the operator
// to resolve (keywords whose texts came to read alike).
func (db *DB) Notices() []string { return db.notices }

// Close stops the checkpoints and closes the pools. Closing again does
// nothing.
func (db *DB) Close() error {
	var err error
	db.closeOnce.Do(func() {
		db.stopCheckpoints()
		db.writeStmts.close()
		db.readStmts.close()
		db.backgroundStmts.close()
		err = errors.Join(db.checkpoints.Close(), db.files.close(), db.background.Close(), db.read.Close(), db.write.Close())
		if db.unlock != nil {
			db.unlock()
		}
	})
	return err
}

// Ping checks both pools.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.read.PingContext(ctx); err != nil {
		return err
	}
	return db.write.PingContext(ctx)
}

// Write runs fn in a write transaction on the writer connection. Writes
// made at the same time may share one commit (see batcher); each is still
// all or nothing. Once begun, a write runs to its end even if ctx is
// cancelled.
func (db *DB) Write(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return db.writes.write(fn, store.Repeatable(ctx))
}

// Read runs fn in a read transaction on a reader connection. A context
// marked by store.WithBackgroundReads (a report job's rows) reads on a
// background reader instead: at most backgroundReaders of them, without
// the readers' memory map. Through the map, the pages a job reads would
// stay mapped in the process, counted in its resident memory: a 4 M-row
// job over a 2 GB database left 1.4 GB there (bench/notes/reports.md).
func (db *DB) Read(ctx context.Context, fn func(store.Tx) error) error {
	db.writes.stepAside()
	if store.BackgroundReads(ctx) {
		return transact(ctx, db.backgroundStmts, nil, fn)
	}
	return transact(ctx, db.readStmts, nil, fn)
}

// backgroundReaders is how many background reads run at once; more wait.
const backgroundReaders = 2

// ReadOne runs fn, which makes one call on its Tx, on the reader pool. A
// call of one statement runs it without BEGIN and COMMIT (a statement sees
// one snapshot); a call of several begins a transaction (see consistent).
func (db *DB) ReadOne(ctx context.Context, fn func(store.Tx) error) (err error) {
	db.writes.stepAside()
	db.readStmts.prepareNoted(ctx)
	t := &tx{pool: db.read, stmts: db.readStmts}
	defer func() {
		if t.tx != nil {
			// Read-only: nothing to keep, and rollback cannot fail
			// halfway like a commit.
			if rerr := t.tx.Rollback(); err == nil {
				err = rerr
			}
		}
	}()
	return fn(t)
}

// transact runs fn in a transaction of the pool of stmts. ctx bounds the
// wait for a connection; the statements run to their end (see tx.ctx).
// caches are the writer's, nil in reads.
func transact(ctx context.Context, stmts *stmtCache, caches *writerCaches, fn func(store.Tx) error) (err error) {
	stmts.prepareNoted(ctx)
	sqlTx, err := stmts.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	t := caches.newTx(sqlTx, stmts)
	defer func() {
		if p := recover(); p != nil {
			sqlTx.Rollback()
			panic(p)
		}
		if err != nil {
			sqlTx.Rollback()
			return
		}
		if err = sqlTx.Commit(); err == nil {
			t.commitStages()
		}
	}()
	return fn(t)
}

// writerCaches are the writer's caches. Its transactions stage what they
// find and store, given to the caches once they commit.
type writerCaches struct {
	places *store.PlaceCache // where keywords lie (DeliveryKeywords)
	hours  *store.HourCache  // what delivery_hours holds (PutDelivery)
	live   *liveKeywords     // which keywords exist (DeliveryKeywords)
}

// newTx returns the tx of sqlTx, with stages of the caches (none for c
// nil, a read's).
func (c *writerCaches) newTx(sqlTx *sql.Tx, stmts *stmtCache) *tx {
	t := &tx{tx: sqlTx, stmts: stmts}
	if c != nil {
		t.places, t.hours, t.live = c.places, &store.HourStage{Cache: c.hours}, &liveStage{cache: c.live}
	}
	return t
}

// stageMarks is where a write's stages began, for a savepoint's rollback.
type stageMarks struct{ hours, live int }

func (t *tx) markStages() stageMarks { return stageMarks{t.hours.Mark(), t.live.mark()} }

func (t *tx) undoStages(m stageMarks) {
	t.hours.Undo(m.hours)
	t.live.undo(m.live)
}

// commitStages gives the caches what the transaction staged: call it once
// it has committed.
func (t *tx) commitStages() {
	t.hours.Commit()
	t.live.commit()
}

// tx implements store.Tx.
type tx struct {
	tx     *sql.Tx           // nil for a ReadOne call that has not begun one
	pool   *sql.DB           // set for ReadOne: where statements run without tx
	stmts  *stmtCache        // of the transaction's pool
	places *store.PlaceCache // the writer's (DeliveryKeywords), nil in reads
	hours  *store.HourStage  // the writer's (PutDelivery), nil in reads
	live   *liveStage        // the writer's (DeliveryKeywords), nil in reads

	endpoints map[adcamp.Tenant]bool // tenants with an enabled webhook endpoint, as found (hasEndpoint)
}

// consistent makes the statements that follow share one snapshot: a
// method of several statements calls it first. Inside Read and Write
// they already do; a ReadOne call begins its transaction here.
func (t *tx) consistent(ctx context.Context) error {
	if t.tx != nil {
		return nil
	}
	var err error
	t.tx, err = t.pool.BeginTx(ctx, nil)
	return err
}

// ctx is the context a statement runs under: none. Every statement here
// is short and bounded (a page is at most 100 rows), so cancelling one
// when its client hangs up saves little, and costs much: with a context
// that can end, database/sql and the driver each start a goroutine to
// watch it, for every statement. In a write, an interrupted statement
// would also roll back the whole transaction, other requests' writes
// with it (see batcher). The caller's ctx still bounds the wait for a
// transaction's connection (a ReadOne statement waits for the reader pool,
// whose connections only ever run such short statements).
func (t *tx) ctx(context.Context) context.Context { return context.Background() }

func itoa(n int) string { return strconv.Itoa(n) }

// PoolStats describes the writer connection, the reader pool and the
// background readers' pool (report jobs).
func (db *DB) PoolStats() []store.PoolStats {
	return []store.PoolStats{poolStats("write", db.write.Stats()), poolStats("read", db.read.Stats()),
		poolStats("background", db.background.Stats())}
}

func poolStats(name string, s sql.DBStats) store.PoolStats {
	return store.PoolStats{Name: name, MaxOpen: s.MaxOpenConnections, Open: s.OpenConnections, InUse: s.InUse,
		Idle: s.Idle, WaitCount: s.WaitCount, WaitDuration: s.WaitDuration}
}
