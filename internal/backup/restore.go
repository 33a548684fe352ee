package backup

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/adcamp/adcamp/internal/sqlite"
)

// ErrDamaged is the error of a file that is not a whole, intact backup:
// not a backup at all, cut short, or whose database does not match its
// manifest or fails SQLite's integrity check.
var ErrDamaged = errors.New("the backup is damaged")

// ErrSchema is the error of a backup whose database's schema this adcamp
// cannot restore: newer than the migrations it carries.
var ErrSchema = errors.New("the backup's schema is not one this adcamp can restore")

// Extract checks the backup file from and writes its database into the
// directory into (which must exist, on the data directory's file system,
// and hold no database), as sqlite.FileName. It returns the backup's
// manifest. On any error, what it wrote is removed: a restore that fails
// here has touched nothing.
func Extract(ctx context.Context, from, into string) (m *Manifest, err error) {
	f, err := os.Open(from)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	if m, err = readHead(tr); err != nil {
		return nil, err
	}
	if err := checkSchema(m); err != nil {
		return nil, err
	}
	h, err := tr.Next()
	if err != nil || h.Name != databaseName || h.Size != m.Size {
		return nil, damaged("its second member is not the %d-byte %s its manifest describes (%v)", m.Size, databaseName, err)
	}
	path := filepath.Join(into, sqlite.FileName)
	defer func() {
		if err != nil {
			removeDatabase(path)
		}
	}()
	if err := writeChecked(path, tr, m); err != nil {
		return nil, err
	}
	return m, checkDatabase(ctx, path, m)
}

// Inspect reads the manifest of the backup file from and checks the file
// whole against it, writing nothing.
func Inspect(ctx context.Context, from string) (*Manifest, error) {
	dir, err := os.MkdirTemp("", "adcamp-inspect-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	return Extract(ctx, from, dir)
}

// readHead reads the manifest, the first member of a backup.
func readHead(tr *tar.Reader) (*Manifest, error) {
	h, err := tr.Next()
	if err != nil {
		return nil, damaged("it is not an adcamp backup (a tar file that begins with %s): %v", manifestName, err)
	}
	if h.Name != manifestName {
		return nil, damaged("it is not an adcamp backup: its first member is %q, not %s", h.Name, manifestName)
	}
	m, err := readManifest(tr, h.Size)
	if err != nil {
		return nil, damaged("%v", err)
	}
	return m, nil
}

// checkSchema refuses a backup taken by a newer adcamp.
func checkSchema(m *Manifest) error {
	all, err := sqlite.Migrations()
	if err != nil {
		return err
	}
	if latest := all[len(all)-1].Version; m.SchemaVersion > latest {
		// A build without a version (devel) names no release to use.
		with := "an adcamp that knows it"
		if m.AdcampVersion != "" && m.AdcampVersion != "devel" {
			with = "adcamp " + m.AdcampVersion + " or later"
		}
		return fmt.Errorf("%w: its database is at schema version %05d, newer than this adcamp knows (up to %05d); "+
			"restore it with %s", ErrSchema, m.SchemaVersion, latest, with)
	}
	return nil
}

// writeChecked writes the database member r to path (0600), synced, and
// checks its SHA-256 against the manifest's.
func writeChecked(path string, r io.Reader, m *Manifest) error {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), r)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if n < m.Size {
			return damaged("its database is cut short: %d of %d bytes (%v)", n, m.Size, err)
		}
		return err
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != m.SHA256 {
		return damaged("its database's SHA-256 is %s, but its manifest says %s", sum, m.SHA256)
	}
	return nil
}

// checkDatabase runs SQLite's integrity check on the extracted database
// and compares its schema version with the manifest's.
func checkDatabase(ctx context.Context, path string, m *Manifest) error {
	db, err := sql.Open("sqlite", dsn(path, "_pragma=busy_timeout(10000)&_pragma=query_only(1)"))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := integrityCheck(ctx, db); err != nil {
		return damaged("its database: %v", err)
	}
	s, err := sqlite.SchemaOf(ctx, db)
	if err != nil {
		return damaged("its database: %v", err)
	}
	if s.Current != m.SchemaVersion {
		return damaged("its database is at schema version %05d, but its manifest says %05d", s.Current, m.SchemaVersion)
	}
	return nil
}

func damaged(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrDamaged, fmt.Sprintf(format, args...))
}
