package client_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/client/signing"
)

type vectorFile struct {
	Vectors []struct {
		Name     string `json:"name"`
		Scheme   string `json:"scheme"`
		PathForm string `json:"path_form"`
		APIKey   string `json:"api_key"`
		Secret   string `json:"secret"`
		Request  struct {
			Method    string `json:"method"`
			Path      string `json:"path"`
			Query     string `json:"query"`
			Timestamp string `json:"timestamp"`
			Body      string `json:"body"`
		} `json:"request"`
		Signature string `json:"signature"`
	} `json:"vectors"`
}

// TestSigningVectors: for each published vector the client signs (Scheme
// A over the full path, and Scheme B), the request the client sends for
// the vector's method, path, query and body at the vector's time carries
// the vector's timestamp and signature. The client does not sign the
// prefix-relative form of Scheme A, so those vectors are not its to meet.
func TestSigningVectors(t *testing.T) {
	raw, err := os.ReadFile("signing/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vf vectorFile
	if err := json.Unmarshal(raw, &vf); err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, v := range vf.Vectors {
		if v.PathForm == "relative" {
			continue
		}
		tested++
		t.Run(v.Name, func(t *testing.T) {
			sec, _ := strconv.ParseInt(v.Request.Timestamp, 10, 64)
			srv := newFakeServer(t, reply(200, `{"success":true,"data":{}}`))
			prefix := signing.PrefixCanonical
			if strings.HasPrefix(v.Request.Path, signing.PrefixShort+"/") {
				prefix = signing.PrefixShort
			}
			c, err := client.New(v.APIKey, v.Secret, client.WithBaseURL(srv.URL+prefix),
				client.WithScheme(signing.Scheme(v.Scheme)), client.WithClock(func() time.Time { return time.Unix(sec, 0) }))
			if err != nil {
				t.Fatal(err)
			}
			target := strings.TrimPrefix(v.Request.Path, prefix+"/")
			if v.Request.Query != "" {
				target += "?" + v.Request.Query
			}
			var body any
			if v.Request.Body != "" {
				body = json.RawMessage(v.Request.Body)
			}
			req, err := c.NewRequest(v.Request.Method, target, body)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Do(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			got := srv.Requests()[0]
			wantURI := v.Request.Path
			if v.Request.Query != "" {
				wantURI += "?" + v.Request.Query
			}
			if got.Method != v.Request.Method || got.Path != wantURI || got.Body != v.Request.Body {
				t.Errorf("sent %s %s %q, want %s %s %q", got.Method, got.Path, got.Body, v.Request.Method, wantURI, v.Request.Body)
			}
			h := got.Header
			if h.Get(signing.HeaderAPIKey) != v.APIKey || h.Get(signing.HeaderTimestamp) != v.Request.Timestamp ||
				h.Get(signing.HeaderSignature) != v.Signature {
				t.Errorf("signed with key %s, timestamp %s, signature %s; want %s, %s, %s",
					h.Get(signing.HeaderAPIKey), h.Get(signing.HeaderTimestamp), h.Get(signing.HeaderSignature),
					v.APIKey, v.Request.Timestamp, v.Signature)
			}
			if body != nil && h.Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", h.Get("Content-Type"))
			}
		})
	}
	if tested < 8 {
		t.Errorf("only %d vectors apply to the client, want at least 8", tested)
	}
}
