package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/adcamp/adcamp/client"
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
		defer settle(ctx)
		k, err := cl.CreateKeyword(ctx, *adGroup, in, opts)
		if err != nil {
			return apiError(err)
		}
		return showOne(a, keywordView, *k, *validate)
	}
	if a.anyGiven("text", "match-type", "bid", "status") {
		return usageError("%s: --file takes every keyword from the file; leave out --text, --match-type, --bid and --status", a.name)
	}
	items, lines, err := c.readKeywordFile(*file)
	if err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	if *partial {
		defer settle(ctx)
		res, err := cl.CreateKeywordsPartial(ctx, *adGroup, items, opts)
		if err != nil {
			return apiError(err)
		}
		return a.showPartial(items, lines, res, *validate)
	}
	defer settle(ctx)
	created, err := cl.CreateKeywords(ctx, *adGroup, items, opts)
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

// partialJSON is the API's answer to a batch with partial_failure.
type partialJSON struct {
	Items   []partialItemJSON `json:"items"`
	Created int               `json:"created"`
	Failed  int               `json:"failed"`
}

type partialItemJSON struct {
	Index   int          `json:"index"`
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
// each keyword that was not created and why.
func (a *apiCommand) showPartial(items []client.KeywordCreate, lines []int, res *client.KeywordBatchResult, validateOnly bool) error {
	var created []client.Keyword
	out := partialJSON{Items: make([]partialItemJSON, len(res.Items)), Created: res.Created, Failed: res.Failed}
	var failures strings.Builder
	requestID := ""
	for i, r := range res.Items {
		out.Items[i] = partialItemJSON{Index: r.Index, Status: r.Status, Success: r.Err == nil}
		if r.Keyword != nil {
			created = append(created, *r.Keyword)
			out.Items[i].Data = keywordView.jsonOf(*r.Keyword)
		}
		var e *client.Error
		if !errors.As(r.Err, &e) {
			continue
		}
		out.Items[i].Error = &itemErrJSON{Code: e.Code, Message: e.Message, Details: e.Details}
		requestID = e.RequestID
		item := *e
		item.RequestID = ""
		fmt.Fprintf(&failures, "\n  %s: %s", itemLabel(items, lines, r.Index), describe(&item, "      "))
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
		if err := a.printf("%s %d of %s.\n", verb, res.Created, plural(int64(len(res.Items)), "keyword", "keywords")); err != nil {
			return err
		}
	}
	if res.Failed == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d keywords were not created (request %s):%s", res.Failed, len(res.Items), requestID, failures.String())
}

// itemLabel names item i of a batch for a message: items[3] "red shoes"
// (exact), and its line in a CSV file.
func itemLabel(items []client.KeywordCreate, lines []int, i int) string {
	label := fmt.Sprintf("items[%d]", i)
	if i >= 0 && i < len(lines) {
		label += fmt.Sprintf(" (line %d)", lines[i])
	}
	if i >= 0 && i < len(items) {
		label += fmt.Sprintf(" %q %s", items[i].Text, items[i].MatchType)
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
// CSV or JSON, told apart by the first character. For CSV it also
// returns the line of each keyword.
func (c *cli) readKeywordFile(path string) ([]client.KeywordCreate, []int, error) {
	name, r := path, io.Reader(nil)
	if path == "-" {
		name, r = "stdin", c.stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxKeywordFile+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxKeywordFile {
		return nil, nil, fmt.Errorf("%s: larger than %d MiB", name, maxKeywordFile>>20)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var items []client.KeywordCreate
	var lines []int
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '[' || t[0] == '{') {
		items, err = parseKeywordsJSON(data)
	} else {
		items, lines, err = parseKeywordsCSV(data)
	}
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	case len(items) == 0:
		return nil, nil, fmt.Errorf("%s holds no keywords", name)
	case len(items) > client.MaxBatch:
		return nil, nil, fmt.Errorf("%s holds %d keywords; a batch takes at most %d: split the file", name, len(items), client.MaxBatch)
	}
	return items, lines, nil
}

// errZeroBid refuses a bid of 0, which the API would refuse too; left
// out, a bid is the ad group's default.
const errZeroBid = "a bid must be greater than 0; leave it out for the ad group's default bid"

// keywordFileItem is a keyword of a JSON file; Bid is a pointer so that
// an explicit 0 is not mistaken for "no bid".
type keywordFileItem struct {
	Text      string           `json:"text"`
	MatchType client.MatchType `json:"match_type"`
	Bid       *client.Money    `json:"bid"`
	Status    client.Status    `json:"status"`
}

// parseKeywordsJSON reads an array of keyword objects, or {"items": [...]}.
func parseKeywordsJSON(data []byte) ([]client.KeywordCreate, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var batch struct {
		Items []keywordFileItem `json:"items"`
	}
	var err error
	if bytes.TrimSpace(data)[0] == '{' {
		err = dec.Decode(&batch)
	} else {
		err = dec.Decode(&batch.Items)
	}
	if err != nil {
		return nil, fmt.Errorf(`want an array of keywords ({"text", "match_type", "bid", "status"}) or {"items": [...]}: %w`, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more data after the JSON value")
	}
	items := make([]client.KeywordCreate, len(batch.Items))
	for i, it := range batch.Items {
		items[i] = client.KeywordCreate{Text: it.Text, MatchType: it.MatchType, Status: it.Status}
		if it.Bid != nil {
			if *it.Bid == 0 {
				return nil, fmt.Errorf("items[%d]: %s", i, errZeroBid)
			}
			items[i].Bid = *it.Bid
		}
	}
	return items, nil
}

// csvColumns are the columns a keyword CSV file may have.
var csvColumns = []string{"text", "match_type", "bid", "status"}

// parseKeywordsCSV reads a header row naming the columns (text and
// match_type, optionally bid and status, in any order) and one keyword
// per row. An empty bid means the ad group's default.
func parseKeywordsCSV(data []byte) ([]client.KeywordCreate, []int, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	cols, err := csvHeader(header)
	if err != nil {
		return nil, nil, err
	}
	var items []client.KeywordCreate
	var lines []int
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return items, lines, nil
		}
		if err != nil {
			return nil, nil, err
		}
		line, _ := r.FieldPos(0)
		k, err := csvKeyword(rec, cols)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", line, err)
		}
		items, lines = append(items, k), append(lines, line)
	}
}

// csvHeader maps each column name of the header row to its position.
func csvHeader(header []string) (map[string]int, error) {
	cols := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(csvColumns, h) {
			return nil, fmt.Errorf("line 1: unknown column %q; the header row names columns among %s", h, strings.Join(csvColumns, ","))
		}
		if _, dup := cols[h]; dup {
			return nil, fmt.Errorf("line 1: column %q appears twice", h)
		}
		cols[h] = i
	}
	for _, need := range csvColumns[:2] {
		if _, ok := cols[need]; !ok {
			return nil, fmt.Errorf("line 1: the header row has no %q column (want text,match_type,bid,status; bid and status may be left out)", need)
		}
	}
	return cols, nil
}

func csvKeyword(rec []string, cols map[string]int) (client.KeywordCreate, error) {
	k := client.KeywordCreate{Text: rec[cols["text"]], MatchType: client.MatchType(strings.TrimSpace(rec[cols["match_type"]]))}
	if i, ok := cols["status"]; ok {
		k.Status = client.Status(strings.TrimSpace(rec[i]))
	}
	if i, ok := cols["bid"]; ok && strings.TrimSpace(rec[i]) != "" {
		var bid moneyFlag
		if err := bid.Set(strings.TrimSpace(rec[i])); err != nil {
			return k, fmt.Errorf("bid %q: %w", rec[i], err)
		}
		if bid.v == 0 {
			return k, errors.New(errZeroBid)
		}
		k.Bid = bid.v
	}
	return k, nil
}
