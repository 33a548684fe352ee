package sdktest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
)

// The SDK against the real sandbox misbehaving on request
// (X-Sandbox-Simulate): its retries, their waits, and what a change
// becomes across them.

// attemptLog is an http.RoundTripper that asks the sandbox for a fault
// on chosen attempts (faults[i] for the i-th request, "" for none) and
// notes when each attempt was sent and with which Idempotency-Key. With
// dropFirst it also loses the first answer after the server gave it, as a
// broken connection would.
type attemptLog struct {
	faults    []string
	dropFirst bool

	mu    sync.Mutex
	sent  []time.Time
	idems []string
}

func (a *attemptLog) RoundTrip(r *http.Request) (*http.Response, error) {
	a.mu.Lock()
	i := len(a.sent)
	a.sent = append(a.sent, time.Now())
	a.idems = append(a.idems, r.Header.Get("Idempotency-Key"))
	a.mu.Unlock()
	if i < len(a.faults) && a.faults[i] != "" {
		r = r.Clone(r.Context())
		r.Header.Set(client.HeaderSandboxSimulate, a.faults[i])
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && i == 0 && a.dropFirst {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, errors.New("connection reset by peer (simulated after the answer)")
	}
	return resp, err
}

func (a *attemptLog) gaps() []time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []time.Duration
	for i := 1; i < len(a.sent); i++ {
		out = append(out, a.sent[i].Sub(a.sent[i-1]))
	}
	return out
}

func (a *attemptLog) sameKey() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, k := range a.idems {
		if k == "" || k != a.idems[0] {
			return false
		}
	}
	return true
}

func faulty(s *sandbox, a *attemptLog, opts ...client.Option) *client.Client {
	return s.client(append([]client.Option{client.WithHTTPClient(&http.Client{Transport: a})}, opts...)...)
}

var spring = client.CampaignCreate{Name: "Spring", BudgetDaily: client.USD("10"), Marketplace: "US"}

func campaigns(t *testing.T, c *client.Client) int64 {
	t.Helper()
	return must(c.ListCampaigns(context.Background(), nil)).TotalItems
}

// TestRetryAfterHonouredOn429: a 429 with Retry-After: 2 is retried, not
// before 2 s, with the same Idempotency-Key, and the campaign is created
// once.
func TestRetryAfterHonouredOn429(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	a := &attemptLog{faults: []string{client.FaultRateLimited}}
	c := faulty(s, a)
	must(c.CreateCampaign(context.Background(), spring, nil))
	if g := a.gaps(); len(g) != 1 || g[0] < 2*time.Second {
		t.Errorf("waits between attempts %v, want one of at least 2 s (Retry-After: 2)", g)
	}
	if !a.sameKey() {
		t.Errorf("Idempotency-Keys %v, want one key on every attempt", a.idems)
	}
	if n := campaigns(t, c); n != 1 {
		t.Errorf("%d campaigns, want 1", n)
	}
}

// TestBackoffOn503: two 503s, each with Retry-After: 1, then success:
// three attempts, each wait at least the second asked, one campaign.
func TestBackoffOn503(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	a := &attemptLog{faults: []string{client.FaultUnavailable, client.FaultUnavailable}}
	c := faulty(s, a)
	must(c.CreateCampaign(context.Background(), spring, nil))
	if g := a.gaps(); len(g) != 2 || g[0] < time.Second || g[1] < time.Second {
		t.Errorf("waits between attempts %v, want two of at least 1 s", g)
	}
	if n := campaigns(t, c); n != 1 {
		t.Errorf("%d campaigns after two 503s and a success, want 1", n)
	}
}

// TestGivesUpAfterMaxAttempts: a sandbox that keeps answering 503 (the
// fault asked on every attempt through the context) is tried MaxAttempts
// times, and the error says what the server said; nothing was applied.
func TestGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	a := &attemptLog{}
	c := faulty(s, a, client.WithMaxAttempts(2))
	ctx := client.WithSimulatedFault(context.Background(), client.FaultUnavailable)
	_, err := c.CreateCampaign(ctx, spring, nil)
	e := asError(t, err)
	if e.StatusCode != http.StatusServiceUnavailable || e.RetryAfter != time.Second || len(a.gaps()) != 1 {
		t.Errorf("err = %v (Retry-After %v) after %d attempts; want 503 after 2", err, e.RetryAfter, len(a.gaps())+1)
	}
	if n := campaigns(t, c); n != 0 {
		t.Errorf("%d campaigns after refused attempts, want 0", n)
	}
}

// TestInternalErrorNotRetried: a 500 is not retried (the SDK cannot know
// what it did), and under a simulated one nothing was applied.
func TestInternalErrorNotRetried(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	a := &attemptLog{faults: []string{client.FaultInternalError}}
	c := faulty(s, a)
	_, err := c.CreateCampaign(context.Background(), spring, nil)
	if e := asError(t, err); e.StatusCode != http.StatusInternalServerError || len(a.gaps()) != 0 {
		t.Errorf("err = %v after %d attempts, want a 500 after 1", err, len(a.gaps())+1)
	}
	if n := campaigns(t, c); n != 0 {
		t.Errorf("%d campaigns after a simulated 500, want 0", n)
	}
}

// TestChangeNeverAppliedTwice: the first answer is lost after the server
// created the campaign, the retry meets a 503, the third attempt is
// answered with the first answer (Idempotent-Replayed): one campaign,
// and the SDK returns it.
func TestChangeNeverAppliedTwice(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	a := &attemptLog{faults: []string{"", client.FaultUnavailable}, dropFirst: true}
	c := faulty(s, a)
	got := must(c.CreateCampaign(context.Background(), spring, nil))
	if len(a.gaps()) != 2 || !a.sameKey() {
		t.Errorf("%d attempts with Idempotency-Keys %v, want 3 with one key", len(a.gaps())+1, a.idems)
	}
	list := must(c.ListCampaigns(context.Background(), nil))
	if list.TotalItems != 1 || list.Items[0].ID != got.ID {
		t.Errorf("campaigns %+v, want only %s, the one the SDK returned", list.Items, got.ID)
	}
}

// TestSkewedClockCorrected: a client whose clock is 10 minutes slow is
// refused once (TIMESTAMP_EXPIRED), corrects its clock from the answer and
// succeeds; so does a client meeting a simulated TIMESTAMP_EXPIRED.
func TestSkewedClockCorrected(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	a := &attemptLog{}
	c := faulty(s, a, client.WithClock(func() time.Time { return time.Now().Add(-10 * time.Minute) }))
	must(c.CreateCampaign(context.Background(), spring, nil))
	if off := c.ClockOffset(); off < 10*time.Minute-5*time.Second || off > 10*time.Minute+5*time.Second {
		t.Errorf("ClockOffset = %v, want about 10m", off)
	}
	if len(a.gaps()) != 1 {
		t.Errorf("%d attempts, want 2 (one refused, one corrected)", len(a.gaps())+1)
	}
	b := &attemptLog{faults: []string{client.FaultTimestampExpired}}
	c2 := faulty(s, b)
	must(c2.CreateCampaign(context.Background(), spring, nil))
	if n := campaigns(t, c2); n != 2 {
		t.Errorf("%d campaigns, want 2 (one per client)", n)
	}
}

// TestSlowAnswer: slow=D delays the real answer by D.
func TestSlowAnswer(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	a := &attemptLog{faults: []string{"slow=300ms"}}
	c := faulty(s, a)
	began := time.Now()
	must(c.CreateCampaign(context.Background(), spring, nil))
	if d := time.Since(began); d < 300*time.Millisecond {
		t.Errorf("answered in %v, want at least 300ms", d)
	}
}

func TestSandboxResetAndSampleData(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	made := must(c.CreateSampleData(ctx))
	if made.Campaigns < 3 || made.Keywords < 200 || campaigns(t, c) != made.Campaigns {
		t.Errorf("CreateSampleData = %+v", made)
	}
	gone := must(c.ResetSandbox(ctx))
	if *gone != *made || campaigns(t, c) != 0 {
		t.Errorf("ResetSandbox = %+v, want %+v and nothing left", gone, made)
	}
}
