package action

import (
	"context"
	"fmt"
	"io"
)

const usage = `usage:
  recess                        run as the GitHub Action (inputs from the environment; only
                                inside GitHub Actions, where GITHUB_ACTIONS=true)
  recess init [flags]           write the front door and a Claude agent workflow into
                                .github/workflows (the README's quick start)
  recess check [DIR]            report, with line and fix, how the repository's workflows
                                break recess's promises; exit 1 when they do
  recess eval [flags]           evaluate a trigger at a moment; "recess eval -h" for its flags
  recess mcp [flags]            the lead's MCP server on stdio; its tools: read_thread
                                (or read_discussion), reply, recess, adjourn
  recess prompt                 render a resume_context as the resumed agent's prompt
  recess status --repo O/R      what a repository's recesses wait for, and when time alone
                                fires them (token from GITHUB_TOKEN, else GH_TOKEN; --json
                                for machines)
  recess sweep --dry-run --repo O/R
                                what a sweep would do now (RECESS_NOW pins the moment)

"recess COMMAND --help" describes a command. The local lab (the demo, scenarios,
the example workflows under act, the fake GitHub) is go run ./cmd/recess-lab.
`

// Run is the whole program behind an injectable environment, so tests drive
// it with a map and buffers. It returns the exit status: 0 done, 1 failed,
// 2 refused input or usage.
func Run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := readRunEnv(getenv)
	if len(args) == 0 {
		if !env.Actions { // a person at a terminal, not the runner
			fmt.Fprint(stderr, usage)
			return ExitRefused
		}
		return runAction(ctx, env, getenv, stdout, stderr)
	}
	name, rest := args[0], args[1:]
	switch name {
	case "eval":
		return runEval(ctx, rest, getenv, stdin, stdout, stderr)
	case "mcp":
		return runMCP(ctx, rest, env, getenv, stdin, stdout, stderr)
	case "prompt":
		return runPrompt(ctx, rest, stdin, stdout, stderr)
	case cmdStatus, cmdSweep:
		return runRepoCommand(ctx, name, rest, env, getenv, stdout, stderr)
	case "init":
		return runInit(rest, stdout, stderr)
	case "check":
		return runCheck(rest, env, getenv, stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "recess: unknown command %q\n%s", name, usage)
	return ExitRefused
}
