// Package webhook sends events to webhook endpoints as the Standard
// Webhooks specification says: signed headers (webhook-id,
// webhook-timestamp, webhook-signature), an HTTP client that refuses to
// connect to private addresses (checked on the address connected to, so
// a name that resolves differently the second time gains nothing), a
// bounded read of the answer, and the reading of Retry-After. What to
// send and when (retries, disabling endpoints) is the service's business.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix begins every signing secret; the rest is base64 (standard,
// padded) of the key.
const SecretPrefix = "whsec_"

// secretBytes is the length of the keys NewSecret makes (the spec asks
// for 24 to 64).
const secretBytes = 32

// NewSecret returns a new signing secret as shown to its owner ("whsec_"
// and base64) and the key it stands for.
func NewSecret() (string, []byte) {
	key := make([]byte, secretBytes)
	_, _ = rand.Read(key) // never fails (crypto/rand)
	return SecretPrefix + base64.StdEncoding.EncodeToString(key), key
}

// ParseSecret returns the key of a secret written as NewSecret writes it.
func ParseSecret(s string) ([]byte, error) {
	rest, ok := strings.CutPrefix(s, SecretPrefix)
	if !ok {
		return nil, errors.New("a webhook secret begins with " + SecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(key) < 24 || len(key) > 64 {
		return nil, errors.New("a webhook secret is " + SecretPrefix + " and the base64 of 24 to 64 bytes")
	}
	return key, nil
}

// Signature returns the value of the webhook-signature header of a
// message: "v1," and the base64 of HMAC-SHA256 over "id.timestamp.body"
// for each key, separated by spaces (several during a rotation of the
// secret, so that a receiver that knows either verifies it).
func Signature(keys [][]byte, id string, timestamp time.Time, body []byte) string {
	ts := strconv.FormatInt(timestamp.Unix(), 10)
	var b strings.Builder
	for i, key := range keys {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id))
		mac.Write([]byte{'.'})
		mac.Write([]byte(ts))
		mac.Write([]byte{'.'})
		mac.Write(body)
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("v1,")
		b.WriteString(base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return b.String()
}
