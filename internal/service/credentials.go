package service

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/store"
)

// KeyCacheTTL bounds how long a credential is served from memory: a key
// disabled, rolled or deleted by another process (the admin CLI, another
// server on the same database) is refused here at most this long after.
// Changes made through this Service take effect at once.
const KeyCacheTTL = time.Second

// liveKey is a credential as authentication needs it: its record, and its
// secrets decrypted once, ready to verify signatures (the current one,
// then the previous one if the key was rolled).
type liveKey struct {
	key     *store.Credential
	secrets []*signing.Verifier
	fetched time.Time
}

// keyCache holds the credentials recently used, so that a request costs
// no database read and no decryption. Only keys that exist are kept, so
// its size is bounded by the number of credentials.
type keyCache struct {
	mu sync.RWMutex
	m  map[string]*liveKey
}

func (c *keyCache) get(id string, now time.Time) *liveKey {
	c.mu.RLock()
	defer c.mu.RUnlock()
	cred := c.m[id]
	if cred == nil || now.Sub(cred.fetched) >= KeyCacheTTL || now.Before(cred.fetched) {
		return nil
	}
	return cred
}

func (c *keyCache) put(cred *liveKey) {
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[string]*liveKey)
	}
	c.m[cred.key.ID] = cred
	c.mu.Unlock()
}

// forget drops a key after this process changed it.
func (c *keyCache) forget(id string) {
	c.mu.Lock()
	delete(c.m, id)
	c.mu.Unlock()
}

// lookupKey returns the lookupKey with id in env, or nil if there is
// none.
func (s *Service) lookupKey(ctx context.Context, id string, env adcamp.Environment, now time.Time) (*liveKey, error) {
	if !strings.HasPrefix(id, "ak_"+env.KeyInfix()+"_") || len(id) > 64 {
		return nil, nil
	}
	if cred := s.keys.get(id, now); cred != nil {
		return cred, nil
	}
	var k *store.Credential
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		k, err = tx.GetCredential(ctx, id)
		return err
	})
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound || (err == nil && k.Environment != env) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cred := &liveKey{key: k, fetched: now}
	for _, sealed := range [][]byte{k.Secret, k.PreviousSecret} {
		if sealed == nil {
			continue
		}
		secret, err := s.box.Open(sealed, []byte(k.ID))
		if err != nil {
			return nil, fmt.Errorf("open a secret of %s: %w", k.ID, err)
		}
		cred.secrets = append(cred.secrets, signing.NewVerifier(string(secret)))
	}
	s.keys.put(cred)
	return cred, nil
}
