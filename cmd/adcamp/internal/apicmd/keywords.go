package apicmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/internal/keywordfile"
)

// keywordsCreate creates one keyword from flags, or a batch from --file.
func (c *cli) keywordsCreate(ctx context.Context, args []string) error {
	a := c.apiCommand("keywords create")
	adGroup := a.fs.String("ad-group", "", "the ad group's `ID` (required)")
	text := a.fs.String("text", "", "the keyword's `TEXT`")
	match := a.fs.String("match-type", "", "match `TYPE`: exact, phrase or broad")
	var bid moneyFlag
	a.fs.Var(&bid, "bid", "bid `AMOUNT` in USD (default: the ad group's default bid)")
	status := a.fs.String("status", "", "`STATUS`: active (the default) or paused")
	file := a.fs.String("file", "", "create a batch (up to 1000) from a CSV or JSON `PATH`; - reads stdin")
	partial := a.fs.Bool("partial", false, "with --file: store the valid keywords and report on each (partial_failure)")
	validate := a.fs.Bool("validate-only", false, "validate and show the result; store nothing")
	if err := a.parse(args); err != nil {
		return err
	}
	if err := a.require("ad-group"); err != nil {
		return err
	}
	opts := &client.CreateOptions{ValidateOnly: *validate}
	if !a.given["file"] {
		if err := a.require("text", "match-type"); err != nil {
			return err
		}
		if *partial {
			return usageError("%s: --partial goes with --file", a.name)
		}
		if a.given["bid"] && bid.v == 0 {
			return usageError("--bid: %s", errZeroBid)
		}
		cl, err := a.client()
		if err != nil {
			return err
		}
		in := client.KeywordCreate{Text: *text, MatchType: client.MatchType(*match), Bid: bid.v, Status: client.Status(*status)}
		defer c.settle(ctx)
		k, err := cl.CreateKeyword(ctx, *adGroup, in, opts)
		if err != nil {
			return apiError(err)
		}
		return showOne(a, keywordView, *k, *validate)
	}
	if a.anyGiven("text", "match-type", "bid", "status") {
		return usageError("%s: --file takes every keyword from the file; leave out --text, --match-type, --bid and --status", a.name)
	}
	items, err := c.readKeywordFile(*file)
	if err != nil {
		return err
	}
	var send []client.KeywordCreate
	var lines []int
	var bad []keywordfile.Item
	for _, it := range items {
		if it.Problem != nil {
			bad = append(bad, it)
			continue
		}
		send, lines = append(send, it.Keyword), append(lines, it.Line)
	}
	if len(bad) > 0 && !*partial {
		return badLines(*file, bad, len(items))
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	if *partial {
		res := &client.KeywordBatchResult{}
		if len(send) > 0 {
			defer c.settle(ctx)
			if res, err = cl.CreateKeywordsPartial(ctx, *adGroup, send, opts); err != nil {
				return apiError(err)
			}
		}
		return a.showPartial(outcomes(items, res), *validate)
	}
	defer c.settle(ctx)
	created, err := cl.CreateKeywords(ctx, *adGroup, send, opts)
	if err != nil {
		return apiError(withLines(err, lines))
	}
	if a.json {
		return a.printJSON(map[string]any{"items": jsonItems(keywordView, created)})
	}
	if err := showTable(a, keywordView, created); err != nil {
		return err
	}
	if *validate {
		return a.printf("Valid (--validate-only): %s would be created; nothing was stored.\n",
			plural(int64(len(created)), "keyword", "keywords"))
	}
	return a.printf("Created %s in ad group %s.\n", plural(int64(len(created)), "keyword", "keywords"), *adGroup)
}

// badLines reports every keyword of a file that the file shows to be bad,
// without --partial: nothing is sent.
func badLines(file string, bad []keywordfile.Item, total int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %s cannot be sent (nothing was; --partial sends the others):", file, len(bad),
		plural(int64(total), "keyword", "keywords"))
	for _, it := range bad {
		fmt.Fprintf(&b, "\n  line %d: %s", it.Line, oneLine.Replace(it.Problem.Error()))
	}
	return errors.New(b.String())
}

// outcome is what became of one keyword of a file with --partial: refused
// before it was sent (the file showed it bad), or the API's answer.
type outcome struct {
	index, line int
	item        client.KeywordCreate
	status      int
	keyword     *client.Keyword
	err         *client.Error
}

// outcomes puts the API's results for the keywords sent back among the
// file's keywords, each refused one with a VALIDATION_ERROR of its own.
func outcomes(items []keywordfile.Item, res *client.KeywordBatchResult) []outcome {
	out := make([]outcome, len(items))
	sent := 0
	for i, it := range items {
		out[i] = outcome{index: i, line: it.Line, item: it.Keyword}
		if p := it.Problem; p != nil {
			field := p.Field
			if field == "" {
				field = "item"
			}
			out[i].status, out[i].err = http.StatusBadRequest, &client.Error{StatusCode: http.StatusBadRequest,
				Code: client.CodeValidation, Message: "line " + strconv.Itoa(it.Line) + ": " + p.Error(),
				Details: []client.FieldIssue{{Field: field, Issue: p.Issue}}}
			continue
		}
		if sent < len(res.Items) {
			r := res.Items[sent]
			out[i].status, out[i].keyword = r.Status, r.Keyword
			var e *client.Error
			if errors.As(r.Err, &e) {
				out[i].err = e
			}
		}
		sent++
	}
	return out
}

// partialJSON is the API's answer to a batch with partial_failure.
type partialJSON struct {
	Items   []partialItemJSON `json:"items"`
	Created int               `json:"created"`
	Failed  int               `json:"failed"`
}

type partialItemJSON struct {
	Index   int          `json:"index"`
	Line    int          `json:"line"`
	Status  int          `json:"status"`
	Success bool         `json:"success"`
	Data    any          `json:"data,omitempty"`
	Error   *itemErrJSON `json:"error,omitempty"`
}

type itemErrJSON struct {
	Code    string              `json:"code"`
	Message string              `json:"message"`
	Details []client.FieldIssue `json:"details,omitempty"`
}

// showPartial prints the outcome of a partial-failure batch: the created
// keywords, then (as the returned error, so that the exit status is 1)
// each keyword that was not created, in the file's order, and why.
func (a *apiCommand) showPartial(res []outcome, validateOnly bool) error {
	var created []client.Keyword
	out := partialJSON{Items: make([]partialItemJSON, len(res))}
	var failures strings.Builder
	requestID := ""
	for i, r := range res {
		out.Items[i] = partialItemJSON{Index: r.index, Line: r.line, Status: r.status, Success: r.err == nil && r.keyword != nil}
		if r.keyword != nil {
			created = append(created, *r.keyword)
			out.Items[i].Data = keywordView.jsonOf(*r.keyword)
			out.Created++
			continue
		}
		out.Failed++
		if r.err == nil {
			continue
		}
		out.Items[i].Error = &itemErrJSON{Code: r.err.Code, Message: r.err.Message, Details: r.err.Details}
		requestID = cmp.Or(r.err.RequestID, requestID)
		item := *r.err
		item.RequestID = ""
		fmt.Fprintf(&failures, "\n  %s: %s", itemLabel(r), describe(&item, "      "))
	}
	if a.json {
		if err := a.printJSON(out); err != nil {
			return err
		}
	} else {
		if len(created) > 0 {
			if err := showTable(a, keywordView, created); err != nil {
				return err
			}
		}
		verb := "Created"
		if validateOnly {
			verb = "Valid (--validate-only, nothing stored):"
		}
		if err := a.printf("%s %d of %s.\n", verb, out.Created, plural(int64(len(res)), "keyword", "keywords")); err != nil {
			return err
		}
	}
	if out.Failed == 0 {
		return nil
	}
	request := ""
	if requestID != "" {
		request = " (request " + requestID + ")"
	}
	return fmt.Errorf("%d of %d keywords were not created%s:%s", out.Failed, len(res), request, failures.String())
}

// itemLabel names a keyword of a batch file for a message: items[3]
// (line 5) "red shoes" exact.
func itemLabel(r outcome) string {
	label := fmt.Sprintf("items[%d] (line %d)", r.index, r.line)
	if r.item.Text != "" || r.item.MatchType != "" {
		label += fmt.Sprintf(" %q %s", r.item.Text, r.item.MatchType)
	}
	return label
}

// withLines adds the CSV line of each item named in an error's details:
// "items[3].text" becomes "items[3].text (line 5)".
func withLines(err error, lines []int) error {
	var e *client.Error
	if len(lines) == 0 || !errors.As(err, &e) {
		return err
	}
	for i, d := range e.Details {
		var n int
		if _, serr := fmt.Sscanf(d.Field, "items[%d]", &n); serr == nil && n >= 0 && n < len(lines) {
			e.Details[i].Field = fmt.Sprintf("%s (line %d)", d.Field, lines[n])
		}
	}
	return err
}

// maxKeywordFile bounds what --file reads.
const maxKeywordFile = 32 << 20

// readKeywordFile reads a batch of keywords from path ("-": stdin), in
// CSV or JSON (see internal/keywordfile).
func (c *cli) readKeywordFile(path string) ([]keywordfile.Item, error) {
	name, r := path, io.Reader(nil)
	if path == "-" {
		name, r = "stdin", c.stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxKeywordFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxKeywordFile {
		return nil, fmt.Errorf("%s: larger than %d MiB", name, maxKeywordFile>>20)
	}
	items, err := keywordfile.Parse(data)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	case len(items) == 0:
		return nil, fmt.Errorf("%s holds no keywords", name)
	case len(items) > client.MaxBatch:
		return nil, fmt.Errorf("%s holds %d keywords; a batch takes at most %d: split the file", name, len(items), client.MaxBatch)
	}
	return items, nil
}

// errZeroBid refuses a bid of 0, which the API would refuse too; left
// out, a bid is the ad group's default.
const errZeroBid = "a bid must be greater than 0; leave it out for the ad group's default bid"
