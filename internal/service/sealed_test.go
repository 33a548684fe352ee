package service

import (
	"context"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

func newBox(t *testing.T) *secrets.Box {
	t.Helper()
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// TestCheckSecrets: the first key a database meets is the only one it
// accepts after, by its canary.
func TestCheckSecrets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	right, wrong := newBox(t), newBox(t)
	for i, step := range []struct {
		box  *secrets.Box
		want error
	}{{right, nil}, {wrong, ErrWrongMasterKey}, {right, nil}} {
		if err := CheckSecrets(ctx, db, step.box); !errors.Is(err, step.want) {
			t.Errorf("CheckSecrets #%d = %v, want %v", i+1, err, step.want)
		}
	}
}

// TestLegacySecrets: a database written before the canary, whose secrets
// were bound to the key id alone, refuses a wrong key; with the right one
// it gets a canary, and its secrets are sealed again bound to their slots.
func TestLegacySecrets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	right, wrong := newBox(t), newBox(t)
	expires := time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)
	k := &store.Credential{APIKey: adcamp.APIKey{ID: "ak_live_x", AccountID: "acc_1", Environment: adcamp.Production,
		CreatedAt: expires.Add(-48 * time.Hour), PreviousExpiresAt: &expires},
		Secret: right.Seal([]byte("sk_live_new"), []byte("ak_live_x")), PreviousSecret: right.Seal([]byte("sk_live_old"), []byte("ak_live_x"))}
	err = db.Write(ctx, func(tx store.Tx) error {
		if err := tx.CreateAccount(ctx, &adcamp.Account{ID: "acc_1", Name: "Acme", CreatedAt: k.CreatedAt}); err != nil {
			return err
		}
		return tx.CreateCredential(ctx, k)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSecrets(ctx, db, wrong); !errors.Is(err, ErrWrongMasterKey) {
		t.Fatalf("CheckSecrets(wrong key) of a database without a canary = %v, want ErrWrongMasterKey", err)
	}
	if err := CheckSecrets(ctx, db, right); err != nil {
		t.Fatalf("CheckSecrets(right key) = %v", err)
	}
	if err := CheckSecrets(ctx, db, wrong); !errors.Is(err, ErrWrongMasterKey) {
		t.Errorf("CheckSecrets(wrong key) once the canary is written = %v, want ErrWrongMasterKey", err)
	}
	var got *store.Credential
	err = db.Read(ctx, func(tx store.Tx) error {
		got, err = tx.GetCredential(ctx, "ak_live_x")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	cur, prev, legacy, err := openSecrets(right, got)
	if err != nil || legacy || string(cur) != "sk_live_new" || string(prev) != "sk_live_old" {
		t.Errorf("after CheckSecrets: %q, %q, legacy %v, %v; want both secrets, sealed in the new way", cur, prev, legacy, err)
	}
	if _, err := right.Open(got.Secret, []byte("ak_live_x")); err == nil {
		t.Error("the current secret still opens bound to the key id alone")
	}
}
