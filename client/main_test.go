package client_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
)

// TestMain runs a sandbox server for the examples, which read its address
// and a key for it from ADCAMP_BASE_URL, ADCAMP_API_KEY and
// ADCAMP_API_SECRET as a program would. Tests start servers of their own.
func TestMain(m *testing.M) {
	stop, err := startExampleServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "example server:", err)
		os.Exit(1)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}

func startExampleServer() (stop func(), err error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "adcamp-client-examples")
	if err != nil {
		return nil, err
	}
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, _ := secrets.New(key)
	svc := service.New(service.Config{Store: db, Box: box})
	h, err := httpapi.New(svc, adcamp.Sandbox, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(h)
	stop = func() { srv.Close(); db.Close(); os.RemoveAll(dir) }
	acc, err := svc.CreateAccount(ctx, "Examples", "")
	if err != nil {
		stop()
		return nil, err
	}
	cred, err := svc.CreateKey(ctx, acc.ID, adcamp.Sandbox)
	if err != nil {
		stop()
		return nil, err
	}
	os.Setenv("ADCAMP_BASE_URL", srv.URL+"/api/v1/open")
	os.Setenv("ADCAMP_API_KEY", cred.ID)
	os.Setenv("ADCAMP_API_SECRET", cred.Secret)
	return stop, nil
}
