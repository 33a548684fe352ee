package postgres

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp/internal/store"
)

func itoa(n int) string { return strconv.Itoa(n) }

// listPage runs the page query of a list, newest first, with its total:
// totalSQL, a query of one number over the same args, in one statement
// (see pageWithTotal), or alone when the page is empty.
func listPage[T any](ctx context.Context, t *tx, totalSQL, table, columns, where string, args []any, q store.ListQuery,
	scan func(row) (T, error)) ([]T, int64, error) {
	items, total, found, err := pageWithTotal(ctx, t, totalSQL, table, columns, where, planned(args), q, scan)
	if err != nil || found {
		return items, total, err
	}
	// An empty page: past the end, or nothing to list.
	err = t.tx.QueryRow(ctx, totalSQL, args...).Scan(&total)
	return nil, total, err
}

// pageSQL is the query of a page of table's rows matching where, newest
// first, selecting columns and then extra (empty, or a column of its own
// with a leading comma).
func pageSQL(table, columns, extra, where string, q store.ListQuery) string {
	return `SELECT ` + columns + extra + ` FROM ` + table + ` WHERE ` + where +
		` ORDER BY created_at DESC, id DESC LIMIT ` + itoa(q.Limit) + ` OFFSET ` + itoa(q.Offset)
}

// planned returns the arguments of a page query with the execution mode
// that has PostgreSQL plan it for these values on every run.
//
// pgx prepares a statement once per connection and runs it again and
// again; after five runs PostgreSQL may switch to a generic plan, made for
// any parent, which expects the few rows of an average one. For a page,
// newest first, that plan fetches every row of the parent through the
// index on (parent, status, ...) and sorts them, so the cost of page 1
// grows with the parent's size (a tenant of 1,000 campaigns: 1 ms instead
// of 0.2). An unnamed statement, which pgx sends for
// QueryExecModeCacheDescribe in the same single round trip, is planned
// with its values each time, and that plan walks the (parent, created_at,
// id) index for just the page.
func planned(args []any) []any {
	return append([]any{pgx.QueryExecModeCacheDescribe}, args...)
}

// pageWithTotal runs the page query of a list with its total as one
// statement, one round trip without BEGIN and COMMIT, and one snapshot:
// totalSQL, a query of one number over args, becomes a last column. An
// empty page carries no total; found reports whether the page had rows.
// args may start with an execution mode (see planned).
func pageWithTotal[T any](ctx context.Context, t *tx, totalSQL, table, columns, where string, args []any, q store.ListQuery,
	scan func(row) (T, error)) (items []T, total int64, found bool, err error) {
	rows, err := t.tx.Query(ctx, pageSQL(table, columns, `, (`+totalSQL+`)`, where, q), args...)
	if err != nil {
		return nil, 0, false, err
	}
	defer rows.Close()
	items = make([]T, 0, min(q.Limit, store.MaxPrealloc))
	r := &withTotal{rows: rows, total: &total}
	for rows.Next() {
		it, err := scan(r)
		if err != nil {
			return nil, 0, false, err
		}
		items = append(items, it)
	}
	return items, total, len(items) > 0, rows.Err()
}

// withTotal scans a row whose last column is the list's total.
type withTotal struct {
	rows  pgx.Rows
	total *int64
	dest  []any // reused from row to row
}

func (w *withTotal) Scan(dest ...any) error {
	w.dest = append(append(w.dest[:0], dest...), w.total)
	return w.rows.Scan(w.dest...)
}
