package workflows_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/resume"
)

// The evaluator reads expressions as GitHub documents them.
func TestEvalExpr_reads_expressions_as_github_documents(t *testing.T) {
	t.Parallel()
	context := map[string]any{
		"github": map[string]any{"event": map[string]any{"issue": map[string]any{
			"labels": []any{map[string]any{"name": "bug"}, map[string]any{"name": "Recess:Waiting"}}}}},
		"inputs": map[string]any{"mention-handles": "@lead\n@helper", "empty": ""},
	}
	tests := []struct {
		expr string
		want any
	}{
		{"'a' == 'A'", true},
		{"'a' != 'b' && 'yes'", "yes"},
		{"'' || 'fallback'", "fallback"},
		{"inputs.empty || '@'", "@"},
		{"null == 0", true},
		{"!inputs.missing", true},
		{"contains('Hello World', 'llo w')", true},
		{"contains(github.event.issue.labels.*.name, 'recess:waiting')", true},
		{"contains(github.event.issue.labels.*.name, 'recess')", false},
		{"contains(toJSON(inputs.mention-handles), '\\n')", true},
		{"github.event.issue.pull_request && 'pull-requests' || 'issues'", "issues"},
		{"github['event'].issue.labels[0].name", "bug"},
		{"1 < 2 && 'b' > 'a'", true},
		{"false || true && false", false},
		{"(false || true) && 'x'", "x"},
	}
	for _, tt := range tests {
		got, err := evalExpr(tt.expr, context)
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("evalExpr(%q) = %v, %v, want %v", tt.expr, got, err, tt.want)
		}
	}
	for _, bad := range []string{"format('{0}', 1)", "unknown.x", "'a' ==", "a ~ b"} {
		if _, err := evalExpr(bad, context); err == nil {
			t.Errorf("evalExpr(%q) accepted", bad)
		}
	}
}

// frontDoorEvent is recess's reusable front door's event job: its if:, and
// the inputs it declares with their defaults.
func frontDoorEvent(t *testing.T) (cond string, defaults map[string]any) {
	t.Helper()
	data, err := os.ReadFile("../../.github/workflows/front-door.yml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		On struct {
			WorkflowCall struct {
				Inputs map[string]struct{ Default string }
			} `yaml:"workflow_call"`
		} `yaml:"on"`
		Jobs map[string]struct{ If string }
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	defaults = map[string]any{}
	for name, in := range doc.On.WorkflowCall.Inputs {
		defaults[name] = in.Default
	}
	return doc.Jobs["event"].If, defaults
}

// webhook is GitHub's example payload of event.action (testdata/github).
func webhook(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile("../../testdata/github/webhooks/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(data, &payload); err != nil {
		t.Fatal(err)
	}
	return payload
}

// comment is GitHub's example issue_comment payload with this body, the
// issue's labels, on a pull request's conversation when pr.
func comment(t *testing.T, body string, pr bool, labels ...string) map[string]any {
	payload := webhook(t, "issue_comment.created")
	payload["comment"].(map[string]any)["body"] = body
	issue := payload["issue"].(map[string]any)
	for _, l := range labels {
		issue["labels"] = append(issue["labels"].([]any), map[string]any{"name": l, "color": "ededed", "default": false})
	}
	if pr {
		u := issue["html_url"].(string)
		issue["pull_request"] = map[string]any{"url": issue["url"], "html_url": u, "diff_url": u + ".diff", "patch_url": u + ".patch", "merged_at": nil}
	}
	return payload
}

// jobs is how many of the events start the front door's event job, for a
// caller that passes with (the inputs recess init writes).
func jobs(t *testing.T, with map[string]string, event string, payloads ...map[string]any) int {
	t.Helper()
	cond, inputs := frontDoorEvent(t)
	for k, v := range with {
		if _, ok := inputs[k]; !ok {
			t.Fatalf("front-door.yml declares no input %s", k)
		}
		inputs[k] = v
	}
	n := 0
	for _, p := range payloads {
		v, err := evalExpr(cond, map[string]any{"github": map[string]any{"event_name": event, "event": p}, "inputs": inputs})
		if err != nil {
			t.Fatalf("front-door.yml's event job if: %v", err)
		}
		if b, ok := v.(bool); ok && b || !ok && v != nil && v != "" {
			n++
		}
	}
	return n
}

// The front door's event job starts for a comment on an issue or a pull
// request only when the comment can matter (SPEC "Threads": Cost): 100
// comments on issues and pull requests recess does not follow start no job
// when they wake on mention, and each comment that can matter starts one.
// BENCHMARKS.md reports these figures.
func TestFrontDoor_starts_the_event_job_only_for_a_comment_that_can_matter(t *testing.T) {
	t.Parallel()
	said := []string{
		"You are totally right! I'll get this fixed right away.", "LGTM", "@octocat could you take a look?",
		"Fixed in #%d.", "cc @hubot @monalisa", "Thanks, closing as duplicate of #%d", "/label bug",
		"```\npanic: runtime error (%d)\n```", "+1", "Reproduced on main at %d commits ahead.",
	}
	var unfollowed []map[string]any
	for i := range 100 {
		body := said[i%len(said)]
		if i%len(said) == 3 || i%len(said) == 5 || i%len(said) == 7 || i%len(said) == 9 {
			body = fmt.Sprintf(body, i)
		}
		unfollowed = append(unfollowed, comment(t, body, i%2 == 1, "bug"))
	}
	mention := map[string]string{"threads": "issues, pull-requests", "mention-handles": "@lead"}
	t.Run("100_comments_recess_does_not_follow", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			name string
			with map[string]string
			want int
		}{
			{"wake_on_mention_by_default", mention, 0},
			{"wake_on_mention_given", map[string]string{"threads": "issues,pull-requests", "wake-on": "mention", "mention-handles": "lead"}, 0},
			{"wake_on_command", map[string]string{"threads": "issues,pull-requests", "wake-on": "command"}, 0},
			{"issues_not_served", map[string]string{"mention-handles": "@lead"}, 0},
			{"wake_on_comment", map[string]string{"threads": "issues,pull-requests", "wake-on": "comment"}, 100},
		} {
			got := jobs(t, tt.with, "issue_comment", unfollowed...)
			t.Logf("%s: %d jobs for %d comments", tt.name, got, len(unfollowed))
			if got != tt.want {
				t.Errorf("%s: %d jobs for 100 comments, want %d", tt.name, got, tt.want)
			}
		}
	})
	t.Run("each_comment_that_can_matter", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			name    string
			with    map[string]string
			payload map[string]any
			want    int
		}{
			{"mentions_the_handle", mention, comment(t, "@lead what do you think?", false), 1},
			{"mentions_it_in_another_case", mention, comment(t, "Over to you, @Lead.", false), 1},
			{"on_a_waiting_issue", mention, comment(t, "Here is the log you asked for.", false, resume.LabelWaiting), 1},
			{"on_a_waiting_pull_request", mention, comment(t, "Rebased.", true, resume.LabelWaiting), 1},
			{"holds_a_command", mention, comment(t, "/recess signal approved", false), 1},
			{"mentions_the_handle_on_a_pull_request", mention, comment(t, "@lead review please", true), 1},
			{"mentions_one_of_several_handles", map[string]string{"threads": "issues", "mention-handles": "@lead, @helper"}, comment(t, "@helper ping", false), 1},
			{"mentions_one_of_handles_on_lines", map[string]string{"threads": "issues", "mention-handles": "@lead\n@helper"}, comment(t, "@helper ping", false), 1},
			{"wakes_on_any_comment", map[string]string{"threads": "issues", "wake-on": "comment"}, comment(t, "+1", false), 1},
			// What cannot matter.
			{"mentions_on_a_pull_request_not_served", map[string]string{"threads": "issues", "mention-handles": "@lead"}, comment(t, "@lead review please", true), 0},
			{"waiting_label_on_an_issue_not_served", map[string]string{"threads": "pull-requests", "mention-handles": "@lead"}, comment(t, "ok", false, resume.LabelWaiting), 0},
			{"mentions_someone_else", mention, comment(t, "@helper ping", false), 0},
			{"several_handles_none_mentioned", map[string]string{"threads": "issues", "mention-handles": "@lead, @helper"}, comment(t, "thanks", false), 0},
		} {
			if got := jobs(t, tt.with, "issue_comment", tt.payload); got != tt.want {
				t.Errorf("%s: %d jobs, want %d", tt.name, got, tt.want)
			}
		}
	})
	t.Run("a_discussion_and_an_issue_event_start_it_as_before", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct{ event, example string }{
			{"discussion", "discussion.created"}, {"discussion_comment", "discussion_comment.created"},
			{"discussion_comment", "discussion_comment.deleted"}, {"issues", "issues.opened"}, {"issues", "issues.reopened"},
		} {
			if got := jobs(t, nil, tt.event, webhook(t, tt.example)); got != 1 {
				t.Errorf("%s (%s): %d jobs, want 1", tt.event, tt.example, got)
			}
		}
		for _, event := range []string{"schedule", "workflow_dispatch"} {
			if got := jobs(t, mention, event, map[string]any{}); got != 0 {
				t.Errorf("%s: %d event jobs, want 0 (the sweep's plan runs)", event, got)
			}
		}
	})
}
