package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/jsonwrite"
	"github.com/adcamp/adcamp/internal/service"
)

// replayedHeaders are the headers of an answer kept for its replays: the
// name they are kept under, and the canonical key of http.Header.
var replayedHeaders = [...]struct{ name, key string }{
	{"Content-Type", "Content-Type"}, {"Location", "Location"}, {"ETag", "Etag"}, {"Retry-After", "Retry-After"},
}

// replayedKey is http.CanonicalHeaderKey(name) for a kept header's name.
func replayedKey(name string) string {
	for _, h := range replayedHeaders {
		if h.name == name {
			return h.key
		}
	}
	return http.CanonicalHeaderKey(name)
}

// serveOnce runs a mutating request through the service's replay
// protection: its answer is rendered into a buffer inside the request's
// transaction, stored with it, and only then sent; a replay gets the
// stored answer with Idempotent-Replayed: true.
func (s *Server) serveOnce(w http.ResponseWriter, r *http.Request, c *call, h handler) error {
	path := signing.RequestPath(r)
	if rel, ok := signing.RelativePath(path); ok {
		path = rel
	}
	k, err := s.svc.ReplayKeyFor(service.SignedRequest{
		Credential: c.key, IdempotencyKey: get(r.Header, headerIdempotencyKey),
		Timestamp: get(r.Header, headerTimestamp), Signature: strings.ToLower(get(r.Header, headerSignature)),
		Method: r.Method, Path: path, Query: r.URL.RawQuery, IfMatch: get(r.Header, headerIfMatch), Body: c.body,
	})
	if err != nil {
		return err
	}
	// The change is the API key's, made by this request: the change
	// history names them (reads need no origin).
	ctx := service.WithOrigin(r.Context(), service.Origin{
		Actor:     adcamp.Actor{Type: adcamp.ActorAPIKey, ID: c.key.ID},
		RequestID: requestID(w), IdempotencyKey: get(r.Header, headerIdempotencyKey),
	})
	var kept map[string]string // the headers of the answer this request made, if it made one
	stored, replayed, err := s.svc.Once(ctx, k, func(ctx context.Context) (*service.Answer, service.Outcome, error) {
		buf := &bufferedWriter{header: http.Header{headerRequestID: {requestID(w)}}}
		rc := r.WithContext(ctx)
		if err := h(buf, rc, c); err != nil {
			var e *adcamp.Error
			if !errors.As(err, &e) {
				return nil, 0, err // the store's to retry or report
			}
			s.writeError(buf, rc, err)
		}
		ans, outcome, header, err := buf.answer()
		kept = header
		return ans, outcome, err
	})
	if err != nil {
		return err
	}
	header := kept
	if replayed {
		// Another request's answer: its headers as they were stored.
		if header, err = parseHeaderJSON(stored.Header); err != nil {
			return fmt.Errorf("stored answer: %w", err)
		}
	}
	for name, v := range header {
		w.Header()[replayedKey(name)] = []string{v}
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(stored.Body))}
	w.WriteHeader(stored.Status)
	w.Write(stored.Body)
	return nil
}

// bufferedWriter holds an answer until the transaction that made it commits.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header { return b.header }

func (b *bufferedWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// answer is the buffered answer as replay protection keeps it, and what
// becomes of the request's change: a success commits; a client error
// (4xx) is refused, its answer kept for the same request; a rate limit or
// a server error is forgotten, so that a retry executes again.
func (b *bufferedWriter) answer() (*service.Answer, service.Outcome, map[string]string, error) {
	status := cmp.Or(b.status, http.StatusOK)
	kept := make(map[string]string, len(replayedHeaders))
	for _, h := range replayedHeaders {
		if v := get(b.header, h.key); v != "" {
			kept[h.name] = v
		}
	}
	ans := &service.Answer{Status: status, Header: headerJSON(kept), Body: b.body.Bytes()}
	if len(ans.Header)+len(ans.Body) > service.SmallAnswer { // only then may it be kept as its placeholder
		var err error
		if ans.Placeholder, err = placeholder(status, get(b.header, headerRequestID), len(ans.Body)); err != nil {
			return nil, 0, nil, err
		}
	}
	switch {
	case status >= 500 || status == http.StatusTooManyRequests:
		return ans, service.Forget, kept, nil
	case status >= 400:
		return ans, service.Refuse, kept, nil
	}
	return ans, service.Commit, kept, nil
}

// placeholder is what replays get of an answer too large to keep (see
// the service's budget.go): 409 CONFLICT, saying that the request was
// answered, how, and by which request.
func placeholder(status int, requestID string, size int) (*service.Answer, error) {
	body, err := json.Marshal(map[string]any{"success": false, "error": errorBody{
		Code: adcamp.CodeConflict,
		Message: fmt.Sprintf("this request was already answered (status %d, %d bytes), but that answer was too large "+
			"to keep for replays: read the resources it changed to see its outcome", status, size),
		RequestID: requestID,
	}})
	if err != nil {
		return nil, err
	}
	header := headerJSON(map[string]string{"Content-Type": "application/json"})
	return &service.Answer{Status: http.StatusConflict, Header: header, Body: append(body, '\n')}, nil
}

// headerJSON encodes the kept headers as a JSON object, names in order
// (as json.Marshal would write them), without reflection: jsonwrite
// escapes as encoding/json does, in fewer instructions than the
// strconv.AppendQuote it replaces, which cost 4 % of a create's in the
// handler (callgrind, bench/instructions.sh).
func headerJSON(h map[string]string) []byte {
	names := make([]string, 0, 4)
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names)
	b := make([]byte, 0, 96)
	b = append(b, '{')
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonwrite.AppendString(b, name, jsonwrite.EncodingJSON), ':')
		b = jsonwrite.AppendString(b, h[name], jsonwrite.EncodingJSON)
	}
	return append(b, '}')
}

// parseHeaderJSON reads what headerJSON wrote.
func parseHeaderJSON(b []byte) (map[string]string, error) {
	var h map[string]string
	err := json.Unmarshal(b, &h)
	return h, err
}
