// Package service holds the business rules of adcamp: validation, tenancy,
// state transitions, identifiers, credentials and authentication. It sits
// above a store.Store and below the HTTP and CLI adapters, so each rule is
// written once whatever the database or the caller.
package service

import (
	"cmp"
	"context"
	"log/slog"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/store"
)

// SigningMode restricts which signing schemes a deployment accepts.
type SigningMode string

// Signing modes (CONTRACT §1).
const (
	SigningAuto SigningMode = "auto" // Scheme A or B
	SigningA    SigningMode = "a"
	SigningB    SigningMode = "b"
)

// DefaultMarketplaces are the site codes accepted when none are configured.
var DefaultMarketplaces = []string{
	"US", "CA", "MX", "BR", "UK", "DE", "FR", "IT", "ES", "NL", "SE", "PL", "BE", "TR",
	"AE", "SA", "EG", "IN", "JP", "KR", "SG", "AU",
}

// Config configures a Service. The zero value of each optional field
// selects a sensible default.
type Config struct {
	Store  store.Store
	Box    *secrets.Box
	Logger *slog.Logger
	// Now is the clock (time.Now if nil); tests inject their own.
	Now          func() time.Time
	Signing      SigningMode // SigningAuto if empty
	Marketplaces []string    // DefaultMarketplaces if empty
	// MaxSkew is the accepted distance between X-Timestamp and the
	// server's clock (5 minutes if zero).
	MaxSkew time.Duration
	// AnswerBudget bounds the bytes of large answers kept for replays per
	// account and process (defaultAnswerBudget if zero; see budget.go).
	AnswerBudget int64
	// HistoryRetention is how long change records are kept (Run purges
	// older ones). Zero keeps them all: a library never deletes history
	// unless told to; adcamp serve passes DefaultHistoryRetention.
	HistoryRetention time.Duration
}

// Service implements adcamp's operations over a store. Each door takes the
// part it uses: the Open API its Ads and Keys, the console its Ads, Access
// and Keys, the operator API its Operator; the process (cmd/adcamp)
// the whole, with its background duties (Run, RunFeed, RunWebhooks,
// RunReportJobs, the purges) and its administration (CreateAccount...).
// The parts share one core: one store, one clock, one change-id
// generator, one cache of keys.
type Service struct {
	*core
	*Ads      // campaigns, ad groups, keywords, negatives, reports and report jobs, the history, webhooks, the sandbox
	*Access   // console users, sign-in and sessions, two-step, members and invitations, the account's settings
	*Keys     // API keys: authentication, replay protection, the keys' own management
	*Operator // the marketplace's side: operator keys, the serving feed, delivery
}

// Ads is the part of the service of campaigns, ad groups, keywords,
// negative keywords, reports, the change history, webhooks and the sandbox.
type Ads struct{ *core }

// Access is the part of the service of the console's people and their
// account: users, sign-in, sessions, two-step sign-in, members,
// invitations, the account's time zone.
type Access struct{ *core }

// Keys is the part of the service of API keys: their management,
// authentication of signed requests and replay protection.
type Keys struct{ *core }

// Operator is the part of the service of the marketplace's side: operator
// keys, the serving feed and delivery.
type Operator struct{ *core }

// core is what the parts share.
type core struct {
	changeIDs    adcamp.ChangeIDs // of this service's records and events, in the order made
	store        store.Store
	box          *secrets.Box
	log          *slog.Logger
	now          func() time.Time
	signing      SigningMode
	marketplaces []string
	maxSkew      time.Duration
	retention    time.Duration // of change records; 0 keeps them

	keys       keyCache
	zones      zoneCache // accounts' time zones, see delivery.go
	budget     answerBudget
	hashedOnly atomic.Bool               // no replay record has a name of an earlier version (LoadSettings)
	started    time.Time                 // when New made it
	day        atomic.Pointer[cachedDay] // see today

	usageMu sync.Mutex
	usage   map[string]time.Time    // key id -> last use not yet written
	uses    map[keyDay]int64        // requests not yet counted in the store
	trail   map[string][]pendingUse // key id -> last uses not yet written, oldest first

	reportPurgeDue atomic.Pointer[time.Time] // when reportDuties purges next
	days           dayFold                   // see dayfold.go

	console console                         // see sessions.go
	feed    feedState                       // see feed.go
	sim     atomic.Pointer[SimulatorConfig] // see simulator.go
	jobs    reportJobs                      // see reportjobs.go
}

// New returns a Service for cfg.
func New(cfg Config) *Service {
	s := &core{
		store: cfg.Store, box: cfg.Box, log: cfg.Logger, now: cfg.Now,
		signing: cfg.Signing, maxSkew: cfg.MaxSkew, retention: cfg.HistoryRetention,
		usage: make(map[string]time.Time), uses: make(map[keyDay]int64), trail: make(map[string][]pendingUse),
	}
	s.console.hashing = make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))
	s.days.wake = make(chan struct{}, 1)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.started = s.Now()
	if s.signing == "" {
		s.signing = SigningAuto
	}
	if s.maxSkew == 0 {
		s.maxSkew = 5 * time.Minute
	}
	s.budget.limit = cmp.Or(cfg.AnswerBudget, defaultAnswerBudget)
	for _, m := range cmpOr(cfg.Marketplaces, DefaultMarketplaces) {
		s.marketplaces = append(s.marketplaces, strings.ToUpper(strings.TrimSpace(m)))
	}
	slices.Sort(s.marketplaces)
	return &Service{core: s, Ads: &Ads{s}, Access: &Access{s}, Keys: &Keys{s}, Operator: &Operator{s}}
}

func cmpOr[T any](a, b []T) []T {
	if len(a) > 0 {
		return a
	}
	return b
}

// Now returns the service's current time in UTC.
func (s *core) Now() time.Time { return s.now().UTC() }

// Marketplaces returns the accepted site codes, sorted.
func (s *core) Marketplaces() []string { return slices.Clone(s.marketplaces) }

// Ping checks that the database answers.
func (s *core) Ping(ctx context.Context) error { return s.store.Ping(ctx) }

// Run performs background duties until ctx ends: it writes the last-use
// times of credentials every interval, and once more on the way out.
func (s *Service) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	first := s.Now().Add(reportFirstPurge)
	s.reportPurgeDue.Store(&first)
	s.endDueCampaigns(ctx)
	s.reportDuties(ctx)
	for {
		select {
		case <-ctx.Done():
			flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			s.FlushUsage(flushCtx)
			cancel()
			return
		case <-t.C:
			s.FlushUsage(ctx)
			s.purgeConsole(ctx)
			s.endDueCampaigns(ctx)
			s.purgeChanges(ctx)
			s.reportDuties(ctx)
			if n, err := s.PurgeRecords(ctx); err != nil {
				s.log.Error("purge expired request records", "err", err)
			} else if n > 0 {
				s.log.Debug("purged expired request records", "n", n)
			}
		}
	}
}

// endDueCampaigns logs what EndDueCampaigns did.
func (s *Service) endDueCampaigns(ctx context.Context) {
	if n, err := s.EndDueCampaigns(ctx); err != nil {
		s.log.Error("store the status of campaigns past their end date", "err", err)
	} else if n > 0 {
		s.log.Debug("stored the status of campaigns past their end date", "n", n)
	}
}

// endBatch bounds the campaigns EndDueCampaigns changes in one transaction.
const endBatch = 1000

// EndDueCampaigns stores the status ended for the campaigns whose end date
// has passed. They read as ended from that day on anyway (and accept no
// change but delete); storing it keeps the counters and the status indexes
// exact, so lists by status do not have to look at every campaign that
// ever ended. Their version and updated_at stay: nothing visible changes.
// Each is recorded in the history as the system's change of its status
// (from its stored status to ended), with one transaction id per batch.
func (s *Service) EndDueCampaigns(ctx context.Context) (int64, error) {
	var total int64
	ctx = WithOrigin(ctx, Origin{Actor: systemActor})
	for {
		var n int64
		err := s.store.Write(ctx, func(tx store.Tx) error {
			due, err := tx.DueCampaigns(ctx, s.today(), endBatch)
			if err != nil || len(due) == 0 {
				return err
			}
			ids := make([]string, len(due))
			h := s.newHistory(ctx, s.Now())
			for i, c := range due {
				ids[i] = c.ID
				h.add(c.AccountID, c.Environment, adcamp.EntityCampaign, c.ID, c.ID, "", adcamp.OpUpdate,
					[]adcamp.FieldChange{{Field: "status", Old: text(string(c.Status)), New: text(string(adcamp.StatusEnded))}})
			}
			if err := tx.SetCampaignsEnded(ctx, ids); err != nil {
				return err
			}
			n = int64(len(due))
			return h.write(ctx, tx)
		})
		total += n
		if err != nil || n < endBatch {
			return total, err
		}
	}
}

// FlushUsage writes the pending last-use times of credentials, and their
// requests per day, in one transaction, so that authentication costs no
// write per request.
func (s *Service) FlushUsage(ctx context.Context) {
	s.usageMu.Lock()
	pending, uses, trail := s.usage, s.uses, s.trail
	if len(pending) == 0 {
		s.usageMu.Unlock()
		return
	}
	s.usage, s.uses = make(map[string]time.Time, len(pending)), make(map[keyDay]int64, len(uses))
	s.trail = make(map[string][]pendingUse, len(trail))
	s.usageMu.Unlock()
	var trailUses []store.KeyUse
	for id, t := range trail {
		for _, u := range t[max(0, len(t)-store.KeyTrailKept):] {
			use := store.KeyUse{KeyID: id, At: u.at, Route: u.route}
			if u.addr.IsValid() {
				use.Address = u.addr.String()
			}
			trailUses = append(trailUses, use)
		}
	}
	err := s.write(ctx, func(tx store.Tx) error {
		if err := tx.TouchCredentials(ctx, pending); err != nil {
			return err
		}
		if err := tx.AddKeyUses(ctx, trailUses); err != nil {
			return err
		}
		return tx.AddCredentialUses(ctx, usesByDate(uses))
	})
	if err != nil {
		s.log.Error("record credential use", "err", err, "keys", len(pending))
	}
}

// recordUse notes a request of keyID in memory, for FlushUsage: its time,
// its count for the day, and its place in the key's trail (of which only
// the newest store.KeyTrailKept are kept).
// pendingUse is a use of a key noted by recordUse: held as it came, made
// text only when written.
type pendingUse struct {
	at    time.Time
	addr  netip.Addr
	route string
}

func (s *core) recordUse(keyID string, at time.Time, addr netip.Addr, route string) {
	day := at.Unix() / secondsPerDay
	use := pendingUse{at: at, addr: addr, route: route}
	s.usageMu.Lock()
	s.usage[keyID] = at
	s.uses[keyDay{keyID, day}]++
	t := s.trail[keyID]
	if len(t) >= 2*store.KeyTrailKept { // drop the oldest, amortized: only the newest are written
		t = append(t[:0], t[len(t)-store.KeyTrailKept+1:]...)
	}
	s.trail[keyID] = append(t, use)
	s.usageMu.Unlock()
}
