//go:build recess_nodemo

package main

import (
	"context"
	"fmt"
	"io"
)

// The action's release binaries are built with -tags recess_nodemo: they
// leave out the embedded fake GitHub (a quarter of the binary), which only
// the local demo and scenario runner need.

func runDemo(_ context.Context, _ []string, _, stderr io.Writer) int {
	return noDemo("demo", stderr)
}

func runScenarios(_ context.Context, _ []string, _, stderr io.Writer) int {
	return noDemo("scenario", stderr)
}

func runAct(_ context.Context, _ []string, _ func(string) string, _, stderr io.Writer) int {
	return noDemo("act", stderr)
}

func noDemo(cmd string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "recess %s: this binary was built without the embedded fake GitHub (-tags recess_nodemo); run go run ./cmd/recess %s from the source\n", cmd, cmd)
	return 2
}
