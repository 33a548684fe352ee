package postgres

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
)

// newerMigrations lists the migration files newer than every one of
// files, newest first. Rolling a migration back means rolling back those
// after it first: goose refuses a database that lacks an older migration
// than its newest (and a later release adds migrations the tests of an
// older one do not name).
func newerMigrations(t *testing.T, files []string) []string {
	t.Helper()
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	newest := slices.Max(files)
	var out []string
	for _, n := range names {
		if name := path.Base(n); strings.Compare(name, newest) > 0 {
			out = append(out, name)
		}
	}
	slices.Reverse(out)
	return out
}
