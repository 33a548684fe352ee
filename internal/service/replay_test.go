package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// TestReplayKeyHash: a request's hash is the one earlier versions stored,
// so that records written before an upgrade still tell a retry from a
// reused key.
func TestReplayKeyHash(t *testing.T) {
	t.Parallel()
	s := New(Config{})
	key := &adcamp.APIKey{ID: "ak_live_x", AccountID: "acc_1", Environment: adcamp.Production}
	body := []byte(`{"name":"x"}`)
	k, err := s.ReplayKeyFor(SignedRequest{Credential: key, Timestamp: "1795000000", Signature: "sig", Method: "PUT",
		Path: "/campaigns/cmp_1", Query: "validate_only=true", IfMatch: `"3"`, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %s?%s\nIf-Match: %s\n", "PUT", "/campaigns/cmp_1", "validate_only=true", `"3"`)
	h.Write(body)
	if want := h.Sum(nil); string(k.hash) != string(want) {
		t.Errorf("ReplayKeyFor hash = %x, want %x", k.hash, want)
	}
}

// TestLegacySignatureRecords: a change signed before the service started
// (or shortly after, while processes of the version it replaced may still
// answer) may have been answered by an earlier version, which named its
// record by timestamp and signature in clear, or by the signature alone;
// it is replayed from such a record. A change signed later is named by
// timestamp and a hash of the signature alone, and looked up only if
// saving its answer finds one there.
func TestLegacySignatureRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	now := start
	s := New(Config{Store: db, Now: func() time.Time { return now }})
	key := &adcamp.APIKey{ID: "ak_live_x", AccountID: "acc_1", Environment: adcamp.Production}
	body := []byte(`{"name":"x"}`)
	before := strconv.FormatInt(start.Unix()-60, 10)
	hashed := func(ts, sig string) string {
		sum := sha256.Sum256([]byte(ts + "/" + sig))
		return ts + "/" + hex.EncodeToString(sum[:])
	}

	for _, legacy := range []string{before + "/5ab1", "5ab1"} { // the previous version's name, and the one before
		sig := "5ab1"
		old, err := s.ReplayKeyFor(SignedRequest{Credential: key, Timestamp: before, Signature: sig, Method: "POST", Path: "/campaigns", Body: body})
		if err != nil {
			t.Fatal(err)
		}
		if !old.lookFirst || len(old.names) != 3 || old.names[0].token != hashed(before, sig) ||
			old.names[1].token != before+"/5ab1" || !old.names[1].legacy || old.names[2].token != "5ab1" || !old.names[2].legacy {
			t.Fatalf("ReplayKeyFor(signed before the start) = %+v, want the hashed name, then the legacy ones, looked up first", old)
		}
		// What the earlier version stored when it answered the request.
		err = db.Write(ctx, func(tx store.Tx) error {
			_, err := tx.SaveRecord(ctx, &store.RequestRecord{Scope: "sig:ak_live_x", Token: legacy, RequestHash: old.hash,
				Status: 201, Header: []byte(`{"Location":"/api/v1/open/campaigns/cmp_1"}`), Body: []byte(`{"first":true}`),
				CreatedAt: start.Add(-time.Minute), ExpiresAt: start.Add(9 * time.Minute)})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		executed := false
		run := func(context.Context) (*Answer, Outcome, error) {
			executed = true
			return &Answer{Status: 201, Header: []byte(`{}`), Body: []byte(`{"second":true}`)}, Commit, nil
		}
		ans, replayed, err := s.Once(ctx, old, run)
		if err != nil || !replayed || executed || string(ans.Body) != `{"first":true}` || string(ans.Header) != `{"Location":"/api/v1/open/campaigns/cmp_1"}` {
			t.Errorf("Once(answered by an earlier version as %q) = %+v, replayed %v, executed %v, %v; want the stored answer, not executed",
				legacy, ans, replayed, executed, err)
		}
		err = db.Write(ctx, func(tx store.Tx) error { _, err := tx.PurgeRecords(ctx, start.Add(time.Hour)); return err })
		if err != nil {
			t.Fatal(err)
		}
	}

	now = start.Add(legacyWindow)
	since := strconv.FormatInt(now.Unix(), 10)
	k, err := s.ReplayKeyFor(SignedRequest{Credential: key, Timestamp: since, Signature: "77cd", Method: "POST", Path: "/campaigns", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	if k.lookFirst || len(k.names) != 1 || k.names[0].token != hashed(since, "77cd") {
		t.Fatalf("ReplayKeyFor(signed since) = %+v, want the hashed name alone, not looked up first", k)
	}
	run := func(context.Context) (*Answer, Outcome, error) {
		return &Answer{Status: 201, Header: []byte(`{}`), Body: []byte(`{"second":true}`)}, Commit, nil
	}
	// The first time it runs; the second, its attempt finds the name taken
	// as it saves (and is rolled back), and the stored answer is replayed.
	for i, want := range []bool{false, true} {
		ans, replayed, err := s.Once(ctx, k, run)
		if err != nil || replayed != want || string(ans.Body) != `{"second":true}` {
			t.Errorf("Once(signed since) #%d = %+v, replayed %v, %v; want replayed %v", i+1, ans, replayed, err, want)
		}
	}
}

// TestLargeAnswersNotKept: an answer over maxKeptAnswer is sent once and
// kept as its placeholder, which its replay gets; the request is not run
// again. A small answer is kept whatever the budget.
func TestLargeAnswersNotKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	s := New(Config{Store: db, Now: func() time.Time { return now }, AnswerBudget: 1})
	key := &adcamp.APIKey{ID: "ak_live_x", AccountID: "acc_1", Environment: adcamp.Production}
	ts := strconv.FormatInt(now.Unix(), 10)
	for _, size := range []int{maxKeptAnswer + 1, 100} {
		k, err := s.ReplayKeyFor(SignedRequest{Credential: key, Timestamp: ts, Signature: fmt.Sprint(size), Method: "POST", Path: "/campaigns"})
		if err != nil {
			t.Fatal(err)
		}
		runs := 0
		big := &Answer{Status: 201, Header: []byte(`{}`), Body: make([]byte, size),
			Placeholder: &Answer{Status: 409, Header: []byte(`{}`), Body: []byte(`not kept`)}}
		run := func(context.Context) (*Answer, Outcome, error) { runs++; return big, Commit, nil }
		first, _, err := s.Once(ctx, k, run)
		if err != nil || len(first.Body) != size {
			t.Fatalf("Once = %d bytes, %v; want the whole answer of %d bytes sent", len(first.Body), err, size)
		}
		// The replay's attempt may run and be rolled back when its save
		// finds the name taken (as above); what it answers is the kept one.
		again, replayed, err := s.Once(ctx, k, run)
		if err != nil || !replayed || runs > 2 {
			t.Fatalf("replay: replayed %v, ran %d times, %v", replayed, runs, err)
		}
		if wantKept := size <= SmallAnswer; (len(again.Body) == size) != wantKept {
			t.Errorf("answer of %d bytes: replayed %d bytes (%q...); kept whole = %v, want %v",
				size, len(again.Body), again.Body[:min(8, len(again.Body))], len(again.Body) == size, wantKept)
		}
	}
}

// TestHashedNamesOnly: a database whose canary came before its first
// credential never held a record named by an earlier version, so its
// requests are not looked up under those names; one that had credentials
// when the canary came keeps looking them up for the window after a start.
func TestHashedNamesOnly(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	mk := make([]byte, secrets.KeySize)
	box, err := secrets.New(mk)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	before := strconv.FormatInt(now.Unix()-60, 10)
	for _, tc := range []struct {
		name       string
		keyFirst   bool // a credential was stored before the canary (an earlier version's database)
		wantLegacy bool
	}{
		{"new database", false, false},
		{"earlier version's database", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := sqlite.Open(ctx, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			s := New(Config{Store: db, Box: box, Now: func() time.Time { return now }})
			if tc.keyFirst {
				acc, err := s.CreateAccount(ctx, "Acme", "")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.CreateKey(ctx, acc.ID, adcamp.Production); err != nil {
					t.Fatal(err)
				}
			}
			if err := CheckSecrets(ctx, db, box); err != nil {
				t.Fatal(err)
			}
			if err := s.LoadSettings(ctx); err != nil {
				t.Fatal(err)
			}
			key := &adcamp.APIKey{ID: "ak_live_x", AccountID: "acc_1", Environment: adcamp.Production}
			k, err := s.ReplayKeyFor(SignedRequest{Credential: key, Timestamp: before, Signature: "5ab1", Method: "POST", Path: "/campaigns"})
			if err != nil {
				t.Fatal(err)
			}
			if k.lookFirst != tc.wantLegacy || (len(k.names) == 3) != tc.wantLegacy {
				t.Errorf("ReplayKeyFor(signed before the start) looks up legacy names: %v (%d names), want %v", k.lookFirst, len(k.names), tc.wantLegacy)
			}
		})
	}
}
