package action

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/recess-action/recess/internal/workflows"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

const repoUsage = `usage: recess status --repo OWNER/REPO [--discussion N] [flags]
       recess sweep --dry-run --repo OWNER/REPO [flags]

status prints what each pending discussion waits for and when time alone
would fire it; sweep --dry-run adds what a sweep at this moment would do
(it reads everything and writes nothing: the scheduled front door does
the real sweeps). Both print a table, or JSON with --json.

The token is GITHUB_TOKEN, else GH_TOKEN (as gh reads it); it needs to read
the repository's discussions and actions. GITHUB_API_URL and GITHUB_GRAPHQL_URL point
elsewhere than github.com (GitHub Enterprise Server, go run ./cmd/recess-lab fakegithub);
RECESS_NOW (RFC 3339) pins the moment.

Flags:
`

// parseRepoCommand reads the flags and the environment of a repository
// command, once, into an invocation; ok is false when the command should
// stop with code.
func parseRepoCommand(name string, args []string, env runEnv, getenv func(string) string, stdout, stderr io.Writer) (inv *invocation, asJSON bool, code int, ok bool) {
	fs := flag.NewFlagSet("recess "+name, flag.ContinueOnError)
	set := newSettings()
	set.Command = name
	repo := fs.String("repo", env.Repo, "the repository, OWNER/REPO (default $GITHUB_REPOSITORY)")
	fs.IntVar(&set.Discussion, "discussion", 0, "only this discussion (status)")
	fs.StringVar(&set.StateStore, inStateStore, set.StateStore, "where the records are: "+storeComment+" or "+storeBranch)
	fs.StringVar(&set.StateBranch, inStateBranch, set.StateBranch, "the branch of the "+storeBranch+" store")
	threads := fs.String(inThreads, "", "the kinds of thread served, comma separated: "+strings.Join(threadKinds, ", ")+" (default discussions)")
	config := fs.String(inConfig, "", "the repository's policy file (default "+defaultConfigPath+", which may be missing)")
	dry := fs.Bool(inDryRun, false, "describe what a sweep would do without doing it (required for sweep)")
	fs.BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	// A usage error (the command spelled wrong) is followed by the usage;
	// any other refusal is its one line, which names what to fix.
	misused := func(format string, args ...any) (*invocation, bool, int, bool) {
		fmt.Fprintf(stderr, "recess %s: %s\n", name, fmt.Sprintf(format, args...))
		printUsage(fs, repoUsage, stderr)
		return nil, false, ExitRefused, false
	}
	refuse := func(format string, args ...any) (*invocation, bool, int, bool) {
		fmt.Fprintf(stderr, "recess %s: %s\n", name, fmt.Sprintf(format, args...))
		return nil, false, ExitRefused, false
	}
	if code, ok := ParseFlags(fs, args, repoUsage, stdout, stderr); !ok {
		return nil, false, code, false
	}
	switch {
	case fs.NArg() > 0:
		return misused("unexpected argument %q", fs.Arg(0))
	case name == cmdSweep && !*dry:
		return misused("only --dry-run is available from the command line; the scheduled front door performs real sweeps")
	case name == cmdSweep && set.Discussion != 0:
		return misused("--discussion is for status: a sweep looks at every pending discussion")
	case *repo == "":
		return misused("--repo is missing (or set GITHUB_REPOSITORY)")
	case set.Discussion < 0:
		return refuse("--discussion %d is not a discussion number", set.Discussion)
	case env.Token == "":
		return refuse("no token: set GITHUB_TOKEN (or GH_TOKEN) to a token that can read the repository's discussions and actions")
	}
	if _, _, err := splitRepo("--repo", *repo); err != nil {
		return refuse("%v", err)
	}
	set.StateStore = strings.ToLower(set.StateStore)
	if err := checkStore("--"+inStateStore, set.StateStore); err != nil {
		return refuse("%v", err)
	}
	if err := set.applyFile(policyPath(*config, "")); err != nil {
		return refuse("%v", err)
	}
	kinds, err := workflows.ParseThreads("--"+inThreads, *threads)
	if err != nil {
		return refuse("%v", err)
	}
	if len(kinds) > 0 {
		set.Threads = kinds
	}
	if env.Clock, err = clockFrom(getenv); err != nil {
		return refuse("%v", err)
	}
	env.Repo = *repo
	set.Token = env.Token
	set.DryRun = true // the command line only ever reads
	return &invocation{settings: set, where: env.where, Event: &event{}, WithStatus: name == cmdSweep}, asJSON, exitOK, true
}

// runRepoCommand is `recess status` and `recess sweep --dry-run`: the
// action's own code against a repository from a laptop. It prints a table
// (or JSON) on stdout and the engine's log on stderr.
func runRepoCommand(ctx context.Context, name string, args []string, env runEnv, getenv func(string) string, stdout, stderr io.Writer) int {
	inv, asJSON, code, ok := parseRepoCommand(name, args, env, getenv, stdout, stderr)
	if !ok {
		return code
	}
	rep, err := repoReport(ctx, inv, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "recess %s: %v\n", name, err)
		if RefusedField(err) != "" {
			return ExitRefused
		}
		return exitFailed
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "recess %s: %v\n", name, err)
			return exitFailed
		}
		return exitOK
	}
	rep.print(stdout)
	return exitOK
}

// repoReport runs the command once: a status of the pending discussions,
// and for sweep a dry-run sweep beside it, on the same engine.
func repoReport(ctx context.Context, inv *invocation, log io.Writer) (*cliReport, error) {
	ex, err := execute(ctx, inv, log)
	st, sweepErr := ex.Result, error(nil)
	if inv.WithStatus {
		st = ex.Status
		if ex.Result != nil {
			// The sweep ran after the status: its failure is a warning
			// beside it.
			sweepErr, err = err, nil
		}
	}
	checks, err := known(ctx, inv, st, err)
	if err != nil {
		return nil, err
	}
	rep := newCLIReport(inv, st)
	rep.Requests = ex.Requests + checks
	if inv.WithStatus {
		rep.addSweep(ex, sweepErr)
	}
	return rep, nil
}

// known refuses a status about something GitHub does not know, naming it,
// so that a mistyped --repo or --discussion never reads as "nothing
// pending". An answer that could mean that (nothing pending, the discussion
// not found, or a failure) costs one more request, whether the repository
// exists; known returns the requests it sent.
func known(ctx context.Context, inv *invocation, st *resume.Result, err error) (int, error) {
	missing := st != nil && st.Missing != nil
	if err == nil && !missing && (inv.Discussion != 0 || st != nil && len(st.Sweep) > 0) {
		return 0, nil
	}
	_, client, werr := wire(inv, func(string, ...any) {})
	if werr != nil {
		return 0, errors.Join(err, werr)
	}
	found, ferr := client.RepositoryExists(ctx)
	sent := client.Requests()
	switch {
	case ferr != nil && err != nil:
		return sent, err
	case ferr != nil:
		return sent, ferr
	case !found:
		return sent, &wait.FieldError{Field: "--repo", Reason: fmt.Sprintf("repository %s was not found (or the token cannot read it)", inv.Repo)}
	case missing:
		return sent, &wait.FieldError{Field: "--discussion", Reason: fmt.Sprintf("discussion #%d was not found in %s", inv.Discussion, inv.Repo)}
	}
	return sent, err
}

// cliReport is what the repository commands print: the --json shape, and
// the table drawn from it.
type cliReport struct {
	Command     string           `json:"command"`
	Repo        string           `json:"repository"`
	Now         time.Time        `json:"now"`
	DryRun      bool             `json:"dry_run"` // sweep --dry-run: nothing was written
	OpenRFCs    int              `json:"open_rfcs"`
	RFCs        []resume.RFCView `json:"rfcs"`            // every open recess
	Discussions []discussionRow  `json:"discussions"`     // the pending discussions
	Would       []string         `json:"would,omitempty"` // what a real sweep would write now, in order
	Notes       []string         `json:"notes"`
	Warnings    []string         `json:"warnings"`
	Requests    int              `json:"requests"` // the GitHub API requests this command sent
}

// discussionRow is one pending discussion in words.
type discussionRow struct {
	Discussion int `json:"discussion"`
	// Waiting is what it waits for ("for 2 more replies (0 of 2 so far)"),
	// or, with no open recess, its status (an agent run at work).
	Waiting string     `json:"waiting_for"`
	DueAt   *time.Time `json:"due_at"`          // when time alone fires it (null: only people can)
	Sweep   string     `json:"sweep,omitempty"` // what a sweep now would do (sweep --dry-run)
}

func newCLIReport(inv *invocation, st *resume.Result) *cliReport {
	rep := &cliReport{Command: inv.Command, Repo: inv.Repo, Now: inv.Clock.Now().UTC(), DryRun: inv.Command == cmdSweep,
		OpenRFCs: st.OpenRFCs, RFCs: []resume.RFCView{}, Discussions: []discussionRow{}, Notes: plainTexts(st.Notes),
		Warnings: plainTexts(st.Warnings)}
	for _, v := range st.RFCs {
		v.Waiting = PlainText(v.Waiting)
		rep.RFCs = append(rep.RFCs, v)
	}
	// Status of one discussion answers for it; status of all holds one
	// result per pending discussion.
	each := st.Sweep
	if inv.Discussion != 0 {
		each = []*resume.Result{st}
	}
	for _, r := range each {
		row := discussionRow{Discussion: r.Discussion, DueAt: r.DueAt}
		var waits []string
		for _, v := range r.RFCs {
			waits = append(waits, PlainText(v.Waiting))
		}
		if len(waits) == 0 && len(r.Notes) > 0 {
			waits = []string{PlainText(r.Notes[0])}
		}
		row.Waiting = strings.Join(waits, "; ")
		rep.Discussions = append(rep.Discussions, row)
	}
	return rep
}

// addSweep puts a dry-run sweep beside the status: what it would do for
// each discussion, and every write it would make.
func (rep *cliReport) addSweep(sw *execution, err error) {
	rep.Notes = append(rep.Notes, plainTexts(sw.Notes)...)
	rep.Warnings = append(rep.Warnings, plainTexts(sw.Warnings)...)
	if err != nil {
		rep.Warnings = append(rep.Warnings, PlainText(err.Error()))
	}
	for _, w := range sw.Would {
		rep.Would = append(rep.Would, w.String())
	}
	visited := map[int]*resume.Result{}
	for _, r := range sw.Sweep {
		visited[r.Discussion] = r
	}
	seen := map[int]bool{}
	for i := range rep.Discussions {
		row := &rep.Discussions[i]
		seen[row.Discussion] = true
		row.Sweep = sweepWords(row, visited[row.Discussion], sw, rep.Now)
	}
	// A discussion the sweep visits that the status did not list (a
	// record with nothing pending whose discussion shows new activity).
	for _, r := range sw.Sweep {
		if !seen[r.Discussion] {
			row := discussionRow{Discussion: r.Discussion, Waiting: "nothing (no open recess)"}
			row.Sweep = sweepWords(&row, r, sw, rep.Now)
			rep.Discussions = append(rep.Discussions, row)
		}
	}
}

// sweepWords says what a sweep now would do for one discussion.
func sweepWords(row *discussionRow, r *resume.Result, sw *execution, now time.Time) string {
	if r == nil {
		switch {
		case row.DueAt != nil && !row.DueAt.After(now) && sw.Left > 0:
			return "nothing this time: left for the next sweep (max-operations)"
		case row.DueAt != nil:
			return "nothing: not due until " + moment(*row.DueAt)
		default:
			return "nothing: it waits for people"
		}
	}
	switch {
	case len(r.Warnings) > 0:
		return "would fail: " + PlainText(r.Warnings[len(r.Warnings)-1])
	case r.Fired:
		return "would resume the agent (fired by " + r.FiredBy + ")"
	case r.Dispatched:
		return "would dispatch the agent"
	}
	var writes []string
	for _, w := range sw.Would {
		if w.Discussion == row.Discussion {
			writes = append(writes, w.What)
		}
	}
	if len(writes) > 0 {
		return "would visit it and " + strings.Join(writes, ", then ")
	}
	return "would visit it: nothing to change"
}

// print draws the report as a table for people.
func (rep *cliReport) print(w io.Writer) {
	what := "status"
	if rep.DryRun {
		what = "sweep --dry-run (nothing was written)"
	}
	fmt.Fprintf(w, "recess %s · %s · at %s\n\n", what, rep.Repo, rep.Now.Format(time.RFC3339))
	if len(rep.Discussions) == 0 {
		fmt.Fprintln(w, "No discussion has anything pending.")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		header := "DISCUSSION\tWAITING\tFIRES BY TIME AT"
		if rep.DryRun {
			header += "\tA SWEEP NOW"
		}
		fmt.Fprintln(tw, header)
		for _, d := range rep.Discussions {
			due := "— (only people can fire it)"
			if d.DueAt != nil {
				due = moment(*d.DueAt)
			}
			line := fmt.Sprintf("#%d\t%s\t%s", d.Discussion, d.Waiting, due)
			if rep.DryRun {
				line += "\t" + d.Sweep
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}
	if rep.DryRun {
		fmt.Fprintln(w, "\nWhat a real sweep now would write:")
		if len(rep.Would) == 0 {
			fmt.Fprintln(w, "  nothing")
		}
		for _, l := range rep.Would {
			fmt.Fprintf(w, "  - %s\n", l)
		}
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintln(w, "\nNeeds attention:")
		for _, l := range rep.Warnings {
			fmt.Fprintf(w, "  ! %s\n", l)
		}
	}
	if len(rep.Notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range rep.Notes {
			fmt.Fprintln(w, n)
		}
	}
}

func plainTexts(ss []string) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, PlainText(s))
	}
	return out
}

// moment shows a due moment to the second, rounded up: RECESS_NOW set to
// what is shown is never before it.
func moment(t time.Time) string {
	if r := t.Truncate(time.Second); !r.Equal(t) {
		t = r.Add(time.Second)
	}
	return t.UTC().Format(time.RFC3339)
}

// ParseFlags parses a subcommand's flags: -h and --help print its usage and
// flags on stdout (exit 0), a bad flag prints the error and the usage on
// stderr (exit 2). ok is false when the command should stop with code.
func ParseFlags(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(fs, usage, stdout)
		return exitOK, false
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		printUsage(fs, usage, stderr)
		return ExitRefused, false
	}
	return exitOK, true
}

// parseOnly parses a command's flags and prints nothing: a bad flag or an
// argument is an error that ends with what to do ("see recess eval -h"),
// flag.ErrHelp comes back as it is. given are the flags set in args.
func parseOnly(fs *flag.FlagSet, args []string, badFlag, badArgument string) (given map[string]bool, err error) {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%w (%s)", err, badFlag)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (%s)", fs.Arg(0), badArgument)
	}
	given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given, nil
}

// printUsage writes usage and the flags' defaults to w.
func printUsage(fs *flag.FlagSet, usage string, w io.Writer) {
	fmt.Fprint(w, usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
