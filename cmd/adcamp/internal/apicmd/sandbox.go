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
	defer settle(ctx)
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
