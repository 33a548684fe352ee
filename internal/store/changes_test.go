package store

import (
	"reflect"
	"testing"

	"github.com/adcamp/adcamp"
)

func ptr(s string) *string { return &s }

// TestFieldChangesEncoding: the stored form of a change's fields leaves
// nil values out and reads back exactly, fields in order; the form
// earlier versions wrote, with explicit nulls, reads the same.
func TestFieldChangesEncoding(t *testing.T) {
	t.Parallel()
	fs := []adcamp.FieldChange{
		{Field: "name", New: ptr(`Summer "sale" <é>`)},
		{Field: "budget_daily", Old: ptr("25.00"), New: ptr("40.50")},
		{Field: "end_date", Old: ptr("2026-12-31")},
		{Field: "notes"},
	}
	const want = `{"name":{"new":"Summer \"sale\" \u003cé\u003e"},"budget_daily":{"old":"25.00","new":"40.50"},` +
		`"end_date":{"old":"2026-12-31"},"notes":{}}`
	b := EncodeFieldChanges(fs)
	if string(b) != want {
		t.Errorf("EncodeFieldChanges = %s, want %s", b, want)
	}
	for _, stored := range []string{string(b),
		`{"name":{"old":null,"new":"Summer \"sale\" <é>"},"budget_daily":{"old":"25.00","new":"40.50"},` +
			`"end_date":{"old":"2026-12-31","new":null},"notes":{"old":null,"new":null}}`} {
		got, err := DecodeFieldChanges([]byte(stored))
		if err != nil || !reflect.DeepEqual(got, fs) {
			t.Errorf("DecodeFieldChanges(%s) = %v, %v; want %v", stored, got, err, fs)
		}
	}
	if b := EncodeFieldChanges(nil); string(b) != `{}` {
		t.Errorf("EncodeFieldChanges(nil) = %s, want {}", b)
	}
}
