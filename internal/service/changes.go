package service

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// ListChanges returns one page of the tenant's change records, newest
// first, and the cursor of the next page ("" on the last). Records of
// deleted entities stay readable, so nothing here requires an entity to
// exist: an id that names nothing of the tenant's simply has no records.
//
// The records of the account itself (members: Environment "") are read
// with those of either environment, unless the filter excludes them (an
// entity type other than member, a campaign or an ad group). A tenant
// without an environment reads every environment's records (the
// console's account-wide history).
func (s *Ads) ListChanges(ctx context.Context, t adcamp.Tenant, f adcamp.ChangeFilter) ([]*adcamp.Change, string, error) {
	q, err := s.changeQuery(t, f)
	if err != nil {
		return nil, "", err
	}
	var page []*adcamp.Change
	if OriginOf(ctx).Actor.Type == adcamp.ActorUser {
		// A console user must be a member of the account (any role reads).
		err = s.read(ctx, func(tx store.Tx) error {
			if _, err := s.authorize(ctx, tx, t.AccountID, actRead, adcamp.NotFound("account", t.AccountID)); err != nil {
				return err
			}
			if len(q.Environments) > 0 {
				page, err = tx.ListChanges(ctx, q)
			}
			return err
		})
	} else if len(q.Environments) > 0 {
		err = s.readOne(ctx, func(tx store.Tx) error {
			page, err = tx.ListChanges(ctx, q)
			return err
		})
	}
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(page) == q.Limit {
		page = page[:q.Limit-1]
		next = page[len(page)-1].ID
	}
	return page, next, nil
}

// ActorNames returns what to show for each actor of records: a console
// user's email (the user may have left the account, or been deleted: then
// their id), and for other actors their id (the API key, the operator's
// name, "adcamp"). The console shows "owner@example.com (console)".
func (s *Ads) ActorNames(ctx context.Context, records []*adcamp.Change) (map[adcamp.Actor]string, error) {
	names := make(map[adcamp.Actor]string)
	err := s.read(ctx, func(tx store.Tx) error {
		for _, c := range records {
			a := c.Actor
			if _, ok := names[a]; ok {
				continue
			}
			names[a] = a.ID
			if a.Type != adcamp.ActorUser {
				continue
			}
			u, err := tx.GetUser(ctx, a.ID)
			if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
				continue
			}
			if err != nil {
				return err
			}
			names[a] = u.Email
		}
		return nil
	})
	return names, err
}

// EntityChanges is ListChanges for one entity: a keyword's records; an ad
// group's and its keywords'; a campaign's and everything under it. The
// entity need not exist any more; an id of the wrong kind is NOT_FOUND.
func (s *Ads) EntityChanges(ctx context.Context, t adcamp.Tenant, typ adcamp.EntityType, id string, f adcamp.ChangeFilter) ([]*adcamp.Change, string, error) {
	switch {
	case typ == adcamp.EntityCampaign && adcamp.ValidID(adcamp.PrefixCampaign, id):
		f.CampaignID = id
	case typ == adcamp.EntityAdGroup && adcamp.ValidID(adcamp.PrefixAdGroup, id):
		f.AdGroupID = id
	case typ == adcamp.EntityKeyword && adcamp.ValidID(adcamp.PrefixKeyword, id):
		f.EntityID = id
	default:
		return nil, "", adcamp.NotFound(strings.ReplaceAll(string(typ), "_", " "), id)
	}
	return s.ListChanges(ctx, t, f)
}

// changeQuery checks f and turns it into a store query (Limit one more
// than the page, to tell whether another follows).
func (s *core) changeQuery(t adcamp.Tenant, f adcamp.ChangeFilter) (store.ChangeQuery, error) {
	var issues adcamp.Issues
	if f.EntityType != "" && !slices.Contains(adcamp.EntityTypes, f.EntityType) {
		issues.Add("entity_type", "must be one of campaign, ad_group, keyword, api_key, member, account, negative_keyword, negative_keyword_list, webhook_endpoint")
	}
	if f.ActorType != "" && !slices.Contains(adcamp.ActorTypes, f.ActorType) {
		issues.Add("actor_type", "must be one of api_key, user, admin, system")
	}
	if f.Limit == 0 {
		f.Limit = adcamp.DefaultChangeLimit
	}
	if f.Limit < 1 || f.Limit > adcamp.MaxChangeLimit {
		issues.Add("limit", "must be an integer from 1 to %d", adcamp.MaxChangeLimit)
	}
	if f.Cursor != "" && !adcamp.ValidID(adcamp.PrefixChange, f.Cursor) {
		issues.Add("cursor", "is not a cursor this list gave (next_cursor)")
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		issues.Add("until", "must be after since")
	}
	if err := issues.Err(); err != nil {
		return store.ChangeQuery{}, err
	}
	q := store.ChangeQuery{
		AccountID: t.AccountID, EntityType: f.EntityType, EntityID: f.EntityID, CampaignID: f.CampaignID,
		AdGroupID: f.AdGroupID, ActorType: f.ActorType, ActorID: f.ActorID, Before: f.Cursor, Limit: f.Limit + 1,
	}
	if !f.Since.IsZero() {
		q.From = adcamp.ChangeIDBound(f.Since)
	}
	if !f.Until.IsZero() {
		if b := adcamp.ChangeIDBound(f.Until); q.Before == "" || b < q.Before {
			q.Before = b
		}
	}
	envs := []adcamp.Environment{t.Environment}
	if t.Environment == "" {
		envs = []adcamp.Environment{adcamp.Production, adcamp.Sandbox}
	}
	switch {
	case f.EntityType == adcamp.EntityMember || f.EntityType == adcamp.EntityAccount:
		if f.CampaignID == "" && f.AdGroupID == "" {
			q.Environments = []adcamp.Environment{""}
		}
	case f.EntityType != "" || f.CampaignID != "" || f.AdGroupID != "":
		q.Environments = envs
	default:
		q.Environments = append(envs, "")
	}
	return q, nil
}

// txnKey carries the id of a request's transaction (see Once): every
// record the request writes shares it.
type txnKey struct{}

// transactionID returns the id of ctx's request transaction, or a new one
// for a service call that runs its own.
func (s *core) transactionID(ctx context.Context) string {
	if id, ok := ctx.Value(txnKey{}).(string); ok {
		return id
	}
	return adcamp.NewID(adcamp.PrefixTransaction, s.Now())
}

// history collects the records of one service call, to write with its
// change.
type history struct {
	ids    *adcamp.ChangeIDs
	origin Origin
	txn    string
	now    time.Time
	list   []*adcamp.Change
}

// newHistory starts the records of a call made with ctx, at now.
func (s *core) newHistory(ctx context.Context, now time.Time) *history {
	return &history{ids: &s.changeIDs, origin: OriginOf(ctx), txn: s.transactionID(ctx), now: now}
}

// add records a change of an entity. A create lists every field's
// initial value, a delete every last one; an update lists the fields it
// changed, and is not recorded if it changed none.
func (h *history) add(account string, env adcamp.Environment, typ adcamp.EntityType, id, campaign, adGroup string, op adcamp.Operation, fields []adcamp.FieldChange) {
	if op == adcamp.OpUpdate {
		fields = slices.DeleteFunc(fields, func(f adcamp.FieldChange) bool { return sameValue(f.Old, f.New) })
		if len(fields) == 0 {
			return
		}
	}
	cid, at := h.ids.New(h.now)
	h.list = append(h.list, &adcamp.Change{
		ID: cid, OccurredAt: at, AccountID: account, Environment: env, EntityType: typ, EntityID: id,
		CampaignID: campaign, AdGroupID: adGroup, Operation: op, Changes: fields, Actor: h.origin.Actor,
		RequestID: h.origin.RequestID, IdempotencyKey: h.origin.IdempotencyKey, TransactionID: h.txn,
	})
}

// write stores the records in tx, with the webhook events they make
// (webhook_events.go).
func (h *history) write(ctx context.Context, tx store.Tx) error {
	if len(h.list) == 0 {
		return nil
	}
	var evs []*adcamp.Event
	if !eventsOff {
		evs = eventsOf(h.list) // marks the records that are their events
	}
	if historyWrites {
		if err := tx.AddChanges(ctx, h.list); err != nil {
			return err
		}
	}
	if len(evs) > 0 {
		if err := tx.AddEvents(ctx, evs); err != nil {
			return err
		}
	}
	return appendFeedOf(ctx, tx, h.list, h.now)
}

// Field values as the API writes them on the entity, as text (nil for
// null).

func text(s string) *string { return &s }

func textMoney(m adcamp.Money) *string { return text(m.String()) }

func textMoneyPtr(m *adcamp.Money) *string {
	if m == nil {
		return nil
	}
	return textMoney(*m)
}

func textDate(d adcamp.Date) *string {
	if d.IsZero() {
		return nil
	}
	return text(d.String())
}

func textInt(n *int64) *string {
	if n == nil {
		return nil
	}
	return text(strconv.FormatInt(*n, 10))
}

func textBool(b bool) *string { return text(strconv.FormatBool(b)) }

func textTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	return text(t.UTC().Format(time.RFC3339))
}

// textOrNull is s, or nil for "" (a field whose empty value the API
// writes null).
func textOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return text(s)
}

// sameValue reports whether two values are alike.
func sameValue(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// diff builds the field changes of an operation from the values of the
// entity before (nil for a create) and after (nil for a delete).
func diff(op adcamp.Operation, names []string, before, after []*string) []adcamp.FieldChange {
	out := make([]adcamp.FieldChange, 0, len(names))
	for i, n := range names {
		f := adcamp.FieldChange{Field: n}
		if op != adcamp.OpCreate {
			f.Old = before[i]
		}
		if op != adcamp.OpDelete {
			f.New = after[i]
		}
		out = append(out, f)
	}
	return out
}

var campaignFields = []string{"name", "budget_daily", "marketplace", "channel_account_id", "start_date", "end_date", "status", "notes"}

// campaignValues are a campaign's recorded fields, with the status the
// API shows on today.
func campaignValues(c *adcamp.Campaign, status adcamp.Status) []*string {
	if c == nil {
		return nil
	}
	return []*string{text(c.Name), textMoney(c.BudgetDaily), text(c.Marketplace), textInt(c.ChannelAccountID),
		textDate(c.StartDate), textDate(c.EndDate), text(string(status)), textOrNull(c.Notes)}
}

// recordCampaign records a campaign's change: before is nil for a create,
// after nil for a delete.
func (s *core) recordCampaign(h *history, op adcamp.Operation, before, after *adcamp.Campaign) {
	c := cmpOrPtr(after, before)
	var bv, av []*string
	if before != nil {
		bv = campaignValues(before, before.EffectiveStatus(s.today()))
	}
	if after != nil {
		av = campaignValues(after, after.EffectiveStatus(s.today()))
	}
	h.add(c.AccountID, c.Environment, adcamp.EntityCampaign, c.ID, c.ID, "", op, diff(op, campaignFields, bv, av))
}

var adGroupFields = []string{"name", "default_bid", "status"}

func adGroupValues(g *adcamp.AdGroup) []*string {
	if g == nil {
		return nil
	}
	return []*string{text(g.Name), textMoney(g.DefaultBid), text(string(g.Status))}
}

func recordAdGroup(h *history, op adcamp.Operation, before, after *adcamp.AdGroup) {
	g := cmpOrPtr(after, before)
	h.add(g.AccountID, g.Environment, adcamp.EntityAdGroup, g.ID, g.CampaignID, g.ID, op,
		diff(op, adGroupFields, adGroupValues(before), adGroupValues(after)))
}

var keywordFields = []string{"text", "match_type", "bid", "status"}

func keywordValues(k *adcamp.Keyword) []*string {
	if k == nil {
		return nil
	}
	return []*string{text(k.Text), text(string(k.MatchType)), textMoneyPtr(k.Bid), text(string(k.Status))}
}

// recordKeyword records a keyword's change; campaignID is its ad group's
// campaign.
func recordKeyword(h *history, op adcamp.Operation, campaignID string, before, after *adcamp.Keyword) {
	k := cmpOrPtr(after, before)
	h.add(k.AccountID, k.Environment, adcamp.EntityKeyword, k.ID, campaignID, k.AdGroupID, op,
		diff(op, keywordFields, keywordValues(before), keywordValues(after)))
}

var keyFields = []string{"name", "disabled", "previous_secret_expires_at", "scopes", "expires_at", "allowed_ips", "rate_limit"}

func keyValues(k *adcamp.APIKey) []*string {
	if k == nil {
		return nil
	}
	return []*string{textOrNull(k.Name), textBool(k.Disabled), textTime(k.PreviousExpiresAt),
		text(k.Scopes.String()), textTime(k.ExpiresAt), textOrNull(prefixList(k.AllowedIPs)), text(strconv.Itoa(k.RateLimit))}
}

// recordKey records a credential's change. A roll is an update whose
// fields include "secret" (old and new "rolled" and "issued": a secret is
// never recorded), with the old secret's expiry.
func recordKey(h *history, op adcamp.Operation, before, after *adcamp.APIKey, rolled bool) {
	k := cmpOrPtr(after, before)
	fields := diff(op, keyFields, keyValues(before), keyValues(after))
	if rolled {
		fields = append(fields, adcamp.FieldChange{Field: "secret", Old: text("replaced"), New: text("issued")})
	}
	h.add(k.AccountID, k.Environment, adcamp.EntityAPIKey, k.ID, "", "", op, fields)
}

var memberFields = []string{"email", "role"}

func memberValues(m *adcamp.Member) []*string {
	if m == nil {
		return nil
	}
	return []*string{text(m.User.Email), text(string(m.Role))}
}

// recordMember records a change of a member: the entity is the user, in
// no environment.
func recordMember(h *history, op adcamp.Operation, before, after *adcamp.Member) {
	m := cmpOrPtr(after, before)
	fields := diff(op, memberFields, memberValues(before), memberValues(after))
	if op == adcamp.OpUpdate { // the email names the member; it does not change here
		fields = slices.DeleteFunc(fields, func(f adcamp.FieldChange) bool { return f.Field == "email" })
	}
	h.add(m.AccountID, "", adcamp.EntityMember, m.User.ID, "", "", op, fields)
}

// recordTwoStep records that a member's two-step sign-in was turned on
// or off by an operator (a user's own settings are theirs, not their
// accounts' changes).
func recordTwoStep(h *history, m *adcamp.Member, before, after bool) {
	h.add(m.AccountID, "", adcamp.EntityMember, m.User.ID, "", "", adcamp.OpUpdate,
		[]adcamp.FieldChange{{Field: "two_step", Old: textBool(before), New: textBool(after)}})
}

// cmpOrPtr returns a if it is not nil, else b.
func cmpOrPtr[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

// recordSubtree records the deletes of what goes with a campaign or an ad
// group: keywords first, then ad groups, so that the entity deleted lists
// above them (newest first).
func recordSubtree(h *history, campaignID string, groups []*adcamp.AdGroup, keywords []*adcamp.Keyword) {
	for _, k := range keywords {
		recordKeyword(h, adcamp.OpDelete, campaignID, k, nil)
	}
	for _, g := range groups {
		recordAdGroup(h, adcamp.OpDelete, g, nil)
	}
}

// DefaultHistoryRetention is how long adcamp serve keeps change records
// unless told otherwise (--history-retention).
const DefaultHistoryRetention = 400 * 24 * time.Hour

// Purging bounds: each transaction deletes at most purgeBatch records, so
// that the writer is never held long (SQLite has one, and API writes queue
// behind it), and one pass at most purgeBatches of them; what is left
// waits for the next pass, a few seconds later.
const (
	purgeBatch   = 500
	purgeBatches = 20
)

// PurgeChanges deletes the change records older than the retention period,
// in small transactions, and says how many it deleted. It does nothing
// when the retention is zero (keep everything).
func (s *Service) PurgeChanges(ctx context.Context) (int64, error) {
	if s.retention <= 0 {
		return 0, nil
	}
	before := adcamp.ChangeIDBound(s.Now().Add(-s.retention))
	var total int64
	for range purgeBatches {
		var n int64
		err := s.store.Write(ctx, func(tx store.Tx) error {
			var err error
			n, err = tx.PurgeChanges(ctx, before, purgeBatch)
			return err
		})
		total += n
		if err != nil || n < purgeBatch || ctx.Err() != nil {
			return total, err
		}
	}
	return total, nil
}

// purgeChanges logs what PurgeChanges did.
func (s *Service) purgeChanges(ctx context.Context) {
	if n, err := s.PurgeChanges(ctx); err != nil {
		s.log.Error("purge change records past the retention period", "err", err)
	} else if n > 0 {
		s.log.Debug("purged change records past the retention period", "n", n)
	}
}
