package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adcamp/adcamp"
)

// pipe is a write transaction on one pooled connection that sends its
// statements in as few round trips as it can (pgx batches, one pipeline
// and one Sync each):
//
//   - BEGIN is not sent alone but with the transaction's first statement;
//   - a statement whose result the caller does not need before the commit
//     (an INSERT or UPDATE that can fail only if the database does; see
//     tx.later) waits, and goes with the next statement that returns rows,
//     or with COMMIT.
//
// So a request that creates a campaign and saves its replay record is one
// round trip (BEGIN, INSERT, INSERT, COMMIT; at READ COMMITTED the two
// INSERTs alone, see commit), and one that reads a row, locks it and
// updates it two. A statement that fails in a pipeline makes
// PostgreSQL skip the rest up to the Sync, COMMIT included, and the
// transaction is then rolled back.
type pipe struct {
	conn  *pgxpool.Conn
	begin string   // BEGIN, until it is sent
	later []queued // statements waiting for the next round trip
	began bool     // BEGIN was sent
	// unlocked: the transaction is marked by store.WithVersionGuards and
	// runs its first attempt without BEGIN: reads go on their own, unlocked,
	// while nothing waits, and the changes with the commit, in one implicit
	// transaction. Anything else fails the attempt with errNeedsLocks.
	unlocked bool
	// cached: a read of the unlocked attempt came from the campaign cache
	// (see campaignCache), so that a failure of the attempt is not an
	// answer (failed); unchecked lists the campaigns read so that no
	// guarded update has checked yet (see checked).
	cached    bool
	unchecked []string
	stored    []*adcamp.Campaign // campaigns written, for the cache after the commit
}

// checked reports whether every campaign the attempt took from the cache
// is checked against the database by a guarded update in it. An attempt
// that answers from a copy without changing it (a dry run) is not.
func (p *pipe) checked() bool { return len(p.unchecked) == 0 }

// failed is the error an attempt fails with: err, or when a read came
// from the cache, errCachedRead too, for Write to run the transaction
// again on the rows as stored.
func (p *pipe) failed(err error) error {
	if p.cached {
		return fmt.Errorf("%w: %w", errCachedRead, err)
	}
	return err
}

// errNeedsLocks fails an attempt without locks (pipe.unlocked) that made
// a call it cannot make so: a write sent before the commit, or a read
// after a change. errVersionMoved fails one whose guarded update found
// another version than the one read; errCachedRead one that read a row
// from the cache and failed. Write then runs the transaction again with
// row locks.
var (
	errNeedsLocks   = errors.New("postgres: the transaction needs row locks")
	errVersionMoved = errors.New("postgres: the row changed since it was read")
	errCachedRead   = errors.New("postgres: an attempt from a cached row failed")
)

// queued is a statement whose result is checked when it comes.
type queued struct {
	sql   string
	args  []any
	check func(pgconn.CommandTag, error) error
	// change is the history record of a lone INSERT INTO changes, which a
	// statement queued after it may take into its own (see take).
	change bool
	// with is the statement's change written to go as WITH queries of a
	// statement queued after it (see take), with its parameters from $1:
	// INSERTs, or an UPDATE named main that returns 1 for the row it
	// changed and whose guard (a call that raises an error) runs when it
	// changed none. Its check must look only at the error.
	with, guard string
	// fold: an INSERT whose only failure is an error (tx.laterFolded),
	// which may go as a WITH query of a statement queued after it, with
	// its parameters from $1 (see take).
	fold bool
}

var _ querier = (*pipe)(nil)

// queue queues a statement for the next round trip; check sees its result.
func (p *pipe) queue(sql string, args []any, check func(pgconn.CommandTag, error) error) {
	p.later = append(p.later, queued{sql: sql, args: args, check: check})
}

// store keeps a copy of a campaign the transaction writes, for the cache
// once it commits.
func (p *pipe) store(c *adcamp.Campaign) {
	cp := *c
	p.stored = append(p.stored, &cp)
}

// queueWith queues a change that may go as a WITH query of a statement
// queued after it (see queued.with); sql is the statement that sends it
// alone.
func (p *pipe) queueWith(sql, with, guard string, args []any, check func(pgconn.CommandTag, error) error) {
	p.later = append(p.later, queued{sql: sql, args: args, check: check, with: with, guard: guard})
}

// take removes the lone history record waiting to be sent, if there is
// one, and returns its statement, so that the caller can send it as a
// WITH query of its own statement: one statement less for PostgreSQL to
// bind, plan and run in the commit's round trip. The INSERTs marked fold
// (the serving feed's journal rows, the webhook outbox's) go so too, after
// the statements that stay; and when the only other statement waiting is
// a change that can go so (queued.with), take removes and returns it as
// well: every statement of the transaction then goes in the caller's one
// (an update of a campaign was four statements).
func (p *pipe) take() (change, main queued, folds []queued) {
	for i := len(p.later) - 1; i >= 0; i-- {
		if q := p.later[i]; q.change {
			p.later = append(p.later[:i], p.later[i+1:]...)
			change = q
			break
		}
	}
	rest := p.later[:0]
	for _, q := range p.later {
		if q.fold {
			folds = append(folds, q)
		} else {
			rest = append(rest, q)
		}
	}
	p.later = rest
	if len(p.later) == 1 && p.later[0].with != "" {
		main, p.later = p.later[0], p.later[:0]
	}
	return change, main, folds
}

// batch sends what is pending, then sql (if not empty), and reads the
// pending results, leaving the last one for the caller to read from br.
func (p *pipe) batch(ctx context.Context, sql string, args []any) (br pgx.BatchResults, err error) {
	b := &pgx.Batch{}
	if p.begin != "" {
		b.Queue(p.begin)
	}
	for _, q := range p.later {
		b.Queue(q.sql, q.args...)
	}
	if sql != "" {
		b.Queue(sql, args...)
	}
	br = p.conn.SendBatch(ctx, b)
	if p.begin != "" {
		p.begin, p.began = "", true
		if _, err := br.Exec(); err != nil {
			br.Close()
			return nil, err
		}
	}
	later := p.later
	p.later = p.later[:0]
	for _, q := range later {
		tag, err := br.Exec()
		if err = q.check(tag, err); err != nil {
			br.Close()
			return nil, err
		}
	}
	return br, nil
}

// direct reports whether a statement can go on the connection as it is,
// nothing being pending, or must go in a batch. A statement whose
// arguments choose an execution mode (see planned) is sent after the
// pending ones, in a round trip of its own: a batch has one mode.
func (p *pipe) direct(ctx context.Context, args []any) (bool, error) {
	if p.unlocked {
		if len(p.later) > 0 {
			return true, errNeedsLocks
		}
		return true, nil
	}
	if p.begin == "" && len(p.later) == 0 {
		return true, nil
	}
	if len(args) > 0 {
		if _, ok := args[0].(pgx.QueryExecMode); ok {
			return true, p.flush(ctx)
		}
	}
	return false, nil
}

// flush sends what is pending.
func (p *pipe) flush(ctx context.Context) error {
	if p.begin == "" && len(p.later) == 0 {
		return nil
	}
	br, err := p.batch(ctx, "", nil)
	if err != nil {
		return err
	}
	return br.Close()
}

func (p *pipe) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if p.unlocked {
		return pgconn.CommandTag{}, errNeedsLocks
	}
	if ok, err := p.direct(ctx, args); ok || err != nil {
		if err != nil {
			return pgconn.CommandTag{}, err
		}
		return p.conn.Exec(ctx, sql, args...)
	}
	br, err := p.batch(ctx, sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

func (p *pipe) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if ok, err := p.direct(ctx, args); ok || err != nil {
		if err != nil {
			return errRow{err}
		}
		return p.conn.QueryRow(ctx, sql, args...)
	}
	br, err := p.batch(ctx, sql, args)
	if err != nil {
		return errRow{err}
	}
	return batchRow{row: br.QueryRow(), br: br}
}

func (p *pipe) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if ok, err := p.direct(ctx, args); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return p.conn.Query(ctx, sql, args...)
	}
	br, err := p.batch(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// commit sends what is pending with COMMIT: one round trip. A transaction
// that sent nothing has nothing to commit.
func (p *pipe) commit(ctx context.Context) error {
	if !p.began && p.begin != "" && len(p.later) == 0 {
		p.begin = ""
		return nil
	}
	if p.begin == beginRowLocks {
		// Nothing was sent yet, so the whole transaction goes in this one
		// batch, which PostgreSQL runs as an implicit transaction (every
		// statement up to the Sync, or none, committed at the Sync): the
		// same as BEGIN and COMMIT around it at READ COMMITTED, the
		// default isolation (a database whose default is stricter runs
		// it stricter), at two statements less. An error at the commit
		// comes with the Sync, and Close returns it.
		p.begin = ""
		br, err := p.batch(ctx, "", nil)
		if err != nil {
			return err
		}
		return br.Close()
	}
	br, err := p.batch(ctx, "COMMIT", nil)
	if err != nil {
		return err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil && tag.String() != "COMMIT" {
		// An error that fn handled left the transaction aborted, and
		// PostgreSQL answers COMMIT with ROLLBACK.
		err = fmt.Errorf("postgres: the transaction was rolled back (%s)", tag)
	}
	return err
}

// rollback ends the transaction if BEGIN was sent, dropping what waits.
func (p *pipe) rollback(ctx context.Context) {
	p.later = nil
	if p.began {
		p.conn.Exec(ctx, "ROLLBACK")
	}
}

// errRow is a row whose statement was not run: the error of one sent
// before it.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// batchRow is the row of a batch's last statement; reading it ends the
// batch.
type batchRow struct {
	row pgx.Row
	br  pgx.BatchResults
}

func (r batchRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if cerr := r.br.Close(); err == nil || errors.Is(err, pgx.ErrNoRows) && cerr != nil {
		err = cerr
	}
	return err
}

// batchRows are the rows of a batch's last statement; closing them ends
// the batch.
type batchRows struct {
	pgx.Rows
	br  pgx.BatchResults
	err error
}

func (r *batchRows) Close() {
	r.Rows.Close()
	if err := r.br.Close(); err != nil && r.err == nil {
		r.err = err
	}
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}
