package storetest

import (
	"fmt"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// testKeyTrail checks that a credential's trail keeps its newest
// KeyTrailKept uses, newest first, apart from other keys', and that uses of
// a deleted key are dropped.
func testKeyTrail(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	k1 := newKey(t, db, a.ID, "ak_test_trail1", adcamp.Sandbox, at(1))
	k2 := newKey(t, db, a.ID, "ak_test_trail2", adcamp.Sandbox, at(1))
	var uses []store.KeyUse
	for i := range store.KeyTrailKept + 20 {
		uses = append(uses, store.KeyUse{KeyID: k1.ID, At: at(10 + i), Address: fmt.Sprintf("203.0.113.%d", i%250),
			Route: "GET /api/v1/open/campaigns"})
	}
	uses = append(uses, store.KeyUse{KeyID: k2.ID, At: at(5), Address: "::1", Route: "POST /api/v1/open/campaigns"},
		store.KeyUse{KeyID: "ak_test_gone", At: at(5), Address: "::1", Route: "GET /x"})
	// Two batches, as two flushes would write them.
	write(t, db, func(tx store.Tx) error { return tx.AddKeyUses(ctx, uses[:50]) })
	write(t, db, func(tx store.Tx) error { return tx.AddKeyUses(ctx, uses[50:]) })
	read(t, db, func(tx store.Tx) error {
		got, err := tx.ListKeyUses(ctx, k1.ID)
		if err != nil {
			t.Fatalf("ListKeyUses(%s): %v", k1.ID, err)
		}
		if len(got) != store.KeyTrailKept {
			t.Fatalf("ListKeyUses(%s) returned %d uses, want %d", k1.ID, len(got), store.KeyTrailKept)
		}
		same(t, "ListKeyUses newest", got[0], uses[store.KeyTrailKept+19])
		same(t, "ListKeyUses oldest", got[store.KeyTrailKept-1], uses[20])
		got2, err := tx.ListKeyUses(ctx, k2.ID)
		if err != nil {
			t.Fatalf("ListKeyUses(%s): %v", k2.ID, err)
		}
		same(t, "ListKeyUses of the other key", got2, []store.KeyUse{uses[len(uses)-2]})
		return nil
	})
	write(t, db, func(tx store.Tx) error { return tx.DeleteCredential(ctx, k2.ID) })
	read(t, db, func(tx store.Tx) error {
		got, err := tx.ListKeyUses(ctx, k2.ID)
		if err != nil || len(got) != 0 {
			t.Errorf("ListKeyUses(deleted key) = %v, %v; want none", got, err)
		}
		return nil
	})
}
