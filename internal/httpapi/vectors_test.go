package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

type vectorFile struct {
	Vectors []struct {
		Name    string `json:"name"`
		APIKey  string `json:"api_key"`
		Secret  string `json:"secret"`
		Request struct {
			Method      string `json:"method"`
			Path        string `json:"path"`
			Query       string `json:"query"`
			Timestamp   string `json:"timestamp"`
			ContentType string `json:"content_type"`
			Body        string `json:"body"`
		} `json:"request"`
		Signature string `json:"signature"`
	} `json:"vectors"`
}

// TestSigningVectors sends every published signing vector to the sandbox
// server at the vector's time: each must pass authentication, and fail it
// once the signature is altered.
func TestSigningVectors(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../client/signing/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vf vectorFile
	if err := json.Unmarshal(raw, &vf); err != nil {
		t.Fatal(err)
	}
	if len(vf.Vectors) == 0 {
		t.Fatal("no vectors")
	}
	e := newEnv(t)
	ctx := context.Background()
	acc, err := e.svc.CreateAccount(ctx, "Vectors", "")
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, v := range vf.Vectors {
		if stored[v.APIKey] {
			continue
		}
		stored[v.APIKey] = true
		k := &store.Credential{
			APIKey: adcamp.APIKey{ID: v.APIKey, AccountID: acc.ID, Environment: adcamp.Sandbox, CreatedAt: e.clock.Now(), Scopes: adcamp.AllWrite},
			Secret: e.box.Seal([]byte(v.Secret), []byte(v.APIKey)),
		}
		if err := e.db.Write(ctx, func(tx store.Tx) error { return tx.CreateCredential(ctx, k) }); err != nil {
			t.Fatal(err)
		}
	}
	c := &apiClient{t: t, env: e}
	for _, v := range vf.Vectors {
		t.Run(v.Name, func(t *testing.T) {
			c.t = t
			e.clock.mu.Lock()
			e.clock.now = unix(t, v.Request.Timestamp)
			e.clock.mu.Unlock()
			send := func(sig string) *response {
				target := e.servers[adcamp.Sandbox].URL + v.Request.Path
				if v.Request.Query != "" {
					target += "?" + v.Request.Query
				}
				var body io.Reader
				if v.Request.Body != "" {
					body = strings.NewReader(v.Request.Body)
				}
				req, err := http.NewRequest(v.Request.Method, target, body)
				if err != nil {
					t.Fatal(err)
				}
				if v.Request.ContentType != "" {
					req.Header.Set("Content-Type", v.Request.ContentType)
				}
				req.Header.Set("X-API-Key", v.APIKey)
				req.Header.Set("X-Timestamp", v.Request.Timestamp)
				req.Header.Set("X-Signature", sig)
				return c.send(req)
			}
			if r := send(v.Signature); r.Status == 401 || r.Status == 403 {
				t.Errorf("vector %s: %d %s\n%s", v.Name, r.Status, r.Code(), r.Raw)
			}
			flipped := []byte(v.Signature)
			flipped[0] ^= 1
			if r := send(string(flipped)); r.Status != 401 || r.Code() != "INVALID_SIGNATURE" {
				t.Errorf("vector %s with an altered signature: %d %s, want 401 INVALID_SIGNATURE", v.Name, r.Status, r.Code())
			}
		})
	}
}

func unix(t *testing.T, ts string) time.Time {
	var n int64
	if err := json.Unmarshal([]byte(ts), &n); err != nil {
		t.Fatal(err)
	}
	return time.Unix(n, 0).UTC()
}
