package postgres

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
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

// recordStatement is the statement that saves a replay record ($1 to $8
// after the parameters of what goes before it) as a WITH query, with the
// change's history record (insertChange), the change itself (queued.with,
// guarded by its guard) and the INSERTs that go with it (folds, see
// pipe.take) in the same statement when they are given, and fails with
// AD001 (migration 00016) when a live record has the record's name. The
// WITH queries touch different tables and read nothing the others write,
// so running them in one statement (on one snapshot) is the same as
// running them one after the other; what fails fails the whole statement.
// A guard is tested first: a change that found its row moved runs again
// with row locks (errVersionMoved), and its record with it. The
// statements are built once for each kind (they are few). Parameters come
// in the order main, folds, history, record.
func recordStatement(main queued, folds []queued, history bool) string {
	key := recordKey{main.with, main.guard, "", history}
	for _, f := range folds {
		key.folds += f.sql + "\x00"
	}
	if sql, ok := recordStatements.Load(key); ok {
		return sql.(string)
	}
	var with []string
	var n int // parameters so far
	if main.with != "" {
		with = append(with, main.with)
		n = maxParam(main.with)
	}
	for i, f := range folds {
		with = append(with, `fold`+strconv.Itoa(i)+` AS (`+shiftParams(f.sql, n)+`)`)
		n += maxParam(f.sql)
	}
	if history {
		with = append(with, `history AS (`+shiftParams(insertChange, n)+`)`)
		n += maxParam(insertChange)
	}
	with = append(with, `saved AS (`+shiftParams(saveRecord, n)+` RETURNING 1)`)
	sql := `WITH ` + strings.Join(with, `, `) + ` SELECT CASE`
	if main.guard != "" {
		sql += ` WHEN NOT EXISTS (SELECT FROM main) THEN ` + main.guard
	}
	sql += ` WHEN NOT EXISTS (SELECT FROM saved) THEN adcamp_record_taken() END`
	recordStatements.Store(key, sql)
	return sql
}

type recordKey struct {
	with, guard, folds string
	history            bool
}

var recordStatements sync.Map // recordKey → string

// maxParam is the highest parameter number ($n) of sql.
func maxParam(sql string) int {
	n := 0
	for _, p := range paramRef.FindAllString(sql, -1) {
		if i, _ := strconv.Atoi(p[1:]); i > n {
			n = i
		}
	}
	return n
}

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
		// The change's history record, and the change when it can, go in
		// the same statement (see recordStatement).
		change, main, folds := t.pipe.take()
		all := append([]any(nil), main.args...)
		for _, f := range folds {
			all = append(all, f.args...)
		}
		all = append(append(all, change.args...), args...)
		check := recordTaken
		if main.check != nil {
			check = func(tag pgconn.CommandTag, err error) error { return recordTaken(tag, main.check(tag, err)) }
		}
		t.pipe.queue(recordStatement(main, folds, change.sql != ""), all, check)
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
