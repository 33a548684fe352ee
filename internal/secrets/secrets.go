// Package secrets encrypts API secrets at rest with AES-256-GCM under a
// master key the operator supplies, or that is generated on a new data
// directory.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the size of a master key in bytes (AES-256).
const KeySize = 32

// Box seals and opens secrets with one master key.
type Box struct{ aead cipher.AEAD }

// New returns a Box for a 32-byte master key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("master key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext bound to context (for example the key id, so a
// ciphertext cannot be moved to another row). The result is nonce||ciphertext.
func (b *Box) Seal(plaintext, context []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return b.aead.Seal(nonce, nonce, plaintext, context)
}

// errOpen is returned when a ciphertext does not open under this key.
var errOpen = errors.New("secret cannot be decrypted with this master key")

// Open decrypts what Seal returned for the same context.
func (b *Box) Open(sealed, context []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return nil, errOpen
	}
	out, err := b.aead.Open(nil, sealed[:n], sealed[n:], context)
	if err != nil {
		return nil, errOpen
	}
	return out, nil
}

// ParseKey decodes a master key written as 64 hex digits (surrounding
// white space ignored).
func ParseKey(text string) ([]byte, error) {
	key, err := hex.DecodeString(strings.TrimSpace(text))
	if err != nil || len(key) != KeySize {
		return nil, fmt.Errorf("master key must be %d hex digits", 2*KeySize)
	}
	return key, nil
}

// LoadOrCreateKeyFile reads the master key from path. If the file does not
// exist and create is true, a new random key is written there with mode
// 0600. The file appears whole or not at all (written aside, then linked
// into place), and one that another process created meanwhile wins.
func LoadOrCreateKeyFile(path string, create bool) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		key, err := ParseKey(string(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return key, nil
	}
	if !errors.Is(err, fs.ErrNotExist) || !create {
		return nil, fmt.Errorf("read master key: %w", err)
	}
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".master.key-*")
	if err != nil {
		return nil, fmt.Errorf("create master key: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return nil, err
	}
	if err := errors.Join(f.Chmod(0o600), f.Sync(), f.Close()); err != nil {
		return nil, err
	}
	if err := os.Link(f.Name(), path); errors.Is(err, fs.ErrExist) {
		return LoadOrCreateKeyFile(path, false) // another process was first
	} else if err != nil {
		return nil, fmt.Errorf("create master key: %w", err)
	}
	return key, nil
}
