// Command recess-lab is recess's local lab: the demo, the scenario runner,
// your own workflows under act, the scripted lead and the fake GitHub.
// It runs the action (internal/action) in-process, or the recess binary,
// against the in-memory GitHub of internal/githubfake; the action's own
// binary, cmd/recess, links no fake GitHub.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/recess-action/recess/internal/action"
)

const usage = `usage:
  recess-lab demo [-v]              tell the whole story locally: a recess, people replying, the
                                    resume (against the embedded fake GitHub; no token, no network)
  recess-lab scenario [-v] FILE...  run scenario files against the embedded fake GitHub
  recess-lab act [-v] [WORKFLOWS]   run a repository's front door and agent workflow (default: the
                                    one around the working directory) under act against the embedded
                                    fake GitHub, the whole story (needs act; see -h)
  recess-lab mcp-script             the placeholder lead: a scripted MCP client of recess mcp
  recess-lab fakegithub [flags]     serve the fake GitHub on a local address (see -h)

"recess-lab COMMAND --help" describes a command.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the lab behind an injectable environment. It returns the exit
// status: 0 done, 1 failed, 2 refused input or usage.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return action.ExitRefused
	}
	name, rest := args[0], args[1:]
	switch name {
	case "demo", "scenario":
		return runScenarios(ctx, name, rest, stdout, stderr)
	case "act":
		return runAct(ctx, rest, getenv, stdout, stderr)
	case "mcp-script":
		return runMCPScript(ctx, rest, getenv, stdout, stderr)
	case "fakegithub":
		return runFakeGitHub(ctx, rest, stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "recess-lab: unknown command %q\n%s", name, usage)
	return action.ExitRefused
}
