package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemo_tells_the_whole_story(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := runScenarios(context.Background(), "demo", nil, &out, &errb); code != 0 {
		t.Fatalf("recess-lab demo exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{
		"opens discussion #1",
		"recess dispatches the agent",
		"Waiting for 2 more replies (0 of 2 so far)",
		"recess resumes the agent (fired by missing_input)",
		`"fired_by": "missing_input"`,
		"Nothing is pending here",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestScenarios(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios found: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			if code := runScenarios(context.Background(), "scenario", []string{f}, &out, &errb); code != 0 {
				t.Fatalf("scenario %s: exit %d\n%s\n%s", f, code, out.String(), errb.String())
			}
		})
	}
}

// A story that fails says the reason recess gave and the end of the log of
// the step that did not do what was expected.
func TestStory_failure_says_the_reason_recess_gave(t *testing.T) {
	t.Parallel()
	s, err := parseScenario([]byte(`
name: out of scope
inputs: {categories: RFCs}
steps:
  - discussion: {author: alice, title: "RFC: storage"}
  - expect: {dispatches: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = runScenario(context.Background(), s, io.Discard, false)
	if err == nil {
		t.Fatal("the story passed; want its expectation to fail")
	}
	want := "steps[1]: expectation failed: dispatches = 0, want 1\n--- recess said:\n  discussion 1 is out of scope (categories): nothing to do\n--- end of the log:\n"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %q, want it to start %q", err, want)
	}
}

// An expectation of one store is not checked on the other; the sweep's
// own workflow is checked where the setup keeps it apart.
func TestStory_expectations_follow_the_setup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml, err string
	}{
		{name: "status_on_the_branch_store", yaml: `
inputs: {state-store: branch}
steps:
  - discussion: {author: alice, title: "RFC"}
  - expect: {store: comment, status: "An agent is working", labels: ["recess:waiting"]}
  - expect: {store: branch, dispatches: 1}
`},
		{name: "status_on_the_comment_store", yaml: `
steps:
  - discussion: {author: alice, title: "RFC"}
  - expect: {store: comment, status: "Waiting for", labels: []}
`, err: `status comment "▶️ An agent is working on this discussion." does not contain "Waiting for"; labels = ["recess:waiting"], want []`},
		{name: "the_sweep_apart", yaml: `
inputs: {sweep-only-while-waiting: "true"}
steps:
  - discussion: {author: alice, title: "RFC"}
  - expect: {sweep_workflow: disabled_manually}
`, err: "the sweep's workflow recess-sweep.yml is active, want disabled_manually"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := parseScenario([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			_, err = runScenario(context.Background(), s, io.Discard, false)
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("story failed: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("story error = %v, want one saying %q", err, tt.err)
			}
		})
	}
}
