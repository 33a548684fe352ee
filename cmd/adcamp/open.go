package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// storeFlags are the flags every command uses to find its data.
type storeFlags struct {
	dataDir       string
	databaseURL   string
	masterKeyFile string
}

func (c *cli) storeFlags(fs *flag.FlagSet) *storeFlags {
	var sf storeFlags
	fs.StringVar(&sf.dataDir, "data-dir", c.envDefault(envName("data-dir"), "./adcamp-data"),
		"directory of the SQLite database and the generated master key")
	// Func, not StringVar: the help shows a flag's default, which would be
	// the URL of ADCAMP_DATABASE_URL, password and all.
	sf.databaseURL = c.envDefault(envName("database-url"), "")
	fs.Func("database-url", "PostgreSQL `URL` (postgres://user@host/db); empty (the default) selects SQLite in --data-dir",
		func(s string) error { sf.databaseURL = s; return nil })
	fs.StringVar(&sf.masterKeyFile, "master-key-file", c.envDefault(envName("master-key-file"), ""),
		"file holding the 64-hex-digit master key (default DATA_DIR/master.key, generated on a new data directory)")
	return &sf
}

// open opens the store and the secret box named by sf; what the operator
// should know (see openWarn) goes to stderr.
func (c *cli) open(ctx context.Context, sf *storeFlags) (store.Store, *secrets.Box, error) {
	return c.openWarn(ctx, sf, c.warn)
}

// warn writes a warning for the operator on stderr.
func (c *cli) warn(msg string) { fmt.Fprintln(c.stderr, "adcamp: warning:", msg) }

// openWarn is open, telling warn what the operator should know: what the
// migrations found that needs a person's decision. It refuses a master
// key that is not the one of the database's secrets.
func (c *cli) openWarn(ctx context.Context, sf *storeFlags, warn func(string)) (store.Store, *secrets.Box, error) {
	db, box, err := c.openStore(ctx, sf, warn)
	if err != nil {
		return nil, nil, err
	}
	if err := service.CheckSecrets(ctx, db, box); err != nil {
		db.Close()
		return nil, nil, err
	}
	if n, ok := db.(store.Noticer); ok {
		for _, msg := range n.Notices() {
			warn(msg)
		}
	}
	return db, box, nil
}

// openStore opens the database and the secret box named by sf.
func (c *cli) openStore(ctx context.Context, sf *storeFlags, warn func(string)) (store.Store, *secrets.Box, error) {
	if sf.databaseURL != "" {
		return c.openPostgres(ctx, sf, warn)
	}
	_, err := os.Stat(filepath.Join(sf.dataDir, sqlite.FileName))
	fresh := errors.Is(err, fs.ErrNotExist)
	key, err := c.masterKey(sf, fresh, warn)
	if err != nil {
		return nil, nil, err
	}
	box, err := secrets.New(key)
	if err != nil {
		return nil, nil, err
	}
	db, err := sqlite.Open(ctx, sf.dataDir, c.backupBeforeMigrate(sf.dataDir, warn))
	if err != nil {
		return nil, nil, err
	}
	return db, box, nil
}

// openPostgres opens the PostgreSQL database of --database-url. The master
// key must be given (ADCAMP_MASTER_KEY or --master-key-file): every
// server on the database needs the same one, so none is ever generated.
func (c *cli) openPostgres(ctx context.Context, sf *storeFlags, warn func(string)) (store.Store, *secrets.Box, error) {
	switch scheme, _, found := strings.Cut(sf.databaseURL, "://"); {
	case !found:
		return nil, nil, usageError("--database-url must be a PostgreSQL URL, postgres://user@host/db; it has no scheme")
	case scheme != "postgres" && scheme != "postgresql":
		return nil, nil, usageError("--database-url must be a PostgreSQL URL, postgres://user@host/db; "+
			"scheme %q is not supported (leave it empty for SQLite in --data-dir)", scheme)
	}
	var key []byte
	var err error
	if text, ok := c.lookup("ADCAMP_MASTER_KEY"); ok && text != "" {
		if key, err = secrets.ParseKey(text); err != nil {
			err = fmt.Errorf("ADCAMP_MASTER_KEY: %w", err)
		}
	} else if sf.masterKeyFile != "" {
		key, err = secrets.LoadOrCreateKeyFile(sf.masterKeyFile, false)
		warnIfReadable(sf.masterKeyFile, warn)
	} else {
		return nil, nil, usageError("--database-url needs the master key in ADCAMP_MASTER_KEY or --master-key-file " +
			"(the same key on every server of the database; it is never generated for a database URL)")
	}
	if err != nil {
		return nil, nil, err
	}
	box, err := secrets.New(key)
	if err != nil {
		return nil, nil, err
	}
	db, err := postgres.Open(ctx, sf.databaseURL)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", redact(sf.databaseURL), err)
	}
	return db, box, nil
}

// redact hides the password of a database URL, for messages: in the
// user information and in a password parameter.
func redact(databaseURL string) string {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "the database"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// masterKey finds the master key: ADCAMP_MASTER_KEY (hex), else the key
// file. The default file is generated only for a brand-new data directory,
// so that losing it never silently orphans stored secrets.
func (c *cli) masterKey(sf *storeFlags, fresh bool, warn func(string)) ([]byte, error) {
	if text, ok := c.lookup("ADCAMP_MASTER_KEY"); ok && text != "" {
		return secrets.ParseKey(text)
	}
	path, create := sf.masterKeyFile, false
	if path == "" {
		path = filepath.Join(sf.dataDir, "master.key")
		create = fresh
	}
	key, err := secrets.LoadOrCreateKeyFile(path, create)
	warnIfReadable(path, warn)
	if err != nil && !create && path == filepath.Join(sf.dataDir, "master.key") {
		return nil, fmt.Errorf("%w (the data directory holds a database but no master key: restore master.key or pass --master-key-file)", err)
	}
	return key, err
}

// warnIfReadable warns about a master key file that others than its owner
// may read or change.
func warnIfReadable(path string, warn func(string)) {
	if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o077 != 0 {
		warn(fmt.Sprintf("the master key file %s has mode %04o: others than its owner can read it, and with it every "+
			"API secret; run: chmod 600 %s", path, info.Mode().Perm(), path))
	}
}

// newService builds the service over an opened store.
func newService(db store.Store, box *secrets.Box, log *slog.Logger, cfg service.Config) *service.Service {
	cfg.Store, cfg.Box, cfg.Logger = db, box, log
	return service.New(cfg)
}
