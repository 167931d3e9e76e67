//go:build recess_nodemo

package main

import (
	"context"
	"fmt"
	"io"
	"slices"
)

// The action's release binaries are built with -tags recess_nodemo: they
// leave out the embedded fake GitHub (a quarter of the binary), which only
// the local demo and scenario runner need.

func runDemo(_ context.Context, args []string, stdout, stderr io.Writer) int {
	return noDemo("demo", args, stdout, stderr)
}

func runScenarios(_ context.Context, args []string, stdout, stderr io.Writer) int {
	return noDemo("scenario", args, stdout, stderr)
}

func runAct(_ context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) int {
	return noDemo("act", args, stdout, stderr)
}

func noDemo(cmd string, args []string, stdout, stderr io.Writer) int {
	msg := fmt.Sprintf("recess %s: this binary was built without the embedded fake GitHub (-tags recess_nodemo); run go run ./cmd/recess %s from the source\n", cmd, cmd)
	if slices.Contains(args, "-h") || slices.Contains(args, "-help") || slices.Contains(args, "--help") {
		fmt.Fprint(stdout, msg)
		return exitOK
	}
	fmt.Fprint(stderr, msg)
	return exitRefused
}
