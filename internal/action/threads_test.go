package action

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// flatLoop drives recess on an issue or a pull request's conversation
// through the binary, with the inputs of a setup that serves it.
type flatLoop struct {
	*repo
	kind   state.Kind
	inputs map[string]string
	thread githubfake.Discussion
}

// act runs the front door for the thread's event (payload from the fake).
func (l *flatLoop) act(event string, payload []byte, err error) outcome {
	l.t.Helper()
	if err != nil {
		l.t.Fatal(err)
	}
	return l.ok(l.action(event, payload, l.inputs), event)
}

// say comments on the thread as author and runs recess for the comment.
func (l *flatLoop) say(author, body string) (string, outcome) {
	l.t.Helper()
	c, err := l.gh.Comment(l.thread.ID, author, body)
	if err != nil {
		l.t.Fatal(err)
	}
	payload, err := l.gh.IssueCommentPayload(c.ID, githubfake.Event{Action: "created"})
	return c.ID, l.act("issue_comment", payload, err)
}

// step runs an agent step (claim, verdict) of run ru with the setup's
// inputs: a workflow_dispatch, whose event names no kind.
func (l *flatLoop) step(ru githubfake.Run, command string, doc map[string]any) outcome {
	l.t.Helper()
	var b []byte
	if doc != nil {
		doc["correlation_id"], doc["discussion_number"] = ru.Inputs["correlation_id"], l.thread.Number
		b, _ = json.Marshal(doc)
	}
	return l.ok(l.agentWith(ru, command, b, l.inputs), command)
}

// now is the thread as GitHub shows it.
func (l *flatLoop) now() githubfake.Discussion {
	l.t.Helper()
	d, err := l.gh.Issue(hostileRepo, l.thread.Number)
	if err != nil {
		l.t.Fatal(err)
	}
	return d
}

// record is the thread's record in the store.
func (l *flatLoop) record() *state.Record {
	l.t.Helper()
	if l.store == storeComment {
		_, rec, ok := l.statusOf(l.thread.ID)
		if !ok {
			l.t.Fatal("no status comment")
		}
		return rec
	}
	f, ok, err := l.gh.File(hostileRepo, "recess-state", fmt.Sprintf("discussions/%d.json", l.thread.Number))
	if err != nil || !ok {
		l.t.Fatalf("no record file (%v)", err)
	}
	rec, err := state.Decode([]byte(f))
	if err != nil {
		l.t.Fatal(err)
	}
	return rec
}

// posted are the bodies of recess's comments on the thread.
func (l *flatLoop) posted() []string {
	l.t.Helper()
	cs, err := l.gh.Comments(l.thread.ID)
	if err != nil {
		l.t.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		if c.Author == hostileBot {
			out = append(out, c.Body)
		}
	}
	return out
}

// comment is the thread's comment id as GitHub shows it.
func (l *flatLoop) comment(id string) githubfake.Comment {
	l.t.Helper()
	cs, err := l.gh.Comments(l.thread.ID)
	if err != nil {
		l.t.Fatal(err)
	}
	i := slices.IndexFunc(cs, func(c githubfake.Comment) bool { return c.ID == id })
	if i < 0 {
		l.t.Fatalf("no comment %s", id)
	}
	return cs[i]
}

// count is how many of recess's comments hold s.
func (l *flatLoop) count(s string) int {
	return len(slices.DeleteFunc(l.posted(), func(b string) bool { return !strings.Contains(b, s) }))
}

// The whole loop on an issue and on a pull request's conversation, on both
// stores, through the binary with input threads: a mention opens a run
// (👀), the claim and the verdict (workflow_dispatch: no kind in the
// event) find the thread, a recess waits with its label and record, a
// person's reply resumes it with the reply in history_since, an adjourned
// verdict replies once and lifts the label, and closing the thread expires
// its recess.
func TestThreads_whole_loop_on_issues_and_pull_requests(t *testing.T) {
	t.Parallel()
	for _, kind := range []state.Kind{state.KindIssue, state.KindPullRequest} {
		for _, store := range []string{storeComment, storeBranch} {
			t.Run(string(kind)+"_"+store, func(t *testing.T) {
				t.Parallel()
				l := &flatLoop{repo: newRepo(t, store), kind: kind, inputs: map[string]string{
					"INPUT_THREADS":         "discussions, " + map[state.Kind]string{state.KindIssue: "issues", state.KindPullRequest: "pull-requests"}[kind],
					"INPUT_MENTION-HANDLES": "@lead"}}
				var err error
				acked := func() map[string][]string { return l.now().Reactions } // what the 👀 goes on
				if kind == state.KindIssue {
					l.thread, err = l.gh.CreateIssue(hostileRepo, "alice", "crash", "it crashes on start, @lead")
					if err != nil {
						t.Fatal(err)
					}
					payload, err := l.gh.IssuePayload(l.thread.ID, githubfake.Event{Action: "opened"})
					l.act("issues", payload, err)
				} else {
					l.thread, err = l.gh.CreatePullRequest(hostileRepo, "alice", "fix crash", "fixes the crash")
					if err != nil {
						t.Fatal(err)
					}
					asked, _ := l.say("alice", "@lead could you review this?")
					acked = func() map[string][]string { return l.comment(asked).Reactions }
				}
				if runs := l.runs(); len(runs) != 1 {
					t.Fatalf("opened with a mention: %d runs, want 1", len(runs))
				}
				if eyes := acked()[string(resume.Eyes)]; !slices.Contains(eyes, hostileBot) {
					t.Errorf("👀 by %v, want recess's", eyes)
				}

				first := l.newest()
				if o := l.step(first, "claim", nil); o.outputs["stale"] != "false" || !strings.Contains(o.outputs["prompt"], l.thread.Title) {
					t.Fatalf("claim: stale %q, prompt %q", o.outputs["stale"], o.outputs["prompt"])
				}
				vo := l.step(first, "verdict", map[string]any{"verdict": "recessed", "trigger": map[string]any{"kind": "missing_input", "replies": 1},
					"replies": []map[string]string{{"body": "Which version do you run?"}}})
				if n := l.count("Which version do you run?"); n != 1 {
					t.Errorf("recessed verdict: the question posted %d times, want 1", n)
				}
				if rec := l.record(); len(rec.OpenRFCs) != 1 || rec.Kind != kind {
					t.Errorf("recessed verdict: record with %d open recesses of kind %q, want 1 of %q", len(rec.OpenRFCs), rec.Kind, kind)
				}
				// The comment store finds waiting threads by their label.
				if labels := l.now().Labels; store == storeComment && !slices.Contains(labels, resume.LabelWaiting) {
					t.Errorf("recessed verdict: labels %v, want %s\n%s", labels, resume.LabelWaiting, vo.stdout)
				}
				l.clock.Step(time.Minute)

				reply, _ := l.say("bob", "@lead version 2.1")
				runs := l.runs()
				if len(runs) != 2 {
					t.Fatalf("a person's reply: %d runs, want 2", len(runs))
				}
				second := runs[1]
				rc, err := DecodeResumeContext([]byte(second.Inputs["resume_context"]))
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(rc.HistorySince, func(e resume.HistoryEntry) bool { return e.ID == reply }) {
					t.Errorf("history_since %+v does not hold the reply %s", rc.HistorySince, reply)
				}

				if o := l.step(second, "claim", nil); o.outputs["stale"] != "false" {
					t.Fatalf("claim of the resume: stale %q", o.outputs["stale"])
				}
				adjourned := map[string]any{"verdict": "adjourned", "replies": []map[string]string{{"body": "Fixed in 2.2."}}}
				l.step(second, "verdict", adjourned)
				l.step(second, "verdict", map[string]any{"verdict": "adjourned", "replies": []map[string]string{{"body": "Fixed in 2.2."}}})
				if n := l.count("Fixed in 2.2."); n != 1 {
					t.Errorf("adjourned verdict delivered twice: its reply posted %d times, want 1", n)
				}
				if labels := l.now().Labels; slices.Contains(labels, resume.LabelWaiting) {
					t.Errorf("adjourned verdict: labels %v still hold %s", labels, resume.LabelWaiting)
				}
				if err := l.gh.SetRunStatus(second.ID, "completed", "success"); err != nil {
					t.Fatal(err)
				}

				// A new recess, then the thread is closed.
				l.clock.Step(time.Minute)
				l.say("alice", "@lead it crashes again")
				third := l.newest()
				if third.ID == second.ID {
					t.Fatal("a mention after the adjourned verdict started no run")
				}
				l.step(third, "claim", nil)
				l.step(third, "verdict", map[string]any{"verdict": "recessed", "trigger": map[string]any{"kind": "elapsed", "elapsed": "P1D"}})
				if rec := l.record(); len(rec.OpenRFCs) != 1 {
					t.Fatalf("recessed again: %d open recesses, want 1", len(rec.OpenRFCs))
				}
				if err := l.gh.CloseIssue(l.thread.ID, ""); err != nil {
					t.Fatal(err)
				}
				if kind == state.KindIssue {
					payload, err := l.gh.IssuePayload(l.thread.ID, githubfake.Event{Action: "closed"})
					l.act("issues", payload, err)
				} else {
					// No event for a closed pull request: the sweep's visit
					// notices it, as the plan lists it (no kind either).
					l.ok(l.action("workflow_dispatch", []byte(`{"inputs":{}}`), merge(l.inputs, map[string]string{"INPUT_COMMAND": "visit", "INPUT_DISCUSSION": strconv.Itoa(l.thread.Number)})), "visit")
				}
				if rec := l.record(); len(rec.OpenRFCs) != 0 {
					t.Errorf("closed thread: %d open recesses, want none", len(rec.OpenRFCs))
				}
				if labels := l.now().Labels; slices.Contains(labels, resume.LabelWaiting) {
					t.Errorf("closed thread: labels %v still hold %s", labels, resume.LabelWaiting)
				}
			})
		}
	}
}

// merge is a's entries with b's over them.
func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// Input threads is checked before anything reaches GitHub: an unknown kind
// names the input; a served kind that wakes on mention (wake-on mention,
// or issues and pull requests when wake-on is not given) without
// mention-handles names mention-handles and says why.
func TestThreads_input_refusals_name_the_field(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		inputs map[string]string
		field  string // "" when accepted
		reason string
	}{
		{name: "unknown_kind", inputs: map[string]string{"INPUT_THREADS": "discussions, bogus", "INPUT_MENTION-HANDLES": "@lead"},
			field: "input threads", reason: `"bogus" is not one of discussions, issues, pull-requests`},
		{name: "issues_without_handles", inputs: map[string]string{"INPUT_THREADS": "issues"},
			field: "input mention-handles", reason: "issues wake on mention when wake-on is not given"},
		{name: "pull_requests_without_handles", inputs: map[string]string{"INPUT_THREADS": "discussions,pull-requests"},
			field: "input mention-handles", reason: "pull-requests wake on mention when wake-on is not given"},
		{name: "discussions_waking_on_mention_without_handles", inputs: map[string]string{"INPUT_WAKE-ON": "mention"},
			field: "input mention-handles", reason: "wake-on mention needs at least one handle"},
		{name: "issues_waking_on_comment_need_no_handles", inputs: map[string]string{"INPUT_THREADS": "Issues", "INPUT_WAKE-ON": "comment"}},
		{name: "discussions_alone_need_no_handles", inputs: map[string]string{"INPUT_THREADS": "discussions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, storeComment)
			o := r.action("schedule", []byte(`{"schedule":"2-59/5 * * * *"}`), merge(tt.inputs, map[string]string{"INPUT_DRY-RUN": "true"}))
			got := annotations(o.stdout)
			if tt.field == "" {
				if o.code != 0 {
					t.Fatalf("exit %d, want 0\n%s", o.code, o.stdout)
				}
				return
			}
			if o.code != ExitRefused || len(got) != 1 || got[0][0] != "recess refused "+tt.field || !strings.Contains(got[0][1], tt.reason) {
				t.Errorf("exit %d, annotations %q; want exit %d and one titled %q saying %q", o.code, got, ExitRefused, "recess refused "+tt.field, tt.reason)
			}
			if reqs := r.gh.Requests(); len(reqs) != 0 {
				t.Errorf("%d request(s) reached GitHub, want none", len(reqs))
			}
		})
	}
}
