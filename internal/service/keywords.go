package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// BatchOptions say how CreateKeywords treats its items.
type BatchOptions struct {
	// Batch: the items came as a list, so problems are named items[i].field.
	Batch bool
	// Partial stores the valid items and reports each item's outcome,
	// instead of storing nothing unless every item is valid.
	Partial bool
	DryRun  bool
}

// checkKeyword validates one keyword's fields into k.
func checkKeyword(issues *adcamp.Issues, k *adcamp.Keyword, in adcamp.KeywordInput, create bool) {
	if in.Version.Set && create {
		issues.AddKind("version", adcamp.IssueReadOnly, "", "is read-only")
	}
	if (create && requireValue(issues, "text", in.Text)) || (!create && notNull(issues, "text", in.Text)) {
		k.Text = strings.TrimSpace(in.Text.Value)
		checkText(issues, "text", k.Text, 80)
	}
	if (create && requireValue(issues, "match_type", in.MatchType)) || (!create && notNull(issues, "match_type", in.MatchType)) {
		if slices.Contains(adcamp.MatchTypes, in.MatchType.Value) {
			k.MatchType = in.MatchType.Value
		} else {
			issues.AddKind("match_type", adcamp.IssueNotOneOf, joinValues(adcamp.MatchTypes), "must be exact, phrase or broad")
		}
	}
	if in.Bid.Set {
		k.Bid = nil
		if !in.Bid.Null {
			m := checkMoney(issues, "bid", in.Bid.Value)
			k.Bid = &m
		}
	}
	if st, ok := checkChildStatus(issues, "status", in.Status); ok {
		k.Status = st
	}
}

// maxItemIssues bounds the issues reported for one item of a keyword
// batch (a keyword has five fields), so that the answer to a batch of a
// thousand items stays small whatever each item holds.
const maxItemIssues = 10

// CreateKeywords validates and stores keywords under an ad group: one, or
// a batch of up to adcamp.MaxKeywordBatch in one transaction. Text must be
// unique per ad group and match type, case-insensitively, also within the
// batch. Without opts.Partial, any bad item stores nothing: every invalid
// item is reported at once (VALIDATION_ERROR), then any duplicate
// (DUPLICATE_KEYWORD). With it, the valid items are stored and each item's
// outcome is returned in request order.
func (s *Ads) CreateKeywords(ctx context.Context, t adcamp.Tenant, adGroupID string, items []adcamp.KeywordInput, opts BatchOptions) ([]adcamp.BatchResult, error) {
	if err := checkBatchSize(len(items), adcamp.MaxKeywordBatch, "keywords"); err != nil {
		return nil, err
	}
	now := s.Now()
	var results []adcamp.BatchResult
	err := s.transact(ctx, opts.DryRun, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "ad group", adGroupID); err != nil {
			return err
		}
		g, err := s.openAdGroup(ctx, tx, t, adGroupID)
		if err != nil {
			return err
		}
		ids := idsInOrder(adcamp.PrefixKeyword, now, len(items))
		ks, errs, all := checkItems(items, opts, func(in adcamp.KeywordInput) adcamp.Issues { return in.Invalid },
			func(i int) *adcamp.Keyword {
				return &adcamp.Keyword{ID: ids[i], AdGroupID: adGroupID, AccountID: t.AccountID,
					Environment: t.Environment, Status: adcamp.StatusActive, Version: 1, CreatedAt: now, UpdatedAt: now}
			},
			func(issues *adcamp.Issues, k *adcamp.Keyword, in adcamp.KeywordInput) {
				checkKeyword(issues, k, in, true)
			})
		if len(all) > 0 && !opts.Partial {
			return all.Err()
		}
		texts := make([]*batchText, len(ks))
		for i, k := range ks {
			if k != nil {
				texts[i] = newBatchText(k.Text, k.MatchType)
			}
		}
		taken, err := tx.TakenKeywordKeys(ctx, adGroupID, "", batchKeys(texts))
		if err != nil {
			return err
		}
		dups, dupErr := markDuplicates(texts, taken, opts, "keyword", "ad group")
		results = make([]adcamp.BatchResult, len(items)) // afresh if the store retries fn
		var create []*adcamp.Keyword
		for i, k := range ks {
			switch {
			case errs[i] != nil:
				results[i].Err = errs[i]
			case dups[i] != nil:
				results[i].Err = dups[i]
			default:
				results[i].Keyword = k
				create = append(create, k)
			}
		}
		if dupErr != nil {
			return dupErr
		}
		if opts.DryRun || len(create) == 0 {
			return nil
		}
		if err := tx.CreateKeywords(ctx, create); err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		for _, k := range create {
			recordKeyword(h, adcamp.OpCreate, g.CampaignID, nil, k)
		}
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

func prefixField(field string, batch bool, i int) string {
	if !batch {
		return field
	}
	return fmt.Sprintf("items[%d].%s", i, field)
}

func prefixIssues(issues []adcamp.FieldIssue, batch bool, i int) adcamp.Issues {
	out := make(adcamp.Issues, len(issues))
	for j, is := range issues {
		out[j] = adcamp.FieldIssue{Field: prefixField(is.Field, batch, i), Issue: is.Issue, Kind: is.Kind, Param: is.Param}
	}
	return out
}

// GetKeyword returns one of the tenant's keywords.
func (s *Ads) GetKeyword(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.Keyword, error) {
	if !adcamp.ValidID(adcamp.PrefixKeyword, id) {
		return nil, adcamp.NotFound("keyword", id)
	}
	var k *adcamp.Keyword
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		k, err = tx.GetKeyword(ctx, t, id)
		return err
	})
	return k, err
}

// ListKeywords returns one page of an ad group's keywords, newest first.
func (s *Ads) ListKeywords(ctx context.Context, t adcamp.Tenant, adGroupID string, f adcamp.KeywordFilter) (*adcamp.Page[*adcamp.Keyword], error) {
	var issues adcamp.Issues
	checkPaging(&issues, f.Page, f.PageSize)
	checkFilter(&issues, "status", f.Status, adcamp.ChildStatuses)
	checkFilter(&issues, "match_type", f.MatchType, adcamp.MatchTypes)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	p := &adcamp.Page[*adcamp.Keyword]{Page: f.Page, PageSize: f.PageSize}
	err := s.read(ctx, func(tx store.Tx) error {
		if _, err := s.lookupAdGroup(ctx, tx, t, adGroupID); err != nil {
			return err
		}
		q := pageQuery(f.Page, f.PageSize, f.Status)
		q.MatchType = f.MatchType
		var err error
		p.Items, p.TotalItems, err = tx.ListKeywords(ctx, t, adGroupID, q)
		return err
	})
	return p, err
}

// UpdateKeyword merges in into a keyword, as UpdateCampaign does.
func (s *Ads) UpdateKeyword(ctx context.Context, t adcamp.Tenant, id string, in adcamp.KeywordInput, ifMatch IfMatch, dryRun bool) (*adcamp.Keyword, error) {
	var k *adcamp.Keyword
	err := s.transact(ctx, dryRun, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "keyword", id); err != nil {
			return err
		}
		var err error
		var campaignID string
		if k, campaignID, err = s.keywordForChange(ctx, tx, t, id, ifMatch, in.Version); err != nil {
			return err
		}
		prev := *k
		issues := append(adcamp.Issues{}, in.Invalid...)
		if !(in.Text.Set || in.MatchType.Set || in.Bid.Set || in.Status.Set) {
			issues.Add("body", "must contain at least one of text, match_type, bid, status")
		}
		before := store.KeywordKey{MatchType: k.MatchType, TextKey: k.TextKey()}
		checkKeyword(&issues, k, in, false)
		if err := issues.Err(); err != nil {
			return err
		}
		if after := (store.KeywordKey{MatchType: k.MatchType, TextKey: k.TextKey()}); after != before {
			taken, err := tx.TakenKeywordKeys(ctx, k.AdGroupID, k.ID, []store.KeywordKey{after})
			if err != nil {
				return err
			}
			if taken[after] {
				issue := fmt.Sprintf("%q (%s) already exists in this ad group", k.Text, k.MatchType)
				return &adcamp.Error{Code: adcamp.CodeDuplicateKeyword, Message: "keyword " + issue,
					Details: []adcamp.FieldIssue{{Field: "text", Issue: issue, Kind: adcamp.IssueDuplicate}}}
			}
		}
		k.Version++
		k.UpdatedAt = s.Now()
		if dryRun {
			return nil
		}
		if err := tx.UpdateKeyword(ctx, k, &prev); err != nil {
			return err
		}
		h := s.newHistory(ctx, k.UpdatedAt)
		recordKeyword(h, adcamp.OpUpdate, campaignID, &prev, k)
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

// keywordForChange loads a keyword that is about to change: it must
// exist, meet the client's preconditions and sit under an open campaign,
// whose id it returns too.
func (s *core) keywordForChange(ctx context.Context, tx store.Tx, t adcamp.Tenant, id string, ifMatch IfMatch, version adcamp.Optional[int64]) (*adcamp.Keyword, string, error) {
	if !adcamp.ValidID(adcamp.PrefixKeyword, id) {
		return nil, "", adcamp.NotFound("keyword", id)
	}
	k, err := tx.GetKeyword(ctx, t, id)
	if err != nil {
		return nil, "", err
	}
	if err := checkVersion("keyword", k.ID, k.Version, ifMatch, version); err != nil {
		return nil, "", err
	}
	g, err := s.openAdGroup(ctx, tx, t, k.AdGroupID)
	if err != nil {
		return nil, "", err
	}
	return k, g.CampaignID, nil
}

// DeleteKeyword removes a keyword.
func (s *Ads) DeleteKeyword(ctx context.Context, t adcamp.Tenant, id string, ifMatch IfMatch) error {
	return s.writeAds(ctx, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "keyword", id); err != nil {
			return err
		}
		k, campaignID, err := s.keywordForChange(ctx, tx, t, id, ifMatch, adcamp.Optional[int64]{})
		if err != nil {
			return err
		}
		if err := tx.DeleteKeyword(ctx, t, id); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		recordKeyword(h, adcamp.OpDelete, campaignID, k, nil)
		return h.write(ctx, tx)
	})
}

// ListChannelAccounts returns one page of the account's channel accounts.
func (s *Ads) ListChannelAccounts(ctx context.Context, accountID string, page, size int) (*adcamp.Page[*adcamp.ChannelAccount], error) {
	var issues adcamp.Issues
	checkPaging(&issues, page, size)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	p := &adcamp.Page[*adcamp.ChannelAccount]{Page: page, PageSize: size}
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		p.Items, p.TotalItems, err = tx.ListChannelAccounts(ctx, accountID, pageQuery(page, size, ""))
		return err
	})
	return p, err
}

// idsInOrder returns n new ids created at now, ascending. The items of a
// batch share their creation time, and lists order by it and then by id:
// ascending ids make a batch list in the order it was given (newest
// first, so the last item first), the same way every time.
func idsInOrder(prefix string, now time.Time, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = adcamp.NewID(prefix, now)
	}
	slices.Sort(ids)
	return ids
}
