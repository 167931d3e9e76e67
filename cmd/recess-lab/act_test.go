package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/internal/action"
	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/internal/workflows"
	"github.com/recess-action/recess/state"
)

func TestActAnnotations(t *testing.T) {
	t.Parallel()
	log := strings.Join([]string{
		"[recess/recess]   | ::warning title=recess::discussion #1 was not found",
		"[agent/lead ] ⭐ Run Main set -euo pipefail",
		`  error) echo "::error::upload-artifact: no file at $SRC"; exit 1 ;;`,
		"[recess/recess]   | ::warning title=recess::discussion #1 was not found",
		"[agent/verdict]   ❗  ::error title=recess refused verdict.trigger::bad",
	}, "\n")
	got := actAnnotations(log)
	want := []string{"::warning title=recess::discussion #1 was not found", "::error title=recess refused verdict.trigger::bad"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("actAnnotations() = %q, want %q", got, want)
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func decodeYAML(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("the copy does not parse: %v\n%s", err, data)
	}
	return v
}

// withoutQueue is what the copy of a file without a model step must be.
func withoutQueue(data []byte) string {
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if strings.TrimSpace(l) != "queue: max" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "")
}

func noKeys(string) string { return "" }

// allKeys sets every model's key.
func allKeys(k string) string { return "key-of-" + k }

// The copies act runs differ from the files by the queue lines only, unless
// a model step without its key is replaced.
func TestPrepareForActDropsOnlyQueue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file string
		keys       func(string) string
		queue      int
	}{
		{"shipped_front_door", "../../.github/workflows/recess.yml", noKeys, 2},
		{"shipped_agent_with_the_placeholder_lead", "../../.github/workflows/agent.yml", noKeys, 2},
		{"reusable_front_door", "../../.github/workflows/front-door.yml", noKeys, 2},
		{"quickstart_front_door", "../../testdata/quickstart/recess.yml", noKeys, 0},
		{"quickstart_sweep", "../../testdata/quickstart/recess-sweep.yml", noKeys, 0},
		{"quickstart_agent_with_the_model_key", "../../testdata/quickstart/agent.yml", allKeys, 0},
		{"claude_example_with_the_model_key", "../../.github/examples/agent-claude.yml", allKeys, 0},
		{"gemini_example_with_the_model_key", "../../.github/examples/agent-gemini.yml", allKeys, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := readFile(t, tc.file)
			c, err := prepareForAct(tc.file, data, leadScript{Lab: "/lab", Keys: tc.keys})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(withoutQueue(data), string(c.Data)); diff != "" {
				t.Errorf("the copy differs by more than the queue lines (-want +got):\n%s", diff)
			}
			if len(c.Replaced) != 0 {
				t.Errorf("replaced %v, want nothing", c.Replaced)
			}
			var kept []string
			for name, key := range modelActions {
				if tc.keys(key) != "" && strings.Contains(string(data), "uses: "+name+"@") {
					kept = append(kept, key)
				}
			}
			if diff := cmp.Diff(kept, c.Kept); diff != "" {
				t.Errorf("model steps kept (-want +got):\n%s", diff)
			}
			_, n := dropQueueLines(data)
			if n != tc.queue {
				t.Errorf("%d queue lines, want %d", n, tc.queue)
			}
			if (n > 0) != (len(c.Changes) > 0 && strings.Contains(c.Changes[0], "queue: max")) {
				t.Errorf("changes %q do not say the queue lines", c.Changes)
			}
		})
	}
}

// scriptedStep is the part of a step the replacement test compares.
type scriptedStep struct {
	Name  string            `yaml:"name"`
	Uses  string            `yaml:"uses"`
	Env   map[string]string `yaml:"env"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	With  map[string]any    `yaml:"with"`
}

func TestPrepareForActReplacesTheModelStep(t *testing.T) {
	t.Parallel()
	const lead = `name: agent
on:
  workflow_dispatch:
    inputs:
      correlation_id: {type: string, required: true}
jobs:
  check:
    uses: recess-action/recess/.github/workflows/claim.yml@v1
  lead:
    needs: check
    runs-on: ubuntu-latest
    steps:
      - {uses: recess-action/recess@v1, with: {command: install}}
      # the model
      - uses: anthropics/claude-code-action@v1
        with:
          anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}
          claude_args: --mcp-config '{"mcpServers":{"other":{"command":"npx","args":["x"]},"recess":{"command":"recess","args":["mcp","--verdict-file","${{ runner.temp }}/v.json","--discussion","${{ inputs.n }}"]}}}'

      # hand it on
      - uses: actions/upload-artifact@v4
        with: {name: recess-verdict, path: x}
  last:
    runs-on: ubuntu-latest
    steps:
      - run: echo one
      -
        uses: anthropics/claude-code-action@v1
        with:
          claude_args: '--mcp-config {"mcpServers":{"r":{"command":"/usr/bin/recess","args":["mcp","--token","t"]}}}'
  after:
    runs-on: ubuntu-latest
    steps: [{run: echo after}]
`
	c, err := prepareForAct("agent.yml", []byte(lead), leadScript{Lab: "/tmp/lab dir/recess-lab", Keys: noKeys})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"anthropics/claude-code-action@v1", "anthropics/claude-code-action@v1"}, c.Replaced); diff != "" {
		t.Errorf("replaced (-want +got):\n%s", diff)
	}
	var got struct {
		Jobs map[string]struct {
			Steps []scriptedStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(c.Data, &got); err != nil {
		t.Fatalf("the copy does not parse: %v\n%s", err, c.Data)
	}
	name := "scripted lead in place of anthropics/claude-code-action@v1 (recess-lab act: ANTHROPIC_API_KEY is not set)"
	want := map[string][]scriptedStep{
		"lead": {
			{Uses: "recess-action/recess@v1", With: map[string]any{"command": "install"}},
			{Name: name, Shell: "bash", Env: map[string]string{
				"RECESS_LAB":                          "/tmp/lab dir/recess-lab",
				"RECESS_RESUME_CONTEXT":               "${{ inputs.resume_context }}",
				"RECESS_PROMPT":                       "${{ needs.check.outputs.prompt }}",
				"RECESS_STEP_INPUTS":                  "anthropic_api_key claude_args",
				"RECESS_STEP_INPUT_ANTHROPIC_API_KEY": "${{ secrets.ANTHROPIC_API_KEY }}",
				"RECESS_STEP_INPUT_CLAUDE_ARGS":       `--mcp-config '{"mcpServers":{"other":{"command":"npx","args":["x"]},"recess":{"command":"recess","args":["mcp","--verdict-file","${{ runner.temp }}/v.json","--discussion","${{ inputs.n }}"]}}}'`,
			}, Run: `"$RECESS_LAB" mcp-script --from-step`},
			{Uses: "actions/upload-artifact@v4", With: map[string]any{"name": "recess-verdict", "path": "x"}},
		},
		"last": {
			{Run: "echo one"},
			{Name: name, Shell: "bash", Env: map[string]string{
				"RECESS_LAB":                    "/tmp/lab dir/recess-lab",
				"RECESS_RESUME_CONTEXT":         "${{ inputs.resume_context }}",
				"RECESS_PROMPT":                 "${{ needs.check.outputs.prompt }}",
				"RECESS_STEP_INPUTS":            "claude_args",
				"RECESS_STEP_INPUT_CLAUDE_ARGS": `--mcp-config {"mcpServers":{"r":{"command":"/usr/bin/recess","args":["mcp","--token","t"]}}}`,
			}, Run: `"$RECESS_LAB" mcp-script --from-step`},
		},
		"check": nil,
		"after": {{Run: "echo after"}},
	}
	gotSteps := map[string][]scriptedStep{}
	for id, j := range got.Jobs {
		gotSteps[id] = j.Steps
	}
	if diff := cmp.Diff(want, gotSteps); diff != "" {
		t.Errorf("steps of the copy (-want +got):\n%s", diff)
	}
	// Comments around the replaced step stay.
	for _, l := range []string{"      # the model\n", "      # hand it on\n"} {
		if !strings.Contains(string(c.Data), l) {
			t.Errorf("the copy lost %q:\n%s", l, c.Data)
		}
	}
	// Everything but the replaced steps is the file as written.
	orig, cp := decodeYAML(t, []byte(lead)), decodeYAML(t, c.Data)
	for _, m := range []map[string]any{orig, cp} {
		jobs := m["jobs"].(map[string]any)
		for id, i := range map[string]int{"lead": 1, "last": 1} {
			steps := jobs[id].(map[string]any)["steps"].([]any)
			jobs[id].(map[string]any)["steps"] = append(steps[:i:i], steps[i+1:]...)
		}
	}
	if diff := cmp.Diff(orig, cp); diff != "" {
		t.Errorf("the copy changed more than the model steps (-orig +copy):\n%s", diff)
	}
}

func TestPrepareForActRefuses(t *testing.T) {
	t.Parallel()
	_, err := prepareForAct("list.yml", []byte("- just\n- a list\n"), leadScript{Lab: "/lab", Keys: noKeys})
	if err == nil || !strings.Contains(err.Error(), "a workflow is a mapping") {
		t.Errorf("prepareForAct() error = %v, want one saying a workflow is a mapping", err)
	}
}

// The scripted lead finds the recess mcp server a model step's inputs
// configure, however the workflow builds the configuration: written in an
// input (the quick start's claude_args), in a file an input names that a
// step before wrote (the Claude example's --mcp-config), or as the settings
// a step's output holds (the Gemini example).
func TestFindRecessServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers":{"recess":{"type":"stdio","command":"/opt/recess/recess","args":["mcp","--verdict-file","/tmp/v.json","--token","t"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	want := recessServer{Command: "recess", Args: []string{"--verdict-file", "/tmp/v.json", "--token", "t"}}
	fromFile := recessServer{Command: "/opt/recess/recess", Args: want.Args}
	tests := []struct {
		name   string
		inputs map[string]string
		want   recessServer
		err    string
	}{
		{name: "inline_in_claude_args", inputs: map[string]string{
			"prompt":      "{not json",
			"claude_args": `--allowedTools mcp__recess --mcp-config '{"mcpServers":{"other":{"command":"npx","args":["x"]},"recess":{"command":"recess","args":["mcp","--verdict-file","/tmp/v.json","--token","t"]}}}'`,
		}, want: want},
		{name: "a_file_claude_args_names", inputs: map[string]string{
			"claude_args": "--mcp-config " + file + "\n--allowedTools mcp__recess__reply,Read\n--max-turns 40\n",
		}, want: fromFile},
		{name: "a_file_named_with_equals", inputs: map[string]string{"claude_args": "--mcp-config=" + file}, want: fromFile},
		{name: "gemini_settings", inputs: map[string]string{
			"gemini_api_key": "",
			"settings":       `{"model":{"maxSessionTurns":40},"mcpServers":{"recess":{"command":"/opt/recess/recess","trust":true,"includeTools":["reply"],"args":["mcp","--verdict-file","/tmp/v.json","--token","t"]}}}`,
		}, want: fromFile},
		{name: "no_recess_server", inputs: map[string]string{
			"prompt":      "hello",
			"claude_args": `--mcp-config '{"mcpServers":{"x":{"command":"recess","args":["status"]}}}'`,
		}, err: "no MCP server running `recess mcp` in the inputs of the step (claude_args, prompt)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := findRecessServer(tc.inputs, os.ReadFile)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findRecessServer() (-want +got):\n%s", diff)
			}
		})
	}
}

// The story follows the setup the front door gives recess, as a run reads
// it: the inputs given, else the declared defaults, each parsed by the action.
func TestFrontDoorSetup(t *testing.T) {
	t.Parallel()
	defaults := action.LabSetup{Workflow: "agent.yml", Store: "comment", Threads: []state.Kind{state.KindDiscussion}}
	door := func(with string) string {
		return "on: discussion\njobs:\n  recess:\n    uses: recess-action/recess/.github/workflows/front-door.yml@v1\n    with: " + with + "\n"
	}
	for _, tc := range []struct {
		name, yaml string
		want       action.LabSetup
		err        string
	}{
		{name: "reusable_without_input", yaml: door("{}"), want: defaults},
		{name: "the_readme_init_example", yaml: door(`{workflow: answer.yml, state-store: branch, categories: "RFCs, Ideas", wake-on: mention, mention-handles: "@lead", sweep-only-while-waiting: "true"}`),
			want: action.LabSetup{Workflow: "answer.yml", SweepWorkflow: "recess-sweep.yml", Store: "branch",
				Categories: []string{"RFCs", "Ideas"}, WakeOn: "mention", MentionHandles: []string{"lead"}, Threads: []state.Kind{state.KindDiscussion}}},
		{name: "issues_alone", yaml: door(`{threads: issues, mention-handles: "@lead"}`),
			want: action.LabSetup{Workflow: "agent.yml", Store: "comment", MentionHandles: []string{"lead"}, Threads: []state.Kind{state.KindIssue}}},
		{name: "sweep_file_named", yaml: door("{sweep-only-while-waiting: true, sweep-workflow: sweep.yml, labels: ask-bot}"),
			want: action.LabSetup{Workflow: "agent.yml", SweepWorkflow: "sweep.yml", Store: "comment", Labels: []string{"ask-bot"}, Threads: []state.Kind{state.KindDiscussion}}},
		{name: "action_steps", yaml: "on: discussion\njobs:\n  a:\n    steps:\n      - uses: recess-action/recess@v1.2.0\n        with: {workflow: lead.yml}\n  b:\n    steps:\n      - uses: ./\n        with: {command: plan, workflow: lead.yml}\n",
			want: action.LabSetup{Workflow: "lead.yml", Store: "comment", Threads: []state.Kind{state.KindDiscussion}}},
		{name: "other_action_input_ignored", yaml: "on: discussion\njobs:\n  a:\n    steps:\n      - uses: ./\n      - uses: someone/else@v1\n        with: {workflow: x.yml}\n", want: defaults},
		{name: "no_front_door", yaml: "on: push\njobs:\n  a:\n    uses: recess-action/recess/.github/workflows/front-door.yml@v1\n", err: "no front door"},
		{name: "expression", yaml: door("{workflow: '${{ vars.AGENT }}'}"), err: "needs the value itself"},
		{name: "a_path", yaml: door("{workflow: ../agent.yml}"), err: "input workflow: \"../agent.yml\" is not a workflow file name"},
		{name: "refused_as_a_run_refuses_it", yaml: door("{wake-on: mention}"), err: "input mention-handles"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := frontDoorSetup("recess.yml", []byte(tc.yaml), t.TempDir())
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("frontDoorSetup() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveActTarget(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	wf := filepath.Join(repo, ".github", "workflows")
	other := filepath.Join(repo, "other")
	for _, d := range []string{wf, other, filepath.Join(repo, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(wf, "recess.yml"), "on: discussion\njobs:\n  r:\n    uses: recess-action/recess/.github/workflows/front-door.yml@v1\n    with: {workflow: lead.yml}\n")
	write(filepath.Join(wf, "lead.yml"), "on: workflow_dispatch\njobs: {}\n")
	write(filepath.Join(other, "door.yml"), "on: discussion\njobs:\n  r:\n    uses: recess-action/recess/.github/workflows/front-door.yml@v1\n")
	write(filepath.Join(other, "agent.yml"), "on: workflow_dispatch\njobs: {}\n")
	write(filepath.Join(other, "apart.yml"), "on: discussion\njobs:\n  r:\n    uses: recess-action/recess/.github/workflows/front-door.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n")
	write(filepath.Join(other, "recess-sweep.yml"), "on: schedule\njobs: {}\n")
	write(filepath.Join(other, "lost.yml"), "on: discussion\njobs:\n  r:\n    uses: recess-action/recess/.github/workflows/front-door.yml@v1\n    with: {sweep-only-while-waiting: \"true\", sweep-workflow: gone.yml}\n")
	defaults := action.LabSetup{Workflow: "agent.yml", Store: "comment", Threads: []state.Kind{state.KindDiscussion}}
	lead := defaults
	lead.Workflow = "lead.yml"
	apart := defaults
	apart.SweepWorkflow = "recess-sweep.yml"
	ours := actTarget{Repo: repo, FrontDoor: filepath.Join(wf, "recess.yml"), Agent: filepath.Join(wf, "lead.yml"), Setup: lead}
	door := actTarget{Repo: repo, FrontDoor: filepath.Join(other, "door.yml"), Agent: filepath.Join(other, "agent.yml"), Setup: defaults}
	for _, tc := range []struct {
		name, cwd, target, frontDoor, agent string
		want                                actTarget
		err                                 string
	}{
		{name: "the_repository_around_the_working_directory", cwd: filepath.Join(repo, "src"), want: ours},
		{name: "a_repository", cwd: "/", target: repo, want: ours},
		{name: "a_workflow_directory", cwd: repo, target: ".github/workflows", want: ours},
		{name: "the_front_door_file", cwd: repo, target: "other/door.yml", want: door},
		{name: "a_directory_and_the_front_door_name", cwd: other, target: ".", frontDoor: "door.yml", want: door},
		{name: "the_agent_by_flag", cwd: repo, target: "other/door.yml", agent: ".github/workflows/lead.yml",
			want: actTarget{Repo: repo, FrontDoor: door.FrontDoor, Agent: filepath.Join(wf, "lead.yml"), Setup: defaults}},
		{name: "the_sweep_apart", cwd: repo, target: "other/apart.yml",
			want: actTarget{Repo: repo, FrontDoor: filepath.Join(other, "apart.yml"), Agent: door.Agent, Sweep: filepath.Join(other, "recess-sweep.yml"), Setup: apart}},
		{name: "no_sweep_workflow", cwd: repo, target: "other/lost.yml", err: "the sweep workflow " + filepath.Join(other, "gone.yml") + " does not exist"},
		{name: "no_front_door", cwd: repo, target: "other", err: "the front door: open " + filepath.Join(other, "recess.yml")},
		{name: "no_agent_workflow", cwd: repo, target: "other/door.yml", agent: "missing.yml", err: "the agent workflow " + filepath.Join(repo, "missing.yml") + " does not exist"},
		{name: "no_such_path", cwd: repo, target: "nowhere", err: "workflows nowhere:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := resolveActTarget(tc.cwd, tc.target, tc.frontDoor, tc.agent)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("resolveActTarget() (-want +got):\n%s", diff)
			}
		})
	}
}

func readWorkflow(t *testing.T, data string) *workflows.Workflow {
	t.Helper()
	w, err := workflows.Read("test.yml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestReleases(t *testing.T) {
	t.Parallel()
	const y = `jobs:
  a: {uses: recess-action/recess/.github/workflows/front-door.yml@v1}
  b:
    steps:
      - {uses: recess-action/recess@v1.4.2, with: {command: install}}
      - uses: "recess-action/recess@0123456789abcdef0123456789abcdef01234567" # pinned
      - uses: recess-action/recess-fork@v1
      - uses: someone/recess-action/recess@v2
      - uses: ./
`
	want := []string{"recess-action/recess@0123456789abcdef0123456789abcdef01234567", "recess-action/recess@v1", "recess-action/recess@v1.4.2"}
	if diff := cmp.Diff(want, releases(readWorkflow(t, y))); diff != "" {
		t.Errorf("releases() (-want +got):\n%s", diff)
	}
}

func TestOtherActions(t *testing.T) {
	t.Parallel()
	const y = `jobs:
  a: {uses: recess-action/recess/.github/workflows/front-door.yml@v1}
  r: {uses: someone/flows/.github/workflows/x.yml@v1}
  b:
    steps:
      - {uses: recess-action/recess@v1.4.2, with: {command: install}}
      - uses: actions/checkout@v6
      - uses: "actions/setup-node@v4"
      - uses: anthropics/claude-code-action@v1
      - uses: github/codeql-action/init@v3 # an action in a subdirectory
      - uses: actions/upload-artifact@v4
      - uses: actions/download-artifact@v4
      - uses: docker://alpine:3
      - uses: ./local
      - uses: anthropics/claude-code-action@v1.0.3
`
	want := []string{"actions/setup-node", "anthropics/claude-code-action", "github/codeql-action"}
	if diff := cmp.Diff(want, otherActions(readWorkflow(t, y))); diff != "" {
		t.Errorf("otherActions() (-want +got):\n%s", diff)
	}
}

// The act section of docs/operations.md names every change recess-lab act
// makes to the workflows it runs: each model action it replaces and its key,
// and each act option that serves an action from somewhere else.
func TestDocsSayWhatActChanges(t *testing.T) {
	t.Parallel()
	readme := string(readFile(t, "../../docs/operations.md"))
	const heading = "### Your own workflows, under act\n"
	i := strings.Index(readme, heading)
	if i < 0 {
		t.Fatalf("docs/operations.md has no heading %q", heading)
	}
	section := readme[i+len(heading):]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	want := []string{"`queue: max`", "--local-repository", "--replace-ghe-action-with-github-com", actStandIn[len("testdata/"):], "`recess-action/recess@REF`"}
	for name, key := range modelActions {
		want = append(want, "`"+name+"`", "`"+key+"`")
	}
	for a := range servedActions {
		want = append(want, "`"+a)
	}
	for _, w := range want {
		if !strings.Contains(section, w) {
			t.Errorf("the act section of docs/operations.md does not mention %s", w)
		}
	}
}

// The story's discussion is one the setup serves: in its first category,
// with its first label, mentioning its first handle under wake-on mention.
func TestServe(t *testing.T) {
	t.Parallel()
	seed := func() githubfake.SeedRepo {
		return githubfake.SeedRepo{Name: "octo/hello", Labels: []string{"recess:waiting"},
			Discussions: []githubfake.SeedDiscussion{{Author: "alice", Title: "RFC", Body: "Which store?"}}}
	}
	tests := []struct {
		name string
		c    action.LabSetup
		want githubfake.SeedRepo
		said string
	}{
		{name: "every_discussion", c: action.LabSetup{}, want: seed()},
		{name: "the_readme_init_example", c: action.LabSetup{Categories: []string{"RFCs", "Ideas"}, WakeOn: "mention", MentionHandles: []string{"@lead"}},
			want: githubfake.SeedRepo{Name: "octo/hello", Labels: []string{"recess:waiting"}, Categories: []string{"RFCs"},
				Discussions: []githubfake.SeedDiscussion{{Author: "alice", Title: "RFC", Body: "@lead Which store?", Category: "RFCs"}}},
			said: "in the category RFCs (categories: RFCs, Ideas), mentioning @lead (wake-on mention)"},
		{name: "general_and_a_label", c: action.LabSetup{Categories: []string{"general"}, Labels: []string{"ask-bot", "rfc"}, WakeOn: "mention", MentionHandles: []string{"bot"}},
			want: githubfake.SeedRepo{Name: "octo/hello", Labels: []string{"recess:waiting", "ask-bot"},
				Discussions: []githubfake.SeedDiscussion{{Author: "alice", Title: "RFC", Body: "@bot Which store?", Category: "general", Labels: []string{"ask-bot"}}}},
			said: "in the category general (categories: general), labelled ask-bot (labels: ask-bot, rfc), mentioning @bot (wake-on mention)"},
		{name: "command_serves_a_new_discussion", c: action.LabSetup{WakeOn: "command"}, want: seed()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := seed()
			said := serve(&r, tc.c)
			if diff := cmp.Diff(tc.want, r); diff != "" {
				t.Errorf("the seeded repository (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.said, said); diff != "" {
				t.Errorf("what the story says (-want +got):\n%s", diff)
			}
		})
	}
}

// What recess said in an act log: its lines and annotations, not its
// installer's lines nor a script's source that act echoes.
func TestRecessSaid(t *testing.T) {
	t.Parallel()
	log := strings.Join([]string{
		"[recess/event]   | ::add-mask::***",
		"[recess/event]   | recess install: no release binary for recess-action/recess@v1: building from source",
		"[recess/event]   | recess: discussion 1 is out of scope (categories): nothing to do",
		"[recess/event] ⭐ Run Main recess",
		`[agent/lead]   | echo "recess: not recess's"`,
		"[agent/lead] ⭐ Run Main set -euo pipefail",
		"[recess/plan]   | recess (dry run, as a real run would record it): nothing pending",
		"[recess/event]   ❗  ::error title=recess refused input categories::bad",
		"[recess/event]   | recess: discussion 1 is out of scope (categories): nothing to do",
	}, "\n")
	want := []string{
		"recess: discussion 1 is out of scope (categories): nothing to do",
		"recess (dry run, as a real run would record it): nothing pending",
		"::error title=recess refused input categories::bad",
	}
	if diff := cmp.Diff(want, recessSaid(log)); diff != "" {
		t.Errorf("recessSaid() (-want +got):\n%s", diff)
	}
}
