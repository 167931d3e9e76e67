// Command recess is the recess GitHub Action and its local CLI (eval,
// status, sweep --dry-run, mcp, prompt); internal/action holds them. The
// local lab is its own command, cmd/recess-lab.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/recess-action/recess/internal/action"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := action.Run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
