package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/adcamp/adcamp/internal/backup"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// noPostgres is the answer of the SQLite-only commands to --database-url.
func noPostgres(cmd string) error {
	return usageError("adcamp %s is for SQLite (--data-dir); on PostgreSQL use pg_dump and pg_restore "+
		"(docs/operations.md, \"PostgreSQL\")", cmd)
}

// backupCmd runs adcamp backup --to FILE: an online backup of the data
// directory's database, while serve runs.
func (c *cli) backupCmd(ctx context.Context, args []string) error {
	fs := c.newFlags("backup")
	sf := c.storeFlags(fs)
	to := fs.String("to", "", "the backup `FILE` to write (it must not exist); mode 0600")
	asJSON := fs.Bool("json", false, "print the backup's manifest as JSON")
	pos, err := c.parse(fs, args)
	switch {
	case err != nil:
		return err
	case len(pos) > 0:
		return usageError("backup takes no arguments; name the file with --to")
	case *to == "":
		return usageError("backup needs --to FILE")
	case sf.databaseURL != "":
		return noPostgres("backup")
	}
	m, err := backup.Create(ctx, sf.dataDir, *to, backup.Options{Version: readBuildInfo().Version})
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if *asJSON {
		return json.NewEncoder(c.stdout).Encode(m)
	}
	fmt.Fprintf(c.stdout, "backed up %s to %s\n", filepath.Join(sf.dataDir, sqlite.FileName), *to)
	printManifest(c, m)
	fmt.Fprintf(c.stdout, "The master key is not in the backup: keep a copy of %s apart from it (docs/operations.md).\n",
		c.keyFileName(sf))
	return nil
}

// printManifest shows what a backup holds.
func printManifest(c *cli, m *backup.Manifest) {
	fmt.Fprintf(c.stdout, "  taken     %s by adcamp %s\n", m.CreatedAt.Format(time.RFC3339), m.AdcampVersion)
	fmt.Fprintf(c.stdout, "  schema    %05d\n", m.SchemaVersion)
	fmt.Fprintf(c.stdout, "  database  %d bytes, SHA-256 %s, integrity checked\n", m.Size, m.SHA256)
	fmt.Fprintf(c.stdout, "  rows      %d in %d tables\n", m.Rows(), len(m.Tables))
}

// keyFileName names where the master key comes from, for messages.
func (c *cli) keyFileName(sf *storeFlags) string {
	if text, ok := c.lookup("ADCAMP_MASTER_KEY"); ok && text != "" {
		return "the master key (ADCAMP_MASTER_KEY)"
	}
	if sf.masterKeyFile != "" {
		return sf.masterKeyFile
	}
	return filepath.Join(sf.dataDir, "master.key")
}

// backupBeforeMigrate is the hook with which every command that opens a
// SQLite database backs it up before migrating it: the backup is kept in
// the data directory, named by the schema version it holds
// (pre-migration-00015-20260102T030405Z.tar), so that an upgrade that
// goes wrong can be undone with the binary before it and adcamp restore.
func (c *cli) backupBeforeMigrate(dataDir string, tell func(string)) sqlite.Option {
	return sqlite.BeforeMigrate(func(ctx context.Context, s store.Schema) error {
		name := fmt.Sprintf("pre-migration-%05d-%s.tar", s.Current, time.Now().UTC().Format("20060102T150405Z"))
		to := filepath.Join(dataDir, name)
		m, err := backup.Create(ctx, dataDir, to, backup.Options{Version: readBuildInfo().Version})
		if err != nil {
			return err
		}
		tell(fmt.Sprintf("migrating the database from schema %05d to %05d: backed up first to %s (%d bytes, SHA-256 %s)",
			s.Current, s.Pending[len(s.Pending)-1].Version, to, m.Size, m.SHA256))
		return nil
	})
}
