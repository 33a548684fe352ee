package console

// Paging of lists.

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/adcamp/adcamp"
)

// pager is the paging of a list: which items are shown of how many, and
// the links to the pages around.
type pager struct {
	First, Last, Total int64 // the items shown, numbered from 1, of Total
	Page, Pages        int64
	Prev, Next         string // "" at the ends
	FirstPage          string // a link back to page 1 past the end
}

// defaultPageSize is the API's default page size.
const defaultPageSize = 20

// pageParam reads ?page= (1 if absent); anything else but a positive
// integer is 0, which the service refuses as the API does.
func pageParam(r *http.Request) int {
	v := r.URL.Query().Get("page")
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// newPager pages a list at path, whose other parameters are q.
func newPager[T any](p *adcamp.Page[T], path string, q url.Values) pager {
	pg := pager{Total: p.TotalItems, Page: int64(p.Page), Pages: p.TotalPages()}
	if len(p.Items) > 0 {
		pg.First = int64((p.Page-1)*p.PageSize) + 1
		pg.Last = pg.First + int64(len(p.Items)) - 1
	}
	link := func(n int64) string {
		v := url.Values{}
		for k, vs := range q {
			if len(vs) > 0 && vs[0] != "" {
				v.Set(k, vs[0])
			}
		}
		if n > 1 {
			v.Set("page", strconv.FormatInt(n, 10))
		}
		if len(v) == 0 {
			return path
		}
		return path + "?" + v.Encode()
	}
	if pg.Page > 1 && pg.Page <= pg.Pages {
		pg.Prev = link(pg.Page - 1)
	}
	if pg.Page < pg.Pages {
		pg.Next = link(pg.Page + 1)
	}
	if pg.Page > pg.Pages && pg.Total > 0 {
		pg.FirstPage = link(1)
	}
	return pg
}
