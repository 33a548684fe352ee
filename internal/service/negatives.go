package service

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// NegativeParent names what negatives are created under or listed from.
type NegativeParent struct {
	Level adcamp.NegativeLevel
	ID    string
}

// MaxWarnings bounds the warnings one answer carries; GET
// /ad-groups/{id}/keywords?blocked=true lists every blocked keyword.
const MaxWarnings = 1000

// NegativeBatch is the outcome of a create of negatives.
type NegativeBatch struct {
	Results []adcamp.NegativeResult
	// Warnings are the active keywords that the created negatives block,
	// in keyword id order, at most MaxWarnings.
	Warnings []adcamp.Blocked
}

// kind names the parent in messages.
func (p NegativeParent) kind() string {
	switch p.Level {
	case adcamp.LevelAdGroup:
		return "ad group"
	case adcamp.LevelCampaign:
		return "campaign"
	}
	return "negative keyword list"
}

// checkNegative validates one negative's fields into n.
func checkNegative(issues *adcamp.Issues, n *adcamp.NegativeKeyword, in adcamp.NegativeInput, create bool) {
	if in.Version.Set && create {
		issues.AddKind("version", adcamp.IssueReadOnly, "", "is read-only")
	}
	if create {
		if requireValue(issues, "text", in.Text) {
			n.Text = strings.TrimSpace(in.Text.Value)
			checkText(issues, "text", n.Text, 80)
		}
		if requireValue(issues, "match_type", in.MatchType) {
			if slices.Contains(adcamp.NegativeMatchTypes, in.MatchType.Value) {
				n.MatchType = in.MatchType.Value
			} else {
				issues.AddKind("match_type", adcamp.IssueNotOneOf, joinValues(adcamp.NegativeMatchTypes), "must be exact or phrase")
			}
		}
	} else {
		for _, f := range []struct {
			name string
			set  bool
		}{{"text", in.Text.Set}, {"match_type", in.MatchType.Set}} {
			if f.set {
				issues.AddKind(f.name, adcamp.IssueReadOnly, "", "cannot be changed: delete the negative keyword and create another")
			}
		}
	}
	if st, ok := checkChildStatus(issues, "status", in.Status); ok {
		n.Status = st
	}
}

// negativeParent resolves and checks the parent of a change of negatives
// in tx: an ad group or a campaign must sit under an open campaign. It
// returns a template negative (its parent's ids set) and the list, for a
// list.
func (s *core) negativeParent(ctx context.Context, tx store.Tx, t adcamp.Tenant, p NegativeParent) (adcamp.NegativeKeyword, *adcamp.NegativeList, error) {
	tmpl := adcamp.NegativeKeyword{AccountID: t.AccountID, Environment: t.Environment}
	switch p.Level {
	case adcamp.LevelAdGroup:
		g, err := s.openAdGroup(ctx, tx, t, p.ID)
		if err != nil {
			return tmpl, nil, err
		}
		tmpl.CampaignID, tmpl.AdGroupID = g.CampaignID, g.ID
	case adcamp.LevelCampaign:
		if !adcamp.ValidID(adcamp.PrefixCampaign, p.ID) {
			return tmpl, nil, adcamp.NotFound("campaign", p.ID)
		}
		if _, err := s.openCampaign(ctx, tx, t, p.ID); err != nil {
			return tmpl, nil, err
		}
		tmpl.CampaignID = p.ID
	default:
		l, err := lookupList(ctx, tx, t, p.ID)
		if err != nil {
			return tmpl, nil, err
		}
		// Counted again now that the list is locked (GetNegativeList locks
		// it in a write): on PostgreSQL at READ COMMITTED this statement
		// sees the entries of a concurrent batch that committed first, so
		// that two batches cannot both pass the limit.
		if l.Entries, err = tx.CountNegatives(ctx, t, l.ID); err != nil {
			return tmpl, nil, err
		}
		tmpl.ListID = l.ID
		return tmpl, l, nil
	}
	return tmpl, nil, nil
}

func lookupList(ctx context.Context, tx store.Tx, t adcamp.Tenant, id string) (*adcamp.NegativeList, error) {
	if !adcamp.ValidID(adcamp.PrefixNegativeList, id) {
		return nil, adcamp.NotFound("negative keyword list", id)
	}
	return tx.GetNegativeList(ctx, t, id)
}

// CreateNegatives validates and stores negative keywords under an ad
// group, a campaign or a shared list: one, or a batch of up to
// adcamp.MaxNegativeBatch in one transaction, with the rules of
// CreateKeywords (text unique per parent and match type, as KeywordKey
// folds it, also within the batch; whole or nothing unless opts.Partial).
// The answer warns of the active keywords the new active negatives block
// (see adcamp.NegativeKeyword.Blocks): of the ad group, of every ad group
// of the campaign, or of every campaign the list is attached to.
func (s *Ads) CreateNegatives(ctx context.Context, t adcamp.Tenant, p NegativeParent, items []adcamp.NegativeInput, opts BatchOptions) (*NegativeBatch, error) {
	if err := checkBatchSize(len(items), adcamp.MaxNegativeBatch, "negative keywords"); err != nil {
		return nil, err
	}
	now := s.Now()
	var out *NegativeBatch
	err := s.transact(ctx, opts.DryRun, func(tx store.Tx) error {
		out = &NegativeBatch{Results: make([]adcamp.NegativeResult, len(items))}
		results := out.Results
		if err := s.mayChangeAds(ctx, tx, t, p.kind(), p.ID); err != nil {
			return err
		}
		tmpl, list, err := s.negativeParent(ctx, tx, t, p)
		if err != nil {
			return err
		}
		ids := idsInOrder(adcamp.PrefixNegativeKeyword, now, len(items))
		ns, errs, all := checkItems(items, opts, func(in adcamp.NegativeInput) adcamp.Issues { return in.Invalid },
			func(i int) *adcamp.NegativeKeyword {
				n := tmpl
				n.ID, n.Status, n.Version, n.CreatedAt, n.UpdatedAt = ids[i], adcamp.StatusActive, 1, now, now
				return &n
			},
			func(issues *adcamp.Issues, n *adcamp.NegativeKeyword, in adcamp.NegativeInput) {
				checkNegative(issues, n, in, true)
			})
		if len(all) > 0 && !opts.Partial {
			return all.Err()
		}
		texts := make([]*batchText, len(ns))
		for i, n := range ns {
			if n != nil {
				texts[i] = newBatchText(n.Text, n.MatchType)
			}
		}
		taken, err := tx.TakenNegativeKeys(ctx, p.ID, "", batchKeys(texts))
		if err != nil {
			return err
		}
		dups, dupErr := markDuplicates(texts, taken, opts, "negative keyword", p.kind())
		for i, n := range ns {
			switch {
			case errs[i] != nil:
				results[i].Err = errs[i]
			case dups[i] != nil:
				results[i].Err = dups[i]
			default:
				results[i].Negative = n
			}
		}
		if dupErr != nil {
			return dupErr
		}
		var create []*adcamp.NegativeKeyword
		for _, r := range results {
			if r.Negative != nil {
				create = append(create, r.Negative)
			}
		}
		if list != nil && list.Entries+int64(len(create)) > adcamp.MaxNegativeListEntries {
			var issues adcamp.Issues
			issues.AddKind("items", adcamp.IssueTooMany, strconv.Itoa(adcamp.MaxNegativeListEntries),
				"would take list %q to %d entries; a list holds at most %d", list.ID, list.Entries+int64(len(create)), adcamp.MaxNegativeListEntries)
			return issues.Err()
		}
		if len(create) == 0 {
			return nil
		}
		if out.Warnings, err = s.blockedIn(ctx, tx, t, tmpl, create); err != nil {
			return err
		}
		if opts.DryRun {
			return nil
		}
		if err := tx.CreateNegatives(ctx, create); err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		for _, n := range create {
			recordNegative(h, adcamp.OpCreate, nil, n)
		}
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// blockedIn returns the active keywords that the active ones of ns block,
// where ns apply: ns share the parent of tmpl.
func (s *core) blockedIn(ctx context.Context, tx store.Tx, t adcamp.Tenant, tmpl adcamp.NegativeKeyword, ns []*adcamp.NegativeKeyword) ([]adcamp.Blocked, error) {
	idx := newBlockIndex(ns)
	if idx.empty() {
		return nil, nil
	}
	var kws []store.KeywordText
	var err error
	switch tmpl.Level() {
	case adcamp.LevelAdGroup:
		kws, err = tx.KeywordTexts(ctx, t, nil, tmpl.AdGroupID, true)
	case adcamp.LevelCampaign:
		kws, err = tx.KeywordTexts(ctx, t, []string{tmpl.CampaignID}, "", true)
	default:
		var campaigns []string
		if campaigns, err = tx.CampaignsOfList(ctx, tmpl.ListID); err == nil && len(campaigns) > 0 {
			kws, err = tx.KeywordTexts(ctx, t, campaigns, "", true)
		}
	}
	if err != nil {
		return nil, err
	}
	return idx.blocked(kws, MaxWarnings), nil
}

// blockIndex finds which keywords a set of negatives blocks: exact
// negatives by their folded text, phrase negatives by every run of
// consecutive words of a keyword's folded text (a keyword has at most 80
// characters, so at most 40 words and 820 runs).
type blockIndex struct {
	exact, phrase map[string]string // folded text → negative id
	maxWords      int               // of the longest phrase negative
}

func newBlockIndex(ns []*adcamp.NegativeKeyword) *blockIndex {
	b := &blockIndex{exact: map[string]string{}, phrase: map[string]string{}}
	for _, n := range ns {
		if n.Status == adcamp.StatusActive {
			b.add(n.ID, n.TextKey(), n.MatchType)
		}
	}
	return b
}

// newKeyIndex is newBlockIndex of active negatives read with their keys.
func newKeyIndex(ns []store.NegativeKey) *blockIndex {
	b := &blockIndex{exact: make(map[string]string, len(ns)), phrase: make(map[string]string, len(ns))}
	for _, n := range ns {
		b.add(n.ID, n.TextKey, n.MatchType)
	}
	return b
}

// add indexes a negative by its folded text (the first of a text stays).
func (b *blockIndex) add(id, key string, matchType adcamp.MatchType) {
	m := b.exact
	if matchType == adcamp.MatchPhrase {
		m = b.phrase
		b.maxWords = max(b.maxWords, strings.Count(key, " ")+1)
	}
	if _, ok := m[key]; !ok {
		m[key] = id
	}
}

func (b *blockIndex) empty() bool { return len(b.exact) == 0 && len(b.phrase) == 0 }

// blocking returns the id of a negative that blocks a keyword of text
// key (folded), or "".
func (b *blockIndex) blocking(key string) string {
	if id, ok := b.exact[key]; ok {
		return id
	}
	if len(b.phrase) == 0 {
		return ""
	}
	words := strings.Split(key, " ")
	for i := range words {
		for j := i + 1; j <= len(words) && j-i <= b.maxWords; j++ {
			if id, ok := b.phrase[strings.Join(words[i:j], " ")]; ok {
				return id
			}
		}
	}
	return ""
}

// blocked returns the keywords of kws that the index blocks, at most
// limit (0: all).
func (b *blockIndex) blocked(kws []store.KeywordText, limit int) []adcamp.Blocked {
	var out []adcamp.Blocked
	for _, k := range kws {
		key := k.TextKey
		if key == "" {
			key = adcamp.KeywordKey(k.Text)
		}
		if id := b.blocking(key); id != "" {
			out = append(out, adcamp.Blocked{KeywordID: k.ID, Text: k.Text, NegativeID: id})
			if len(out) == limit {
				break
			}
		}
	}
	return out
}

// GetNegative returns one of the tenant's negative keywords, of any level.
func (s *Ads) GetNegative(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.NegativeKeyword, error) {
	if !adcamp.ValidID(adcamp.PrefixNegativeKeyword, id) {
		return nil, adcamp.NotFound("negative keyword", id)
	}
	var n *adcamp.NegativeKeyword
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		n, err = tx.GetNegative(ctx, t, id)
		return err
	})
	return n, err
}

// ListNegatives returns one page of a parent's negatives, newest first.
func (s *Ads) ListNegatives(ctx context.Context, t adcamp.Tenant, p NegativeParent, f adcamp.NegativeFilter) (*adcamp.Page[*adcamp.NegativeKeyword], error) {
	var issues adcamp.Issues
	checkPaging(&issues, f.Page, f.PageSize)
	checkFilter(&issues, "status", f.Status, adcamp.ChildStatuses)
	checkFilter(&issues, "match_type", f.MatchType, adcamp.NegativeMatchTypes)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	pg := &adcamp.Page[*adcamp.NegativeKeyword]{Page: f.Page, PageSize: f.PageSize}
	err := s.read(ctx, func(tx store.Tx) error {
		var err error
		switch p.Level {
		case adcamp.LevelAdGroup:
			_, err = s.lookupAdGroup(ctx, tx, t, p.ID)
		case adcamp.LevelCampaign:
			_, err = s.lookupCampaign(ctx, tx, t, p.ID)
		default:
			_, err = lookupList(ctx, tx, t, p.ID)
		}
		if err != nil {
			return err
		}
		q := pageQuery(f.Page, f.PageSize, f.Status)
		q.MatchType = f.MatchType
		pg.Items, pg.TotalItems, err = tx.ListNegatives(ctx, t, p.ID, q)
		return err
	})
	return pg, err
}

// lookupCampaign returns the tenant's campaign, whatever its status.
func (s *core) lookupCampaign(ctx context.Context, tx store.Tx, t adcamp.Tenant, id string) (*adcamp.Campaign, error) {
	if !adcamp.ValidID(adcamp.PrefixCampaign, id) {
		return nil, adcamp.NotFound("campaign", id)
	}
	return tx.GetCampaign(ctx, t, id)
}

// negativeForChange loads a negative about to change: it must exist,
// meet the client's preconditions and, unless it is a list's, sit under
// an open campaign.
func (s *core) negativeForChange(ctx context.Context, tx store.Tx, t adcamp.Tenant, id string, ifMatch IfMatch, version adcamp.Optional[int64]) (*adcamp.NegativeKeyword, error) {
	if err := s.mayChangeAds(ctx, tx, t, "negative keyword", id); err != nil {
		return nil, err
	}
	if !adcamp.ValidID(adcamp.PrefixNegativeKeyword, id) {
		return nil, adcamp.NotFound("negative keyword", id)
	}
	n, err := tx.GetNegative(ctx, t, id)
	if err != nil {
		return nil, err
	}
	if err := checkVersion("negative keyword", n.ID, n.Version, ifMatch, version); err != nil {
		return nil, err
	}
	if n.CampaignID != "" {
		if _, err := s.openCampaign(ctx, tx, t, n.CampaignID); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// UpdateNegative changes a negative's status (its text and match type
// are fixed: delete it and create another).
func (s *Ads) UpdateNegative(ctx context.Context, t adcamp.Tenant, id string, in adcamp.NegativeInput, ifMatch IfMatch, dryRun bool) (*adcamp.NegativeKeyword, error) {
	var n *adcamp.NegativeKeyword
	err := s.transact(ctx, dryRun, func(tx store.Tx) error {
		var err error
		if n, err = s.negativeForChange(ctx, tx, t, id, ifMatch, in.Version); err != nil {
			return err
		}
		prev := *n
		issues := append(adcamp.Issues{}, in.Invalid...)
		if !(in.Text.Set || in.MatchType.Set || in.Status.Set) {
			issues.Add("body", "must contain status")
		}
		checkNegative(&issues, n, in, false)
		if err := issues.Err(); err != nil {
			return err
		}
		n.Version++
		n.UpdatedAt = s.Now()
		if dryRun {
			return nil
		}
		if err := tx.UpdateNegative(ctx, n); err != nil {
			return err
		}
		h := s.newHistory(ctx, n.UpdatedAt)
		recordNegative(h, adcamp.OpUpdate, &prev, n)
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// DeleteNegative removes a negative keyword of any level.
func (s *Ads) DeleteNegative(ctx context.Context, t adcamp.Tenant, id string, ifMatch IfMatch) error {
	return s.writeAds(ctx, func(tx store.Tx) error {
		n, err := s.negativeForChange(ctx, tx, t, id, ifMatch, adcamp.Optional[int64]{})
		if err != nil {
			return err
		}
		if _, err := tx.DeleteNegatives(ctx, t, "", []string{n.ID}); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		recordNegative(h, adcamp.OpDelete, n, nil)
		return h.write(ctx, tx)
	})
}

// EffectiveNegatives returns, for each of keywordIDs that is the
// tenant's, the active negatives that apply to it: its ad group's, its
// campaign's and those of the lists attached to its campaign, in id
// order. Ids of no keyword of the tenant are left out.
func (s *Ads) EffectiveNegatives(ctx context.Context, t adcamp.Tenant, keywordIDs []string) (map[string][]*adcamp.NegativeKeyword, error) {
	var out map[string][]*adcamp.NegativeKeyword
	err := s.read(ctx, func(tx store.Tx) error {
		var err error
		out, err = store.EffectiveNegatives(ctx, tx, t, keywordIDs)
		return err
	})
	return out, err
}

// ListBlockedKeywords is ListKeywords for the keywords of an ad group
// that an active negative blocks: the ad group's, its campaign's or an
// attached list's (see adcamp.NegativeKeyword.Blocks).
func (s *Ads) ListBlockedKeywords(ctx context.Context, t adcamp.Tenant, adGroupID string, f adcamp.KeywordFilter) (*adcamp.Page[*adcamp.Keyword], error) {
	var issues adcamp.Issues
	checkPaging(&issues, f.Page, f.PageSize)
	checkFilter(&issues, "status", f.Status, adcamp.ChildStatuses)
	checkFilter(&issues, "match_type", f.MatchType, adcamp.MatchTypes)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	p := &adcamp.Page[*adcamp.Keyword]{Page: f.Page, PageSize: f.PageSize}
	err := s.read(ctx, func(tx store.Tx) error {
		g, err := s.lookupAdGroup(ctx, tx, t, adGroupID)
		if err != nil {
			return err
		}
		negs, err := tx.ApplicableNegatives(ctx, t, g.CampaignID, g.ID)
		if err != nil || len(negs) == 0 {
			return err
		}
		idx := newBlockIndex(negs)
		q := store.ListQuery{Status: f.Status, MatchType: f.MatchType, Limit: 1 << 30}
		all, _, err := tx.ListKeywords(ctx, t, adGroupID, q)
		if err != nil {
			return err
		}
		all = slices.DeleteFunc(all, func(k *adcamp.Keyword) bool { return idx.blocking(k.TextKey()) == "" })
		p.TotalItems = int64(len(all))
		from := min((f.Page-1)*f.PageSize, len(all))
		p.Items = all[from:min(from+f.PageSize, len(all))]
		return nil
	})
	return p, err
}

var negativeFields = []string{"text", "match_type", "status", "list_id"}

func negativeValues(n *adcamp.NegativeKeyword) []*string {
	if n == nil {
		return nil
	}
	return []*string{text(n.Text), text(string(n.MatchType)), text(string(n.Status)), textOrNull(n.ListID)}
}

// recordNegative records a negative keyword's change.
func recordNegative(h *history, op adcamp.Operation, before, after *adcamp.NegativeKeyword) {
	n := cmpOrPtr(after, before)
	h.add(n.AccountID, n.Environment, adcamp.EntityNegativeKeyword, n.ID, n.CampaignID, n.AdGroupID, op,
		diff(op, negativeFields, negativeValues(before), negativeValues(after)))
}

// negativesUnder reads the negatives that a delete of a campaign or of an
// ad group (campaignID "") takes with it, for its history.
func negativesUnder(ctx context.Context, tx store.Tx, t adcamp.Tenant, campaignID, adGroupID string) ([]*adcamp.NegativeKeyword, error) {
	return tx.NegativesUnder(ctx, t, campaignID, adGroupID)
}

// recordNegativeDeletes records the deletes of negatives that went with
// their parent.
func recordNegativeDeletes(h *history, ns []*adcamp.NegativeKeyword) {
	for _, n := range ns {
		recordNegative(h, adcamp.OpDelete, n, nil)
	}
}
