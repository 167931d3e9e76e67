package workflows

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// setup is a repository's workflows by file name.
type setup map[string]string

func readSetup(t *testing.T, files map[string]string) setup {
	t.Helper()
	s := setup{}
	for name, from := range files {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		s[name] = string(data)
	}
	return s
}

// quickStart is the README's quick start: the reusable workflows called
// from three short files (the front door, the sweep, the agent workflow).
func quickStart(t *testing.T) setup {
	return readSetup(t, map[string]string{
		"recess.yml":       "../../testdata/quickstart/recess.yml",
		"recess-sweep.yml": "../../testdata/quickstart/recess-sweep.yml",
		"agent.yml":        "../../testdata/quickstart/agent.yml",
	})
}

// direct is the project's own front door and agent workflow, which run the
// action step by step.
func direct(t *testing.T) setup {
	return readSetup(t, map[string]string{
		"recess.yml": "../../.github/workflows/recess.yml",
		"agent.yml":  "../../.github/workflows/agent.yml",
	})
}

func (s setup) fs() fstest.MapFS {
	m := fstest.MapFS{}
	for name, text := range s {
		m[Dir+"/"+name] = &fstest.MapFile{Data: []byte(text)}
	}
	return m
}

var ignoreText = cmpopts.IgnoreFields(Finding{}, "Message", "Fix")

func TestCheckRepo_shipped_setups_are_clean(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fs   func(t *testing.T) fstest.MapFS
	}{
		{name: "this_repository", fs: func(t *testing.T) fstest.MapFS {
			// Every file in .github/workflows: the direct front door and agent
			// workflow, the reusable ones, CI and the release.
			m := fstest.MapFS{}
			files, err := filepath.Glob("../../.github/workflows/*.y*ml")
			if err != nil || len(files) < 5 {
				t.Fatalf("glob: %v, %d files", err, len(files))
			}
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				m[Dir+"/"+filepath.Base(f)] = &fstest.MapFile{Data: data}
			}
			return m
		}},
		{name: "quick_start", fs: func(t *testing.T) fstest.MapFS { return quickStart(t).fs() }},
		{name: "direct", fs: func(t *testing.T) fstest.MapFS { return direct(t).fs() }},
		{name: "claude_example", fs: func(t *testing.T) fstest.MapFS {
			s := direct(t)
			s["agent.yml"] = readSetup(t, map[string]string{"a": "../../.github/examples/agent-claude.yml"})["a"]
			return s.fs()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := CheckRepo(tt.fs(t))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range got {
				t.Errorf("%s", f)
			}
		})
	}
}

// Every example file under .github/examples keeps the rules a file decides
// alone (among them: the model never runs beside a token that can write,
// and a job that writes a record runs in the discussion's concurrency
// group), and each agent example (agent-*.yml) has a lead job.
func TestCheck_examples_are_clean(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../.github/examples/*.y*ml")
	if err != nil || len(files) == 0 {
		t.Fatalf("glob: %v, %d files", err, len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parsed, bad := parseFile(filepath.Base(f), data)
		if bad != nil {
			t.Fatalf("%s", bad)
		}
		var r report
		r.check(parsed)
		for _, finding := range r {
			t.Errorf("%s", finding)
		}
		agent := strings.HasPrefix(filepath.Base(f), "agent-")
		if agent && !slices.ContainsFunc(parsed.jobs, func(j *job) bool { return j.role.lead }) {
			t.Errorf("%s: no lead job (one that runs the agent)", filepath.Base(f))
		}
	}
}

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

// A broken copy of a clean setup yields exactly its one finding.
func TestCheckRepo_finds_each_broken_setup(t *testing.T) {
	t.Parallel()
	type want struct {
		file, job string
		rule      Rule
		at        string // a text unique in the broken file that ends on the finding's line
	}
	tests := []struct {
		name     string
		base     func(t *testing.T) setup
		file     string
		old, new string // old must occur exactly once in file
		want     []want
	}{
		{
			name: "lead_with_a_write_scope", base: quickStart, file: "agent.yml",
			old: "permissions: {discussions: read}", new: "permissions: {discussions: write}",
			want: []want{{file: "agent.yml", job: "lead", rule: RuleLeadWrites, at: "runs-on: ubuntu-latest\n    permissions: {discussions: write}"}},
		},
		{
			name: "lead_with_write_all", base: direct, file: "agent.yml",
			old: "      contents: read\n      discussions: read\n", new: "      contents: read\n      discussions: read\n      id-token: write\n",
			want: []want{{file: "agent.yml", job: "lead", rule: RuleLeadWrites, at: "id-token: write"}},
		},
		{
			name: "lead_without_permissions", base: quickStart, file: "agent.yml",
			old: "    permissions: {discussions: read}\n", new: "",
			want: []want{{file: "agent.yml", job: "lead", rule: RuleLeadWrites, at: "  lead:"}},
		},
		{
			name: "claim_without_permissions", base: quickStart, file: "agent.yml",
			old: "claim.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n    permissions: {discussions: write, contents: read}\n", new: "claim.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n",
			want: []want{{file: "agent.yml", job: "claim", rule: RuleMissingPermission, at: "  claim:"}},
		},
		{
			// Without contents: read the claim cannot read the policy file.
			name: "claim_without_contents_read", base: quickStart, file: "agent.yml",
			old: "claim.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n    permissions: {discussions: write, contents: read}", new: "claim.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n    permissions: {discussions: write}",
			want: []want{{file: "agent.yml", job: "claim", rule: RuleMissingPermission, at: "claim.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n    permissions: {discussions: write}"}},
		},
		{
			name: "verdict_without_actions_write", base: quickStart, file: "agent.yml",
			old: "permissions: {discussions: write, actions: write, contents: read}", new: "permissions: {discussions: write, contents: read}",
			want: []want{{file: "agent.yml", job: "verdict", rule: RuleMissingPermission, at: "verdict.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n    permissions: {discussions: write, contents: read}"}},
		},
		{
			name: "front_door_without_actions_write", base: quickStart, file: "recess.yml",
			old: "actions: write, ", new: "",
			want: []want{{file: "recess.yml", job: "recess", rule: RuleMissingPermission, at: "permissions:"}},
		},
		{
			name: "branch_store_without_contents_write", base: quickStart, file: "recess.yml",
			old: "with: {", new: "with: {state-store: branch, ",
			want: []want{{file: "recess.yml", job: "recess", rule: RuleMissingPermission, at: "permissions:"}},
		},
		{
			name: "front_door_with_a_write_it_does_not_need", base: quickStart, file: "recess.yml",
			old: "contents: read}", new: "contents: read, pull-requests: write}",
			want: []want{{file: "recess.yml", rule: RuleExcessPermission, at: "pull-requests: write"}},
		},
		{
			name: "claim_with_actions_write", base: quickStart, file: "agent.yml",
			old: "claim.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n    permissions: {discussions: write, contents: read}", new: "claim.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n    permissions: {discussions: write, contents: read, actions: write}",
			want: []want{{file: "agent.yml", job: "claim", rule: RuleExcessPermission, at: "claim.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n    permissions: {discussions: write, contents: read, actions: write}"}},
		},
		{
			name: "front_door_with_write_all", base: quickStart, file: "recess.yml",
			old: "permissions: {discussions: write, actions: write, issues: write, contents: read}", new: "permissions: write-all",
			want: []want{{file: "recess.yml", rule: RuleExcessPermission, at: "permissions: write-all"}},
		},
		{
			name: "agent_workflow_without_resume_context", base: quickStart, file: "agent.yml",
			old: "      resume_context: {type: string, default: \"\"}\n", new: "",
			want: []want{{file: "agent.yml", rule: RuleAgentInputs, at: "    inputs:"}},
		},
		{
			name: "agent_workflow_not_dispatchable", base: direct, file: "agent.yml",
			old: "  workflow_dispatch:\n", new: "  workflow_call:\n",
			want: []want{{file: "agent.yml", rule: RuleAgentInputs, at: "\non:"}},
		},
		{
			name: "agent_run_name_without_the_correlation_id", base: quickStart, file: "agent.yml",
			old: "run-name: agent ${{ inputs.correlation_id }}", new: "run-name: agent",
			want: []want{{file: "agent.yml", rule: RuleAgentRunName, at: "run-name: agent"}},
		},
		{
			name: "agent_workflow_without_verdict", base: quickStart, file: "agent.yml",
			old: "  verdict:\n    needs: [claim, lead]\n    uses: recess-action/recess/.github/workflows/verdict.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n    permissions: {discussions: write, actions: write, contents: read}\n", new: "",
			want: []want{{file: "agent.yml", rule: RuleAgentJobs, at: "run-name"}},
		},
		{
			name: "workflow_input_naming_no_file", base: quickStart, file: "recess.yml",
			old: "with: {", new: "with: {workflow: lead.yml, ",
			want: []want{{file: "recess.yml", rule: RuleWorkflowMissing, at: "lead.yml"}},
		},
		{
			name: "direct_front_door_naming_no_file", base: direct, file: "recess.yml",
			old: "        uses: ./\n        # Every", new: "        uses: ./\n        with: {workflow: answer.yml}\n        # Every",
			want: []want{{file: "recess.yml", rule: RuleWorkflowMissing, at: "answer.yml"}},
		},
		{
			name: "verdict_dispatching_another_workflow", base: quickStart, file: "agent.yml",
			old: "verdict.yml@v1\n    with: {", new: "verdict.yml@v1\n    with: {workflow: lead.yml, ",
			want: []want{{file: "agent.yml", job: "verdict", rule: RuleVerdictWorkflow, at: "with: {workflow: lead.yml"}},
		},
		{
			name: "schedule_on_the_top_of_the_hour", base: quickStart, file: "recess-sweep.yml",
			old: `"2-59/5 * * * *"`, new: `"*/5 * * * *"`,
			want: []want{{file: "recess-sweep.yml", rule: RuleTopOfHour, at: "cron:"}},
		},
		{
			name: "no_sweep", base: quickStart, file: "recess-sweep.yml",
			old: "  schedule: [{cron: \"2-59/5 * * * *\"}] # off the top of the hour\n", new: "",
			want: []want{{file: "recess.yml", rule: RuleNoSweep, at: "\non:"}},
		},
		{
			name: "claim_outside_the_group", base: direct, file: "agent.yml",
			old: "    # One writer per discussion: queue behind any other recess run on it, cancel nothing.\n    concurrency:\n      group: recess-${{ inputs.discussion_number }}\n      cancel-in-progress: false\n      queue: max\n", new: "",
			want: []want{{file: "agent.yml", job: "claim", rule: RuleWriterGroup, at: "  claim:"}},
		},
		{
			name: "verdict_without_queue_max", base: direct, file: "agent.yml",
			old: "      queue: max\n    permissions:\n      discussions: write # replies", new: "    permissions:\n      discussions: write # replies",
			want: []want{{file: "agent.yml", job: "verdict", rule: RuleWriterQueue, at: "timeout-minutes: 10\n    concurrency:\n      group: recess-${{ inputs.discussion_number }}"}},
		},
		{
			name: "event_job_in_a_group_named_by_the_workflow", base: direct, file: "recess.yml",
			old: "group: recess-${{ github.event.discussion.number }}", new: "group: recess-${{ github.workflow }}",
			want: []want{{file: "recess.yml", job: "event", rule: RuleWriterGroup, at: "github.workflow"}},
		},
		{
			name: "visit_cancelled_in_progress", base: direct, file: "recess.yml",
			old: "      group: recess-${{ matrix.discussion }}\n      cancel-in-progress: false", new: "      group: recess-${{ matrix.discussion }}\n      cancel-in-progress: true",
			want: []want{{file: "recess.yml", job: "visit", rule: RuleWriterCancel, at: "cancel-in-progress: true"}},
		},
		{
			name: "agent_beside_a_writer", base: direct, file: "agent.yml",
			old: "      - uses: ./\n        with:\n          command: install\n", new: "      - uses: ./\n        with:\n          command: claim\n",
			want: []want{{file: "agent.yml", job: "lead", rule: RuleLeadBesideWriter, at: "  lead:"},
				// and, writing, it is outside the discussion's group
				{file: "agent.yml", job: "lead", rule: RuleWriterGroup, at: "  lead:"}},
		},
		{
			name: "event_text_in_a_shell", base: direct, file: "agent.yml",
			old: "          go run ./cmd/recess-lab mcp-script\n", new: "          go run ./cmd/recess-lab mcp-script # ${{ inputs.discussion_number }}\n",
			want: []want{{file: "agent.yml", job: "lead", rule: RuleExpressionInRun, at: "        run: |"}},
		},
		{
			name: "key_given_twice", base: quickStart, file: "agent.yml",
			old: "permissions: {discussions: read}", new: "permissions: {discussions: read, discussions: write}",
			want: []want{{file: "agent.yml", rule: RuleUnreadable, at: "discussions: read, discussions: write}"}},
		},
		{
			name: "unreadable_agent_workflow", base: quickStart, file: "agent.yml",
			old: "jobs:\n", new: "jobs: [\n",
			want: []want{{file: "agent.yml", rule: RuleUnreadable}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.base(t)
			if n := strings.Count(s[tt.file], tt.old); n != 1 {
				t.Fatalf("%q occurs %d times in %s, want once", tt.old, n, tt.file)
			}
			s[tt.file] = strings.Replace(s[tt.file], tt.old, tt.new, 1)
			got, err := CheckRepo(s.fs())
			if err != nil {
				t.Fatal(err)
			}
			var want []Finding
			for i, w := range tt.want {
				line := 0
				if w.at != "" {
					text := s[w.file]
					i := strings.Index(text, w.at)
					if i < 0 || strings.Contains(text[i+1:], w.at) {
						t.Fatalf("%q is not unique in the broken %s", w.at, w.file)
					}
					line = strings.Count(text[:i+len(w.at)-1], "\n") + 1
				} else if i < len(got) {
					line = got[i].Line // a YAML error's line is YAML's
				}
				want = append(want, Finding{File: Dir + "/" + w.file, Line: line, Job: w.job, Rule: w.rule})
			}
			if diff := cmp.Diff(want, got, ignoreText); diff != "" {
				t.Errorf("CheckRepo() (-want +got):\n%s\nall: %v", diff, got)
			}
			for _, f := range got {
				if f.Message == "" || f.Fix == "" {
					t.Errorf("finding %+v has no message or no fix", f)
				}
			}
		})
	}
}

// An alias reads as the node its anchor names: a verdict given the claim's
// grant lacks only what the claim does not need.
func TestCheckRepo_follows_aliases(t *testing.T) {
	t.Parallel()
	s := quickStart(t)
	s["agent.yml"] = strings.NewReplacer(
		"claim.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n    permissions: {discussions: write, contents: read}", "claim.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n    permissions: &claim {discussions: write, contents: read}",
		"permissions: {discussions: write, actions: write, contents: read}", "permissions: *claim",
	).Replace(s["agent.yml"])
	got, err := CheckRepo(s.fs())
	if err != nil {
		t.Fatal(err)
	}
	want := []Finding{{File: Dir + "/agent.yml", Line: lineOf(t, s["agent.yml"], "&claim"), Job: "verdict", Rule: RuleMissingPermission,
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
		{"0,30 * * * *", true},
		{"30,0 * * * *", true},
		{"15,45 * * * *", false},
		{"0-59/10 * * * *", true},
		{"7 3 * * 1-5", false},
		{"", false},
		{"x * * * *", false},
	}
	for _, tt := range tests {
		if got := TopOfHour(tt.cron); got != tt.want {
			t.Errorf("TopOfHour(%q) = %v, want %v", tt.cron, got, tt.want)
		}
	}
}

// A workflow file is outside input: whatever it holds, the rules answer
// with findings, never a panic, and every finding names a line. The file
// is the repository's only workflow, under the name a front door
// dispatches by default, so the setup's rules read it too.
func FuzzCheckRepo(f *testing.F) {
	for _, p := range []string{"../../testdata/quickstart/agent.yml", "../../testdata/quickstart/recess.yml", "../../.github/workflows/recess.yml", "../../.github/workflows/agent.yml"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("on: push\njobs: {a: {permissions: write-all, steps: [{uses: ./, with: {command: claim}}]}}"))
	f.Add([]byte("jobs: []"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := CheckRepo(fstest.MapFS{Dir + "/agent.yml": &fstest.MapFile{Data: data}})
		if err != nil {
			t.Fatal(err)
		}
		for _, finding := range got {
			if finding.Line < 1 || finding.Rule == "" {
				t.Errorf("finding without a line or rule: %+v", finding)
			}
		}
	})
}

// copyTo finds "Copy it to .github/workflows/NAME.yml" in a block's first
// lines (the comment may wrap).
var copyTo = regexp.MustCompile(`Copy it to[\s#]*\.github/workflows/([a-z-]+\.yml)`)

// The step-by-step workflows of docs/step-by-step.md (the blocks that say
// "Copy it to .github/workflows/NAME.yml") are a setup that keeps every rule.
func TestCheckRepo_docs_step_by_step_is_clean(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../docs/step-by-step.md")
	if err != nil {
		t.Fatal(err)
	}
	s := setup{}
	for _, block := range strings.Split(string(data), "```yaml\n")[1:] {
		end := strings.Index(block, "```")
		if end < 0 {
			t.Fatal("docs/step-by-step.md: a yaml block is not closed")
		}
		var lines []string
		for _, l := range strings.Split(block[:end], "\n") {
			lines = append(lines, strings.TrimPrefix(l, "   "))
		}
		head := strings.Join(lines[:min(5, len(lines))], "\n")
		if m := copyTo.FindStringSubmatch(head); m != nil {
			if _, dup := s[m[1]]; dup {
				t.Fatalf("docs/step-by-step.md has two blocks for %s", m[1])
			}
			s[m[1]] = strings.Join(lines, "\n")
		}
	}
	if _, ok := s["recess.yml"]; !ok {
		t.Fatal("docs/step-by-step.md has no recess.yml")
	}
	if _, ok := s["agent.yml"]; !ok {
		t.Fatal("docs/step-by-step.md has no agent.yml")
	}
	got, err := CheckRepo(s.fs())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range got {
		t.Errorf("docs/step-by-step.md %s", f)
	}
}
