package postgres

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/adcamp/adcamp/internal/store"
)

// saveRecord stores a record unless a live one has its name.
const saveRecord = `INSERT INTO request_records (scope, token, request_hash, status, header, body, created_at, expires_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
	ON CONFLICT (scope, token) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
	  header = excluded.header, body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at
	WHERE request_records.expires_at <= excluded.created_at`

// saveRecordWithChange is a change's history record (insertChange, $1 to
// $15) and its replay record ($16 to $23) in one statement. The two
// INSERTs touch different tables and read nothing the other writes, so
// running them as WITH queries of one statement (on one snapshot) is the
// same as running them one after the other.
var saveRecordWithChange = `WITH history AS (` + insertChange + `),
	saved AS (` + shiftParams(saveRecord, 15) + ` RETURNING 1)
	SELECT CASE WHEN NOT EXISTS (SELECT FROM saved) THEN adcamp_record_taken() END`

// shiftParams renumbers the parameters $1, $2, ... of sql by n.
func shiftParams(sql string, n int) string {
	return paramRef.ReplaceAllStringFunc(sql, func(p string) string {
		i, _ := strconv.Atoi(p[1:])
		return "$" + strconv.Itoa(i+n)
	})
}

var paramRef = regexp.MustCompile(`\$[0-9]+`)

// SaveRecord in a write transaction goes with the commit (see tx.later),
// as a statement that fails (AD001, migration 00016) when the record was
// not stored, so that the COMMIT sent behind it is skipped: Write then
// fails with store.ErrRecordTaken.
func (t *tx) SaveRecord(ctx context.Context, r *store.RequestRecord) (bool, error) {
	args := []any{r.Scope, r.Token, r.RequestHash, r.Status, r.Header, r.Body, micros(r.CreatedAt), micros(r.ExpiresAt)}
	if t.pipe != nil {
		if c, ok := t.pipe.take(); ok {
			// The change's history record goes in the same statement.
			t.pipe.queue(saveRecordWithChange, append(c.args, args...), recordTaken)
			return true, nil
		}
		t.pipe.queue(`WITH saved AS (`+saveRecord+` RETURNING 1)
			SELECT CASE WHEN NOT EXISTS (SELECT FROM saved) THEN adcamp_record_taken() END`, args, recordTaken)
		return true, nil
	}
	tag, err := t.tx.Exec(ctx, saveRecord, args...)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

var _ store.RecordChecker = (*tx)(nil)

// RequireNoRecord goes with the commit in a write transaction, like
// SaveRecord. The tokens are parameters of their own (token IN ($2, $3)),
// not an array: PostgreSQL estimates ten elements in an array parameter,
// so its generic plan looked dearer than the custom ones and the statement
// was planned anew at every bind (written first as a join to unnest(...),
// 1.3 ms a request in the sitting, by the server's log of durations).
func (t *tx) RequireNoRecord(ctx context.Context, scope string, tokens []string, now time.Time) error {
	if len(tokens) == 0 {
		return nil
	}
	args := []any{scope, micros(now)}
	in := ""
	for i, tok := range tokens {
		if i > 0 {
			in += ", "
		}
		args = append(args, tok)
		in += "$" + itoa(len(args))
	}
	return t.later(ctx, recordTaken, `SELECT CASE WHEN EXISTS (SELECT FROM request_records
			WHERE scope = $1 AND token IN (`+in+`) AND expires_at > $2)
		THEN adcamp_record_taken() END`, args...)
}

// recordTaken turns the failure of migration 00016's function into
// store.ErrRecordTaken.
func recordTaken(_ pgconn.CommandTag, err error) error {
	var e *pgconn.PgError
	if errors.As(err, &e) && e.Code == "AD001" {
		return store.ErrRecordTaken
	}
	return err
}

func (t *tx) GetRecord(ctx context.Context, scope, token string, now time.Time) (*store.RequestRecord, error) {
	r := store.RequestRecord{Scope: scope, Token: token}
	var created, expires int64
	err := t.tx.QueryRow(ctx,
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
	tag, err := t.tx.Exec(ctx, `DELETE FROM request_records WHERE expires_at <= $1`, micros(now))
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}
