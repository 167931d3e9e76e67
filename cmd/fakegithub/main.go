// Command fakegithub serves the in-memory GitHub of internal/githubfake on a
// local address, so recess can run against it by hand or under act:
//
//	fakegithub --addr 127.0.0.1:0 --seed seed.yml
//	fakegithub --repo octo/hello --token ghs_local=github-actions[bot]
//
// It prints GITHUB_API_URL=..., GITHUB_GRAPHQL_URL=... and
// GITHUB_SERVER_URL=... (one per line, ready for an env file) and serves
// until interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakegithub:", err)
		os.Exit(1)
	}
}
