package sqlite

import (
	"context"
	"strconv"
	"time"

	"github.com/adcamp/adcamp/internal/store"
)

func (t *tx) SaveRecord(ctx context.Context, r *store.RequestRecord) (bool, error) {
	res, err := t.exec(ctx,
		`INSERT INTO request_records (scope, token, request_hash, status, header, body, created_at, expires_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		 ON CONFLICT (scope, token) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
		   header = excluded.header, body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at
		 WHERE request_records.expires_at <= excluded.created_at`,
		r.Scope, r.Token, r.RequestHash, r.Status, r.Header, r.Body, micros(r.CreatedAt), micros(r.ExpiresAt))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *tx) GetRecord(ctx context.Context, scope, token string, now time.Time) (*store.RequestRecord, error) {
	r := store.RequestRecord{Scope: scope, Token: token}
	var created, expires int64
	err := t.queryRow(ctx,
		`SELECT request_hash, status, header, body, created_at, expires_at FROM request_records
		 WHERE scope = $1 AND token = $2 AND expires_at > $3`, scope, token, micros(now)).
		Scan(&r.RequestHash, &r.Status, &r.Header, &r.Body, &created, &expires)
	if err != nil {
		return nil, notFound(err, "request record", token)
	}
	r.CreatedAt, r.ExpiresAt = fromMicros(created), fromMicros(expires)
	return &r, nil
}

func (t *tx) PurgeRecords(ctx context.Context, now time.Time) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM request_records WHERE expires_at <= $1`, micros(now))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// RequireNoRecord checks at once, in one statement for all the names: an
// earlier version's record among them fails the call with
// store.ErrRecordTaken, which Once answers by replaying it. It spares a
// change made in the minutes after a start the lookup of each name.
func (t *tx) RequireNoRecord(ctx context.Context, scope string, tokens []string, now time.Time) error {
	if len(tokens) == 0 {
		return nil
	}
	q := `SELECT EXISTS (SELECT 1 FROM request_records WHERE scope = $1 AND expires_at > $2 AND token IN ($3`
	args := []any{scope, micros(now), tokens[0]}
	for i, tok := range tokens[1:] {
		q += ", $" + strconv.Itoa(i+4)
		args = append(args, tok)
	}
	var taken bool
	if err := t.queryRow(ctx, q+`))`, args...).Scan(&taken); err != nil {
		return err
	}
	if taken {
		return store.ErrRecordTaken
	}
	return nil
}

var _ store.RecordChecker = (*tx)(nil)
