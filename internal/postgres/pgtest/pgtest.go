// Package pgtest gives each test a PostgreSQL schema of its own in the
// database named by ADCAMP_TEST_POSTGRES_URL, so that tests of the store,
// the HTTP API and the binary can share one server without seeing each
// other's rows.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable that holds the test database's URL.
const EnvURL = "ADCAMP_TEST_POSTGRES_URL"

// BaseURL returns the test database's URL, skipping t when it is not set.
func BaseURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		t.Skip(EnvURL + " is not set: PostgreSQL tests skipped")
	}
	return u
}

// Schema is a fresh schema in the test database.
type Schema struct {
	Name string // test_ and 16 hex digits; also each connection's application_name
	// URL connects to the test database with search_path set to the
	// schema, so an unqualified table is the schema's.
	URL string
	// BaseURL is the database's URL as given, for connections that
	// administer it (TerminateConnections).
	BaseURL string
}

// NewSchema creates a schema for t and drops it, with everything in it,
// when t ends (after the cleanups registered later, such as closing a
// store). It skips t when ADCAMP_TEST_POSTGRES_URL is not set.
func NewSchema(t testing.TB) *Schema {
	t.Helper()
	base := BaseURL(t)
	b := make([]byte, 8)
	rand.Read(b)
	s := &Schema{Name: "test_" + hex.EncodeToString(b), BaseURL: base}
	var err error
	if s.URL, err = withParams(base, map[string]string{"search_path": s.Name, "application_name": s.Name}); err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	if err := s.exec(`CREATE SCHEMA ` + s.Name); err != nil {
		t.Fatalf("create schema %s: %v", s.Name, err)
	}
	t.Cleanup(func() {
		if err := s.exec(`DROP SCHEMA ` + s.Name + ` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", s.Name, err)
		}
	})
	return s
}

// TerminateConnections ends, from the server side, every connection made
// through s.URL (as a database restart or a network cut would) and
// returns how many there were.
func (s *Schema) TerminateConnections(ctx context.Context) (int, error) {
	conn, err := pgx.Connect(ctx, s.BaseURL)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = $1 AND pid <> pg_backend_pid()) AS t`, s.Name).Scan(&n)
	return n, err
}

func (s *Schema) exec(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.BaseURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// withParams adds run-time parameters to a database URL, or to a
// key=value connection string.
func withParams(base string, params map[string]string) (string, error) {
	if !strings.HasPrefix(base, "postgres://") && !strings.HasPrefix(base, "postgresql://") {
		for k, v := range params {
			base += " " + k + "=" + v
		}
		return base, nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	q := u.Query()
	for k, v := range params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}
