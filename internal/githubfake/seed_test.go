package githubfake

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApplySeedBuildsTheRepository(t *testing.T) {
	t.Parallel()
	s, err := ParseSeed([]byte(`
tokens: [{token: t-bot, login: github-actions, bot: true}]
repos:
  - name: octo/hello
    labels: ["recess:waiting"]
    workflows:
      - file: agent.yml
        run_name: "agent ${{ inputs.correlation_id }}"
        inputs: {correlation_id: {required: true}}
      - file: recess-sweep.yml
        state: disabled_inactivity
    discussions:
      - author: alice
        title: RFC
        body: Which backend?
        comments: [{author: bob, body: Postgres, replies: [{author: carol, body: agreed}]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	g := New()
	if err := g.ApplySeed(s); err != nil {
		t.Fatalf("ApplySeed() = %v", err)
	}
	if st, err := g.WorkflowState("octo/hello", "recess-sweep.yml"); err != nil || st != WorkflowDisabledInactivity {
		t.Errorf("WorkflowState(recess-sweep.yml) = %q, %v; want disabled_inactivity", st, err)
	}
	d, err := g.Discussion("octo/hello", 1)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := g.Comments(d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Body != "Postgres" || cs[1].ParentID != cs[0].ID || cs[1].Author != "carol" {
		t.Errorf("comments = %+v, want bob's comment and carol's reply under it", cs)
	}
	if got := RenderRunName("agent ${{ inputs.correlation_id }} #${{ github.event.inputs.n }}", map[string]string{"correlation_id": "c-1", "n": "4"}); got != "agent c-1 #4" {
		t.Errorf("RenderRunName() = %q", got)
	}
}

func TestApplySeedOpensIssuesAfterTheDiscussions(t *testing.T) {
	t.Parallel()
	s, err := ParseSeed([]byte(`
repos:
  - name: octo/hello
    labels: ["recess:waiting"]
    discussions: [{author: alice, title: RFC}]
    issues:
      - {author: alice, title: Crash, labels: ["recess:waiting"], comments: [{author: "renovate[bot]", body: bump}, {author: bob, body: same here}]}
      - {author: bob, title: Fix, pull_request: true, state: merged}
      - {author: carol, title: Old, state: closed, locked: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	g := New()
	if err := g.ApplySeed(s); err != nil {
		t.Fatalf("ApplySeed() = %v", err)
	}
	type row struct {
		Kind, Title, Reason  string
		Closed, Merged, Lock bool
		Labels               []string
	}
	var got []row
	for n := 2; n <= 4; n++ {
		d, err := g.Issue("octo/hello", n)
		if err != nil {
			t.Fatalf("Issue(%d) = %v", n, err)
		}
		got = append(got, row{d.Kind, d.Title, d.StateReason, d.Closed, d.Merged, d.Locked, d.Labels})
	}
	want := []row{
		{Kind: "Issue", Title: "Crash", Labels: []string{"recess:waiting"}},
		{Kind: "PullRequest", Title: "Fix", Closed: true, Merged: true},
		{Kind: "Issue", Title: "Old", Reason: "COMPLETED", Closed: true, Lock: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("issues (-want +got):\n%s", diff)
	}
	crash, _ := g.Issue("octo/hello", 2)
	cs, err := g.Comments(crash.ID)
	if err != nil || len(cs) != 2 || cs[0].Author != "renovate" || cs[1].Body != "same here" {
		t.Errorf("comments = %+v, %v; want renovate's and bob's", cs, err)
	}
}

func TestSeedErrorsNameTheField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml, want string
	}{
		{name: "unknown_key", yaml: "repos: [{name: octo/hello, colour: red}]", want: "colour"},
		{name: "bad_repo_name", yaml: "repos: [{name: hello}]", want: "repos[0]: name"},
		{name: "token_without_login", yaml: "tokens: [{token: x}]", want: "tokens[0]"},
		{name: "workflow_without_file", yaml: "repos: [{name: o/r, workflows: [{run_name: x}]}]", want: "repos[0]: workflows[0].file"},
		{name: "unknown_workflow_state", yaml: "repos: [{name: o/r, workflows: [{file: s.yml, state: sleeping}]}]", want: "repos[0]: workflows[0].state"},
		{name: "discussion_without_title", yaml: "repos: [{name: o/r, discussions: [{author: a, body: b}]}]", want: "repos[0]: discussions[0]"},
		{name: "issue_without_title", yaml: "repos: [{name: o/r, issues: [{author: a, body: b}]}]", want: "repos[0]: issues[0]: githubfake: invalid argument: empty title"},
		{name: "issue_with_unknown_label", yaml: "repos: [{name: o/r, issues: [{title: t, labels: [nope]}]}]", want: "repos[0]: issues[0].labels[0]"},
		{name: "merged_issue", yaml: "repos: [{name: o/r, issues: [{title: t, state: merged}]}]", want: "repos[0]: issues[0].state"},
		{name: "issue_comment_key_unknown", yaml: "repos: [{name: o/r, issues: [{title: t, comments: [{author: a, body: b, replies: []}]}]}]", want: "replies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := ParseSeed([]byte(tt.yaml))
			if err == nil {
				err = New().ApplySeed(s)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("seed %q: error %v, want one naming %q", tt.yaml, err, tt.want)
			}
		})
	}
}

// The seed recess act and the act test use must stay valid.
func TestActSeedApplies(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../testdata/act/seed.yml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSeed(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := New().ApplySeed(s); err != nil {
		t.Fatalf("testdata/act/seed.yml: %v", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The fake learns a dispatchable workflow's run-name and inputs from its
// file, as GitHub does.
func TestWorkflowFromFile(t *testing.T) {
	t.Parallel()
	got, err := WorkflowFromFile("agent.yml", mustRead(t, "../../testdata/quickstart/agent.yml"))
	if err != nil {
		t.Fatal(err)
	}
	want := SeedWorkflow{File: "agent.yml", RunName: "agent ${{ inputs.correlation_id }}", Inputs: map[string]SeedInputSpec{
		"correlation_id": {Required: true}, "discussion_number": {Required: true}, "resume_context": {},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WorkflowFromFile() (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ name, yaml, err string }{
		{"no_dispatch", "on: {push: {}}\njobs: {}\n", "no workflow_dispatch"},
		{"on_as_a_list", "on: [push]\njobs: {}\n", "no workflow_dispatch"},
		{"required_not_a_bool", "on: {workflow_dispatch: {inputs: {x: {required: maybe}}}}\njobs: {}\n", "on.workflow_dispatch.inputs.x.required"},
		{"dispatch_by_name_only", "on: workflow_dispatch\njobs: {}\n", "no workflow_dispatch with inputs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := WorkflowFromFile("a.yml", []byte(tc.yaml)); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error = %v, want one saying %q", err, tc.err)
			}
		})
	}
}
