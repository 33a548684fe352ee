package main

import (
	"context"

	"github.com/adcamp/adcamp/cmd/adcamp/internal/apicmd"
)

// api runs one API command ("campaigns list", "keywords create"...):
// package apicmd calls a running server through the Go SDK.
func (c *cli) api(ctx context.Context, cmd string, args []string) error {
	return apicmd.Run(ctx, apicmd.Env{Lookup: c.lookup, Stdin: c.stdin, Stdout: c.stdout, Stderr: c.stderr}, cmd, args)
}
