package webhook_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/adcamp/adcamp/internal/webhook"
)

// TestSignatureVerifiesWithTheOfficialLibrary: what the sender signs, the
// Standard Webhooks reference library verifies, with either secret
// during a rotation; a changed body or id does not verify.
func TestSignatureVerifiesWithTheOfficialLibrary(t *testing.T) {
	t.Parallel()
	current, key := webhook.NewSecret()
	previous, oldKey := webhook.NewSecret()
	body := []byte(`{"id":"evt_1","type":"campaign.created","timestamp":"2026-11-27T02:00:00Z","data":{}}`)
	now := time.Now()
	h := http.Header{}
	h.Set("webhook-id", "evt_1")
	h.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	h.Set("webhook-signature", webhook.Signature([][]byte{key, oldKey}, "evt_1", now, body))
	for _, secret := range []string{current, previous} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(body, h); err != nil {
			t.Errorf("Verify with %s = %v, want nil", secret[:10], err)
		}
		if err := wh.Verify(append(bytes.Clone(body), ' '), h); err == nil {
			t.Errorf("Verify of a changed body = nil, want an error")
		}
	}
	other, _ := webhook.NewSecret()
	wh, _ := standardwebhooks.NewWebhook(other)
	if err := wh.Verify(body, h); err == nil {
		t.Errorf("Verify with another secret = nil, want an error")
	}
	if got, err := webhook.ParseSecret(current); err != nil || !bytes.Equal(got, key) {
		t.Errorf("ParseSecret(NewSecret()) = %x, %v; want %x", got, err, key)
	}
	if !strings.HasPrefix(current, "whsec_") {
		t.Errorf("NewSecret() = %q, want whsec_...", current)
	}
}

func TestPrivateAddresses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true}, {"::1", true}, {"10.1.2.3", true}, {"172.16.0.1", true}, {"192.168.1.1", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"fd00:ec2::254", true}, {"0.0.0.0", true},
		{"100.64.0.1", true}, {"::ffff:127.0.0.1", true}, {"224.0.0.1", true},
		{"93.184.216.34", false}, {"2606:4700::1111", false}, {"8.8.8.8", false},
	} {
		if got := webhook.Private(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("Private(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

// TestSendRefusesLoopback: without allowPrivate, nothing reaches a
// receiver on 127.0.0.1, whatever the name.
func TestSendRefusesLoopback(t *testing.T) {
	t.Parallel()
	hit := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit = true }))
	defer srv.Close()
	_, key := webhook.NewSecret()
	for _, url := range []string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)} {
		res := webhook.NewSender(false).Send(t.Context(), webhook.Request{URL: url, ID: "evt_1", Timestamp: time.Now(),
			Body: []byte(`{}`), Keys: [][]byte{key}})
		if !errors.Is(res.Err, webhook.ErrPrivateAddress) || res.Status != 0 {
			t.Errorf("Send(%s) = %d, %v; want ErrPrivateAddress", url, res.Status, res.Err)
		}
	}
	if hit {
		t.Errorf("the receiver on loopback was reached")
	}
}

// TestSendAnswers: the headers sent, a bounded read of the answer, and
// Retry-After on 429 and 503 only.
func TestSendAnswers(t *testing.T) {
	t.Parallel()
	var got http.Header
	var status int
	retry := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		_, _ = io.Copy(io.Discard, r.Body)
		if retry != "" {
			w.Header().Set("Retry-After", retry)
		}
		w.WriteHeader(status)
		_, _ = w.Write(bytes.Repeat([]byte("é"), 5000))
	}))
	defer srv.Close()
	_, key := webhook.NewSecret()
	s := webhook.NewSender(true)
	send := func() webhook.Result {
		return s.Send(t.Context(), webhook.Request{URL: srv.URL, ID: "evt_1", Timestamp: time.Unix(1700000000, 0),
			Body: []byte(`{}`), Keys: [][]byte{key}})
	}
	status = 200
	res := send()
	if !res.Succeeded() || len(res.Response) > webhook.ResponseLimit+3 || res.RetryAfter != 0 {
		t.Errorf("Send to a 200 = %+v", res)
	}
	if got.Get("webhook-id") != "evt_1" || got.Get("webhook-timestamp") != "1700000000" ||
		!strings.HasPrefix(got.Get("webhook-signature"), "v1,") {
		t.Errorf("headers sent = %v", got)
	}
	status, retry = 429, "120"
	if res := send(); res.Succeeded() || res.RetryAfter != 2*time.Minute {
		t.Errorf("Send to a 429 with Retry-After 120 = %d, %v; want 429, 2m", res.Status, res.RetryAfter)
	}
	status = 500
	if res := send(); res.RetryAfter != 0 || res.Status != 500 {
		t.Errorf("Send to a 500 with Retry-After = %d, %v; want 500, 0", res.Status, res.RetryAfter)
	}
}
