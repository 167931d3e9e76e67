package action

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/sethvargo/go-githubactions"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/internal/workflows"
)

const checkUsage = `usage: recess check [DIR]

check reads the repository's .github/workflows (DIR is the repository's
root, default the current directory) and reports every way the setup breaks
recess's promises, one line each with the line to change and the fix: a job
that writes a discussion's record outside that discussion's concurrency
group or without queue: max, a lead job with a write scope, a recess job
without the permissions it needs or with a write scope it does not need, an agent workflow without the dispatch
inputs correlation_id, discussion_number and resume_context (or without a
claim or a verdict), a workflow input naming no file, a schedule at the top
of the hour, no sweep. It exits 1 when it found something, so it can run in
CI; inside GitHub Actions the findings are ::error annotations.
`

// runCheck is `recess check`.
func runCheck(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
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
	findings, err := workflows.CheckRepo(os.DirFS(dir))
	if err != nil {
		fmt.Fprintf(stderr, "recess check: %s: %v\n", filepath.Join(dir, workflows.Dir), err)
		return ExitRefused
	}
	annotate := getenv("GITHUB_ACTIONS") == "true"
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
