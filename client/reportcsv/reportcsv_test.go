package reportcsv_test

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/adcamp/adcamp/client/reportcsv"
)

func TestDefuse(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"", ""},
		{"=1+2", "'=1+2"},
		{"+1", "'+1"},
		{"-1", "'-1"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"a=b", "a=b"},
		{" =x", " =x"},
		{"'=x", "'=x"},
	} {
		if got := reportcsv.Defuse(tc.in); got != tc.want {
			t.Errorf("Defuse(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got, want := reportcsv.IsFormula(tc.in), tc.want != tc.in; got != want {
			t.Errorf("IsFormula(%q) = %v, want %v", tc.in, got, want)
		}
	}
}

func TestAppendCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a,b", `"a,b"`},
		{`say "hi"`, `"say ""hi"""`},
		{"=1+2", `"'=1+2"`},
		{"+1", `"'+1"`},
		{"-1", `"'-1"`},
		{"@SUM(A1)", `"'@SUM(A1)"`},
		{"\tx", "\"'\tx\""},
		{"\rx", "\"'\rx\""},
		{`=HYPERLINK("http://x","y")`, `"'=HYPERLINK(""http://x"",""y"")"`},
		{"a=b", "a=b"},
		{"", ""},
		{"line\nbreak", "\"line\nbreak\""},
	} {
		got := reportcsv.AppendCell([]byte("x,"), tc.in)
		if string(got) != "x,"+tc.want {
			t.Errorf("AppendCell(%q) = %q, want %q", tc.in, got[2:], tc.want)
		}
		// A CSV reader reads back the defused text.
		rec, err := csv.NewReader(bytes.NewReader(got)).Read()
		if err != nil || len(rec) != 2 || rec[1] != reportcsv.Defuse(tc.in) {
			t.Errorf("reading AppendCell(%q) back = %q, %v; want %q", tc.in, rec, err, reportcsv.Defuse(tc.in))
		}
	}
}
