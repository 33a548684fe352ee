package adcamp

import (
	"encoding/json"
	"testing"
)

// TestIssueKindNotInJSON: an issue's kind and param are for the doors
// that word their own messages; the API's answer is field and issue
// only.
func TestIssueKindNotInJSON(t *testing.T) {
	t.Parallel()
	var is Issues
	is.AddKind("end_date", IssuePast, "2026-11-22", "must not be before today (%s, UTC)", "2026-11-22")
	b, err := json.Marshal(is.Err().(*Error).Details)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"field":"end_date","issue":"must not be before today (2026-11-22, UTC)"}]`; string(b) != want {
		t.Errorf("the details are written %s, want %s", b, want)
	}
	if d := is.Err().(*Error).Details.([]FieldIssue)[0]; d.Kind != IssuePast || d.Param != "2026-11-22" {
		t.Errorf("the details lose the kind: %+v", d)
	}
}

// TestMoneyIssue: each error of ParseMoney has its kind.
func TestMoneyIssue(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]IssueKind{"abc": IssueNotAmount, "1.234": IssueCents, "1e20": IssueTooLarge} {
		_, err := ParseMoney(text)
		if got := MoneyIssue(err); got != want {
			t.Errorf("MoneyIssue(ParseMoney(%q)) = %q, want %q", text, got, want)
		}
	}
}
