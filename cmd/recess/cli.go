package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	gh "github.com/recess-action/recess/internal/github"
)

// runRepoCommand is `recess status` and `recess sweep --dry-run`: the
// action's own code against a repository from a laptop, with the token
// from GITHUB_TOKEN. A sweep from the command line is always a dry run:
// it predicts, it never writes (the scheduled front door does the real
// sweeps, so two writers never compete).
func runRepoCommand(ctx context.Context, name string, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recess "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", getenv("GITHUB_REPOSITORY"), "the repository, OWNER/REPO (default $GITHUB_REPOSITORY)")
	discussion := fs.Int("discussion", 0, "only this discussion (status)")
	store := fs.String("state-store", "comment", "where the records are: comment or branch")
	branch := fs.String("state-branch", gh.DefaultStateBranch, "the branch of the branch store")
	dry := fs.Bool("dry-run", false, "describe what a sweep would do without doing it (required for sweep)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: recess %s --repo OWNER/REPO [flags]\n(token from GITHUB_TOKEN; RECESS_NOW pins the clock)\n", name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "recess %s: unexpected argument %q\n", name, fs.Arg(0))
		return 2
	}
	if name == "sweep" && !*dry {
		fmt.Fprintln(stderr, "recess sweep: only --dry-run is available from the command line; the scheduled front door performs real sweeps")
		return 2
	}
	if getenv("GITHUB_TOKEN") == "" {
		fmt.Fprintf(stderr, "recess %s: GITHUB_TOKEN is not set\n", name)
		return 2
	}
	env := map[string]string{
		"GITHUB_REPOSITORY":  *repo,
		"GITHUB_API_URL":     getenv("GITHUB_API_URL"),
		"GITHUB_GRAPHQL_URL": getenv("GITHUB_GRAPHQL_URL"),
		"RECESS_NOW":         getenv("RECESS_NOW"),
		"INPUT_GITHUB-TOKEN": getenv("GITHUB_TOKEN"),
		"INPUT_COMMAND":      name,
		"INPUT_STATE-STORE":  *store,
		"INPUT_STATE-BRANCH": *branch,
		"INPUT_DRY-RUN":      strconv.FormatBool(*dry || name == "status"),
	}
	if *discussion > 0 {
		// The action reads the discussion from the event, as it would for
		// a workflow_dispatch carrying discussion_number.
		f, err := os.CreateTemp("", "recess-event-*.json")
		if err != nil {
			fmt.Fprintf(stderr, "recess %s: %v\n", name, err)
			return 1
		}
		defer os.Remove(f.Name())
		fmt.Fprintf(f, `{"inputs":{"discussion_number":"%d"}}`, *discussion)
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "recess %s: %v\n", name, err)
			return 1
		}
		env["GITHUB_EVENT_NAME"], env["GITHUB_EVENT_PATH"] = "workflow_dispatch", f.Name()
	}
	get := func(k string) string { return env[k] }
	return actionExit(runActionMode(ctx, get, stdout, stderr))
}
