package storetest

import (
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// A field that cannot be forgotten. testEveryField stores one of every
// entity the store keeps with every field set (checked by reflection, so
// a field added to an entity fails here until its fixture below gives it
// a value), reads each back through every call of store.Tx that returns
// it, and changes the fields of campaigns, ad groups and keywords one at
// a time through their updates. A column left out of a store's INSERT,
// SELECT, scanner or update then fails, on every store.

// roundTrip is the state of testEveryField: what it has checked.
type roundTrip struct {
	t        *testing.T
	db       store.Store
	fixtures map[reflect.Type]bool // entity types given a full fixture
	reads    map[string]bool       // calls of store.Tx read back through
}

func testEveryField(t *testing.T, db store.Store) {
	r := &roundTrip{t: t, db: db, fixtures: map[reflect.Type]bool{}, reads: map[string]bool{}}
	a := r.account()
	c := r.campaign(a, r.channelAccount(a))
	g, k := r.children(c)
	r.updates(c, g, k)
	r.negatives(c, g, k)
	r.credential(a)
	r.webhooks(a)
	r.reportJob(a)
	r.change(c, g, k)
	r.record()
	u := r.user()
	r.member(a, u)
	r.session(u)
	r.token(u)
	r.operatorKey()
	r.complete()
}

// fixture checks that v, about to be stored, has every field set.
func (r *roundTrip) fixture(what string, v any) {
	r.t.Helper()
	if zero := zeroFields(v); len(zero) > 0 {
		r.t.Fatalf("the fixture of %s (internal/store/storetest/fields.go) leaves %s at the zero value: "+
			"give it a value there, so that its round trip shows that the store keeps it", what, strings.Join(zero, ", "))
	}
	r.fixtures[entityType(reflect.TypeOf(v))] = true
}

// read checks what call returned against want: equal, and nothing left
// at the zero value.
func (r *roundTrip) read(call string, got, want any, err error) {
	r.t.Helper()
	r.reads[call] = true
	if err != nil {
		r.t.Errorf("%s: %v", call, err)
		return
	}
	if zero := zeroFields(got); len(zero) > 0 {
		r.t.Errorf("%s left %s at the zero value: is a column missing from the store's statements or scanner?",
			call, strings.Join(zero, ", "))
	}
	same(r.t, call, got, want)
}

// reading runs fn in a read transaction.
func (r *roundTrip) reading(fn func(tx store.Tx)) {
	read(r.t, r.db, func(tx store.Tx) error { fn(tx); return nil })
}

// writing runs fn in a write transaction that must succeed.
func (r *roundTrip) writing(fn func(tx store.Tx) error) {
	r.t.Helper()
	write(r.t, r.db, fn)
}

func (r *roundTrip) account() *adcamp.Account {
	ctx := r.t.Context()
	a := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, base), Name: "Acme", Email: "ops@example.test", CreatedAt: base,
		TimeZone: "Asia/Seoul"}
	r.fixture("an account", a)
	r.writing(func(tx store.Tx) error { return tx.CreateAccount(ctx, a) })
	r.reading(func(tx store.Tx) {
		got, err := tx.GetAccount(ctx, a.ID)
		r.read("GetAccount", got, a, err)
	})
	return a
}

func (r *roundTrip) channelAccount(a *adcamp.Account) *adcamp.ChannelAccount {
	ctx := r.t.Context()
	ca := &adcamp.ChannelAccount{AccountID: a.ID, Marketplace: "JP", Name: "Acme JP", CreatedAt: at(1)}
	r.writing(func(tx store.Tx) error { return tx.CreateChannelAccount(ctx, ca) })
	r.fixture("a channel account (its id set by the store)", ca)
	r.reading(func(tx store.Tx) {
		got, err := tx.GetChannelAccount(ctx, a.ID, ca.ID)
		r.read("GetChannelAccount", got, ca, err)
		list, _, err := tx.ListChannelAccounts(ctx, a.ID, store.ListQuery{Limit: 10})
		r.read("ListChannelAccounts", list, []*adcamp.ChannelAccount{ca}, err)
	})
	return ca
}

// campaign stores a campaign with every field set, whose end date has
// passed on dueDay while it is still active.
func (r *roundTrip) campaign(a *adcamp.Account, ca *adcamp.ChannelAccount) *adcamp.Campaign {
	ctx := r.t.Context()
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}
	c := &adcamp.Campaign{
		ID: adcamp.NewID(adcamp.PrefixCampaign, at(2)), AccountID: a.ID, Environment: tn.Environment,
		Name: "Ünïcode — 春のセール", BudgetDaily: 100_000_000, Marketplace: ca.Marketplace, ChannelAccountID: &ca.ID,
		StartDate: day("2026-12-01"), EndDate: day("2027-01-31"), Status: adcamp.StatusActive,
		Notes: "Line one\n\tand two — ☂", Version: 1, CreatedAt: at(2), UpdatedAt: at(3).Add(time.Microsecond),
	}
	r.fixture("a campaign", c)
	r.writing(func(tx store.Tx) error { return tx.CreateCampaign(ctx, c) })
	got, err := getCampaign(r.t, r.db, tn, c.ID) // through Read and ReadOne
	r.read("GetCampaign", got, c, err)
	r.reading(func(tx store.Tx) {
		list, _, err := tx.ListCampaigns(ctx, tn, store.ListQuery{Limit: 20})
		r.read("ListCampaigns", list, []*adcamp.Campaign{c}, err)
		withSpend, _, err := tx.GetCampaignSpend(ctx, tn, c.ID, at(0), at(4))
		r.read("GetCampaignSpend", withSpend, c, err)
		listSpend, _, _, err := tx.ListCampaignsSpend(ctx, tn, store.ListQuery{Limit: 20}, at(0), at(4))
		r.read("ListCampaignsSpend", listSpend, []*adcamp.Campaign{c}, err)
	})
	r.writing(func(tx store.Tx) error { // which locks what it returns
		due, err := tx.DueCampaigns(ctx, day("2027-02-01"), 10)
		r.read("DueCampaigns", due, []*adcamp.Campaign{c}, err)
		return nil
	})
	return c
}

// children stores an ad group under c, and a keyword with a bid of its
// own under the ad group.
func (r *roundTrip) children(c *adcamp.Campaign) (*adcamp.AdGroup, *adcamp.Keyword) {
	ctx := r.t.Context()
	tn := adcamp.Tenant{AccountID: c.AccountID, Environment: c.Environment}
	g := &adcamp.AdGroup{
		ID: adcamp.NewID(adcamp.PrefixAdGroup, at(4)), CampaignID: c.ID, AccountID: c.AccountID,
		Environment: c.Environment, Name: "Schuhe — ☂", DefaultBid: 75, Status: adcamp.StatusActive, Version: 1,
		CreatedAt: at(4), UpdatedAt: at(5),
	}
	bid := adcamp.Money(110)
	k := &adcamp.Keyword{
		ID: adcamp.NewID(adcamp.PrefixKeyword, at(6)), AdGroupID: g.ID, AccountID: c.AccountID,
		Environment: c.Environment, Text: "rote Schuhe", MatchType: adcamp.MatchPhrase, Bid: &bid,
		Status: adcamp.StatusActive, Version: 1, CreatedAt: at(6), UpdatedAt: at(7),
	}
	r.fixture("an ad group", g)
	r.fixture("a keyword", k)
	r.writing(func(tx store.Tx) error { return tx.CreateAdGroup(ctx, g) })
	r.writing(func(tx store.Tx) error { return tx.CreateKeywords(ctx, []*adcamp.Keyword{k}) })
	r.reading(func(tx store.Tx) {
		got, err := tx.GetAdGroup(ctx, tn, g.ID)
		r.read("GetAdGroup", got, g, err)
		groups, _, err := tx.ListAdGroups(ctx, tn, c.ID, store.ListQuery{Limit: 20})
		r.read("ListAdGroups", groups, []*adcamp.AdGroup{g}, err)
		kw, err := tx.GetKeyword(ctx, tn, k.ID)
		r.read("GetKeyword", kw, k, err)
		kws, _, err := tx.ListKeywords(ctx, tn, g.ID, store.ListQuery{Limit: 20})
		r.read("ListKeywords", kws, []*adcamp.Keyword{k}, err)
		subGroups, subKeywords, err := tx.Subtree(ctx, tn, c.ID, "")
		r.read("Subtree", []any{subGroups, subKeywords}, []any{[]*adcamp.AdGroup{g}, []*adcamp.Keyword{k}}, err)
	})
	return g, k
}

// updates changes the fields of c, g and k one at a time, each through
// an update given the entity as read (which may write only what changed)
// and then through one without it (which writes every mutable field).
func (r *roundTrip) updates(c *adcamp.Campaign, g *adcamp.AdGroup, k *adcamp.Keyword) {
	ctx := r.t.Context()
	tn := adcamp.Tenant{AccountID: c.AccountID, Environment: c.Environment}
	updateEach(r, "UpdateCampaign", c, []string{"ID", "AccountID", "Environment", "Marketplace", "ChannelAccountID", "CreatedAt"},
		func(tx store.Tx, next, prev *adcamp.Campaign) error { return tx.UpdateCampaign(ctx, next, prev) },
		func(tx store.Tx) (*adcamp.Campaign, error) { return tx.GetCampaign(ctx, tn, c.ID) })
	updateEach(r, "UpdateAdGroup", g, []string{"ID", "CampaignID", "AccountID", "Environment", "CreatedAt"},
		func(tx store.Tx, next, prev *adcamp.AdGroup) error { return tx.UpdateAdGroup(ctx, next, prev) },
		func(tx store.Tx) (*adcamp.AdGroup, error) { return tx.GetAdGroup(ctx, tn, g.ID) })
	updateEach(r, "UpdateKeyword", k, []string{"ID", "AdGroupID", "AccountID", "Environment", "CreatedAt"},
		func(tx store.Tx, next, prev *adcamp.Keyword) error { return tx.UpdateKeyword(ctx, next, prev) },
		func(tx store.Tx) (*adcamp.Keyword, error) { return tx.GetKeyword(ctx, tn, k.ID) })
}

// updateEach changes each field of *cur but those named fixed (and
// Version and UpdatedAt, which every update moves) to another value, one
// field an update, and checks that get reads the change back. cur ends
// as stored.
func updateEach[T any](r *roundTrip, call string, cur *T, fixed []string,
	update func(tx store.Tx, next, prev *T) error, get func(tx store.Tx) (*T, error)) {
	r.t.Helper()
	typ := reflect.TypeFor[T]()
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if slices.Contains(fixed, name) || name == "Version" || name == "UpdatedAt" {
			continue
		}
		for _, withPrev := range []bool{true, false} {
			next := *cur
			v := reflect.ValueOf(&next).Elem()
			r.other(call, v.Field(i))
			r.other(call, v.FieldByName("Version"))
			r.other(call, v.FieldByName("UpdatedAt"))
			prev := cur
			if !withPrev {
				prev = nil
			}
			r.writing(func(tx store.Tx) error { return update(tx, &next, prev) })
			r.reading(func(tx store.Tx) {
				got, err := get(tx)
				r.read(fmt.Sprintf("%s of %s (prev given: %v), then a get", call, name, withPrev), got, &next, err)
			})
			*cur = next
		}
	}
}

// other sets v, a field of an entity, to another value its store accepts.
func (r *roundTrip) other(call string, v reflect.Value) {
	r.t.Helper()
	switch x := v.Addr().Interface().(type) {
	case *time.Time:
		*x = x.Add(time.Second)
	case *adcamp.Date:
		*x = day(time.Date(x.Year, x.Month, x.Day+1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly))
	case *adcamp.Status:
		*x = map[adcamp.Status]adcamp.Status{adcamp.StatusActive: adcamp.StatusPaused, adcamp.StatusPaused: adcamp.StatusActive}[*x]
	case *adcamp.MatchType:
		*x = map[adcamp.MatchType]adcamp.MatchType{adcamp.MatchExact: adcamp.MatchPhrase,
			adcamp.MatchPhrase: adcamp.MatchBroad, adcamp.MatchBroad: adcamp.MatchExact}[*x]
	case *string:
		*x += " (changed)"
	case *int64:
		*x++
	case *adcamp.Money:
		*x++
	case **adcamp.Money:
		m := adcamp.Money(1)
		if *x != nil {
			m = **x + 1
		}
		*x = &m
	default:
		r.t.Fatalf("%s: storetest's roundTrip.other has no other value for a %s: add one", call, v.Type())
	}
}

func (r *roundTrip) credential(a *adcamp.Account) {
	ctx := r.t.Context()
	expires := at(86400)
	k := &store.Credential{
		APIKey: adcamp.APIKey{ID: "ak_test_full", AccountID: a.ID, Environment: adcamp.Sandbox, CreatedAt: at(8),
			Name: "Reporting job", CreatedBy: &adcamp.Actor{Type: adcamp.ActorUser, ID: "usr_someone"},
			Scopes:     adcamp.Scopes{Campaigns: adcamp.AccessRead, Reports: adcamp.AccessWrite, History: adcamp.AccessNone, Webhooks: adcamp.AccessRead},
			ExpiresAt:  &expires,
			AllowedIPs: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8::/32")},
			RateLimit:  5},
		Secret: []byte("sealed first secret"),
	}
	r.writing(func(tx store.Tx) error { return tx.CreateCredential(ctx, k) })
	// Rolled, disabled and used: what the other calls write.
	k.PreviousSecret, k.PreviousExpiresAt = k.Secret, &expires
	k.Secret, k.Disabled = []byte("sealed second secret"), true
	k.Scopes.History, k.RateLimit = adcamp.AccessRead, 7
	k.AllowedIPs = append(k.AllowedIPs, netip.MustParsePrefix("::1/128"))
	r.writing(func(tx store.Tx) error { return tx.UpdateCredential(ctx, k) })
	used := at(60)
	k.LastUsedAt = &used
	r.writing(func(tx store.Tx) error { return tx.TouchCredentials(ctx, map[string]time.Time{k.ID: used}) })
	r.fixture("a credential (created, rolled, disabled, used)", k)
	r.reading(func(tx store.Tx) {
		got, err := tx.GetCredential(ctx, k.ID)
		r.read("GetCredential", got, k, err)
		list, err := tx.ListCredentials(ctx, a.ID)
		r.read("ListCredentials", list, []*store.Credential{k}, err)
		all, err := tx.AllCredentials(ctx)
		r.read("AllCredentials", all, []*store.Credential{k}, err)
	})
}

// change stores the record of a change of k, under g and c.
func (r *roundTrip) change(c *adcamp.Campaign, g *adcamp.AdGroup, k *adcamp.Keyword) {
	ctx := r.t.Context()
	id, occurred := adcamp.NewChangeID(at(9))
	ch := &adcamp.Change{
		ID: id, OccurredAt: occurred, AccountID: c.AccountID, Environment: c.Environment,
		EntityType: adcamp.EntityKeyword, EntityID: k.ID, CampaignID: c.ID, AdGroupID: g.ID, Operation: adcamp.OpUpdate,
		Changes: []adcamp.FieldChange{
			{Field: "text", Old: ptr("red shoes"), New: ptr(`rote "Schuhe" <é>`)},
			{Field: "bid", Old: ptr("1.00"), New: ptr("1.10")},
		},
		Actor:     adcamp.Actor{Type: adcamp.ActorAPIKey, ID: "ak_test_full"},
		RequestID: "req_1", IdempotencyKey: "idem-1", TransactionID: "txn_1", EventType: adcamp.EventKeywordUpdated,
	}
	r.fixture("a change record", ch)
	r.writing(func(tx store.Tx) error { return tx.AddChanges(ctx, []*adcamp.Change{ch}) })
	q := store.ChangeQuery{AccountID: c.AccountID, Environments: []adcamp.Environment{c.Environment}, Limit: 10}
	r.reading(func(tx store.Tx) {
		got, err := tx.ListChanges(ctx, q)
		r.read("ListChanges", got, []*adcamp.Change{ch}, err)
	})
	// Its event, which is the record (written without a payload).
	ev := &adcamp.Event{ID: adcamp.PrefixEvent + strings.TrimPrefix(ch.ID, adcamp.PrefixChange), AccountID: ch.AccountID,
		Environment: ch.Environment, Type: adcamp.EventKeywordUpdated, OccurredAt: ch.OccurredAt}
	r.writing(func(tx store.Tx) error { return tx.AddEvents(ctx, []*adcamp.Event{ev}) })
	tn := adcamp.Tenant{AccountID: c.AccountID, Environment: c.Environment}
	r.reading(func(tx store.Tx) {
		got, err := tx.ChangeEvents(ctx, store.EventQuery{Tenant: tn, Limit: 10})
		r.read("ChangeEvents", got, []*adcamp.Change{ch}, err)
	})
	// The tenant has an enabled endpoint (the round trip's webhooks'), so
	// TakeOutbox returns the record.
	r.writing(func(tx store.Tx) error {
		_, _, got, err := tx.TakeOutbox(ctx, 10)
		r.read("TakeOutbox's records", got, []*adcamp.Change{ch}, err)
		return nil
	})
}

func (r *roundTrip) record() {
	ctx := r.t.Context()
	rec := &store.RequestRecord{Scope: "sig:ak_test_full", Token: "token", RequestHash: []byte{1, 2, 3}, Status: 201,
		Header: []byte(`{"Location":"/x"}`), Body: []byte(`{"success":true}`), CreatedAt: at(10), ExpiresAt: at(610)}
	r.fixture("a request record", rec)
	r.writing(func(tx store.Tx) error {
		_, err := tx.SaveRecord(ctx, rec)
		return err
	})
	r.reading(func(tx store.Tx) {
		got, err := tx.GetRecord(ctx, rec.Scope, rec.Token, at(11))
		r.read("GetRecord", got, rec, err)
	})
}

// user stores a user with a password and two-step sign-in.
func (r *roundTrip) user() *store.User {
	ctx := r.t.Context()
	u := &store.User{User: adcamp.User{ID: adcamp.NewID(adcamp.PrefixUser, at(12)), Email: "ann@example.test", CreatedAt: at(12)}}
	r.writing(func(tx store.Tx) error { return tx.CreateUser(ctx, u) })
	u.PasswordHash, u.TOTPSecret, u.TOTPLastStep = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", []byte("sealed key"), 42
	r.writing(func(tx store.Tx) error { return tx.UpdateUser(ctx, u) })
	u.PasswordSet, u.TwoStep = true, true // what the store derives from them
	r.fixture("a user (with a password and two-step sign-in)", u)
	r.reading(func(tx store.Tx) {
		got, err := tx.GetUser(ctx, u.ID)
		r.read("GetUser", got, u, err)
		got, err = tx.GetUserByEmail(ctx, u.Email)
		r.read("GetUserByEmail", got, u, err)
	})
	return u
}

func (r *roundTrip) member(a *adcamp.Account, u *store.User) {
	ctx := r.t.Context()
	m := &adcamp.Member{AccountID: a.ID, User: u.User, Role: adcamp.RoleDeveloper, AddedAt: at(13)}
	r.fixture("a member", m)
	r.writing(func(tx store.Tx) error { return tx.CreateMember(ctx, m) })
	r.reading(func(tx store.Tx) {
		got, err := tx.GetMember(ctx, a.ID, u.ID)
		r.read("GetMember", got, m, err)
		list, err := tx.ListMembers(ctx, a.ID)
		r.read("ListMembers", list, []*adcamp.Member{m}, err)
		list, err = tx.ListMemberships(ctx, u.ID)
		r.read("ListMemberships", list, []*adcamp.Member{m}, err)
	})
}

func (r *roundTrip) session(u *store.User) {
	ctx := r.t.Context()
	s := &store.Session{Hash: hashOf("full session"), UserID: u.ID, CreatedAt: at(14), LastSeenAt: at(15)}
	r.fixture("a session", s)
	r.writing(func(tx store.Tx) error { return tx.CreateSession(ctx, s) })
	r.reading(func(tx store.Tx) {
		got, err := tx.GetSession(ctx, s.Hash)
		r.read("GetSession", got, s, err)
	})
}

func (r *roundTrip) token(u *store.User) {
	ctx := r.t.Context()
	k := &store.Token{Hash: hashOf("full token"), Purpose: store.TokenReveal, UserID: u.ID, Data: []byte("sealed"),
		CreatedAt: at(16), ExpiresAt: at(76)}
	r.fixture("a one-time token", k)
	r.writing(func(tx store.Tx) error { return tx.CreateToken(ctx, k) })
	r.reading(func(tx store.Tx) {
		got, err := tx.GetToken(ctx, k.Hash, k.Purpose, at(17))
		r.read("GetToken", got, k, err)
	})
	var got *store.Token
	err := r.db.Write(ctx, func(tx store.Tx) (err error) {
		got, err = tx.TakeToken(ctx, k.Hash, k.Purpose, at(17))
		return err
	})
	r.read("TakeToken", got, k, err)
}

// complete checks that every entity the store keeps was given a full
// fixture, and that every call returning one was read back through.
func (r *roundTrip) complete() {
	r.t.Helper()
	entities, readers := storedEntities()
	for _, typ := range entities {
		if !r.fixtures[typ] {
			r.t.Errorf("store.Tx keeps %s, which testEveryField stores no full fixture of: add one", typ)
		}
	}
	for _, call := range readers {
		if !r.reads[call] {
			r.t.Errorf("store.Tx's %s returns an entity, which testEveryField never reads back through it: add the read", call)
		}
	}
}

// storedEntities lists the entities of store.Tx: the structs of this
// module that its calls take or return by pointer (alone or in a slice),
// and the calls that return one. Structs passed by value (a tenant, a
// query, a key) are arguments, not rows.
func storedEntities() (entities []reflect.Type, readers []string) {
	tx := reflect.TypeFor[store.Tx]()
	seen := map[reflect.Type]bool{}
	for i := range tx.NumMethod() {
		m := tx.Method(i)
		for j := range m.Type.NumIn() {
			if e := entityType(m.Type.In(j)); e != nil && !seen[e] {
				seen[e] = true
				entities = append(entities, e)
			}
		}
		for j := range m.Type.NumOut() {
			if entityType(m.Type.Out(j)) != nil && !slices.Contains(readers, m.Name) {
				readers = append(readers, m.Name)
			}
		}
	}
	return entities, readers
}

// entityType is the struct of this module that typ points to (*T, or a
// slice of *T), or nil.
func entityType(typ reflect.Type) reflect.Type {
	if typ.Kind() == reflect.Slice {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Pointer {
		return nil
	}
	typ = typ.Elem()
	if typ.Kind() != reflect.Struct || !strings.HasPrefix(typ.PkgPath(), "github.com/adcamp/adcamp") {
		return nil
	}
	return typ
}

// zeroFields lists the fields of v left at the zero value, by path
// ("User.TwoStep", "Changes[1].Old"). A value with an IsZero method (a
// time, a date) is zero as it says; a struct's exported fields are looked
// into, a pointer followed (nil is zero), and a slice or map must have an
// element, each element looked into.
func zeroFields(v any) []string {
	var out []string
	walkZero(reflect.ValueOf(v), "", &out)
	return out
}

func walkZero(v reflect.Value, path string, out *[]string) {
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok && v.Kind() != reflect.Pointer {
		if z.IsZero() {
			*out = append(*out, path)
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			*out = append(*out, path)
			return
		}
		walkZero(v.Elem(), path, out)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				walkZero(v.Field(i), fieldPath(path, f), out)
			}
		}
	case reflect.Slice, reflect.Array, reflect.Map:
		if v.Len() == 0 {
			*out = append(*out, path)
		} else if v.Kind() != reflect.Map && v.Type().Elem().Kind() != reflect.Uint8 {
			for i := range v.Len() {
				walkZero(v.Index(i), fmt.Sprintf("%s[%d]", path, i), out)
			}
		}
	default:
		if v.IsZero() {
			*out = append(*out, path)
		}
	}
}

// fieldPath names field f of the value at path; an embedded struct's
// fields are named as if they were the outer struct's.
func fieldPath(path string, f reflect.StructField) string {
	switch {
	case f.Anonymous:
		return path
	case path == "":
		return f.Name
	}
	return path + "." + f.Name
}
