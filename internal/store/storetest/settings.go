package storetest

import (
	"bytes"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// testSettings: a setting is added once and read back; adding it again
// changes nothing; setting it replaces it.
func testSettings(t *testing.T, db store.Store) {
	ctx := t.Context()
	read(t, db, func(tx store.Tx) error {
		_, err := tx.GetSetting(ctx, "canary")
		wantCode(t, "GetSetting(missing)", err, adcamp.CodeNotFound)
		return nil
	})
	for i, want := range []bool{true, false} {
		write(t, db, func(tx store.Tx) error {
			added, err := tx.AddSetting(ctx, "canary", []byte{byte(i), 0, 255})
			if err != nil || added != want {
				t.Errorf("AddSetting #%d = %v, %v; want %v", i+1, added, err, want)
			}
			return nil
		})
	}
	read(t, db, func(tx store.Tx) error {
		v, err := tx.GetSetting(ctx, "canary")
		if err != nil || !bytes.Equal(v, []byte{0, 0, 255}) {
			t.Errorf("GetSetting = %v, %v; want the first value", v, err)
		}
		return nil
	})
	// SetSetting stores a value whether or not one is there.
	for _, v := range []string{"http://127.0.0.1:8082", "https://console.example.com"} {
		write(t, db, func(tx store.Tx) error {
			if err := tx.SetSetting(ctx, "console_url", []byte(v)); err != nil {
				t.Errorf("SetSetting(%s) = %v", v, err)
			}
			return nil
		})
		read(t, db, func(tx store.Tx) error {
			if got, err := tx.GetSetting(ctx, "console_url"); err != nil || string(got) != v {
				t.Errorf("GetSetting after SetSetting(%s) = %q, %v", v, got, err)
			}
			return nil
		})
	}
}

// testAllCredentials: every credential of every account, by id.
func testAllCredentials(t *testing.T, db store.Store) {
	ctx := t.Context()
	a, b := newAccount(t, db, "Acme"), newAccount(t, db, "Other")
	k2 := newKey(t, db, a.ID, "ak_test_bbb", adcamp.Sandbox, at(5))
	k1 := newKey(t, db, b.ID, "ak_live_aaa", adcamp.Production, at(1))
	read(t, db, func(tx store.Tx) error {
		keys, err := tx.AllCredentials(ctx)
		if err != nil {
			t.Fatalf("AllCredentials: %v", err)
		}
		sameIDs(t, "AllCredentials", idsOf(keys, func(k *store.Credential) string { return k.ID }), []string{k1.ID, k2.ID})
		if len(keys) == 2 {
			same(t, "AllCredentials[0]", keys[0], k1)
		}
		return nil
	})
}
