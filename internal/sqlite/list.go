package sqlite

import (
	"context"
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/adcamp/adcamp/internal/store"
)

// listPage runs the count and the page query of a list, newest first.
func listPage[T any](ctx context.Context, t *tx, table, columns, where string, args []any, q store.ListQuery,
	scan func(interface{ Scan(...any) error }) (T, error)) ([]T, int64, error) {
	var total int64
	if err := t.queryRow(ctx, `SELECT count(*) FROM `+table+` WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	return page(ctx, t, total, table, columns, where, args, q, scan)
}

// page runs the page query of a list whose total is known.
func page[T any](ctx context.Context, t *tx, total int64, table, columns, where string, args []any, q store.ListQuery,
	scan func(interface{ Scan(...any) error }) (T, error)) ([]T, int64, error) {
	if total <= int64(q.Offset) {
		return nil, total, nil
	}
	n := len(args)
	rows, err := t.query(ctx, `SELECT `+columns+` FROM `+table+` WHERE `+where+
		` ORDER BY created_at DESC, id DESC LIMIT $`+itoa(n+1)+` OFFSET $`+itoa(n+2), append(args, q.Limit, q.Offset)...)
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

// isUniqueViolation recognises a UNIQUE constraint failure by its code.
func isUniqueViolation(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}
