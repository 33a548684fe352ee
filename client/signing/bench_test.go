package signing_test

import (
	"testing"

	"github.com/adcamp/adcamp/client/signing"
)

// benchVector returns the published vector named name.
func benchVector(b *testing.B, name string) vector {
	b.Helper()
	for _, v := range loadVectors(b) {
		if v.Name == name {
			return v
		}
	}
	b.Fatalf("testdata/vectors.json has no vector %q", name)
	return vector{}
}

// schemeVectors are the create-campaign request of each scheme: the most
// frequent signed request with a body.
var schemeVectors = []struct{ scheme, vector string }{
	{"A", "a_full_post_create_campaign"},
	{"B", "b_post_create_campaign"},
}

// BenchmarkVerify is what the server does for each signed request once it
// holds the secret: build the string to sign, parse X-Signature, compare
// HMACs.
func BenchmarkVerify(b *testing.B) {
	for _, sv := range schemeVectors {
		b.Run(sv.scheme, func(b *testing.B) {
			v := benchVector(b, sv.vector)
			scheme, path, body := signing.Scheme(v.Scheme), v.signedPath(b), v.body()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				msg := signing.StringToSign(scheme, v.Request.Timestamp, v.Request.Method, path, body)
				sig, ok := signing.DecodeSignature(v.Signature)
				if !ok || !signing.Verify(v.Secret, msg, sig) {
					b.Fatalf("%s: the vector's signature does not verify", v.Name)
				}
			}
		})
	}
}

// BenchmarkVerifierVerify is BenchmarkVerify with the secret's Verifier,
// as the server holds it.
func BenchmarkVerifierVerify(b *testing.B) {
	for _, sv := range schemeVectors {
		b.Run(sv.scheme, func(b *testing.B) {
			v := benchVector(b, sv.vector)
			scheme, path, body := signing.Scheme(v.Scheme), v.signedPath(b), v.body()
			key := signing.NewVerifier(v.Secret)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sig, ok := signing.DecodeSignature(v.Signature)
				if !ok || !key.Verify(sig, scheme, v.Request.Timestamp, v.Request.Method, path, body) {
					b.Fatalf("%s: the vector's signature does not verify", v.Name)
				}
			}
		})
	}
}

// BenchmarkSign is what a client does for each request: build the string
// to sign and compute its signature.
func BenchmarkSign(b *testing.B) {
	for _, sv := range schemeVectors {
		b.Run(sv.scheme, func(b *testing.B) {
			v := benchVector(b, sv.vector)
			scheme, path, body := signing.Scheme(v.Scheme), v.signedPath(b), v.body()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				msg := signing.StringToSign(scheme, v.Request.Timestamp, v.Request.Method, path, body)
				if got := signing.Sign(v.Secret, msg); got != v.Signature {
					b.Fatalf("%s: Sign = %s, want %s", v.Name, got, v.Signature)
				}
			}
		})
	}
}
