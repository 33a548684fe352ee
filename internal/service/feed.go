package service

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The serving feed (docs/operator.md): what the marketplace's ad server
// serves, per environment, as a snapshot and the changes after it.
//
// Every change that can change what is servable appends, in its own
// transaction, rows naming what it touched to a journal (store.FeedTx):
// the history's records of keywords, ad groups, campaigns and accounts
// (appendFeedOf, from history.write, so that no mutation can forget it),
// the campaigns whose budget a delivery exhausted or restored, and the
// accounts whose day turned (FeedTick). A reader of the changes reads, in
// one snapshot, the rows after its position and answers each touched
// keyword's current state: an upsert if it is servable, a removal if not.
// So a snapshot at P followed by the changes from P to Q is the snapshot
// at Q, whatever happened in between.

// DefaultFeedRetention is how long the feed's journal is kept: a
// position older than that answers ErrPositionExpired.
const DefaultFeedRetention = 168 * time.Hour

// ErrPositionExpired answers a position older than the feed's retention.
var ErrPositionExpired = errors.New("the position is older than the serving feed keeps: take a new snapshot (GET /operator/v1/serving/snapshot) and follow the changes from its position")

// Settings of the feed kept in the store.
const (
	settingFeedClock  = "serving_feed.clock"  // Unix microseconds of the last tick
	settingFeedPurged = "serving_feed.purged" // the position below which rows are gone
)

// feedState is a Service's part of the feed.
type feedState struct {
	retention time.Duration
}

// SetFeedRetention sets how long the feed's journal is kept (0: the
// default).
func (s *Service) SetFeedRetention(d time.Duration) { s.feed.retention = d }

func (s *core) feedRetention() time.Duration {
	if s.feed.retention > 0 {
		return s.feed.retention
	}
	return DefaultFeedRetention
}

// feedWake wakes the long-polls of this process when a transaction
// appends to the feed (before its commit: a woken reader that finds
// nothing yet waits again, and polls besides).
var feedWake = struct {
	sync.Mutex
	ch chan struct{}
}{ch: make(chan struct{})}

func wakeFeed() {
	feedWake.Lock()
	close(feedWake.ch)
	feedWake.ch = make(chan struct{})
	feedWake.Unlock()
}

func feedWoken() <-chan struct{} {
	feedWake.Lock()
	defer feedWake.Unlock()
	return feedWake.ch
}

// appendFeedOf appends the feed rows of a transaction's change records:
// one row per keyword, ad group, campaign or account changed, and per
// negative keyword changed; attaching or detaching a list, or deleting a
// campaign (its attachments go with it), names the campaign's lists. A
// change of negatives never names keywords: the feed carries negatives
// and attachments as records of their own, so what it costs here, and
// in the answers, does not grow with the keywords they apply to.
func appendFeedOf(ctx context.Context, tx store.Tx, changes []*adcamp.Change, now time.Time) error {
	var rows []store.FeedRow
	seen := map[store.FeedRow]bool{}
	add := func(env adcamp.Environment, kind, id string) {
		r := store.FeedRow{Environment: env, Kind: kind, EntityID: id}
		if !seen[r] {
			seen[r] = true
			rows = append(rows, r)
		}
	}
	for _, c := range changes {
		switch c.EntityType {
		case adcamp.EntityKeyword:
			add(c.Environment, store.FeedKeyword, c.EntityID)
		case adcamp.EntityAdGroup:
			if c.Operation != adcamp.OpCreate { // see below
				add(c.Environment, store.FeedAdGroup, c.EntityID)
			}
		case adcamp.EntityCampaign:
			// A campaign's or an ad group's row stands for the keywords
			// under it, and a new one has none: the keywords created with
			// it, in the same transaction or later, name themselves. So a
			// create needs no row (most campaign writes are creates).
			if c.Operation != adcamp.OpCreate {
				add(c.Environment, store.FeedCampaign, c.EntityID)
			}
			if c.Operation == adcamp.OpDelete {
				add(c.Environment, store.FeedLists, c.EntityID)
			}
		case adcamp.EntityNegativeKeyword:
			add(c.Environment, store.FeedNegative, c.EntityID)
		case adcamp.EntityNegativeList:
			if c.CampaignID != "" { // attached or detached (a list's own fields serve nothing)
				add(c.Environment, store.FeedLists, c.CampaignID)
			}
		case adcamp.EntityAccount:
			for _, env := range []adcamp.Environment{adcamp.Production, adcamp.Sandbox} {
				add(env, store.FeedAccount, c.EntityID)
			}
		}
	}
	if len(rows) == 0 {
		return nil
	}
	defer wakeFeed()
	return tx.AppendFeed(ctx, rows, now)
}

// FeedKeyword is a servable keyword as the feed shows it.
type FeedKeyword struct {
	ID               string
	Text             string
	MatchType        adcamp.MatchType
	Bid              adcamp.Money // the keyword's, or its ad group's default
	AdGroupID        string
	CampaignID       string
	AccountID        string
	Marketplace      string
	ChannelAccountID *int64
	BudgetDaily      adcamp.Money
	StartDate        adcamp.Date
	EndDate          adcamp.Date
}

// FeedNegative is an active negative keyword as the feed shows it. It
// applies to the keywords of its scope: an ad group's, a campaign's, or
// those of the campaigns a list is attached to (FeedLists).
type FeedNegative struct {
	ID        string
	Scope     adcamp.NegativeLevel
	ScopeID   string
	Text      string
	MatchType adcamp.MatchType
}

func feedNegative(n *store.ServingNegative) *FeedNegative {
	f := &FeedNegative{ID: n.ID, Scope: adcamp.LevelCampaign, ScopeID: n.CampaignID, Text: n.Text, MatchType: n.MatchType}
	switch {
	case n.ListID != "":
		f.Scope, f.ScopeID = adcamp.LevelList, n.ListID
	case n.AdGroupID != "":
		f.Scope, f.ScopeID = adcamp.LevelAdGroup, n.AdGroupID
	}
	return f
}

// FeedLists is the shared lists attached to a campaign (at least one).
type FeedLists struct {
	CampaignID string
	ListIDs    []string
}

// FeedChange is one record of the feed: an upsert (Keyword, Negative or
// Lists set) or a removal (KeywordID, NegativeID or ListsOf set).
type FeedChange struct {
	Keyword    *FeedKeyword
	KeywordID  string
	Negative   *FeedNegative
	NegativeID string
	Lists      *FeedLists
	ListsOf    string // a campaign that has no list attached any more
}

// FormatPosition and ParsePosition write and read a feed position.
func FormatPosition(p int64) string { return strconv.FormatInt(p, 10) }

// ParsePosition reads a position written by FormatPosition.
func ParsePosition(s string) (int64, bool) {
	p, err := strconv.ParseInt(s, 10, 64)
	return p, err == nil && p >= 0
}

// servability decides, for one read, which keywords are servable now.
type servability struct {
	now   time.Time
	hours map[string][]store.CampaignHourCost // by campaign
	spend map[string]adcamp.Money             // today's, by campaign, once computed
}

// newServability reads what deciding servability takes: the spend of
// the campaigns named, or of every campaign of env when campaignIDs is nil.
func (s *core) newServability(ctx context.Context, tx store.Tx, env adcamp.Environment, campaignIDs []string) (*servability, error) {
	now := s.Now()
	v := &servability{now: now, hours: map[string][]store.CampaignHourCost{}, spend: map[string]adcamp.Money{}}
	if campaignIDs != nil && len(campaignIDs) == 0 {
		return v, nil
	}
	// A day is at most 26 hours long, and starts at most 26 hours ago.
	costs, err := tx.RecentSpend(ctx, env, now.Add(-27*time.Hour), campaignIDs)
	if err != nil {
		return nil, err
	}
	for _, c := range costs {
		v.hours[c.CampaignID] = append(v.hours[c.CampaignID], c)
	}
	return v, nil
}

// servable reports whether k is served now.
func (v *servability) servable(k *store.ServingKeyword) bool {
	if k.Status != adcamp.StatusActive || k.AdGroupStatus != adcamp.StatusActive {
		return false
	}
	c := &k.Campaign
	day, from, to := accountDay(k.AccountTimeZone, v.now)
	spend, ok := v.spend[c.ID]
	if !ok {
		for _, h := range v.hours[c.ID] {
			if !h.Hour.Before(from) && h.Hour.Before(to) {
				spend += h.Cost
			}
		}
		v.spend[c.ID] = spend
	}
	return adcamp.ServingOf(c, day, spend) == adcamp.ServingServing
}

func feedKeyword(k *store.ServingKeyword) *FeedKeyword {
	bid := k.DefaultBid
	if k.Bid != nil {
		bid = *k.Bid
	}
	c := &k.Campaign
	return &FeedKeyword{ID: k.ID, Text: k.Text, MatchType: k.MatchType, Bid: bid, AdGroupID: k.AdGroupID,
		CampaignID: c.ID, AccountID: c.AccountID, Marketplace: c.Marketplace, ChannelAccountID: c.ChannelAccountID,
		BudgetDaily: c.BudgetDaily, StartDate: c.StartDate, EndDate: c.EndDate}
}

// Snapshot calls fn with every record of env's feed, from one
// consistent view: the active negative keywords, the campaigns' attached
// lists and the servable keywords, as upserts. It returns the position
// they reflect. fn's change may not be kept after it returns.
func (s *Operator) Snapshot(ctx context.Context, env adcamp.Environment, fn func(FeedChange) error) (string, error) {
	var pos int64
	err := s.store.Read(ctx, func(tx store.Tx) error {
		var err error
		if pos, err = tx.FeedHead(ctx); err != nil {
			return err
		}
		v, err := s.newServability(ctx, tx, env, nil)
		if err != nil {
			return err
		}
		err = tx.ScanServingNegatives(ctx, env, nil, true, func(n *store.ServingNegative) error {
			return fn(FeedChange{Negative: feedNegative(n)})
		})
		if err != nil {
			return err
		}
		if err := scanLists(ctx, tx, env, nil, true, fn); err != nil {
			return err
		}
		return tx.ScanServing(ctx, env, store.FeedScope{All: true}, func(k *store.ServingKeyword) error {
			if !v.servable(k) {
				return nil
			}
			return fn(FeedChange{Keyword: feedKeyword(k)})
		})
	})
	return FormatPosition(pos), err
}

// scanLists calls fn with the attached lists of each campaign that has
// some (of campaignIDs, unless all), one campaign at a time.
func scanLists(ctx context.Context, tx store.Tx, env adcamp.Environment, campaignIDs []string, all bool, fn func(FeedChange) error) error {
	var cur *FeedLists
	err := tx.ScanListAttachments(ctx, env, campaignIDs, all, func(a store.ListAttachment) error {
		if cur != nil && cur.CampaignID != a.CampaignID {
			if err := fn(FeedChange{Lists: cur}); err != nil {
				return err
			}
			cur = nil
		}
		if cur == nil {
			cur = &FeedLists{CampaignID: a.CampaignID}
		}
		cur.ListIDs = append(cur.ListIDs, a.ListID)
		return nil
	})
	if err != nil || cur == nil {
		return err
	}
	return fn(FeedChange{Lists: cur})
}

// DefaultFeedLimit and MaxFeedLimit bound the records of one answer of
// changes.
const (
	DefaultFeedLimit = 1000
	MaxFeedLimit     = 10000
)

// feedPosition is where a reader of the feed stands: after the journal's
// position after; or, within the stretch of the journal from after to
// until (what ReadFeed returned for after), past the records whose keys
// are at most key (an answer cut at its limit). The journal's stretch is
// read again as a whole for each page, and its records answered in their
// state at that read, in key order: a record changed after the first
// read is in a later stretch too, so it is answered again after its
// change.
type feedPosition struct {
	after, until int64
	key          string
}

func (p feedPosition) String() string {
	if p.key == "" {
		return FormatPosition(p.after)
	}
	return FormatPosition(p.after) + "-" + FormatPosition(p.until) + "-" + p.key
}

func parseFeedPosition(s string) (feedPosition, bool) {
	a, rest, paged := strings.Cut(s, "-")
	after, ok := ParsePosition(a)
	if !ok || !paged {
		return feedPosition{after: after}, ok
	}
	u, key, ok := strings.Cut(rest, "-")
	until, ok2 := ParsePosition(u)
	if !ok || !ok2 || key == "" || until <= after {
		return feedPosition{}, false
	}
	return feedPosition{after: after, until: until, key: key}, true
}

// The keys of the records of one answer: negatives, then lists, then
// keywords, each in id order.
const (
	keyNegative = "1"
	keyLists    = "2"
	keyKeyword  = "3"
)

type keyedChange struct {
	key string
	FeedChange
}

// Changes calls fn with the changes of env after position after, from
// one consistent view, at most limit of them (0: DefaultFeedLimit): each
// record touched since, in its current state. It returns the position
// they bring the reader to (within a stretch of the journal when the
// limit cut it), and whether there were any. A position older than the
// retention is ErrPositionExpired.
func (s *Operator) Changes(ctx context.Context, env adcamp.Environment, after string, limit int, fn func(FeedChange) error) (string, bool, error) {
	p, ok := parseFeedPosition(after)
	if !ok {
		var issues adcamp.Issues
		issues.Add("after", "must be a position from a snapshot or an earlier answer of changes")
		return "", false, issues.Err()
	}
	if limit <= 0 {
		limit = DefaultFeedLimit
	}
	var next feedPosition
	any := false
	err := s.store.Read(ctx, func(tx store.Tx) error {
		any = false
		if purged, err := tx.GetSetting(ctx, settingFeedPurged); err == nil {
			if through, _ := strconv.ParseInt(string(purged), 10, 64); p.after < through {
				return ErrPositionExpired
			}
		} else if adcamp.ErrorCode(err) != adcamp.CodeNotFound {
			return err
		}
		rows, n, err := tx.ReadFeed(ctx, env, p.after, p.until)
		if err != nil {
			return err
		}
		next = feedPosition{after: n}
		if len(rows) == 0 {
			return nil
		}
		changes, err := s.expandFeed(ctx, tx, env, rows)
		if err != nil {
			return err
		}
		i, _ := slices.BinarySearchFunc(changes, p.key, func(c keyedChange, k string) int { return strings.Compare(c.key, k) })
		if i < len(changes) && changes[i].key == p.key {
			i++
		}
		changes = changes[i:]
		if len(changes) > limit {
			next = feedPosition{after: p.after, until: n, key: changes[limit-1].key}
			changes = changes[:limit]
		}
		for _, c := range changes {
			any = true
			if err := fn(c.FeedChange); err != nil {
				return err
			}
		}
		return nil
	})
	return next.String(), any, err
}

// expandFeed returns the records that rows touched, each in its current
// state, in key order.
func (s *core) expandFeed(ctx context.Context, tx store.Tx, env adcamp.Environment, rows []store.FeedRow) ([]keyedChange, error) {
	var scope store.FeedScope
	var negatives, campaigns []string
	seen := map[store.FeedRow]bool{}
	for _, r := range rows {
		if seen[r] {
			continue
		}
		seen[r] = true
		switch r.Kind {
		case store.FeedKeyword:
			scope.KeywordIDs = append(scope.KeywordIDs, r.EntityID)
		case store.FeedAdGroup:
			scope.AdGroupIDs = append(scope.AdGroupIDs, r.EntityID)
		case store.FeedCampaign:
			scope.CampaignIDs = append(scope.CampaignIDs, r.EntityID)
		case store.FeedAccount:
			scope.AccountIDs = append(scope.AccountIDs, r.EntityID)
		case store.FeedNegative:
			negatives = append(negatives, r.EntityID)
		case store.FeedLists:
			campaigns = append(campaigns, r.EntityID)
		}
	}
	var out []keyedChange
	// Negatives and lists named are removed unless found.
	found := map[string]bool{}
	err := tx.ScanServingNegatives(ctx, env, negatives, false, func(n *store.ServingNegative) error {
		found[n.ID] = true
		out = append(out, keyedChange{keyNegative + n.ID, FeedChange{Negative: feedNegative(n)}})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, id := range negatives {
		if !found[id] {
			out = append(out, keyedChange{keyNegative + id, FeedChange{NegativeID: id}})
		}
	}
	err = scanLists(ctx, tx, env, campaigns, false, func(c FeedChange) error {
		found[c.Lists.CampaignID] = true
		out = append(out, keyedChange{keyLists + c.Lists.CampaignID, c})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, id := range campaigns {
		if !found[id] {
			out = append(out, keyedChange{keyLists + id, FeedChange{ListsOf: id}})
		}
	}
	// Keywords named are removed unless found servable. Those found are
	// read first, then the spend of their campaigns: only those (an
	// environment's whole spend was read at every answer, which made a
	// long-poll under a stream of changes cost the API a tenth of its
	// requests; bench/README.md, FOLLOW=1).
	answered := map[string]bool{}
	var keywords []store.ServingKeyword
	var spent []string // campaigns whose spend decides
	spentSeen := map[string]bool{}
	err = tx.ScanServing(ctx, env, scope, func(k *store.ServingKeyword) error {
		if answered[k.ID] {
			return nil
		}
		answered[k.ID] = true
		keywords = append(keywords, *k)
		if k.Status == adcamp.StatusActive && k.AdGroupStatus == adcamp.StatusActive && !spentSeen[k.Campaign.ID] {
			spentSeen[k.Campaign.ID] = true
			spent = append(spent, k.Campaign.ID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if spent == nil {
		spent = []string{} // none: not the environment's every campaign
	}
	v, err := s.newServability(ctx, tx, env, spent)
	if err != nil {
		return nil, err
	}
	for i := range keywords {
		k := &keywords[i]
		c := FeedChange{KeywordID: k.ID}
		if v.servable(k) {
			c = FeedChange{Keyword: feedKeyword(k)}
		}
		out = append(out, keyedChange{keyKeyword + k.ID, c})
	}
	for _, id := range scope.KeywordIDs {
		if !answered[id] {
			answered[id] = true
			out = append(out, keyedChange{keyKeyword + id, FeedChange{KeywordID: id}})
		}
	}
	slices.SortFunc(out, func(a, b keyedChange) int { return strings.Compare(a.key, b.key) })
	return out, nil
}

// WaitChanges is Changes that, while there are none, waits up to wait
// for some: woken by this process's changes, and polling for those of
// others every pollEvery.
func (s *Operator) WaitChanges(ctx context.Context, env adcamp.Environment, after string, limit int, wait time.Duration, fn func(FeedChange) error) (string, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	var fastUntil time.Time
	for {
		woken := feedWoken()
		read := time.Now()
		pos, any, err := s.Changes(ctx, env, after, limit, fn)
		if err != nil || any || wait <= 0 {
			return pos, err
		}
		after = pos
		// A wake comes as a change is appended, before its commit: look
		// again often for a moment after one, until the commit shows.
		every := pollEvery
		if time.Now().Before(fastUntil) {
			every = pollAfterWake
		}
		select {
		case <-woken:
			fastUntil = time.Now().Add(time.Second)
			// Under a stream of changes that serve nothing (campaigns
			// without keywords, say) a wake comes every few hundred
			// microseconds: read at most every pollAfterWake, or the
			// reader takes the API's share (bench/README.md, FOLLOW=1).
			if d := pollAfterWake - time.Since(read); d > 0 {
				select {
				case <-time.After(d):
				case <-deadline.C:
					return after, nil
				case <-ctx.Done():
					return after, ctx.Err()
				}
			}
		case <-time.After(every):
		case <-deadline.C:
			return after, nil
		case <-ctx.Done():
			return after, ctx.Err()
		}
	}
}

// pollAfterWake is how often a woken long-poll looks for the change that
// woke it, and how often at most it reads the feed while changes come.
const pollAfterWake = 25 * time.Millisecond

// pollEvery is how often a long-poll looks for changes another process
// made.
const pollEvery = 200 * time.Millisecond

// FeedTick appends the accounts whose day turned since the last tick
// (midnight in their time zone: start and end dates pass, budgets start
// afresh), and purges the journal past its retention. adcamp serve runs
// it every few seconds (RunFeed).
func (s *Service) FeedTick(ctx context.Context) error {
	now := s.Now()
	err := s.store.Write(ctx, func(tx store.Tx) error {
		last := now
		if v, err := tx.GetSetting(ctx, settingFeedClock); err == nil {
			if us, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				last = time.UnixMicro(us).UTC()
			}
		} else if adcamp.ErrorCode(err) != adcamp.CodeNotFound {
			return err
		}
		if !now.After(last) {
			return tx.SetSetting(ctx, settingFeedClock, []byte(strconv.FormatInt(last.UnixMicro(), 10)))
		}
		zones, err := tx.AccountZones(ctx)
		if err != nil {
			return err
		}
		var rows []store.FeedRow
		turned := map[string]string{}
		for id, zone := range zones {
			d1, _, _ := accountDay(zone, last)
			d2, _, _ := accountDay(zone, now)
			if d1 != d2 {
				turned[id] = zone
				for _, env := range []adcamp.Environment{adcamp.Production, adcamp.Sandbox} {
					rows = append(rows, store.FeedRow{Environment: env, Kind: store.FeedAccount, EntityID: id})
				}
			}
		}
		if len(rows) > 0 {
			if err := tx.AppendFeed(ctx, rows, now); err != nil {
				return err
			}
			wakeFeed()
			// With the feed's rows: budget_restored for the campaigns its
			// keywords come back for (budget_events.go).
			if err := s.dayTurnedEvents(ctx, tx, turned, last, now); err != nil {
				return err
			}
		}
		return tx.SetSetting(ctx, settingFeedClock, []byte(strconv.FormatInt(now.UnixMicro(), 10)))
	})
	if err != nil {
		return err
	}
	return s.store.Write(ctx, func(tx store.Tx) error {
		through, err := tx.PurgeFeed(ctx, now.Add(-s.feedRetention()))
		if err != nil || through == 0 {
			return err
		}
		if v, err := tx.GetSetting(ctx, settingFeedPurged); err == nil {
			if old, _ := strconv.ParseInt(string(v), 10, 64); old > through {
				through = old
			}
		}
		return tx.SetSetting(ctx, settingFeedPurged, []byte(strconv.FormatInt(through, 10)))
	})
}

// RunFeed runs FeedTick every interval until ctx ends.
func (s *Service) RunFeed(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := s.FeedTick(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("serving feed tick failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
