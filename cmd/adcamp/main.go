// Command adcamp runs the Campaign Advertising Open API service and
// administers it. Run "adcamp help" for the commands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.LookupEnv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "adcamp:", err)
		os.Exit(exitCode(err))
	}
}
