package httpapi_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
)

// unknownFields is a body of about size bytes naming n unknown fields.
func unknownFields(n, size int) string {
	var b strings.Builder
	b.WriteString(`{"name":"a","budget_daily":1,"marketplace":"US"`)
	pad := max(1, (size-50)/n-11)
	for i := range n {
		fmt.Fprintf(&b, `,"%s%06d":0`, strings.Repeat("x", pad), i)
	}
	return b.String() + "}"
}

// TestErrorDetailsCapped: an error lists the first 100 issues, each with
// its field name and text shortened, and counts them all in its message.
func TestErrorDetailsCapped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	body := unknownFields(20000, 1000000)
	r := prod.do("POST", "/campaigns", body)
	want(t, r, 400, "VALIDATION_ERROR")
	details, _ := r.Error()["details"].([]any)
	if len(details) != 100 {
		t.Errorf("details hold %d issues, want the first 100", len(details))
	}
	if msg, _ := r.Error()["message"].(string); !strings.HasPrefix(msg, "20000 fields are invalid") || !strings.Contains(msg, "first 100") {
		t.Errorf("message %q, want the count of all and that details list the first 100", msg)
	}
	if len(r.Raw) > 32<<10 {
		t.Errorf("the answer to %d bytes of unknown fields is %d bytes", len(body), len(r.Raw))
	}

	long := `{"name":"a","budget_daily":1,"marketplace":"US","` + strings.Repeat("é", 100000) + `":1}`
	r = prod.do("POST", "/campaigns", long)
	want(t, r, 400, "VALIDATION_ERROR")
	if len(r.Raw) > 2<<10 {
		t.Errorf("the answer naming one field of 200 KB is %d bytes", len(r.Raw))
	}
	field := r.Error()["details"].([]any)[0].(map[string]any)["field"].(string)
	if !strings.HasSuffix(field, "…") || len(field) > 100 {
		t.Errorf("field named %.20q... (%d bytes), want it shortened to 100 bytes with an ellipsis", field, len(field))
	}
}

// TestStoredAnswersStaySmall replays issue 21's attack: requests of a
// megabyte of unknown fields, each with an Idempotency-Key (so its answer
// is kept twice). The database must stay small.
func TestStoredAnswersStaySmall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := newEnv(t, func(c *service.Config) { c.Store = db })
	prod, _ := e.account("Acme")
	before := dirSize(t, dir)
	body := unknownFields(60000, 1000000)
	for i := range 20 {
		want(t, prod.do("POST", "/campaigns", body, fmt.Sprintf("Idempotency-Key: attack-%d", i)), 400, "VALIDATION_ERROR")
	}
	if grown := dirSize(t, dir) - before; grown > 4<<20 {
		t.Errorf("20 requests of %d bytes of unknown fields grew the database by %d bytes, want under 4 MiB", len(body), grown)
	}
}

// dirSize is the total size of the files in dir (the database, its WAL).
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range files {
		if info, err := os.Stat(filepath.Join(dir, f.Name())); err == nil {
			n += info.Size()
		}
	}
	return n
}

// TestAnswerBudget: once an account's large kept answers fill its budget,
// further ones are kept as a placeholder, which a replay gets (409) while
// the request is still not executed again; earlier answers replay whole.
func TestAnswerBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *service.Config) { c.AnswerBudget = 64 << 10 })
	prod, _ := e.account("Acme")
	body := unknownFields(100, 20000) // a 400 of about 15 KB, kept twice: 30 KB a request
	var answers []*response
	for i := range 4 {
		r := prod.do("POST", "/campaigns", body, fmt.Sprintf("Idempotency-Key: k%d", i))
		want(t, r, 400, "VALIDATION_ERROR")
		answers = append(answers, r)
	}
	for i, first := range answers {
		r := prod.do("POST", "/campaigns", body, fmt.Sprintf("Idempotency-Key: k%d", i))
		if r.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("retry of k%d was not replayed: %d", i, r.Status)
		}
		switch {
		case i < 2 && string(r.Raw) != string(first.Raw):
			t.Errorf("retry of k%d (within the budget) = %d %s, want the first answer", i, r.Status, r.Code())
		case i >= 2 && (r.Status != 409 || r.Code() != "CONFLICT" || !strings.Contains(string(r.Raw), "too large to keep")):
			t.Errorf("retry of k%d (over the budget) = %d %s, want 409 CONFLICT saying the answer was not kept", i, r.Status, r.Code())
		}
	}
}
