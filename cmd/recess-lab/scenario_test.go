package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A scenario's mistakes are named as the YAML has them: the key's path and
// line, never a Go type.
func TestParseScenario_names_the_yaml_field(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"unknown_step_key", "steps:\n  - discusion: {author: alice}\n", `steps[0].discusion: line 2: unknown key "discusion"; steps[0] has agent, close, comment, discussion, expect, issue, pull_request, sweep, wait`},
		{"unknown_nested_key", "steps:\n  - discussion: {author: alice}\n  - comment:\n      autor: bob\n", `steps[1].comment.autor: line 4: unknown key "autor"`},
		{"unknown_top_level_key", "name: x\nstpes: []\n", `stpes: line 2: unknown key "stpes"; the document has inputs, maintainers, name, start, steps`},
		{"wrong_kind_number", "steps:\n  - expect: {dispatches: two}\n", `steps[0].expect.dispatches: line 2: want a whole number, found "two"`},
		{"wrong_kind_bool", "steps:\n  - sweep: yes please\n", `steps[0].sweep: line 2: want true or false, found "yes please"`},
		{"wrong_kind_list", "steps:\n  discussion: {author: alice}\n", `steps: line 2: want a list, found a mapping`},
		{"wrong_kind_sharing_a_line", "steps:\n  - comment: {author: bob, body: {text: hi}}\n", `steps[0].comment.body: line 2: want a single value, found a mapping`},
		{"wrong_start", "start: tomorrow\n", `start: line 1: want a time (RFC 3339, such as 2026-11-21T10:00:00Z), found "tomorrow"`},
		{"twice", "name: a\nname: b\n", `name: line 2: given twice`},
		{"not_yaml", "steps: [\n", `not valid YAML`},
		{"unknown_input", "inputs: {max-attemps: \"2\"}\n", `inputs.max-attemps: not an input of recess`},
		{"runner_input", "inputs: {command: sweep}\n", `inputs.command: set by the scenario runner`},
		{"two_things", "steps:\n  - {sweep: true, wait: PT1H}\n", `steps[0]: a step does exactly one thing of discussion, issue, pull_request, comment, agent, wait, sweep, close, expect (found 2: wait, sweep)`},
		{"bad_wait", "steps:\n  - wait: 1 hour\n", `steps[0].wait: `},
		{"agent_without_answer", "steps:\n  - agent: {summary: hm}\n", `steps[0].agent: give verdict (the run answers), fail (it ends without a verdict) or lead: true`},
		{"agent_with_two_answers", "steps:\n  - agent: {verdict: adjourned, lead: true}\n", `steps[0].agent: give verdict (the run answers), fail`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseScenario([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("parseScenario = %v, want an error containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "main.") || strings.Contains(err.Error(), " type ") {
				t.Errorf("parseScenario error names a Go type: %v", err)
			}
		})
	}
}

// An inputs value may be written as YAML would (a number, a list of
// words): it is the input's text.
func TestParseScenario_inputs_are_text(t *testing.T) {
	t.Parallel()
	s, err := parseScenario([]byte("inputs: {max-attempts: 3, state-store: branch}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Inputs["max-attempts"] != "3" || s.Inputs["state-store"] != "branch" {
		t.Errorf("inputs = %v", s.Inputs)
	}
}

// A refusal fails the scenario unless the step says it expects that very
// refusal.
func TestScenario_refusals(t *testing.T) {
	t.Parallel()
	const opening = `
steps:
  - discussion: {author: alice}
  - agent:
      verdict: recessed
      replies: [{body: "Which region?"}]
      trigger: {kind: missing_inputs, replies: 1}
`
	for _, tc := range []struct {
		name, refused, want string
	}{
		{"unexpected", "", "steps[1]: recess (verdict) refused trigger.kind"},
		{"expected", "trigger.kind", ""},
		{"another_field", "verdict.replies[0].body", "steps[1]: recess (verdict) refused trigger.kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := opening
			if tc.refused != "" {
				doc += "      refused: " + tc.refused + "\n"
			}
			doc += "  - expect: {dispatches: 1, open_rfcs: 0}\n"
			s, err := parseScenario([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			_, err = runScenario(context.Background(), s, &out, false)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("runScenario = %v, want it to pass\n%s", err, out.String())
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("runScenario = %v, want an error containing %q\n%s", err, tc.want, out.String())
			case tc.want == "" && !strings.Contains(out.String(), "recess (verdict) refuses it: trigger.kind"):
				t.Errorf("the story does not tell the refusal:\n%s", out.String())
			}
		})
	}

	// A refusal the step expects that does not come fails too.
	s, err := parseScenario([]byte(`
steps:
  - discussion: {author: alice}
  - agent: {verdict: adjourned, refused: verdict.verdict}
`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runScenario(context.Background(), s, &bytes.Buffer{}, false); err == nil || !strings.Contains(err.Error(), "accepted what it should have refused for verdict.verdict") {
		t.Errorf("runScenario = %v, want the accepted verdict to fail the scenario", err)
	}
}

// Every lab command answers --help and -h with its usage on stdout, exit 0.
func TestHelp_exits_0_everywhere(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"},
		{"demo", "--help"}, {"scenario", "--help"}, {"act", "--help"}, {"mcp-script", "--help"}, {"fakegithub", "--help"},
		{"demo", "-h"}, {"scenario", "-h"}, {"act", "-h"}, {"mcp-script", "-h"}, {"fakegithub", "-h"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, func(string) string { return "" }, &out, &errb)
		if code != 0 || !strings.Contains(out.String(), "usage:") || !strings.Contains(out.String(), "recess-lab") || errb.Len() != 0 {
			t.Errorf("recess-lab %v: exit %d, stdout %.60q, stderr %q; want exit 0 and the usage on stdout", args, code, out.String(), errb.String())
		}
	}
	// A bad flag, a missing command or argument is still refused, with the usage on stderr.
	for _, args := range [][]string{nil, {"demo", "--bogus"}, {"scenario", "--bogus", "x.yaml"}, {"scenario"}, {"eval"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, func(string) string { return "" }, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage:") || !strings.Contains(errb.String(), "recess-lab") {
			t.Errorf("recess-lab %v: exit %d, stderr %q; want exit 2 with the usage", args, code, errb.String())
		}
	}
}

// A scenario can say what the act story checks: recess's reply labelled
// and answered under, the history with who answered what, a run delivered
// again and found stale, EYES, labels and the log. Each expectation fails
// when the world differs, naming what it found.
func TestScenario_checks_replies_reactions_labels_and_logs(t *testing.T) {
	t.Parallel()
	const story = `
steps:
  - discussion: {author: alice}
  - expect: {dispatches: 1, eyes: true, labels: ["recess:waiting"]}
  - agent:
      verdict: recessed
      label: question
      replies: [{body: "Which region?"}]
      trigger: {kind: missing_input, replies: 2}
  - expect: {log: ["recessed: 1 reply posted"]}
  - wait: PT1M
  - comment: {author: bob, reply_to: question, body: "eu-west-1"}
  - comment: {author: carol, body: "agreed"}
  - expect: {dispatches: 2, history: ["bob > question", carol]}
  - agent: {run: 1, stale: true}
  - expect: {log: ["stale"]}
  - agent: {verdict: adjourned, replies: [{body: "eu-west-1 it is."}]}
  - expect: {eyes: false, labels: [], status: "Nothing is pending"}
`
	for _, tc := range []struct{ name, from, to, want string }{
		{"as_told", "", "", ""},
		{"eyes", "eyes: true,", "eyes: false,", "steps[1]: expectation failed: EYES of recess on the discussion: true, want false"},
		{"labels", `labels: []`, `labels: ["recess:waiting"]`, `steps[11]: expectation failed: labels = [], want ["recess:waiting"]`},
		{"history", `history: ["bob > question", carol]`, `history: [bob, carol]`, `history = ["bob > question" "carol"], want ["bob" "carol"]`},
		{"log", `log: ["stale"]`, `log: ["claimed"]`, `steps[9]: expectation failed: the last step's log lacks "claimed"`},
		{"not_stale", "agent: {run: 1, stale: true}", "agent: {run: 2, stale: true}", "steps[8]: agent: the claim of run 9000000002 did not find it stale"},
		{"no_such_label", "reply_to: question", "reply_to: answer", `steps[5]: comment.reply_to: no comment labelled "answer"`},
		{"answer_under_no_such_label", `{body: "eu-west-1 it is."}`, `{body: "eu-west-1 it is.", reply_to: answer}`, `steps[10]: agent.replies.reply_to: no comment labelled "answer"`},
		{"a_lead_in_process", "agent: {verdict: adjourned, replies: [{body: \"eu-west-1 it is.\"}]}", "agent: {lead: true}", "steps[10]: agent.lead: only recess-lab act runs the workflow's lead"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := strings.Replace(story, tc.from, tc.to, 1)
			if doc == story && tc.from != "" {
				t.Fatalf("%q is not in the story", tc.from)
			}
			s, err := parseScenario([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			_, err = runScenario(context.Background(), s, &out, false)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("runScenario = %v, want %q\n%s", err, tc.want, out.String())
			}
		})
	}
}

// The act story is a scenario whose agent steps are the workflow's lead
// (or a duplicate delivery): under act nothing else answers.
func TestActStory_parses(t *testing.T) {
	t.Parallel()
	s, err := parseScenario(readFile(t, "../../"+actStory))
	if err != nil {
		t.Fatal(err)
	}
	agents := 0
	for i, st := range s.Steps {
		if a := st.Agent; a != nil {
			agents++
			if !a.Lead && !a.Stale || a.Verdict != "" || a.Fail != "" {
				t.Errorf("steps[%d].agent = %+v: under act the workflow's lead answers", i, *a)
			}
		}
	}
	if agents != 3 {
		t.Errorf("%d agent steps, want the first run, its duplicate and the resumed run", agents)
	}
}
