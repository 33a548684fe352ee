package backup

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveGently: a file larger than a step, one that may not be
// written, and one of a step or less are all removed; a missing one says
// so.
func TestRemoveGently(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, c := range map[string]struct {
		size int64
		mode os.FileMode
	}{
		"large":     {3*shrinkStep + 5, 0o600},
		"read-only": {2 * shrinkStep, 0o400},
		"small":     {100, 0o600},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("x"), c.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, c.size); err != nil && c.mode&0o200 != 0 {
			t.Fatal(err)
		}
		if err := removeGently(path); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: still there after removeGently (%v)", name, err)
		}
	}
	if err := removeGently(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}
