package service

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// checkListName validates a list's name into l.
func checkListName(issues *adcamp.Issues, l *adcamp.NegativeList, in adcamp.NegativeListInput, create bool) {
	if in.Version.Set && create {
		issues.AddKind("version", adcamp.IssueReadOnly, "", "is read-only")
	}
	if (create && requireValue(issues, "name", in.Name)) || (!create && in.Name.Set && notNull(issues, "name", in.Name)) {
		l.Name = strings.TrimSpace(in.Name.Value)
		checkText(issues, "name", l.Name, 200)
	}
}

// CreateNegativeList stores a new, empty shared negative keyword list.
func (s *Ads) CreateNegativeList(ctx context.Context, t adcamp.Tenant, in adcamp.NegativeListInput, dryRun bool) (*adcamp.NegativeList, error) {
	now := s.Now()
	l := &adcamp.NegativeList{ID: adcamp.NewID(adcamp.PrefixNegativeList, now), AccountID: t.AccountID, Environment: t.Environment,
		Version: 1, CreatedAt: now, UpdatedAt: now}
	err := s.transact(ctx, dryRun, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "account", t.AccountID); err != nil {
			return err
		}
		issues := append(adcamp.Issues{}, in.Invalid...)
		checkListName(&issues, l, in, true)
		if err := issues.Err(); err != nil {
			return err
		}
		if dryRun {
			return nil
		}
		if err := tx.CreateNegativeList(ctx, l); err != nil {
			return err
		}
		h := s.newHistory(ctx, now)
		recordList(h, adcamp.OpCreate, nil, l)
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// GetNegativeList returns one of the tenant's lists, with its counts.
func (s *Ads) GetNegativeList(ctx context.Context, t adcamp.Tenant, id string) (*adcamp.NegativeList, error) {
	var l *adcamp.NegativeList
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		l, err = lookupList(ctx, tx, t, id)
		return err
	})
	return l, err
}

// ListNegativeLists returns one page of the tenant's lists, newest first.
func (s *Ads) ListNegativeLists(ctx context.Context, t adcamp.Tenant, page, size int) (*adcamp.Page[*adcamp.NegativeList], error) {
	var issues adcamp.Issues
	checkPaging(&issues, page, size)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	p := &adcamp.Page[*adcamp.NegativeList]{Page: page, PageSize: size}
	err := s.read(ctx, func(tx store.Tx) error {
		var err error
		p.Items, p.TotalItems, err = tx.ListNegativeLists(ctx, t, pageQuery(page, size, ""))
		return err
	})
	return p, err
}

// UpdateNegativeList renames a list.
func (s *Ads) UpdateNegativeList(ctx context.Context, t adcamp.Tenant, id string, in adcamp.NegativeListInput, ifMatch IfMatch, dryRun bool) (*adcamp.NegativeList, error) {
	var l *adcamp.NegativeList
	err := s.transact(ctx, dryRun, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "negative keyword list", id); err != nil {
			return err
		}
		var err error
		if l, err = lookupList(ctx, tx, t, id); err != nil {
			return err
		}
		if err := checkVersion("negative keyword list", l.ID, l.Version, ifMatch, in.Version); err != nil {
			return err
		}
		prev := *l
		issues := append(adcamp.Issues{}, in.Invalid...)
		if !in.Name.Set {
			issues.Add("body", "must contain name")
		}
		checkListName(&issues, l, in, false)
		if err := issues.Err(); err != nil {
			return err
		}
		l.Version++
		l.UpdatedAt = s.Now()
		if dryRun {
			return nil
		}
		if err := tx.UpdateNegativeList(ctx, l); err != nil {
			return err
		}
		h := s.newHistory(ctx, l.UpdatedAt)
		recordList(h, adcamp.OpUpdate, &prev, l)
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// DeleteNegativeList removes a list with its entries, detaching it from
// every campaign.
func (s *Ads) DeleteNegativeList(ctx context.Context, t adcamp.Tenant, id string, ifMatch IfMatch) error {
	return s.writeAds(ctx, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "negative keyword list", id); err != nil {
			return err
		}
		l, err := lookupList(ctx, tx, t, id)
		if err != nil {
			return err
		}
		if err := checkVersion("negative keyword list", l.ID, l.Version, ifMatch, adcamp.Optional[int64]{}); err != nil {
			return err
		}
		entries, _, err := tx.ListNegatives(ctx, t, id, store.ListQuery{Limit: adcamp.MaxNegativeListEntries + 1})
		if err != nil {
			return err
		}
		campaigns, err := tx.CampaignsOfList(ctx, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteNegativeList(ctx, t, id); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		recordNegativeDeletes(h, entries)
		for _, c := range campaigns {
			recordAttach(h, l, c, false)
		}
		recordList(h, adcamp.OpDelete, l, nil)
		return h.write(ctx, tx)
	})
}

// RemoveListEntries removes entries (negatives) from a list by id: up to
// adcamp.MaxNegativeBatch, all or none (an id that is not an entry of the
// list fails the call, naming it).
func (s *Ads) RemoveListEntries(ctx context.Context, t adcamp.Tenant, listID string, ids []string) ([]string, error) {
	var issues adcamp.Issues
	if len(ids) == 0 || len(ids) > adcamp.MaxNegativeBatch {
		kind := adcamp.IssueTooMany
		if len(ids) == 0 {
			kind = adcamp.IssueRequired
		}
		issues.AddKind("ids", kind, strconv.Itoa(adcamp.MaxNegativeBatch), "must hold 1 to %d ids (got %d)", adcamp.MaxNegativeBatch, len(ids))
		return nil, issues.Err()
	}
	var removed []string
	err := s.writeAds(ctx, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "negative keyword list", listID); err != nil {
			return err
		}
		if _, err := lookupList(ctx, tx, t, listID); err != nil {
			return err
		}
		gone, err := tx.DeleteNegatives(ctx, t, listID, ids)
		if err != nil {
			return err
		}
		found := make(map[string]bool, len(gone))
		for _, n := range gone {
			found[n.ID] = true
		}
		var issues adcamp.Issues
		for i, id := range ids {
			if !found[id] {
				issues.Add("ids["+strconv.Itoa(i)+"]", "%q is not an entry of this list", id)
			}
		}
		if err := issues.Err(); err != nil {
			return err // rolls the deletes back
		}
		removed = slices.Clone(ids)
		h := s.newHistory(ctx, s.Now())
		recordNegativeDeletes(h, gone)
		return h.write(ctx, tx)
	})
	return removed, err
}

// Attachment is the outcome of attaching a list to a campaign.
type Attachment struct {
	CampaignID string
	ListID     string
	// Warnings are the campaign's active keywords that the list's active
	// entries block (at most MaxWarnings).
	Warnings []adcamp.Blocked
}

// AttachNegativeList attaches a list to a campaign (again: no change), up
// to adcamp.MaxListsPerCampaign per campaign, warning of the campaign's
// active keywords that the list's active entries block.
func (s *Ads) AttachNegativeList(ctx context.Context, t adcamp.Tenant, campaignID, listID string) (*Attachment, error) {
	a := &Attachment{CampaignID: campaignID, ListID: listID}
	err := s.writeAds(ctx, func(tx store.Tx) error {
		a.Warnings = nil
		if err := s.mayChangeAds(ctx, tx, t, "campaign", campaignID); err != nil {
			return err
		}
		if _, _, err := s.negativeParent(ctx, tx, t, NegativeParent{Level: adcamp.LevelCampaign, ID: campaignID}); err != nil {
			return err
		}
		l, err := lookupList(ctx, tx, t, listID)
		if err != nil {
			return err
		}
		attached, err := tx.AttachedLists(ctx, campaignID)
		if err != nil {
			return err
		}
		if slices.Contains(attached, listID) {
			return s.attachWarnings(ctx, tx, t, a)
		}
		if len(attached) >= adcamp.MaxListsPerCampaign {
			return adcamp.Errorf(adcamp.CodeConflict, "campaign %q has %d negative keyword lists attached, the most it may have; detach one first",
				campaignID, len(attached))
		}
		if _, err := tx.AttachNegativeList(ctx, campaignID, listID, s.Now()); err != nil {
			return err
		}
		if err := s.attachWarnings(ctx, tx, t, a); err != nil {
			return err
		}
		h := s.newHistory(ctx, s.Now())
		recordAttach(h, l, campaignID, true)
		return h.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

func (s *core) attachWarnings(ctx context.Context, tx store.Tx, t adcamp.Tenant, a *Attachment) error {
	entries, err := tx.ActiveNegativeKeys(ctx, t, a.ListID)
	if err != nil || len(entries) == 0 {
		return err
	}
	kws, err := tx.KeywordTexts(ctx, t, []string{a.CampaignID}, "", true)
	if err != nil {
		return err
	}
	a.Warnings = newKeyIndex(entries).blocked(kws, MaxWarnings)
	return nil
}

// DetachNegativeList detaches a list from a campaign; NOT_FOUND if it was
// not attached.
func (s *Ads) DetachNegativeList(ctx context.Context, t adcamp.Tenant, campaignID, listID string) error {
	return s.writeAds(ctx, func(tx store.Tx) error {
		if err := s.mayChangeAds(ctx, tx, t, "campaign", campaignID); err != nil {
			return err
		}
		if _, _, err := s.negativeParent(ctx, tx, t, NegativeParent{Level: adcamp.LevelCampaign, ID: campaignID}); err != nil {
			return err
		}
		l, err := lookupList(ctx, tx, t, listID)
		if err != nil {
			return err
		}
		ok, err := tx.DetachNegativeList(ctx, campaignID, listID)
		if err != nil {
			return err
		}
		if !ok {
			return adcamp.Errorf(adcamp.CodeNotFound, "negative keyword list %q is not attached to campaign %q", listID, campaignID)
		}
		h := s.newHistory(ctx, s.Now())
		recordAttach(h, l, campaignID, false)
		return h.write(ctx, tx)
	})
}

// AttachedLists returns the lists attached to a campaign, in id order.
func (s *Ads) AttachedLists(ctx context.Context, t adcamp.Tenant, campaignID string) ([]*adcamp.NegativeList, error) {
	var out []*adcamp.NegativeList
	err := s.read(ctx, func(tx store.Tx) error {
		if _, err := s.lookupCampaign(ctx, tx, t, campaignID); err != nil {
			return err
		}
		ids, err := tx.AttachedLists(ctx, campaignID)
		if err != nil {
			return err
		}
		out = make([]*adcamp.NegativeList, 0, len(ids))
		for _, id := range ids {
			l, err := tx.GetNegativeList(ctx, t, id)
			if err != nil {
				return err
			}
			out = append(out, l)
		}
		return nil
	})
	return out, err
}

var listFields = []string{"name"}

func listValues(l *adcamp.NegativeList) []*string {
	if l == nil {
		return nil
	}
	return []*string{text(l.Name)}
}

func recordList(h *history, op adcamp.Operation, before, after *adcamp.NegativeList) {
	l := cmpOrPtr(after, before)
	h.add(l.AccountID, l.Environment, adcamp.EntityNegativeList, l.ID, "", "", op,
		diff(op, listFields, listValues(before), listValues(after)))
}

// recordAttach records that a list was attached to (or detached from) a
// campaign: an update of the list's field campaign_id, filed under the
// campaign so that the campaign's history shows it.
func recordAttach(h *history, l *adcamp.NegativeList, campaignID string, attach bool) {
	f := adcamp.FieldChange{Field: "campaign_id", New: text(campaignID)}
	if !attach {
		f = adcamp.FieldChange{Field: "campaign_id", Old: text(campaignID)}
	}
	h.add(l.AccountID, l.Environment, adcamp.EntityNegativeList, l.ID, campaignID, "", adcamp.OpUpdate, []adcamp.FieldChange{f})
}
