package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/adcamp/adcamp"
)

// limiter holds one token bucket per credential: perSecond tokens a
// second, up to a burst of twice that. It is per process (see README).
// Buckets exist only for credentials that authenticated, so the map is
// bounded by the number of keys.
type limiter struct {
	perSecond int
	burst     []string // RateLimit-Limit, the same on every answer
	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
}

func newLimiter(perSecond int) *limiter {
	return &limiter{perSecond: perSecond, burst: []string{strconv.Itoa(2 * perSecond)}, buckets: make(map[string]*rate.Limiter)}
}

// allow takes a token for keyID and sets the RateLimit headers; it returns
// RATE_LIMITED (with Retry-After set) when the bucket is empty.
func (l *limiter) allow(w http.ResponseWriter, keyID string, now time.Time) error {
	l.mu.Lock()
	b, ok := l.buckets[keyID]
	if !ok {
		b = rate.NewLimiter(rate.Limit(l.perSecond), 2*l.perSecond)
		l.buckets[keyID] = b
	}
	l.mu.Unlock()

	allowed := b.AllowN(now, 1)
	tokens := b.TokensAt(now)
	burst := float64(b.Burst())
	h := w.Header()
	// Set by their canonical names: Header.Set would canonicalise each.
	h["Ratelimit-Limit"] = l.burst
	h["Ratelimit-Remaining"] = []string{strconv.Itoa(int(max(0, math.Floor(tokens))))}
	h["Ratelimit-Reset"] = []string{strconv.Itoa(int(math.Ceil((burst - tokens) / float64(l.perSecond))))}
	if allowed {
		return nil
	}
	wait := max(1, int(math.Ceil((1-tokens)/float64(l.perSecond))))
	h.Set("Retry-After", strconv.Itoa(wait))
	return adcamp.Errorf(adcamp.CodeRateLimited,
		"rate limit of %d requests per second (burst %d) exceeded for this API key; retry after %d s",
		l.perSecond, b.Burst(), wait)
}
