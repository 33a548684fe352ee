package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"
)

// op is one API operation, for call.
type op struct {
	method  string
	path    string // relative to the base URL, escaped
	query   url.Values
	body    any
	ifMatch int64 // sent as If-Match when > 0
}

// call performs o and decodes the answer's data into a new T.
func call[T any](ctx context.Context, c *Client, o op) (*T, error) {
	path := o.path
	if q := o.query.Encode(); q != "" {
		path += "?" + q
	}
	req, err := c.NewRequest(o.method, path, o.body)
	if err != nil {
		return nil, err
	}
	if o.ifMatch > 0 {
		req.Header.Set("If-Match", `"`+strconv.FormatInt(o.ifMatch, 10)+`"`)
	}
	out := new(T)
	if _, err := c.Do(ctx, req, out); err != nil {
		return nil, err
	}
	return out, nil
}

// esc escapes an id for use as a path segment.
func esc(id string) string { return url.PathEscape(id) }

// allPageSize is the page size the iterators ask for: the largest allowed.
const allPageSize = 100

// all walks every page that list returns, from the first, yielding each
// item; an error is yielded once, and ends the walk.
func all[T any](list func(page int) (*Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for page := 1; ; page++ {
			p, err := list(page)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range p.Items {
				if !yield(item, nil) {
					return
				}
			}
			if len(p.Items) == 0 || int64(page) >= p.TotalPages {
				return
			}
		}
	}
}
