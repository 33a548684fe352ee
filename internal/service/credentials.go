package service

import (
	"context"
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
// A grant needs no wait: a request that the cached credential would refuse
// (its signature does not match, or the key is disabled) reads the
// credential afresh once before it is refused, so a key enabled or rolled
// elsewhere works on the next request. Changes made through this Service
// take effect at once.
const KeyCacheTTL = time.Second

// unknownKeyTTL bounds how long an API key that does not exist is
// remembered as unknown, so that a client repeating it costs no database
// read each time; maxUnknownKeys bounds how many are. A key created since
// (by another process) has a new random id, which nobody could have sent
// before it existed, so remembering the ids that were sent hides no new
// key; the bound is for safety.
const (
	unknownKeyTTL  = time.Second
	maxUnknownKeys = 10000
)

// liveKey is a credential as authentication needs it: its record, and its
// secrets decrypted once, ready to verify signatures (the current one,
// then the previous one if the key was rolled).
type liveKey struct {
	key     *store.Credential
	secrets []*signing.Verifier
	fetched time.Time
}

// keyCache holds the credentials recently used, so that a request costs
// no database read and no decryption, and the ids recently found unknown.
// Known keys are bounded by the number of credentials; unknown ones by
// maxUnknownKeys.
type keyCache struct {
	mu      sync.RWMutex
	m       map[string]*liveKey
	unknown map[string]time.Time // id -> when it was found unknown
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
	delete(c.unknown, cred.key.ID)
	c.mu.Unlock()
}

// isUnknown reports whether id was found unknown less than unknownKeyTTL
// ago.
func (c *keyCache) isUnknown(id string, now time.Time) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	at, ok := c.unknown[id]
	return ok && now.Sub(at) < unknownKeyTTL && !now.Before(at)
}

// putUnknown remembers that id is unknown.
func (c *keyCache) putUnknown(id string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.unknown) >= maxUnknownKeys {
		for k, at := range c.unknown {
			if now.Sub(at) >= unknownKeyTTL || now.Before(at) {
				delete(c.unknown, k)
			}
		}
		if len(c.unknown) >= maxUnknownKeys {
			clear(c.unknown)
		}
	}
	if c.unknown == nil {
		c.unknown = make(map[string]time.Time)
	}
	c.unknown[id] = now
}

// forget drops a key after this process changed or created it.
func (c *keyCache) forget(id string) {
	c.mu.Lock()
	delete(c.m, id)
	delete(c.unknown, id)
	c.mu.Unlock()
}

// lookupKey returns the credential with id in env, or nil if there is
// none: from the cache, or with fresh from the database. It also says
// whether it came from the cache.
func (s *core) lookupKey(ctx context.Context, id string, env adcamp.Environment, now time.Time, fresh bool) (*liveKey, bool, error) {
	if !strings.HasPrefix(id, "ak_"+env.KeyInfix()+"_") || len(id) > 64 {
		return nil, false, nil
	}
	if !fresh {
		if cred := s.keys.get(id, now); cred != nil {
			return cred, true, nil
		}
		if s.keys.isUnknown(id, now) {
			return nil, true, nil
		}
	}
	var k *store.Credential
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		k, err = tx.GetCredential(ctx, id)
		return err
	})
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound || (err == nil && k.Environment != env) {
		s.keys.putUnknown(id, now)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	cred := &liveKey{key: k, fetched: now}
	current, previous, _, err := openSecrets(s.box, k)
	if err != nil {
		// The master key is checked at start (CheckSecrets), so this secret
		// was moved or altered in the database: it has no secret that
		// verifies anything.
		s.log.Error("a stored secret does not open: its key is refused", "key_id", k.ID, "err", err)
	} else {
		cred.secrets = append(cred.secrets, signing.NewVerifier(string(current)))
		if previous != nil {
			cred.secrets = append(cred.secrets, signing.NewVerifier(string(previous)))
		}
	}
	s.keys.put(cred)
	return cred, false, nil
}
