package httpapi_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/webhook"
)

// specVerify is a receiver's verification written from the Standard
// Webhooks specification alone (not the sender's code): the secret is the
// base64 after "whsec_"; the signed content is "id.timestamp.body"; the
// header lists space-separated "v1,<base64 HMAC-SHA256>" signatures, any
// of which may match; the timestamp must be within 5 minutes.
func specVerify(secret string, h http.Header, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		v, b64, ok := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(b64)
		if ok && v == "v1" && err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// TestWebhookAPI: the endpoints' routes and the events' over HTTP, each
// answer checked against openapi.yaml by the harness; a delivery verified
// by the spec's own rules carries the event as GET /events shows it, and
// its data is the change record as GET /changes shows it.
func TestWebhookAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, sandbox := e.account("Acme")
	other, _ := e.account("Other")

	var mu sync.Mutex
	var secret string
	got := map[string][]byte{} // webhook-id → body
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if !specVerify(secret, r.Header, body) {
			t.Errorf("a delivery does not verify: %v", r.Header)
			w.WriteHeader(400)
			return
		}
		got[r.Header.Get("webhook-id")] = body
	}))
	defer recv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.svc.RunWebhooks(ctx, service.DispatchConfig{Sender: webhook.NewSender(true), Poll: 20 * time.Millisecond, Sole: true})
	}()
	defer func() { cancel(); <-done }()

	want(t, sandbox.do("POST", "/webhook-endpoints", `{"url":"ftp://x"}`), 400, "VALIDATION_ERROR")
	want(t, sandbox.do("POST", "/webhook-endpoints", `{"url":"https://x.example.com","colour":"red"}`), 400, "VALIDATION_ERROR")
	want(t, sandbox.do("POST", "/webhook-endpoints", `{"url":"https://x.example.com","enabled":"yes"}`), 400, "INVALID_JSON")
	r := sandbox.do("POST", "/webhook-endpoints", `{"url":"`+recv.URL+`/in","description":"Mine"}`)
	want(t, r, 201, "")
	id := r.Data()["id"].(string)
	mu.Lock()
	secret = r.Data()["secret"].(string)
	mu.Unlock()
	if !strings.HasPrefix(secret, "whsec_") || r.Header.Get("Location") == "" {
		t.Errorf("create = %s", r.Raw)
	}
	r = sandbox.do("GET", "/webhook-endpoints/"+id, "")
	want(t, r, 200, "")
	if _, shown := r.Data()["secret"]; shown {
		t.Errorf("GET shows the secret again: %s", r.Raw)
	}
	want(t, other.do("GET", "/webhook-endpoints/"+id, ""), 404, "NOT_FOUND")
	want(t, sandbox.do("HEAD", "/webhook-endpoints/"+id, ""), 200, "")
	if r := sandbox.do("GET", "/webhook-endpoints", ""); len(r.Data()["items"].([]any)) != 1 {
		t.Errorf("list = %s", r.Raw)
	}

	cid := sandbox.createCampaign(validCampaign)["id"].(string)
	var eventID string
	for deadline := time.Now().Add(20 * time.Second); eventID == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no campaign.created event delivered")
		}
		r := sandbox.do("GET", "/events?type=campaign.created", "")
		want(t, r, 200, "")
		items := r.Data()["items"].([]any)
		if len(items) == 0 {
			continue
		}
		ev := items[0].(map[string]any)
		mu.Lock()
		body, ok := got[ev["id"].(string)]
		mu.Unlock()
		if !ok {
			continue
		}
		eventID = ev["id"].(string)
		var delivered map[string]any
		if err := json.Unmarshal(body, &delivered); err != nil || !reflect.DeepEqual(delivered, ev) {
			t.Errorf("delivered %s, GET /events shows %v", body, ev)
		}
		changes := sandbox.do("GET", "/campaigns/"+cid+"/changes", "")
		record := changes.Data()["items"].([]any)[0]
		if !reflect.DeepEqual(ev["data"], record) {
			t.Errorf("event data = %v, want the change record %v", ev["data"], record)
		}
	}
	want(t, sandbox.do("GET", "/events/"+eventID, ""), 200, "")
	want(t, other.do("GET", "/events/"+eventID, ""), 404, "NOT_FOUND")
	want(t, sandbox.do("GET", "/events?limit=0", ""), 400, "VALIDATION_ERROR")
	want(t, sandbox.do("GET", "/events?type=campaign.exploded", ""), 400, "VALIDATION_ERROR")

	// The receiver has the body before the dispatcher records the attempt's
	// answer, so the log may lag the delivery by a moment.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		r = sandbox.do("GET", "/webhook-endpoints/"+id+"/deliveries", "")
		want(t, r, 200, "")
		items := r.Data()["items"].([]any)
		if len(items) > 0 && items[0].(map[string]any)["status"] == 200.0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery log = %s", r.Raw)
		}
	}
	want(t, sandbox.do("POST", "/webhook-endpoints/"+id+"/deliveries", `{"test":true}`), 202, "")
	r = sandbox.do("POST", "/webhook-endpoints/"+id+"/deliveries", `{"event_id":"`+eventID+`"}`)
	want(t, r, 202, "")
	if r.Data()["queued"] != 1.0 {
		t.Errorf("redeliver one = %s", r.Raw)
	}
	r = sandbox.do("POST", "/webhook-endpoints/"+id+"/deliveries", `{"since":"2026-11-22T00:00:00Z","until":"2026-11-23T00:00:00Z"}`)
	want(t, r, 202, "")
	want(t, sandbox.do("POST", "/webhook-endpoints/"+id+"/deliveries", `{}`), 400, "VALIDATION_ERROR")
	r = sandbox.do("POST", "/webhook-endpoints/"+id+"/secret", `{"grace_seconds":3600}`)
	want(t, r, 200, "")
	if r.Data()["secret"] == secret || r.Data()["previous_secret_expires_at"] == nil {
		t.Errorf("rotate = %s", r.Raw)
	}
	want(t, sandbox.do("POST", "/webhook-endpoints/"+id+"/secret", `{"grace_seconds":-1}`), 400, "VALIDATION_ERROR")
	if r := sandbox.do("GET", "/webhook-endpoints/"+id+"/secret", ""); r.Data()["previous_secret_expires_at"] == nil {
		t.Errorf("secret state = %s", r.Raw)
	}
	r = sandbox.do("PUT", "/webhook-endpoints/"+id, `{"enabled":false,"event_types":["keyword.batch_created"]}`)
	want(t, r, 200, "")
	if r.Data()["enabled"] != false || r.Data()["disabled_reason"] != "user" {
		t.Errorf("disable = %s", r.Raw)
	}
	want(t, sandbox.do("POST", "/webhook-endpoints/"+id+"/deliveries", `{"test":true}`), 409, "INVALID_STATE_TRANSITION")
	r = sandbox.do("GET", "/changes?entity_type=webhook_endpoint", "")
	want(t, r, 200, "")
	if n := len(r.Data()["items"].([]any)); n != 3 { // create, rotate, disable
		t.Errorf("records of the endpoint = %d, want 3: %s", n, r.Raw)
	}
	want(t, other.do("DELETE", "/webhook-endpoints/"+id, ""), 404, "NOT_FOUND")
	want(t, sandbox.do("DELETE", "/webhook-endpoints/"+id, ""), 200, "")
	want(t, sandbox.do("GET", "/webhook-endpoints/"+id+"/deliveries", ""), 404, "NOT_FOUND")
}
