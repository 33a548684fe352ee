package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// SandboxCounts says how many campaigns, ad groups and keywords a sandbox
// operation deleted or created.
type SandboxCounts struct {
	Campaigns int64 `json:"campaigns"`
	AdGroups  int64 `json:"ad_groups"`
	Keywords  int64 `json:"keywords"`
}

// ResetSandbox deletes every sandbox campaign of the key's account with
// its ad groups and keywords, and says how many went. Sandbox only: the
// production API answers 404.
func (c *Client) ResetSandbox(ctx context.Context) (*SandboxCounts, error) {
	out, err := call[struct {
		Deleted SandboxCounts `json:"deleted"`
	}](ctx, c, op{method: http.MethodPost, path: "sandbox/reset"})
	if err != nil {
		return nil, err
	}
	return &out.Deleted, nil
}

// CreateSampleData fills the key's account's sandbox with a realistic set
// of campaigns, ad groups and keywords, and says how many it created.
// Sandbox only: the production API answers 404.
func (c *Client) CreateSampleData(ctx context.Context) (*SandboxCounts, error) {
	out, err := call[struct {
		Created SandboxCounts `json:"created"`
	}](ctx, c, op{method: http.MethodPost, path: "sandbox/sample-data"})
	if err != nil {
		return nil, err
	}
	return &out.Created, nil
}

// SandboxSimulated says what a backfill of the sandbox's delivery
// simulator posted: the account's days covered (From to To, in its time
// zone, To up to the current hour so far), the servable keywords
// simulated and the delivery rows posted (one per keyword and hour).
type SandboxSimulated struct {
	Days     int    `json:"days"`
	From     string `json:"from"`
	To       string `json:"to"`
	Keywords int64  `json:"keywords"`
	Rows     int64  `json:"rows"`
}

// SimulateDelivery backfills the last days (1 to 30, today included) of
// the key's account's sandbox with the delivery simulator's figures, so
// that reports have data to read. Sandbox only: the production API
// answers 404; a deployment with the simulator off answers 409 CONFLICT.
func (c *Client) SimulateDelivery(ctx context.Context, days int) (*SandboxSimulated, error) {
	out, err := call[struct {
		Simulated SandboxSimulated `json:"simulated"`
	}](ctx, c, op{method: http.MethodPost, path: "sandbox/simulate", query: url.Values{"days": {strconv.Itoa(days)}}})
	if err != nil {
		return nil, err
	}
	return &out.Simulated, nil
}

// The faults the sandbox simulates (X-Sandbox-Simulate).
const (
	FaultRateLimited      = "rate_limited"      // 429 with Retry-After: 2
	FaultInternalError    = "internal_error"    // 500; a change is not applied
	FaultUnavailable      = "unavailable"       // 503 with Retry-After; a change is not applied
	FaultTimestampExpired = "timestamp_expired" // 401 TIMESTAMP_EXPIRED
)

// HeaderSandboxSimulate is the request header that asks the sandbox for a
// simulated fault; the production API ignores it.
const HeaderSandboxSimulate = "X-Sandbox-Simulate"

type faultKey struct{}

// WithSimulatedFault returns a context whose calls ask the sandbox to
// answer with fault (a Fault* constant, or "slow=2s" for a delay of up to
// 10 s before the real answer) on every attempt, so a test can see how
// its code copes with a troubled service. The production API ignores it.
func WithSimulatedFault(ctx context.Context, fault string) context.Context {
	return context.WithValue(ctx, faultKey{}, fault)
}

// simulatedFault returns the fault ctx asks for, or "".
func simulatedFault(ctx context.Context) string {
	f, _ := ctx.Value(faultKey{}).(string)
	return f
}
