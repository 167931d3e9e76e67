package workflows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shipped are the workflow files users copy.
func shipped(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"../../.github/workflows/*.yml", "../../.github/workflows/*.yaml", "../../.github/examples/*.yml", "../../.github/examples/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

func TestShippedWorkflows(t *testing.T) {
	t.Parallel()
	files := shipped(t)
	seen := map[string]bool{}
	for _, f := range files {
		seen[filepath.Base(f)] = true
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			problems, err := Check(data)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, p := range problems {
				t.Errorf("%s: %s", f, p)
			}
		})
	}
	// The rules must have something to judge: the two example workflows.
	for _, want := range []string{"recess.yml", "agent.yml"} {
		if !seen[want] {
			t.Errorf("%s is not among the shipped workflows %v", want, files)
		}
	}
}

// The shipped agent workflow has the shape the rules assume: a lead job the
// permission rule judges, and claim and verdict jobs the group rule judges.
func TestAgentWorkflowShape(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../.github/workflows/agent.yml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]bool{"claim": {false, true}, "lead": {true, false}, "verdict": {false, true}}
	for id, roles := range want {
		j, ok := w.Jobs[id]
		if !ok {
			t.Errorf("agent.yml has no %s job", id)
			continue
		}
		lead, writer := classify(id, j)
		if lead != roles[0] || writer != roles[1] {
			t.Errorf("agent.yml job %s: lead=%v writer=%v, want lead=%v writer=%v", id, lead, writer, roles[0], roles[1])
		}
	}
}

// Each rule fails on a workflow that breaks it.
func TestCheckCatches(t *testing.T) {
	t.Parallel()
	const group = "\n    concurrency: {group: 'recess-${{ inputs.discussion_number }}', queue: max, cancel-in-progress: false}"
	tests := []struct {
		name, yaml, want string
	}{
		{
			name: "lead_with_discussions_write",
			yaml: "jobs:\n  lead:\n    permissions: {contents: read, discussions: write}\n    steps: [{run: recess mcp-script}]",
			want: "lead job lead: job permission discussions: write",
		},
		{
			name: "lead_without_permissions",
			yaml: "jobs:\n  think:\n    steps: [{uses: anthropics/claude-code-action@v1}]",
			want: "lead job think sets no permissions",
		},
		{
			name: "lead_inherits_write_all",
			yaml: "permissions: write-all\njobs:\n  think:\n    steps: [{run: recess mcp --verdict-file v.json}]",
			want: `workflow permissions "write-all" may write`,
		},
		{
			name: "lead_with_id_token",
			yaml: "jobs:\n  lead:\n    permissions: {id-token: write}\n    steps: [{run: echo}]",
			want: "permission id-token: write",
		},
		{
			name: "agent_beside_a_writer",
			yaml: "permissions: read-all\njobs:\n  agent:" + group + "\n    steps: [{uses: ./, with: {command: claim}}, {run: recess mcp-script}]",
			want: "runs the agent and a recess command that writes",
		},
		{
			name: "claim_outside_the_group",
			yaml: "jobs:\n  claim:\n    steps: [{uses: ./, with: {command: claim}}]",
			want: "job claim writes a discussion's record outside its concurrency group",
		},
		{
			name: "verdict_without_queue",
			yaml: "jobs:\n  verdict:\n    concurrency: {group: 'recess-${{ inputs.discussion_number }}'}\n    steps: [{uses: octo/recess@v1, with: {command: verdict}}]",
			want: `concurrency queue is "", want max`,
		},
		{
			name: "front_door_in_a_shared_group",
			yaml: "concurrency: {group: recess, queue: max}\njobs:\n  recess:\n    steps: [{uses: recess-action/recess@v1}]",
			want: `in concurrency group "recess"`,
		},
		{
			name: "visit_cancelled_in_progress",
			yaml: "jobs:\n  visit:\n    concurrency: {group: 'recess-${{ matrix.discussion }}', queue: max, cancel-in-progress: true}\n    steps: [{uses: ./, with: {command: visit}}]",
			want: "cancel-in-progress true",
		},
		{
			name: "event_text_in_a_shell",
			yaml: "jobs:\n  greet:\n    steps: [{name: hi, run: 'echo ${{ github.event.comment.body }}'}]",
			want: "job greet step 1 (hi): ${{ }} inside run",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			problems, err := Check([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(problems, "\n"), tt.want) {
				t.Errorf("Check() = %q, want a problem containing %q", problems, tt.want)
			}
		})
	}
	// And a workflow that keeps every rule passes.
	ok := "permissions: {}\njobs:\n  claim:" + group + "\n    steps: [{uses: ./, with: {command: claim}}]\n" +
		"  lead:\n    permissions: {contents: read}\n    steps: [{uses: ./, with: {command: install}}, {run: recess mcp-script, env: {X: '${{ inputs.resume_context }}'}}]\n" +
		"  verdict:" + group + "\n    steps: [{uses: ./, with: {command: verdict}}]"
	if problems, err := Check([]byte(ok)); err != nil || len(problems) > 0 {
		t.Errorf("Check(a good workflow) = %q, %v; want nothing", problems, err)
	}
}

// The README's setup shows the two workflows users copy; they keep the
// rules too, and say what the shipped files say but for `uses:`.
func TestREADMEWorkflows(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, block := range strings.Split(string(data), "```yaml\n")[1:] {
		end := strings.Index(block, "```")
		if end < 0 {
			t.Fatal("README: a yaml block is not closed")
		}
		var lines []string
		for _, l := range strings.Split(block[:end], "\n") {
			lines = append(lines, strings.TrimPrefix(l, "   "))
		}
		text := strings.Join(lines, "\n")
		if !strings.Contains(text, "\njobs:") {
			continue
		}
		blocks++
		problems, err := Check([]byte(text))
		if err != nil {
			t.Errorf("README workflow %d: %v", blocks, err)
		}
		for _, p := range problems {
			t.Errorf("README workflow %d: %s", blocks, p)
		}
		if strings.Contains(text, "name: agent\n") {
			w, err := parse([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"claim", "lead", "verdict"} {
				if _, ok := w.Jobs[id]; !ok {
					t.Errorf("README agent workflow has no %s job", id)
				}
			}
		}
	}
	if blocks < 2 {
		t.Errorf("README shows %d workflows, want the front door and the agent workflow", blocks)
	}
}
