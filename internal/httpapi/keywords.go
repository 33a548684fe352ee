package httpapi

import (
	"errors"
	"net/http"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// keywordJSON is a keyword as the API shows it.
type keywordJSON struct {
	ID        string           `json:"id"`
	AdGroupID string           `json:"ad_group_id"`
	Text      string           `json:"text"`
	MatchType adcamp.MatchType `json:"match_type"`
	Bid       *adcamp.Money    `json:"bid"`
	Status    adcamp.Status    `json:"status"`
	Version   int64            `json:"version"`
	CreatedAt string           `json:"created_at"`
	UpdatedAt string           `json:"updated_at"`
}

func toKeywordJSON(k *adcamp.Keyword) keywordJSON {
	return keywordJSON{
		ID: k.ID, AdGroupID: k.AdGroupID, Text: k.Text, MatchType: k.MatchType, Bid: k.Bid, Status: k.Status,
		Version: k.Version, CreatedAt: timeJSON(k.CreatedAt), UpdatedAt: timeJSON(k.UpdatedAt),
	}
}

// keywordInput reads a keyword create or update body, or one batch item.
func keywordInput(o *object) (in adcamp.KeywordInput) {
	for _, m := range o.members {
		switch m.name {
		case "text":
			o.str(m.name, m.value, &in.Text)
		case "match_type":
			text(o, m.name, m.value, &in.MatchType)
		case "bid":
			o.number(m.name, m.value, &in.Bid)
		case "status":
			text(o, m.name, m.value, &in.Status)
		case "version":
			o.integer(m.name, m.value, &in.Version)
		case "id", "ad_group_id", "created_at", "updated_at":
			o.readOnly(m.name)
		default:
			o.unknown(m.name)
		}
	}
	in.Invalid = o.fields
	return in
}

// keywordItems reads the body of a keyword create: one keyword object, or
// {"items": [...]}.
func keywordItems(r *http.Request, body []byte) ([]adcamp.KeywordInput, bool, error) {
	return batchItems(r, body, adcamp.MaxKeywordBatch, keywordInput, func(in *adcamp.KeywordInput) *adcamp.Issues { return &in.Invalid })
}

// batchItems reads the body of a create of one object or of a batch,
// {"items": [...]} of up to max: read turns an object into its input, and
// invalid returns the input's problems. In a batch, an item's wrong types
// are that item's problems, so that partial_failure can store the others.
func batchItems[T any](r *http.Request, body []byte, max int, read func(*object) T, invalid func(*T) *adcamp.Issues) (items []T, batch bool, err error) {
	obj, err := decodeBody(r, body)
	if err != nil {
		return nil, false, err
	}
	var list *member
	for i := range obj.members {
		if obj.members[i].name == "items" {
			list = &obj.members[i]
		}
	}
	if list == nil {
		return []T{read(obj)}, false, obj.err()
	}
	for _, m := range obj.members {
		if m.name != "items" {
			obj.fields.Add(m.name, "is not allowed beside items")
		}
	}
	if err := obj.fields.Err(); err != nil {
		return nil, true, err
	}
	values, err := arrayElements(list.value, max)
	if err != nil {
		return nil, true, err
	}
	items = make([]T, len(values))
	for i, v := range values {
		if v.Kind() != '{' {
			invalid(&items[i]).Add("item", "must be a JSON object")
			continue
		}
		o, err := parseObject(v)
		if err != nil {
			return nil, true, err
		}
		items[i] = read(o)
		*invalid(&items[i]) = append(*invalid(&items[i]), o.types...)
	}
	return items, true, nil
}

func (s *Server) createKeywords(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "validate_only", "partial_failure")
	opts := service.BatchOptions{DryRun: q.bool("validate_only"), Partial: q.bool("partial_failure")}
	if err := q.issues.Err(); err != nil {
		return err
	}
	items, batch, err := keywordItems(r, c.body)
	if err != nil {
		return err
	}
	opts.Batch = batch
	opts.Partial = opts.Partial && batch
	results, err := s.svc.CreateKeywords(r.Context(), c.tenant, r.PathValue("ad_group_id"), items, opts)
	if err != nil {
		return err
	}
	switch {
	case !batch:
		k := results[0].Keyword
		writeCreated(w, opts.DryRun, "/keywords/"+k.ID, k.Version, toKeywordJSON(k))
	case opts.Partial:
		writeData(w, http.StatusMultiStatus, batchJSON(results, opts.DryRun))
	default:
		out := make([]keywordJSON, len(results))
		for i, res := range results {
			out[i] = toKeywordJSON(res.Keyword)
		}
		status := http.StatusCreated
		if opts.DryRun {
			status = http.StatusOK
		}
		writeData(w, status, map[string]any{"items": out})
	}
	return nil
}

// batchResultJSON is one item's outcome in a 207 answer.
type batchResultJSON struct {
	Index   int          `json:"index"`
	Status  int          `json:"status"`
	Success bool         `json:"success"`
	Data    *keywordJSON `json:"data,omitempty"`
	Error   *errorBody   `json:"error,omitempty"`
}

func batchJSON(results []adcamp.BatchResult, dryRun bool) map[string]any {
	out := make([]batchResultJSON, len(results))
	created := 0
	for i, res := range results {
		out[i].Index = i
		if res.Keyword != nil {
			k := toKeywordJSON(res.Keyword)
			out[i].Status, out[i].Success, out[i].Data = http.StatusCreated, true, &k
			if dryRun {
				out[i].Status = http.StatusOK
			}
			created++
			continue
		}
		var e *adcamp.Error
		if !errors.As(res.Err, &e) {
			e = &adcamp.Error{Code: adcamp.CodeInternal, Message: "internal error"}
		}
		out[i].Status = statusOf[e.Code]
		out[i].Error = &errorBody{Code: e.Code, Message: e.Message, Details: e.Details}
	}
	return map[string]any{"items": out, "created": created, "failed": len(results) - created}
}

func (s *Server) listKeywords(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "page", "page_size", "status", "match_type", "blocked")
	page, size := q.paging()
	f := adcamp.KeywordFilter{Page: page, PageSize: size, Status: adcamp.Status(q.str("status")), MatchType: adcamp.MatchType(q.str("match_type"))}
	blocked := q.bool("blocked")
	if err := q.issues.Err(); err != nil {
		return err
	}
	list := s.svc.ListKeywords
	if blocked {
		list = s.svc.ListBlockedKeywords // the keywords a negative blocks
	}
	p, err := list(r.Context(), c.tenant, r.PathValue("ad_group_id"), f)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, toListJSON(p, toKeywordJSON))
	return nil
}

func (s *Server) getKeyword(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	k, err := s.svc.GetKeyword(r.Context(), c.tenant, r.PathValue("keyword_id"))
	if err != nil {
		return err
	}
	writeEntity(w, http.StatusOK, k.Version, toKeywordJSON(k))
	return nil
}

func (s *Server) updateKeyword(w http.ResponseWriter, r *http.Request, c *call) error {
	dryRun, in, err := decodeMutation(r, c, keywordInput)
	if err != nil {
		return err
	}
	k, err := s.svc.UpdateKeyword(r.Context(), c.tenant, r.PathValue("keyword_id"), in, parseIfMatch(r), dryRun)
	if err != nil {
		return err
	}
	writeEntity(w, http.StatusOK, k.Version, toKeywordJSON(k))
	return nil
}

func (s *Server) deleteKeyword(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	id := r.PathValue("keyword_id")
	if err := s.svc.DeleteKeyword(r.Context(), c.tenant, id, parseIfMatch(r)); err != nil {
		return err
	}
	writeData(w, http.StatusOK, deletedJSON{ID: id, Deleted: true})
	return nil
}
