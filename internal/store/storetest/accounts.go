package storetest

import (
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

func newAccount(t *testing.T, db store.Store, name string) *adcamp.Account {
	ctx := t.Context()
	t.Helper()
	a := &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, base), Name: name, Email: "ops@example.test", CreatedAt: base}
	write(t, db, func(tx store.Tx) error { return tx.CreateAccount(ctx, a) })
	return a
}

func newKey(t *testing.T, db store.Store, accountID, id string, env adcamp.Environment, created time.Time) *store.Credential {
	ctx := t.Context()
	t.Helper()
	k := &store.Credential{
		APIKey: adcamp.APIKey{ID: id, AccountID: accountID, Environment: env, CreatedAt: created},
		Secret: []byte("sealed " + id),
	}
	write(t, db, func(tx store.Tx) error { return tx.CreateCredential(ctx, k) })
	return k
}

func testAccounts(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetAccount(ctx, a.ID)
		if err != nil {
			t.Fatalf("GetAccount(%s): %v", a.ID, err)
		}
		same(t, "GetAccount", got, a)
		_, err = tx.GetAccount(ctx, "acc_missing")
		wantCode(t, "GetAccount(acc_missing)", err, adcamp.CodeNotFound)
		return nil
	})
}

func testChannelAccounts(t *testing.T, db store.Store) {
	ctx := t.Context()
	a, b := newAccount(t, db, "Acme"), newAccount(t, db, "Other")
	var cas []*adcamp.ChannelAccount
	for i, m := range []string{"US", "JP", "DE", "FR", "KR"} {
		ca := &adcamp.ChannelAccount{AccountID: a.ID, Marketplace: m, Name: "Acme " + m, CreatedAt: at(i)}
		write(t, db, func(tx store.Tx) error { return tx.CreateChannelAccount(ctx, ca) })
		if ca.ID <= 0 || (i > 0 && ca.ID <= cas[i-1].ID) {
			t.Errorf("CreateChannelAccount set ID %d, want a positive id above the previous one", ca.ID)
		}
		cas = append(cas, ca)
	}
	other := &adcamp.ChannelAccount{AccountID: b.ID, Marketplace: "US", Name: "Other US", CreatedAt: at(9)}
	write(t, db, func(tx store.Tx) error { return tx.CreateChannelAccount(ctx, other) })

	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetChannelAccount(ctx, a.ID, cas[1].ID)
		if err != nil {
			t.Fatalf("GetChannelAccount(%d): %v", cas[1].ID, err)
		}
		same(t, "GetChannelAccount", got, cas[1])
		_, err = tx.GetChannelAccount(ctx, a.ID, other.ID)
		wantCode(t, "GetChannelAccount(another account's id)", err, adcamp.CodeNotFound)
		_, err = tx.GetChannelAccount(ctx, a.ID, other.ID+1000)
		wantCode(t, "GetChannelAccount(missing id)", err, adcamp.CodeNotFound)

		want := []string{"Acme KR", "Acme FR", "Acme DE", "Acme JP", "Acme US"}
		var names []string
		for _, q := range []store.ListQuery{{Limit: 2}, {Limit: 2, Offset: 2}, {Limit: 2, Offset: 4}, {Limit: 2, Offset: 6}} {
			page, total, err := tx.ListChannelAccounts(ctx, a.ID, q)
			if err != nil || total != 5 {
				t.Fatalf("ListChannelAccounts(%+v) total = %d, %v; want 5", q, total, err)
			}
			names = append(names, idsOf(page, func(c *adcamp.ChannelAccount) string { return c.Name })...)
		}
		sameIDs(t, "ListChannelAccounts (names, page by page)", names, want)
		page, total, err := tx.ListChannelAccounts(ctx, b.ID, store.ListQuery{Limit: 10})
		if err != nil || total != 1 || len(page) != 1 || page[0].ID != other.ID {
			t.Errorf("ListChannelAccounts(other account) = %s, %d, %v; want only its own", show(page), total, err)
		}
		return nil
	})
}

func testKeys(t *testing.T, db store.Store) {
	ctx := t.Context()
	a, b := newAccount(t, db, "Acme"), newAccount(t, db, "Other")
	k2 := newKey(t, db, a.ID, "ak_test_bbb", adcamp.Sandbox, at(5))
	k1 := newKey(t, db, a.ID, "ak_live_zzz", adcamp.Production, at(1))
	k3 := newKey(t, db, a.ID, "ak_live_aaa", adcamp.Production, at(5))
	newKey(t, db, b.ID, "ak_live_other", adcamp.Production, at(0))

	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetCredential(ctx, k1.ID)
		if err != nil {
			t.Fatalf("GetKey(%s): %v", k1.ID, err)
		}
		same(t, "GetKey", got, k1)
		if got.PreviousSecret != nil || got.LastUsedAt != nil || got.PreviousExpiresAt != nil {
			t.Errorf("GetKey of a new key = %s, want no previous secret and no last use", show(got))
		}
		_, err = tx.GetCredential(ctx, "ak_live_missing")
		wantCode(t, "GetKey(missing)", err, adcamp.CodeNotFound)
		keys, err := tx.ListCredentials(ctx, a.ID)
		if err != nil {
			t.Fatalf("ListKeys: %v", err)
		}
		sameIDs(t, "ListKeys (oldest first, then by id)", idsOf(keys, func(k *store.Credential) string { return k.ID }),
			[]string{k1.ID, k3.ID, k2.ID})
		return nil
	})

	// Roll and disable: every mutable field is written.
	expires := at(86400)
	k2.PreviousSecret, k2.PreviousExpiresAt = k2.Secret, &expires
	k2.Secret, k2.Disabled = []byte("sealed new secret"), true
	write(t, db, func(tx store.Tx) error { return tx.UpdateCredential(ctx, k2) })
	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetCredential(ctx, k2.ID)
		if err != nil {
			t.Fatalf("GetKey(%s): %v", k2.ID, err)
		}
		same(t, "GetKey after UpdateKey", got, k2)
		return nil
	})
	err := db.Write(ctx, func(tx store.Tx) error {
		return tx.UpdateCredential(ctx, &store.Credential{APIKey: adcamp.APIKey{ID: "ak_live_missing"}, Secret: []byte("x")})
	})
	wantCode(t, "UpdateKey(missing)", err, adcamp.CodeNotFound)

	write(t, db, func(tx store.Tx) error { return tx.DeleteCredential(ctx, k2.ID) })
	err = db.Write(ctx, func(tx store.Tx) error { return tx.DeleteCredential(ctx, k2.ID) })
	wantCode(t, "DeleteKey(deleted key)", err, adcamp.CodeNotFound)
	read(t, db, func(tx store.Tx) error {
		_, err := tx.GetCredential(ctx, k2.ID)
		wantCode(t, "GetKey(deleted key)", err, adcamp.CodeNotFound)
		return nil
	})
}

func testTouchKeys(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	k1 := newKey(t, db, a.ID, "ak_live_one", adcamp.Production, at(0))
	k2 := newKey(t, db, a.ID, "ak_live_two", adcamp.Production, at(0))
	lastUse := func() (one, two string) {
		t.Helper()
		read(t, db, func(tx store.Tx) error {
			g1, err1 := tx.GetCredential(ctx, k1.ID)
			g2, err2 := tx.GetCredential(ctx, k2.ID)
			if err1 != nil || err2 != nil {
				t.Fatalf("GetKey: %v, %v", err1, err2)
			}
			one, two = show(g1.LastUsedAt), show(g2.LastUsedAt)
			return nil
		})
		return one, two
	}

	write(t, db, func(tx store.Tx) error { return tx.TouchCredentials(ctx, map[string]time.Time{}) })
	write(t, db, func(tx store.Tx) error {
		return tx.TouchCredentials(ctx, map[string]time.Time{k1.ID: at(60), k2.ID: at(30), "ak_live_unknown": at(60)})
	})
	if one, two := lastUse(); one != show(at(60)) || two != show(at(30)) {
		t.Errorf("last use after TouchKeys = %s, %s; want %s, %s", one, two, show(at(60)), show(at(30)))
	}
	// An older use (a slower process flushing late) never moves it back.
	write(t, db, func(tx store.Tx) error {
		return tx.TouchCredentials(ctx, map[string]time.Time{k1.ID: at(10), k2.ID: at(90)})
	})
	if one, two := lastUse(); one != show(at(60)) || two != show(at(90)) {
		t.Errorf("last use after a second TouchKeys = %s, %s; want %s, %s", one, two, show(at(60)), show(at(90)))
	}
}
