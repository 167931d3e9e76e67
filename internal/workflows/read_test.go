package workflows

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// Read says, of every job's and step's uses, whether it is recess's and
// what it does, with the rules' one answer: OWNER/recess@REF or ./ for the
// action, a workflow recess ships for a call; a step keeps its place in the
// document.
func TestReadTellsRecessUses(t *testing.T) {
	t.Parallel()
	const y = `on: workflow_dispatch
jobs:
  check: {uses: recess-action/recess/.github/workflows/claim.yml@v1}
  mine: {uses: ./.github/workflows/claim.yml}
  other: {uses: someone/flows/.github/workflows/claim.yml@v1}
  lead:
    steps:
      - {uses: recess-action/recess@v1.4.2, with: {command: install}}
      - uses: "Fork/recess@0123abc" # pinned
      - uses: recess-action/recess-fork@v1
      - uses: someone/recess-action/recess@v2
      - uses: ./
        with: {command: Verdict, settings: {a: b}}
      - run: echo no uses
      - uses: anthropics/claude-code-action@v1
        with:
          claude_args: |
            --mcp-config x
`
	w, err := Read("agent.yml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	want := []Use{
		{Job: "check", Uses: "recess-action/recess/.github/workflows/claim.yml@v1", Release: "recess-action/recess@v1", Command: "claim"},
		{Job: "mine", Uses: "./.github/workflows/claim.yml", Release: "./", Command: "claim"},
		{Job: "other", Uses: "someone/flows/.github/workflows/claim.yml@v1"},
		{Job: "lead", Uses: "recess-action/recess@v1.4.2", With: map[string]string{"command": "install"}, Release: "recess-action/recess@v1.4.2", Command: "install"},
		{Job: "lead", Uses: "Fork/recess@0123abc", Release: "Fork/recess@0123abc", Command: "auto"},
		{Job: "lead", Uses: "recess-action/recess-fork@v1"},
		{Job: "lead", Uses: "someone/recess-action/recess@v2"},
		{Job: "lead", Uses: "./", With: map[string]string{"command": "Verdict"}, Release: "./", Command: "verdict"},
		{Job: "lead", Uses: "anthropics/claude-code-action@v1", With: map[string]string{"claude_args": "--mcp-config x\n"}},
	}
	if diff := cmp.Diff(want, w.Uses, cmpopts.IgnoreFields(Use{}, "Step"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Read().Uses (-want +got):\n%s", diff)
	}
	for i, u := range w.Uses {
		if step := u.Step != nil; step != (u.Job == "lead") {
			t.Errorf("uses %d (%s): Step set %v, want %v", i, u.Uses, step, !step)
		}
	}
	if last := w.Uses[len(w.Uses)-1].Step; last == nil || last.Line != 15 {
		t.Errorf("the model step's node = %v, want the step in the document at line 15", last)
	}
}

// The front door is the job check takes for one: it answers a thread's
// event with recess; its inputs are those its piece declares, as given or
// by default.
func TestFrontDoorInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml string
		want       map[string]string // the inputs compared; nil: no front door
	}{
		{name: "reusable_defaults", yaml: "on: discussion\njobs:\n  r: {uses: recess-action/recess/.github/workflows/front-door.yml@v1}\n",
			want: map[string]string{"workflow": "agent.yml", "state-store": "comment", "sweep-workflow": "recess-sweep.yml", "categories": ""}},
		{name: "reusable_given", yaml: "on: discussion\njobs:\n  r:\n    uses: recess-action/recess/.github/workflows/front-door.yml@v1\n    with: {workflow: ' lead.yml ', state-store: branch}\n",
			want: map[string]string{"workflow": "lead.yml", "state-store": "branch", "sweep-workflow": "recess-sweep.yml", "categories": ""}},
		{name: "the_step_that_answers_events", yaml: "on: [discussion, schedule]\njobs:\n  plan:\n    steps: [{uses: ./, with: {command: plan, workflow: a.yml}}]\n  event:\n    steps: [{uses: ./, with: {workflow: b.yml, categories: RFCs}}]\n",
			want: map[string]string{"workflow": "b.yml", "state-store": "comment", "sweep-workflow": "recess-sweep.yml", "categories": "RFCs"}},
		{name: "no_thread_event", yaml: "on: push\njobs:\n  r: {uses: recess-action/recess/.github/workflows/front-door.yml@v1}\n"},
		{name: "no_job_answers_events", yaml: "on: [discussion, schedule]\njobs:\n  r:\n    steps: [{uses: ./, with: {command: plan}}]\n"},
		{name: "a_called_workflow", yaml: "on: workflow_call\njobs:\n  r:\n    steps: [{uses: ./}]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, err := Read("recess.yml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if (w.FrontDoor != nil) != (tt.want != nil) {
				t.Fatalf("FrontDoor = %v, want a front door: %v", w.FrontDoor, tt.want != nil)
			}
			for k, v := range tt.want {
				if got := w.FrontDoor[k]; got != v {
					t.Errorf("FrontDoor[%s] = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestReadRefusesWhatIsNoWorkflow(t *testing.T) {
	t.Parallel()
	for name, y := range map[string]string{
		"a_list":      "- just\n- a list\n",
		"no_jobs":     "on: push\n",
		"a_key_twice": "on: push\non: discussion\njobs: {a: {steps: [{run: x}]}}\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := Read(name+".yml", []byte(y)); err == nil {
				t.Error("Read() accepted it")
			}
		})
	}
}

// Input threads is read one way by the action, recess mcp, init and check:
// without case, in its order, once each; an item that names no kind is
// refused naming the field given, and the kinds the others name are still
// read (check reports the item by its own rule).
func TestParseThreads_reads_input_threads_as_recess_does(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, v string
		want    []state.Kind
		values  []string // ThreadsValuesOf(want)
		refused string   // the refusal, "" when accepted
	}{
		{name: "empty", v: " ", want: nil, values: []string{}},
		{name: "in_order_once_each_without_case", v: "Pull-Requests, issues,\nISSUES",
			want: []state.Kind{state.KindPullRequest, state.KindIssue}, values: []string{"pull-requests", "issues"}},
		{name: "unknown_item", v: "discussions, Bogus, nope", want: []state.Kind{state.KindDiscussion}, values: []string{"discussions"},
			refused: `input threads: "Bogus" is not one of discussions, issues, pull-requests`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseThreads("input threads", tt.v)
			var fe *wait.FieldError
			switch {
			case tt.refused == "" && err != nil:
				t.Errorf("ParseThreads(%q) = %v", tt.v, err)
			case tt.refused != "" && (!errors.As(err, &fe) || err.Error() != tt.refused):
				t.Errorf("ParseThreads(%q) = %v, want the field error %q", tt.v, err, tt.refused)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.values, ThreadsValuesOf(got)); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}
