package action

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/sethvargo/go-githubactions"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/internal/workflows"
)

const checkUsage = `usage: recess check [DIR]

check reads the repository's .github/workflows (DIR is the repository's
root, default the current directory) and reports every way the setup breaks
recess's promises, one line each with the line to change and the fix:
  - a job that writes a thread's record outside that thread's concurrency
    group (recess-<number>, queue: max), or under a workflow-level group
    that cancels; a sweep in one job;
  - a job where the model runs (an agent action, an agent CLI, recess mcp)
    with a token that can write, or when claim says stale; a recess mcp
    flag it does not know;
  - a recess job without the permissions it needs (issues: write
    included) or with a write scope it does not need;
  - an input the action or the reusable workflow does not declare, a value
    outside an input's choices (state-store, wake-on, threads, command);
  - front door, claim and verdict on different stores or recess releases;
    two front doors, or none; a front door without the triggers its
    threads need;
  - an agent workflow without the dispatch inputs correlation_id,
    discussion_number and resume_context (or without a claim or a
    verdict); a workflow input naming no file;
  - a schedule that is not five cron fields or runs at the top of the
    hour; no sweep; a pull_request_target job that checks out the pull
    request's code; no recess setup at all.
It exits 1 when it found something, so it can run in CI; inside GitHub
Actions the findings are ::error annotations.
`

// CheckKnown is what `recess check` holds the setup in the repository at
// dir to beside recess's own files: the inputs' choices, recess mcp's
// flags, and a run's own check of its inputs with the repository's policy
// file (dir/.github/recess.yml), all from the code that reads them.
func CheckKnown(dir string) workflows.Known {
	var flags []string
	fs, _ := mcpFlags(&mcpOptions{}, runEnv{}, func(string) string { return "" })
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })
	return workflows.Known{Choices: slices.Clone(inputChoices), MCPFlags: flags, Validate: func(input func(string) string) error {
		_, err := loadSettings(func(name string) string {
			if name == inConfig {
				return "" // a policy file elsewhere is the run's to read, from its checkout
			}
			return input(name)
		}, dir)
		return err
	}}
}

// runCheck is `recess check`.
func runCheck(args []string, env runEnv, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recess check", flag.ContinueOnError)
	if code, ok := ParseFlags(fs, args, checkUsage, stdout, stderr); !ok {
		return code
	}
	dir := "."
	switch fs.NArg() {
	case 0:
	case 1:
		dir = fs.Arg(0)
	default:
		fmt.Fprintf(stderr, "recess check: one directory, not %d\n%s", fs.NArg(), checkUsage)
		return ExitRefused
	}
	findings, err := workflows.CheckRepo(os.DirFS(dir), CheckKnown(dir))
	if err != nil {
		fmt.Fprintf(stderr, "recess check: %s: %v\n", filepath.Join(dir, workflows.Dir), err)
		return ExitRefused
	}
	annotate := env.Actions
	gha := githubactions.New(githubactions.WithGetenv(githubactions.GetenvFunc(getenv)), githubactions.WithWriter(stdout))
	for _, f := range findings {
		if annotate {
			gha.WithFieldsMap(map[string]string{"file": f.File, "line": strconv.Itoa(f.Line), "title": "recess check (" + string(f.Rule) + ")"}).
				Errorf("%s. Fix: %s", f.Message, f.Fix)
			continue
		}
		fmt.Fprintf(stdout, "%s:%d: %s\n\tfix: %s\n", filepath.ToSlash(filepath.Join(dir, f.File)), f.Line, f.Message, f.Fix)
	}
	if len(findings) > 0 {
		fmt.Fprintf(stderr, "recess check: %s\n", text.Count(len(findings), "problem", "problems"))
		return exitFailed
	}
	fmt.Fprintf(stdout, "recess check: %s keeps every rule\n", filepath.ToSlash(filepath.Join(dir, workflows.Dir)))
	return exitOK
}
