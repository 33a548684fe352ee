package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/store"
)

// sendTwice signs one request and sends it twice, as a replay would.
func (c *apiClient) sendTwice(method, path, body string) (first, second *response) {
	c.t.Helper()
	mk := func() *http.Request {
		req := c.newRequest(method, path, body)
		return req
	}
	req := mk()
	c.sign(req, []byte(body))
	again := mk()
	again.Header = req.Header.Clone()
	return c.send(req), c.send(again)
}

// TestReplayedRequestsAreNotExecuted: a POST, PUT or DELETE whose key and
// signature were already served is answered with the first answer and
// Idempotent-Replayed: true, and does nothing.
func TestReplayedRequestsAreNotExecuted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")

	first, second := prod.sendTwice("POST", "/campaigns", validCampaign)
	want(t, first, 201, "")
	want(t, second, 201, "")
	if first.Header.Get("Idempotent-Replayed") != "" || second.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("Idempotent-Replayed: first %q, replay %q; want none, then true",
			first.Header.Get("Idempotent-Replayed"), second.Header.Get("Idempotent-Replayed"))
	}
	if string(first.Raw) != string(second.Raw) || first.Header.Get("Location") != second.Header.Get("Location") ||
		first.Header.Get("ETag") != second.Header.Get("ETag") {
		t.Errorf("the replay differs from the first answer:\n%s\n%s", first.Raw, second.Raw)
	}
	if second.Header.Get("X-Request-Id") == first.Header.Get("X-Request-Id") {
		t.Error("the replay has the first answer's X-Request-Id; each request has its own")
	}
	if n := prod.do("GET", "/campaigns", "").Data()["total_items"]; n != 1.0 {
		t.Fatalf("a replayed create stored %v campaigns, want 1", n)
	}
	id := first.Data()["id"].(string)

	first, second = prod.sendTwice("PUT", "/campaigns/"+id, `{"budget_daily":2}`)
	want(t, first, 200, "")
	want(t, second, 200, "")
	if v := prod.do("GET", "/campaigns/"+id, "").Data()["version"]; v != 2.0 || second.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("after a replayed update the version is %v, want 2", v)
	}

	// A refused request is replayed as refused, even once it would pass.
	first, second = prod.sendTwice("PUT", "/campaigns/"+id, `{"name":""}`)
	want(t, first, 400, "VALIDATION_ERROR")
	want(t, second, 400, "VALIDATION_ERROR")
	if second.Header.Get("Idempotent-Replayed") != "true" {
		t.Error("a replayed 400 lacks Idempotent-Replayed")
	}

	first, second = prod.sendTwice("DELETE", "/campaigns/"+id, "")
	want(t, first, 200, "")
	want(t, second, 200, "") // the first answer, not a 404
	want(t, prod.do("GET", "/campaigns/"+id, ""), 404, "NOT_FOUND")

	// Reads are not replay-protected: they are answered afresh.
	first, second = prod.sendTwice("GET", "/campaigns", "")
	if first.Header.Get("Idempotent-Replayed") != "" || second.Header.Get("Idempotent-Replayed") != "" {
		t.Error("a GET was treated as a replay")
	}
}

// TestReplayRecordsExpire: records outlive the timestamp window, and are
// then purged, so storage does not grow without bound.
func TestReplayRecordsExpire(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	req := prod.newRequest("POST", "/campaigns", validCampaign)
	prod.sign(req, []byte(validCampaign))
	want(t, prod.send(req.Clone(context.Background())), 201, "")
	ctx := context.Background()
	e.clock.Advance(5 * time.Minute)
	if n, err := e.svc.PurgeRecords(ctx); err != nil || n != 0 {
		t.Fatalf("PurgeRecords within the window = %d, %v; want 0", n, err)
	}
	e.clock.Advance(6 * time.Minute)
	retry := prod.newRequest("POST", "/campaigns", validCampaign)
	retry.Header = req.Header.Clone()
	want(t, prod.send(retry), 401, "TIMESTAMP_EXPIRED")
	e.clock.Advance(5 * time.Minute)
	if n, err := e.svc.PurgeRecords(ctx); err != nil || n != 1 {
		t.Errorf("PurgeRecords after the window and its margin = %d, %v; want 1", n, err)
	}
}

// TestReplayAtTheWindowsEdge: a request signed with a timestamp 300 s
// ahead stays valid until 600 s after it was answered; its record must
// live as long (and a margin more), so that a replay in the window's last
// second is answered from it, not executed again, even after a purge.
func TestReplayAtTheWindowsEdge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	ahead := signing.Timestamp(e.clock.Now().Add(300 * time.Second))
	req := prod.newRequest("POST", "/campaigns", validCampaign)
	req.Header.Set(signing.HeaderAPIKey, prod.key)
	req.Header.Set(signing.HeaderTimestamp, ahead)
	req.Header.Set(signing.HeaderSignature, signing.Sign(prod.secret,
		signing.StringToSign(signing.SchemeA, ahead, "POST", signing.RequestPath(req), []byte(validCampaign))))
	again := func() *http.Request {
		r := prod.newRequest("POST", "/campaigns", validCampaign)
		r.Header = req.Header.Clone()
		return r
	}
	want(t, prod.send(again()), 201, "")
	e.clock.Advance(600 * time.Second) // the timestamp is 300 s behind now: still valid
	if _, err := e.svc.PurgeRecords(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := prod.send(again())
	want(t, r, 201, "")
	if r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("a replay in the window's last second was executed again")
	}
	if n := prod.do("GET", "/campaigns", "").Data()["total_items"]; n != 1.0 {
		t.Errorf("%v campaigns, want 1", n)
	}
}

// TestRecordsHoldNoSignature: the record of a signed change is not named
// by the signature itself, and a replay is still caught.
func TestRecordsHoldNoSignature(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	first, second := prod.sendTwice("POST", "/campaigns", validCampaign)
	want(t, first, 201, "")
	if second.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("the second send was not a replay")
	}
	// The clock stands still: sign the request again exactly as sendTwice
	// did (the same timestamp, so the same signature).
	req := prod.newRequest("POST", "/campaigns", validCampaign)
	prod.sent--
	prod.sign(req, []byte(validCampaign))
	stamp, sig := req.Header.Get(signing.HeaderTimestamp), strings.ToLower(req.Header.Get(signing.HeaderSignature))
	ctx := context.Background()
	for _, token := range []string{stamp + "/" + sig, sig} {
		err := e.db.Read(ctx, func(tx store.Tx) error {
			_, err := tx.GetRecord(ctx, "sig:"+prod.key, token, e.clock.Now())
			return err
		})
		if adcamp.ErrorCode(err) != adcamp.CodeNotFound {
			t.Errorf("a record is named %q (the signature in clear): %v", token, err)
		}
	}
	if r := prod.send(req); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("re-signing the same request at the same second was not a replay: %d", r.Status)
	}
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	other, _ := e.account("Other")
	key := "Idempotency-Key: order-4711"

	first := prod.do("POST", "/campaigns", validCampaign, key)
	want(t, first, 201, "")
	retry := prod.do("POST", "/campaigns", validCampaign, key) // signed afresh
	want(t, retry, 201, "")
	if retry.Header.Get("Idempotent-Replayed") != "true" || retry.Data()["id"] != first.Data()["id"] {
		t.Errorf("a retry with the same Idempotency-Key was not replayed: %s", retry.Raw)
	}
	r := prod.do("POST", "/campaigns", `{"name":"Other","budget_daily":1,"marketplace":"US"}`, key)
	want(t, r, 409, "IDEMPOTENCY_KEY_REUSED")
	r = prod.do("POST", "/campaigns?validate_only=true", validCampaign, key)
	want(t, r, 409, "IDEMPOTENCY_KEY_REUSED")
	// Keys belong to an account: another account's same key is its own.
	want(t, other.do("POST", "/campaigns", validCampaign, key), 201, "")
	for _, bad := range []string{strings.Repeat("k", 256), "tab\tkey", "ключ"} {
		r := prod.do("POST", "/campaigns", validCampaign, "Idempotency-Key: "+bad)
		want(t, r, 400, "VALIDATION_ERROR")
		if f := fields(r); len(f) != 1 || f[0] != "Idempotency-Key" {
			t.Errorf("Idempotency-Key %q: fields %v", bad, f)
		}
	}
	if n := prod.do("GET", "/campaigns", "").Data()["total_items"]; n != 1.0 {
		t.Fatalf("%v campaigns after retries with one key, want 1", n)
	}

	// A day later the key is free again.
	e.clock.Advance(24*time.Hour + time.Minute)
	r = prod.do("POST", "/campaigns", validCampaign, key)
	want(t, r, 201, "")
	if r.Header.Get("Idempotent-Replayed") != "" || r.Data()["id"] == first.Data()["id"] {
		t.Errorf("after 24 hours the key was still replayed: %s", r.Raw)
	}
}

// TestIdempotencyKeyConcurrent: many requests with one key at once create
// one campaign, and all get its answer.
func TestIdempotencyKeyConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	var wg sync.WaitGroup
	answers := make([]*response, 8)
	for i := range answers {
		c := *prod // its own signing counter
		c.sent = i
		wg.Go(func() { answers[i] = c.do("POST", "/campaigns", validCampaign, "Idempotency-Key: same-for-all") })
	}
	wg.Wait()
	replays := 0
	for _, a := range answers {
		if a.Status != 201 || a.Data()["id"] != answers[0].Data()["id"] {
			t.Errorf("answer %d %s, want 201 with id %v", a.Status, a.Raw, answers[0].Data()["id"])
		}
		if a.Header.Get("Idempotent-Replayed") == "true" {
			replays++
		}
	}
	if replays != len(answers)-1 {
		t.Errorf("%d of %d answers were replays, want all but one", replays, len(answers))
	}
	if n := prod.do("GET", "/campaigns", "").Data()["total_items"]; n != 1.0 {
		t.Errorf("%v campaigns from concurrent requests with one key, want 1", n)
	}
}

// TestIdempotencyKeyOnUpdate: a retried PUT with If-Match and the same
// Idempotency-Key gets its first answer, not a 412 from its own change.
func TestIdempotencyKeyOnUpdate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	id := prod.createCampaign(validCampaign)["id"].(string)
	first := prod.do("PUT", "/campaigns/"+id, `{"name":"renamed"}`, `If-Match: "1"`, "Idempotency-Key: rename-1")
	want(t, first, 200, "")
	retry := prod.do("PUT", "/campaigns/"+id, `{"name":"renamed"}`, `If-Match: "1"`, "Idempotency-Key: rename-1")
	want(t, retry, 200, "")
	if retry.Header.Get("Idempotent-Replayed") != "true" || retry.Data()["version"] != 2.0 {
		t.Errorf("retried update = %s, want the first answer replayed", retry.Raw)
	}
	want(t, prod.do("PUT", "/campaigns/"+id, `{"name":"renamed"}`, `If-Match: "1"`), 412, "PRECONDITION_FAILED")
	want(t, prod.do("DELETE", "/campaigns/"+id, "", "Idempotency-Key: rename-1"), 409, "IDEMPOTENCY_KEY_REUSED")
}

// TestReplayWithAddedIdempotencyKey: the Idempotency-Key header is not
// signed, so adding one to a captured request must not make it new.
func TestReplayWithAddedIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	req := prod.newRequest("POST", "/campaigns", validCampaign)
	prod.sign(req, []byte(validCampaign))
	captured := req.Header.Clone()
	want(t, prod.send(req), 201, "")
	replay := prod.newRequest("POST", "/campaigns", validCampaign)
	replay.Header = captured
	replay.Header.Set("Idempotency-Key", "attacker-made-this-up")
	r := prod.send(replay)
	want(t, r, 201, "")
	if r.Header.Get("Idempotent-Replayed") != "true" {
		t.Error("a captured request with an added Idempotency-Key was not treated as a replay")
	}
	if n := prod.do("GET", "/campaigns", "").Data()["total_items"]; n != 1.0 {
		t.Errorf("%v campaigns, want 1", n)
	}
}

// TestSameSignatureOtherQuery: the query and If-Match are not signed; a
// request that shares a served request's signature but not its query or
// If-Match is refused, neither replayed nor executed.
func TestSameSignatureOtherQuery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	req := prod.newRequest("POST", "/campaigns?validate_only=true", validCampaign)
	prod.sign(req, []byte(validCampaign))
	want(t, prod.send(req.Clone(context.Background())), 200, "")
	real := prod.newRequest("POST", "/campaigns", validCampaign)
	real.Header = req.Header.Clone()
	want(t, prod.send(real), 409, "CONFLICT")
	if n := prod.do("GET", "/campaigns", "").Data()["total_items"]; n != 0.0 {
		t.Errorf("%v campaigns stored, want 0", n)
	}

	id := prod.createCampaign(validCampaign)["id"].(string)
	del := prod.newRequest("DELETE", "/campaigns/"+id, "", `If-Match: "9"`)
	prod.sign(del, nil)
	want(t, prod.send(del.Clone(context.Background())), 412, "PRECONDITION_FAILED")
	again := prod.newRequest("DELETE", "/campaigns/"+id, "")
	again.Header = del.Header.Clone()
	again.Header.Del("If-Match")
	want(t, prod.send(again), 409, "CONFLICT")
	want(t, prod.do("GET", "/campaigns/"+id, ""), 200, "")
}
