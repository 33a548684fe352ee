package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/service"
)

// Webhooks: endpoints (/webhook-endpoints), their delivery log, tests and
// redeliveries, and the events (/events) for clients that poll.

// endpointJSON is a webhook endpoint as the API shows it; Secret only in
// the answers of a create and a rotation.
type endpointJSON struct {
	ID                      string             `json:"id"`
	Environment             adcamp.Environment `json:"environment"`
	URL                     string             `json:"url"`
	Description             *string            `json:"description"`
	EventTypes              []string           `json:"event_types"`
	Ordering                string             `json:"ordering"`
	Enabled                 bool               `json:"enabled"`
	DisabledReason          *string            `json:"disabled_reason"`
	FailingSince            *apiTime           `json:"failing_since"`
	PreviousSecretExpiresAt *apiTime           `json:"previous_secret_expires_at"`
	CreatedAt               apiTime            `json:"created_at"`
	UpdatedAt               apiTime            `json:"updated_at"`
	Secret                  string             `json:"secret,omitempty"`
}

func nullTime(t *time.Time) *apiTime {
	if t == nil {
		return nil
	}
	a := apiTime(*t)
	return &a
}

func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toEndpointJSON(e *adcamp.WebhookEndpoint) endpointJSON {
	types := e.EventTypes
	if types == nil {
		types = []string{}
	}
	return endpointJSON{ID: e.ID, Environment: e.Environment, URL: e.URL, Description: nullText(e.Description),
		EventTypes: types, Ordering: e.Ordering, Enabled: e.Enabled, DisabledReason: nullText(e.DisabledReason),
		FailingSince: nullTime(e.FailingSince), PreviousSecretExpiresAt: nullTime(e.PreviousSecretExpiresAt),
		CreatedAt: apiTime(e.CreatedAt), UpdatedAt: apiTime(e.UpdatedAt)}
}

// endpointInput reads a create's or an update's body.
func endpointInput(o *object) (in service.EndpointInput) {
	for _, m := range o.members {
		switch m.name {
		case "url", "description", "ordering":
			var v adcamp.Optional[string]
			o.str(m.name, m.value, &v)
			if v.Null && m.name != "description" {
				o.types.Add(m.name, "must be a string")
			}
			s := v.Value
			switch m.name {
			case "url":
				in.URL = &s
			case "ordering":
				in.Ordering = &s
			default:
				in.Description = &s
			}
		case "event_types":
			var types []string
			if err := json.Unmarshal(m.value, &types); err != nil && m.value.Kind() != 'n' {
				o.types.Add(m.name, "must be an array of strings")
			}
			in.EventTypes = &types
		case "enabled":
			switch m.value.Kind() {
			case 't', 'f':
				b := m.value.Kind() == 't'
				in.Enabled = &b
			default:
				o.types.Add(m.name, "must be true or false")
			}
		case "id", "environment", "disabled_reason", "failing_since", "previous_secret_expires_at", "created_at",
			"updated_at", "secret":
			o.readOnly(m.name)
		default:
			o.unknown(m.name)
		}
	}
	return in
}

func (s *Server) createEndpoint(w http.ResponseWriter, r *http.Request, c *call) error {
	in, err := decodeEndpoint(r, c)
	if err != nil {
		return err
	}
	e, err := s.svc.CreateWebhookEndpoint(r.Context(), c.tenant, in)
	if err != nil {
		return err
	}
	j := toEndpointJSON(&e.WebhookEndpoint)
	j.Secret = e.Secret
	w.Header().Set("Location", signing.PrefixCanonical+"/webhook-endpoints/"+e.ID)
	writeData(w, http.StatusCreated, j)
	return nil
}

func decodeEndpoint(r *http.Request, c *call) (service.EndpointInput, error) {
	if err := parseQuery(r).issues.Err(); err != nil {
		return service.EndpointInput{}, err
	}
	obj, err := decodeBody(r, c.body)
	if err != nil {
		return service.EndpointInput{}, err
	}
	in := endpointInput(obj)
	if err := obj.err(); err != nil {
		return in, err
	}
	return in, obj.fields.Err()
}

func (s *Server) listEndpoints(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	list, err := s.svc.WebhookEndpoints(r.Context(), c.tenant)
	if err != nil {
		return err
	}
	items := make([]endpointJSON, len(list))
	for i, e := range list {
		items[i] = toEndpointJSON(e)
	}
	writeData(w, http.StatusOK, struct {
		Items []endpointJSON `json:"items"`
	}{items})
	return nil
}

func (s *Server) getEndpoint(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	e, err := s.svc.WebhookEndpoint(r.Context(), c.tenant, r.PathValue("endpoint_id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, toEndpointJSON(e))
	return nil
}

func (s *Server) updateEndpoint(w http.ResponseWriter, r *http.Request, c *call) error {
	in, err := decodeEndpoint(r, c)
	if err != nil {
		return err
	}
	e, err := s.svc.UpdateWebhookEndpoint(r.Context(), c.tenant, r.PathValue("endpoint_id"), in)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, toEndpointJSON(e))
	return nil
}

func (s *Server) deleteEndpoint(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	id := r.PathValue("endpoint_id")
	if err := s.svc.DeleteWebhookEndpoint(r.Context(), c.tenant, id); err != nil {
		return err
	}
	writeData(w, http.StatusOK, deletedJSON{ID: id, Deleted: true})
	return nil
}

// bodyFields reads a small body of known fields, each once; absent from
// the map when not given.
func bodyFields(r *http.Request, c *call, names ...string) (map[string]jsontext.Value, error) {
	if err := parseQuery(r).issues.Err(); err != nil {
		return nil, err
	}
	if len(c.body) == 0 {
		return map[string]jsontext.Value{}, nil
	}
	obj, err := decodeBody(r, c.body)
	if err != nil {
		return nil, err
	}
	out := map[string]jsontext.Value{}
	for _, m := range obj.members {
		if !contains(names, m.name) {
			obj.unknown(m.name)
			continue
		}
		out[m.name] = m.value
	}
	return out, obj.fields.Err()
}

func (s *Server) rotateSecret(w http.ResponseWriter, r *http.Request, c *call) error {
	f, err := bodyFields(r, c, "grace_seconds")
	if err != nil {
		return err
	}
	grace := service.DefaultSecretGrace
	if v, ok := f["grace_seconds"]; ok {
		var n int64
		if v.Kind() != '0' || json.Unmarshal(v, &n) != nil {
			return errorf(adcamp.CodeInvalidJSON, "request body has values of the wrong type: grace_seconds must be an integer")
		}
		grace = time.Duration(n) * time.Second
		if n < 0 || n > int64(service.MaxSecretGrace/time.Second) {
			grace = -1
		}
	}
	e, err := s.svc.RotateWebhookSecret(r.Context(), c.tenant, r.PathValue("endpoint_id"), grace)
	if err != nil {
		return err
	}
	j := toEndpointJSON(&e.WebhookEndpoint)
	j.Secret = e.Secret
	writeData(w, http.StatusOK, j)
	return nil
}

func (s *Server) queueDeliveries(w http.ResponseWriter, r *http.Request, c *call) error {
	f, err := bodyFields(r, c, "event_id", "since", "until", "test")
	if err != nil {
		return err
	}
	if v, ok := f["test"]; ok {
		if v.Kind() != 't' && v.Kind() != 'f' {
			return errorf(adcamp.CodeInvalidJSON, "request body has values of the wrong type: test must be true or false")
		}
		if v.Kind() == 't' {
			if len(f) > 1 {
				return issuesErr("test", "goes alone: a test event, or event_id, or since and until")
			}
			ev, err := s.svc.SendTestEvent(r.Context(), c.tenant, r.PathValue("endpoint_id"))
			if err != nil {
				return err
			}
			writeData(w, http.StatusAccepted, queuedJSON{Queued: 1, TestEventID: ev.ID})
			return nil
		}
	}
	var issues adcamp.Issues
	str := func(name string) string {
		v, ok := f[name]
		if !ok || v.Kind() == 'n' {
			return ""
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			issues.Add(name, "must be a string")
		}
		return s
	}
	at := func(name string) time.Time {
		s := str(name)
		if s == "" {
			return time.Time{}
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			issues.Add(name, "must be a time written RFC 3339, such as 2026-11-22T09:30:00Z")
		}
		return t
	}
	eventID, since, until := str("event_id"), at("since"), at("until")
	if eventID != "" && (!since.IsZero() || !until.IsZero()) {
		issues.Add("event_id", "goes alone: give either event_id or since (and until)")
	}
	if err := issues.Err(); err != nil {
		return err
	}
	n, err := s.svc.Redeliver(r.Context(), c.tenant, r.PathValue("endpoint_id"), eventID, since, until)
	if err != nil {
		return err
	}
	writeData(w, http.StatusAccepted, queuedJSON{Queued: n})
	return nil
}

// queuedJSON says what POST .../deliveries queued.
type queuedJSON struct {
	Queued      int    `json:"queued"`
	TestEventID string `json:"test_event_id,omitempty"`
}

func issuesErr(field, msg string) error {
	var issues adcamp.Issues
	issues.Add(field, "%s", msg)
	return issues.Err()
}

// getSecretState answers what may be known of an endpoint's secret: not
// the secret (shown once), but whether a rotated one still signs.
func (s *Server) getSecretState(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	e, err := s.svc.WebhookEndpoint(r.Context(), c.tenant, r.PathValue("endpoint_id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, struct {
		EndpointID              string   `json:"endpoint_id"`
		PreviousSecretExpiresAt *apiTime `json:"previous_secret_expires_at"`
	}{e.ID, nullTime(e.PreviousSecretExpiresAt)})
	return nil
}

// attemptJSON is one entry of an endpoint's delivery log.
type attemptJSON struct {
	ID          string  `json:"id"`
	EventID     string  `json:"event_id"`
	EventType   string  `json:"event_type"`
	AttemptedAt string  `json:"attempted_at"`
	Status      *int    `json:"status"`
	LatencyMS   int64   `json:"latency_ms"`
	Succeeded   bool    `json:"succeeded"`
	Error       *string `json:"error"`
	Response    string  `json:"response"`
}

func (s *Server) listAttempts(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "cursor", "limit")
	cursor, limit := q.str("cursor"), q.int("limit", adcamp.DefaultChangeLimit)
	if limit == 0 {
		limit = -1
	}
	if err := q.issues.Err(); err != nil {
		return err
	}
	page, next, err := s.svc.DeliveryAttempts(r.Context(), c.tenant, r.PathValue("endpoint_id"), cursor, limit)
	if err != nil {
		return err
	}
	items := make([]attemptJSON, len(page))
	for i, a := range page {
		items[i] = attemptJSON{ID: a.ID, EventID: a.EventID, EventType: a.EventType,
			AttemptedAt: a.AttemptedAt.UTC().Format(changeTime), LatencyMS: a.LatencyMS, Succeeded: a.Succeeded,
			Error: nullText(a.Error), Response: a.Response}
		if a.Status != 0 {
			items[i].Status = &a.Status
		}
	}
	writePage(w, items, next)
	return nil
}

func writePage[T any](w http.ResponseWriter, items []T, next string) {
	out := struct {
		Items      []T     `json:"items"`
		NextCursor *string `json:"next_cursor"`
	}{Items: items}
	if next != "" {
		out.NextCursor = &next
	}
	writeData(w, http.StatusOK, out)
}

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "type", "since", "until", "cursor", "limit")
	f := service.EventFilter{Cursor: q.str("cursor"), Limit: q.int("limit", adcamp.DefaultChangeLimit)}
	if f.Limit == 0 {
		f.Limit = -1
	}
	if t := q.str("type"); t != "" {
		f.Types = strings.Split(t, ",")
	}
	f.Since, f.Until = q.time("since"), q.time("until")
	if err := q.issues.Err(); err != nil {
		return err
	}
	page, next, err := s.svc.Events(r.Context(), c.tenant, f)
	if err != nil {
		return err
	}
	items := make([]json.RawMessage, len(page))
	for i, e := range page {
		items[i] = e.Payload
	}
	writePage(w, items, next)
	return nil
}

func (s *Server) getEvent(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	e, err := s.svc.Event(r.Context(), c.tenant, r.PathValue("event_id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, json.RawMessage(e.Payload))
	return nil
}
