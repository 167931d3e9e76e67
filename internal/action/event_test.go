package action

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/workflows"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// webhook is GitHub's example payload testdata/github/webhooks/<file>.json,
// with edit applied to its decoded form (nil: as GitHub wrote it).
func webhook(t *testing.T, file string, edit func(p map[string]any)) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/github/webhooks", file+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if edit == nil {
		return b
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	edit(p)
	if b, err = json.Marshal(p); err != nil {
		t.Fatal(err)
	}
	return b
}

// onPullRequest makes an issue_comment example a comment on a pull
// request's conversation: GitHub then sets issue.pull_request (the keys
// octokit/webhooks' issue schema lists).
func onPullRequest(p map[string]any) {
	p["issue"].(map[string]any)["pull_request"] = map[string]any{
		"url":       "https://api.github.com/repos/Codertocat/Hello-World/pulls/1",
		"html_url":  "https://github.com/Codertocat/Hello-World/pull/1",
		"diff_url":  "https://github.com/Codertocat/Hello-World/pull/1.diff",
		"patch_url": "https://github.com/Codertocat/Hello-World/pull/1.patch",
		"merged_at": nil,
	}
}

// issue sets the example's issue member to v (nil: removes it).
func issue(key string, v any) func(p map[string]any) {
	return func(p map[string]any) {
		is := p["issue"].(map[string]any)
		if v == nil {
			delete(is, key)
			return
		}
		is[key] = v
	}
}

// The events about a thread carry the thread's kind and number, and pick
// their command as SPEC says: a new discussion or an opened issue is an
// intake, every other action and every comment inbound. GitHub's own
// example payloads.
func TestDecodeEvent_reads_the_thread_and_its_kind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event, file string
		edit              func(map[string]any)
		want              event
		command           string
	}{
		{name: "discussion_created", event: "discussion", file: "discussion.created",
			want: event{Action: "created", Kind: state.KindDiscussion, Number: 4}, command: cmdIntake},
		{name: "discussion_edited", event: "discussion", file: "discussion.edited",
			want: event{Action: "edited", Kind: state.KindDiscussion, Number: 4}, command: cmdInbound},
		{name: "discussion_comment_created", event: "discussion_comment", file: "discussion_comment.created",
			want: event{Action: "created", Kind: state.KindDiscussion, Number: 4}, command: cmdInbound},
		{name: "issue_opened", event: "issues", file: "issues.opened",
			want: event{Action: "opened", Kind: state.KindIssue, Number: 1}, command: cmdIntake},
		{name: "issue_reopened", event: "issues", file: "issues.reopened",
			want: event{Action: "reopened", Kind: state.KindIssue, Number: 1}, command: cmdInbound},
		{name: "issue_labeled", event: "issues", file: "issues.labeled",
			want: event{Action: "labeled", Kind: state.KindIssue, Number: 1}, command: cmdInbound},
		{name: "issue_locked", event: "issues", file: "issues.locked",
			want: event{Action: "locked", Kind: state.KindIssue, Number: 1}, command: cmdInbound},
		{name: "issue_closed", event: "issues", file: "issues.reopened", edit: func(p map[string]any) { p["action"] = "closed" },
			want: event{Action: "closed", Kind: state.KindIssue, Number: 1}, command: cmdInbound},
		{name: "issue_comment_created", event: "issue_comment", file: "issue_comment.created",
			want: event{Action: "created", Kind: state.KindIssue, Number: 1}, command: cmdInbound},
		{name: "issue_comment_edited", event: "issue_comment", file: "issue_comment.edited",
			want: event{Action: "edited", Kind: state.KindIssue, Number: 1}, command: cmdInbound},
		{name: "issue_comment_deleted_gives_the_comment", event: "issue_comment", file: "issue_comment.deleted",
			want: event{Action: "deleted", Kind: state.KindIssue, Number: 1,
				Deleted: &resume.DeletedComment{Body: "You are totally right! I'll get this fixed today.", Author: "Codertocat"}}, command: cmdInbound},
		{name: "pull_request_comment", event: "issue_comment", file: "issue_comment.created", edit: onPullRequest,
			want: event{Action: "created", Kind: state.KindPullRequest, Number: 1}, command: cmdInbound},
		{name: "pull_request_comment_deleted", event: "issue_comment", file: "issue_comment.deleted", edit: onPullRequest,
			want: event{Action: "deleted", Kind: state.KindPullRequest, Number: 1,
				Deleted: &resume.DeletedComment{Body: "You are totally right! I'll get this fixed today.", Author: "Codertocat"}}, command: cmdInbound},
		{name: "pull_request_null_is_an_issue", event: "issue_comment", file: "issue_comment.created", edit: issue("pull_request", json.RawMessage("null")),
			want: event{Action: "created", Kind: state.KindIssue, Number: 1}, command: cmdInbound},
		{name: "issues_event_is_never_a_pull_request", event: "issues", file: "issues.opened", edit: onPullRequest,
			want: event{Action: "opened", Kind: state.KindIssue, Number: 1}, command: cmdIntake},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev, err := decodeEvent(tt.event, webhook(t, tt.file, tt.edit))
			if err != nil {
				t.Fatalf("decodeEvent = %v", err)
			}
			tt.want.Name = tt.event
			if diff := cmp.Diff(&tt.want, ev); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
			if got, err := ev.command(); err != nil || got != tt.command {
				t.Errorf("command = %q, %v; want %q", got, err, tt.command)
			}
		})
	}
}

// An issue's number is checked like a discussion's, with the field named.
func TestDecodeEvent_refuses_an_issue_without_its_number(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event, file string
		edit              func(map[string]any)
		wantField         string
	}{
		{name: "issue_number_missing", event: "issues", file: "issues.opened", edit: issue("number", nil), wantField: "event payload issue.number"},
		{name: "issue_number_zero", event: "issue_comment", file: "issue_comment.created", edit: issue("number", 0), wantField: "event payload issue.number"},
		{name: "issue_number_negative", event: "issue_comment", file: "issue_comment.created", edit: issue("number", -4), wantField: "event payload issue.number"},
		{name: "issue_number_text", event: "issue_comment", file: "issue_comment.created", edit: issue("number", "1"), wantField: "event payload issue.number"},
		{name: "issue_missing", event: "issue_comment", file: "issue_comment.created", edit: func(p map[string]any) { delete(p, "issue") }, wantField: "event payload issue.number"},
		{name: "discussion_in_place_of_the_issue", event: "issue_comment", file: "discussion_comment.created", wantField: "event payload issue.number"},
		{name: "comment_missing", event: "issue_comment", file: "issue_comment.created", edit: func(p map[string]any) { delete(p, "comment") }, wantField: "event payload comment"},
		{name: "action_missing", event: "issues", file: "issues.opened", edit: func(p map[string]any) { delete(p, "action") }, wantField: "event payload action"},
		{name: "deleted_comment_without_author", event: "issue_comment", file: "issue_comment.deleted",
			edit: func(p map[string]any) { delete(p["comment"].(map[string]any), "user") }, wantField: "event payload comment.user.login"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev, err := decodeEvent(tt.event, webhook(t, tt.file, tt.edit))
			var ie *wait.FieldError
			if !errors.As(err, &ie) || ie.Field != tt.wantField {
				t.Fatalf("decodeEvent = %+v, %v; want a refusal of %s", ev, err, tt.wantField)
			}
		})
	}
}

// An event about a kind of thread the repository does not serve is a
// no-op: exit 0, not one request to GitHub, one log line that says which
// kind was left alone and what is served, and no step output or summary.
// With input threads unset, discussions alone are served.
func TestAction_leaves_unserved_threads_alone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event, file string
		edit              func(map[string]any)
		extra             map[string]string
		want              string
	}{
		{name: "issue_opened", event: "issues", file: "issues.opened",
			want: "recess: only discussions are served here (threads: discussions); issues (opened) on issue #1 is left alone"},
		{name: "issue_closed", event: "issues", file: "issues.reopened", edit: func(p map[string]any) { p["action"] = "closed" },
			want: "recess: only discussions are served here (threads: discussions); issues (closed) on issue #1 is left alone"},
		{name: "issue_comment", event: "issue_comment", file: "issue_comment.created",
			want: "recess: only discussions are served here (threads: discussions); issue_comment (created) on issue #1 is left alone"},
		{name: "issue_comment_deleted", event: "issue_comment", file: "issue_comment.deleted",
			want: "recess: only discussions are served here (threads: discussions); issue_comment (deleted) on issue #1 is left alone"},
		{name: "pull_request_comment", event: "issue_comment", file: "issue_comment.created", edit: onPullRequest,
			want: "recess: only discussions are served here (threads: discussions); issue_comment (created) on pull request #1 is left alone"},
		{name: "command_given", event: "issue_comment", file: "issue_comment.edited", extra: map[string]string{"INPUT_COMMAND": "inbound"},
			want: "recess: only discussions are served here (threads: discussions); issue_comment (edited) on issue #1 is left alone"},
		{name: "issue_where_pull_requests_are_served", event: "issue_comment", file: "issue_comment.created",
			extra: map[string]string{"INPUT_THREADS": "pull-requests", "INPUT_MENTION-HANDLES": "@lead"},
			want:  "recess: only pull-requests are served here (threads: pull-requests); issue_comment (created) on issue #1 is left alone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, "comment")
			env, o := r.actionEnv(tt.event, webhook(t, tt.file, tt.edit), tt.extra)
			if o.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", o.code, o.stdout)
			}
			// The token is masked first, as in every run.
			if diff := cmp.Diff("::add-mask::"+hostileToken+"\n"+tt.want+"\n", o.stdout); diff != "" {
				t.Errorf("what the run printed (-want +got):\n%s", diff)
			}
			if reqs := r.gh.Requests(); len(reqs) != 0 {
				t.Errorf("%d request(s) reached GitHub, want none", len(reqs))
			}
			if len(o.outputs) != 0 {
				t.Errorf("outputs %v, want none", o.outputs)
			}
			if b, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"]); err != nil || len(b) != 0 {
				t.Errorf("job summary %q (%v), want none", b, err)
			}
		})
	}
}

// A broken issue payload is refused with its field named (exit 2) before
// a request reaches GitHub, whatever the kinds served.
func TestAction_refuses_an_issue_event_without_its_number(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event, file string
		edit              func(map[string]any)
	}{
		{name: "issue_number_missing", event: "issues", file: "issues.opened", edit: issue("number", nil)},
		{name: "issue_number_zero", event: "issue_comment", file: "issue_comment.created", edit: issue("number", 0)},
		{name: "pull_request_number_zero", event: "issue_comment", file: "issue_comment.created",
			edit: func(p map[string]any) { onPullRequest(p); issue("number", 0)(p) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, "comment")
			o := r.action(tt.event, webhook(t, tt.file, tt.edit), nil)
			got := annotations(o.stdout)
			if o.code != 2 || len(got) != 1 || got[0][0] != "recess refused event payload issue.number" {
				t.Errorf("exit %d, annotations %q; want exit 2 and one titled %q", o.code, got, "recess refused event payload issue.number")
			}
			if reqs := r.gh.Requests(); len(reqs) != 0 {
				t.Errorf("%d request(s) reached GitHub, want none", len(reqs))
			}
		})
	}
}

// The engine addresses the thread of the kind the event is about; an
// event about no thread leaves the engine's default (a discussion).
func TestWire_gives_the_engine_the_kind_of_the_event(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event, file string
		edit              func(map[string]any)
		threads           string // input threads
		want              state.Kind
	}{
		{name: "discussion", event: "discussion_comment", file: "discussion_comment.created", want: state.KindDiscussion},
		{name: "issue", event: "issue_comment", file: "issue_comment.created", want: state.KindIssue},
		{name: "pull_request", event: "issue_comment", file: "issue_comment.created", edit: onPullRequest, want: state.KindPullRequest},
		{name: "schedule", event: "schedule", file: "", want: ""},
		{name: "dispatch_with_discussions_alone", event: "workflow_dispatch", want: ""},
		{name: "dispatch_with_issues_served", event: "workflow_dispatch", threads: "discussions, issues", want: resume.AnyKind},
		{name: "dispatch_with_issues_alone", event: "workflow_dispatch", threads: "issues", want: state.KindIssue},
		{name: "dispatch_with_pull_requests_alone", event: "workflow_dispatch", threads: "pull-requests", want: state.KindPullRequest},
		{name: "schedule_with_issues_alone", event: "schedule", threads: "issues", want: state.KindIssue},
		{name: "issue_with_issues_served", event: "issue_comment", file: "issue_comment.created", threads: "discussions, issues", want: state.KindIssue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			payload := []byte(`{"schedule":"*/5 * * * *"}`)
			if tt.event == "workflow_dispatch" {
				payload = []byte(`{"inputs":{"discussion_number":"3","correlation_id":"c-1"}}`)
			}
			if tt.file != "" {
				payload = webhook(t, tt.file, tt.edit)
			}
			env := runEnv{where: where{Repo: hostileRepo, APIURL: "http://127.0.0.1:9"}, Workspace: t.TempDir()}
			inv, err := newInvocation(env, func(name string) string {
				return map[string]string{InputGitHubToken: hostileToken, inThreads: tt.threads, inMentionHandles: "@lead"}[name]
			}, func() (*event, error) { return decodeEvent(tt.event, payload) })
			if err != nil {
				t.Fatal(err)
			}
			e, _, err := wire(inv, func(string, ...any) {})
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != tt.want {
				t.Errorf("engine kind %q, want %q", e.Kind, tt.want)
			}
		})
	}
}

// Every kind of thread has its value of input threads, the one the no-op's
// line names.
func TestThreadsValue_names_every_kind(t *testing.T) {
	t.Parallel()
	var got []string
	for _, k := range state.Kinds {
		got = append(got, workflows.ThreadsValue(k))
	}
	if !slices.Equal(got, threadKinds) {
		t.Errorf("threads values %q, want the input's %q", got, threadKinds)
	}
}

// The kinds served are a list (input threads fills it): an event of a kind
// it names is served, one of another kind is left alone with the list
// named, and an event about no thread is always served.
func TestEvent_unserved_follows_the_served_kinds(t *testing.T) {
	t.Parallel()
	issues := []state.Kind{state.KindDiscussion, state.KindIssue}
	tests := []struct {
		name   string
		ev     *event
		served []state.Kind
		want   string
	}{
		{name: "issue_served", ev: &event{Name: "issue_comment", Action: "created", Kind: state.KindIssue, Number: 3}, served: issues},
		{name: "pull_request_not_served", ev: &event{Name: "issue_comment", Action: "created", Kind: state.KindPullRequest, Number: 3}, served: issues,
			want: "only discussions, issues are served here (threads: discussions, issues); issue_comment (created) on pull request #3 is left alone"},
		{name: "discussion_not_served", ev: &event{Name: "discussion", Action: "created", Kind: state.KindDiscussion, Number: 4}, served: []state.Kind{state.KindPullRequest},
			want: "only pull-requests are served here (threads: pull-requests); discussion (created) on discussion #4 is left alone"},
		{name: "schedule_about_no_thread", ev: &event{Name: "schedule"}, served: []state.Kind{state.KindIssue}},
		{name: "command_line_without_event", served: []state.Kind{state.KindIssue}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.ev.unserved(tt.served); got != tt.want {
				t.Errorf("unserved = %q, want %q", got, tt.want)
			}
		})
	}
}
