package service

import (
	"sync"
	"time"
)

// What replay protection keeps of answers is bounded, so that requests
// built to make large answers (a megabyte of unknown fields, say) cannot
// fill the database:
//
//   - an answer over maxKeptAnswer bytes is never kept whole;
//   - an account's kept answers over SmallAnswer bytes each may hold, while
//     they live, at most Config.AnswerBudget bytes (per process, like the
//     rate limit: N processes on one database keep up to N times that).
//
// In either case the answer's placeholder is kept in its place (see
// Answer.Placeholder), so the request still cannot execute twice.
const (
	maxKeptAnswer       = 1 << 20
	SmallAnswer         = 4 << 10
	defaultAnswerBudget = 64 << 20
)

// answerBudget counts, per account, the bytes of the large answers this
// process has kept and that have not yet expired.
type answerBudget struct {
	limit int64

	mu       sync.Mutex
	accounts map[string]*keptBytes
}

// keptBytes is what one account has kept, by the minute it expires.
type keptBytes struct {
	total    int64
	byMinute map[int64]int64
}

// maxBudgetAccounts bounds the accounts answerBudget tracks before it
// drops those whose answers have all expired.
const maxBudgetAccounts = 10000

// take reserves n bytes for answers of account that expire at expires,
// and reports whether they fit in its budget.
func (b *answerBudget) take(account string, n int64, expires, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.accounts == nil {
		b.accounts = make(map[string]*keptBytes)
	}
	if len(b.accounts) >= maxBudgetAccounts {
		for id, a := range b.accounts {
			if a.expire(now); a.total == 0 {
				delete(b.accounts, id)
			}
		}
	}
	a := b.accounts[account]
	if a == nil {
		a = &keptBytes{byMinute: make(map[int64]int64)}
		b.accounts[account] = a
	}
	a.expire(now)
	if a.total+n > b.limit {
		return false
	}
	a.total += n
	a.byMinute[expires.Unix()/60+1] += n // rounded up: counted until the minute after
	return true
}

// expire forgets the bytes whose answers have expired at now.
func (a *keptBytes) expire(now time.Time) {
	minute := now.Unix() / 60
	for m, n := range a.byMinute {
		if m <= minute {
			a.total -= n
			delete(a.byMinute, m)
		}
	}
}
