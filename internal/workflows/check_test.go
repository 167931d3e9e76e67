package workflows_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/internal/action"
	"github.com/recess-action/recess/internal/workflows"
)

// known is what recess's code knows of its inputs and recess mcp's flags,
// as `recess check` hands it over, for a repository without a policy file.
var known = action.CheckKnown("testdata")

// setup is a repository's workflows by file name.
type setup map[string]string

// readSetup reads every workflow file in dir.
func readSetup(t *testing.T, dir string) setup {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.y*ml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("glob %s: %v, %d files", dir, err, len(files))
	}
	s := setup{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s[filepath.Base(f)] = string(data)
	}
	return s
}

// reusable is the quick start as `recess init` wrote it with every default
// before its sweep moved to a file of its own: a front door and an agent
// workflow calling recess's reusable workflows.
func reusable(t *testing.T) setup { return readSetup(t, "testdata/reusable") }

// sweepOnly is the setup for sweep-only-while-waiting: the front door, the
// sweep in a file of its own, and the agent workflow, whose claim and
// verdict get the switch too where their reusable workflows take it (as
// recess init hands every piece the front door's choices).
func sweepOnly(t *testing.T) setup {
	s := readSetup(t, "testdata/sweep-only")
	for _, piece := range []string{"claim", "verdict"} {
		data, err := os.ReadFile("../../.github/workflows/" + piece + ".yml")
		if err != nil {
			t.Fatal(err)
		}
		call := piece + ".yml@v1\n"
		if takes := regexp.MustCompile(`(?m)^      sweep-only-while-waiting:`).Match(data); takes && !strings.Contains(s["agent.yml"], call+"    with:") {
			s["agent.yml"] = strings.Replace(s["agent.yml"], call, call+"    with: {sweep-only-while-waiting: \"true\"}\n", 1)
		}
	}
	return s
}

// direct is the project's own front door and agent workflow, which run the
// action step by step.
func direct(t *testing.T) setup {
	s := readSetup(t, "../../.github/workflows")
	return setup{"recess.yml": s["recess.yml"], "agent.yml": s["agent.yml"]}
}

func (s setup) fs() fstest.MapFS {
	m := fstest.MapFS{}
	for name, text := range s {
		m[workflows.Dir+"/"+name] = &fstest.MapFile{Data: []byte(text)}
	}
	return m
}

func (s setup) clone() setup {
	c := setup{}
	for k, v := range s {
		c[k] = v
	}
	return c
}

func checkSetup(t *testing.T, fsys fstest.MapFS) []workflows.Finding {
	t.Helper()
	got, err := workflows.CheckRepo(fsys, known)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// asUser rewrites an example as its comments tell a user to: the published
// action for this repository's own (uses: ./) and a real owner for OWNER.
func asUser(text string) string {
	text = regexp.MustCompile(`(?m)^(\s*(?:- )?uses: )\./\s*$`).ReplaceAllString(text, "${1}recess-action/recess@v1")
	return strings.ReplaceAll(text, "OWNER/recess", "recess-action/recess")
}

// withExample puts an example into the quick start in place of the file
// that plays its part: an agent workflow for the agent workflow, a sweep
// for the sweep (added when the quick start sweeps from its front door).
func withExample(t *testing.T, example string) setup {
	s := readSetup(t, "../../testdata/quickstart")
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	text := asUser(string(data))
	switch {
	case strings.Contains(text, "correlation_id:"):
		s["agent.yml"] = text
	case strings.Contains(text, "schedule:") && !strings.Contains(text, "discussion_comment"):
		for name, other := range s {
			if strings.Contains(other, "schedule:") && !strings.Contains(other, "discussion_comment") {
				delete(s, name)
			}
		}
		s[filepath.Base(example)] = text
	default:
		t.Fatalf("%s: neither an agent workflow nor a sweep", example)
	}
	return s
}

// readmeCheckStep is the workflow the README shows for running recess
// check in CI: it runs the action only to put recess on PATH.
const readmeCheckStep = `# recess check on every change to the workflows or the policy file.
name: recess check
on:
  pull_request: {paths: [".github/workflows/**", ".github/recess.yml"]}
  push: {branches: [main], paths: [".github/workflows/**", ".github/recess.yml"]}
permissions: {contents: read}
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v6
        with: {persist-credentials: false}
      - {uses: recess-action/recess@v1, with: {command: install}} # recess on PATH
      - run: recess check
`

// Everything recess ships keeps every rule: its own workflows, the quick
// start, each example in the quick start's place, and the README's check
// step beside it. (recess init's output for every choice is checked in
// internal/action.)
func TestCheckRepo_shipped_setups_are_clean(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fs   func(t *testing.T) fstest.MapFS
	}{
		{name: "this_repository", fs: func(t *testing.T) fstest.MapFS {
			// Every file in .github/workflows (the direct front door and agent
			// workflow, the reusable ones, CI and the release) and the action
			// that uses: ./ runs.
			m := readSetup(t, "../../.github/workflows").fs()
			if len(m) < 5 {
				t.Fatalf("%d workflows", len(m))
			}
			data, err := os.ReadFile("../../action.yml")
			if err != nil {
				t.Fatal(err)
			}
			m["action.yml"] = &fstest.MapFile{Data: data}
			return m
		}},
		{name: "quick_start", fs: func(t *testing.T) fstest.MapFS { return readSetup(t, "../../testdata/quickstart").fs() }},
		{name: "direct", fs: func(t *testing.T) fstest.MapFS { return direct(t).fs() }},
		{name: "reusable", fs: func(t *testing.T) fstest.MapFS { return reusable(t).fs() }},
		{name: "sweep_only_while_waiting", fs: func(t *testing.T) fstest.MapFS { return sweepOnly(t).fs() }},
		{name: "readme_check_step", fs: func(t *testing.T) fstest.MapFS {
			s := readSetup(t, "../../testdata/quickstart")
			s["recess-check.yml"] = readmeCheckStep
			return s.fs()
		}},
	}
	examples, err := filepath.Glob("../../.github/examples/*.y*ml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("glob: %v, %d examples", err, len(examples))
	}
	for _, e := range examples {
		tests = append(tests, struct {
			name string
			fs   func(t *testing.T) fstest.MapFS
		}{name: "example_" + strings.TrimSuffix(filepath.Base(e), filepath.Ext(e)), fs: func(t *testing.T) fstest.MapFS { return withExample(t, e).fs() }})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, f := range checkSetup(t, tt.fs(t)) {
				t.Errorf("%s", f)
			}
		})
	}
}

// Each agent example has a lead: a job that runs the model, whatever its
// name, which the rules for leads then judge.
func TestCheckRepo_examples_have_a_lead(t *testing.T) {
	t.Parallel()
	examples, err := filepath.Glob("../../.github/examples/agent-*.y*ml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("glob: %v, %d examples", err, len(examples))
	}
	for _, e := range examples {
		s := withExample(t, e)
		// The lead renamed and given a write scope is caught as a lead.
		text := regexp.MustCompile(`(?m)^  lead:`).ReplaceAllString(s["agent.yml"], "  answer:")
		text = strings.ReplaceAll(text, "needs.lead.", "needs.answer.")
		text = strings.ReplaceAll(text, "needs: [claim, lead]", "needs: [claim, answer]")
		text = strings.Replace(text, "      discussions: read\n", "      discussions: write\n", 1)
		if text == s["agent.yml"] {
			t.Fatalf("%s: the edit changed nothing", e)
		}
		s["agent.yml"] = text
		got := checkSetup(t, s.fs())
		if len(got) != 1 || got[0].Rule != workflows.RuleLeadWrites || got[0].Job != "answer" {
			t.Errorf("%s with its lead renamed answer and discussions: write: %v, want one %s finding on job answer", e, got, workflows.RuleLeadWrites)
		}
	}
}

var ignoreText = cmpopts.IgnoreFields(workflows.Finding{}, "Message", "Fix")

// lineOf is the 1-based line of the only line containing sub.
func lineOf(t *testing.T, text, sub string) int {
	t.Helper()
	line := 0
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			if line != 0 {
				t.Fatalf("%q is on lines %d and %d", sub, line, i+1)
			}
			line = i + 1
		}
	}
	if line == 0 {
		t.Fatalf("no line contains %q", sub)
	}
	return line
}

// An alias reads as the node its anchor names: a verdict given the claim's
// grant lacks only what the claim does not need.
func TestCheckRepo_follows_aliases(t *testing.T) {
	t.Parallel()
	s := reusable(t)
	s["agent.yml"] = strings.NewReplacer(
		"claim.yml@v1\n    permissions: {discussions: write, contents: read}", "claim.yml@v1\n    permissions: &claim {discussions: write, contents: read}",
		"permissions: {discussions: write, actions: write, contents: read}", "permissions: *claim",
	).Replace(s["agent.yml"])
	got := checkSetup(t, s.fs())
	want := []workflows.Finding{{File: workflows.Dir + "/agent.yml", Line: lineOf(t, s["agent.yml"], "&claim"), Job: "verdict", Rule: workflows.RuleMissingPermission,
		Message: "job verdict lacks actions: write (job permissions)", Fix: "add actions: write to the job's permissions"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckRepo() (-want +got):\n%s", diff)
	}
}

func TestTopOfHour(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cron string
		want bool
	}{
		{"2-59/5 * * * *", false},
		{"*/5 * * * *", true},
		{"* * * * *", true},
		{"0 * * * *", true},
		{"00 * * * *", true},
		{"0,30 * * * *", true},
		{"30,0 * * * *", true},
		{"15,45 * * * *", false},
		{"0-59/10 * * * *", true},
		{"7 3 * * 1-5", false},
		{"", false},
		{"x * * * *", false},
	}
	for _, tt := range tests {
		if got := workflows.TopOfHour(tt.cron); got != tt.want {
			t.Errorf("TopOfHour(%q) = %v, want %v", tt.cron, got, tt.want)
		}
	}
}

func TestCheckCron(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cron string
		ok   bool
	}{
		{"2-59/5 * * * *", true},
		{"7-59/30 7-18 * * 1-5", true},
		{"0 12 1 JAN,jul SUN-SAT", true},
		{"5/15 * * * *", true},
		{"*/5 * * *", false},
		{"*/5 * * * * *", false},
		{"@hourly", false},
		{"", false},
		{"60 * * * *", false},
		{"* 24 * * *", false},
		{"* * 0 * *", false},
		{"* * * 13 *", false},
		{"* * * * 8", false},
		{"*/0 * * * *", false},
		{"*/x * * * *", false},
		{"1-x * * * *", false},
		{"MON * * * *", false},
		{"9-3 * * * *", false},
	}
	for _, tt := range tests {
		if err := workflows.CheckCron(tt.cron); (err == nil) != tt.ok {
			t.Errorf("CheckCron(%q) = %v, want ok %v", tt.cron, err, tt.ok)
		}
	}
}

// A workflow file is outside input: whatever it holds, the rules answer
// with findings, never a panic, and every finding names a line, a rule and
// a fix. The file sits beside the reusable quick start under the name its
// front door dispatches, so the setup's rules read it too.
func FuzzCheckRepo(f *testing.F) {
	for _, p := range []string{
		"testdata/reusable/agent.yml", "testdata/reusable/recess.yml", "testdata/sweep-only/recess-sweep.yml",
		"../../.github/workflows/recess.yml", "../../.github/workflows/agent.yml", "../../.github/workflows/front-door.yml",
		"../../.github/examples/agent-claude.yml", "../../.github/examples/agent-gemini.yml", "../../.github/examples/recess-sweep.yml",
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, seed := range []string{
		"on: push\njobs: {a: {permissions: write-all, steps: [{uses: ./, with: {command: claim}}]}}",
		"jobs: []",
		"on: {schedule: {cron: '0 * * *'}}\nconcurrency: {group: recess-${{ github.event.discussion.number }}, cancel-in-progress: true}\njobs: {a: {uses: o/recess/.github/workflows/front-door.yml@v1, with: {threads: 'issues,pull-requests', state-store: brnach}}}",
		"on: workflow_dispatch\njobs:\n  lead:\n    if: always() || needs.claim.outputs.stale != 'true'\n    steps:\n      - run: |\n          claude -p x --mcp-config '{\"mcpServers\":{\"recess\":{\"command\":\"recess\",\"args\":[\"mcp\",\"--verdikt-file\",\"x\"]}}}'\n",
		"on: pull_request_target\njobs: {a: {steps: [{uses: actions/checkout@v6, with: {ref: '${{ github.event.pull_request.head.sha }}'}}, {uses: ./, with: {workflw: x}}]}}",
		"on: [discussion, discussion_comment]\njobs: {a: {concurrency: {group: 'recess-${{ github.event.discussion.node_id }}', queue: max}, steps: [{uses: ./}, {run: 'recess mcp \\\n --x 1'}]}}",
	} {
		f.Add([]byte(seed))
	}
	base := reusable(&testing.T{})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := base.clone()
		s["agent.yml"] = string(data)
		got, err := workflows.CheckRepo(s.fs(), known)
		if err != nil {
			t.Fatal(err)
		}
		for _, finding := range got {
			if finding.Line < 1 || finding.Rule == "" || finding.Message == "" || finding.Fix == "" {
				t.Errorf("finding without a line, rule, message or fix: %+v", finding)
			}
		}
	})
}

// copyTo finds "Copy it to .github/workflows/NAME.yml" in a block's first
// lines (the comment may wrap).
var copyTo = regexp.MustCompile(`Copy it to[\s#]*\.github/workflows/([a-z-]+\.yml)`)

// The step-by-step workflows the README and docs show (the blocks that say
// "Copy it to .github/workflows/NAME.yml") are, page by page, a setup that
// keeps every rule.
func TestCheckRepo_documented_step_by_step_is_clean(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, page := range append([]string{"../../README.md"}, pages...) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		s := setup{}
		for _, block := range strings.Split(string(data), "```yaml\n")[1:] {
			end := strings.Index(block, "```")
			if end < 0 {
				t.Fatalf("%s: a yaml block is not closed", page)
			}
			var lines []string
			for _, l := range strings.Split(block[:end], "\n") {
				lines = append(lines, strings.TrimPrefix(l, "   "))
			}
			head := strings.Join(lines[:min(5, len(lines))], "\n")
			if m := copyTo.FindStringSubmatch(head); m != nil {
				if _, dup := s[m[1]]; dup {
					t.Fatalf("%s has two blocks for %s", page, m[1])
				}
				s[m[1]] = strings.Join(lines, "\n")
			}
		}
		if len(s) == 0 {
			continue
		}
		found++
		for _, f := range checkSetup(t, s.fs()) {
			t.Errorf("%s: %s", filepath.Base(page), f)
		}
	}
	if found == 0 {
		t.Fatal("neither the README nor docs/ show a step-by-step setup")
	}
}

func TestSweepsPerDay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cron     string
		n        int
		everyDay bool
		err      string
	}{
		{cron: "2-59/5 * * * *", n: 288, everyDay: true},
		{cron: "*/10 * * * *", n: 144, everyDay: true},
		{cron: "2 * * * *", n: 24, everyDay: true},
		{cron: "7,37 7-18 * * 1-5", n: 24},
		{cron: "7,37 7-18 * * MON-FRI", n: 24},
		{cron: "5/20 0-23/2 * * *", n: 36, everyDay: true},
		{cron: "2 1,1,1 * * *", n: 1, everyDay: true},
		{cron: "2 3 1 * *", n: 1},
		{cron: "x * * * *", err: `the minute field "x" is not a value from 0 to 59, a range, a list or *`},
		{cron: "2 24 * * *", err: `the hour field "24" is not a value from 0 to 23, a range, a list or *`},
		{cron: "*/0 * * * *", err: `the minute field "*/0" has a step that is not a positive number`},
		{cron: "9-3 * * * *", err: `the minute field "9-3" has a range that runs backwards`},
		{cron: "2 * * *", err: "4 fields, not five (minute hour day-of-month month day-of-week)"},
	}
	for _, tt := range tests {
		n, everyDay, err := workflows.SweepsPerDay(tt.cron)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if n != tt.n || everyDay != tt.everyDay || gotErr != tt.err {
			t.Errorf("SweepsPerDay(%q) = %d, %v, %q; want %d, %v, %q", tt.cron, n, everyDay, gotErr, tt.n, tt.everyDay, tt.err)
		}
	}
}
