package httpapi

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/adcamp/adcamp"
)

// limiter holds one token bucket per credential: perSecond tokens a
// second, up to a burst of twice that. It is per process (see
// docs/running.md).
// Buckets exist only for credentials that authenticated, so the map is
// bounded by the number of keys.
type limiter struct {
	perSecond int      // the server's limit; 0: none but the keys' own
	burst     []string // RateLimit-Limit of the server's limit, the same on every answer
	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
}

func newLimiter(perSecond int) *limiter {
	return &limiter{perSecond: perSecond, burst: []string{strconv.Itoa(2 * perSecond)}, buckets: make(map[string]*rate.Limiter)}
}

// rateFor is the limit that applies to a key whose own limit is own (0
// for none): the lower of it and the server's.
func (l *limiter) rateFor(own int) int {
	if own > 0 && (l.perSecond == 0 || own < l.perSecond) {
		return own
	}
	return l.perSecond
}

// allow takes a token for keyID, limited to perSecond, and sets the
// RateLimit headers; it returns RATE_LIMITED (with Retry-After set) when
// the bucket is empty. A key whose own limit changed gets a bucket of the
// new size.
func (l *limiter) allow(w http.ResponseWriter, keyID string, perSecond int, now time.Time) error {
	l.mu.Lock()
	b, ok := l.buckets[keyID]
	if !ok || b.Burst() != 2*perSecond {
		b = rate.NewLimiter(rate.Limit(perSecond), 2*perSecond)
		l.buckets[keyID] = b
	}
	l.mu.Unlock()

	allowed := b.AllowN(now, 1)
	tokens := b.TokensAt(now)
	burst := float64(b.Burst())
	h := w.Header()
	// Set by their canonical names: Header.Set would canonicalise each.
	if perSecond == l.perSecond {
		h["Ratelimit-Limit"] = l.burst
	} else {
		h["Ratelimit-Limit"] = []string{strconv.Itoa(2 * perSecond)}
	}
	h["Ratelimit-Remaining"] = []string{strconv.Itoa(int(max(0, math.Floor(tokens))))}
	h["Ratelimit-Reset"] = []string{strconv.Itoa(int(math.Ceil((burst - tokens) / float64(perSecond))))}
	if allowed {
		return nil
	}
	wait := max(1, int(math.Ceil((1-tokens)/float64(perSecond))))
	h.Set("Retry-After", strconv.Itoa(wait))
	return adcamp.Errorf(adcamp.CodeRateLimited,
		"rate limit of %d requests per second (burst %d) exceeded for this API key; retry after %d s",
		perSecond, b.Burst(), wait)
}

// failureLimiter limits failed authentications per client address: each
// failure takes a token from the address's bucket (perSecond a second, up
// to a burst of twice that), and an address whose bucket is empty is
// refused (429) before its requests cost a key lookup or a body read.
// Requests that authenticate take nothing. IPv6 addresses count by /64,
// which one client usually holds whole.
type failureLimiter struct {
	perSecond int
	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
}

// maxFailureAddrs bounds the addresses tracked; past it, those whose
// bucket has filled again are dropped, and if that is not enough, all.
const maxFailureAddrs = 100000

func newFailureLimiter(perSecond int) *failureLimiter {
	return &failureLimiter{perSecond: perSecond, buckets: make(map[string]*rate.Limiter)}
}

// clientAddr is what the failures of r count against.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return host
}

// check returns RATE_LIMITED (with Retry-After set) if addr has failed too
// often lately.
func (l *failureLimiter) check(w http.ResponseWriter, addr string, now time.Time) error {
	l.mu.Lock()
	b := l.buckets[addr]
	l.mu.Unlock()
	if b == nil {
		return nil
	}
	tokens := b.TokensAt(now)
	if tokens >= 1 {
		return nil
	}
	wait := max(1, int(math.Ceil((1-tokens)/float64(l.perSecond))))
	w.Header().Set("Retry-After", strconv.Itoa(wait))
	return adcamp.Errorf(adcamp.CodeRateLimited,
		"too many failed authentications from this address (at most %d a second, burst %d); retry after %d s",
		l.perSecond, 2*l.perSecond, wait)
}

// fail counts a failed authentication of addr.
func (l *failureLimiter) fail(addr string, now time.Time) {
	l.mu.Lock()
	b := l.buckets[addr]
	if b == nil {
		if len(l.buckets) >= maxFailureAddrs {
			for a, lim := range l.buckets {
				if lim.TokensAt(now) >= float64(lim.Burst()) {
					delete(l.buckets, a)
				}
			}
			if len(l.buckets) >= maxFailureAddrs {
				clear(l.buckets)
			}
		}
		b = rate.NewLimiter(rate.Limit(l.perSecond), 2*l.perSecond)
		l.buckets[addr] = b
	}
	l.mu.Unlock()
	b.AllowN(now, 1)
}
