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

// appendFeedOf appends the feed rows of a transaction's change records.
// A negative keyword touches the keywords of its ad group or campaign; a
// list's entry those of the campaigns the list is attached to (lists
// names the lists whose entries changed: a record of an entry's change
// does not always name its list), read after locking the list so that an
// attach committing meanwhile is seen; attaching or detaching a list
// touches the campaign's keywords.
func appendFeedOf(ctx context.Context, tx store.Tx, changes []*adcamp.Change, lists []listRef, now time.Time) error {
	var rows []store.FeedRow
	seen := map[store.FeedRow]bool{}
	add := func(r store.FeedRow) {
		if !seen[r] {
			seen[r] = true
			rows = append(rows, r)
		}
	}
	for _, c := range changes {
		kind, id := "", c.EntityID
		switch c.EntityType {
		case adcamp.EntityKeyword:
			kind = store.FeedKeyword
		case adcamp.EntityAdGroup:
			kind = store.FeedAdGroup
		case adcamp.EntityCampaign:
			kind = store.FeedCampaign
		case adcamp.EntityNegativeKeyword:
			switch {
			case c.AdGroupID != "":
				kind, id = store.FeedAdGroup, c.AdGroupID
			case c.CampaignID != "":
				kind, id = store.FeedCampaign, c.CampaignID
			default:
				continue // a list's: see lists
			}
		case adcamp.EntityNegativeList:
			if c.CampaignID == "" {
				continue // a list's own fields, or its entries (see lists)
			}
			kind, id = store.FeedCampaign, c.CampaignID // attached or detached
		case adcamp.EntityAccount:
			for _, env := range []adcamp.Environment{adcamp.Production, adcamp.Sandbox} {
				add(store.FeedRow{Environment: env, Kind: store.FeedAccount, EntityID: c.EntityID})
			}
			continue
		default:
			continue
		}
		add(store.FeedRow{Environment: c.Environment, Kind: kind, EntityID: id})
	}
	done := map[string]bool{}
	for _, l := range lists {
		if done[l.id] {
			continue
		}
		done[l.id] = true
		if _, err := tx.GetNegativeList(ctx, adcamp.Tenant{AccountID: l.account, Environment: l.env}, l.id); err != nil {
			if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
				continue // deleted: its detaches were recorded
			}
			return err
		}
		campaigns, err := tx.CampaignsOfList(ctx, l.id)
		if err != nil {
			return err
		}
		for _, c := range campaigns {
			add(store.FeedRow{Environment: l.env, Kind: store.FeedCampaign, EntityID: c})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	defer wakeFeed()
	return tx.AppendFeed(ctx, rows, now)
}

// listRef names a list whose entries a transaction changed.
type listRef struct {
	account string
	env     adcamp.Environment
	id      string
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
	// Negatives are the active negative keywords that apply: its ad
	// group's, its campaign's and those of the lists attached to its
	// campaign, in id order, one per match type and folded text. Shared
	// by the keywords of an ad group: do not change.
	Negatives []FeedNegative
}

// FeedNegative is a negative keyword as the feed shows it.
type FeedNegative struct {
	Text      string
	MatchType adcamp.MatchType
}

// feedNegatives holds the negatives of one read of the feed, and merges
// them per ad group as keywords ask for them.
type feedNegatives struct {
	byGroup, byCampaign, byList map[string][]store.ServingNegative
	lists                       map[string][]string // campaign → attached lists
	merged                      map[string][]FeedNegative
}

func loadFeedNegatives(ctx context.Context, tx store.Tx, env adcamp.Environment, campaignIDs []string, all bool) (*feedNegatives, error) {
	negs, atts, err := tx.ServingNegatives(ctx, env, campaignIDs, all)
	if err != nil {
		return nil, err
	}
	f := &feedNegatives{byGroup: map[string][]store.ServingNegative{}, byCampaign: map[string][]store.ServingNegative{},
		byList: map[string][]store.ServingNegative{}, lists: map[string][]string{}, merged: map[string][]FeedNegative{}}
	for _, n := range negs {
		switch {
		case n.ListID != "":
			f.byList[n.ListID] = append(f.byList[n.ListID], n)
		case n.AdGroupID != "":
			f.byGroup[n.AdGroupID] = append(f.byGroup[n.AdGroupID], n)
		default:
			f.byCampaign[n.CampaignID] = append(f.byCampaign[n.CampaignID], n)
		}
	}
	for _, a := range atts {
		f.lists[a.CampaignID] = append(f.lists[a.CampaignID], a.ListID)
	}
	return f, nil
}

// of returns the negatives that apply to the keywords of an ad group.
func (f *feedNegatives) of(campaignID, adGroupID string) []FeedNegative {
	if m, ok := f.merged[adGroupID]; ok {
		return m
	}
	all := slices.Clone(f.byGroup[adGroupID])
	all = append(all, f.byCampaign[campaignID]...)
	for _, l := range f.lists[campaignID] {
		all = append(all, f.byList[l]...)
	}
	slices.SortFunc(all, func(a, b store.ServingNegative) int { return strings.Compare(a.ID, b.ID) })
	out := make([]FeedNegative, 0, len(all))
	seen := make(map[store.KeywordKey]bool, len(all))
	for _, n := range all {
		key := store.KeywordKey{MatchType: n.MatchType, TextKey: adcamp.KeywordKey(n.Text)}
		if !seen[key] {
			seen[key] = true
			out = append(out, FeedNegative{Text: n.Text, MatchType: n.MatchType})
		}
	}
	f.merged[adGroupID] = out
	return out
}

// FeedChange is an upsert (Keyword set) or a removal (KeywordID only).
type FeedChange struct {
	Keyword   *FeedKeyword
	KeywordID string
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

func (s *core) newServability(ctx context.Context, tx store.Tx, env adcamp.Environment) (*servability, error) {
	now := s.Now()
	// A day is at most 26 hours long, and starts at most 26 hours ago.
	costs, err := tx.RecentSpend(ctx, env, now.Add(-27*time.Hour))
	if err != nil {
		return nil, err
	}
	v := &servability{now: now, hours: map[string][]store.CampaignHourCost{}, spend: map[string]adcamp.Money{}}
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

// Snapshot calls fn with every servable keyword of env, from one
// consistent view, and returns the position it reflects. fn's keyword is
// reused after it returns.
func (s *Operator) Snapshot(ctx context.Context, env adcamp.Environment, fn func(*FeedKeyword) error) (string, error) {
	var pos int64
	err := s.store.Read(ctx, func(tx store.Tx) error {
		var err error
		if pos, err = tx.FeedHead(ctx); err != nil {
			return err
		}
		v, err := s.newServability(ctx, tx, env)
		if err != nil {
			return err
		}
		negs, err := loadFeedNegatives(ctx, tx, env, nil, true)
		if err != nil {
			return err
		}
		return tx.ScanServing(ctx, env, store.FeedScope{All: true}, func(k *store.ServingKeyword) error {
			if !v.servable(k) {
				return nil
			}
			fk := feedKeyword(k)
			fk.Negatives = negs.of(k.Campaign.ID, k.AdGroupID)
			return fn(fk)
		})
	})
	return FormatPosition(pos), err
}

// Changes calls fn with the changes of env after position after, from one
// consistent view: each keyword touched since, in its current state. It
// returns the position they bring the reader to, and whether there were
// any. A position older than the retention is ErrPositionExpired.
func (s *Operator) Changes(ctx context.Context, env adcamp.Environment, after string, fn func(FeedChange) error) (string, bool, error) {
	p, ok := ParsePosition(after)
	if !ok {
		var issues adcamp.Issues
		issues.Add("after", "must be a position from a snapshot or an earlier answer of changes")
		return "", false, issues.Err()
	}
	var next int64
	any := false
	err := s.store.Read(ctx, func(tx store.Tx) error {
		any = false
		if purged, err := tx.GetSetting(ctx, settingFeedPurged); err == nil {
			if through, _ := strconv.ParseInt(string(purged), 10, 64); p < through {
				return ErrPositionExpired
			}
		} else if adcamp.ErrorCode(err) != adcamp.CodeNotFound {
			return err
		}
		rows, n, err := tx.ReadFeed(ctx, env, p)
		if err != nil {
			return err
		}
		next = n
		if len(rows) == 0 {
			return nil
		}
		any = true
		var scope store.FeedScope
		touched := map[string]bool{} // keywords named, which are removed unless found servable
		seen := map[string]bool{}
		for _, r := range rows {
			if seen[r.Kind+r.EntityID] {
				continue
			}
			seen[r.Kind+r.EntityID] = true
			switch r.Kind {
			case store.FeedKeyword:
				scope.KeywordIDs = append(scope.KeywordIDs, r.EntityID)
				touched[r.EntityID] = true
			case store.FeedAdGroup:
				scope.AdGroupIDs = append(scope.AdGroupIDs, r.EntityID)
			case store.FeedCampaign:
				scope.CampaignIDs = append(scope.CampaignIDs, r.EntityID)
			case store.FeedAccount:
				scope.AccountIDs = append(scope.AccountIDs, r.EntityID)
			}
		}
		v, err := s.newServability(ctx, tx, env)
		if err != nil {
			return err
		}
		// The scan's changes are kept until it ends, to read the negatives
		// of their campaigns (a store reads nothing else while it scans).
		answered := map[string]bool{}
		var changes []FeedChange
		var campaigns []string
		seenCampaign := map[string]bool{}
		err = tx.ScanServing(ctx, env, scope, func(k *store.ServingKeyword) error {
			if answered[k.ID] {
				return nil
			}
			answered[k.ID] = true
			if v.servable(k) {
				if !seenCampaign[k.Campaign.ID] {
					seenCampaign[k.Campaign.ID] = true
					campaigns = append(campaigns, k.Campaign.ID)
				}
				changes = append(changes, FeedChange{Keyword: feedKeyword(k)})
				return nil
			}
			changes = append(changes, FeedChange{KeywordID: k.ID})
			return nil
		})
		if err != nil {
			return err
		}
		negs, err := loadFeedNegatives(ctx, tx, env, campaigns, false)
		if err != nil {
			return err
		}
		for _, c := range changes {
			if c.Keyword != nil {
				c.Keyword.Negatives = negs.of(c.Keyword.CampaignID, c.Keyword.AdGroupID)
			}
			if err := fn(c); err != nil {
				return err
			}
		}
		for _, id := range scope.KeywordIDs {
			if !answered[id] {
				if err := fn(FeedChange{KeywordID: id}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return FormatPosition(next), any, err
}

// WaitChanges is Changes that, while there are none, waits up to wait
// for some: woken by this process's changes, and polling for those of
// others every pollEvery.
func (s *Operator) WaitChanges(ctx context.Context, env adcamp.Environment, after string, wait time.Duration, fn func(FeedChange) error) (string, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	var fastUntil time.Time
	for {
		woken := feedWoken()
		pos, any, err := s.Changes(ctx, env, after, fn)
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
		case <-time.After(every):
		case <-deadline.C:
			return after, nil
		case <-ctx.Done():
			return after, ctx.Err()
		}
	}
}

// pollAfterWake is how often a woken long-poll looks for the change that
// woke it.
const pollAfterWake = 10 * time.Millisecond

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
