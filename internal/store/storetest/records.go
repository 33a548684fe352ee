package storetest

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// testRequestRecords: a record is stored once per scope and token while it
// lives, can be taken over once expired, and is purged after.
func testRequestRecords(t *testing.T, db store.Store) {
	ctx := t.Context()
	rec := func(token string, created time.Time, body string) *store.RequestRecord {
		return &store.RequestRecord{Scope: "sig:ak_test_x", Token: token, RequestHash: []byte{1, 2, 3},
			Status: 201, Header: []byte(`{"Location":"/x"}`), Body: []byte(body),
			CreatedAt: created, ExpiresAt: created.Add(10 * time.Minute)}
	}
	// A store may send SaveRecord with the commit: then the Write fails
	// with ErrRecordTaken instead of the call reporting false.
	save := func(r *store.RequestRecord) (saved bool) {
		t.Helper()
		err := db.Write(ctx, func(tx store.Tx) error {
			var err error
			saved, err = tx.SaveRecord(ctx, r)
			return err
		})
		if errors.Is(err, store.ErrRecordTaken) {
			return false
		}
		if err != nil {
			t.Fatalf("Write(SaveRecord): %v", err)
		}
		return saved
	}
	get := func(token string, now time.Time) (*store.RequestRecord, error) {
		var r *store.RequestRecord
		err := db.Read(ctx, func(tx store.Tx) error {
			var err error
			r, err = tx.GetRecord(ctx, "sig:ak_test_x", token, now)
			return err
		})
		return r, err
	}

	if !save(rec("a", base, "first")) {
		t.Fatal("SaveRecord of a new record = false, want true")
	}
	if save(rec("a", at(60), "second")) {
		t.Error("SaveRecord over a live record = true, want false")
	}
	got, err := get("a", at(60))
	if err != nil || string(got.Body) != "first" || got.Status != 201 || !bytes.Equal(got.RequestHash, []byte{1, 2, 3}) ||
		string(got.Header) != `{"Location":"/x"}` || !got.CreatedAt.Equal(base) || !got.ExpiresAt.Equal(base.Add(10*time.Minute)) {
		t.Errorf("GetRecord = %+v, %v; want the first record", got, err)
	}
	if _, err := get("b", at(60)); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("GetRecord of another token = %v, want NOT_FOUND", err)
	}
	other := rec("a", at(60), "other scope")
	other.Scope = "sig:ak_test_y"
	if !save(other) {
		t.Error("SaveRecord of the same token in another scope = false, want true")
	}

	expired := at(600)
	if _, err := get("a", expired); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("GetRecord once expired = %v, want NOT_FOUND", err)
	}
	if !save(rec("a", expired, "after expiry")) {
		t.Error("SaveRecord over an expired record = false, want true")
	}
	if got, err := get("a", expired); err != nil || string(got.Body) != "after expiry" {
		t.Errorf("GetRecord after taking over = %+v, %v", got, err)
	}

	var purged int64
	write(t, db, func(tx store.Tx) error {
		var err error
		purged, err = tx.PurgeRecords(ctx, at(661)) // the other scope's record expired at 660
		return err
	})
	if purged != 1 {
		t.Errorf("PurgeRecords = %d, want 1", purged)
	}
	if _, err := get("a", expired); err != nil {
		t.Errorf("PurgeRecords removed a live record: %v", err)
	}
}

// testRequireNoRecord: a store that checks names without looking each up
// (store.RecordChecker) fails the write when one of them holds a live
// record, and only then.
func testRequireNoRecord(t *testing.T, db store.Store) {
	ctx := t.Context()
	err := db.Write(ctx, func(tx store.Tx) error {
		_, err := tx.SaveRecord(ctx, &store.RequestRecord{Scope: "sig:ak_test_y", Token: "old/sig", RequestHash: []byte{1},
			Status: 200, Header: []byte(`{}`), Body: []byte("{}"), CreatedAt: base, ExpiresAt: base.Add(10 * time.Minute)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(scope string, tokens []string, now time.Time) error {
		return db.Write(ctx, func(tx store.Tx) error {
			c, ok := tx.(store.RecordChecker)
			if !ok {
				t.Skip("this store looks records up one by one")
			}
			return c.RequireNoRecord(ctx, scope, tokens, now)
		})
	}
	for _, tc := range []struct {
		scope  string
		tokens []string
		now    time.Time
		want   error
	}{
		{"sig:ak_test_y", []string{"sig", "old/sig"}, at(60), store.ErrRecordTaken},
		{"sig:ak_test_y", []string{"old/sig"}, at(60), store.ErrRecordTaken},
		{"sig:ak_test_y", []string{"sig", "other"}, at(60), nil},
		{"sig:ak_test_z", []string{"sig", "old/sig"}, at(60), nil},
		{"sig:ak_test_y", []string{"sig", "old/sig"}, at(601), nil}, // expired
		{"sig:ak_test_y", nil, at(60), nil},
	} {
		if err := check(tc.scope, tc.tokens, tc.now); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Errorf("RequireNoRecord(%s, %q, %v) = %v, want %v", tc.scope, tc.tokens, tc.now.Sub(base), err, tc.want)
		}
	}
}
