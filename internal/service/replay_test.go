package service

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// TestReplayKeyHash: a request's hash is the one earlier versions stored,
// so that records written before an upgrade still tell a retry from a
// reused key.
func TestReplayKeyHash(t *testing.T) {
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
// may have been answered by an earlier version, which named its record by
// the signature alone; it is replayed from that record. A change signed
// since is named by timestamp and signature, and looked up only if saving
// its answer finds one there.
func TestLegacySignatureRecords(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	s := New(Config{Store: db, Now: func() time.Time { return start }})
	key := &adcamp.APIKey{ID: "ak_live_x", AccountID: "acc_1", Environment: adcamp.Production}
	body := []byte(`{"name":"x"}`)
	before, since := strconv.FormatInt(start.Unix()-60, 10), strconv.FormatInt(start.Unix(), 10)

	old, err := s.ReplayKeyFor(SignedRequest{Credential: key, Timestamp: before, Signature: "5ab1", Method: "POST", Path: "/campaigns", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	if !old.lookFirst || len(old.names) != 2 || old.names[0].token != before+"/5ab1" || old.names[1].token != "5ab1" || !old.names[1].legacy {
		t.Fatalf("ReplayKeyFor(signed before the start) = %+v, want the timestamped name, then the legacy one, looked up first", old)
	}
	// What the earlier version stored when it answered the request.
	err = db.Write(ctx, func(tx store.Tx) error {
		_, err := tx.SaveRecord(ctx, &store.RequestRecord{Scope: "sig:ak_live_x", Token: "5ab1", RequestHash: old.hash,
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
		t.Errorf("Once(signed before the start, answered by the earlier version) = %+v, replayed %v, executed %v, %v; want the stored answer, not executed",
			ans, replayed, executed, err)
	}

	now, err := s.ReplayKeyFor(SignedRequest{Credential: key, Timestamp: since, Signature: "77cd", Method: "POST", Path: "/campaigns", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	if now.lookFirst || len(now.names) != 1 || now.names[0].token != since+"/77cd" {
		t.Fatalf("ReplayKeyFor(signed since the start) = %+v, want the timestamped name alone, not looked up first", now)
	}
	// The first time it runs; the second, its attempt finds the name taken
	// as it saves (and is rolled back), and the stored answer is replayed.
	for i, want := range []bool{false, true} {
		ans, replayed, err = s.Once(ctx, now, run)
		if err != nil || replayed != want || string(ans.Body) != `{"second":true}` {
			t.Errorf("Once(signed since the start) #%d = %+v, replayed %v, %v; want replayed %v", i+1, ans, replayed, err, want)
		}
	}
}
