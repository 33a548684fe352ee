package operatorapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/service"
)

// postDelivery stores delivery rows: POST /operator/v1/delivery.
func (s *Server) postDelivery(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := checkQuery(r, "environment", "partial_failure"); err != nil {
		return err
	}
	env, err := environment(r, adcamp.Production)
	if err != nil {
		return err
	}
	partial := false
	switch v := r.URL.Query()["partial_failure"]; {
	case len(v) == 0:
	case len(v) == 1 && (v[0] == "true" || v[0] == "false"):
		partial = v[0] == "true"
	default:
		var issues adcamp.Issues
		issues.Add("partial_failure", "must be true or false")
		return issues.Err()
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return adcamp.Errorf(adcamp.CodeUnsupportedMediaType, "Content-Type must be application/json, got %q", ct)
	}
	items, err := decodeDelivery(c.body)
	if err != nil {
		return err
	}
	results, err := s.svc.IngestDelivery(r.Context(), env, items, partial)
	if err != nil {
		return err
	}
	if !partial {
		writeJSON(w, http.StatusOK, map[string]any{"accepted": len(items)})
		return nil
	}
	type itemError struct {
		Code    adcamp.Code `json:"code"`
		Message string      `json:"message"`
		Details any         `json:"details,omitempty"`
	}
	type result struct {
		Index   int        `json:"index"`
		Status  int        `json:"status"`
		Success bool       `json:"success"`
		Error   *itemError `json:"error,omitempty"`
	}
	out := make([]result, len(results))
	accepted := 0
	for i, res := range results {
		out[i].Index = i
		if res.Err == nil {
			out[i].Status, out[i].Success = http.StatusOK, true
			accepted++
			continue
		}
		var e *adcamp.Error
		if !errors.As(res.Err, &e) {
			e = &adcamp.Error{Code: adcamp.CodeInternal, Message: "internal error"}
		}
		out[i].Status = httpapi.StatusOf(e.Code)
		out[i].Error = &itemError{Code: e.Code, Message: e.Message, Details: e.Details}
	}
	writeJSON(w, http.StatusMultiStatus, map[string]any{"items": out, "accepted": accepted, "failed": len(results) - accepted})
	return nil
}

// deliveryRow is one row as sent; numbers are kept raw to be read exactly.
type deliveryRow struct {
	KeywordID   *string         `json:"keyword_id"`
	Hour        *string         `json:"hour"`
	Impressions json.RawMessage `json:"impressions"`
	Clicks      json.RawMessage `json:"clicks"`
	Cost        json.RawMessage `json:"cost"`
	Orders      json.RawMessage `json:"orders"`
	Sales       json.RawMessage `json:"sales"`
}

// decodeDelivery reads {"items": [...]}. A row's wrong shapes are that
// row's problems, so that partial_failure can store the others.
func decodeDelivery(body []byte) ([]service.DeliveryItem, error) {
	if items, ok := fastDecodeDelivery(body); ok {
		return items, nil
	}
	return slowDecodeDelivery(body)
}

// slowDecodeDelivery is decodeDelivery with encoding/json, for any body.
func slowDecodeDelivery(body []byte) ([]service.DeliveryItem, error) {
	var top struct {
		Items *[]json.RawMessage `json:"items"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&top); err != nil {
		if strings.HasPrefix(err.Error(), "json: unknown field") {
			var issues adcamp.Issues
			issues.Add(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), "is not allowed beside items")
			return nil, issues.Err()
		}
		return nil, adcamp.Errorf(adcamp.CodeInvalidJSON, "the body must be a JSON object {\"items\": [...]}: %v", err)
	}
	if dec.More() {
		return nil, adcamp.Errorf(adcamp.CodeInvalidJSON, "the body must hold one JSON object")
	}
	if top.Items == nil {
		var issues adcamp.Issues
		issues.AddKind("items", adcamp.IssueRequired, "", "is required: an array of 1 to %d rows", service.MaxDeliveryBatch)
		return nil, issues.Err()
	}
	raw := *top.Items
	if len(raw) > service.MaxDeliveryBatch {
		var issues adcamp.Issues
		issues.AddKind("items", adcamp.IssueTooMany, "10000", "must hold 1 to %d rows (got %d)", service.MaxDeliveryBatch, len(raw))
		return nil, issues.Err()
	}
	items := make([]service.DeliveryItem, len(raw))
	for i, v := range raw {
		items[i] = decodeRow(v)
	}
	return items, nil
}

func decodeRow(v json.RawMessage) (in service.DeliveryItem) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '{' {
		in.Invalid.Add("item", "must be a JSON object")
		return in
	}
	var row deliveryRow
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&row); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			in.Invalid.Add(te.Field, "must be a string")
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			in.Invalid.Add(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), "is not a known field")
		default:
			in.Invalid.Add("item", "must be a JSON object")
		}
		return in
	}
	if row.KeywordID != nil {
		in.KeywordID = *row.KeywordID
	}
	if row.Hour != nil {
		in.Hour = *row.Hour
	}
	count := func(name string, raw json.RawMessage, dst *adcamp.Optional[int64]) {
		if raw == nil || string(raw) == "null" {
			return
		}
		var n int64
		if !isNumber(raw) || json.Unmarshal(raw, &n) != nil {
			in.Invalid.Add(name, "must be a non-negative integer")
			return
		}
		*dst = adcamp.Some(n)
	}
	money := func(name string, raw json.RawMessage, dst *adcamp.Optional[string]) {
		if raw == nil || string(raw) == "null" {
			return
		}
		if !isNumber(raw) {
			in.Invalid.Add(name, "must be a JSON number, such as 12.50")
			return
		}
		*dst = adcamp.Some(string(raw))
	}
	count("impressions", row.Impressions, &in.Impressions)
	count("clicks", row.Clicks, &in.Clicks)
	count("orders", row.Orders, &in.Orders)
	money("cost", row.Cost, &in.Cost)
	money("sales", row.Sales, &in.Sales)
	return in
}

// isNumber reports whether a JSON value is a number (not a string).
func isNumber(v json.RawMessage) bool {
	return len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
}
