package storetest

import (
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

func TestZeroFields(t *testing.T) {
	t.Parallel()
	full := &store.Credential{
		APIKey: adcamp.APIKey{ID: "ak_test_x", AccountID: "acc_x", Environment: adcamp.Sandbox, Disabled: true,
			CreatedAt: base, LastUsedAt: &base, PreviousExpiresAt: &base, Name: "job",
			CreatedBy: &adcamp.Actor{Type: adcamp.ActorUser, ID: "usr_x"}, Scopes: adcamp.AllWrite, ExpiresAt: &base,
			AllowedIPs: []netip.Prefix{netip.MustParsePrefix("::1/128")}, RateLimit: 1},
		Secret: []byte("s"), PreviousSecret: []byte("p"),
	}
	change := &adcamp.Change{Changes: []adcamp.FieldChange{{Field: "name", Old: ptr("a"), New: ptr("b")}, {Field: "bid", New: ptr("1")}}}
	for _, tc := range []struct {
		name string
		v    any
		want []string
	}{
		{"everything set", full, nil},
		{"embedded, pointer and bytes left out", &store.Credential{APIKey: adcamp.APIKey{ID: "ak_test_x", AccountID: "acc_x",
			Environment: adcamp.Sandbox, Disabled: true, CreatedAt: base, LastUsedAt: &base, PreviousExpiresAt: &base,
			CreatedBy: &adcamp.Actor{Type: adcamp.ActorUser}, Scopes: adcamp.AllWrite, ExpiresAt: &base,
			AllowedIPs: []netip.Prefix{netip.MustParsePrefix("::1/128")}, RateLimit: 1}, Secret: []byte("s")},
			[]string{"Name", "CreatedBy.ID", "PreviousSecret"}},
		{"a time and a date", &adcamp.Campaign{StartDate: day("2026-12-01"), CreatedAt: time.Time{}},
			[]string{"ID", "AccountID", "Environment", "Name", "BudgetDaily", "Marketplace", "ChannelAccountID",
				"EndDate", "Status", "Notes", "Version", "CreatedAt", "UpdatedAt"}},
		{"each element of a slice", change, []string{"ID", "OccurredAt", "AccountID", "Environment", "EntityType",
			"EntityID", "CampaignID", "AdGroupID", "Operation", "Changes[1].Old", "Actor.Type", "Actor.ID",
			"RequestID", "IdempotencyKey", "TransactionID", "EventType"}},
		{"an empty list", []*adcamp.Account{}, []string{""}},
		{"a list", []*adcamp.Account{{ID: "acc_x", Name: "A", Email: "a@example.test", TimeZone: "UTC"}}, []string{"[0].CreatedAt"}},
	} {
		if got := zeroFields(tc.v); !slices.Equal(got, tc.want) {
			t.Errorf("%s: zeroFields = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestStoredEntities(t *testing.T) {
	t.Parallel()
	entities, readers := storedEntities()
	for _, want := range []any{adcamp.Campaign{}, store.Credential{}, adcamp.Change{}, store.Token{}} {
		if !slices.Contains(entities, reflect.TypeOf(want)) {
			t.Errorf("storedEntities() = %v, want %T among them", entities, want)
		}
	}
	for _, notEntity := range []any{adcamp.Tenant{}, store.ListQuery{}, store.KeywordKey{}, store.CredentialDay{}} {
		if slices.Contains(entities, reflect.TypeOf(notEntity)) {
			t.Errorf("storedEntities() has %T, an argument rather than a row", notEntity)
		}
	}
	for _, want := range []string{"GetCampaign", "ListKeywords", "DueCampaigns", "Subtree", "TakeToken"} {
		if !slices.Contains(readers, want) {
			t.Errorf("storedEntities() readers = %v, want %s among them", readers, want)
		}
	}
	if slices.Contains(readers, "CreateCampaign") || slices.Contains(readers, "TakenKeywordKeys") {
		t.Errorf("storedEntities() readers = %v, want only calls that return an entity", readers)
	}
}
