package postgres

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// statementRecorder is a pgx tracer that keeps every statement run, with
// the arguments of its last run.
type statementRecorder struct {
	mu   sync.Mutex
	args map[string][]any
}

func (r *statementRecorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	args := data.Args
	if len(args) > 0 {
		if _, ok := args[0].(pgx.QueryExecMode); ok {
			args = args[1:]
		}
	}
	r.mu.Lock()
	r.args[data.SQL] = args
	r.mu.Unlock()
	return ctx
}

func (r *statementRecorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

var (
	// seqScanRE finds a plan's full reads of a table.
	seqScanRE = regexp.MustCompile(`Seq Scan on (\w+)`)
	// pageRE recognises the statement of a page: newest first, limited.
	pageRE = regexp.MustCompile(`ORDER BY [^)]*LIMIT`)
)

// TestQueryPlansUseIndexes runs the store suite recording every statement
// the store sends (so that none is left out, and none is a copy that could
// drift), then plans each on an empty schema with sequential scans and
// sorts made as dear as PostgreSQL allows: a plan that still reads a whole
// table has no index for its rows, and a page that still sorts has no
// index giving its order. Statements of several parts (the fold), the
// migrations' and the catalog's, and those that write without reading
// are left out.
func TestQueryPlansUseIndexes(t *testing.T) {
	t.Parallel()
	pgtest.BaseURL(t)
	rec := &statementRecorder{args: map[string][]any{}}
	t.Run("suite", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) store.Store {
			cfg, err := pgxpool.ParseConfig(pgtest.NewSchema(t).URL)
			if err != nil {
				t.Fatal(err)
			}
			cfg.ConnConfig.Tracer = rec
			db, err := openConfig(context.Background(), cfg)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		})
	})

	s := pgtest.NewSchema(t)
	openCounts(t, s.URL)
	conn := connect(t, s.URL)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off; SET enable_sort = off`); err != nil {
		t.Fatal(err)
	}
	statements := make([]string, 0, len(rec.args))
	for sql := range rec.args {
		statements = append(statements, sql)
	}
	slices.Sort(statements)
	planned := 0
	for _, sql := range statements {
		verb, _, _ := strings.Cut(strings.TrimSpace(sql), " ")
		switch {
		case !slices.Contains([]string{"SELECT", "UPDATE", "DELETE", "WITH"}, strings.ToUpper(verb)),
			strings.Contains(sql, ";"), strings.Contains(sql, "goose_db_version"), !strings.Contains(sql, "FROM"),
			strings.Contains(sql, "current_schema()"), strings.Contains(sql, "pg_catalog"), strings.Contains(sql, "FROM pg_"),
			strings.Contains(sql, "information_schema"):
			continue
		}
		planned++
		text := strings.Join(explain(t, conn, sql, rec.args[sql]...), "\n")
		if m := seqScanRE.FindStringSubmatch(text); m != nil {
			t.Errorf("%s\nreads all of %s. Plan:\n%s", sql, m[1], text)
		}
		// A report's page is of sums, ordered by any of them: sorting the
		// groups (of one account's range, found by its index) is its job.
		if pageRE.MatchString(sql) && strings.Contains(text, "Sort") && !strings.Contains(sql, "GROUP BY") {
			t.Errorf("%s\nsorts its page. Plan:\n%s", sql, text)
		}
	}
	t.Logf("planned %d of the %d statements recorded", planned, len(statements))
	// The suite lists, gets, updates and deletes every kind of row: far
	// more statements than this are planned when the recording works.
	if planned < 25 {
		t.Errorf("planned %d statements of the %d recorded; the recording missed the store's", planned, len(statements))
	}
}
