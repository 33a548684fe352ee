package client

import (
	"context"
	"net/http"
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
