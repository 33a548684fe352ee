package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// verifySpec checks a delivery as the Standard Webhooks specification
// says, written from the spec (not with the sender's code).
func verifySpec(secret string, h http.Header, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	if sec, err := strconv.ParseInt(ts, 10, 64); err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.", id, ts)
	mac.Write(body)
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if b, ok := strings.CutPrefix(sig, "v1,"); ok {
			if got, err := base64.StdEncoding.DecodeString(b); err == nil && hmac.Equal(got, mac.Sum(nil)) {
				return true
			}
		}
	}
	return false
}

// TestWebhooksSurviveSIGKILL: changes acknowledged, serve killed with
// SIGKILL while its first delivery is still on the wire, restarted: every
// event is delivered, signed, with the same webhook-id as before.
func TestWebhooksSurviveSIGKILL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and kills a server process")
	}
	bin := buildBinary(t)
	dd := "--data-dir=" + t.TempDir()
	acc := mustJSON(t, "accounts", "create", "--name", "Hooks", dd)["id"].(string)
	k := mustJSON(t, "keys", "create", "--account", acc, "--env", "sandbox", dd)

	var mu sync.Mutex
	var secret string
	hold := true                 // the first run's receiver answers nothing
	inFlight := map[string]int{} // webhook-id → requests seen while holding
	delivered := map[string]string{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		if !verifySpec(secret, r.Header, body) {
			mu.Unlock()
			t.Errorf("a delivery does not verify")
			w.WriteHeader(400)
			return
		}
		id := r.Header.Get("webhook-id")
		if hold {
			inFlight[id]++
			mu.Unlock()
			<-r.Context().Done() // until the sender dies
			return
		}
		var ev struct {
			Type string
			Data struct {
				EntityID string `json:"entity_id"`
			}
		}
		_ = json.Unmarshal(body, &ev)
		if ev.Type == "campaign.created" {
			delivered[id] = ev.Data.EntityID
		}
		mu.Unlock()
	}))
	defer recv.Close()

	prodAddr, sandboxAddr := freeAddr(t), freeAddr(t)
	args := []string{dd, "--sandbox-addr", sandboxAddr, "--webhooks-allow-private"}
	proc := startProcess(t, bin, prodAddr, args...)
	c := &signedClient{base: "http://" + sandboxAddr, key: k["api_key"].(string), secret: k["api_secret"].(string),
		http: &http.Client{Timeout: 5 * time.Second}}
	status, data, err := c.do("POST", "/webhook-endpoints", `{"url":"`+recv.URL+`/hook"}`)
	if err != nil || status != 201 {
		t.Fatalf("create the endpoint: %d %v", status, err)
	}
	mu.Lock()
	secret = data["secret"].(string)
	mu.Unlock()
	const n = 20
	acked := map[string]bool{}
	for i := range n {
		status, data, err := c.do("POST", "/campaigns", fmt.Sprintf(`{"name":"C%d","budget_daily":10,"marketplace":"US"}`, i))
		if err != nil || status != 201 {
			t.Fatalf("create campaign %d: %d %v", i, status, err)
		}
		acked[data["id"].(string)] = true
	}
	// Kill it while its first delivery is on the wire.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		sent := len(inFlight)
		mu.Unlock()
		if sent > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no delivery began")
		}
	}
	proc.Process.Signal(syscall.SIGKILL)
	proc.Wait()
	mu.Lock()
	hold = false
	firstIDs := make([]string, 0, len(inFlight))
	for id := range inFlight {
		firstIDs = append(firstIDs, id)
	}
	mu.Unlock()

	startProcess(t, bin, prodAddr, args...)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		got := map[string]bool{}
		for _, cid := range delivered {
			got[cid] = true
		}
		ids := len(delivered)
		mu.Unlock()
		if len(got) == n {
			if ids != n {
				t.Errorf("%d webhook-ids for %d events: each event must keep its id", ids, n)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart, %d of %d acknowledged changes were delivered", len(got), n)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for cid := range acked {
		found := false
		for _, got := range delivered {
			found = found || got == cid
		}
		if !found {
			t.Errorf("campaign %s: its event was never delivered", cid)
		}
	}
	for _, id := range firstIDs {
		if _, ok := delivered[id]; !ok {
			t.Errorf("the event on the wire at the kill (%s) was delivered under another id", id)
		}
	}
}
