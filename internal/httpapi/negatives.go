package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// negativeRoutes installs the routes of negative keywords and shared
// negative lists under prefix p (issue 35).
func (s *Server) negativeRoutes(p string) {
	s.handle("POST "+p+"/ad-groups/{ad_group_id}/negative-keywords", s.signed(s.createNegatives(adcamp.LevelAdGroup, "ad_group_id")))
	s.handle("GET "+p+"/ad-groups/{ad_group_id}/negative-keywords", s.signed(s.listNegatives(adcamp.LevelAdGroup, "ad_group_id")))
	s.handle("POST "+p+"/campaigns/{campaign_id}/negative-keywords", s.signed(s.createNegatives(adcamp.LevelCampaign, "campaign_id")))
	s.handle("GET "+p+"/campaigns/{campaign_id}/negative-keywords", s.signed(s.listNegatives(adcamp.LevelCampaign, "campaign_id")))
	s.handle("GET "+p+"/negative-keywords/{negative_keyword_id}", s.signed(s.getNegative))
	s.handle("PUT "+p+"/negative-keywords/{negative_keyword_id}", s.signed(s.updateNegative))
	s.handle("DELETE "+p+"/negative-keywords/{negative_keyword_id}", s.signed(s.deleteNegative))

	s.handle("POST "+p+"/negative-keyword-lists", s.signed(s.createNegativeList))
	s.handle("GET "+p+"/negative-keyword-lists", s.signed(s.listNegativeLists))
	s.handle("GET "+p+"/negative-keyword-lists/{list_id}", s.signed(s.getNegativeList))
	s.handle("PUT "+p+"/negative-keyword-lists/{list_id}", s.signed(s.updateNegativeList))
	s.handle("DELETE "+p+"/negative-keyword-lists/{list_id}", s.signed(s.deleteNegativeList))
	s.handle("POST "+p+"/negative-keyword-lists/{list_id}/entries", s.signed(s.createNegatives(adcamp.LevelList, "list_id")))
	s.handle("GET "+p+"/negative-keyword-lists/{list_id}/entries", s.signed(s.listNegatives(adcamp.LevelList, "list_id")))
	s.handle("DELETE "+p+"/negative-keyword-lists/{list_id}/entries", s.signed(s.removeListEntries))

	s.handle("GET "+p+"/campaigns/{campaign_id}/negative-keyword-lists", s.signed(s.attachedLists))
	s.handle("GET "+p+"/campaigns/{campaign_id}/negative-keyword-lists/{list_id}", s.signed(s.attachedList))
	s.handle("PUT "+p+"/campaigns/{campaign_id}/negative-keyword-lists/{list_id}", s.signed(s.attachList))
	s.handle("DELETE "+p+"/campaigns/{campaign_id}/negative-keyword-lists/{list_id}", s.signed(s.detachList))
}

// negativeJSON is a negative keyword as the API shows it.
type negativeJSON struct {
	ID         string               `json:"id"`
	Level      adcamp.NegativeLevel `json:"level"`
	CampaignID *string              `json:"campaign_id"`
	AdGroupID  *string              `json:"ad_group_id"`
	ListID     *string              `json:"list_id"`
	Text       string               `json:"text"`
	MatchType  adcamp.MatchType     `json:"match_type"`
	Status     adcamp.Status        `json:"status"`
	Version    int64                `json:"version"`
	CreatedAt  string               `json:"created_at"`
	UpdatedAt  string               `json:"updated_at"`
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toNegativeJSON(n *adcamp.NegativeKeyword) negativeJSON {
	return negativeJSON{
		ID: n.ID, Level: n.Level(), CampaignID: orNull(n.CampaignID), AdGroupID: orNull(n.AdGroupID), ListID: orNull(n.ListID),
		Text: n.Text, MatchType: n.MatchType, Status: n.Status, Version: n.Version,
		CreatedAt: timeJSON(n.CreatedAt), UpdatedAt: timeJSON(n.UpdatedAt),
	}
}

// warningJSON names a keyword that a negative blocks.
type warningJSON struct {
	KeywordID  string `json:"keyword_id"`
	Text       string `json:"text"`
	NegativeID string `json:"negative_keyword_id"`
}

func toWarnings(bs []adcamp.Blocked) []warningJSON {
	out := make([]warningJSON, len(bs))
	for i, b := range bs {
		out[i] = warningJSON{KeywordID: b.KeywordID, Text: b.Text, NegativeID: b.NegativeID}
	}
	return out
}

// negativeCreatedJSON is the answer to the create of one negative.
type negativeCreatedJSON struct {
	negativeJSON
	Warnings []warningJSON `json:"warnings"`
}

// negativeInput reads a negative keyword create or update body, or one
// batch item.
func negativeInput(o *object) (in adcamp.NegativeInput) {
	for _, m := range o.members {
		switch m.name {
		case "text":
			o.str(m.name, m.value, &in.Text)
		case "match_type":
			text(o, m.name, m.value, &in.MatchType)
		case "status":
			text(o, m.name, m.value, &in.Status)
		case "version":
			o.integer(m.name, m.value, &in.Version)
		case "id", "level", "campaign_id", "ad_group_id", "list_id", "created_at", "updated_at":
			o.readOnly(m.name)
		default:
			o.unknown(m.name)
		}
	}
	in.Invalid = o.fields
	return in
}

// negativeItems reads the body of a negatives create: one object, or
// {"items": [...]}.
func negativeItems(r *http.Request, body []byte) ([]adcamp.NegativeInput, bool, error) {
	return batchItems(r, body, adcamp.MaxNegativeBatch, negativeInput, func(in *adcamp.NegativeInput) *adcamp.Issues { return &in.Invalid })
}

// negativeResultJSON is one item's outcome in a 207 answer.
type negativeResultJSON struct {
	Index   int           `json:"index"`
	Status  int           `json:"status"`
	Success bool          `json:"success"`
	Data    *negativeJSON `json:"data,omitempty"`
	Error   *errorBody    `json:"error,omitempty"`
}

func (s *Server) createNegatives(level adcamp.NegativeLevel, param string) func(http.ResponseWriter, *http.Request, *call) error {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		q := parseQuery(r, "validate_only", "partial_failure")
		opts := service.BatchOptions{DryRun: q.bool("validate_only"), Partial: q.bool("partial_failure")}
		if err := q.issues.Err(); err != nil {
			return err
		}
		items, batch, err := negativeItems(r, c.body)
		if err != nil {
			return err
		}
		opts.Batch = batch
		opts.Partial = opts.Partial && batch
		out, err := s.svc.CreateNegatives(r.Context(), c.tenant, service.NegativeParent{Level: level, ID: r.PathValue(param)}, items, opts)
		if err != nil {
			return err
		}
		warnings := toWarnings(out.Warnings)
		created := http.StatusCreated
		if opts.DryRun {
			created = http.StatusOK
		}
		switch {
		case !batch:
			n := out.Results[0].Negative
			writeCreated(w, opts.DryRun, "/negative-keywords/"+n.ID, n.Version, negativeCreatedJSON{toNegativeJSON(n), warnings})
		case opts.Partial:
			res := make([]negativeResultJSON, len(out.Results))
			ok := 0
			for i, r := range out.Results {
				res[i].Index = i
				if r.Negative != nil {
					n := toNegativeJSON(r.Negative)
					res[i].Status, res[i].Success, res[i].Data = created, true, &n
					ok++
					continue
				}
				var e *adcamp.Error
				if !errors.As(r.Err, &e) {
					e = &adcamp.Error{Code: adcamp.CodeInternal, Message: "internal error"}
				}
				res[i].Status, res[i].Error = statusOf[e.Code], &errorBody{Code: e.Code, Message: e.Message, Details: e.Details}
			}
			writeData(w, http.StatusMultiStatus, map[string]any{"items": res, "created": ok, "failed": len(res) - ok, "warnings": warnings})
		default:
			list := make([]negativeJSON, len(out.Results))
			for i, r := range out.Results {
				list[i] = toNegativeJSON(r.Negative)
			}
			writeData(w, created, map[string]any{"items": list, "warnings": warnings})
		}
		return nil
	}
}

func (s *Server) listNegatives(level adcamp.NegativeLevel, param string) func(http.ResponseWriter, *http.Request, *call) error {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		q := parseQuery(r, "page", "page_size", "status", "match_type")
		page, size := q.paging()
		f := adcamp.NegativeFilter{Page: page, PageSize: size, Status: adcamp.Status(q.str("status")), MatchType: adcamp.MatchType(q.str("match_type"))}
		if err := q.issues.Err(); err != nil {
			return err
		}
		p, err := s.svc.ListNegatives(r.Context(), c.tenant, service.NegativeParent{Level: level, ID: r.PathValue(param)}, f)
		if err != nil {
			return err
		}
		writeData(w, http.StatusOK, toListJSON(p, toNegativeJSON))
		return nil
	}
}

func (s *Server) getNegative(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	n, err := s.svc.GetNegative(r.Context(), c.tenant, r.PathValue("negative_keyword_id"))
	if err != nil {
		return err
	}
	writeEntity(w, http.StatusOK, n.Version, toNegativeJSON(n))
	return nil
}

func (s *Server) updateNegative(w http.ResponseWriter, r *http.Request, c *call) error {
	dryRun, in, err := decodeMutation(r, c, negativeInput)
	if err != nil {
		return err
	}
	n, err := s.svc.UpdateNegative(r.Context(), c.tenant, r.PathValue("negative_keyword_id"), in, parseIfMatch(r), dryRun)
	if err != nil {
		return err
	}
	writeEntity(w, http.StatusOK, n.Version, toNegativeJSON(n))
	return nil
}

func (s *Server) deleteNegative(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	id := r.PathValue("negative_keyword_id")
	if err := s.svc.DeleteNegative(r.Context(), c.tenant, id, parseIfMatch(r)); err != nil {
		return err
	}
	writeData(w, http.StatusOK, deletedJSON{ID: id, Deleted: true})
	return nil
}

// negativeListJSON is a shared negative keyword list as the API shows it.
type negativeListJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Entries   int64  `json:"entries"`
	Campaigns int64  `json:"campaigns"`
	Version   int64  `json:"version"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

func toNegativeListJSON(l *adcamp.NegativeList) negativeListJSON {
	return negativeListJSON{ID: l.ID, Name: l.Name, Entries: l.Entries, Campaigns: l.Campaigns, Version: l.Version,
		CreatedAt: timeJSON(l.CreatedAt), UpdatedAt: timeJSON(l.UpdatedAt)}
}

func negativeListInput(o *object) (in adcamp.NegativeListInput) {
	for _, m := range o.members {
		switch m.name {
		case "name":
			o.str(m.name, m.value, &in.Name)
		case "version":
			o.integer(m.name, m.value, &in.Version)
		case "id", "entries", "campaigns", "created_at", "updated_at":
			o.readOnly(m.name)
		default:
			o.unknown(m.name)
		}
	}
	in.Invalid = o.fields
	return in
}

func (s *Server) createNegativeList(w http.ResponseWriter, r *http.Request, c *call) error {
	dryRun, in, err := decodeMutation(r, c, negativeListInput)
	if err != nil {
		return err
	}
	l, err := s.svc.CreateNegativeList(r.Context(), c.tenant, in, dryRun)
	if err != nil {
		return err
	}
	writeCreated(w, dryRun, "/negative-keyword-lists/"+l.ID, l.Version, toNegativeListJSON(l))
	return nil
}

func (s *Server) listNegativeLists(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "page", "page_size")
	page, size := q.paging()
	if err := q.issues.Err(); err != nil {
		return err
	}
	p, err := s.svc.ListNegativeLists(r.Context(), c.tenant, page, size)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, toListJSON(p, toNegativeListJSON))
	return nil
}

func (s *Server) getNegativeList(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	l, err := s.svc.GetNegativeList(r.Context(), c.tenant, r.PathValue("list_id"))
	if err != nil {
		return err
	}
	writeEntity(w, http.StatusOK, l.Version, toNegativeListJSON(l))
	return nil
}

func (s *Server) updateNegativeList(w http.ResponseWriter, r *http.Request, c *call) error {
	dryRun, in, err := decodeMutation(r, c, negativeListInput)
	if err != nil {
		return err
	}
	l, err := s.svc.UpdateNegativeList(r.Context(), c.tenant, r.PathValue("list_id"), in, parseIfMatch(r), dryRun)
	if err != nil {
		return err
	}
	writeEntity(w, http.StatusOK, l.Version, toNegativeListJSON(l))
	return nil
}

func (s *Server) deleteNegativeList(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	id := r.PathValue("list_id")
	if err := s.svc.DeleteNegativeList(r.Context(), c.tenant, id, parseIfMatch(r)); err != nil {
		return err
	}
	writeData(w, http.StatusOK, deletedJSON{ID: id, Deleted: true})
	return nil
}

// removeListEntries reads ?ids=nkw_a,nkw_b,... (a DELETE takes no body).
func (s *Server) removeListEntries(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "ids")
	raw := q.str("ids")
	if err := q.issues.Err(); err != nil {
		return err
	}
	var ids []string
	if raw != "" {
		ids = strings.Split(raw, ",")
	}
	removed, err := s.svc.RemoveListEntries(r.Context(), c.tenant, r.PathValue("list_id"), ids)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, map[string]any{"removed": removed})
	return nil
}

// attachmentJSON is the answer to an attach.
type attachmentJSON struct {
	CampaignID string        `json:"campaign_id"`
	ListID     string        `json:"list_id"`
	Attached   bool          `json:"attached"`
	Warnings   []warningJSON `json:"warnings"`
}

func (s *Server) attachList(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	if len(c.body) > 0 {
		if _, err := decodeBody(r, c.body); err != nil {
			return err
		}
	}
	a, err := s.svc.AttachNegativeList(r.Context(), c.tenant, r.PathValue("campaign_id"), r.PathValue("list_id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, attachmentJSON{CampaignID: a.CampaignID, ListID: a.ListID, Attached: true, Warnings: toWarnings(a.Warnings)})
	return nil
}

func (s *Server) detachList(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	id := r.PathValue("list_id")
	if err := s.svc.DetachNegativeList(r.Context(), c.tenant, r.PathValue("campaign_id"), id); err != nil {
		return err
	}
	writeData(w, http.StatusOK, deletedJSON{ID: id, Deleted: true})
	return nil
}

func (s *Server) attachedLists(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	ls, err := s.svc.AttachedLists(r.Context(), c.tenant, r.PathValue("campaign_id"))
	if err != nil {
		return err
	}
	items := make([]negativeListJSON, len(ls))
	for i, l := range ls {
		items[i] = toNegativeListJSON(l)
	}
	writeData(w, http.StatusOK, map[string]any{"items": items})
	return nil
}

// attachedList answers one attached list, or NOT_FOUND if the list is
// not attached to the campaign.
func (s *Server) attachedList(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	ls, err := s.svc.AttachedLists(r.Context(), c.tenant, r.PathValue("campaign_id"))
	if err != nil {
		return err
	}
	id := r.PathValue("list_id")
	for _, l := range ls {
		if l.ID == id {
			writeEntity(w, http.StatusOK, l.Version, toNegativeListJSON(l))
			return nil
		}
	}
	return adcamp.Errorf(adcamp.CodeNotFound, "negative keyword list %q is not attached to campaign %q", id, r.PathValue("campaign_id"))
}
