package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
)

// writeJSON renders v completely before writing anything, so that an
// encoding failure becomes a clean 500 rather than half a body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"success":false,"error":{"code":"INTERNAL_ERROR","message":"response could not be encoded","request_id":` +
			strconv.Quote(requestID(w)) + `}}`)
	}
	writeBody(w, status, append(b, '\n'))
}

// jsonType is the Content-Type of every JSON answer. Header values set
// here are assigned under their canonical names, as Header.Set would after
// canonicalising them, once for every answer.
var jsonType = []string{"application/json"}

// writeBody writes a rendered JSON body.
func writeBody(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h["Content-Type"] = jsonType
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	w.Write(b)
}

// bodies are buffers for the answers rendered by jsonAppenders.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

// writeData writes the success envelope around data.
func writeData(w http.ResponseWriter, status int, data any) {
	if a, ok := data.(jsonAppender); ok {
		buf := bodies.Get().(*[]byte)
		b := append((*buf)[:0], `{"success":true,"data":`...)
		b = append(a.appendJSON(b), '}', '\n')
		writeBody(w, status, b)
		if cap(b) <= 64<<10 { // let the rare huge one go
			*buf = b
			bodies.Put(buf)
		}
		return
	}
	writeJSON(w, status, struct {
		Success bool `json:"success"`
		Data    any  `json:"data"`
	}{true, data})
}

// timeJSON formats times as RFC 3339 in UTC with a Z, to the second
// ("2006-01-02T15:04:05Z").
func timeJSON(t time.Time) string { return string(appendTime(nil, t)) }

// appendTime appends t as timeJSON writes it, for years 0 to 9999 by hand:
// it runs twice for every campaign of every answer, and time.Format is a
// parser at heart.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, "2006-01-02T15:04:05Z")
	}
	hour, minute, sec := t.Clock()
	two := func(v int) { b = append(b, byte('0'+v/10), byte('0'+v%10)) }
	two(year / 100)
	two(year % 100)
	b = append(b, '-')
	two(int(month))
	b = append(b, '-')
	two(day)
	b = append(b, 'T')
	two(hour)
	b = append(b, ':')
	two(minute)
	b = append(b, ':')
	two(sec)
	return append(b, 'Z')
}

// apiTime is a time in an answer, written as timeJSON writes it.
type apiTime time.Time

func (t apiTime) MarshalJSON() ([]byte, error) { return t.appendJSON(nil), nil }

func (t apiTime) appendJSON(b []byte) []byte {
	b = append(b, '"')
	return append(appendTime(b, time.Time(t)), '"')
}

// etag is the entity tag of a version: its decimal form in quotes.
func etag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

// writeEntity answers with one entity and its ETag.
func writeEntity(w http.ResponseWriter, status int, version int64, v any) {
	w.Header()["Etag"] = []string{etag(version)}
	writeData(w, status, v)
}

// writeCreated answers a create: 201 with Location, or 200 for a dry run,
// which created nothing. path is relative to the canonical prefix.
func writeCreated(w http.ResponseWriter, dryRun bool, path string, version int64, v any) {
	if dryRun {
		writeEntity(w, http.StatusOK, version, v)
		return
	}
	w.Header().Set("Location", signing.PrefixCanonical+path)
	writeEntity(w, http.StatusCreated, version, v)
}

// deletedJSON is the data of a delete; the counts say what went with it.
type deletedJSON struct {
	ID       string `json:"id"`
	Deleted  bool   `json:"deleted"`
	AdGroups *int64 `json:"deleted_ad_groups,omitempty"`
	Keywords *int64 `json:"deleted_keywords,omitempty"`
}

// listJSON is the data of every list response.
type listJSON[T any] struct {
	Items      []T   `json:"items"`
	Page       int   `json:"page"`
	PageSize   int   `json:"page_size"`
	TotalItems int64 `json:"total_items"`
	TotalPages int64 `json:"total_pages"`
}

func toListJSON[E, T any](p *adcamp.Page[E], conv func(E) T) listJSON[T] {
	items := make([]T, len(p.Items))
	for i, e := range p.Items {
		items[i] = conv(e)
	}
	return listJSON[T]{items, p.Page, p.PageSize, p.TotalItems, p.TotalPages()}
}
