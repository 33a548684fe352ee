package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// changeJSON is a change record in an answer. Parent ids appear on the
// records of what has a parent (campaign_id on ad groups and keywords,
// ad_group_id on keywords); environment is null on member records, and
// request_id where no request made the change (the command line, the
// system).
type changeJSON struct {
	ID             string              `json:"id"`
	OccurredAt     string              `json:"occurred_at"`
	Environment    *adcamp.Environment `json:"environment"`
	EntityType     adcamp.EntityType   `json:"entity_type"`
	EntityID       string              `json:"entity_id"`
	CampaignID     string              `json:"campaign_id,omitempty"`
	AdGroupID      string              `json:"ad_group_id,omitempty"`
	Operation      adcamp.Operation    `json:"operation"`
	Changes        json.RawMessage     `json:"changes"`
	Actor          adcamp.Actor        `json:"actor"`
	RequestID      *string             `json:"request_id"`
	IdempotencyKey string              `json:"idempotency_key,omitempty"`
	TransactionID  string              `json:"transaction_id"`
}

// changeTime writes occurred_at to the millisecond: records of one second
// are told apart, and since and until can name any of them.
const changeTime = "2006-01-02T15:04:05.000Z"

func toChangeJSON(c *adcamp.Change) changeJSON {
	j := changeJSON{
		ID: c.ID, OccurredAt: c.OccurredAt.UTC().Format(changeTime), EntityType: c.EntityType, EntityID: c.EntityID,
		Operation: c.Operation, Changes: service.FieldChangesJSON(c.Changes), Actor: c.Actor,
		IdempotencyKey: c.IdempotencyKey, TransactionID: c.TransactionID,
	}
	if c.Environment != "" {
		j.Environment = &c.Environment
	}
	if c.RequestID != "" {
		j.RequestID = &c.RequestID
	}
	if c.CampaignID != c.EntityID {
		j.CampaignID = c.CampaignID
	}
	if c.AdGroupID != c.EntityID {
		j.AdGroupID = c.AdGroupID
	}
	return j
}

// changesJSON is a page of change records.
type changesJSON struct {
	Items      []changeJSON `json:"items"`
	NextCursor *string      `json:"next_cursor"`
}

// The query parameters of the history routes.
var (
	changeParams       = []string{"entity_type", "entity_id", "campaign_id", "actor_type", "actor_id", "since", "until", "cursor", "limit"}
	entityChangeParams = []string{"entity_type", "actor_type", "actor_id", "since", "until", "cursor", "limit"}
)

// changeFilter reads the filter of a history route.
func changeFilter(r *http.Request, allowed []string) (adcamp.ChangeFilter, error) {
	q := parseQuery(r, allowed...)
	f := adcamp.ChangeFilter{
		EntityType: adcamp.EntityType(q.str("entity_type")), EntityID: q.str("entity_id"), CampaignID: q.str("campaign_id"),
		ActorType: adcamp.ActorType(q.str("actor_type")), ActorID: q.str("actor_id"), Cursor: q.str("cursor"),
		Limit: q.int("limit", adcamp.DefaultChangeLimit),
	}
	if f.Limit == 0 {
		f.Limit = -1 // present and 0: out of range, not the default
	}
	f.Since, f.Until = q.time("since"), q.time("until")
	return f, q.issues.Err()
}

// time reads an RFC 3339 time parameter, the zero time if absent.
func (q *query) time(name string) time.Time {
	s := q.str(name)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		q.issues.Add(name, "must be a time written RFC 3339, such as 2026-11-22T09:30:00Z")
	}
	return t
}

func (s *Server) listChanges(w http.ResponseWriter, r *http.Request, c *call) error {
	f, err := changeFilter(r, changeParams)
	if err != nil {
		return err
	}
	page, next, err := s.svc.ListChanges(r.Context(), c.tenant, f)
	if err != nil {
		return err
	}
	writeChanges(w, page, next)
	return nil
}

// entityChanges answers the history of one entity of type typ, whose id
// is the path's parameter param.
func (s *Server) entityChanges(typ adcamp.EntityType, param string) handler {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		f, err := changeFilter(r, entityChangeParams)
		if err != nil {
			return err
		}
		page, next, err := s.svc.EntityChanges(r.Context(), c.tenant, typ, r.PathValue(param), f)
		if err != nil {
			return err
		}
		writeChanges(w, page, next)
		return nil
	}
}

func writeChanges(w http.ResponseWriter, page []*adcamp.Change, next string) {
	out := changesJSON{Items: make([]changeJSON, len(page))}
	for i, c := range page {
		out.Items[i] = toChangeJSON(c)
	}
	if next != "" {
		out.NextCursor = &next
	}
	writeData(w, http.StatusOK, out)
}
