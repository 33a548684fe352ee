package cmdline

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  []string
		json bool
	}{
		{[]string{"KEY"}, []string{"KEY"}, false},
		{[]string{"KEY", "--json"}, []string{"KEY"}, true},
		{[]string{"--json", "A", "B"}, []string{"A", "B"}, true},
		{[]string{"A", "--", "--json"}, []string{"A", "--json"}, false},
		{nil, nil, false},
	} {
		fs := NewFlags("keys disable")
		asJSON := fs.Bool("json", false, "print JSON")
		var out bytes.Buffer
		pos, err := Parse(fs, tc.args, &out)
		if err != nil || !slices.Equal(pos, tc.pos) || *asJSON != tc.json || out.Len() > 0 {
			t.Errorf("Parse(%q) = %q, %v, --json %v, printed %q; want %q, --json %v, nothing printed",
				tc.args, pos, err, *asJSON, out.String(), tc.pos, tc.json)
		}
	}
}

func TestParseHelp(t *testing.T) {
	fs := NewFlags("keys create")
	fs.String("account", "", "the account's `ID`")
	var out bytes.Buffer
	_, err := Parse(fs, []string{"-h"}, &out)
	if !errors.Is(err, flag.ErrHelp) || ExitCode(err) != 1 {
		t.Errorf("Parse(-h) error = %v, want flag.ErrHelp (not a usage error)", err)
	}
	if got := out.String(); !strings.HasPrefix(got, "Usage of adcamp keys create:\n") || !strings.Contains(got, "-account ID") {
		t.Errorf("Parse(-h) printed %q, want the command's usage and its flags", got)
	}
}

func TestParseMistakes(t *testing.T) {
	fs := NewFlags("keys roll")
	fs.Duration("grace", 0, "how long the old secret keeps working")
	var out bytes.Buffer
	_, err := Parse(fs, []string{"KEY", "--grace", "soon"}, &out)
	if ExitCode(err) != 2 || !strings.Contains(err.Error(), `run "adcamp keys roll -h" for its flags`) {
		t.Errorf("Parse(--grace soon) = %v (exit %d), want a usage error pointing at -h", err, ExitCode(err))
	}
	if out.Len() > 0 {
		t.Errorf("Parse printed %q on a mistake, want nothing", out.String())
	}
}

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{Usagef("keys needs a subcommand"), 2},
		{fmt.Errorf("open: %w", Usagef("bad flag")), 2},
		{errors.New("NOT_FOUND: campaign not found"), 1},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
