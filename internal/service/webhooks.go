package service

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/store"
	"github.com/adcamp/adcamp/internal/webhook"
)

// Webhook endpoints (docs/webhooks.md). An API key manages those of its
// own environment; in the console, owners manage both environments'
// and developers the sandbox's (as for API keys); every member reads.

// Limits of endpoints.
const (
	maxEndpoints       = 20   // per account and environment
	maxURL             = 2048 // characters
	maxDescription     = 500
	DefaultSecretGrace = 24 * time.Hour     // how long a rotated secret keeps signing unless told
	MaxSecretGrace     = 7 * 24 * time.Hour // the longest it may
)

// EndpointInput is a create's or an update's fields (nil: absent).
type EndpointInput struct {
	URL         *string
	Description *string
	EventTypes  *[]string
	Ordering    *string
	Enabled     *bool
}

// NewEndpoint is a new endpoint, or one whose secret was rotated, with its
// secret: shown once.
type NewEndpoint struct {
	adcamp.WebhookEndpoint
	Secret string
}

// mayWebhooks checks that the actor of ctx may read (change false) or
// change the tenant's endpoints.
func (s *core) mayWebhooks(ctx context.Context, tx store.Tx, t adcamp.Tenant, change bool) error {
	if OriginOf(ctx).Actor.Type != adcamp.ActorUser {
		return nil
	}
	a := actRead
	if change {
		a = keyAction(t.Environment)
	}
	_, err := s.authorize(ctx, tx, t.AccountID, a, adcamp.NotFound("account", t.AccountID))
	return err
}

// checkEndpoint validates the fields of in that are set into e.
func checkEndpoint(issues *adcamp.Issues, env adcamp.Environment, in EndpointInput, e *adcamp.WebhookEndpoint) {
	if in.URL != nil {
		e.URL = strings.TrimSpace(*in.URL)
		checkURL(issues, env, e.URL)
	}
	if in.Description != nil {
		e.Description = strings.TrimSpace(*in.Description)
		if e.Description != "" {
			checkText(issues, "description", e.Description, maxDescription)
		}
	}
	if in.EventTypes != nil {
		e.EventTypes = nil
		for _, typ := range *in.EventTypes {
			if !slices.Contains(adcamp.EventTypes, typ) {
				issues.AddKind("event_types", adcamp.IssueNotOneOf, strings.Join(adcamp.EventTypes, ", "),
					"has %q, which is not an event type (%s)", typ, strings.Join(adcamp.EventTypes, ", "))
				continue
			}
			if !slices.Contains(e.EventTypes, typ) {
				e.EventTypes = append(e.EventTypes, typ)
			}
		}
	}
	if in.Ordering != nil {
		e.Ordering = *in.Ordering
		if !slices.Contains(adcamp.Orderings, e.Ordering) {
			issues.AddKind("ordering", adcamp.IssueNotOneOf, strings.Join(adcamp.Orderings, ", "),
				"must be one of %s", strings.Join(adcamp.Orderings, ", "))
		}
	}
	if in.Enabled != nil {
		e.Enabled = *in.Enabled
		e.DisabledReason = ""
		if !e.Enabled {
			e.DisabledReason = adcamp.DisabledByUser
		}
	}
}

// checkURL: an absolute https URL (http too in the sandbox), without
// credentials or a fragment. Where it leads is checked when it is used,
// on the address connected to (internal/webhook).
func checkURL(issues *adcamp.Issues, env adcamp.Environment, s string) {
	u, err := url.Parse(s)
	switch {
	case s == "":
		issues.AddKind("url", adcamp.IssueEmpty, "", "must not be empty")
	case len(s) > maxURL:
		issues.AddKind("url", adcamp.IssueTooLong, strconv.Itoa(maxURL), "must be at most %d characters", maxURL)
	case err != nil || u.Host == "" || u.Hostname() == "" || (u.Scheme != "https" && u.Scheme != "http"):
		issues.Add("url", "must be an absolute https:// URL")
	case u.Scheme == "http" && env == adcamp.Production:
		issues.Add("url", "must be https:// in production (plain http:// is allowed in the sandbox)")
	case u.User != nil:
		issues.Add("url", "must not carry a user name or password")
	case u.Fragment != "" || strings.Contains(s, "#"):
		issues.Add("url", "must not have a fragment (#...)")
	}
}

// Sealing of endpoint secrets: bound to the endpoint and the slot, as
// the API keys' are (sealed.go).
func endpointAD(id string) []byte { return []byte(id + "\x00webhook current") }

func previousEndpointAD(id string, expires time.Time) []byte {
	return []byte(id + "\x00webhook previous\x00" + strconv.FormatInt(expires.Unix(), 10))
}

func sealEndpoint(box *secrets.Box, e *store.WebhookEndpoint, current, previous []byte) {
	e.Secret = box.Seal(current, endpointAD(e.ID))
	e.PreviousSecret = nil
	if previous != nil && e.PreviousSecretExpiresAt != nil {
		e.PreviousSecret = box.Seal(previous, previousEndpointAD(e.ID, *e.PreviousSecretExpiresAt))
	}
}

// signingKeys opens an endpoint's keys: the current one, and the previous
// one while it has not expired at now.
func signingKeys(box *secrets.Box, e *store.WebhookEndpoint, now time.Time) ([][]byte, error) {
	cur, err := box.Open(e.Secret, endpointAD(e.ID))
	if err != nil {
		return nil, err
	}
	keys := [][]byte{cur}
	if exp := e.PreviousSecretExpiresAt; e.PreviousSecret != nil && exp != nil && now.Before(*exp) {
		if prev, err := box.Open(e.PreviousSecret, previousEndpointAD(e.ID, *exp)); err == nil {
			keys = append(keys, prev)
		}
	}
	return keys, nil
}

// CreateWebhookEndpoint adds an endpoint, enabled unless in says
// otherwise, with a new secret.
func (s *Ads) CreateWebhookEndpoint(ctx context.Context, t adcamp.Tenant, in EndpointInput) (*NewEndpoint, error) {
	now := s.Now().Truncate(time.Microsecond)
	e := &store.WebhookEndpoint{WebhookEndpoint: adcamp.WebhookEndpoint{
		ID: adcamp.NewID(adcamp.PrefixWebhookEndpoint, now), AccountID: t.AccountID, Environment: t.Environment,
		Ordering: adcamp.OrderingNone, Enabled: true, CreatedAt: now, UpdatedAt: now,
	}}
	var issues adcamp.Issues
	if in.URL == nil {
		issues.AddKind("url", adcamp.IssueRequired, "", "is required")
	}
	checkEndpoint(&issues, t.Environment, in, &e.WebhookEndpoint)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	secret, key := webhook.NewSecret()
	sealEndpoint(s.box, e, key, nil)
	err := s.write(ctx, func(tx store.Tx) error {
		if err := s.mayWebhooks(ctx, tx, t, true); err != nil {
			return err
		}
		list, err := tx.ListWebhookEndpoints(ctx, t)
		if err != nil {
			return err
		}
		if len(list) >= maxEndpoints {
			return adcamp.Errorf(adcamp.CodeValidation, "an account has at most %d webhook endpoints per environment", maxEndpoints)
		}
		if err := tx.CreateWebhookEndpoint(ctx, e); err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		recordEndpoint(h, adcamp.OpCreate, nil, &e.WebhookEndpoint, false)
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return &NewEndpoint{WebhookEndpoint: e.WebhookEndpoint, Secret: secret}, nil
}

// WebhookEndpoint returns one of the tenant's endpoints.
func (s *Ads) WebhookEndpoint(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.WebhookEndpoint, error) {
	var e *store.WebhookEndpoint
	err := s.read(ctx, func(tx store.Tx) error {
		if err := s.mayWebhooks(ctx, tx, t, false); err != nil {
			return err
		}
		var err error
		e, err = tx.GetWebhookEndpoint(ctx, t, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &e.WebhookEndpoint, nil
}

// WebhookEndpoints lists the tenant's endpoints, oldest first.
func (s *Ads) WebhookEndpoints(ctx context.Context, t adcamp.Tenant) ([]*adcamp.WebhookEndpoint, error) {
	var out []*adcamp.WebhookEndpoint
	err := s.read(ctx, func(tx store.Tx) error {
		if err := s.mayWebhooks(ctx, tx, t, false); err != nil {
			return err
		}
		list, err := tx.ListWebhookEndpoints(ctx, t)
		for _, e := range list {
			out = append(out, &e.WebhookEndpoint)
		}
		return err
	})
	return out, err
}

// UpdateWebhookEndpoint changes the fields in sets. Enabling an endpoint
// clears why it was disabled and its run of failures.
func (s *Ads) UpdateWebhookEndpoint(ctx context.Context, t adcamp.Tenant, id string, in EndpointInput) (*adcamp.WebhookEndpoint, error) {
	var out *adcamp.WebhookEndpoint
	err := s.write(ctx, func(tx store.Tx) error {
		if err := s.mayWebhooks(ctx, tx, t, true); err != nil {
			return err
		}
		e, err := tx.GetWebhookEndpoint(ctx, t, id)
		if err != nil {
			return err
		}
		before := e.WebhookEndpoint
		var issues adcamp.Issues
		checkEndpoint(&issues, t.Environment, in, &e.WebhookEndpoint)
		if err := issues.Err(); err != nil {
			return err
		}
		if in.Enabled != nil && *in.Enabled && !before.Enabled {
			e.FailingSince = nil
		}
		now := s.Now()
		e.UpdatedAt = now
		if err := tx.UpdateWebhookEndpoint(ctx, e); err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		recordEndpoint(h, adcamp.OpUpdate, &before, &e.WebhookEndpoint, false)
		out = &e.WebhookEndpoint
		return h.write(ctx, tx)
	})
	return out, err
}

// DeleteWebhookEndpoint removes an endpoint, its deliveries and their log.
func (s *Ads) DeleteWebhookEndpoint(ctx context.Context, t adcamp.Tenant, id string) error {
	return s.write(ctx, func(tx store.Tx) error {
		if err := s.mayWebhooks(ctx, tx, t, true); err != nil {
			return err
		}
		e, err := tx.GetWebhookEndpoint(ctx, t, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteWebhookEndpoint(ctx, t, id); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		recordEndpoint(h, adcamp.OpDelete, &e.WebhookEndpoint, nil, false)
		return h.write(ctx, tx)
	})
}

// RotateWebhookSecret gives an endpoint a new secret; the old one keeps
// signing too (a second signature) for grace (0: not at all).
func (s *Ads) RotateWebhookSecret(ctx context.Context, t adcamp.Tenant, id string, grace time.Duration) (*NewEndpoint, error) {
	if grace < 0 || grace > MaxSecretGrace {
		var issues adcamp.Issues
		issues.Add("grace_seconds", "must be from 0 to %d seconds", int(MaxSecretGrace/time.Second))
		return nil, issues.Err()
	}
	secret, key := webhook.NewSecret()
	var out *NewEndpoint
	err := s.write(ctx, func(tx store.Tx) error {
		if err := s.mayWebhooks(ctx, tx, t, true); err != nil {
			return err
		}
		e, err := tx.GetWebhookEndpoint(ctx, t, id)
		if err != nil {
			return err
		}
		before := e.WebhookEndpoint
		now := s.Now().Truncate(time.Second)
		var previous []byte
		e.PreviousSecretExpiresAt = nil
		if grace > 0 {
			if previous, err = s.box.Open(e.Secret, endpointAD(e.ID)); err != nil {
				return err
			}
			exp := now.Add(grace)
			e.PreviousSecretExpiresAt = &exp
		}
		sealEndpoint(s.box, e, key, previous)
		e.UpdatedAt = now
		if err := tx.UpdateWebhookEndpoint(ctx, e); err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		recordEndpoint(h, adcamp.OpUpdate, &before, &e.WebhookEndpoint, true)
		out = &NewEndpoint{WebhookEndpoint: e.WebhookEndpoint, Secret: secret}
		return h.write(ctx, tx)
	})
	return out, err
}

var endpointFields = []string{"url", "description", "event_types", "ordering", "enabled", "disabled_reason",
	"previous_secret_expires_at"}

func endpointValues(e *adcamp.WebhookEndpoint) []*string {
	if e == nil {
		return nil
	}
	return []*string{text(e.URL), textOrNull(e.Description), text(strings.Join(e.EventTypes, " ")), text(e.Ordering),
		textBool(e.Enabled), textOrNull(e.DisabledReason), textTime(e.PreviousSecretExpiresAt)}
}

// recordEndpoint records an endpoint's change; a rotation lists "secret"
// (replaced, issued) as a roll of an API key does.
func recordEndpoint(h *history, op adcamp.Operation, before, after *adcamp.WebhookEndpoint, rotated bool) {
	e := cmpOrPtr(after, before)
	fields := diff(op, endpointFields, endpointValues(before), endpointValues(after))
	if rotated {
		fields = append(fields, adcamp.FieldChange{Field: "secret", Old: text("replaced"), New: text("issued")})
	}
	h.add(e.AccountID, e.Environment, adcamp.EntityWebhookEndpoint, e.ID, "", "", op, fields)
}
