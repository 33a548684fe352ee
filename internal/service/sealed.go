package service

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/store"
)

// A credential's secrets are sealed (AES-GCM) bound to their place: the
// key's id, the slot (current, or previous with its expiry). A ciphertext
// moved to another row, swapped between the slots, or given a later
// expiry does not open, so nobody with write access to the database alone
// can revive a rolled secret. Versions before this one bound the id only;
// such secrets still open (legacyAD), and CheckSecrets seals them again
// in the new way at start.

// currentAD and previousAD are the associated data of the two slots.
func currentAD(id string) []byte { return []byte(id + "\x00current") }

func previousAD(id string, expires time.Time) []byte {
	return []byte(id + "\x00previous\x00" + strconv.FormatInt(expires.Unix(), 10))
}

// legacyAD is what earlier versions bound a secret to: the id alone.
func legacyAD(id string) []byte { return []byte(id) }

// openSecrets decrypts a credential's secrets: the current one, then the
// previous one if it has one that opens (one that does not was moved or
// altered: it is as good as none). legacy reports a secret sealed the old
// way.
func openSecrets(box *secrets.Box, k *store.Credential) (current, previous []byte, legacy bool, err error) {
	current, oldCurrent, err := openSlot(box, k.Secret, currentAD(k.ID), k.ID)
	if err != nil {
		return nil, nil, false, fmt.Errorf("open the secret of %s: %w", k.ID, err)
	}
	if k.PreviousSecret == nil || k.PreviousExpiresAt == nil {
		return current, nil, oldCurrent, nil
	}
	previous, oldPrevious, err := openSlot(box, k.PreviousSecret, previousAD(k.ID, *k.PreviousExpiresAt), k.ID)
	if err != nil {
		return current, nil, oldCurrent, nil
	}
	return current, previous, oldCurrent || oldPrevious, nil
}

// openSlot opens a ciphertext bound to ad, or else to the legacy data,
// and says which.
func openSlot(box *secrets.Box, sealed, ad []byte, id string) ([]byte, bool, error) {
	if plain, err := box.Open(sealed, ad); err == nil {
		return plain, false, nil
	}
	plain, err := box.Open(sealed, legacyAD(id))
	return plain, err == nil, err
}

// seal binds a credential's secrets to their slots: Secret from current,
// PreviousSecret from previous (nil for none; then no expiry either).
func seal(box *secrets.Box, k *store.Credential, current, previous []byte) {
	k.Secret = box.Seal(current, currentAD(k.ID))
	k.PreviousSecret = nil
	if previous != nil && k.PreviousExpiresAt != nil {
		k.PreviousSecret = box.Seal(previous, previousAD(k.ID, *k.PreviousExpiresAt))
	}
}

// canaryName is the installation setting that holds the canary, a random
// value sealed with the master key when the database met its first key.
const (
	canaryName = "master_key_canary"
	canaryAD   = "adcamp master key canary"
)

// hashedNamesOnly is the installation setting that says every replay
// record of the database was named by a version that hashes signatures:
// the canary was added before the first credential, and the canary came
// with the hashed names.
const hashedNamesOnly = "replay_names_hashed_only"

// ErrWrongMasterKey: the master key given is not the one the database's
// secrets were sealed with.
var ErrWrongMasterKey = errors.New("the master key does not open this database's secrets: " +
	"it is not the key they were written with (check ADCAMP_MASTER_KEY or --master-key-file)")

// CheckSecrets makes sure box holds the master key of db's secrets, so
// that a process given a wrong key refuses to start instead of answering
// every request with an error, and seals again in the current way the
// secrets earlier versions sealed. The check is a canary: a value sealed
// at the first start and opened at every one. A database written before
// the canary existed gets one once a stored secret has opened with the key.
func CheckSecrets(ctx context.Context, db store.Store, box *secrets.Box) error {
	var canary []byte
	err := db.Read(ctx, func(tx store.Tx) error {
		var err error
		canary, err = tx.GetSetting(ctx, canaryName)
		return err
	})
	switch adcamp.ErrorCode(err) {
	case adcamp.CodeNotFound:
		if err := addCanary(ctx, db, box); err != nil {
			return err
		}
	case adcamp.CodeInternal:
		if err != nil {
			return err
		}
		if _, err := box.Open(canary, []byte(canaryAD)); err != nil {
			return ErrWrongMasterKey
		}
	default:
		return err
	}
	return resealLegacy(ctx, db, box)
}

// addCanary seals a canary, once a stored secret (if there is any) has
// shown that box holds the right key. If another process added one
// meanwhile, that one is checked.
func addCanary(ctx context.Context, db store.Store, box *secrets.Box) error {
	value := make([]byte, 32)
	if _, err := rand.Read(value); err != nil {
		return err
	}
	return db.Write(ctx, func(tx store.Tx) error {
		keys, err := tx.AllCredentials(ctx)
		if err != nil {
			return err
		}
		if len(keys) > 0 && !slices.ContainsFunc(keys, func(k *store.Credential) bool {
			_, _, _, err := openSecrets(box, k)
			return err == nil
		}) {
			return ErrWrongMasterKey
		}
		added, err := tx.AddSetting(ctx, canaryName, box.Seal(value, []byte(canaryAD)))
		if err != nil {
			return err
		}
		if added && len(keys) == 0 {
			// No credential exists, so no earlier version can have
			// answered a signed request here: no replay record has a
			// name of theirs (see Service.ReplayKeyFor).
			if _, err := tx.AddSetting(ctx, hashedNamesOnly, []byte("1")); err != nil {
				return err
			}
		}
		if added {
			return nil
		}
		canary, err := tx.GetSetting(ctx, canaryName)
		if err != nil {
			return err
		}
		if _, err := box.Open(canary, []byte(canaryAD)); err != nil {
			return ErrWrongMasterKey
		}
		return nil
	})
}

// resealLegacy seals again, bound to their slots, the secrets that
// earlier versions bound to the key's id alone. (A secret that opens in
// neither way was tampered with: it is left as it is, and its key is
// refused.)
func resealLegacy(ctx context.Context, db store.Store, box *secrets.Box) error {
	var legacy []string
	err := db.Read(ctx, func(tx store.Tx) error {
		keys, err := tx.AllCredentials(ctx)
		for _, k := range keys {
			if _, _, old, err := openSecrets(box, k); err == nil && old {
				legacy = append(legacy, k.ID)
			}
		}
		return err
	})
	if err != nil || len(legacy) == 0 {
		return err
	}
	return db.Write(ctx, func(tx store.Tx) error {
		for _, id := range legacy {
			k, err := tx.GetCredential(ctx, id)
			if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
				continue // deleted meanwhile
			}
			if err != nil {
				return err
			}
			current, previous, old, err := openSecrets(box, k)
			if err != nil || !old {
				continue
			}
			seal(box, k, current, previous)
			if err := tx.UpdateCredential(ctx, k); err != nil {
				return err
			}
		}
		return nil
	})
}
