package storetest

import (
	"crypto/sha256"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The account console's part of the suite (store.ConsoleTx).

// consoleTests are registered in Run.
var consoleTests = []struct {
	name string
	fn   func(t *testing.T, db store.Store)
}{
	{"KeyNamesAndCreators", testKeyNames},
	{"Users", testUsers},
	{"Members", testMembers},
	{"Sessions", testSessions},
	{"Tokens", testTokens},
	{"SignInFailures", testSignInFailures},
	{"RecoveryCodes", testRecoveryCodes},
	{"CredentialUses", testCredentialUses},
}

func hashOf(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

func newUser(t *testing.T, db store.Store, email string) *store.User {
	ctx := t.Context()
	t.Helper()
	u := &store.User{User: adcamp.User{ID: adcamp.NewID(adcamp.PrefixUser, base), Email: email, CreatedAt: base}}
	write(t, db, func(tx store.Tx) error { return tx.CreateUser(ctx, u) })
	return u
}

func testKeyNames(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	k := &store.Credential{
		APIKey: adcamp.APIKey{ID: "ak_test_named", AccountID: a.ID, Environment: adcamp.Sandbox, CreatedAt: at(0),
			Name: "Reporting job", CreatedBy: &adcamp.Actor{Type: adcamp.ActorUser, ID: "usr_someone"}},
		Secret: []byte("sealed"),
	}
	write(t, db, func(tx store.Tx) error { return tx.CreateCredential(ctx, k) })
	plain := newKey(t, db, a.ID, "ak_test_plain", adcamp.Sandbox, at(1))
	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetCredential(ctx, k.ID)
		if err != nil {
			t.Fatalf("GetCredential: %v", err)
		}
		same(t, "GetCredential of a named key", got, k)
		got, err = tx.GetCredential(ctx, plain.ID)
		if err != nil {
			t.Fatalf("GetCredential: %v", err)
		}
		if got.Name != "" || got.CreatedBy != nil {
			t.Errorf("GetCredential of a key without name = %s, want no name and no creator", show(got))
		}
		return nil
	})
}

func testUsers(t *testing.T, db store.Store) {
	ctx := t.Context()
	read(t, db, func(tx store.Tx) error {
		if ok, err := tx.HasUsers(ctx); ok || err != nil {
			t.Errorf("HasUsers of an empty store = %v, %v; want false", ok, err)
		}
		return nil
	})
	u := newUser(t, db, "ann@example.test")
	err := db.Write(ctx, func(tx store.Tx) error {
		return tx.CreateUser(ctx, &store.User{User: adcamp.User{ID: adcamp.NewID(adcamp.PrefixUser, base), Email: u.Email, CreatedAt: base}})
	})
	wantCode(t, "CreateUser(taken email)", err, adcamp.CodeConflict)

	u.PasswordHash, u.TOTPSecret, u.TOTPLastStep = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", []byte("sealed key"), 42
	write(t, db, func(tx store.Tx) error { return tx.UpdateUser(ctx, u) })
	u.PasswordSet, u.TwoStep = true, true
	read(t, db, func(tx store.Tx) error {
		if ok, err := tx.HasUsers(ctx); !ok || err != nil {
			t.Errorf("HasUsers = %v, %v; want true", ok, err)
		}
		got, err := tx.GetUser(ctx, u.ID)
		if err != nil {
			t.Fatalf("GetUser: %v", err)
		}
		same(t, "GetUser", got, u)
		got, err = tx.GetUserByEmail(ctx, u.Email)
		if err != nil {
			t.Fatalf("GetUserByEmail: %v", err)
		}
		same(t, "GetUserByEmail", got, u)
		_, err = tx.GetUser(ctx, "usr_missing")
		wantCode(t, "GetUser(missing)", err, adcamp.CodeNotFound)
		_, err = tx.GetUserByEmail(ctx, "nobody@example.test")
		wantCode(t, "GetUserByEmail(missing)", err, adcamp.CodeNotFound)
		return nil
	})
	// Two-step sign-in turned off again.
	u.TOTPSecret, u.TOTPLastStep = nil, 0
	write(t, db, func(tx store.Tx) error { return tx.UpdateUser(ctx, u) })
	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetUser(ctx, u.ID)
		if err != nil || got.TwoStep || got.TOTPSecret != nil {
			t.Errorf("GetUser after turning TOTP off = %s, %v; want no secret", show(got), err)
		}
		return nil
	})
	err = db.Write(ctx, func(tx store.Tx) error {
		return tx.UpdateUser(ctx, &store.User{User: adcamp.User{ID: "usr_missing"}})
	})
	wantCode(t, "UpdateUser(missing)", err, adcamp.CodeNotFound)
}

func testMembers(t *testing.T, db store.Store) {
	ctx := t.Context()
	a, b := newAccount(t, db, "Acme"), newAccount(t, db, "Other")
	ann, bob, cat := newUser(t, db, "ann@example.test"), newUser(t, db, "bob@example.test"), newUser(t, db, "cat@example.test")
	member := func(acc *adcamp.Account, u *store.User, r adcamp.Role, added int) *adcamp.Member {
		m := &adcamp.Member{AccountID: acc.ID, User: u.User, Role: r, AddedAt: at(added)}
		write(t, db, func(tx store.Tx) error { return tx.CreateMember(ctx, m) })
		return m
	}
	mBob := member(a, bob, adcamp.RoleDeveloper, 2)
	mAnn := member(a, ann, adcamp.RoleOwner, 1)
	member(a, cat, adcamp.RoleViewer, 3)
	member(b, ann, adcamp.RoleViewer, 0)
	err := db.Write(ctx, func(tx store.Tx) error {
		return tx.CreateMember(ctx, &adcamp.Member{AccountID: a.ID, User: bob.User, Role: adcamp.RoleOwner, AddedAt: at(9)})
	})
	wantCode(t, "CreateMember(a member already)", err, adcamp.CodeConflict)

	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetMember(ctx, a.ID, bob.ID)
		if err != nil {
			t.Fatalf("GetMember: %v", err)
		}
		same(t, "GetMember", got, mBob)
		_, err = tx.GetMember(ctx, b.ID, bob.ID)
		wantCode(t, "GetMember(not a member of that account)", err, adcamp.CodeNotFound)
		ms, err := tx.ListMembers(ctx, a.ID)
		if err != nil {
			t.Fatalf("ListMembers: %v", err)
		}
		sameIDs(t, "ListMembers (in the order added)", idsOf(ms, func(m *adcamp.Member) string { return m.User.Email }),
			[]string{ann.Email, bob.Email, cat.Email})
		same(t, "ListMembers[0]", ms[0], mAnn)
		ms, err = tx.ListMemberships(ctx, ann.ID)
		if err != nil {
			t.Fatalf("ListMemberships: %v", err)
		}
		sameIDs(t, "ListMemberships (in the order added)", idsOf(ms, func(m *adcamp.Member) string { return m.AccountID }),
			[]string{b.ID, a.ID})
		if n, err := tx.CountOwners(ctx, a.ID); n != 1 || err != nil {
			t.Errorf("CountOwners = %d, %v; want 1", n, err)
		}
		return nil
	})

	write(t, db, func(tx store.Tx) error { return tx.SetMemberRole(ctx, a.ID, bob.ID, adcamp.RoleOwner) })
	write(t, db, func(tx store.Tx) error { return tx.DeleteMember(ctx, a.ID, cat.ID) })
	err = db.Write(ctx, func(tx store.Tx) error { return tx.SetMemberRole(ctx, b.ID, bob.ID, adcamp.RoleOwner) })
	wantCode(t, "SetMemberRole(not a member)", err, adcamp.CodeNotFound)
	err = db.Write(ctx, func(tx store.Tx) error { return tx.DeleteMember(ctx, a.ID, cat.ID) })
	wantCode(t, "DeleteMember(removed already)", err, adcamp.CodeNotFound)
	read(t, db, func(tx store.Tx) error {
		if n, err := tx.CountOwners(ctx, a.ID); n != 2 || err != nil {
			t.Errorf("CountOwners after a promotion = %d, %v; want 2", n, err)
		}
		ms, _ := tx.ListMembers(ctx, a.ID)
		sameIDs(t, "ListMembers after a removal", idsOf(ms, func(m *adcamp.Member) string { return m.User.Email }),
			[]string{ann.Email, bob.Email})
		ms, _ = tx.ListMemberships(ctx, cat.ID)
		if len(ms) != 0 {
			t.Errorf("ListMemberships of a removed member = %s, want none", show(ms))
		}
		return nil
	})
}

func testSessions(t *testing.T, db store.Store) {
	ctx := t.Context()
	ann, bob := newUser(t, db, "ann@example.test"), newUser(t, db, "bob@example.test")
	s1 := &store.Session{Hash: hashOf("one"), UserID: ann.ID, CreatedAt: at(0), LastSeenAt: at(0)}
	s2 := &store.Session{Hash: hashOf("two"), UserID: ann.ID, CreatedAt: at(10), LastSeenAt: at(10)}
	s3 := &store.Session{Hash: hashOf("three"), UserID: ann.ID, CreatedAt: at(20), LastSeenAt: at(20)}
	sb := &store.Session{Hash: hashOf("bob"), UserID: bob.ID, CreatedAt: at(0), LastSeenAt: at(0)}
	for _, s := range []*store.Session{s1, s2, s3, sb} {
		write(t, db, func(tx store.Tx) error { return tx.CreateSession(ctx, s) })
	}
	write(t, db, func(tx store.Tx) error { return tx.TouchSession(ctx, s1.Hash, at(100)) })
	s1.LastSeenAt = at(100)
	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetSession(ctx, s1.Hash)
		if err != nil {
			t.Fatalf("GetSession: %v", err)
		}
		same(t, "GetSession after TouchSession", got, s1)
		_, err = tx.GetSession(ctx, hashOf("unknown"))
		wantCode(t, "GetSession(unknown)", err, adcamp.CodeNotFound)
		return nil
	})
	// Sign out everywhere but here.
	var n int64
	write(t, db, func(tx store.Tx) error {
		var err error
		n, err = tx.DeleteUserSessions(ctx, ann.ID, s2.Hash)
		return err
	})
	if n != 2 {
		t.Errorf("DeleteUserSessions(keep one of 3) = %d, want 2", n)
	}
	read(t, db, func(tx store.Tx) error {
		for _, s := range []*store.Session{s1, s3} {
			_, err := tx.GetSession(ctx, s.Hash)
			wantCode(t, "GetSession(ended elsewhere)", err, adcamp.CodeNotFound)
		}
		for _, s := range []*store.Session{s2, sb} {
			if _, err := tx.GetSession(ctx, s.Hash); err != nil {
				t.Errorf("GetSession(kept, or another user's) = %v", err)
			}
		}
		return nil
	})
	write(t, db, func(tx store.Tx) error {
		var err error
		n, err = tx.DeleteUserSessions(ctx, ann.ID, nil)
		return err
	})
	if n != 1 {
		t.Errorf("DeleteUserSessions(keep none) = %d, want 1", n)
	}
	// Purge: idle since before 5, or created before -1 (none).
	s4 := &store.Session{Hash: hashOf("four"), UserID: bob.ID, CreatedAt: at(-100), LastSeenAt: at(50)}
	write(t, db, func(tx store.Tx) error { return tx.CreateSession(ctx, s4) })
	write(t, db, func(tx store.Tx) error {
		var err error
		n, err = tx.PurgeSessions(ctx, at(5), at(-50))
		return err
	})
	if n != 2 {
		t.Errorf("PurgeSessions = %d, want 2 (one idle, one too old)", n)
	}
	write(t, db, func(tx store.Tx) error { return tx.DeleteSession(ctx, sb.Hash) })
	err := db.Write(ctx, func(tx store.Tx) error { return tx.TouchSession(ctx, sb.Hash, at(200)) })
	wantCode(t, "TouchSession(ended)", err, adcamp.CodeNotFound)
}

func testTokens(t *testing.T, db store.Store) {
	ctx := t.Context()
	ann := newUser(t, db, "ann@example.test")
	setup := &store.Token{Hash: hashOf("setup"), Purpose: store.TokenSetup, CreatedAt: at(0), ExpiresAt: at(3600)}
	pw := &store.Token{Hash: hashOf("pw"), Purpose: store.TokenPassword, UserID: ann.ID, CreatedAt: at(0), ExpiresAt: at(3600)}
	reveal := &store.Token{Hash: hashOf("reveal"), Purpose: store.TokenReveal, UserID: ann.ID, Data: []byte("sealed"),
		CreatedAt: at(0), ExpiresAt: at(60)}
	for _, k := range []*store.Token{setup, pw, reveal} {
		write(t, db, func(tx store.Tx) error { return tx.CreateToken(ctx, k) })
	}
	read(t, db, func(tx store.Tx) error {
		got, err := tx.GetToken(ctx, reveal.Hash, store.TokenReveal, at(59))
		if err != nil {
			t.Fatalf("GetToken: %v", err)
		}
		same(t, "GetToken", got, reveal)
		_, err = tx.GetToken(ctx, reveal.Hash, store.TokenReveal, at(60))
		wantCode(t, "GetToken(expired)", err, adcamp.CodeNotFound)
		_, err = tx.GetToken(ctx, reveal.Hash, store.TokenPassword, at(0))
		wantCode(t, "GetToken(another purpose)", err, adcamp.CodeNotFound)
		return nil
	})
	var got *store.Token
	write(t, db, func(tx store.Tx) error {
		var err error
		got, err = tx.TakeToken(ctx, setup.Hash, store.TokenSetup, at(1))
		return err
	})
	same(t, "TakeToken", got, setup)
	err := db.Write(ctx, func(tx store.Tx) error {
		_, err := tx.TakeToken(ctx, setup.Hash, store.TokenSetup, at(2))
		return err
	})
	wantCode(t, "TakeToken(taken already)", err, adcamp.CodeNotFound)

	write(t, db, func(tx store.Tx) error { return tx.DeleteUserTokens(ctx, ann.ID, store.TokenPassword) })
	var n int64
	write(t, db, func(tx store.Tx) error {
		var err error
		n, err = tx.PurgeTokens(ctx, at(60))
		return err
	})
	if n != 1 {
		t.Errorf("PurgeTokens = %d, want 1 (the expired reveal token)", n)
	}
	read(t, db, func(tx store.Tx) error {
		_, err := tx.GetToken(ctx, pw.Hash, store.TokenPassword, at(0))
		wantCode(t, "GetToken(deleted with the user's tokens)", err, adcamp.CodeNotFound)
		return nil
	})
}

func testSignInFailures(t *testing.T, db store.Store) {
	ctx := t.Context()
	for i := range 3 {
		write(t, db, func(tx store.Tx) error {
			return tx.AddSignInFailure(ctx, []string{"email:ann@example.test", "addr:192.0.2.1"}, at(i*10))
		})
	}
	write(t, db, func(tx store.Tx) error { return tx.AddSignInFailure(ctx, []string{"addr:192.0.2.1"}, at(40)) })
	read(t, db, func(tx store.Tx) error {
		for _, c := range []struct {
			key   string
			since int
			n     int64
			first int
		}{
			{"email:ann@example.test", 0, 3, 0},
			{"email:ann@example.test", 5, 2, 10},
			{"addr:192.0.2.1", 5, 3, 10},
		} {
			n, first, err := tx.SignInFailures(ctx, c.key, at(c.since))
			if err != nil || n != c.n || !first.Equal(at(c.first)) {
				t.Errorf("SignInFailures(%s, since %d) = %d, %v, %v; want %d, %v", c.key, c.since, n, first, err, c.n, at(c.first))
			}
		}
		if n, _, err := tx.SignInFailures(ctx, "email:nobody@example.test", at(0)); n != 0 || err != nil {
			t.Errorf("SignInFailures(unknown key) = %d, %v; want 0", n, err)
		}
		return nil
	})
	write(t, db, func(tx store.Tx) error { return tx.ClearSignInFailures(ctx, "email:ann@example.test") })
	var purged int64
	write(t, db, func(tx store.Tx) error {
		var err error
		purged, err = tx.PurgeSignInFailures(ctx, at(15))
		return err
	})
	if purged != 2 {
		t.Errorf("PurgeSignInFailures = %d, want 2", purged)
	}
	read(t, db, func(tx store.Tx) error {
		if n, _, _ := tx.SignInFailures(ctx, "email:ann@example.test", at(0)); n != 0 {
			t.Errorf("SignInFailures after ClearSignInFailures = %d, want 0", n)
		}
		if n, _, _ := tx.SignInFailures(ctx, "addr:192.0.2.1", at(0)); n != 2 {
			t.Errorf("SignInFailures after a purge = %d, want 2", n)
		}
		return nil
	})
}

func testRecoveryCodes(t *testing.T, db store.Store) {
	ctx := t.Context()
	ann, bob := newUser(t, db, "ann@example.test"), newUser(t, db, "bob@example.test")
	write(t, db, func(tx store.Tx) error {
		return tx.SetRecoveryCodes(ctx, ann.ID, [][]byte{hashOf("a"), hashOf("b"), hashOf("c")})
	})
	write(t, db, func(tx store.Tx) error { return tx.SetRecoveryCodes(ctx, bob.ID, [][]byte{hashOf("a")}) })
	write(t, db, func(tx store.Tx) error { return tx.UseRecoveryCode(ctx, ann.ID, hashOf("b")) })
	err := db.Write(ctx, func(tx store.Tx) error { return tx.UseRecoveryCode(ctx, ann.ID, hashOf("b")) })
	wantCode(t, "UseRecoveryCode(used already)", err, adcamp.CodeNotFound)
	err = db.Write(ctx, func(tx store.Tx) error { return tx.UseRecoveryCode(ctx, ann.ID, hashOf("z")) })
	wantCode(t, "UseRecoveryCode(unknown)", err, adcamp.CodeNotFound)
	count := func(u *store.User) int64 {
		var n int64
		read(t, db, func(tx store.Tx) error {
			var err error
			n, err = tx.CountRecoveryCodes(ctx, u.ID)
			return err
		})
		return n
	}
	if n := count(ann); n != 2 {
		t.Errorf("CountRecoveryCodes after one use = %d, want 2", n)
	}
	write(t, db, func(tx store.Tx) error { return tx.SetRecoveryCodes(ctx, ann.ID, [][]byte{hashOf("new")}) })
	if n := count(ann); n != 1 {
		t.Errorf("CountRecoveryCodes after replacing them = %d, want 1", n)
	}
	err = db.Write(ctx, func(tx store.Tx) error { return tx.UseRecoveryCode(ctx, ann.ID, hashOf("a")) })
	wantCode(t, "UseRecoveryCode(replaced)", err, adcamp.CodeNotFound)
	if n := count(bob); n != 1 {
		t.Errorf("CountRecoveryCodes of another user = %d, want 1", n)
	}
	write(t, db, func(tx store.Tx) error { return tx.SetRecoveryCodes(ctx, ann.ID, nil) })
	if n := count(ann); n != 0 {
		t.Errorf("CountRecoveryCodes after removing them = %d, want 0", n)
	}
}

func testCredentialUses(t *testing.T, db store.Store) {
	ctx := t.Context()
	a, b := newAccount(t, db, "Acme"), newAccount(t, db, "Other")
	k1 := newKey(t, db, a.ID, "ak_test_one", adcamp.Sandbox, at(0))
	k2 := newKey(t, db, a.ID, "ak_live_two", adcamp.Production, at(0))
	kb := newKey(t, db, b.ID, "ak_test_other", adcamp.Sandbox, at(0))
	d1, d2, d3 := day("2026-11-20"), day("2026-11-21"), day("2026-11-22")
	write(t, db, func(tx store.Tx) error {
		return tx.AddCredentialUses(ctx, map[store.CredentialDay]int64{
			use(k1.ID, d1): 5, use(k1.ID, d2): 7, use(k2.ID, d2): 1, use(kb.ID, d2): 9, use("ak_test_gone", d2): 3,
		})
	})
	write(t, db, func(tx store.Tx) error {
		return tx.AddCredentialUses(ctx, map[store.CredentialDay]int64{use(k1.ID, d2): 3, use(k1.ID, d3): 1})
	})
	write(t, db, func(tx store.Tx) error { return tx.AddCredentialUses(ctx, nil) })
	list := func(acc *adcamp.Account, since adcamp.Date) map[store.CredentialDay]int64 {
		var m map[store.CredentialDay]int64
		read(t, db, func(tx store.Tx) error {
			var err error
			m, err = tx.ListCredentialUses(ctx, acc.ID, since)
			return err
		})
		return m
	}
	if got := list(a, d1); !sameUses(got, map[store.CredentialDay]int64{use(k1.ID, d1): 5, use(k1.ID, d2): 10, use(k1.ID, d3): 1, use(k2.ID, d2): 1}) {
		t.Errorf("ListCredentialUses(since %s) = %v, want the sums of both batches, without the unknown key", d1, got)
	}
	if got := list(a, d2); !sameUses(got, map[store.CredentialDay]int64{use(k1.ID, d2): 10, use(k1.ID, d3): 1, use(k2.ID, d2): 1}) {
		t.Errorf("ListCredentialUses(since %s) = %v", d2, got)
	}
	if got := list(b, d1); !sameUses(got, map[store.CredentialDay]int64{use(kb.ID, d2): 9}) {
		t.Errorf("ListCredentialUses(other account) = %v, want only its own", got)
	}
	var n int64
	write(t, db, func(tx store.Tx) error {
		var err error
		n, err = tx.PurgeCredentialUses(ctx, d2)
		return err
	})
	if n != 1 {
		t.Errorf("PurgeCredentialUses(before %s) = %d, want 1", d2, n)
	}
	write(t, db, func(tx store.Tx) error { return tx.DeleteCredential(ctx, k1.ID) })
	if got := list(a, d1); !sameUses(got, map[store.CredentialDay]int64{use(k2.ID, d2): 1}) {
		t.Errorf("ListCredentialUses after deleting a key = %v, want the other key's only", got)
	}
}

func use(keyID string, d adcamp.Date) store.CredentialDay {
	return store.CredentialDay{KeyID: keyID, Day: d}
}

// sameUses compares counts by credential and day.
func sameUses(got, want map[store.CredentialDay]int64) bool {
	if len(got) != len(want) {
		return false
	}
	for k, n := range want {
		if got[k] != n {
			return false
		}
	}
	return true
}
