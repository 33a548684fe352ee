package apicmd

import (
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adcamp/adcamp/client"
)

// view says how one kind of entity prints: as a table row, as the
// key/value block of get, and as the API's JSON data.
type view[T any] struct {
	noun   string // "campaign"
	plural string
	header []string         // table columns
	row    func(T) []string // one cell per column
	fields func(T) [][2]string
	json   func(T) any // nil: T is its own JSON form
}

func (v view[T]) jsonOf(x T) any {
	if v.json == nil {
		return x
	}
	return v.json(x)
}

// count says "1 campaign" or "3 campaigns".
func (v view[T]) count(n int64) string { return plural(n, v.noun, v.plural) }

// printJSON prints v as indented JSON.
func (a *apiCommand) printJSON(v any) error {
	enc := json.NewEncoder(a.c.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printf prints a line of text output (nothing with --json).
func (a *apiCommand) printf(format string, args ...any) error {
	if a.json {
		return nil
	}
	_, err := fmt.Fprintf(a.c.stdout, format, args...)
	return err
}

// showOne prints one entity: its JSON, or its key/value block followed by
// a note for a validate-only request.
func showOne[T any](a *apiCommand, v view[T], x T, validateOnly bool) error {
	if a.json {
		return a.printJSON(v.jsonOf(x))
	}
	w := tabwriter.NewWriter(a.c.stdout, 0, 4, 2, ' ', 0)
	for _, f := range v.fields(x) {
		fmt.Fprintf(w, "%s:\t%s\n", f[0], f[1])
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if validateOnly {
		return a.printf("\nValid (--validate-only): nothing was stored.\n")
	}
	return nil
}

// showTable prints entities as an aligned table.
func showTable[T any](a *apiCommand, v view[T], items []T) error {
	w := tabwriter.NewWriter(a.c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, strings.Join(v.header, "\t"))
	for _, x := range items {
		fmt.Fprintln(w, strings.Join(v.row(x), "\t"))
	}
	return w.Flush()
}

// pageJSON is a list as --json prints it: the API's page, or with --all
// every item and their number.
type pageJSON struct {
	Items      []any `json:"items"`
	Page       int   `json:"page,omitempty"`
	PageSize   int   `json:"page_size,omitempty"`
	TotalItems int64 `json:"total_items"`
	TotalPages int64 `json:"total_pages,omitempty"`
}

func jsonItems[T any](v view[T], items []T) []any {
	out := make([]any, len(items))
	for i, x := range items {
		out[i] = v.jsonOf(x)
	}
	return out
}

// listFlags are the flags of a list command.
type listFlags struct {
	page, pageSize int
	all            bool
}

func (a *apiCommand) listFlags() *listFlags {
	var lf listFlags
	a.fs.IntVar(&lf.page, "page", 1, "page `N` to print, from 1")
	a.fs.IntVar(&lf.pageSize, "page-size", 20, "items per page, 1 to 100")
	a.fs.BoolVar(&lf.all, "all", false, "print every page")
	return &lf
}

func (a *apiCommand) checkList(lf *listFlags) error {
	switch {
	case lf.all && a.anyGiven("page", "page-size"):
		return usageError("%s: --all walks every page; leave out --page and --page-size", a.name)
	case lf.page < 1:
		return usageError("--page must be 1 or more, got %d", lf.page)
	case lf.pageSize < 1 || lf.pageSize > 100:
		return usageError("--page-size must be 1 to 100, got %d", lf.pageSize)
	}
	return nil
}

// list runs a list command: one page, or with --all every page through
// the SDK's iterator.
func list[T any](a *apiCommand, v view[T], lf *listFlags,
	page func(client.ListOptions) (*client.Page[T], error), all iter.Seq2[T, error]) error {
	if lf.all {
		items := []T{}
		for x, err := range all {
			if err != nil {
				return apiError(err)
			}
			items = append(items, x)
		}
		if a.json {
			return a.printJSON(pageJSON{Items: jsonItems(v, items), TotalItems: int64(len(items))})
		}
		if len(items) == 0 {
			return a.printf("No %s.\n", v.plural)
		}
		return showList(a, v, items, v.count(int64(len(items)))+".")
	}
	p, err := page(client.ListOptions{Page: lf.page, PageSize: lf.pageSize})
	if err != nil {
		return apiError(err)
	}
	if a.json {
		return a.printJSON(pageJSON{Items: jsonItems(v, p.Items), Page: p.Page, PageSize: p.PageSize,
			TotalItems: p.TotalItems, TotalPages: p.TotalPages})
	}
	switch {
	case p.TotalItems == 0:
		return a.printf("No %s.\n", v.plural)
	case len(p.Items) == 0:
		return a.printf("No %s on page %d: %s in all, on %d pages.\n", v.plural, p.Page, v.count(p.TotalItems), p.TotalPages)
	}
	footer := fmt.Sprintf("Page %d of %d; %s in all.", p.Page, p.TotalPages, v.count(p.TotalItems))
	if int64(p.Page) < p.TotalPages {
		footer += fmt.Sprintf(" Next: --page %d; every page: --all.", p.Page+1)
	}
	return showList(a, v, p.Items, footer)
}

func showList[T any](a *apiCommand, v view[T], items []T, footer string) error {
	if err := showTable(a, v, items); err != nil {
		return err
	}
	return a.printf("%s\n", footer)
}

// Cell formats.

func dateCell(d client.Date) string {
	if d.IsZero() {
		return "-"
	}
	return d.String()
}

func timeCell(t time.Time) string { return t.Format(time.RFC3339) }

func versionCell(n int64) string { return strconv.FormatInt(n, 10) }
