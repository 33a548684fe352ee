package postgres

import (
	"context"
	"strconv"

	"github.com/adcamp/adcamp/internal/store"
)

func itoa(n int) string { return strconv.Itoa(n) }

// listPage runs the count and the page query of a list, newest first.
// Inside Read both see one snapshot, so the total matches the page.
func listPage[T any](ctx context.Context, t *tx, table, columns, where string, args []any, q store.ListQuery,
	scan func(row) (T, error)) ([]T, int64, error) {
	if err := t.consistent(ctx); err != nil {
		return nil, 0, err
	}
	var total int64
	if err := t.tx.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total <= int64(q.Offset) {
		return nil, total, nil
	}
	rows, err := t.tx.Query(ctx, `SELECT `+columns+` FROM `+table+` WHERE `+where+
		` ORDER BY created_at DESC, id DESC LIMIT `+itoa(q.Limit)+` OFFSET `+itoa(q.Offset), args...)
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
