package service

import (
	"context"
	"fmt"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// action is what a caller asks to do in an account, as far as roles are
// concerned.
type action int

const (
	actRead           action = iota // see the account's credentials and members
	actSandboxKeys                  // create, disable, enable, roll, delete sandbox credentials
	actProductionKeys               // the same for production credentials
	actMembers                      // add, change and remove members
	// create, change, pause, resume, end and delete the campaigns of an
	// environment and the ad groups and keywords under them
	actSandboxCampaigns
	actProductionCampaigns
)

// what describes an action for a refusal.
var what = map[action]string{
	actRead:           "see this account",
	actSandboxKeys:    "create or change sandbox API keys",
	actProductionKeys: "create or change production API keys",
	actMembers:        "manage the account's members",

	actSandboxCampaigns:    "create or change sandbox campaigns, ad groups or keywords",
	actProductionCampaigns: "create or change production campaigns, ad groups or keywords",
}

// who says who may do an action, for a refusal.
var who = map[action]string{
	actSandboxKeys:    "an owner or a developer of the account can",
	actProductionKeys: "an owner of the account can",
	actMembers:        "an owner of the account can",

	actSandboxCampaigns:    "an owner or a developer of the account can",
	actProductionCampaigns: "an owner of the account can",
}

// allowed is the table of roles: an owner does everything, a developer
// reads everything and changes the sandbox (its credentials and its
// campaigns), a viewer reads.
func allowed(r adcamp.Role, a action) bool {
	switch r {
	case adcamp.RoleOwner:
		return true
	case adcamp.RoleDeveloper:
		return a == actRead || a == actSandboxKeys || a == actSandboxCampaigns
	case adcamp.RoleViewer:
		return a == actRead
	}
	return false
}

// keyAction is the action of changing a credential of env.
func keyAction(env adcamp.Environment) action {
	if env == adcamp.Production {
		return actProductionKeys
	}
	return actSandboxKeys
}

// campaignAction is the action of changing the campaigns (and what is
// under them) of env.
func campaignAction(env adcamp.Environment) action {
	if env == adcamp.Production {
		return actProductionCampaigns
	}
	return actSandboxCampaigns
}

// mayChangeAds checks that the actor of ctx may change the campaigns, ad
// groups and keywords of tenant t, inside the change's own transaction.
// Only console users have roles: an API key's tenant is its own account
// and environment, in which it may do everything (the API checked that
// much when it authenticated the key), and the admin command line and the
// system itself may change anything. A console user who is not a member
// gets NOT_FOUND for the kind and id the request named (built only then:
// this runs on every change); a member whose role does not allow it
// FORBIDDEN.
func (s *core) mayChangeAds(ctx context.Context, tx store.Tx, t adcamp.Tenant, kind, id string) error {
	if OriginOf(ctx).Actor.Type != adcamp.ActorUser {
		return nil
	}
	_, err := s.authorize(ctx, tx, t.AccountID, campaignAction(t.Environment), adcamp.NotFound(kind, id))
	return err
}

// MayChangeCampaigns is MayChangeKeys for the campaigns (and what is
// under them) of tenant t.
func (s *Ads) MayChangeCampaigns(ctx context.Context, t adcamp.Tenant) error {
	return s.read(ctx, func(tx store.Tx) error {
		_, err := s.authorize(ctx, tx, t.AccountID, campaignAction(t.Environment), adcamp.NotFound("account", t.AccountID))
		return err
	})
}

// authorize checks that the actor of ctx may do a in accountID. A console
// user must be a member whose role allows it: a user who is not a member
// gets missing (the answer for something that does not exist, so that
// another account's ids say nothing), a member whose role does not allow
// it FORBIDDEN. The admin command line and the service itself may do
// everything; an API key manages nothing here. It returns the user's
// membership (nil for other actors).
func (s *core) authorize(ctx context.Context, tx store.Tx, accountID string, a action, missing error) (*adcamp.Member, error) {
	actor := OriginOf(ctx).Actor
	switch actor.Type {
	case adcamp.ActorAdmin, adcamp.ActorSystem:
		return nil, nil
	case adcamp.ActorUser:
	default:
		return nil, adcamp.Errorf(adcamp.CodeForbidden, "an API key cannot %s", what[a])
	}
	m, err := tx.GetMember(ctx, accountID, actor.ID)
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
		return nil, missing
	}
	if err != nil {
		return nil, err
	}
	if !allowed(m.Role, a) {
		return m, &adcamp.Error{Code: adcamp.CodeForbidden,
			Message: fmt.Sprintf("As a %s of this account you cannot %s; %s.", m.Role, what[a], who[a])}
	}
	return m, nil
}

// Allowed says what a member with role r may do, for pages that show
// only the buttons that will work. The service checks again on every
// change.
type Allowed struct {
	SandboxKeys         bool
	ProductionKeys      bool
	Members             bool
	SandboxCampaigns    bool
	ProductionCampaigns bool
}

// AllowedFor returns what role r allows.
func AllowedFor(r adcamp.Role) Allowed {
	return Allowed{
		SandboxKeys:    allowed(r, actSandboxKeys),
		ProductionKeys: allowed(r, actProductionKeys),
		Members:        allowed(r, actMembers),

		SandboxCampaigns:    allowed(r, actSandboxCampaigns),
		ProductionCampaigns: allowed(r, actProductionCampaigns),
	}
}

// Keys reports whether the role allows changing credentials of env.
func (a Allowed) Keys(env adcamp.Environment) bool {
	if env == adcamp.Production {
		return a.ProductionKeys
	}
	return a.SandboxKeys
}

// Campaigns reports whether the role allows changing the campaigns (and
// their ad groups and keywords) of env.
func (a Allowed) Campaigns(env adcamp.Environment) bool {
	if env == adcamp.Production {
		return a.ProductionCampaigns
	}
	return a.SandboxCampaigns
}
