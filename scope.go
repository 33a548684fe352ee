package adcamp

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// ScopeGroup is a group of operations a credential's scopes grant access
// to, one level per group.
type ScopeGroup string

// The scope groups. Campaigns covers campaigns, ad groups, keywords and
// their negatives, and channel accounts.
const (
	ScopeCampaigns ScopeGroup = "campaigns"
	ScopeReports   ScopeGroup = "reports"
	ScopeHistory   ScopeGroup = "history"
	ScopeWebhooks  ScopeGroup = "webhooks"
)

// ScopeGroups lists every group, in the order they are written.
var ScopeGroups = [...]ScopeGroup{ScopeCampaigns, ScopeReports, ScopeHistory, ScopeWebhooks}

// Access is a credential's level on one group: none < read < write.
type Access int8

// The access levels; write includes read.
const (
	AccessNone Access = iota
	AccessRead
	AccessWrite
)

func (a Access) String() string {
	switch a {
	case AccessRead:
		return "read"
	case AccessWrite:
		return "write"
	}
	return "none"
}

// ParseAccess reads "none", "read" or "write".
func ParseAccess(s string) (Access, bool) {
	switch s {
	case "none":
		return AccessNone, true
	case "read":
		return AccessRead, true
	case "write":
		return AccessWrite, true
	}
	return 0, false
}

// MarshalText writes the level as its name.
func (a Access) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads a level's name.
func (a *Access) UnmarshalText(b []byte) error {
	v, ok := ParseAccess(string(b))
	if !ok {
		return fmt.Errorf("access level %q is not none, read or write", b)
	}
	*a = v
	return nil
}

// Scopes are a credential's levels, one per group. The zero value grants
// nothing; AllWrite is what a credential gets unless told otherwise.
type Scopes struct {
	Campaigns Access `json:"campaigns"`
	Reports   Access `json:"reports"`
	History   Access `json:"history"`
	Webhooks  Access `json:"webhooks"`
}

// AllWrite grants every group in full: the scopes of a credential made
// without any, and of every credential made before scopes existed.
var AllWrite = Scopes{AccessWrite, AccessWrite, AccessWrite, AccessWrite}

// Of returns the level on group g (none for an unknown group).
func (s Scopes) Of(g ScopeGroup) Access {
	if p := s.ptr(g); p != nil {
		return *p
	}
	return AccessNone
}

func (s *Scopes) ptr(g ScopeGroup) *Access {
	switch g {
	case ScopeCampaigns:
		return &s.Campaigns
	case ScopeReports:
		return &s.Reports
	case ScopeHistory:
		return &s.History
	case ScopeWebhooks:
		return &s.Webhooks
	}
	return nil
}

// Set changes the level on group g; it reports false for an unknown group.
func (s *Scopes) Set(g ScopeGroup, a Access) bool {
	p := s.ptr(g)
	if p != nil {
		*p = a
	}
	return p != nil
}

// Allows reports whether s grants what need requires.
func (s Scopes) Allows(need Scope) bool {
	return need.Group == "" || s.Of(need.Group) >= need.Access
}

// String writes s as the command line takes it:
// "campaigns=write,reports=read,history=none,webhooks=write".
func (s Scopes) String() string {
	var b strings.Builder
	for i, g := range ScopeGroups {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(g) + "=" + s.Of(g).String())
	}
	return b.String()
}

// ParseScopes reads "group=level,..." over base: the groups it names
// change, the others keep base's level. An empty text changes nothing.
func ParseScopes(text string, base Scopes) (Scopes, error) {
	out := base
	seen := map[string]bool{}
	for part := range strings.SplitSeq(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, level, ok := strings.Cut(part, "=")
		if !ok {
			name, level, ok = strings.Cut(part, ":")
		}
		name, level = strings.TrimSpace(name), strings.TrimSpace(level)
		a, okLevel := ParseAccess(level)
		switch {
		case !ok || !okLevel:
			return base, fmt.Errorf("%q is not group=level (level none, read or write)", part)
		case seen[name]:
			return base, fmt.Errorf("group %q is named twice", name)
		case !out.Set(ScopeGroup(name), a):
			return base, fmt.Errorf("unknown scope group %q (groups: campaigns, reports, history, webhooks)", name)
		}
		seen[name] = true
	}
	return out, nil
}

// Scope is what an operation requires: a level on one group, or nothing
// (the zero value, written "none").
type Scope struct {
	Group  ScopeGroup
	Access Access
}

// String writes "campaigns:read", or "none".
func (s Scope) String() string {
	if s.Group == "" {
		return "none"
	}
	return string(s.Group) + ":" + s.Access.String()
}

// ParseScope reads an operation's required scope: "none" or
// "group:read" / "group:write".
func ParseScope(text string) (Scope, bool) {
	if text == "none" {
		return Scope{}, true
	}
	g, l, ok := strings.Cut(text, ":")
	a, okLevel := ParseAccess(l)
	if !ok || !okLevel || a == AccessNone || !slices.Contains(ScopeGroups[:], ScopeGroup(g)) {
		return Scope{}, false
	}
	return Scope{Group: ScopeGroup(g), Access: a}, true
}

// KeyLimits are a credential's optional restrictions beyond its scopes.
type KeyLimits struct {
	// ExpiresAt is when it stops working (nil: never).
	ExpiresAt *time.Time
	// AllowedIPs are the client address ranges it may be used from
	// (empty: anywhere).
	AllowedIPs []netip.Prefix
	// RateLimit is its own limit in requests per second (0: the server's
	// alone); the lower of it and the server's applies.
	RateLimit int
}

// Expired reports whether k has expired at now.
func (k *APIKey) Expired(now time.Time) bool {
	return k.ExpiresAt != nil && !now.Before(*k.ExpiresAt)
}

// AllowsAddr reports whether k may be used from addr.
func (k *APIKey) AllowsAddr(addr netip.Addr) bool {
	if len(k.AllowedIPs) == 0 {
		return true
	}
	addr = addr.Unmap()
	for _, p := range k.AllowedIPs {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// ParsePrefixes reads CIDR ranges ("203.0.113.0/24", "2001:db8::/32"; a
// bare address is its own range), masked to their prefix.
func ParsePrefixes(texts []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, t := range texts {
		for part := range strings.SplitSeq(t, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			p, err := netip.ParsePrefix(part)
			if err != nil {
				a, errAddr := netip.ParseAddr(part)
				if errAddr != nil {
					return nil, fmt.Errorf("%q is not a CIDR range or an IP address", part)
				}
				p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
			}
			if p.Addr().Is4In6() {
				p = netip.PrefixFrom(p.Addr().Unmap(), max(0, p.Bits()-96))
			}
			out = append(out, p.Masked())
		}
	}
	return out, nil
}
