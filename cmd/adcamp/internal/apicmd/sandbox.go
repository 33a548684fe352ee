package apicmd

import (
	"context"

	"github.com/adcamp/adcamp/client"
)

// sandboxAction runs "sandbox reset" or "sandbox sample-data": one call
// of the sandbox's own, and what it counted.
func (c *cli) sandboxAction(ctx context.Context, name string, args []string,
	act func(*client.Client, context.Context) (*client.SandboxCounts, error), verb string) error {
	a := c.apiCommand(name)
	if err := a.parse(args); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	defer c.settle(ctx)
	n, err := act(cl, ctx)
	if err != nil {
		return apiError(err)
	}
	if a.json {
		return a.printJSON(map[string]any{verb: n})
	}
	return a.printf("%s %s, %s and %s.\n", map[string]string{"deleted": "Deleted", "created": "Created"}[verb],
		plural(n.Campaigns, "campaign", "campaigns"), plural(n.AdGroups, "ad group", "ad groups"),
		plural(n.Keywords, "keyword", "keywords"))
}

// sandboxSimulate runs "sandbox simulate --days N": a backfill of the
// sandbox's delivery simulator.
func (c *cli) sandboxSimulate(ctx context.Context, args []string) error {
	a := c.apiCommand("sandbox simulate")
	days := a.fs.Int("days", 30, "how many days to backfill, today included (1 to 30)")
	if err := a.parse(args); err != nil {
		return err
	}
	if *days < 1 || *days > 30 {
		return usageError("--days must be from 1 to 30, got %d", *days)
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	defer c.settle(ctx)
	n, err := cl.SimulateDelivery(ctx, *days)
	if err != nil {
		return apiError(err)
	}
	if a.json {
		return a.printJSON(map[string]any{"simulated": n})
	}
	return a.printf("Simulated delivery from %s to %s: %s, %s.\n", n.From, n.To,
		plural(n.Keywords, "keyword", "keywords"), plural(n.Rows, "hourly row", "hourly rows"))
}
