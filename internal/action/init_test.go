package action

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/internal/workflows"
)

func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(t.Context(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	entries, err := os.ReadDir(filepath.Join(dir, workflows.Dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, workflows.Dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	return files
}

// recess init with no choices writes the README's quick start, byte for
// byte, and closes with what the setup costs and what GitHub needs.
func TestInit_defaults_write_the_quick_start(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, nil, "init", "--dir", dir)
	if code != exitOK {
		t.Fatalf("recess init: exit %d\n%s", code, stderr)
	}
	want := quickStartFiles(t)
	if diff := gocmp.Diff(want, readDir(t, dir)); diff != "" {
		t.Errorf("recess init differs from testdata/quickstart (-quick start +init):\n%s", diff)
	}
	wantOut := `wrote .github/workflows/recess.yml
wrote .github/workflows/recess-sweep.yml
wrote .github/workflows/agent.yml
cost: the sweep (recess-sweep.yml) costs nothing while nothing waits; while a recess waits or an agent run works, it runs 288 times a day: in a private repository, where GitHub bills each job at least a minute, 288 minutes a day (GitHub Free includes 2,000 a month). On top, one job per discussion event and three per agent run; a public repository pays for none of it.
next: Discussions must be enabled (Settings > General > Features > Discussions); add the repository secret ANTHROPIC_API_KEY, commit the files, and run "recess check"
`
	if diff := gocmp.Diff(wantOut, stdout); diff != "" {
		t.Errorf("what recess init says (-want +got):\n%s", diff)
	}
}

// The cost init states follows the schedule and where the sweep lives.
func TestInit_states_the_cost_of_its_schedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "apart_every_fifteen_minutes", args: []string{"--schedule", "7-59/15 * * * *"},
			want: "cost: the sweep (recess-sweep.yml) costs nothing while nothing waits; while a recess waits or an agent run works, it runs 96 times a day: in a private repository, where GitHub bills each job at least a minute, 96 minutes a day (GitHub Free includes 2,000 a month)."},
		{name: "always_on", args: []string{"--sweep-only-while-waiting=false"},
			want: "cost: the sweep runs 288 times a day, whether or not anything waits: in a private repository, where GitHub bills each job at least a minute, 8,640 minutes in 30 days (GitHub Free includes 2,000 a month); --sweep-only-while-waiting (the default) runs it only while something waits."},
		{name: "always_on_working_hours", args: []string{"--sweep-only-while-waiting=false", "--schedule", "7-59/15 7-18 * * 1-5"},
			want: "cost: the sweep runs 48 times a day on the days its schedule names, whether or not anything waits: in a private repository, where GitHub bills each job at least a minute, 48 minutes a day (GitHub Free includes 2,000 a month); --sweep-only-while-waiting (the default) runs it only while something waits."},
		{name: "day_names_as_check_reads_them", args: []string{"--sweep-only-while-waiting=false", "--schedule", "7-59/15 7-18 * * MON-FRI"},
			want: "cost: the sweep runs 48 times a day on the days its schedule names, whether or not anything waits: in a private repository, where GitHub bills each job at least a minute, 48 minutes a day (GitHub Free includes 2,000 a month); --sweep-only-while-waiting (the default) runs it only while something waits."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, nil, append([]string{"init", "--dir", t.TempDir()}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			var got string
			for _, l := range strings.Split(stdout, "\n") {
				if strings.HasPrefix(l, "cost: ") {
					got, _, _ = strings.Cut(l, " On top, ")
				}
			}
			if got != tt.want {
				t.Errorf("cost line = %q, want %q", got, tt.want)
			}
		})
	}
}

// Every combination of choices writes a setup that keeps every rule, in at
// most 50 lines of YAML (comments aside), and a line more for each event
// a second kind of thread adds to the front door's on:; the front door and
// the sweep get the same choices.
func TestInit_choices_keep_the_rules(t *testing.T) {
	t.Parallel()
	const sweepOnly = `sweep-only-while-waiting: "true"`
	split := []string{"agent.yml", "recess-sweep.yml", "recess.yml"}
	tests := []struct {
		name  string
		args  []string
		files []string
		has   map[string]string // file -> a line the choice must put there
		more  int               // the events a second kind of thread adds
	}{
		{name: "defaults", files: split, has: map[string]string{
			"recess.yml": "    with: {" + sweepOnly + "}", "recess-sweep.yml": "    with: {" + sweepOnly + "}", "agent.yml": "    with: {" + sweepOnly + "}"}},
		{name: "branch_store", args: []string{"--state-store", "branch"}, files: split,
			has: map[string]string{"recess.yml": "    with: {state-store: branch, " + sweepOnly + "}", "agent.yml": "    permissions: {discussions: write, contents: write}"}},
		{name: "own_agent_workflow_name", args: []string{"--workflow", "answer.yml"}, files: []string{"answer.yml", "recess-sweep.yml", "recess.yml"},
			has: map[string]string{"recess.yml": "    with: {workflow: answer.yml, " + sweepOnly + "}", "answer.yml": "    with: {workflow: answer.yml, " + sweepOnly + "}"}},
		{name: "scope_and_wake_on", args: []string{"--categories", "RFCs, Ideas", "--labels", "ask-bot", "--wake-on", "mention", "--mention-handles", "@lead"},
			files: split,
			has:   map[string]string{"recess.yml": `    with: {categories: "RFCs, Ideas", labels: ask-bot, wake-on: mention, mention-handles: "@lead", ` + sweepOnly + `}`}},
		{name: "wake_on_read_as_the_action_reads_it", args: []string{"--wake-on", " Command"}, files: split,
			has: map[string]string{"recess.yml": `    with: {wake-on: " Command", ` + sweepOnly + `}`}},
		{name: "schedule", args: []string{"--schedule", "7-59/30 7-18 * * 1-5"}, files: split,
			has: map[string]string{"recess-sweep.yml": `  schedule: [{cron: "7-59/30 7-18 * * 1-5"}] # off the top of the hour`}},
		{name: "sweep_always_on", args: []string{"--sweep-only-while-waiting=false", "--schedule", "7-59/30 7-18 * * 1-5"}, files: []string{"agent.yml", "recess.yml"},
			has: map[string]string{"recess.yml": `  schedule: [{cron: "7-59/30 7-18 * * 1-5"}] # the sweep, off the top of the hour`,
				"agent.yml": "    permissions: {discussions: write, actions: write, contents: read}"}},
		{name: "every_kind_of_thread", args: []string{"--threads", "discussions,Issues, pull-requests", "--mention-handles", "@lead"}, files: split,
			has: map[string]string{
				"recess.yml":       `    with: {threads: "discussions, issues, pull-requests", mention-handles: "@lead", ` + sweepOnly + `}`,
				"recess-sweep.yml": "permissions: {discussions: write, issues: write, pull-requests: write, actions: write, contents: read}",
				"agent.yml":        "    permissions: {discussions: read, issues: read, pull-requests: read}"},
			more: 2},
		{name: "issues_alone_on_the_branch_store", args: []string{"--threads", "issues", "--state-store", "branch", "--wake-on", "comment"}, files: split,
			has: map[string]string{
				"recess.yml": "  issue_comment: {types: [created, edited, deleted]}",
				"agent.yml":  "    permissions: {issues: write, actions: write, contents: write}"}},
		{name: "pull_requests_waking_on_command", args: []string{"--threads", "pull-requests", "--wake-on", "command"}, files: split,
			has: map[string]string{
				"recess.yml": "permissions: {pull-requests: write, actions: write, issues: write, contents: read}",
				"agent.yml":  `          prompt: "Lead the answer to pull request #${{ inputs.discussion_number }}: read it with the recess tools, then reply and adjourn, or ask and recess until people answer. ${{ needs.claim.outputs.prompt }}"`}},
		{name: "every_choice", args: []string{"--workflow", "answer.yml", "--state-store", "branch", "--categories", "RFCs, Ideas", "--labels", "ask-bot",
			"--wake-on", "mention", "--mention-handles", "@lead", "--schedule", "7-59/15 * * * *"}, files: []string{"answer.yml", "recess-sweep.yml", "recess.yml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if code, _, stderr := runCLI(t, nil, append([]string{"init", "--dir", dir}, tt.args...)...); code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			files := readDir(t, dir)
			var names []string
			for n := range files {
				names = append(names, n)
			}
			if diff := gocmp.Diff(tt.files, names, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			for name, line := range tt.has {
				if !containsLine(files[name], line) {
					t.Errorf("%s has no line %q:\n%s", name, line, files[name])
				}
			}
			lines := 0
			for _, text := range files {
				lines += yamlLines(text)
			}
			if lines > 50+tt.more {
				t.Errorf("%d lines of YAML, comments aside; want at most %d", lines, 50+tt.more)
			}
			if sweep, ok := files["recess-sweep.yml"]; ok {
				if door, apart := withLine(files["recess.yml"]), withLine(sweep); door != apart {
					t.Errorf("the front door's choices %q differ from the sweep's %q", door, apart)
				}
			}
			findings, err := workflows.CheckRepo(os.DirFS(dir), CheckKnown(dir))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range findings {
				t.Errorf("%s", f)
			}
		})
	}
}

// The lead's recess mcp serves what the setup serves: where more than
// discussions are served, init gives it --threads, so that a first run's
// read_thread reads the number as any kind served (and only those); the
// quick start's lead gets no flag.
func TestInit_lead_reads_the_threads_served(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		threads string
		want    string // the lead's --threads
	}{
		{name: "quick_start"},
		{name: "discussions_named", threads: "discussions"},
		{name: "issues_alone", threads: "issues", want: "issues"},
		{name: "issues_and_pull_requests", threads: "issues, pull-requests", want: "issues,pull-requests"},
		{name: "discussions_and_issues", threads: "discussions,issues", want: "discussions,issues"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := []string{"init", "--dir", dir, "--mention-handles", "@lead"}
			if tt.threads == "" || tt.threads == "discussions" {
				args = args[:3]
			}
			if tt.threads != "" {
				args = append(args, "--threads", tt.threads)
			}
			if code, _, stderr := runCLI(t, nil, args...); code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			_, config, ok := strings.Cut(readDir(t, dir)["agent.yml"], "--mcp-config '")
			config, _, _ = strings.Cut(config, "'")
			var mc struct {
				MCPServers map[string]struct{ Args []string } `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(config), &mc); err != nil || !ok {
				t.Fatalf("the lead's --mcp-config %q: %v", config, err)
			}
			var o mcpOptions
			fs, _ := mcpFlags(&o, runEnv{}, func(string) string { return "" })
			if err := fs.Parse(mc.MCPServers["recess"].Args[1:]); err != nil {
				t.Fatal(err)
			}
			if o.Threads != tt.want {
				t.Errorf("the lead's recess mcp --threads %q, want %q", o.Threads, tt.want)
			}
		})
	}
}

// withLine is a file's first `with:` line, "" without one.
func withLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "with:") {
			return l
		}
	}
	return ""
}

func containsLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// A refused init writes nothing: a file in the way (without --force) or a
// choice the files cannot keep.
func TestInit_refuses_without_writing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing map[string]string
		args     []string
		says     string // a part of the reason, "" when any
	}{
		{name: "agent_workflow_exists", existing: map[string]string{"agent.yml": "mine\n"}},
		{name: "front_door_exists", existing: map[string]string{"recess.yml": "mine\n"}},
		{name: "top_of_the_hour", args: []string{"--schedule", "0 * * * *"}},
		{name: "not_a_cron", args: []string{"--schedule", "hourly"}},
		{name: "unknown_store", args: []string{"--state-store", "redis"}},
		{name: "workflow_not_a_file_name", args: []string{"--workflow", "../agent.yml"}},
		{name: "workflow_is_the_front_door", args: []string{"--workflow", "recess.yml"}},
		{name: "workflow_is_the_sweep", args: []string{"--workflow", "recess-sweep.yml"}},
		{name: "schedule_field_unreadable", args: []string{"--schedule", "2-59/5 25 * * *"}},
		{name: "schedule_range_backwards", args: []string{"--schedule", "2-59/5 * * * 5-1"}},
		{name: "schedule_day_field_unreadable", args: []string{"--schedule", "2-59/5 * * * FUNDAY"}},
		{name: "sweep_file_exists", existing: map[string]string{"recess-sweep.yml": "mine\n"}},
		{name: "mention_without_handles", args: []string{"--wake-on", "mention"},
			says: "--mention-handles: wake-on mention needs at least one handle"},
		{name: "issues_without_handles", args: []string{"--threads", "discussions,issues"},
			says: "--mention-handles: issues wake on mention when wake-on is not given"},
		{name: "pull_requests_on_mention_without_handles", args: []string{"--threads", "pull-requests", "--wake-on", "mention"},
			says: "--mention-handles: wake-on mention needs at least one handle"},
		{name: "handles_nothing_listens_for", args: []string{"--threads", "issues", "--wake-on", "comment", "--mention-handles", "@lead"},
			says: "--mention-handles is only for --wake-on mention"},
		{name: "unknown_thread", args: []string{"--threads", "discussions,isues", "--mention-handles", "@lead"},
			says: `--threads: "isues" is not one of discussions, issues, pull-requests`},
		{name: "unknown_wake_on", args: []string{"--wake-on", "always"}},
		{name: "stray_argument", args: []string{"now"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, workflows.Dir), 0o755); err != nil {
				t.Fatal(err)
			}
			for name, text := range tt.existing {
				if err := os.WriteFile(filepath.Join(dir, workflows.Dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := runCLI(t, nil, append([]string{"init", "--dir", dir}, tt.args...)...)
			if code != ExitRefused || stderr == "" || !strings.Contains(stderr, tt.says) {
				t.Errorf("exit %d, stderr %q; want %d and a reason saying %q", code, stderr, ExitRefused, tt.says)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			want := tt.existing
			if want == nil {
				want = map[string]string{}
			}
			if diff := gocmp.Diff(want, readDir(t, dir)); diff != "" {
				t.Errorf("the repository changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestInit_force_overwrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, nil, "init", "--dir", dir); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	first := readDir(t, dir)
	if err := os.WriteFile(filepath.Join(dir, workflows.Dir, "agent.yml"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, nil, "init", "--dir", dir, "--force"); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if diff := gocmp.Diff(first, readDir(t, dir)); diff != "" {
		t.Errorf("--force did not restore the files (-first +forced):\n%s", diff)
	}
}

// recess init's default setup costs nothing while nothing waits: with the
// inputs its files hand recess through the reusable workflows, the front
// door's intake switches the sweep workflow on, a sweep that finds a recess
// waiting leaves it on, and a sweep that finds nothing pending switches it
// off.
func TestInit_default_sweep_runs_only_while_something_waits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, nil, "init", "--dir", dir); code != exitOK {
		t.Fatalf("recess init: exit %d\n%s", code, stderr)
	}
	files := readDir(t, dir)
	sweepFile := ""
	for name, text := range files {
		if strings.Contains(text, "schedule:") {
			sweepFile = name
		}
	}
	if sweepFile == "" || sweepFile == frontDoorFile {
		t.Fatalf("recess init keeps the sweep in %q, want a file of its own", sweepFile)
	}
	door := callerWith(t, files[frontDoorFile], "front-door.yml")
	s := newShipped(t, cmp.Or(door["state-store"], storeComment), map[string]map[string]string{
		"front-door.yml": door,
		"claim.yml":      callerWith(t, files[gh.DefaultWorkflow], "claim.yml"),
		"verdict.yml":    callerWith(t, files[gh.DefaultWorkflow], "verdict.yml"),
	})
	// The sweep's plan, as the sweep's own file calls the front door.
	plan := s.pieces["front-door.yml"].step(t, s.action, "plan", callerWith(t, files[sweepFile], "front-door.yml"), nil)
	if plan["INPUT_SWEEP-WORKFLOW"] != sweepFile {
		t.Fatalf("the plan switches %q, not the sweep's file %s", plan["INPUT_SWEEP-WORKFLOW"], sweepFile)
	}
	if err := s.gh.AddWorkflow(hostileRepo, sweepFile, nil, nil); err != nil {
		t.Fatal(err)
	}
	// A repository where nothing waits: its last sweep switched it off.
	if err := s.gh.SetWorkflowState(hostileRepo, sweepFile, githubfake.WorkflowDisabledManually); err != nil {
		t.Fatal(err)
	}
	state := func(when, want string) {
		t.Helper()
		got, err := s.gh.WorkflowState(hostileRepo, sweepFile)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: the sweep workflow is %s, want %s", when, got, want)
		}
	}
	sweep := func() {
		t.Helper()
		s.ok(s.repo.action("schedule", []byte(`{"schedule":"2-59/5 * * * *"}`), plan), "the sweep's plan")
	}
	answer := func(verdict map[string]any) {
		t.Helper()
		ru := s.newest()
		if o := s.ok(s.agent(ru, "claim.yml", "claim", nil), "claim"); o.outputs["stale"] != "false" {
			t.Fatalf("claim: stale = %q", o.outputs["stale"])
		}
		n, _ := strconv.Atoi(ru.Inputs["discussion_number"])
		doc := map[string]any{"correlation_id": ru.Inputs["correlation_id"], "discussion_number": n}
		maps.Copy(doc, verdict)
		b, _ := json.Marshal(doc)
		s.ok(s.agent(ru, "verdict.yml", "verdict", b), "verdict")
		if err := s.gh.SetRunStatus(ru.ID, "completed", "success"); err != nil {
			t.Fatal(err)
		}
	}

	_, id := s.discuss("alice", "Which storage backend?")
	state("a new discussion's intake", githubfake.WorkflowActive)
	answer(map[string]any{"verdict": "recessed", "trigger": map[string]any{"kind": "missing_input", "replies": 1},
		"replies": []map[string]string{{"body": "Which storage backend should we assume?"}}})
	sweep()
	state("a sweep while a recess waits", githubfake.WorkflowActive)
	s.clock.Step(time.Minute)
	s.comment(id, "bob", "Postgres, please.")
	answer(map[string]any{"verdict": "adjourned", "replies": []map[string]string{{"body": "Postgres it is."}}})
	sweep()
	state("a sweep that finds nothing pending", githubfake.WorkflowDisabledManually)
}

// The front door docs/issues-and-pull-requests.md shows is the one recess
// init writes for the command the page gives, which serves every kind.
func TestInit_issues_page_shows_what_init_writes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"init", "--dir", dir, "--threads", "discussions,issues,pull-requests", "--mention-handles", "@lead"}
	page, err := os.ReadFile("../../docs/issues-and-pull-requests.md")
	if err != nil {
		t.Fatal(err)
	}
	if command := "`recess " + strings.Join(slices.Delete(slices.Clone(args), 1, 3), " ") + "`"; !strings.Contains(strings.Join(strings.Fields(string(page)), " "), command) {
		t.Errorf("docs/issues-and-pull-requests.md does not give the command %s", command)
	}
	if code, _, stderr := runCLI(t, nil, args...); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	got := ""
	for _, f := range fences(t, "../../docs/issues-and-pull-requests.md") {
		if f.info == "yaml" && strings.HasPrefix(f.text, "# recess front door") {
			got = f.text
		}
	}
	if diff := gocmp.Diff(readDir(t, dir)["recess.yml"], got); diff != "" {
		t.Errorf("the page's front door differs from what recess init writes (-init +page):\n%s", diff)
	}
}
