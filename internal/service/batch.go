package service

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The batches of keywords and of negative keywords: one implementation of
// their size, their items' checks and their duplicates.

// checkBatchSize refuses a batch of no item or of more than max.
func checkBatchSize(n, max int, noun string) error {
	if n > 0 && n <= max {
		return nil
	}
	var issues adcamp.Issues
	kind := adcamp.IssueTooMany
	if n == 0 {
		kind = adcamp.IssueRequired
	}
	issues.AddKind("items", kind, strconv.Itoa(max), "must hold 1 to %d %s (got %d)", max, noun, n)
	return issues.Err()
}

// checkItems validates a batch's items into entities that fresh makes
// (invalid gives an item's problems found while reading it, check
// validates its fields into its entity). It returns the entities (the
// zero E for an item that failed), each failed item's error, and every
// problem of every item, named as items[i].field in a batch.
func checkItems[In any, E comparable](items []In, opts BatchOptions, invalid func(In) adcamp.Issues, fresh func(i int) E,
	check func(*adcamp.Issues, E, In)) (ents []E, errs []error, all adcamp.Issues) {
	ents, errs = make([]E, len(items)), make([]error, len(items))
	for i, in := range items {
		e := fresh(i)
		issues := append(adcamp.Issues{}, invalid(in)...)
		if !slices.ContainsFunc(issues, func(is adcamp.FieldIssue) bool { return is.Field == "item" }) {
			check(&issues, e, in)
		}
		if err := issues.ErrUpTo(maxItemIssues); err != nil {
			errs[i] = err
			all = append(all, prefixIssues(err.(*adcamp.Error).Details.([]adcamp.FieldIssue), opts.Batch, i)...)
			continue
		}
		ents[i] = e
	}
	return ents, errs, all
}

// batchText is a valid item's text and match type, for the duplicate
// check (nil for an item that failed).
type batchText struct {
	text string
	key  store.KeywordKey
}

func newBatchText(text string, matchType adcamp.MatchType) *batchText {
	return &batchText{text: text, key: store.KeywordKey{MatchType: matchType, TextKey: adcamp.KeywordKey(text)}}
}

// batchKeys returns the keys of a batch's valid items.
func batchKeys(items []*batchText) []store.KeywordKey {
	keys := make([]store.KeywordKey, 0, len(items))
	for _, it := range items {
		if it != nil {
			keys = append(keys, it.key)
		}
	}
	return keys
}

// markDuplicates finds each item whose text is taken in its parent (where,
// "ad group") or by an earlier item of the batch, and returns those items'
// errors by index. Without opts.Partial, any duplicate also fails the
// whole request (the error returned).
func markDuplicates(items []*batchText, taken map[store.KeywordKey]bool, opts BatchOptions, noun, where string) (map[int]error, error) {
	first := make(map[store.KeywordKey]int, len(items))
	failed := map[int]error{}
	var dups adcamp.Issues
	for i, it := range items {
		if it == nil {
			continue
		}
		var issue, param string
		kind := adcamp.IssueDuplicate
		if taken[it.key] {
			issue = fmt.Sprintf("%q (%s) already exists in this %s", it.text, it.key.MatchType, where)
		} else if j, seen := first[it.key]; seen {
			issue = fmt.Sprintf("%q (%s) repeats %s", it.text, it.key.MatchType, prefixField("text", true, j))
			kind, param = adcamp.IssueRepeats, strconv.Itoa(j)
		} else {
			first[it.key] = i
			continue
		}
		dups = append(dups, adcamp.FieldIssue{Field: prefixField("text", opts.Batch, i), Issue: issue, Kind: kind, Param: param})
		failed[i] = &adcamp.Error{Code: adcamp.CodeDuplicateKeyword, Message: noun + " " + issue,
			Details: []adcamp.FieldIssue{{Field: "text", Issue: issue, Kind: kind, Param: param}}}
	}
	if len(dups) == 0 || opts.Partial {
		return failed, nil
	}
	details, total := adcamp.Capped(dups, adcamp.MaxIssues)
	msg := noun + " " + dups[0].Issue
	if total > len(details) {
		msg = fmt.Sprintf("%d %ss are duplicates: %s %s (details list the first %d)", total, noun, dups[0].Field, dups[0].Issue, len(details))
	} else if total > 1 {
		msg = fmt.Sprintf("%d %ss are duplicates: %s %s (see details for the rest)", total, noun, dups[0].Field, dups[0].Issue)
	}
	return failed, &adcamp.Error{Code: adcamp.CodeDuplicateKeyword, Message: msg, Details: details}
}
