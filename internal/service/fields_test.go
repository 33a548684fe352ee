package service_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// example gives one field of an input a value for a create and another
// for an update; nil where the field cannot be given there (a field fixed
// at creation, or one a create refuses).
type example[I any] struct {
	create, update func(*I)
}

// inputCase runs the examples of one input type against the service.
type inputCase[I, E any] struct {
	examples map[string]example[I]
	create   func(in I) (*E, error) // over a base input the examples change
	update   func(e *E, in I) (*E, error)
}

// TestInputsReachTheEntities: every field of the inputs of campaigns, ad
// groups and keywords reaches the entity the service makes of it, through
// a create and through an update (where each may give it). A field added
// to an input fails here until the examples below give it values
// (docs/CONTRIBUTING.md, "Adding a field"), then until the service's
// create and merge carry it into the entity's field of the same name.
func TestInputsReachTheEntities(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, err := f.svc.CreateAccount(admin, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: acc.ID, Environment: adcamp.Sandbox}
	ca, err := f.svc.CreateChannelAccount(admin, acc.ID, "DE", "Acme DE")
	if err != nil {
		t.Fatal(err)
	}
	campaigns := campaignCase(f, tn, ca.ID)
	t.Run("Campaign", func(t *testing.T) { checkInputs(t, campaigns) })
	c, err := campaigns.create(adcamp.CampaignInput{})
	if err != nil {
		t.Fatal(err)
	}
	adGroups := adGroupCase(f, tn, c.ID)
	t.Run("AdGroup", func(t *testing.T) { checkInputs(t, adGroups) })
	g, err := adGroups.create(adcamp.AdGroupInput{})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("Keyword", func(t *testing.T) { checkInputs(t, keywordCase(f, tn, g.ID)) })
}

// notRecorded are the entities' fields a change record does not list:
// who and where the record itself says, and what every change moves.
var notRecorded = []string{"id", "account_id", "environment", "campaign_id", "ad_group_id", "version", "created_at", "updated_at"}

// TestHistoryRecordsEveryField: the record of a create lists every field
// of the entity (but notRecorded), so that a field added to an entity and
// forgotten in the history (changes.go's campaignFields and
// campaignValues, and their siblings) fails here.
func TestHistoryRecordsEveryField(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, err := f.svc.CreateAccount(admin, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: acc.ID, Environment: adcamp.Sandbox}
	c, err := campaignCase(f, tn, 0).create(adcamp.CampaignInput{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := adGroupCase(f, tn, c.ID).create(adcamp.AdGroupInput{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := keywordCase(f, tn, g.ID).create(adcamp.KeywordInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		typ    adcamp.EntityType
		id     string
		entity any
	}{{adcamp.EntityCampaign, c.ID, *c}, {adcamp.EntityAdGroup, g.ID, *g}, {adcamp.EntityKeyword, k.ID, *k}} {
		var want []string
		typ := reflect.TypeOf(e.entity)
		for i := range typ.NumField() {
			if name := snakeCase(typ.Field(i).Name); !slices.Contains(notRecorded, name) {
				want = append(want, name)
			}
		}
		page, _, err := f.svc.EntityChanges(ctx, tn, e.typ, e.id, adcamp.ChangeFilter{EntityType: e.typ, Limit: 1})
		if err != nil || len(page) != 1 || page[0].Operation != adcamp.OpCreate {
			t.Fatalf("EntityChanges(%s) = %d records, %v; want its create", e.id, len(page), err)
		}
		var got []string
		for _, fc := range page[0].Changes {
			got = append(got, fc.Field)
		}
		if !slices.Equal(got, want) {
			t.Errorf("the record of the create of %s %s lists %v; want the fields of %s: %v", e.typ, e.id, got, typ, want)
		}
	}
}

// snakeCase writes a Go field name as the API names the field:
// ChannelAccountID is channel_account_id.
func snakeCase(name string) string {
	var b strings.Builder
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) && unicode.IsLower(rune(name[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// checkInputs checks each field of I but the version precondition and the
// reader's issues: set by its create example, the entity's field differs
// from a create without it; set by its update example, it differs from
// before the update.
func checkInputs[I, E any](t *testing.T, c inputCase[I, E]) {
	base, err := c.create(*new(I))
	if err != nil {
		t.Fatalf("create of the base input: %v", err)
	}
	typ := reflect.TypeFor[I]()
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if name == "Version" || name == "Invalid" {
			continue
		}
		ex, ok := c.examples[name]
		if !ok || ex.create == nil && ex.update == nil {
			t.Errorf("%s.%s has no example in TestInputsReachTheEntities: give it one", typ, name)
			continue
		}
		if _, ok := reflect.TypeFor[E]().FieldByName(name); !ok {
			t.Errorf("%s has no field %s, where %s.%s would go", reflect.TypeFor[E](), name, typ, name)
			continue
		}
		var in I
		if ex.create != nil {
			ex.create(&in)
			e, err := c.create(in)
			if err != nil || sameField(e, base, name) {
				t.Errorf("create with %s.%s: %s = %s, %v; want it changed from %s",
					typ, name, name, shown(e, name), err, shown(base, name))
			}
		}
		if ex.update != nil {
			before, err := c.create(*new(I))
			if err != nil {
				t.Fatal(err)
			}
			in = *new(I)
			ex.update(&in)
			e, err := c.update(before, in)
			if err != nil || sameField(e, before, name) {
				t.Errorf("update with %s.%s: %s = %s, %v; want it changed from %s",
					typ, name, name, shown(e, name), err, shown(before, name))
			}
		}
	}
}

func fieldOf[E any](e *E, name string) any {
	if e == nil {
		return nil
	}
	return reflect.ValueOf(e).Elem().FieldByName(name).Interface()
}

// shown writes the field name of e as JSON would.
func shown[E any](e *E, name string) string {
	b, _ := json.Marshal(fieldOf(e, name))
	return string(b)
}

func sameField[E any](a, b *E, name string) bool {
	return a == nil || reflect.DeepEqual(fieldOf(a, name), fieldOf(b, name))
}

func campaignCase(f *fixture, tn adcamp.Tenant, channelAccount int64) inputCase[adcamp.CampaignInput, adcamp.Campaign] {
	type in = adcamp.CampaignInput
	return inputCase[in, adcamp.Campaign]{
		examples: map[string]example[in]{
			"Name":        {func(i *in) { i.Name = adcamp.Some("Autumn sale") }, func(i *in) { i.Name = adcamp.Some("Winter sale") }},
			"BudgetDaily": {func(i *in) { i.BudgetDaily = adcamp.Some("40") }, func(i *in) { i.BudgetDaily = adcamp.Some("41.50") }},
			"Marketplace": {create: func(i *in) { i.Marketplace = adcamp.Some("JP") }},
			"ChannelAccountID": {create: func(i *in) { // on DE, as the channel account is
				i.Marketplace, i.ChannelAccountID = adcamp.Some("DE"), adcamp.Some(channelAccount)
			}},
			"StartDate": {func(i *in) { i.StartDate = adcamp.Some("2030-01-01") }, func(i *in) { i.StartDate = adcamp.Some("2030-01-02") }},
			"EndDate":   {func(i *in) { i.EndDate = adcamp.Some("2030-12-31") }, func(i *in) { i.EndDate = adcamp.Some("2031-01-31") }},
			"Status":    {update: func(i *in) { i.Status = adcamp.Some(adcamp.StatusPaused) }},
			"Notes":     {func(i *in) { i.Notes = adcamp.Some("A note") }, func(i *in) { i.Notes = adcamp.Some("Another note") }},
		},
		create: func(i in) (*adcamp.Campaign, error) {
			base := in{Name: adcamp.Some("Spring sale"), BudgetDaily: adcamp.Some("25"), Marketplace: adcamp.Some("US")}
			overlay(&base, i)
			return f.svc.CreateCampaign(admin, tn, base, false)
		},
		update: func(c *adcamp.Campaign, i in) (*adcamp.Campaign, error) {
			return f.svc.UpdateCampaign(admin, tn, c.ID, i, service.IfMatch{}, false)
		},
	}
}

func adGroupCase(f *fixture, tn adcamp.Tenant, campaignID string) inputCase[adcamp.AdGroupInput, adcamp.AdGroup] {
	type in = adcamp.AdGroupInput
	return inputCase[in, adcamp.AdGroup]{
		examples: map[string]example[in]{
			"Name":       {func(i *in) { i.Name = adcamp.Some("Boots") }, func(i *in) { i.Name = adcamp.Some("Sandals") }},
			"DefaultBid": {func(i *in) { i.DefaultBid = adcamp.Some("0.80") }, func(i *in) { i.DefaultBid = adcamp.Some("0.90") }},
			"Status": {func(i *in) { i.Status = adcamp.Some(adcamp.StatusPaused) },
				func(i *in) { i.Status = adcamp.Some(adcamp.StatusPaused) }},
		},
		create: func(i in) (*adcamp.AdGroup, error) {
			base := in{Name: adcamp.Some("Shoes"), DefaultBid: adcamp.Some("0.75")}
			overlay(&base, i)
			return f.svc.CreateAdGroup(admin, tn, campaignID, base, false)
		},
		update: func(g *adcamp.AdGroup, i in) (*adcamp.AdGroup, error) {
			return f.svc.UpdateAdGroup(admin, tn, g.ID, i, service.IfMatch{}, false)
		},
	}
}

func keywordCase(f *fixture, tn adcamp.Tenant, adGroupID string) inputCase[adcamp.KeywordInput, adcamp.Keyword] {
	type in = adcamp.KeywordInput
	made := 0 // each keyword a text of its own: texts are unique in an ad group
	return inputCase[in, adcamp.Keyword]{
		examples: map[string]example[in]{
			"Text":      {update: func(i *in) { i.Text = adcamp.Some("blue shoes") }},
			"MatchType": {func(i *in) { i.MatchType = adcamp.Some(adcamp.MatchBroad) }, func(i *in) { i.MatchType = adcamp.Some(adcamp.MatchPhrase) }},
			"Bid":       {func(i *in) { i.Bid = adcamp.Some("1.10") }, func(i *in) { i.Bid = adcamp.Some("1.20") }},
			"Status":    {func(i *in) { i.Status = adcamp.Some(adcamp.StatusPaused) }, func(i *in) { i.Status = adcamp.Some(adcamp.StatusPaused) }},
		},
		create: func(i in) (*adcamp.Keyword, error) {
			made++
			base := in{Text: adcamp.Some("red shoes " + string(rune('a'+made))), MatchType: adcamp.Some(adcamp.MatchExact)}
			overlay(&base, i)
			res, err := f.svc.CreateKeywords(admin, tn, adGroupID, []adcamp.KeywordInput{base}, service.BatchOptions{})
			if err != nil {
				return nil, err
			}
			return res[0].Keyword, res[0].Err
		},
		update: func(k *adcamp.Keyword, i in) (*adcamp.Keyword, error) {
			return f.svc.UpdateKeyword(admin, tn, k.ID, i, service.IfMatch{}, false)
		},
	}
}

// overlay sets the fields of *base that over sets (each an Optional, or
// the Invalid issues), leaving the others.
func overlay[I any](base *I, over I) {
	b, o := reflect.ValueOf(base).Elem(), reflect.ValueOf(over)
	for i := range o.NumField() {
		if !o.Field(i).IsZero() {
			b.Field(i).Set(o.Field(i))
		}
	}
}
