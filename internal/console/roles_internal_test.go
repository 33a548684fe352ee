package console

import (
	"testing"

	"github.com/adcamp/adcamp/internal/service"
)

// TestSummaryOf: a role's words follow what it allows, whatever the
// table of roles says, so that a change there changes them too.
func TestSummaryOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		allowed service.Allowed
		want    string
	}{
		{service.Allowed{}, "Sees everything, changes nothing."},
		{service.Allowed{SandboxKeys: true}, "Changes API keys in the sandbox; sees everything else."},
		{service.Allowed{SandboxKeys: true, SandboxCampaigns: true}, "Changes campaigns and API keys in the sandbox; sees everything else."},
		{service.Allowed{SandboxKeys: true, ProductionCampaigns: true, SandboxCampaigns: true},
			"Changes campaigns in production and the sandbox, and API keys in the sandbox; sees everything else."},
		{service.Allowed{Members: true}, "Changes the members; sees everything else."},
		{service.Allowed{SandboxKeys: true, ProductionKeys: true, Members: true, SandboxCampaigns: true, ProductionCampaigns: true},
			"Changes everything: campaigns and API keys in production and the sandbox, and the members."},
	} {
		if got := summaryOf(c.allowed); got != c.want {
			t.Errorf("summaryOf(%+v) = %q, want %q", c.allowed, got, c.want)
		}
	}
}
