package sqlite

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// TestWALStartsOverAfterCatchUp checks the checkpoint arrangement of
// checkpointLoop. A checkpoint beside the writer cannot copy the pages
// written while it runs (here: those a reader's older snapshot still
// needs), so alone it never lets the WAL start over while writes keep
// coming. The writer's next batch copies them, and the write after that
// starts the WAL from its beginning.
func TestWALStartsOverAfterCatchUp(t *testing.T) {
	t.Parallel()
	for _, catchUp := range []bool{false, true} {
		t.Run(fmt.Sprintf("catchUp=%v", catchUp), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			db, err := Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// The loop's checkpoints would come at moments of their own;
			// the test makes its own.
			db.stopCheckpoints()
			now := time.Now().UTC().Truncate(time.Microsecond)
			acc := &adcamp.Account{ID: "acc_wal", Name: "wal", CreatedAt: now}
			if err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateAccount(ctx, acc) }); err != nil {
				t.Fatal(err)
			}
			n := 0
			write := func(count int) {
				t.Helper()
				for range count {
					n++
					c := &adcamp.Campaign{ID: fmt.Sprintf("cmp_wal%05d", n), AccountID: acc.ID,
						Environment: adcamp.Production, Name: "wal", BudgetDaily: 100, Marketplace: "US",
						Status: adcamp.StatusActive, Version: 1, CreatedAt: now, UpdatedAt: now}
					if err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateCampaign(ctx, c) }); err != nil {
						t.Fatal(err)
					}
				}
			}
			// The WAL header's checkpoint sequence number counts the times
			// the WAL started over; reading it changes nothing.
			restarts := func() uint32 {
				t.Helper()
				b, err := os.ReadFile(filepath.Join(dir, FileName+"-wal"))
				if err != nil || len(b) < 32 {
					t.Fatalf("read the WAL header: %v (%d bytes)", err, len(b))
				}
				return binary.BigEndian.Uint32(b[12:16])
			}

			write(50)
			// A reader's snapshot from before the next writes keeps the
			// checkpoint beside the writer from copying them.
			reader, err := db.read.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer reader.Close()
			if _, err := reader.ExecContext(ctx, `BEGIN`); err != nil {
				t.Fatal(err)
			}
			var count int
			if err := reader.QueryRowContext(ctx, `SELECT count(*) FROM campaigns`).Scan(&count); err != nil {
				t.Fatal(err)
			}
			write(50)
			db.checkpointBeside()
			if !db.writes.catchUp.Load() {
				t.Fatal("a checkpoint beside the writer did not ask the writer to catch up")
			}
			if _, err := reader.ExecContext(ctx, `COMMIT`); err != nil {
				t.Fatal(err)
			}
			if !catchUp {
				db.writes.catchUp.Store(false)
			}

			before := restarts()
			write(3)
			got := restarts()
			if catchUp && got == before {
				t.Error("the WAL did not start over after the writer caught up")
			}
			if !catchUp && got != before {
				t.Error("the WAL started over with pages left to copy: the test no longer shows the catch-up is needed")
			}
			if db.writes.catchUp.Load() {
				t.Error("the batch after a checkpoint beside the writer did not catch up")
			}
		})
	}
}

// TestWriterLeftAManyPagedWAL checks that the writer is asked to catch up
// only on a few pages: behind a long reader (a backup's copy) the WAL holds
// thousands the checkpoint beside the writer could not copy, and the
// writer copying them would hold every write up (bench/notes/backup.md).
func TestWriterLeftAManyPagedWAL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.stopCheckpoints()
	now := time.Now().UTC().Truncate(time.Microsecond)
	acc := &adcamp.Account{ID: "acc_wal", Name: "wal", CreatedAt: now}
	if err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateAccount(ctx, acc) }); err != nil {
		t.Fatal(err)
	}
	reader, err := db.read.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if _, err := reader.ExecContext(ctx, `BEGIN`); err != nil {
		t.Fatal(err)
	}
	var count int
	if err := reader.QueryRowContext(ctx, `SELECT count(*) FROM campaigns`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	for n := range 3 * catchUpMax {
		c := &adcamp.Campaign{ID: fmt.Sprintf("cmp_wal%05d", n), AccountID: acc.ID,
			Environment: adcamp.Production, Name: "wal", BudgetDaily: 100, Marketplace: "US",
			Status: adcamp.StatusActive, Version: 1, CreatedAt: now, UpdatedAt: now}
		if err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateCampaign(ctx, c) }); err != nil {
			t.Fatal(err)
		}
	}
	var busy, log, copied int
	if err := db.checkpoints.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &copied); err != nil {
		t.Fatal(err)
	}
	if log-copied <= catchUpMax {
		t.Fatalf("the reader left %d pages uncopied; the test needs more than %d", log-copied, catchUpMax)
	}
	db.checkpointBeside()
	if db.writes.catchUp.Load() {
		t.Errorf("the writer was asked to copy %d pages left behind a reader", log-copied)
	}
	if _, err := reader.ExecContext(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	db.checkpointBeside()
	if !db.writes.catchUp.Load() {
		t.Error("once the reader ended and the WAL was copied, the writer was not asked to catch up")
	}
}
