package service

import (
	"context"
	"time"

	"github.com/adcamp/adcamp/internal/store"
)

// The fold of the days' journal (internal/store/dayjournal.go): a
// delivery batch journals the changes of its keywords' days, and the
// fold adds them to the daily figures later, many batches at once. An ad
// server sends running totals of the same keywords again and again, so
// a fold writes each keyword-day once however many batches it sums. The
// days stay exact for whoever reads them: a report folds what is pending
// before it reads (foldPendingDays).

// FoldPause is the least time between two folds of RunDayFold in serve:
// at most one write of each keyword-day a second, whatever the pace of
// the batches.
const FoldPause = time.Second

const (
	// foldIdle is how often RunDayFold looks at the journal without an
	// ingest of its process to wake it: the entries another process
	// journaled (PostgreSQL), or those left by a stop.
	foldIdle = 10 * time.Second
	// foldBatch bounds the entries one transaction folds: an entry is
	// one batch, up to 10,000 keyword-days and their campaigns' and ad
	// groups', so a fold holds at most some 80,000 sums (about 16 MB)
	// when nothing sums, as in a backfill of distinct days; an ad
	// server's running totals sum to one per keyword-day.
	foldBatch = 8
	// foldAtStartLimit bounds the fold before serve serves: well within
	// an orchestrator's patience for /livez, which waits for it too.
	foldAtStartLimit = 10 * time.Second
)

// dayFold wakes RunDayFold when an ingest has journaled days.
type dayFold struct {
	wake chan struct{}
}

// daysJournaled tells RunDayFold that a batch journaled days.
func (s *core) daysJournaled() {
	select {
	case s.days.wake <- struct{}{}:
	default:
	}
}

// FoldDays adds the whole journal of days to the daily figures, in
// transactions of foldBatch entries, and says how many entries it folded.
func (s *core) FoldDays(ctx context.Context) (int, error) {
	total := 0
	for {
		var n int
		err := s.store.Write(ctx, func(tx store.Tx) (err error) {
			n, err = tx.FoldDays(ctx, foldBatch)
			return err
		})
		total += n
		if err != nil || n < foldBatch {
			return total, err
		}
	}
}

// foldPendingDays folds the journal if it holds entries: what a report
// does before it reads the days, so that it counts every batch
// acknowledged before it began. It costs one read when nothing is
// pending.
func (s *core) foldPendingDays(ctx context.Context) error {
	if tx, ok := ctx.Value(txKey{}).(store.Tx); ok {
		// A request's own transaction (replay protection): a write,
		// which another would wait for.
		_, err := tx.FoldDays(ctx, 0)
		return err
	}
	var pending bool
	err := s.store.Read(ctx, func(tx store.Tx) (err error) {
		pending, err = tx.DaysPending(ctx)
		return err
	})
	if err != nil || !pending {
		return err
	}
	_, err = s.FoldDays(ctx)
	return err
}

// FoldAtStart folds what the journal of days holds when a process
// starts (what a killed one left: about a second of ingest), logging a
// failure: serve calls it before it serves, then RunDayFold. It gives up
// after foldAtStartLimit, leaving the rest to RunDayFold and to the
// reports (a journal that grew while its folds failed).
func (s *Service) FoldAtStart(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, foldAtStartLimit)
	defer cancel()
	if n, err := s.FoldDays(ctx); err != nil {
		s.log.Error("fold the journal of days into the daily figures", "err", err)
	} else if n > 0 {
		s.log.Info("folded the journal of days left by the last stop", "entries", n)
	}
}

// DaysJournaled counts the entries waiting in the journal of days (the
// metric adcamp_day_journal_entries).
func (s *Service) DaysJournaled(ctx context.Context) (int64, error) {
	var n int64
	err := s.store.ReadOne(ctx, func(tx store.Tx) (err error) {
		n, err = tx.DaysJournaled(ctx)
		return err
	})
	return n, err
}

// RunDayFold folds the journal of days when an ingest of this process
// wakes it, and every foldIdle, never sooner than pause after the fold
// before (FoldPause in serve) or after it began, until ctx ends; then
// once more, for up to 5 seconds, so that a stopped server leaves nothing
// pending (a killed one leaves it to FoldAtStart at the next start).
func (s *Service) RunDayFold(ctx context.Context, pause time.Duration) {
	fold := func(ctx context.Context) {
		if _, err := s.FoldDays(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("fold the journal of days into the daily figures", "err", err)
		}
	}
	stop := func() {
		last, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		fold(last)
	}
	last := time.Now()
	idle := time.NewTimer(foldIdle)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			stop()
			return
		case <-s.days.wake:
		case <-idle.C:
		}
		if wait := pause - time.Since(last); wait > 0 {
			select {
			case <-ctx.Done():
				stop()
				return
			case <-time.After(wait):
			}
		}
		fold(ctx)
		last = time.Now()
		idle.Reset(foldIdle)
	}
}
