// Package storetest is the one test suite of store.Store, run against every
// adapter (internal/sqlite always, internal/postgres when a database is
// given), so that both answer every call alike: same rows, same order,
// same error codes.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Run runs the suite. open returns a new, empty store for one test and
// closes it when that test ends.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, db store.Store)
	}{
		{"Accounts", testAccounts},
		{"ChannelAccounts", testChannelAccounts},
		{"Keys", testKeys},
		{"TouchKeys", testTouchKeys},
		{"KeyTrail", testKeyTrail},
		{"EveryField", testEveryField},
		{"CampaignRoundTrip", testCampaignRoundTrip},
		{"CampaignListOrderAndPaging", testCampaignPaging},
		{"DeepPages", testDeepPages},
		{"CampaignEffectiveStatus", testCampaignEffectiveStatus},
		{"CampaignTotals", testCampaignTotals},
		{"VersionedUpdates", testVersionedUpdates},
		{"TenantIsolation", testTenantIsolation},
		{"AdGroups", testAdGroups},
		{"Keywords", testKeywords},
		{"DuplicateKeywords", testDuplicateKeywords},
		{"TakenKeywordKeys", testTakenKeywordKeys},
		{"DeleteCascades", testDeleteCascades},
		{"ChildTotals", testChildTotals},
		{"WriteRollsBackOnError", testRollbackOnError},
		{"WriteRollsBackOnPanic", testRollbackOnPanic},
		{"ReadIsReadOnly", testReadIsReadOnly},
		{"ConcurrentVersionedUpdates", testConcurrentUpdates},
		{"RequestRecords", testRequestRecords},
		{"RequireNoRecord", testRequireNoRecord},
		{"Settings", testSettings},
		{"AllCredentials", testAllCredentials},
		{"Changes", testChanges},
		{"SubtreeAndDueCampaigns", testSubtreeAndDue},
		{"Webhooks", testWebhooks},
		{"RecordEvents", testRecordEvents},
		{"WebhookOrdering", testWebhookOrdering},
	}
	tests = append(tests, consoleTests...)
	tests = append(tests, negativeTests...)
	tests = append(tests, operatorTests...)
	tests = append(tests, reportTests...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := open(t)
			if err := db.Ping(context.Background()); err != nil {
				t.Fatalf("Ping() = %v, want nil", err)
			}
			tc.fn(t, db)
		})
	}
}

// base is the time the fixtures are created around: exact to the
// microsecond, the precision both stores keep.
var base = time.Date(2026, 11, 22, 9, 30, 0, 123456000, time.UTC)

var today = day("2026-11-22")

// day parses a date of a fixture.
func day(s string) adcamp.Date {
	d, err := adcamp.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func at(seconds int) time.Time { return base.Add(time.Duration(seconds) * time.Second) }

// write runs fn in a write transaction that must succeed.
func write(t *testing.T, db store.Store, fn func(tx store.Tx) error) {
	ctx := t.Context()
	t.Helper()
	if err := db.Write(ctx, fn); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

// read runs fn in a read transaction that must succeed.
func read(t *testing.T, db store.Store, fn func(tx store.Tx) error) {
	ctx := t.Context()
	t.Helper()
	if err := db.Read(ctx, fn); err != nil {
		t.Fatalf("Read: %v", err)
	}
}

// codeOf is the error code of err, or "no error".
func codeOf(err error) adcamp.Code {
	if err == nil {
		return "no error"
	}
	return adcamp.ErrorCode(err)
}

// wantCode checks that call failed with code.
func wantCode(t *testing.T, call string, err error, code adcamp.Code) {
	t.Helper()
	if got := codeOf(err); got != code {
		t.Errorf("%s = %v (%s), want %s", call, err, got, code)
	}
}

// show renders v for comparison and failure messages: JSON follows
// pointers and writes times to the nanosecond with their zone.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "unprintable: " + err.Error()
	}
	return string(b)
}

// same checks that got and want render alike.
func same(t *testing.T, call string, got, want any) {
	t.Helper()
	if g, w := show(got), show(want); g != w {
		t.Errorf("%s =\n  %s\nwant\n  %s", call, g, w)
	}
}

// idsOf lists the ids of items, in order.
func idsOf[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}

// sameIDs checks a list's ids, in order.
func sameIDs(t *testing.T, call string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s ids = [%s], want [%s]", call, strings.Join(got, " "), strings.Join(want, " "))
	}
}

// newest orders rows as lists do: created_at, then id, descending.
func newest[T any](items []T, created func(T) time.Time, id func(T) string) []string {
	s := slices.Clone(items)
	slices.SortFunc(s, func(a, b T) int {
		if c := created(b).Compare(created(a)); c != 0 {
			return c
		}
		return strings.Compare(id(b), id(a))
	})
	return idsOf(s, id)
}

var errRollback = errors.New("roll back")

func testRollbackOnError(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, base), Name: "Gone", CreatedAt: base}
	err := db.Write(ctx, func(tx store.Tx) error {
		if err := tx.CreateAccount(ctx, a); err != nil {
			return err
		}
		if _, err := tx.GetAccount(ctx, a.ID); err != nil {
			t.Errorf("GetAccount inside the transaction = %v, want the new account", err)
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Errorf("Write = %v, want fn's error", err)
	}
	read(t, db, func(tx store.Tx) error {
		_, err := tx.GetAccount(ctx, a.ID)
		wantCode(t, "GetAccount after a failed Write", err, adcamp.CodeNotFound)
		return nil
	})
}

func testRollbackOnPanic(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, base), Name: "Gone", CreatedAt: base}
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("Write let through panic %v, want boom", p)
			}
		}()
		db.Write(ctx, func(tx store.Tx) error {
			if err := tx.CreateAccount(ctx, a); err != nil {
				t.Errorf("CreateAccount: %v", err)
			}
			panic("boom")
		})
	}()
	read(t, db, func(tx store.Tx) error {
		_, err := tx.GetAccount(ctx, a.ID)
		wantCode(t, "GetAccount after a panicking Write", err, adcamp.CodeNotFound)
		return nil
	})
	// The store still works.
	write(t, db, func(tx store.Tx) error { return tx.CreateAccount(ctx, a) })
}

func testReadIsReadOnly(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, base), Name: "Read", CreatedAt: base}
	err := db.Read(ctx, func(tx store.Tx) error { return tx.CreateAccount(ctx, a) })
	if err == nil {
		t.Error("CreateAccount inside Read succeeded, want an error")
	}
	read(t, db, func(tx store.Tx) error {
		_, err := tx.GetAccount(ctx, a.ID)
		wantCode(t, "GetAccount after a write inside Read", err, adcamp.CodeNotFound)
		return nil
	})
}

// testConcurrentUpdates runs read-modify-write transactions on one
// campaign at once: each one that succeeds must count, none may be lost.
func testConcurrentUpdates(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, tn, at(0), nil)
	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			errs[i] = db.Write(ctx, func(tx store.Tx) error {
				cur, err := tx.GetCampaign(ctx, tn, c.ID)
				if err != nil {
					return err
				}
				cur.Version++
				cur.BudgetDaily++
				return tx.UpdateCampaign(ctx, cur, nil)
			})
		})
	}
	wg.Wait()
	var ok int64
	for _, err := range errs {
		switch codeOf(err) {
		case "no error":
			ok++
		case adcamp.CodePreconditionFailed, adcamp.CodeConflict:
		default:
			t.Errorf("concurrent Write = %v, want success, PRECONDITION_FAILED or CONFLICT", err)
		}
	}
	if ok == 0 {
		t.Error("no concurrent update succeeded")
	}
	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetCampaign(ctx, tn, c.ID)
		if err != nil {
			return err
		}
		if got.Version != 1+ok || got.BudgetDaily != c.BudgetDaily+adcamp.Money(ok) {
			t.Errorf("after %d successful updates, version = %d and budget = %d, want %d and %d",
				ok, got.Version, got.BudgetDaily, 1+ok, c.BudgetDaily+adcamp.Money(ok))
		}
		return nil
	})
}
