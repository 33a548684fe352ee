// Package reportcsv writes the cells of CSV reports so that a spreadsheet
// shows them as text. The server's report jobs (csv.gz files) and the
// command line's `adcamp reports performance --format csv` both use it, so
// that the rule is written once.
//
// A cell that starts with =, +, -, @, a tab or a carriage return is taken
// by spreadsheets for a formula, which a name such as
// =HYPERLINK("http://evil.example", "click") would turn against whoever
// opens the file (OWASP's "CSV injection"). Such a cell is defused by a
// leading apostrophe, which spreadsheets read as "this is text" and do not
// show.
package reportcsv

// IsFormula reports whether a spreadsheet would take the cell v for a
// formula: it starts with =, +, -, @, a tab or a carriage return.
func IsFormula(v string) bool {
	if v == "" {
		return false
	}
	switch v[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

// Defuse returns v with a leading apostrophe if a spreadsheet would take
// it for a formula, and v unchanged otherwise. Use it on text cells
// before a CSV writer (encoding/csv) quotes them; numbers need none.
func Defuse(v string) string {
	if IsFormula(v) {
		return "'" + v
	}
	return v
}

// AppendCell appends the text cell v to b as RFC 4180 writes it: quoted
// (with its quotes doubled) when it holds a comma, a quote or a line
// break, and defused as [Defuse] does, quoted, when a spreadsheet would
// take it for a formula: "=1+2" is written "'=1+2" with its quotes.
func AppendCell(b []byte, v string) []byte {
	defuse := IsFormula(v)
	quote := defuse
	for i := 0; i < len(v) && !quote; i++ {
		switch v[i] {
		case ',', '"', '\n', '\r':
			quote = true
		}
	}
	if !quote {
		return append(b, v...)
	}
	b = append(b, '"')
	if defuse {
		b = append(b, '\'')
	}
	for i := 0; i < len(v); i++ {
		if v[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, v[i])
	}
	return append(b, '"')
}

// Columns are the columns of a CSV report of a level (campaign, ad_group
// or keyword) and granularity (summary, day or hour), in order: the
// server's csv.gz files and the command line write the same.
func Columns(level, granularity string) []string {
	var cols []string
	switch granularity {
	case "day":
		cols = append(cols, "date")
	case "hour":
		cols = append(cols, "date", "hour")
	}
	cols = append(cols, "campaign_id", "campaign_name")
	if level != "campaign" {
		cols = append(cols, "ad_group_id", "ad_group_name")
	}
	if level == "keyword" {
		cols = append(cols, "keyword_id", "keyword_text", "match_type")
	}
	return append(cols, "status", "deleted", "impressions", "clicks", "cost", "orders", "sales",
		"ctr", "cpc", "conversion_rate", "acos", "roas")
}
