package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/backup"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// account makes an account with a production key in the data directory
// dir, and a client of it for a server at addr.
func account(t *testing.T, dir string) (accountID string, client func(addr string) *signedClient) {
	t.Helper()
	dd := "--data-dir=" + dir
	acc := mustJSON(t, "accounts", "create", "--name", "Acme", dd)["id"].(string)
	k := mustJSON(t, "keys", "create", "--account", acc, "--env", "production", dd)
	return acc, func(addr string) *signedClient {
		return &signedClient{base: "http://" + addr, key: k["api_key"].(string), secret: k["api_secret"].(string),
			http: &http.Client{Timeout: 10 * time.Second}}
	}
}

// integrity runs PRAGMA integrity_check on the database of dir.
func integrity(t *testing.T, dir string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var result string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&result); err != nil {
		t.Fatal(err)
	}
	return result
}

// TestBackupUnderLoadRestoreAndServe: adcamp backup runs while serve
// answers a stream of writes; the backup, restored into a new directory
// with the master key, is an intact database that serves every campaign
// whose create was acknowledged before the backup began.
func TestBackupUnderLoadRestoreAndServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, client := account(t, dir)
	addr := startServe(t, "--data-dir", dir, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "")[string(adcamp.Production)]
	c := client(addr)

	var mu sync.Mutex
	acked := map[string]string{} // campaign id -> name
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("w%d-%d", w, i)
				status, d, err := c.do("POST", "/campaigns", `{"name":"`+name+`","budget_daily":1,"marketplace":"US"}`)
				if err == nil && status == 201 {
					mu.Lock()
					acked[d["id"].(string)] = name
					mu.Unlock()
				}
			}
		})
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	if !within(60*time.Second, func() bool { return count() >= 100 }) {
		t.Fatalf("only %d writes acknowledged: the load did not start", count())
	}
	mu.Lock()
	before := make(map[string]string, len(acked))
	for id, name := range acked {
		before[id] = name
	}
	mu.Unlock()
	file := filepath.Join(t.TempDir(), "adcamp.tar")
	_, err := runCLI(t, "backup", "--to", file, "--data-dir", dir)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("backup under load: %v", err)
	}
	t.Logf("%d writes acknowledged before the backup began, %d in all", len(before), count())

	fresh := filepath.Join(t.TempDir(), "restored")
	os.MkdirAll(fresh, 0o700)
	copyFile(t, filepath.Join(dir, "master.key"), filepath.Join(fresh, "master.key"))
	if _, err := runCLI(t, "restore", "--from", file, "--data-dir", fresh); err != nil {
		t.Fatalf("restore into a new directory: %v", err)
	}
	if got := integrity(t, fresh); got != "ok" {
		t.Errorf("the restored database's integrity_check = %q, want ok", got)
	}
	restored := client(startServe(t, "--data-dir", fresh, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "")[string(adcamp.Production)])
	for id, name := range before {
		status, d, err := restored.do("GET", "/campaigns/"+id, "")
		if err != nil || status != 200 || d["name"] != name {
			t.Errorf("campaign %s, acknowledged before the backup: GET on the restored server = %d %v, %v", id, status, d, err)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// fingerprint is what restore must leave alone in a data directory: its
// files and their contents, but for those named in skip.
func fingerprint(t *testing.T, dir string, skip ...string) string {
	t.Helper()
	var b strings.Builder
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if slices.Contains(skip, e.Name()) {
			fmt.Fprintf(&b, "%s (the server's)\n", e.Name())
			continue
		}
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s %x\n", e.Name(), sha256.Sum256(data))
	}
	return b.String()
}

// TestRestoreRefusals: restore refuses a data directory in use, a damaged
// backup, a master key that does not open the backup's secrets, and a
// PostgreSQL URL, and each time leaves the directory as it was.
func TestRestoreRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dd := "--data-dir=" + dir
	account(t, dir)
	file := filepath.Join(t.TempDir(), "adcamp.tar")
	if _, err := runCLI(t, "backup", "--to", file, dd); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(file)
	damaged := filepath.Join(t.TempDir(), "damaged.tar")
	raw[len(raw)-5000] ^= 1
	os.WriteFile(damaged, raw, 0o600)

	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	ready := make(chan map[string]string, 1)
	c := &cli{lookup: noEnv, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		ready: func(m map[string]string) { ready <- m }}
	go func() {
		served <- c.run(ctx, []string{"serve", dd, "--production-addr", "127.0.0.1:0", "--sandbox-addr", ""})
	}()
	<-ready
	// The running server writes in the background (the serving feed's
	// day ticks, webhook leases, key trails): its WAL is its own.
	ours := []string{"adcamp.db-wal", "adcamp.db-shm"}
	was := fingerprint(t, dir, ours...)
	_, err := runCLI(t, "restore", "--from", file, dd)
	if err == nil || !strings.Contains(err.Error(), "stop it first") {
		t.Errorf("restore while serve runs = %v, want it refused for the server", err)
	}
	if now := fingerprint(t, dir, ours...); now != was {
		t.Errorf("restore refused while serving changed the directory:\n%s\nwas\n%s", now, was)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}

	was = fingerprint(t, dir)
	other := func(name string) (string, bool) {
		if name == "ADCAMP_MASTER_KEY" {
			return strings.Repeat("cd", 32), true
		}
		return noEnv(name)
	}
	for _, tc := range []struct {
		name string
		args []string
		env  env
		want string
	}{
		{"a damaged backup", []string{"--from", damaged}, noEnv, "damaged"},
		{"another master key", []string{"--from", file}, other, "does not open the backup's secrets"},
		{"a database URL", []string{"--from", file, "--database-url", "postgres://x@127.0.0.1/db"}, noEnv, "pg_restore"},
		{"a missing file", []string{"--from", file + ".missing"}, noEnv, "no such file"},
	} {
		var errOut bytes.Buffer
		err := run(context.Background(), append([]string{"restore", dd}, tc.args...), tc.env, nil, io.Discard, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("restore %s = %v, want an error saying %q", tc.name, err, tc.want)
		}
		if now := fingerprint(t, dir); now != was {
			t.Errorf("restore of %s changed the directory", tc.name)
		}
	}
}

// olderDatabase makes, in dir, a database as an adcamp of schema 00013
// left it, with an account, and its master key.
func olderDatabase(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir, sqlite.UpTo(13))
	if err != nil {
		t.Fatal(err)
	}
	a := &adcamp.Account{ID: "acc_older", Name: "Older", CreatedAt: time.Now()}
	if err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateAccount(ctx, a) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.WriteFile(filepath.Join(dir, "master.key"), []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// TestUpgradesBackUpFirstAndRestoreForward: a command that migrates an
// older database backs it up first, beside the data, named by its
// version; a backup of an older schema restores, migrated forward; and
// migrate --dry-run lists what is pending and what each locks, changing
// nothing.
func TestUpgradesBackUpFirstAndRestoreForward(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dd := "--data-dir=" + dir
	acc := olderDatabase(t, dir)

	out, err := runCLI(t, "migrate", "--dry-run", dd)
	if err != nil || !strings.Contains(out, "the schema is at 00013") || !strings.Contains(out, "00014_campaign_notes.sql") ||
		!strings.Contains(out, "locks: the database's write lock") {
		t.Errorf("migrate --dry-run at 13 = %v:\n%s\nwant 00014 with what it locks", err, out)
	}
	if s, _ := sqlite.Plan(context.Background(), dir); s.Current != 13 {
		t.Fatalf("after migrate --dry-run the schema is at %d, want 13", s.Current)
	}
	older := filepath.Join(t.TempDir(), "older.tar")
	if _, err := runCLI(t, "backup", "--to", older, dd); err != nil {
		t.Fatal(err)
	}

	out, err = runCLI(t, "migrate", dd)
	if err != nil || !strings.Contains(out, "from schema 00013") {
		t.Fatalf("migrate = %v:\n%s", err, out)
	}
	pre, _ := filepath.Glob(filepath.Join(dir, "pre-migration-00013-*.tar"))
	if len(pre) != 1 {
		t.Fatalf("backups before the migration: %v, want one named pre-migration-00013-…", pre)
	}
	m, err := backup.Inspect(context.Background(), pre[0])
	if err != nil || m.SchemaVersion != 13 || m.Tables["accounts"] != 1 {
		t.Errorf("the backup before the migration = %+v, %v; want schema 13 with the account", m, err)
	}
	if out, err := runCLI(t, "migrate", "--dry-run", dd); err != nil || !strings.Contains(out, "nothing to migrate") {
		t.Errorf("migrate --dry-run once migrated = %v:\n%s", err, out)
	}

	fresh := t.TempDir()
	copyFile(t, filepath.Join(dir, "master.key"), filepath.Join(fresh, "master.key"))
	out, err = runCLI(t, "restore", "--from", older, "--data-dir", fresh)
	if err != nil || !strings.Contains(out, "from schema 00013 to") {
		t.Fatalf("restore of a schema 13 backup = %v:\n%s", err, out)
	}
	if _, err := runCLI(t, "keys", "create", "--account", acc, "--env", "sandbox", "--data-dir", fresh); err != nil {
		t.Errorf("a command on the restored, migrated database: %v", err)
	}
}

// TestOlderBinaryRefusesNewerDatabase: a database that a newer adcamp has
// migrated stops every command, serve included, with a message saying
// so, before anything runs on it.
func TestOlderBinaryRefusesNewerDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dd := "--data-dir=" + dir
	acc, _ := account(t, dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, args := range [][]string{
		{"keys", "list", "--account", acc, dd},
		{"migrate", "--dry-run", dd},
		{"serve", dd, "--production-addr", "127.0.0.1:0", "--sandbox-addr", ""},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := run(ctx, args, noEnv, strings.NewReader(""), io.Discard, io.Discard)
		cancel()
		var tooNew *store.SchemaTooNewError
		if !errors.As(err, &tooNew) || !strings.Contains(err.Error(), "99999") {
			t.Errorf("adcamp %s on a newer database = %v, want it refused naming schema 99999", args[0], err)
		}
	}
}

// TestScheduledBackups: serve --backup-dir takes a backup at once into
// an empty directory, and says so in its metrics; --backup-dir is
// refused with PostgreSQL.
func TestScheduledBackups(t *testing.T) {
	t.Parallel()
	dir, backups := t.TempDir(), t.TempDir()
	account(t, dir)
	addrs := startServe(t, "--data-dir", dir, "--production-addr", "127.0.0.1:0", "--sandbox-addr", "",
		"--metrics-addr", "127.0.0.1:0", "--backup-dir", backups, "--backup-every", "1h", "--backup-keep", "2")
	var files []string
	if !within(60*time.Second, func() bool { files, _ = filepath.Glob(filepath.Join(backups, "adcamp-*.tar")); return len(files) == 1 }) {
		t.Fatalf("no scheduled backup in %s", backups)
	}
	if m, err := backup.Inspect(context.Background(), files[0]); err != nil || m.Tables["accounts"] != 1 {
		t.Errorf("the scheduled backup = %+v, %v; want the account", m, err)
	}
	if !within(10*time.Second, func() bool {
		return strings.Contains(bodyOf(t, "http://"+addrs["metrics"]+"/metrics"), "adcamp_backup_last_size_bytes ")
	}) {
		t.Error("the metrics do not show the scheduled backup")
	}
	_, err := runCLI(t, "serve", "--database-url", "postgres://x@127.0.0.1/db", "--backup-dir", backups)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "pg_dump") {
		t.Errorf("serve --backup-dir with a database URL = %v, want a usage error naming pg_dump", err)
	}
}

// bodyOf answers the body of a GET, or "" when it fails.
func bodyOf(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestBackupJSON: backup --json prints the manifest the file holds.
func TestBackupJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	account(t, dir)
	file := filepath.Join(t.TempDir(), "b.tar")
	out, err := runCLI(t, "backup", "--to", file, "--data-dir", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var printed backup.Manifest
	if err := json.Unmarshal([]byte(out), &printed); err != nil {
		t.Fatalf("backup --json printed %q: %v", out, err)
	}
	m, err := backup.Inspect(context.Background(), file)
	if err != nil || printed.SHA256 != m.SHA256 || printed.Tables["api_keys"] != 1 {
		t.Errorf("backup --json = %+v; the file's manifest %+v, %v", printed, m, err)
	}
	if _, err := runCLI(t, "backup", "--to", file, "--data-dir", dir); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("backup over an existing file = %v, want it refused", err)
	}
}
