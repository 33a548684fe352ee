package keywordfile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adcamp/adcamp/client"
)

// show renders items as "line:text/match/bid/status" or "line:!problem".
func show(items []Item) string {
	var parts []string
	for _, it := range items {
		if it.Problem != nil {
			parts = append(parts, fmt.Sprintf("%d:!%s", it.Line, it.Problem))
			continue
		}
		k := it.Keyword
		parts = append(parts, fmt.Sprintf("%d:%s/%s/%s/%s", it.Line, k.Text, k.MatchType, k.Bid, k.Status))
	}
	return strings.Join(parts, " | ")
}

func TestParse(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"CSV", "text,match_type,bid,status\nred shoes,exact,1.10,\ntrail shoes,phrase,,paused\n",
			"2:red shoes/exact/1.10/ | 3:trail shoes/phrase/0.00/paused"},
		{"CSV columns in any order, a BOM, CRLF", "\uFEFFmatch_type,text\r\nbroad,a\r\nexact,b\r\n", "2:a/broad/0.00/ | 3:b/exact/0.00/"},
		{"CSV every bad line", "text,match_type,bid\n" +
			"good,exact,1\n" +
			"bad bid,exact,abc\n" +
			"three decimals,exact,1.234\n" +
			"zero,exact,0\n" +
			"too,many,1,fields\n" +
			"few\n" +
			"also good,broad,0.5\n",
			`2:good/exact/1.00/ | 3:!bid "abc" is not an amount in USD such as 1.10: ` + moneyErr("abc") +
				` | 4:!bid "1.234" is not an amount in USD such as 1.10: ` + moneyErr("1.234") +
				` | 5:!bid ` + errZeroBid +
				` | 6:!has 4 fields; the header row names 3 | 7:!has 1 fields; the header row names 3 | 8:also good/broad/0.50/`},
		{"CSV quoted field over two lines", "text,match_type\n\"two\nlines\",exact\nnext,broad\n", "2:two\nlines/exact/0.00/ | 4:next/broad/0.00/"},
		{"CSV bare quote", "text,match_type\nbad \"quote,exact\nnext,broad\n",
			`2:!is not a valid CSV row: bare " in non-quoted-field | 3:next/broad/0.00/`},
		{"JSON array", `[{"text":"a","match_type":"exact","bid":1.5},{"text":"b","match_type":"broad","bid":null,"status":"paused"}]`,
			"1:a/exact/1.50/ | 1:b/broad/0.00/paused"},
		{"JSON items, every bad item on its line", "{\"items\": [\n" +
			"  {\"text\": \"good\", \"match_type\": \"exact\"},\n" +
			"  {\"text\": \"bad\", \"match_type\": \"exact\", \"bid\": \"1.10\"},\n" +
			"  {\"text\": \"zero\", \"match_type\": \"exact\", \"bid\": 0},\n" +
			"  {\"text\": \"cpc\", \"match_type\": \"exact\", \"cpc\": 1},\n" +
			"  {\"text\": 5, \"match_type\": \"exact\"},\n" +
			"  7,\n" +
			"  {\"text\": \"last\", \"match_type\": \"broad\", \"bid\": 2.001}\n" +
			"]}",
			`2:good/exact/0.00/ | 3:!bid must be a number, not a string | 4:!bid ` + errZeroBid +
				` | 5:!cpc is not a known field | 6:!text must be a string | 7:!must be a keyword object` +
				` | 8:!bid "2.001" is not an amount in USD such as 1.10: ` + moneyErr("2.001")},
		{"empty CSV", "", ""},
		{"empty JSON", "[]", ""},
	}
	for _, tt := range tests {
		items, err := Parse([]byte(tt.file))
		if err != nil {
			t.Errorf("%s: Parse: %v", tt.name, err)
			continue
		}
		if got := show(items); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func moneyErr(s string) string {
	_, err := client.ParseMoney(s)
	for {
		inner := unwrap(err)
		if inner == nil {
			return err.Error()
		}
		err = inner
	}
}

func unwrap(err error) error {
	u, ok := err.(interface{ Unwrap() error })
	if !ok {
		return nil
	}
	return u.Unwrap()
}

// TestParseRefusesFiles: what is wrong with the file as a whole is an
// error, naming the line where it can.
func TestParseRefusesFiles(t *testing.T) {
	for name, file := range map[string]string{
		"unknown column":   "text,match_type,priority\nred,exact,1\n",
		"no match_type":    "text\nred\n",
		"column twice":     "text,match_type,text\na,exact,b\n",
		"JSON syntax":      "[\n{\"text\": \"a\",\n \"match_type\": }\n]",
		"trailing data":    `[] []`,
		"other member":     `{"keywords": []}`,
		"object not array": `{"items": {"text": "a"}}`,
	} {
		if _, err := Parse([]byte(file)); err == nil {
			t.Errorf("%s: Parse succeeded, want an error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}
