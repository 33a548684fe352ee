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
	"github.com/adcamp/adcamp/internal/service"
)

// replayedHeaders are the headers of an answer kept for its replays.
var replayedHeaders = []string{"Content-Type", "Location", "ETag"}

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
		Credential: c.key, IdempotencyKey: r.Header.Get("Idempotency-Key"),
		Timestamp: r.Header.Get(signing.HeaderTimestamp), Signature: strings.ToLower(r.Header.Get(signing.HeaderSignature)),
		Method: r.Method, Path: path, Query: r.URL.RawQuery, IfMatch: r.Header.Get("If-Match"), Body: c.body,
	})
	if err != nil {
		return err
	}
	// The change is the API key's, made by this request: the change
	// history names them (reads need no origin).
	ctx := service.WithOrigin(r.Context(), service.Origin{
		Actor:     adcamp.Actor{Type: adcamp.ActorAPIKey, ID: c.key.ID},
		RequestID: requestID(w), IdempotencyKey: r.Header.Get("Idempotency-Key"),
	})
	var kept map[string]string // the headers of the answer this request made, if it made one
	stored, replayed, err := s.svc.Once(ctx, k, func(ctx context.Context) (*service.Answer, service.Outcome, error) {
		buf := &bufferedWriter{header: http.Header{"X-Request-Id": {requestID(w)}}}
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
		w.Header().Set(name, v)
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(stored.Body)))
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
	for _, name := range replayedHeaders {
		if v := b.header.Get(name); v != "" {
			kept[name] = v
		}
	}
	header, err := headerJSON(kept)
	if err != nil {
		return nil, 0, nil, err
	}
	ans := &service.Answer{Status: status, Header: header, Body: b.body.Bytes()}
	if len(ans.Header)+len(ans.Body) > service.SmallAnswer { // only then may it be kept as its placeholder
		if ans.Placeholder, err = placeholder(status, b.header.Get("X-Request-Id"), len(ans.Body)); err != nil {
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
// service.MaxKeptAnswer): 409 CONFLICT, saying that the request was
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
	header, err := headerJSON(map[string]string{"Content-Type": "application/json"})
	if err != nil {
		return nil, err
	}
	return &service.Answer{Status: http.StatusConflict, Header: header, Body: append(body, '\n')}, nil
}

// headerJSON encodes the kept headers as a JSON object, as json.Marshal
// would but without reflection for the usual headers: names and values of
// printable ASCII, which strconv.Quote writes as valid JSON strings (it
// escapes only the quote and the backslash among them). Others go to
// json.Marshal.
func headerJSON(h map[string]string) ([]byte, error) {
	names := make([]string, 0, len(h))
	for name, v := range h {
		if !printableASCII(name) || !printableASCII(v) {
			return json.Marshal(h)
		}
		names = append(names, name)
	}
	slices.Sort(names) // json.Marshal's order
	b := make([]byte, 0, 96)
	b = append(b, '{')
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(strconv.AppendQuote(b, name), ':')
		b = strconv.AppendQuote(b, h[name])
	}
	return append(b, '}'), nil
}

// parseHeaderJSON reads what headerJSON wrote.
func parseHeaderJSON(b []byte) (map[string]string, error) {
	var h map[string]string
	err := json.Unmarshal(b, &h)
	return h, err
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
