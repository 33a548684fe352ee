// Package keywordfile reads the batch files of "adcamp keywords create
// --file": CSV with a header row, or JSON (an array of keyword objects, or
// {"items": [...]}). It reads every keyword it can, and says of each one
// the file alone shows to be bad (a bid that is not an amount, a row of
// the wrong width, an unknown field) what is wrong and on which line, so
// that a batch can report every bad line at once, and store the others.
// Whether a keyword is valid otherwise (its text, its match type) is the
// API's to say.
package keywordfile

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/adcamp/adcamp/client"
)

// Item is one keyword of a file.
type Item struct {
	Keyword client.KeywordCreate
	// Line is where the keyword starts in the file, from 1.
	Line int
	// Problem is what the file shows to be wrong with it, or nil.
	Problem *Problem
}

// Problem is what is wrong with one keyword of a file: its field ("bid";
// "" for the keyword as a whole) and the issue.
type Problem struct {
	Field, Issue string
}

func (p *Problem) Error() string {
	if p.Field == "" {
		return p.Issue
	}
	return p.Field + " " + p.Issue
}

// errZeroBid refuses a bid of 0, which the API would refuse too; left
// out, a bid is the ad group's default.
const errZeroBid = "must be greater than 0; leave it out for the ad group's default bid"

// Parse reads a batch file, CSV or JSON, told apart by its first
// character ('[' or '{' for JSON), a UTF-8 byte order mark ignored. It
// returns every keyword, each with its problem if it has one; the error
// is for the file as a whole (not CSV or JSON at all, or a header row that
// names unknown columns).
func Parse(data []byte) ([]Item, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '[' || t[0] == '{') {
		return parseJSON(data)
	}
	return parseCSV(data)
}

// columns are the columns a CSV file may have; the first two are required.
var columns = []string{"text", "match_type", "bid", "status"}

// parseCSV reads a header row naming the columns (text and match_type,
// optionally bid and status, in any order) and one keyword per row. An
// empty bid means the ad group's default.
func parseCSV(data []byte) ([]Item, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cols, err := csvHeader(header)
	if err != nil {
		return nil, err
	}
	r.FieldsPerRecord = len(header)
	var items []Item
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return items, nil
		}
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			line := perr.StartLine
			if !errors.Is(perr.Err, csv.ErrFieldCount) {
				items = append(items, Item{Line: line, Problem: &Problem{Issue: "is not a valid CSV row: " + perr.Err.Error()}})
				continue
			}
			items = append(items, Item{Line: line, Problem: &Problem{
				Issue: fmt.Sprintf("has %d fields; the header row names %d", len(rec), len(header))}})
			continue
		}
		if err != nil {
			return nil, err
		}
		line, _ := r.FieldPos(0)
		k, problem := csvKeyword(rec, cols)
		items = append(items, Item{Keyword: k, Line: line, Problem: problem})
	}
}

// csvHeader maps each column name of the header row to its position.
func csvHeader(header []string) (map[string]int, error) {
	cols := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(columns, h) {
			return nil, fmt.Errorf("line 1: unknown column %q; the header row names columns among %s", h, strings.Join(columns, ","))
		}
		if _, dup := cols[h]; dup {
			return nil, fmt.Errorf("line 1: column %q appears twice", h)
		}
		cols[h] = i
	}
	for _, need := range columns[:2] {
		if _, ok := cols[need]; !ok {
			return nil, fmt.Errorf("line 1: the header row has no %q column (want text,match_type,bid,status; bid and status may be left out)", need)
		}
	}
	return cols, nil
}

func csvKeyword(rec []string, cols map[string]int) (client.KeywordCreate, *Problem) {
	k := client.KeywordCreate{Text: rec[cols["text"]], MatchType: client.MatchType(strings.TrimSpace(rec[cols["match_type"]]))}
	if i, ok := cols["status"]; ok {
		k.Status = client.Status(strings.TrimSpace(rec[i]))
	}
	if i, ok := cols["bid"]; ok && strings.TrimSpace(rec[i]) != "" {
		bid, problem := parseBid(strings.TrimSpace(rec[i]))
		if problem != nil {
			return k, problem
		}
		k.Bid = bid
	}
	return k, nil
}

// parseBid reads a bid in USD, which must be more than 0.
func parseBid(s string) (client.Money, *Problem) {
	bid, err := client.ParseMoney(s)
	if err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return 0, &Problem{Field: "bid", Issue: fmt.Sprintf("%q is not an amount in USD such as 1.10: %v", s, err)}
	}
	if bid == 0 {
		return 0, &Problem{Field: "bid", Issue: errZeroBid}
	}
	return bid, nil
}

// fileItem is a keyword of a JSON file. Bid is kept as JSON, so that a
// bid that is no amount is this keyword's problem, not the file's.
type fileItem struct {
	Text      string           `json:"text"`
	MatchType client.MatchType `json:"match_type"`
	Bid       json.RawMessage  `json:"bid"`
	Status    client.Status    `json:"status"`
}

// parseJSON reads an array of keyword objects, or {"items": [...]}.
func parseJSON(data []byte) ([]Item, error) {
	const want = `want an array of keywords ({"text", "match_type", "bid", "status"}) or {"items": [...]}`
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", want, err)
	}
	wrapped := tok == json.Delim('{')
	if wrapped {
		if name, err := dec.Token(); err != nil || name != "items" {
			return nil, fmt.Errorf(`%s: the object's only member is "items"`, want)
		}
		if tok, err = dec.Token(); err != nil {
			return nil, fmt.Errorf("%s: %w", want, err)
		}
	}
	if tok != json.Delim('[') {
		return nil, errors.New(want)
	}
	var items []Item
	for dec.More() {
		start := valueStart(data, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("line %d: %w", lineOf(data, start), err)
		}
		k, problem := jsonKeyword(raw)
		items = append(items, Item{Keyword: k, Line: lineOf(data, start), Problem: problem})
	}
	if _, err := dec.Token(); err != nil { // ]
		return nil, fmt.Errorf("%s: %w", want, err)
	}
	if wrapped {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
			return nil, fmt.Errorf(`%s: the object's only member is "items"`, want)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more data after the JSON value")
	}
	return items, nil
}

// jsonKeyword reads one keyword object.
func jsonKeyword(raw json.RawMessage) (client.KeywordCreate, *Problem) {
	var it fileItem
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&it); err != nil {
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr) && typeErr.Field != "":
			return client.KeywordCreate{}, &Problem{Field: typeErr.Field, Issue: "must be a " + typeErr.Type.String()}
		case errors.As(err, &typeErr):
			return client.KeywordCreate{}, &Problem{Issue: "must be a keyword object"}
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name := strings.TrimPrefix(err.Error(), "json: unknown field ")
			return client.KeywordCreate{}, &Problem{Field: strings.Trim(name, `"`), Issue: "is not a known field"}
		}
		return client.KeywordCreate{}, &Problem{Issue: err.Error()}
	}
	k := client.KeywordCreate{Text: it.Text, MatchType: it.MatchType, Status: it.Status}
	if b := strings.TrimSpace(string(it.Bid)); b != "" && b != "null" {
		if b[0] == '"' {
			return k, &Problem{Field: "bid", Issue: "must be a number, not a string"}
		}
		bid, problem := parseBid(b)
		if problem != nil {
			return k, problem
		}
		k.Bid = bid
	}
	return k, nil
}

// valueStart is the offset of the next value at or after off: past white
// space and the comma between array elements.
func valueStart(data []byte, off int64) int {
	i := int(off)
	for i < len(data) && strings.IndexByte(" \t\r\n,", data[i]) >= 0 {
		i++
	}
	return i
}

// lineOf is the line (from 1) of the byte at off.
func lineOf(data []byte, off int) int {
	return 1 + bytes.Count(data[:min(off, len(data))], []byte("\n"))
}
