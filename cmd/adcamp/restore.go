package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/adcamp/adcamp/internal/backup"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
)

// restoreResult is what adcamp restore --json prints.
type restoreResult struct {
	Manifest   *backup.Manifest `json:"manifest"`
	DataDir    string           `json:"data_dir"`
	SchemaNow  int64            `json:"schema_version"`        // after migrating forward
	ReplacedTo string           `json:"replaced_to,omitempty"` // where the database it replaced is kept
}

// restoreCmd runs adcamp restore --from FILE: it checks the backup whole,
// migrates a copy of its database forward, checks that the master key
// opens its secrets, and only then puts it in the data directory's place
// (the database it replaces is kept aside). It refuses while any process
// has the directory's database open, and on any failure the directory is
// left as it was.
func (c *cli) restoreCmd(ctx context.Context, args []string) error {
	flags := c.newFlags("restore")
	sf := c.storeFlags(flags)
	from := flags.String("from", "", "the backup `FILE` to restore (made by adcamp backup or serve --backup-dir)")
	asJSON := flags.Bool("json", false, "print what was restored as JSON")
	pos, err := c.parse(flags, args)
	switch {
	case err != nil:
		return err
	case len(pos) > 0:
		return usageError("restore takes no arguments; name the file with --from")
	case *from == "":
		return usageError("restore needs --from FILE")
	case sf.databaseURL != "":
		return noPostgres("restore")
	}
	if _, err := os.Stat(*from); err != nil {
		return fmt.Errorf("restore: %w; nothing was changed in %s", err, sf.dataDir)
	}
	res, err := c.restore(ctx, sf, *from)
	var half *halfReplaced
	switch {
	case errors.As(err, &half):
		return fmt.Errorf("restore %s: %w; the database may be half replaced, which stops every command on %s "+
			"until a restore completes: run this restore again", *from, err, sf.dataDir)
	case err != nil:
		return fmt.Errorf("restore %s: %w; nothing was changed in %s", *from, err, sf.dataDir)
	}
	if *asJSON {
		return json.NewEncoder(c.stdout).Encode(res)
	}
	c.printRestore(res, sf)
	return nil
}

// restore does the work of restoreCmd, holding the data directory. A
// directory that it creates and fails to restore into it removes.
func (c *cli) restore(ctx context.Context, sf *storeFlags, from string) (res *restoreResult, err error) {
	box, err := c.restoreKey(sf)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(sf.dataDir); errors.Is(err, fs.ErrNotExist) {
		defer func() {
			if err != nil {
				os.RemoveAll(sf.dataDir)
			}
		}()
	}
	release, err := sqlite.LockExclusive(sf.dataDir)
	if err != nil {
		return nil, err
	}
	defer release()
	staging, err := os.MkdirTemp(sf.dataDir, ".restore-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(staging)
	m, err := backup.Extract(ctx, from, staging)
	if err != nil {
		return nil, err
	}
	now, err := c.prepareRestored(ctx, staging, box)
	if err != nil {
		return nil, err
	}
	aside, err := sqlite.Replace(sf.dataDir, staging)
	if err != nil {
		return nil, &halfReplaced{err}
	}
	return &restoreResult{Manifest: m, DataDir: sf.dataDir, SchemaNow: now, ReplacedTo: aside}, nil
}

// halfReplaced is a failure of restore once it began moving files.
type halfReplaced struct{ err error }

func (e *halfReplaced) Error() string { return "put the restored database in place: " + e.err.Error() }
func (e *halfReplaced) Unwrap() error { return e.err }

// restoreKey loads the master key the restored database must open with:
// it is never in a backup, and never generated for one.
func (c *cli) restoreKey(sf *storeFlags) (*secrets.Box, error) {
	if text, ok := c.lookup("ADCAMP_MASTER_KEY"); !ok || text == "" {
		path := sf.masterKeyFile
		if path == "" {
			path = filepath.Join(sf.dataDir, "master.key")
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("the master key is not in the backup, and there is none at %s: put there the key "+
				"the backup's database was written with (mode 0600), or name it with --master-key-file or "+
				"ADCAMP_MASTER_KEY; without it the backup's API secrets cannot be opened", path)
		}
	}
	key, err := c.masterKey(sf, false, c.warn)
	if err != nil {
		return nil, err
	}
	return secrets.New(key)
}

// prepareRestored migrates the extracted database in dir forward and
// checks that box opens its secrets, and returns its schema version.
func (c *cli) prepareRestored(ctx context.Context, dir string, box *secrets.Box) (int64, error) {
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if err := service.CheckSecrets(ctx, db, box); err != nil {
		if errors.Is(err, service.ErrWrongMasterKey) {
			return 0, errors.New("the master key given does not open the backup's secrets; the master key is not " +
				"in a backup: use the key the backup's database was written with")
		}
		return 0, err
	}
	for _, msg := range db.Notices() {
		c.warn(msg)
	}
	s, err := db.Schema(ctx)
	return s.Current, err
}

// printRestore tells what restore did.
func (c *cli) printRestore(res *restoreResult, sf *storeFlags) {
	fmt.Fprintf(c.stdout, "restored %s\n", filepath.Join(res.DataDir, sqlite.FileName))
	printManifest(c, res.Manifest)
	if res.SchemaNow != res.Manifest.SchemaVersion {
		fmt.Fprintf(c.stdout, "  migrated  from schema %05d to %05d\n", res.Manifest.SchemaVersion, res.SchemaNow)
	}
	if res.ReplacedTo != "" {
		fmt.Fprintf(c.stdout, "  replaced  the database it replaced is kept in %s (delete it once satisfied)\n", res.ReplacedTo)
	}
	fmt.Fprintf(c.stdout, "The master key is not in a backup: %s opened the restored secrets.\n", c.keyFileName(sf))
}
