package main

import (
	"context"
	"flag"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// keyLimitFlags are the flags of keys create and keys update that restrict
// a credential: --scope, --expires-in, --expires-at, --allow-ip and
// --rate-limit (update adds --no-expiry and --allow-any-ip).
type keyLimitFlags struct {
	scope, expiresIn, expiresAt, rateLimit string
	allowIPs                               []string
	noExpiry, anyIP                        *bool
}

func addKeyLimitFlags(fs *flag.FlagSet, update bool) *keyLimitFlags {
	f := &keyLimitFlags{}
	fs.StringVar(&f.scope, "scope", "", "levels per group, e.g. campaigns=read,reports=read (groups campaigns, reports, history, webhooks; levels none, read, write)"+
		map[bool]string{false: "; groups not named get write", true: "; groups not named keep theirs"}[update])
	fs.StringVar(&f.expiresIn, "expires-in", "", "lifetime from now, e.g. 90d or 12h")
	fs.StringVar(&f.expiresAt, "expires-at", "", "expiry as an RFC 3339 time, e.g. 2027-01-31T00:00:00Z")
	fs.Func("allow-ip", "a CIDR range (IPv4 or IPv6) the key may be used from; repeatable or comma-separated", func(s string) error {
		f.allowIPs = append(f.allowIPs, s)
		return nil
	})
	fs.StringVar(&f.rateLimit, "rate-limit", "", "the key's own limit in requests per second, below the server's (0: the server's alone)")
	if update {
		f.noExpiry = fs.Bool("no-expiry", false, "remove the key's expiry")
		f.anyIP = fs.Bool("allow-any-ip", false, "remove the key's address ranges")
	}
	return f
}

// scopes reads --scope over base.
func (f *keyLimitFlags) scopes(base adcamp.Scopes) (*adcamp.Scopes, error) {
	if f.scope == "" {
		return nil, nil
	}
	sc, err := adcamp.ParseScopes(f.scope, base)
	if err != nil {
		return nil, usageError("--scope: %v", err)
	}
	return &sc, nil
}

// expiry reads --expires-in or --expires-at (nil for neither).
func (f *keyLimitFlags) expiry(now time.Time) (*time.Time, error) {
	switch {
	case f.expiresIn != "" && f.expiresAt != "":
		return nil, usageError("--expires-in and --expires-at: give one")
	case f.expiresIn != "":
		d, err := service.ParseLifetime(f.expiresIn)
		if err != nil {
			return nil, usageError("--expires-in: %v", err)
		}
		t := now.Add(d).UTC().Truncate(time.Second)
		return &t, nil
	case f.expiresAt != "":
		t, err := time.Parse(time.RFC3339, f.expiresAt)
		if err != nil {
			return nil, usageError("--expires-at must be an RFC 3339 time like 2027-01-31T00:00:00Z, got %q", f.expiresAt)
		}
		return &t, nil
	}
	return nil, nil
}

func (f *keyLimitFlags) limits(now time.Time) (adcamp.KeyLimits, error) {
	var l adcamp.KeyLimits
	var err error
	if l.ExpiresAt, err = f.expiry(now); err != nil {
		return l, err
	}
	if l.AllowedIPs, err = adcamp.ParsePrefixes(f.allowIPs); err != nil {
		return l, usageError("--allow-ip: %v", err)
	}
	if f.rateLimit != "" {
		if l.RateLimit, err = strconv.Atoi(f.rateLimit); err != nil || l.RateLimit < 0 {
			return l, usageError("--rate-limit must be a whole number ≥ 0, got %q", f.rateLimit)
		}
	}
	return l, nil
}

func keysCreateLimited(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	account := fs.String("account", "", "account id (required)")
	envName := fs.String("env", "", "sandbox or production (required)")
	name := fs.String("name", "", "a name for the key, shown in the console")
	lf := addKeyLimitFlags(fs, false)
	return func(ctx context.Context, a *adminRun) error {
		env, ok := adcamp.ParseEnvironment(*envName)
		if !ok {
			return usageError("--env must be sandbox or production, got %q", *envName)
		}
		sc, err := lf.scopes(adcamp.AllWrite)
		if err != nil {
			return err
		}
		l, err := lf.limits(a.svc.Now())
		if err != nil {
			return err
		}
		k, err := a.svc.CreateKeyWith(ctx, service.KeyRequest{AccountID: *account, Environment: env, Name: *name, Scopes: sc, Limits: l})
		if err != nil {
			return explain(err)
		}
		return a.out.credential(k, false)
	}
}

func keysUpdate(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	lf := addKeyLimitFlags(fs, true)
	return func(ctx context.Context, a *adminRun) error {
		id := a.args[0]
		var u service.KeyUpdate
		if lf.scope != "" {
			cur, err := a.svc.KeyByID(ctx, id)
			if err != nil {
				return explain(err)
			}
			if u.Scopes, err = lf.scopes(cur.Scopes); err != nil {
				return err
			}
		}
		l, err := lf.limits(a.svc.Now())
		if err != nil {
			return err
		}
		switch {
		case *lf.noExpiry && l.ExpiresAt != nil:
			return usageError("--no-expiry and an expiry: give one")
		case *lf.noExpiry:
			u.ExpiresAt = adcamp.Null[time.Time]()
		case l.ExpiresAt != nil:
			u.ExpiresAt = adcamp.Some(*l.ExpiresAt)
		}
		switch {
		case *lf.anyIP && len(l.AllowedIPs) > 0:
			return usageError("--allow-any-ip and --allow-ip: give one")
		case *lf.anyIP:
			u.AllowedIPs = &[]netip.Prefix{}
		case len(l.AllowedIPs) > 0:
			u.AllowedIPs = &l.AllowedIPs
		}
		if lf.rateLimit != "" {
			u.RateLimit = &l.RateLimit
		}
		if u == (service.KeyUpdate{}) {
			return usageError("keys update: nothing to change (--scope, --expires-in, --expires-at, --no-expiry, --allow-ip, --allow-any-ip, --rate-limit)")
		}
		k, err := a.svc.UpdateKey(ctx, id, u)
		if err != nil {
			return explain(err)
		}
		return a.out.object(k, "API key %s: %s\n", k.ID, describeLimits(k, a.svc.Now()))
	}
}

// describeLimits writes a key's scopes and limits on one line.
func describeLimits(k *adcamp.APIKey, now time.Time) string {
	parts := []string{"scopes " + k.Scopes.String()}
	switch {
	case k.ExpiresAt == nil:
		parts = append(parts, "no expiry")
	case k.Expired(now):
		parts = append(parts, "expired "+k.ExpiresAt.Format(time.RFC3339))
	default:
		parts = append(parts, "expires "+k.ExpiresAt.Format(time.RFC3339))
	}
	if len(k.AllowedIPs) == 0 {
		parts = append(parts, "any address")
	} else {
		ips := make([]string, len(k.AllowedIPs))
		for i, p := range k.AllowedIPs {
			ips[i] = p.String()
		}
		parts = append(parts, "from "+strings.Join(ips, ","))
	}
	if k.RateLimit > 0 {
		parts = append(parts, fmt.Sprintf("%d req/s", k.RateLimit))
	}
	return strings.Join(parts, "; ")
}
