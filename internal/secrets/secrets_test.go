package secrets

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestSealOpen(t *testing.T) {
	key := bytes.Repeat([]byte{7}, KeySize)
	box, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	sealed := box.Seal([]byte("sk_test_secret"), []byte("ak_test_1"))
	if bytes.Contains(sealed, []byte("sk_test_secret")) {
		t.Fatal("Seal left the plaintext readable")
	}
	if again := box.Seal([]byte("sk_test_secret"), []byte("ak_test_1")); bytes.Equal(again, sealed) {
		t.Error("two seals of one secret are equal: the nonce is not fresh")
	}
	got, err := box.Open(sealed, []byte("ak_test_1"))
	if err != nil || string(got) != "sk_test_secret" {
		t.Fatalf("Open = %q, %v; want the secret", got, err)
	}
	if _, err := box.Open(sealed, []byte("ak_test_2")); err != errOpen {
		t.Errorf("Open under another key id = %v, want errOpen", err)
	}
	other, _ := New(bytes.Repeat([]byte{8}, KeySize))
	if _, err := other.Open(sealed, []byte("ak_test_1")); err != errOpen {
		t.Errorf("Open under another master key = %v, want errOpen", err)
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := box.Open(sealed, []byte("ak_test_1")); err != errOpen {
		t.Errorf("Open of a tampered ciphertext = %v, want errOpen", err)
	}
	if _, err := box.Open([]byte{1, 2}, nil); err != errOpen {
		t.Errorf("Open of a short ciphertext = %v, want errOpen", err)
	}
	if _, err := New(key[:16]); err == nil {
		t.Error("New accepted a 16-byte key")
	}
}

func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "master.key")
	if _, err := LoadOrCreateKeyFile(path, false); err == nil {
		t.Fatal("a missing key file was accepted without create")
	}
	// Several processes starting together agree on one key.
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := LoadOrCreateKeyFile(path, true)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if !bytes.Equal(k, keys[0]) {
			t.Fatal("concurrent creators ended up with different keys")
		}
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v, %v; want 0600", info.Mode(), err)
	}
	again, err := LoadOrCreateKeyFile(path, true)
	if err != nil || !bytes.Equal(again, keys[0]) {
		t.Errorf("reloading gave another key: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the key directory holds %d files, want only master.key", len(entries))
	}
	os.WriteFile(path, []byte("not hex"), 0o600)
	if _, err := LoadOrCreateKeyFile(path, true); err == nil {
		t.Error("a malformed key file was accepted")
	}
}
