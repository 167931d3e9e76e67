package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"

	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/internal/workflows"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

const initUsage = `usage: recess init [flags]

init writes recess's workflow files into the repository in the current
directory (or --dir): .github/workflows/recess.yml, the front door;
recess-sweep.yml, the sweep, which recess keeps enabled only while something
waits, so the setup costs nothing while nothing does; and the agent workflow
(agent.yml), whose lead is Claude Code with recess mcp as its tool. They call
recess's reusable workflows; your choices are the flags (--threads
discussions,issues,pull-requests serves issues and pull requests too: they
wake on mention, so give --mention-handles). It asks nothing and overwrites
nothing without --force. Afterwards enable Discussions (when served), add
the repository secret ANTHROPIC_API_KEY, and run "recess check".

Flags:
`

// initChoices are what a user decides about a setup; everything else lives
// in recess's reusable workflows.
type initChoices struct {
	Workflow       string // the agent workflow's file name
	Store          string // comment or branch
	Threads        string // input threads, as given
	Categories     string
	Labels         string
	Schedule       string // the sweep's cron
	WakeOn         string
	MentionHandles string
	// SweepApart is sweep-only-while-waiting: the sweep in a file of its
	// own (defaultSweepWorkflow), enabled only while something waits.
	SweepApart bool
}

func defaultInitChoices() initChoices {
	return initChoices{Workflow: gh.DefaultWorkflow, Store: storeComment, Schedule: defaultSchedule, SweepApart: true}
}

var workflowFileName = regexp.MustCompile(`^[A-Za-z0-9_.-]+\.ya?ml$`)

// check refuses a choice the files could not keep, naming the flag.
func (c initChoices) check() error {
	if err := checkStore("--"+inStateStore, c.Store); err != nil {
		return err
	}
	switch {
	case !workflowFileName.MatchString(c.Workflow):
		return fmt.Errorf("--workflow %q is not a workflow file name (NAME.yml)", c.Workflow)
	case c.Workflow == frontDoorFile:
		return fmt.Errorf("--workflow %s is the front door's file; name the agent workflow otherwise", frontDoorFile)
	case c.SweepApart && c.Workflow == defaultSweepWorkflow:
		return fmt.Errorf("--workflow %s is the sweep's file; name the agent workflow otherwise", defaultSweepWorkflow)
	case workflows.TopOfHour(c.Schedule):
		return fmt.Errorf("--schedule %q runs at the top of the hour, when GitHub's scheduler is busiest: start off the hour, e.g. %s", c.Schedule, defaultSchedule)
	}
	if err := workflows.CheckCron(c.Schedule); err != nil {
		return fmt.Errorf("--schedule %q: %w", c.Schedule, err)
	}
	if _, err := workflows.ParseThreads("--"+inThreads, c.Threads); err != nil {
		return err
	}
	wake, err := resume.ParseWakeOn(c.WakeOn) // "": each kind's own default
	if err != nil {
		return fmt.Errorf("--%w", err) // the flag is the input's name
	}
	// A handle nothing listens for is a slip.
	listens, err := mentionHeard(c.served(), wake, c.MentionHandles != "", "--"+inMentionHandles)
	if err == nil && !listens && c.MentionHandles != "" {
		err = fmt.Errorf("--%s is only for --%s mention", inMentionHandles, inWakeOn)
	}
	return err
}

// served are the kinds of thread the setup serves: discussions unless
// --threads names others (check refused an item that names none).
func (c initChoices) served() []state.Kind {
	if kinds, _ := workflows.ParseThreads("--"+inThreads, c.Threads); len(kinds) > 0 {
		return kinds
	}
	return []state.Kind{state.KindDiscussion}
}

// frontDoorFile is the front door's file name; the sweep's, when it lives
// apart, is defaultSweepWorkflow.
const frontDoorFile = "recess.yml"

// plainScalar is a value YAML reads as the same string without quotes,
// unless it is one of yamlWords.
var plainScalar = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_./-]*$`)

// yamlWords are plain scalars a YAML reader may take for a boolean or null
// (YAML 1.1 included), so a string input says them quoted.
var yamlWords = []string{"true", "false", "yes", "no", "y", "n", "on", "off", "null"}

// flow renders inputs as a YAML flow mapping, {k: v, ...}, in the given
// order, leaving out empty values; "" when all are empty.
func flow(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			continue
		}
		v := kv[i+1]
		if !plainScalar.MatchString(v) || slices.Contains(yamlWords, strings.ToLower(v)) {
			b, _ := json.Marshal(v) // a JSON string is a YAML double-quoted scalar
			v = string(b)
		}
		parts = append(parts, kv[i]+": "+v)
	}
	if len(parts) == 0 {
		return ""
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

var initTemplates = template.Must(template.New("").Parse(`
{{- define "with" -}}
{{- with .With}}
    with: {{.}}
{{- end}}
{{- end}}
{{- define "front door job" -}}
permissions: {{index .Grant "front-door"}}
jobs:
  recess:
    uses: recess-action/recess/.github/workflows/front-door.yml@v1
{{- template "with" .}}
{{end}}
{{- define "recess.yml" -}}
# recess front door: watches {{.Watches}}{{if .SweepApart}} and starts agent runs{{else}}, starts agent runs and sweeps{{end}} (recess-action/recess).
name: recess
on:
{{- range .On}}
  {{.}}
{{- end}}
{{- if not .SweepApart}}
  schedule: [{cron: "{{.Schedule}}"}] # the sweep, off the top of the hour
  workflow_dispatch: # a sweep by hand
{{- end}}
{{template "front door job" .}}
{{- end}}
{{- define "recess-sweep.yml" -}}
# recess sweep: fires timed triggers, retries; recess enables it only while something waits.
name: recess sweep
on:
  schedule: [{cron: "{{.Schedule}}"}] # off the top of the hour
  workflow_dispatch: # a sweep by hand
{{template "front door job" .}}
{{- end}}
{{- define "agent.yml" -}}
# The agent workflow recess dispatches: claim, lead (Claude, read-only token), verdict.
run-name: agent ${{"{{"}} inputs.correlation_id {{"}}"}} # recess finds its runs by this name
on:
  workflow_dispatch:
    inputs:
      correlation_id: {type: string, required: true}
      discussion_number: {type: string, required: true}
      resume_context: {type: string, default: ""}
jobs:
  claim:
    uses: recess-action/recess/.github/workflows/claim.yml@v1
{{- template "with" .}}
    permissions: {{.Grant.claim}}
  lead:
    needs: claim
    if: needs.claim.outputs.stale == 'false'
    runs-on: ubuntu-latest
    permissions: {{.Grant.lead}}
    steps:
      - {uses: recess-action/recess@v1, with: {command: install}} # recess on PATH
      - uses: anthropics/claude-code-action@v1
        with:
          anthropic_api_key: ${{"{{"}} secrets.ANTHROPIC_API_KEY {{"}}"}}
          github_token: ${{"{{"}} github.token {{"}}"}}
          allowed_bots: github-actions
          prompt: "Lead the answer to {{.Noun}} #${{"{{"}} inputs.discussion_number {{"}}"}}: read it with the recess tools, then reply and adjourn, or ask and recess until people answer. ${{"{{"}} needs.claim.outputs.prompt {{"}}"}}"
          claude_args: --allowedTools mcp__recess --mcp-config '{"mcpServers":{"recess":{"command":"recess","args":["mcp","--verdict-file","${{"{{"}} runner.temp {{"}}"}}/verdict.json","--resume-context-file","${{"{{"}} runner.temp {{"}}"}}/recess-resume-context.json","--correlation-id","${{"{{"}} inputs.correlation_id {{"}}"}}","--discussion","${{"{{"}} inputs.discussion_number {{"}}"}}","--token","${{"{{"}} github.token {{"}}"}}","--repo","${{"{{"}} github.repository {{"}}"}}"{{with .LeadThreads}},"--threads","{{.}}"{{end}}]}}}'
      - {uses: actions/upload-artifact@v4, with: {name: recess-verdict, path: "${{"{{"}} runner.temp {{"}}"}}/verdict.json", retention-days: 1}}
  verdict:
    needs: [claim, lead]
    uses: recess-action/recess/.github/workflows/verdict.yml@v1
{{- template "with" .}}
    permissions: {{.Grant.verdict}}
{{end}}`))

// initFile is one file init writes: its path under the repository and its
// text.
type initFile struct {
	Path string
	Text string
}

// render returns the files for these choices: the front door, the sweep's
// own file when it lives apart, the agent workflow.
func (c initChoices) render() ([]initFile, error) {
	data := struct {
		initChoices
		// With is what every reusable workflow is called with: the same
		// choices for the front door, the sweep, claim and verdict, those
		// that differ from the defaults.
		With string
		// On is the front door's thread events, as check asks for them.
		On []string
		// Grant is each piece's permissions, as check asks for them.
		Grant map[string]string
		// Watches and Noun name what the setup serves, for people.
		Watches, Noun string
		// LeadThreads is recess mcp's --threads, where more than
		// discussions are served: a first run's read_thread then reads
		// its number as the kind served (any of them, when more than
		// one), and only as those.
		LeadThreads string
	}{initChoices: c, Grant: map[string]string{}}
	kinds := c.served()
	served := workflows.ThreadsValuesOf(kinds)
	data.On = workflows.FrontDoorOn(served...)
	for _, piece := range []string{"front-door", "claim", "verdict", "lead"} {
		data.Grant[piece] = workflows.Grant(piece, served, c.Store == storeBranch)
	}
	watches := strings.ReplaceAll(strings.Join(served, ", "), "-", " ")
	if i := strings.LastIndex(watches, ", "); i >= 0 {
		watches = watches[:i] + " and " + watches[i+2:]
	}
	data.Watches = watches
	data.Noun = "thread"
	if len(kinds) == 1 {
		data.Noun = resume.Noun(kinds[0])
	}
	threads := strings.Join(served, ", ")
	if resume.UnknownKind(kinds) != "" {
		data.LeadThreads = strings.Join(served, ",")
	}
	// orUnset is v, or "" (left out) when it is action.yml's default.
	orUnset := func(v, def string) string {
		if v == def {
			return ""
		}
		return v
	}
	data.With = flow(inWorkflow, orUnset(c.Workflow, gh.DefaultWorkflow), inStateStore, orUnset(c.Store, storeComment),
		inThreads, orUnset(threads, workflows.ThreadsValue(state.KindDiscussion)), inCategories, c.Categories, inLabels, c.Labels, inWakeOn, c.WakeOn, inMentionHandles, c.MentionHandles,
		inSweepOnlyWhileWaiting, orUnset(strconv.FormatBool(c.SweepApart), "false"))
	names := []struct{ tmpl, name string }{{"recess.yml", frontDoorFile}, {"recess-sweep.yml", defaultSweepWorkflow}, {"agent.yml", c.Workflow}}
	if !c.SweepApart {
		names = slices.Delete(names, 1, 2)
	}
	var files []initFile
	for _, f := range names {
		var b bytes.Buffer
		if err := initTemplates.ExecuteTemplate(&b, f.tmpl, data); err != nil {
			return nil, err
		}
		files = append(files, initFile{Path: filepath.ToSlash(filepath.Join(workflows.Dir, f.name)), Text: b.String()})
	}
	return files, nil
}

// runInit is `recess init`.
func runInit(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recess init", flag.ContinueOnError)
	c := defaultInitChoices()
	dir := fs.String("dir", ".", "the repository's root")
	force := fs.Bool("force", false, "overwrite files that exist")
	fs.StringVar(&c.Workflow, "workflow", c.Workflow, "the agent workflow's file name")
	fs.StringVar(&c.Store, inStateStore, c.Store, "where recess keeps records: "+storeComment+" or "+storeBranch+" (branch grants contents: write)")
	fs.StringVar(&c.Threads, inThreads, "", "the kinds of thread recess serves, comma separated: "+strings.Join(threadKinds, ", ")+" (default discussions; issues and pull requests wake on mention unless --wake-on says otherwise)")
	fs.StringVar(&c.Categories, inCategories, "", "discussion categories recess serves, by name or slug, comma separated (default all)")
	fs.StringVar(&c.Labels, inLabels, "", "serve only discussions with one of these labels, comma separated (default no filter)")
	fs.StringVar(&c.Schedule, "schedule", c.Schedule, "the sweep's cron, off the top of the hour")
	fs.StringVar(&c.WakeOn, inWakeOn, "", fmt.Sprintf("what starts a fresh run: %s or %s (default %s)",
		strings.Join(resume.WakeOns[:len(resume.WakeOns)-1], ", "), resume.WakeOns[len(resume.WakeOns)-1], resume.WakeComment))
	fs.StringVar(&c.MentionHandles, inMentionHandles, "", "the handles --wake-on mention listens for, e.g. @lead")
	fs.BoolVar(&c.SweepApart, inSweepOnlyWhileWaiting, c.SweepApart, "keep the sweep in "+defaultSweepWorkflow+", enabled only while something waits (=false: in the front door, always on)")
	say := func(code int, err error) int {
		fmt.Fprintf(stderr, "recess init: %v\n", err)
		return code
	}
	if code, ok := ParseFlags(fs, args, initUsage, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return say(ExitRefused, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	c.Store = strings.ToLower(c.Store)
	if err := c.check(); err != nil {
		return say(ExitRefused, err)
	}
	files, err := c.render()
	if err != nil {
		return say(exitFailed, err)
	}
	// Refuse before writing anything, so a refusal leaves the repository as it was.
	if !*force {
		for _, f := range files {
			_, err := os.Stat(filepath.Join(*dir, f.Path))
			if err == nil {
				return say(ExitRefused, fmt.Errorf("%s exists; --force overwrites it", f.Path))
			}
			if !errors.Is(err, os.ErrNotExist) {
				return say(ExitRefused, err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(*dir, workflows.Dir), 0o755); err != nil {
		return say(exitFailed, err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(*dir, f.Path), []byte(f.Text), 0o644); err != nil {
			return say(exitFailed, err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", f.Path)
	}
	fmt.Fprintln(stdout, c.cost())
	next := `add the repository secret ANTHROPIC_API_KEY, commit the files, and run "recess check"`
	if slices.Contains(c.served(), state.KindDiscussion) {
		next = "Discussions must be enabled (Settings > General > Features > Discussions); " + next
	}
	fmt.Fprintln(stdout, "next: "+next)
	return exitOK
}

// cost says what the setup costs: in a private repository GitHub bills
// each job rounded up to a whole minute (SPEC.md "Cost"), and the sweep is
// the part that runs whether or not people write.
func (c initChoices) cost() string {
	n, everyDay, _ := workflows.SweepsPerDay(c.Schedule) // check refused what it cannot read
	runs, billed := fmt.Sprintf("%d times a day", n), fmt.Sprintf("%d minutes a day", n)
	if !everyDay {
		runs += " on the days its schedule names"
	} else if !c.SweepApart {
		billed = thousands(30*n) + " minutes in 30 days"
	}
	const private = "in a private repository, where GitHub bills each job at least a minute"
	const free = "(GitHub Free includes 2,000 a month)"
	rest := "On top, one job per discussion event and three per agent run; a public repository pays for none of it."
	if !slices.Equal(c.served(), []state.Kind{state.KindDiscussion}) {
		rest = "On top, one job per thread event (per comment on an issue or a pull request only when it can matter: on a waiting thread, holding /recess or a mention handle, or any with --wake-on comment) and three per agent run; a public repository pays for none of it."
	}
	if c.SweepApart {
		return fmt.Sprintf("cost: the sweep (%s) costs nothing while nothing waits; while a recess waits or an agent run works, it runs %s: %s, %s %s. %s",
			defaultSweepWorkflow, runs, private, billed, free, rest)
	}
	return fmt.Sprintf("cost: the sweep runs %s, whether or not anything waits: %s, %s %s; --%s (the default) runs it only while something waits. %s",
		runs, private, billed, free, inSweepOnlyWhileWaiting, rest)
}

// thousands writes n with a comma every three digits, as the README's
// figures are written.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
