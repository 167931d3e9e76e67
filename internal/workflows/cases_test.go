package workflows_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/workflows"
)

// edit changes one file of a setup: old (which must occur once) becomes
// new; an empty old gives the whole file; drop removes it.
type edit struct {
	file, old, new string
	drop           bool
}

func (s setup) apply(t *testing.T, edits []edit) {
	t.Helper()
	for _, e := range edits {
		switch {
		case e.drop:
			if _, ok := s[e.file]; !ok {
				t.Fatalf("no file %s to drop", e.file)
			}
			delete(s, e.file)
		case e.old == "":
			s[e.file] = e.new
		default:
			if n := strings.Count(s[e.file], e.old); n != 1 {
				t.Fatalf("%q occurs %d times in %s, want once", e.old, n, e.file)
			}
			s[e.file] = strings.Replace(s[e.file], e.old, e.new, 1)
		}
	}
}

// withAction is a setup that runs the action in this repository (uses: ./)
// from the repository's own action.yml, which the file "/action.yml" gives.
func (s setup) withAction() fstest.MapFS {
	m := fstest.MapFS{}
	for name, text := range s {
		if root, ok := strings.CutPrefix(name, "/"); ok {
			m[root] = &fstest.MapFile{Data: []byte(text)}
			continue
		}
		m[workflows.Dir+"/"+name] = &fstest.MapFile{Data: []byte(text)}
	}
	return m
}

// threaded is the direct setup with an action that declares threads (SPEC
// "Threads"), as recess will once it serves issues and pull requests.
func threaded(t *testing.T) setup {
	s := direct(t)
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	action := string(data)
	if !strings.Contains(action, "\noutputs:") {
		t.Fatal("action.yml has no outputs:")
	}
	s["/action.yml"] = strings.Replace(action, "\noutputs:", "\n  threads:\n    description: discussions, issues, pull-requests (comma separated)\n    required: false\n    default: discussions\n\noutputs:", 1)
	return s
}

// want is one finding: its file, job and rule, and a text unique in the
// broken file that ends on its line.
type want struct {
	file, job string
	rule      workflows.Rule
	at        string
}

// Each way a setup breaks recess is refused with the line to change and a
// fix; the fix, applied as check describes it, leaves a setup check passes
// (or that has the next real problem, named in next), never another
// breakage.
func TestCheckRepo_refuses_each_broken_setup(t *testing.T) {
	t.Parallel()
	const (
		frontDoor = "front-door.yml@v1\n"
		claimCall = "claim.yml@v1\n    permissions: {discussions: write, contents: read}"
		verdCall  = "verdict.yml@v1\n    permissions: {discussions: write, actions: write, contents: read}"
		leadIf    = "    if: needs.claim.outputs.stale == 'false'\n    runs-on: ubuntu-latest\n    permissions: {discussions: read}\n"
		eventJob  = "    if: github.event_name == 'discussion' || github.event_name == 'discussion_comment'\n    concurrency:\n      group: recess-${{ github.event.discussion.number }}"
		claimJob  = "cancel nothing.\n    concurrency:\n      group: recess-${{ inputs.discussion_number }}"
		verdJob   = "timeout-minutes: 10\n    concurrency:\n      group: recess-${{ inputs.discussion_number }}"
		visitJob  = "    concurrency:\n      group: recess-${{ matrix.discussion }}"
		planStep  = "        with:\n          command: plan\n"
		visitStep = "          command: visit\n"
		directIf  = "    needs: claim\n    if: needs.claim.outputs.stale == 'false'\n"
		eventStep = "      - name: recess\n        uses: ./\n"
	)
	tests := []struct {
		name    string
		base    func(t *testing.T) setup
		breaks  []edit
		want    []want
		fixSays string // what the first finding's fix says to do, which fix does
		fix     []edit
		next    []workflows.Rule // what check still reports after the fix: the next real problem
	}{
		// A writer's concurrency group.
		{
			name: "event_group_by_the_discussions_node_id", base: direct,
			breaks:  []edit{{file: "recess.yml", old: eventJob, new: strings.Replace(eventJob, ".number", ".node_id", 1)}},
			want:    []want{{file: "recess.yml", job: "event", rule: workflows.RuleWriterGroup, at: "node_id"}},
			fixSays: "group: recess-${{ github.event.discussion.number }}",
			fix:     []edit{{file: "recess.yml", old: "node_id", new: "number"}},
		},
		{
			name: "claim_group_by_an_event_a_dispatch_has_not", base: direct,
			breaks:  []edit{{file: "agent.yml", old: claimJob, new: strings.Replace(claimJob, "inputs.discussion_number", "github.event.discussion.number", 1)}},
			want:    []want{{file: "agent.yml", job: "claim", rule: workflows.RuleWriterGroup, at: "github.event.discussion.number"}},
			fixSays: "group: recess-${{ inputs.discussion_number }}",
			fix:     []edit{{file: "agent.yml", old: "github.event.discussion.number", new: "inputs.discussion_number"}},
		},
		{
			name: "verdict_group_named_otherwise", base: direct,
			breaks:  []edit{{file: "agent.yml", old: verdJob, new: strings.Replace(verdJob, "recess-", "recess-verdict-", 1)}},
			want:    []want{{file: "agent.yml", job: "verdict", rule: workflows.RuleWriterGroup, at: "recess-verdict-"}},
			fixSays: "group: recess-${{ inputs.discussion_number }}",
			fix:     []edit{{file: "agent.yml", old: "recess-verdict-", new: "recess-"}},
		},
		{
			name: "visit_group_other_than_its_discussion", base: direct,
			breaks:  []edit{{file: "recess.yml", old: visitJob, new: strings.Replace(visitJob, "matrix.discussion", "github.run_id", 1)}},
			want:    []want{{file: "recess.yml", job: "visit", rule: workflows.RuleWriterGroup, at: "github.run_id"}},
			fixSays: "group: recess-${{ matrix.discussion }}",
			fix:     []edit{{file: "recess.yml", old: "github.run_id", new: "matrix.discussion"}},
		},
		{
			name: "event_job_in_a_group_named_by_the_workflow", base: direct,
			breaks:  []edit{{file: "recess.yml", old: "group: recess-${{ github.event.discussion.number }}", new: "group: recess-${{ github.workflow }}"}},
			want:    []want{{file: "recess.yml", job: "event", rule: workflows.RuleWriterGroup, at: "github.workflow"}},
			fixSays: "group: recess-${{ github.event.discussion.number }}",
			fix:     []edit{{file: "recess.yml", old: "github.workflow", new: "github.event.discussion.number"}},
		},
		{
			name: "claim_outside_the_group", base: direct,
			breaks:  []edit{{file: "agent.yml", old: "    # One writer per discussion: queue behind any other recess run on it, cancel nothing.\n    concurrency:\n      group: recess-${{ inputs.discussion_number }}\n      cancel-in-progress: false\n      queue: max\n"}},
			want:    []want{{file: "agent.yml", job: "claim", rule: workflows.RuleWriterGroup, at: "  claim:"}},
			fixSays: `concurrency: {group: "recess-${{ inputs.discussion_number }}", cancel-in-progress: false, queue: max}`,
			fix:     []edit{{file: "agent.yml", old: "  claim:\n", new: "  claim:\n    concurrency: {group: \"recess-${{ inputs.discussion_number }}\", cancel-in-progress: false, queue: max}\n"}},
		},
		{
			name: "verdict_without_queue_max", base: direct,
			breaks:  []edit{{file: "agent.yml", old: "      queue: max\n    permissions:\n      discussions: write # replies", new: "    permissions:\n      discussions: write # replies"}},
			want:    []want{{file: "agent.yml", job: "verdict", rule: workflows.RuleWriterQueue, at: "timeout-minutes: 10\n    concurrency:\n      group: recess-${{ inputs.discussion_number }}"}},
			fixSays: "queue: max",
			fix:     []edit{{file: "agent.yml", old: "    permissions:\n      discussions: write # replies", new: "      queue: max\n    permissions:\n      discussions: write # replies"}},
		},
		{
			name: "visit_cancelled_in_progress", base: direct,
			breaks:  []edit{{file: "recess.yml", old: "      group: recess-${{ matrix.discussion }}\n      cancel-in-progress: false", new: "      group: recess-${{ matrix.discussion }}\n      cancel-in-progress: true"}},
			want:    []want{{file: "recess.yml", job: "visit", rule: workflows.RuleWriterCancel, at: "cancel-in-progress: true"}},
			fixSays: "cancel-in-progress: false",
			fix:     []edit{{file: "recess.yml", old: "cancel-in-progress: true", new: "cancel-in-progress: false"}},
		},
		{
			name: "sweep_in_one_job", base: direct,
			breaks:  []edit{{file: "recess.yml", old: planStep, new: "        with:\n          command: sweep\n"}},
			want:    []want{{file: "recess.yml", job: "plan", rule: workflows.RuleWriterGroup, at: "  plan:"}},
			fixSays: "sweep with a plan job and a visit job per discussion",
			fix:     []edit{{file: "recess.yml", old: "command: sweep", new: "command: plan"}},
		},
		{
			name: "workflow_group_that_cancels", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: "jobs:\n", new: "concurrency: {group: recess-front-door, cancel-in-progress: true}\njobs:\n"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleWorkflowGroup, at: "concurrency:"}},
			fixSays: "remove the workflow's concurrency",
			fix:     []edit{{file: "recess.yml", old: "concurrency: {group: recess-front-door, cancel-in-progress: true}\n"}},
		},
		{
			name: "workflow_group_of_the_thread", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "jobs:\n", new: "concurrency: {group: \"recess-${{ inputs.discussion_number }}\", queue: max}\njobs:\n"}},
			want:    []want{{file: "agent.yml", rule: workflows.RuleWorkflowGroup, at: "concurrency:"}},
			fixSays: "remove the workflow's concurrency",
			fix:     []edit{{file: "agent.yml", old: "concurrency: {group: \"recess-${{ inputs.discussion_number }}\", queue: max}\n"}},
		},
		{
			name: "workflow_group_that_drops_pending_runs", base: sweepOnly,
			breaks:  []edit{{file: "recess-sweep.yml", old: "jobs:\n", new: "concurrency: recess-sweep\njobs:\n"}},
			want:    []want{{file: "recess-sweep.yml", rule: workflows.RuleWorkflowGroup, at: "concurrency:"}},
			fixSays: "remove the workflow's concurrency",
			fix:     []edit{{file: "recess-sweep.yml", old: "concurrency: recess-sweep\n"}},
		},

		// Where the model runs.
		{
			name: "lead_renamed_with_a_write_scope", base: reusable,
			breaks: []edit{{file: "agent.yml", old: "  lead:\n", new: "  answer:\n"}, {file: "agent.yml", old: "needs: [claim, lead]", new: "needs: [claim, answer]"},
				{file: "agent.yml", old: "permissions: {discussions: read}", new: "permissions: {discussions: write}"}},
			want:    []want{{file: "agent.yml", job: "answer", rule: workflows.RuleLeadWrites, at: "permissions: {discussions: write}"}},
			fixSays: "lower discussions to read",
			fix:     []edit{{file: "agent.yml", old: "permissions: {discussions: write}", new: "permissions: {discussions: read}"}},
		},
		{
			name: "agent_cli_from_a_script_with_a_write_scope", base: reusable,
			breaks: []edit{{file: "agent.yml", old: "  verdict:\n", new: "  summarize:\n    needs: claim\n" + leadIf[:len(leadIf)-len("    permissions: {discussions: read}\n")] +
				"    permissions: {discussions: write, contents: read} # summarize\n    steps:\n      - env: {PROMPT: \"${{ needs.claim.outputs.prompt }}\"}\n        run: npx -y @anthropic-ai/claude-code -p \"$PROMPT\"\n  verdict:\n"}},
			want:    []want{{file: "agent.yml", job: "summarize", rule: workflows.RuleLeadWrites, at: "# summarize"}},
			fixSays: "lower discussions to read",
			fix:     []edit{{file: "agent.yml", old: "{discussions: write, contents: read} # summarize", new: "{discussions: read, contents: read} # summarize"}},
		},
		{
			name: "recess_mcp_from_a_script_with_a_write_scope", base: reusable,
			breaks: []edit{{file: "agent.yml", old: "  verdict:\n", new: "  tools:\n    needs: claim\n" + leadIf[:len(leadIf)-len("    permissions: {discussions: read}\n")] +
				"    permissions: {discussions: read, contents: write}\n    steps:\n      - {uses: recess-action/recess@v1, with: {command: install}}\n      - env: {CID: \"${{ inputs.correlation_id }}\"}\n        run: recess mcp --verdict-file \"$RUNNER_TEMP/v.json\" --correlation-id \"$CID\" </dev/null\n  verdict:\n"}},
			want:    []want{{file: "agent.yml", job: "tools", rule: workflows.RuleLeadWrites, at: "discussions: read, contents: write}"}},
			fixSays: "lower contents to read",
			fix:     []edit{{file: "agent.yml", old: "discussions: read, contents: write}", new: "discussions: read, contents: read}"}},
		},
		{
			name: "lead_without_permissions", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "    permissions: {discussions: read}\n"}},
			want:    []want{{file: "agent.yml", job: "lead", rule: workflows.RuleLeadWrites, at: "  lead:"}},
			fixSays: "permissions: {discussions: read}",
			fix:     []edit{{file: "agent.yml", old: "    runs-on: ubuntu-latest\n    steps:", new: "    runs-on: ubuntu-latest\n    permissions: {discussions: read}\n    steps:"}},
		},
		{
			name: "lead_with_a_write_scope_beside_read_ones", base: direct,
			breaks:  []edit{{file: "agent.yml", old: "      contents: read\n      discussions: read\n", new: "      contents: read\n      discussions: read\n      id-token: write\n"}},
			want:    []want{{file: "agent.yml", job: "lead", rule: workflows.RuleLeadWrites, at: "id-token: write"}},
			fixSays: "lower id-token to read or none",
			fix:     []edit{{file: "agent.yml", old: "      id-token: write\n"}},
		},
		{
			name: "agent_beside_a_writer", base: direct,
			breaks: []edit{{file: "agent.yml", old: "      - uses: ./\n        with:\n          command: install\n", new: "      - uses: ./\n        with:\n          command: claim\n"}},
			want: []want{{file: "agent.yml", job: "lead", rule: workflows.RuleLeadBesideWriter, at: "  lead:"},
				// and, writing, it is outside the discussion's group
				{file: "agent.yml", job: "lead", rule: workflows.RuleWriterGroup, at: "  lead:"}},
			fixSays: "split it into three jobs",
			fix:     []edit{{file: "agent.yml", old: "          command: claim\n\n      # --- PLACEHOLDER", new: "          command: install\n\n      # --- PLACEHOLDER"}},
		},
		{
			name: "lead_runs_when_claim_says_stale", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "    if: needs.claim.outputs.stale == 'false'\n"}},
			want:    []want{{file: "agent.yml", job: "lead", rule: workflows.RuleLeadStale, at: "  lead:"}},
			fixSays: "if: needs.claim.outputs.stale == 'false'",
			fix:     []edit{{file: "agent.yml", old: "    needs: claim\n", new: "    needs: claim\n    if: needs.claim.outputs.stale == 'false'\n"}},
		},
		{
			name: "lead_guard_a_failed_claim_passes", base: direct,
			breaks:  []edit{{file: "agent.yml", old: directIf, new: "    needs: claim\n    if: always() && needs.claim.outputs.stale != 'true'\n"}},
			want:    []want{{file: "agent.yml", job: "lead", rule: workflows.RuleLeadStale, at: "always()"}},
			fixSays: "if: needs.claim.outputs.stale == 'false'",
			fix:     []edit{{file: "agent.yml", old: "always() && needs.claim.outputs.stale != 'true'", new: "needs.claim.outputs.stale == 'false'"}},
		},
		{
			name: "lead_guard_or_something_else", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "stale == 'false'", new: "stale == 'false' || github.run_attempt > 1"}},
			want:    []want{{file: "agent.yml", job: "lead", rule: workflows.RuleLeadStale, at: "run_attempt"}},
			fixSays: "if: needs.claim.outputs.stale == 'false'",
			fix:     []edit{{file: "agent.yml", old: " || github.run_attempt > 1"}},
		},
		{
			name: "lead_not_waiting_for_claim", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "    needs: claim\n    if: needs.claim.outputs.stale == 'false'\n"}},
			want:    []want{{file: "agent.yml", job: "lead", rule: workflows.RuleLeadStale, at: "  lead:"}},
			fixSays: "needs: claim and if: needs.claim.outputs.stale == 'false'",
			fix:     []edit{{file: "agent.yml", old: "  lead:\n", new: "  lead:\n    needs: claim\n    if: needs.claim.outputs.stale == 'false'\n"}},
		},
		{
			name: "mcp_flag_unknown_in_an_inline_configuration", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: `"--verdict-file"`, new: `"--verdikt-file"`}},
			want:    []want{{file: "agent.yml", job: "lead", rule: workflows.RuleMCPFlag, at: "verdikt"}},
			fixSays: "write --verdict-file",
			fix:     []edit{{file: "agent.yml", old: "verdikt", new: "verdict"}},
		},
		{
			name: "mcp_flag_unknown_in_a_file_a_step_writes", base: reusable,
			breaks: []edit{{file: "agent.yml", old: "      - uses: anthropics/claude-code-action@v1\n", new: "      - name: MCP configuration\n        run: |\n          cat >\"$RUNNER_TEMP/mcp.json\" <<'JSON'\n" +
				"          {\"mcpServers\": {\"recess\": {\"command\": \"recess\",\n            \"args\": [\"mcp\", \"--verdict-file\", \"/tmp/verdict.json\",\n              \"--resume-context-fil\", \"/tmp/rc.json\"]}}}\n          JSON\n      - uses: anthropics/claude-code-action@v1\n"}},
			want:    []want{{file: "agent.yml", job: "lead", rule: workflows.RuleMCPFlag, at: "--resume-context-fil\""}},
			fixSays: "write --resume-context-file",
			fix:     []edit{{file: "agent.yml", old: "--resume-context-fil\"", new: "--resume-context-file\""}},
		},
		{
			name: "mcp_flag_unknown_in_the_environment", base: direct,
			breaks:  []edit{{file: "agent.yml", old: "          RECESS_PROMPT: ${{ needs.claim.outputs.prompt }}\n", new: "          RECESS_PROMPT: ${{ needs.claim.outputs.prompt }}\n          MCP_SERVER: recess mcp --discusion 12\n"}},
			want:    []want{{file: "agent.yml", job: "lead", rule: workflows.RuleMCPFlag, at: "--discusion"}},
			fixSays: "write --discussion",
			fix:     []edit{{file: "agent.yml", old: "--discusion", new: "--discussion"}},
		},

		// Permissions.
		{
			name: "front_door_without_issues_write", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: "issues: write, ", new: ""}},
			want:    []want{{file: "recess.yml", job: "recess", rule: workflows.RuleMissingPermission, at: "permissions:"}},
			fixSays: "add issues: write to the workflow's permissions",
			fix:     []edit{{file: "recess.yml", old: "actions: write, ", new: "actions: write, issues: write, "}},
		},
		{
			name: "sweep_without_issues_write", base: sweepOnly,
			breaks:  []edit{{file: "recess-sweep.yml", old: "issues: write, ", new: ""}},
			want:    []want{{file: "recess-sweep.yml", job: "sweep", rule: workflows.RuleMissingPermission, at: "permissions:"}},
			fixSays: "add issues: write",
			fix:     []edit{{file: "recess-sweep.yml", old: "actions: write, ", new: "actions: write, issues: write, "}},
		},
		{
			name: "claim_without_permissions", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: claimCall, new: "claim.yml@v1"}},
			want:    []want{{file: "agent.yml", job: "claim", rule: workflows.RuleMissingPermission, at: "  claim:"}},
			fixSays: "permissions: {contents: read, discussions: write}",
			fix:     []edit{{file: "agent.yml", old: "claim.yml@v1\n", new: "claim.yml@v1\n    permissions: {contents: read, discussions: write}\n"}},
		},
		{
			name: "verdict_without_actions_write", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: verdCall, new: "verdict.yml@v1\n    permissions: {discussions: write, contents: read}"}},
			want:    []want{{file: "agent.yml", job: "verdict", rule: workflows.RuleMissingPermission, at: "verdict.yml@v1\n    permissions: {discussions: write, contents: read}"}},
			fixSays: "add actions: write",
			fix:     []edit{{file: "agent.yml", old: "verdict.yml@v1\n    permissions: {discussions: write,", new: "verdict.yml@v1\n    permissions: {discussions: write, actions: write,"}},
		},
		{
			name: "front_door_with_a_write_it_does_not_need", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: "contents: read}", new: "contents: read, pull-requests: write}"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleExcessPermission, at: "pull-requests: write"}},
			fixSays: "lower pull-requests to read or drop it",
			fix:     []edit{{file: "recess.yml", old: ", pull-requests: write}", new: "}"}},
		},
		{
			name: "front_door_with_write_all", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: "permissions: {discussions: write, actions: write, issues: write, contents: read}", new: "permissions: write-all"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleExcessPermission, at: "permissions: write-all"}},
			fixSays: "grant only what recess needs",
			fix:     []edit{{file: "recess.yml", old: "permissions: write-all", new: "permissions: {discussions: write, actions: write, issues: write, contents: read}"}},
		},

		// Inputs.
		{
			name: "reusable_workflow_input_misspelt", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: frontDoor, new: frontDoor + "    with: {workflw: agent.yml}\n"}},
			want:    []want{{file: "recess.yml", job: "recess", rule: workflows.RuleUnknownInput, at: "workflw"}},
			fixSays: "write workflow:",
			fix:     []edit{{file: "recess.yml", old: "workflw", new: "workflow"}},
		},
		{
			name: "action_input_misspelt", base: direct,
			breaks:  []edit{{file: "recess.yml", old: planStep, new: planStep + "          max-operation: \"50\"\n"}},
			want:    []want{{file: "recess.yml", job: "plan", rule: workflows.RuleUnknownInput, at: "max-operation:"}},
			fixSays: "write max-operations:",
			fix:     []edit{{file: "recess.yml", old: "max-operation:", new: "max-operations:"}},
		},
		{
			name: "state_store_outside_its_choices", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: frontDoor, new: frontDoor + "    with: {state-store: brnach}\n"}},
			want:    []want{{file: "recess.yml", job: "recess", rule: workflows.RuleInputChoice, at: "brnach"}},
			fixSays: "write branch instead of brnach",
			fix:     []edit{{file: "recess.yml", old: "brnach", new: "branch"}},
			// The branch store, now chosen, asks for contents: write and for
			// claim and verdict on the same store.
			next: []workflows.Rule{workflows.RuleChoiceSplit, workflows.RuleMissingPermission, workflows.RuleChoiceSplit, workflows.RuleMissingPermission, workflows.RuleMissingPermission},
		},
		{
			name: "wake_on_outside_its_choices", base: direct,
			breaks:  []edit{{file: "recess.yml", old: eventStep, new: eventStep + "        with: {wake-on: mentions}\n"}},
			want:    []want{{file: "recess.yml", job: "event", rule: workflows.RuleInputChoice, at: "mentions"}},
			fixSays: "write mention instead of mentions",
			fix:     []edit{{file: "recess.yml", old: "mentions", new: "mention"}},
			next:    []workflows.Rule{workflows.RuleInputRefused}, // wake-on mention listens for mention-handles
		},
		{
			name: "wake_on_mention_without_handles", base: direct,
			breaks:  []edit{{file: "recess.yml", old: eventStep, new: eventStep + "        with: {wake-on: mention}\n"}},
			want:    []want{{file: "recess.yml", job: "event", rule: workflows.RuleInputRefused, at: eventStep[:len(eventStep)-1]}},
			fixSays: "mention-handles",
			fix:     []edit{{file: "recess.yml", old: "{wake-on: mention}", new: "{wake-on: mention, mention-handles: \"@lead\"}"}},
		},
		{
			name: "command_outside_its_choices", base: direct,
			breaks:  []edit{{file: "recess.yml", old: visitStep, new: "          command: vist\n"}},
			want:    []want{{file: "recess.yml", job: "visit", rule: workflows.RuleInputChoice, at: "vist"}},
			fixSays: "write visit instead of vist",
			fix:     []edit{{file: "recess.yml", old: "vist\n", new: "visit\n"}},
		},
		{
			name: "threads_outside_their_choices", base: threaded,
			breaks:  []edit{{file: "recess.yml", old: "        uses: ./\n        # Every", new: "        uses: ./\n        with: {threads: \"discussions, isues\", mention-handles: \"@lead\"}\n        # Every"}},
			want:    []want{{file: "recess.yml", job: "event", rule: workflows.RuleInputChoice, at: "isues"}},
			fixSays: "write issues instead of isues",
			fix:     []edit{{file: "recess.yml", old: "isues", new: "issues"}},
			// Issues, now served, need their triggers, their group and their permission.
			next: []workflows.Rule{workflows.RuleMissingPermission, workflows.RuleMissingPermission, workflows.RuleFrontDoorTriggers, workflows.RuleFrontDoorTriggers, workflows.RuleWriterGroup},
		},
		{
			name: "threads_without_their_triggers_group_and_permissions", base: threaded,
			breaks: []edit{{file: "recess.yml", old: "        uses: ./\n        # Every", new: "        uses: ./\n        with: {threads: \"discussions,pull-requests\", mention-handles: \"@lead\"}\n        # Every"}},
			want: []want{
				{file: "agent.yml", job: "claim", rule: workflows.RuleMissingPermission, at: "    permissions:\n      discussions: write # the status record"},
				{file: "agent.yml", job: "verdict", rule: workflows.RuleMissingPermission, at: "    permissions:\n      discussions: write # replies"},
				{file: "recess.yml", rule: workflows.RuleFrontDoorTriggers, at: "\non:"},
				{file: "recess.yml", job: "event", rule: workflows.RuleMissingPermission, at: "  discussions: write # read discussions"},
				{file: "recess.yml", job: "plan", rule: workflows.RuleMissingPermission, at: "  discussions: write # read discussions"},
				{file: "recess.yml", job: "visit", rule: workflows.RuleMissingPermission, at: "  discussions: write # read discussions"},
				{file: "recess.yml", job: "event", rule: workflows.RuleWriterGroup, at: "group: recess-${{ github.event.discussion.number }}"}},
			fixSays: "add to on: issue_comment: {types: [created, edited, deleted]}",
			fix: []edit{
				{file: "recess.yml", old: "  discussion_comment:\n", new: "  issue_comment: {types: [created, edited, deleted]}\n  discussion_comment:\n"},
				{file: "recess.yml", old: "group: recess-${{ github.event.discussion.number }}", new: "group: recess-${{ github.event.discussion.number || github.event.issue.number }}"},
				{file: "recess.yml", old: "  issues: write #", new: "  pull-requests: write\n  issues: write #"},
				{file: "agent.yml", old: "      discussions: write # the status record\n", new: "      discussions: write # the status record\n      pull-requests: write\n"},
				{file: "agent.yml", old: "      discussions: write # replies, the status record, reactions\n", new: "      discussions: write # replies, the status record, reactions\n      pull-requests: write\n"},
			},
		},
		{
			name: "reusable_pieces_serving_issues_without_their_triggers_and_permissions", base: reusable,
			breaks: []edit{
				{file: "recess.yml", old: frontDoor, new: frontDoor + "    with: {threads: issues, wake-on: comment}\n"},
				{file: "agent.yml", old: claimCall, new: strings.Replace(claimCall, "\n", "\n    with: {threads: issues, wake-on: comment}\n", 1)},
				{file: "agent.yml", old: verdCall, new: strings.Replace(verdCall, "\n", "\n    with: {threads: issues, wake-on: comment}\n", 1)},
			},
			want: []want{
				{file: "agent.yml", job: "claim", rule: workflows.RuleMissingPermission, at: "    permissions: {discussions: write, contents: read}"},
				{file: "agent.yml", job: "claim", rule: workflows.RuleExcessPermission, at: "    permissions: {discussions: write, contents: read}"},
				{file: "agent.yml", job: "verdict", rule: workflows.RuleMissingPermission, at: "    permissions: {discussions: write, actions: write, contents: read}"},
				{file: "agent.yml", job: "verdict", rule: workflows.RuleExcessPermission, at: "    permissions: {discussions: write, actions: write, contents: read}"},
				{file: "recess.yml", rule: workflows.RuleFrontDoorTriggers, at: "\non:"},
				{file: "recess.yml", rule: workflows.RuleFrontDoorTriggers, at: "\non:"},
				{file: "recess.yml", rule: workflows.RuleExcessPermission, at: "permissions:"},
			},
			fixSays: "add to on: issues: {types: [opened, edited, closed, reopened, locked, unlocked, deleted, transferred]}",
			fix: []edit{
				{file: "recess.yml", old: "  discussion: {types: [created, deleted, transferred, locked, unlocked]}\n  discussion_comment: {types: [created, edited, deleted]}\n",
					new: "  issues: {types: [opened, edited, closed, reopened, locked, unlocked, deleted, transferred]}\n  issue_comment: {types: [created, edited, deleted]}\n"},
				{file: "recess.yml", old: "permissions: {discussions: write, ", new: "permissions: {"},
				{file: "agent.yml", old: "    permissions: {discussions: write, contents: read}", new: "    permissions: {issues: write, contents: read}"},
				{file: "agent.yml", old: "    permissions: {discussions: write, actions: write, contents: read}", new: "    permissions: {issues: write, actions: write, contents: read}"},
				{file: "agent.yml", old: "    permissions: {discussions: read}", new: "    permissions: {issues: read}"},
			},
		},

		// One setup: one front door, one store, one recess.
		{
			name: "claim_and_verdict_on_another_store_than_the_front_door", base: reusable,
			breaks: []edit{{file: "recess.yml", old: frontDoor, new: frontDoor + "    with: {state-store: branch}\n"}, {file: "recess.yml", old: "contents: read}", new: "contents: write}"}},
			want: []want{{file: "agent.yml", job: "claim", rule: workflows.RuleChoiceSplit, at: "claim.yml@v1"},
				{file: "agent.yml", job: "claim", rule: workflows.RuleMissingPermission, at: claimCall},
				{file: "agent.yml", job: "verdict", rule: workflows.RuleChoiceSplit, at: "verdict.yml@v1"},
				{file: "agent.yml", job: "verdict", rule: workflows.RuleMissingPermission, at: verdCall}},
			fixSays: "give it with: {state-store: branch}, as the front door has",
			fix: []edit{{file: "agent.yml", old: claimCall, new: "claim.yml@v1\n    with: {state-store: branch}\n    permissions: {discussions: write, contents: write}"},
				{file: "agent.yml", old: verdCall, new: "verdict.yml@v1\n    with: {state-store: branch}\n    permissions: {discussions: write, actions: write, contents: write}"}},
		},
		{
			name: "claim_on_the_branch_store_the_front_door_has_not", base: reusable,
			breaks: []edit{{file: "agent.yml", old: claimCall, new: "claim.yml@v1\n    with: {state-store: branch}\n    permissions: {discussions: write, contents: write}"}},
			want: []want{{file: "agent.yml", job: "claim", rule: workflows.RuleChoiceSplit, at: "with: {state-store: branch}"},
				// judged by the front door's store, contents: write is more than it needs
				{file: "agent.yml", job: "claim", rule: workflows.RuleExcessPermission, at: "contents: write}"}},
			fixSays: "remove state-store:",
			fix:     []edit{{file: "agent.yml", old: "claim.yml@v1\n    with: {state-store: branch}\n    permissions: {discussions: write, contents: write}", new: claimCall}},
		},
		{
			name: "verdict_on_another_state_branch", base: sweepOnly,
			breaks:  []edit{{file: "agent.yml", old: "verdict.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}", new: "verdict.yml@v1\n    with: {sweep-only-while-waiting: \"true\", state-branch: records}"}},
			want:    []want{{file: "agent.yml", job: "verdict", rule: workflows.RuleChoiceSplit, at: "state-branch: records"}},
			fixSays: "remove state-branch:",
			fix:     []edit{{file: "agent.yml", old: ", state-branch: records", new: ""}},
		},
		{
			name: "verdict_without_the_sweep_switch", base: sweepOnly,
			breaks:  []edit{{file: "agent.yml", old: "verdict.yml@v1\n    with: {sweep-only-while-waiting: \"true\"}\n", new: "verdict.yml@v1\n"}},
			want:    []want{{file: "agent.yml", job: "verdict", rule: workflows.RuleChoiceSplit, at: "verdict.yml@v1"}},
			fixSays: "give it with: {sweep-only-while-waiting: true}, as the front door has",
			fix:     []edit{{file: "agent.yml", old: "verdict.yml@v1\n", new: "verdict.yml@v1\n    with: {sweep-only-while-waiting: true}\n"}},
		},
		{
			name: "claim_of_another_recess_release", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "claim.yml@v1", new: "claim.yml@v2"}},
			want:    []want{{file: "agent.yml", job: "claim", rule: workflows.RuleRefSplit, at: "claim.yml@v2"}},
			fixSays: "uses: recess-action/recess/.github/workflows/claim.yml@v1",
			fix:     []edit{{file: "agent.yml", old: "claim.yml@v2", new: "claim.yml@v1"}},
		},
		{
			name: "lead_installs_another_recess_release", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "recess-action/recess@v1, with: {command: install}", new: "someone/recess@v1, with: {command: install}"}},
			want:    []want{{file: "agent.yml", job: "lead", rule: workflows.RuleRefSplit, at: "someone/recess@v1"}},
			fixSays: "uses: recess-action/recess@v1",
			fix:     []edit{{file: "agent.yml", old: "someone/recess@v1", new: "recess-action/recess@v1"}},
		},
		{
			name: "verdict_runs_the_published_action_beside_a_local_front_door", base: direct,
			breaks:  []edit{{file: "agent.yml", old: "      - name: Hand the verdict to recess\n        uses: ./\n", new: "      - name: Hand the verdict to recess\n        uses: recess-action/recess@v1\n"}},
			want:    []want{{file: "agent.yml", job: "verdict", rule: workflows.RuleRefSplit, at: "uses: recess-action/recess@v1"}},
			fixSays: "uses: ./,",
			fix:     []edit{{file: "agent.yml", old: "uses: recess-action/recess@v1", new: "uses: ./"}},
		},
		{
			name: "two_front_doors", base: reusable,
			breaks: []edit{{file: "recess-rfcs.yml", new: "name: recess for RFCs\non:\n  discussion: {types: [created]}\n  discussion_comment: {types: [created]}\n" +
				"permissions: {discussions: write, actions: write, issues: write, contents: read}\njobs:\n  rfcs:\n    uses: recess-action/recess/.github/workflows/front-door.yml@v1\n    with: {categories: RFCs}\n"}},
			want:    []want{{file: "recess-rfcs.yml", job: "rfcs", rule: workflows.RuleTwoFrontDoors, at: "  rfcs:"}},
			fixSays: "remove it: recess.yml (job recess) is the front door",
			fix:     []edit{{file: "recess-rfcs.yml", drop: true}},
		},
		{
			name: "no_front_door", base: reusable,
			breaks:  []edit{{file: "recess.yml", drop: true}},
			want:    []want{{file: "agent.yml", rule: workflows.RuleNoFrontDoor, at: "\non:"}},
			fixSays: "add the front door, .github/workflows/recess.yml",
			fix:     []edit{{file: "recess.yml", new: readSetup(t, "testdata/reusable")["recess.yml"]}},
		},
		{
			name: "front_door_on_no_discussion_event", base: sweepOnly,
			breaks:  []edit{{file: "recess.yml", old: "  discussion: {types: [created, deleted, transferred, locked, unlocked]}\n  discussion_comment: {types: [created, edited, deleted]}\n"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleFrontDoorTriggers, at: "\non:"}},
			fixSays: "add to on: discussion: {types: [created, deleted, transferred, locked, unlocked]}, discussion_comment: {types: [created, edited, deleted]}",
			fix:     []edit{{file: "recess.yml", old: "\non:\n", new: "\non:\n  discussion: {types: [created, deleted, transferred, locked, unlocked]}\n  discussion_comment: {types: [created, edited, deleted]}\n"}},
		},
		{
			name: "front_door_without_the_comment_trigger", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: "  discussion_comment: {types: [created, edited, deleted]}\n"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleFrontDoorTriggers, at: "\non:"}},
			fixSays: "add to on: discussion_comment: {types: [created, edited, deleted]}",
			fix:     []edit{{file: "recess.yml", old: "\non:\n", new: "\non:\n  discussion_comment: {types: [created, edited, deleted]}\n"}},
		},
		{
			name: "front_door_without_the_created_type", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: "discussion: {types: [created, deleted,", new: "discussion: {types: [deleted,"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleFrontDoorTriggers, at: "discussion: {types: [deleted,"}},
			fixSays: "add created to discussion's types",
			fix:     []edit{{file: "recess.yml", old: "discussion: {types: [deleted,", new: "discussion: {types: [created, deleted,"}},
		},
		{
			name: "comment_trigger_without_the_created_type", base: direct,
			breaks:  []edit{{file: "recess.yml", old: "  discussion_comment:\n    types: [created, edited, deleted]", new: "  discussion_comment:\n    types: edited"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleFrontDoorTriggers, at: "types: edited"}},
			fixSays: "add created to discussion_comment's types",
			fix:     []edit{{file: "recess.yml", old: "types: edited", new: "types: [created, edited]"}},
		},

		// The agent workflow.
		{
			name: "agent_workflow_without_resume_context", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "      resume_context: {type: string, default: \"\"}\n"}},
			want:    []want{{file: "agent.yml", rule: workflows.RuleAgentInputs, at: "    inputs:"}},
			fixSays: "resume_context (default \"\")",
			fix:     []edit{{file: "agent.yml", old: "      discussion_number: {type: string, required: true}\n", new: "      discussion_number: {type: string, required: true}\n      resume_context: {type: string, default: \"\"}\n"}},
		},
		{
			name: "agent_workflow_requiring_an_input_recess_does_not_send", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "      resume_context: {type: string, default: \"\"}\n", new: "      resume_context: {type: string, default: \"\"}\n      model: {type: string, required: true}\n"}},
			want:    []want{{file: "agent.yml", rule: workflows.RuleAgentInputs, at: "model:"}},
			fixSays: "make model optional",
			fix:     []edit{{file: "agent.yml", old: "model: {type: string, required: true}", new: "model: {type: string, required: false}"}},
		},
		{
			name: "agent_workflow_two_files_dispatch_is_judged_once", base: sweepOnly,
			breaks:  []edit{{file: "agent.yml", old: "run-name: agent ${{ inputs.correlation_id }}", new: "run-name: agent"}},
			want:    []want{{file: "agent.yml", rule: workflows.RuleAgentRunName, at: "run-name: agent"}},
			fixSays: "run-name: agent ${{ inputs.correlation_id }}",
			fix:     []edit{{file: "agent.yml", old: "run-name: agent", new: "run-name: agent ${{ inputs.correlation_id }}"}},
		},
		{
			name: "agent_workflow_not_dispatchable", base: direct,
			breaks:  []edit{{file: "agent.yml", old: "  workflow_dispatch:\n", new: "  workflow_call:\n"}},
			want:    []want{{file: "agent.yml", rule: workflows.RuleAgentInputs, at: "\non:"}},
			fixSays: "on: workflow_dispatch",
			fix:     []edit{{file: "agent.yml", old: "  workflow_call:\n", new: "  workflow_dispatch:\n"}},
		},
		{
			name: "agent_run_name_without_the_correlation_id", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "run-name: agent ${{ inputs.correlation_id }}", new: "run-name: agent"}},
			want:    []want{{file: "agent.yml", rule: workflows.RuleAgentRunName, at: "run-name: agent"}},
			fixSays: "run-name: agent ${{ inputs.correlation_id }}",
			fix:     []edit{{file: "agent.yml", old: "run-name: agent", new: "run-name: agent ${{ inputs.correlation_id }}"}},
		},
		{
			name: "agent_workflow_without_verdict", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "  verdict:\n    needs: [claim, lead]\n    uses: recess-action/recess/.github/workflows/verdict.yml@v1\n    permissions: {discussions: write, actions: write, contents: read}\n"}},
			want:    []want{{file: "agent.yml", rule: workflows.RuleAgentJobs, at: "run-name"}},
			fixSays: "verdict.yml last",
			fix:     []edit{{file: "agent.yml", old: "", new: readSetup(t, "testdata/reusable")["agent.yml"]}},
		},
		{
			name: "workflow_input_naming_no_file", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: frontDoor, new: frontDoor + "    with: {workflow: lead.yml}\n"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleWorkflowMissing, at: "lead.yml"}},
			fixSays: "set workflow: to the agent workflow's file name",
			fix:     []edit{{file: "recess.yml", old: "lead.yml", new: "agent.yml"}},
		},
		{
			name: "direct_front_door_naming_no_file", base: direct,
			breaks:  []edit{{file: "recess.yml", old: "        uses: ./\n        # Every", new: "        uses: ./\n        with: {workflow: answer.yml}\n        # Every"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleWorkflowMissing, at: "answer.yml"}},
			fixSays: "set workflow: to the agent workflow's file name",
			fix:     []edit{{file: "recess.yml", old: "answer.yml", new: "agent.yml"}},
		},
		{
			name: "reusable_workflow_recess_does_not_ship", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: "front-door.yml@v1", new: "front-dor.yml@v1"}},
			want:    []want{{file: "recess.yml", job: "recess", rule: workflows.RuleWorkflowMissing, at: "front-dor.yml"}},
			fixSays: "call front-door.yml",
			fix:     []edit{{file: "recess.yml", old: "front-dor.yml", new: "front-door.yml"}},
		},
		{
			name: "verdict_dispatching_another_workflow", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "verdict.yml@v1\n", new: "verdict.yml@v1\n    with: {workflow: lead.yml}\n"}},
			want:    []want{{file: "agent.yml", job: "verdict", rule: workflows.RuleVerdictWorkflow, at: "with: {workflow: lead.yml}"}},
			fixSays: "give the verdict workflow: agent.yml",
			fix:     []edit{{file: "agent.yml", old: "lead.yml", new: "agent.yml"}},
		},

		// The sweep.
		{
			name: "cron_not_five_fields", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: `"2-59/5 * * * *"`, new: `"2-59/5 * * *"`}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleCron, at: "cron:"}},
			fixSays: `cron: "2-59/5 * * * *"`,
			fix:     []edit{{file: "recess.yml", old: `"2-59/5 * * *"`, new: `"2-59/5 * * * *"`}},
		},
		{
			name: "cron_field_out_of_range", base: sweepOnly,
			breaks:  []edit{{file: "recess-sweep.yml", old: `"2-59/5 * * * *"`, new: `"2-59/5 * * * 8"`}},
			want:    []want{{file: "recess-sweep.yml", rule: workflows.RuleCron, at: "cron:"}},
			fixSays: `cron: "2-59/5 * * * *"`,
			fix:     []edit{{file: "recess-sweep.yml", old: `* 8"`, new: `* *"`}},
		},
		{
			name: "schedule_not_a_list", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: `schedule: [{cron: "2-59/5 * * * *"}]`, new: `schedule: {cron: "2-59/5 * * * *"}`}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleCron, at: "schedule:"}},
			fixSays: `schedule: [{cron: "2-59/5 * * * *"}]`,
			fix:     []edit{{file: "recess.yml", old: `schedule: {cron: "2-59/5 * * * *"}`, new: `schedule: [{cron: "2-59/5 * * * *"}]`}},
		},
		{
			name: "schedule_on_the_top_of_the_hour", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: `"2-59/5 * * * *"`, new: `"*/5 * * * *"`}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleTopOfHour, at: "cron:"}},
			fixSays: `cron: "2-59/5 * * * *"`,
			fix:     []edit{{file: "recess.yml", old: `"*/5 * * * *"`, new: `"2-59/5 * * * *"`}},
		},
		{
			name: "no_sweep", base: reusable,
			breaks:  []edit{{file: "recess.yml", old: "  schedule: [{cron: \"2-59/5 * * * *\"}] # the sweep, off the top of the hour\n"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleNoSweep, at: "\non:"}},
			fixSays: `add schedule: [{cron: "2-59/5 * * * *"}] to the front door`,
			fix:     []edit{{file: "recess.yml", old: "\non:\n", new: "\non:\n  schedule: [{cron: \"2-59/5 * * * *\"}]\n"}},
		},
		{
			name: "no_sweep_beside_a_direct_front_door", base: direct,
			breaks:  []edit{{file: "recess.yml", old: "  schedule:\n"}, {file: "recess.yml", old: "    - cron: \"2-59/5 * * * *\"\n"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleNoSweep, at: "\non:"}},
			fixSays: "a plan job and a visit job per discussion",
			fix:     []edit{{file: "recess.yml", old: "\non:\n", new: "\non:\n  schedule: [{cron: \"2-59/5 * * * *\"}]\n"}},
		},
		{
			name: "sweep_switch_without_the_sweep_file", base: sweepOnly,
			breaks:  []edit{{file: "recess-sweep.yml", drop: true}},
			want:    []want{{file: "recess.yml", job: "recess", rule: workflows.RuleWorkflowMissing, at: "sweep-only-while-waiting"}},
			fixSays: "add .github/workflows/recess-sweep.yml",
			fix:     []edit{{file: "recess-sweep.yml", new: readSetup(t, "testdata/sweep-only")["recess-sweep.yml"]}},
		},
		{
			name: "sweep_switch_naming_the_front_door", base: sweepOnly,
			breaks:  []edit{{file: "recess.yml", old: `{sweep-only-while-waiting: "true"}`, new: `{sweep-only-while-waiting: "true", sweep-workflow: recess.yml}`}},
			want:    []want{{file: "recess.yml", job: "recess", rule: workflows.RuleSweepWorkflow, at: "sweep-workflow: recess.yml"}},
			fixSays: "name that file in sweep-workflow:",
			fix:     []edit{{file: "recess.yml", old: ", sweep-workflow: recess.yml", new: ", sweep-workflow: recess-sweep.yml"}},
		},
		{
			name: "sweep_switch_naming_the_agent_workflow", base: sweepOnly,
			breaks:  []edit{{file: "recess.yml", old: `{sweep-only-while-waiting: "true"}`, new: `{sweep-only-while-waiting: "true", sweep-workflow: agent.yml}`}},
			want:    []want{{file: "recess.yml", job: "recess", rule: workflows.RuleInputRefused, at: "sweep-workflow: agent.yml"}},
			fixSays: "input sweep-workflow",
			fix:     []edit{{file: "recess.yml", old: ", sweep-workflow: agent.yml", new: ""}},
		},

		// The repository around it.
		{
			name: "pull_request_target_checking_out_the_head", base: reusable,
			breaks: []edit{{file: "preview.yml", new: "name: preview\non: pull_request_target\npermissions: {contents: read, pull-requests: write}\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n" +
				"      - uses: actions/checkout@v6\n        with: {ref: \"${{ github.event.pull_request.head.sha }}\"}\n      - run: make preview\n"}},
			want:    []want{{file: "preview.yml", job: "build", rule: workflows.RulePullRequestHead, at: "head.sha"}},
			fixSays: "drop ref:",
			fix:     []edit{{file: "preview.yml", old: "        with: {ref: \"${{ github.event.pull_request.head.sha }}\"}\n"}},
		},
		{
			name: "no_recess_at_all", base: func(t *testing.T) setup {
				return setup{"ci.yml": readSetup(t, "../../.github/workflows")["ci.yml"]}
			},
			want:    []want{{file: ".", rule: workflows.RuleNoSetup}},
			fixSays: "recess init",
			fix:     []edit{{file: "recess.yml", new: readSetup(t, "testdata/reusable")["recess.yml"]}, {file: "agent.yml", new: readSetup(t, "testdata/reusable")["agent.yml"]}},
		},
		{
			name: "event_text_in_a_shell", base: direct,
			breaks:  []edit{{file: "agent.yml", old: "          go run ./cmd/recess-lab mcp-script\n", new: "          go run ./cmd/recess-lab mcp-script # ${{ inputs.discussion_number }}\n"}},
			want:    []want{{file: "agent.yml", job: "lead", rule: workflows.RuleExpressionInRun, at: "        run: |"}},
			fixSays: "pass the value through the step's env:",
			fix:     []edit{{file: "agent.yml", old: " # ${{ inputs.discussion_number }}"}},
		},
		{
			name: "key_given_twice", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "permissions: {discussions: read}", new: "permissions: {discussions: read, discussions: write}"}},
			want:    []want{{file: "agent.yml", rule: workflows.RuleUnreadable, at: "discussions: read, discussions: write}"}},
			fixSays: "make it a workflow GitHub accepts",
			fix:     []edit{{file: "agent.yml", old: ", discussions: write}", new: "}"}},
		},
		{
			// Nothing is said missing that may stand in the file it cannot read.
			name: "unreadable_front_door", base: sweepOnly,
			breaks:  []edit{{file: "recess.yml", old: "jobs:\n", new: "jobs: [\n"}},
			want:    []want{{file: "recess.yml", rule: workflows.RuleUnreadable}},
			fixSays: "make it a workflow GitHub accepts",
			fix:     []edit{{file: "recess.yml", old: "jobs: [\n", new: "jobs:\n"}},
		},
		{
			name: "unreadable_agent_workflow", base: reusable,
			breaks:  []edit{{file: "agent.yml", old: "jobs:\n", new: "jobs: [\n"}},
			want:    []want{{file: "agent.yml", rule: workflows.RuleUnreadable}},
			fixSays: "make it a workflow GitHub accepts",
			fix:     []edit{{file: "agent.yml", old: "jobs: [\n", new: "jobs:\n"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.base(t)
			s.apply(t, tt.breaks)
			got := checkSetup(t, s.withAction())
			var want []workflows.Finding
			for i, w := range tt.want {
				line := 1
				if w.at != "" {
					text := s[w.file]
					i := strings.Index(text, w.at)
					if i < 0 || strings.Contains(text[i+1:], w.at) {
						t.Fatalf("%q is not unique in the broken %s", w.at, w.file)
					}
					line = strings.Count(text[:i+len(w.at)-1], "\n") + 1
				} else if w.file != "." && i < len(got) {
					line = got[i].Line // a YAML error's line is YAML's
				}
				file := workflows.Dir
				if w.file != "." {
					file += "/" + w.file
				}
				want = append(want, workflows.Finding{File: file, Line: line, Job: w.job, Rule: w.rule})
			}
			if diff := cmp.Diff(want, got, ignoreText); diff != "" {
				t.Errorf("CheckRepo() (-want +got):\n%s\nall:\n%s", diff, lines(got))
			}
			for _, f := range got {
				if f.Message == "" || f.Fix == "" {
					t.Errorf("finding %+v has no message or no fix", f)
				}
			}
			if !slices.ContainsFunc(got, func(f workflows.Finding) bool { return strings.Contains(f.Fix, tt.fixSays) }) {
				t.Errorf("no finding's fix says %q:\n%s", tt.fixSays, lines(got))
			}
			// The fix as check says it.
			s.apply(t, tt.fix)
			after := checkSetup(t, s.withAction())
			var rules []workflows.Rule
			for _, f := range after {
				rules = append(rules, f.Rule)
			}
			if diff := cmp.Diff(tt.next, rules); diff != "" {
				t.Errorf("after the fix, CheckRepo() rules (-want +got):\n%s\nall:\n%s", diff, lines(after))
			}
		})
	}
}

func lines(fs []workflows.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}
