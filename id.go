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
	return lowerID(prefix, ulid.MustNew(ulid.Timestamp(t), rand.Reader))
}

// lowerID returns prefix and id in lower case, in one allocation
// (strings.ToLower of id.String() took three, and a create's three ids
// 3 % of its instructions in the handler).
func lowerID(prefix string, id ulid.ULID) string {
	var text [ulid.EncodedSize]byte
	_ = id.MarshalTextTo(text[:]) // fails only for a short buffer
	for i, c := range text {
		if 'A' <= c && c <= 'Z' {
			text[i] = c + 'a' - 'A'
		}
	}
	var b strings.Builder
	b.Grow(len(prefix) + len(text))
	b.WriteString(prefix)
	b.Write(text[:])
	return b.String()
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
