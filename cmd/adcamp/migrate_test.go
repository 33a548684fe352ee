package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
)

// TestThreeProcessesMigrateOnce starts three adcamp processes at once on
// an empty PostgreSQL schema: each succeeds, and each migration was
// applied once (goose's advisory lock lets one process migrate at a time;
// the others find nothing left to do).
func TestThreeProcessesMigrateOnce(t *testing.T) {
	t.Parallel()
	schema := pgtest.NewSchema(t)
	if testing.Short() {
		t.Skip("builds the binary and runs three processes")
	}
	bin := buildBinary(t)
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, 3)
	errs := make([]error, 3)
	for i := range 3 {
		cmd := exec.Command(bin, "migrate", "--database-url", schema.URL)
		cmd.Env = append(os.Environ(), "ADCAMP_MASTER_KEY="+strings.Repeat("ab", 32))
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { errs[i] = cmd.Wait() })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v\n%s", i+1, err, outs[i].String())
		}
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, schema.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var versions, records int
	if err := conn.QueryRow(ctx, `SELECT count(DISTINCT version_id), count(*) FROM goose_db_version WHERE version_id > 0`).Scan(&versions, &records); err != nil {
		t.Fatal(err)
	}
	all, _ := postgres.Migrations()
	if versions != len(all) || records != len(all) {
		t.Errorf("goose_db_version holds %d records of %d versions, want each of the %d migrations once", records, versions, len(all))
	}
}
