//go:build !recess_nodemo

package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

//go:embed demo.yaml
var demoScenario []byte

// runDemo tells the built-in story against the embedded fake GitHub: no
// token, no network. It prints the timeline and what the resumed agent
// was handed.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recess demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "also print every recess run's log")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	s, err := parseScenario(demoScenario)
	if err != nil {
		fmt.Fprintf(stderr, "recess demo: %v\n", err)
		return 1
	}
	st, err := runScenario(ctx, s, stdout, *verbose)
	if err != nil {
		fmt.Fprintf(stderr, "recess demo: %v\n", err)
		return 1
	}
	// Show what the resumed agent run was handed: the point of recess.
	runs, err := st.gh.Runs(st.repo)
	if err == nil {
		for i := len(runs) - 1; i >= 0; i-- {
			if rc := runs[i].Inputs["resume_context"]; rc != "" {
				var v any
				if json.Unmarshal([]byte(rc), &v) == nil {
					b, _ := json.MarshalIndent(v, "", "  ")
					fmt.Fprintf(stdout, "\nThe resume_context of agent run %d:\n%s\n", runs[i].ID, b)
				}
				break
			}
		}
	}
	fmt.Fprintf(stdout, "\n%d GitHub API requests in all, against the embedded fake GitHub.\n", len(st.gh.Requests()))
	return 0
}

// runScenarios runs scenario files and reports each; exit 1 when one fails.
func runScenarios(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recess scenario", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "also print every recess run's log")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: recess scenario [-v] FILE.yaml...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	failed := 0
	for _, path := range fs.Args() {
		b, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "recess scenario: %v\n", err)
			return 2
		}
		s, err := parseScenario(b)
		if err != nil {
			fmt.Fprintf(stderr, "recess scenario: %s: %v\n", path, err)
			return 2
		}
		if _, err := runScenario(ctx, s, stdout, *verbose); err != nil {
			fmt.Fprintf(stdout, "FAIL %s: %v\n\n", path, err)
			failed++
			continue
		}
		fmt.Fprintf(stdout, "ok   %s\n\n", path)
	}
	if failed > 0 {
		return 1
	}
	return 0
}
