package adcamp

import (
	"crypto/rand"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// ID prefixes. An identifier is its prefix followed by a lower-case ULID:
// 48 bits of millisecond time (so ids sort by creation time) and 80 bits
// from crypto/rand (so they cannot be guessed).
const (
	PrefixAccount  = "acc_"
	PrefixCampaign = "cmp_"
	PrefixAdGroup  = "adg_"
	PrefixKeyword  = "kw_"
	PrefixUser     = "usr_"
)

// NewID returns a new identifier with the given prefix, created at t.
func NewID(prefix string, t time.Time) string {
	id := ulid.MustNew(ulid.Timestamp(t), rand.Reader)
	return prefix + strings.ToLower(id.String())
}

// ValidID reports whether s looks like an identifier with the given prefix.
// Lookups use it to answer malformed ids as missing without a query.
func ValidID(prefix, s string) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || len(rest) != ulid.EncodedSize {
		return false
	}
	_, err := ulid.ParseStrict(rest)
	return err == nil
}
