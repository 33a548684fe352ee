package httpapi

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/signing"
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
	k, err := s.svc.KeyFor(c.key, r.Header.Get("Idempotency-Key"), r.Header.Get(signing.HeaderTimestamp), lower(r.Header.Get(signing.HeaderSignature)),
		r.Method, path, r.URL.RawQuery, r.Header.Get("If-Match"), c.body)
	if err != nil {
		return err
	}
	ans, replayed, err := s.svc.Once(r.Context(), k, func(ctx context.Context) (*service.Answer, error) {
		buf := &bufferedWriter{header: http.Header{"X-Request-Id": {requestID(w)}}}
		rc := r.WithContext(ctx)
		if err := h(buf, rc, c); err != nil {
			var e *adcamp.Error
			if !errors.As(err, &e) {
				return nil, err // the store's to retry or report
			}
			s.writeError(buf, rc, err)
		}
		return buf.answer(), nil
	})
	if err != nil {
		return err
	}
	for name, v := range ans.Header {
		w.Header().Set(name, v)
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(ans.Body)))
	w.WriteHeader(ans.Status)
	w.Write(ans.Body)
	return nil
}

func lower(s string) string { return strings.ToLower(s) }

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

func (b *bufferedWriter) answer() *service.Answer {
	a := &service.Answer{Status: b.status, Header: map[string]string{}, Body: b.body.Bytes()}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	for _, name := range replayedHeaders {
		if v := b.header.Get(name); v != "" {
			a.Header[name] = v
		}
	}
	return a
}
