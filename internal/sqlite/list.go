package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/adcamp/adcamp/internal/store"
)

// listPage runs the page query of a list, newest first, with its total:
// totalSQL, a query of one number over the same args, in one statement
// (see pageWithTotal), or alone when the page is empty.
func listPage[T any](ctx context.Context, t *tx, totalSQL, table, columns, where string, args []any, q store.ListQuery,
	scan func(rowScanner) (T, error)) ([]T, int64, error) {
	items, total, found, err := pageWithTotal(ctx, t, totalSQL, table, columns, where, args, q, scan)
	if err != nil || found {
		return items, total, err
	}
	// An empty page: past the end, or nothing to list.
	err = t.queryRow(ctx, totalSQL, args...).Scan(&total)
	return nil, total, err
}

// keptTotal is the total of a list of table's rows matching where, read
// from counts, the table of counters kept for them by triggers (migration
// 00009), whose columns are named as those where compares.
func keptTotal(counts, where string) string {
	return `SELECT coalesce(sum(n), 0) FROM ` + counts + ` WHERE ` + where
}

// page runs the page query of a list whose total is known.
func page[T any](ctx context.Context, t *tx, total int64, table, columns, where string, args []any, q store.ListQuery,
	scan func(rowScanner) (T, error)) ([]T, int64, error) {
	if total <= int64(q.Offset) {
		return nil, total, nil
	}
	rows, err := t.query(ctx, pageSQL(table, columns, "", where, len(args), q.Offset), append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	items := make([]T, 0, min(q.Limit, int(total)))
	for rows.Next() {
		it, err := scan(rows)
		if err != nil {
			return nil, 0, err
		}
		items = append(items, it)
	}
	return items, total, rows.Err()
}

// deepOffset is the offset from which a page of a table keyed by id is
// chosen in two steps.
const deepOffset = 100

// keyedByID are the tables WITHOUT ROWID, keyed by their id (migration
// 00007).
var keyedByID = map[string]bool{"campaigns": true}

// pageSQL is the query of a page of table's rows matching where (over n
// parameters; LIMIT and OFFSET follow them), newest first, selecting
// columns and then extra (empty, or a column of its own with a leading
// comma).
//
// A page deep into a list of a table keyed by id first takes its ids from
// the index that gives the order, which holds them, and only then reads
// those rows. Read in one step, every row skipped by OFFSET is looked up
// in the table too: SQLite spares that lookup for a rowid table, but not
// for one keyed by id, where page 1,000 of a million campaigns took 27 ms.
// The second step orders the page's rows again (100 at most; SQLite
// keeps the first step's order without sorting).
func pageSQL(table, columns, extra, where string, n, offset int) string {
	limits := ` LIMIT $` + itoa(n+1) + ` OFFSET $` + itoa(n+2)
	if pageAlias(table, offset) == table {
		return `SELECT ` + columns + extra + ` FROM ` + table + ` WHERE ` + where +
			` ORDER BY created_at DESC, id DESC` + limits
	}
	return `SELECT ` + qualify("c", columns) + extra + ` FROM (SELECT id, created_at FROM ` + table + ` WHERE ` + where +
		` ORDER BY created_at DESC, id DESC` + limits + `) AS p JOIN ` + table + ` AS c ON c.id = p.id` +
		` ORDER BY p.created_at DESC, p.id DESC`
}

// pageAlias is the name by which pageSQL's statement for a page at
// offset knows the rows of table it selects: table, or c when it reads
// them in two steps. A column of its own (a subquery) names them so.
func pageAlias(table string, offset int) string {
	if offset < deepOffset || !keyedByID[table] {
		return table
	}
	return "c"
}

// qualify prefixes each name of a column list ("id, name") with alias,
// and leaves a subquery ("(SELECT …)", without a comma) as it is.
func qualify(alias, columns string) string {
	var b strings.Builder
	for i, c := range strings.Split(columns, ",") {
		if i > 0 {
			b.WriteString(", ")
		}
		if c = strings.TrimSpace(c); strings.HasPrefix(c, "(") {
			b.WriteString(c)
		} else {
			b.WriteString(alias + "." + c)
		}
	}
	return b.String()
}

// pageWithTotal runs the page query of a list with its total as one
// statement, so that both are of one moment without a transaction:
// totalSQL, a query of one number over args, becomes a last column. An
// empty page carries no total; found reports whether the page had rows.
func pageWithTotal[T any](ctx context.Context, t *tx, totalSQL, table, columns, where string, args []any, q store.ListQuery,
	scan func(rowScanner) (T, error)) (items []T, total int64, found bool, err error) {
	rows, err := t.query(ctx, pageSQL(table, columns, `, (`+totalSQL+`)`, where, len(args), q.Offset), append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, false, err
	}
	defer rows.Close()
	items = make([]T, 0, min(q.Limit, store.MaxPrealloc))
	row := &withTotal{rows: rows, total: &total}
	for rows.Next() {
		it, err := scan(row)
		if err != nil {
			return nil, 0, false, err
		}
		items = append(items, it)
	}
	return items, total, len(items) > 0, rows.Err()
}

// withTotal scans a row whose last column is the list's total.
type withTotal struct {
	rows  *sql.Rows
	total *int64
	dest  []any // reused from row to row
}

func (w *withTotal) Scan(dest ...any) error {
	w.dest = append(append(w.dest[:0], dest...), (*intCol)(w.total))
	return w.rows.Scan(w.dest...)
}

// isUniqueViolation recognises a UNIQUE constraint failure by its code.
func isUniqueViolation(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}
