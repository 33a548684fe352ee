package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// requireToolsEnv makes missing PostgreSQL client tools a failure, not a
// skip (CI sets it).
const requireToolsEnv = "ADCAMP_REQUIRE_PG_TOOLS"

// TestDumpAndRestore is the backup recipe of docs/operations.md for
// PostgreSQL: pg_dump --format=custom, then pg_restore into a new
// database, which adcamp opens with nothing to migrate and reads back
// whole, with the store suite's read calls.
func TestDumpAndRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := pgtest.NewSchema(t)
	pgDump, pgRestore := clientTools(t, s.BaseURL)
	db := open(t, s.URL)
	data := storetest.Fill(t, db)

	file := filepath.Join(t.TempDir(), "adcamp.dump")
	run(t, pgDump, "--format=custom", "--schema="+s.Name, "--file="+file, s.BaseURL)
	target := newDatabase(t, s.BaseURL)
	run(t, pgRestore, "--exit-on-error", "--no-owner", "--dbname="+target, file)

	restored := open(t, withParam(t, target, "search_path", s.Name))
	schema, err := restored.Schema(ctx)
	if err != nil || schema.Current != schema.Latest || len(schema.Pending) != 0 {
		t.Errorf("the restored database's schema = %+v, %v; want the latest, nothing pending", schema, err)
	}
	data.Check(t, restored)
}

// clientTools finds pg_dump and pg_restore, and checks that they are not
// older than the server (pg_dump refuses a newer server's database).
func clientTools(t *testing.T, baseURL string) (pgDump, pgRestore string) {
	t.Helper()
	pgDump, errDump := exec.LookPath("pg_dump")
	pgRestore, errRestore := exec.LookPath("pg_restore")
	if errDump != nil || errRestore != nil {
		msg := "pg_dump and pg_restore are not on PATH: the dump and restore test needs PostgreSQL's client tools " +
			"of the server's major version (on Debian, /usr/lib/postgresql/MAJOR/bin)"
		if os.Getenv(requireToolsEnv) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	out, err := exec.Command(pgDump, "--version").Output()
	if err != nil {
		t.Fatalf("pg_dump --version: %v", err)
	}
	m := regexp.MustCompile(`\) (\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("pg_dump --version = %q: no major version", out)
	}
	client, _ := strconv.Atoi(string(m[1]))
	conn, err := pgx.Connect(context.Background(), baseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var server int
	if err := conn.QueryRow(context.Background(), `SELECT current_setting('server_version_num')::int / 10000`).Scan(&server); err != nil {
		t.Fatal(err)
	}
	if client < server {
		t.Fatalf("%s is PostgreSQL %d's, older than the server (%d): put the server's client tools first on PATH", pgDump, client, server)
	}
	return pgDump, pgRestore
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
	}
}

// newDatabase creates an empty database on the server of baseURL,
// dropped when t ends, and returns its URL.
func newDatabase(t *testing.T, baseURL string) string {
	t.Helper()
	ctx := context.Background()
	b := make([]byte, 6)
	rand.Read(b)
	name := "adcamp_restore_" + hex.EncodeToString(b)
	conn, err := pgx.Connect(ctx, baseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, baseURL)
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP DATABASE `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(baseURL)
	if err != nil {
		t.Skipf("%s is not a URL: the restore needs one to name the new database", pgtest.EnvURL)
	}
	u.Path = "/" + name
	return u.String()
}

// withParam adds a run-time parameter to a database URL.
func withParam(t *testing.T, base, key, value string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}
