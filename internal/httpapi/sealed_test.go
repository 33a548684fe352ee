package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// credential reads a stored credential as the database holds it.
func (e *testEnv) credential(id string) *store.Credential {
	e.t.Helper()
	var k *store.Credential
	err := e.db.Read(context.Background(), func(tx store.Tx) error {
		var err error
		k, err = tx.GetCredential(context.Background(), id)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return k
}

func (e *testEnv) writeCredential(k *store.Credential) {
	e.t.Helper()
	if err := e.db.Write(context.Background(), func(tx store.Tx) error { return tx.UpdateCredential(context.Background(), k) }); err != nil {
		e.t.Fatal(err)
	}
}

// TestRolledSecretCannotBeRevived: with write access to the database
// alone, a rolled secret cannot be made to verify again, neither by giving
// it a later expiry nor by swapping it into the current slot.
func TestRolledSecretCannotBeRevived(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	old := *prod
	k, err := e.svc.RollKey(context.Background(), prod.key, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	prod.secret = k.Secret
	e.clock.Advance(2 * time.Hour)
	want(t, old.do("GET", "/campaigns", ""), 401, "INVALID_SIGNATURE")

	row := e.credential(prod.key)
	later := e.clock.Now().Add(time.Hour)
	row.PreviousExpiresAt = &later
	e.writeCredential(row)
	e.clock.Advance(service.KeyCacheTTL)
	want(t, old.do("GET", "/campaigns", ""), 401, "INVALID_SIGNATURE")
	want(t, prod.do("GET", "/campaigns", ""), 200, "")

	row.Secret, row.PreviousSecret = row.PreviousSecret, row.Secret
	e.writeCredential(row)
	e.clock.Advance(service.KeyCacheTTL)
	want(t, old.do("GET", "/campaigns", ""), 401, "INVALID_SIGNATURE")
}

// TestLegacySealedSecretsVerify: a secret sealed as earlier versions did
// (bound to the key id alone) verifies, before and after CheckSecrets
// seals it again in the new way.
func TestLegacySealedSecretsVerify(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	row := e.credential(prod.key)
	row.Secret = e.box.Seal([]byte(prod.secret), []byte(prod.key))
	e.writeCredential(row)
	e.clock.Advance(service.KeyCacheTTL)
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
	if err := service.CheckSecrets(context.Background(), e.db, e.box); err != nil {
		t.Fatal(err)
	}
	if _, err := e.box.Open(e.credential(prod.key).Secret, []byte(prod.key)); err == nil {
		t.Error("CheckSecrets left the secret bound to the key id alone")
	}
	e.clock.Advance(service.KeyCacheTTL)
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
}
