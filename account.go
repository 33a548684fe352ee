package adcamp

import (
	"net/netip"
	"time"
)

// Environment separates production data and credentials from sandbox ones.
type Environment string

// The two environments.
const (
	Production Environment = "production"
	Sandbox    Environment = "sandbox"
)

// ParseEnvironment accepts "production" or "sandbox" (and the key infixes
// "live" and "test").
func ParseEnvironment(s string) (Environment, bool) {
	switch s {
	case "production", "live":
		return Production, true
	case "sandbox", "test":
		return Sandbox, true
	}
	return "", false
}

// KeyInfix is the part of a credential's prefix that names its environment:
// "live" for production, "test" for sandbox.
func (e Environment) KeyInfix() string {
	if e == Production {
		return "live"
	}
	return "test"
}

// Tenant scopes every resource: one account in one environment.
type Tenant struct {
	AccountID   string
	Environment Environment
}

// Account is an account holder.
type Account struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// TimeZone is the IANA name of the zone the account's days are
	// counted in (a campaign's daily budget, its spend today); "UTC"
	// unless set.
	TimeZone string `json:"time_zone"`
}

// ChannelAccount is a seller account of the account holder on one
// marketplace. A campaign may name one instead of a marketplace code.
// Channel accounts belong to the account and are visible from both
// environments.
type ChannelAccount struct {
	ID          int64     `json:"id"`
	AccountID   string    `json:"account_id"`
	Marketplace string    `json:"marketplace"`
	Name        string    `json:"name"`
	CreatedAt   time.Time `json:"created_at"`
}

// APIKey is a credential. Its secret is never part of this type: it is
// shown once at creation and stored only encrypted.
type APIKey struct {
	ID          string      `json:"api_key"`
	AccountID   string      `json:"account_id"`
	Environment Environment `json:"environment"`
	Disabled    bool        `json:"disabled"`
	CreatedAt   time.Time   `json:"created_at"`
	LastUsedAt  *time.Time  `json:"last_used_at"`
	// PreviousExpiresAt is set after a roll while the previous secret
	// still verifies.
	PreviousExpiresAt *time.Time `json:"previous_secret_expires_at,omitempty"`
	// Name is a label chosen for it ("" for none).
	Name string `json:"name,omitempty"`
	// CreatedBy is who created it: a console user, an operator at the
	// command line; nil for credentials made before this was recorded.
	CreatedBy *Actor `json:"created_by,omitempty"`
	// Scopes are its levels per group of operations (AllWrite unless
	// restricted).
	Scopes Scopes `json:"scopes"`
	// ExpiresAt, AllowedIPs and RateLimit restrict it further (KeyLimits).
	ExpiresAt  *time.Time     `json:"expires_at"`
	AllowedIPs []netip.Prefix `json:"allowed_ips"`
	RateLimit  int            `json:"rate_limit"`
}

// Limits returns k's restrictions beyond its scopes.
func (k *APIKey) Limits() KeyLimits {
	return KeyLimits{ExpiresAt: k.ExpiresAt, AllowedIPs: k.AllowedIPs, RateLimit: k.RateLimit}
}
