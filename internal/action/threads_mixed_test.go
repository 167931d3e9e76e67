package action

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/state"
)

// A discussion and an issue waiting at once, in a setup that serves both,
// through the binary on both stores: a bot's comment on the issue does
// nothing (though one reply would fire its recess), the sweep fires the issue's elapsed recess and leaves the
// discussion waiting, a reply on the discussion resumes the discussion
// alone with its own comment, and each record keeps its own kind.
func TestThreads_a_discussion_and_an_issue_waiting_at_once_never_mix(t *testing.T) {
	t.Parallel()
	for _, store := range []string{storeComment, storeBranch} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			inputs := map[string]string{"INPUT_THREADS": "discussions, issues", "INPUT_MENTION-HANDLES": "@lead"}
			r := newRepo(t, store)
			disc := &flatLoop{repo: r, kind: state.KindDiscussion, inputs: inputs}
			issue := &flatLoop{repo: r, kind: state.KindIssue, inputs: inputs}
			var err error
			if disc.thread, err = r.gh.CreateDiscussion(hostileRepo, "alice", "RFC: storage", "Postgres or S3?"); err != nil {
				t.Fatal(err)
			}
			payload, err := r.gh.DiscussionPayload(disc.thread.ID, githubfake.Event{Action: "created"})
			disc.act("discussion", payload, err)
			if issue.thread, err = r.gh.CreateIssue(hostileRepo, "carol", "crash", "it crashes on start, @lead"); err != nil {
				t.Fatal(err)
			}
			payload, err = r.gh.IssuePayload(issue.thread.ID, githubfake.Event{Action: "opened"})
			issue.act("issues", payload, err)

			runsOf := func(n int) []githubfake.Run {
				return slices.DeleteFunc(r.runs(), func(ru githubfake.Run) bool { return ru.Inputs["discussion_number"] != strconv.Itoa(n) })
			}
			newest := func(l *flatLoop) githubfake.Run {
				t.Helper()
				runs := runsOf(l.thread.Number)
				if len(runs) == 0 {
					t.Fatalf("no run for %s %d", l.kind, l.thread.Number)
				}
				return runs[len(runs)-1]
			}
			if a, b := len(runsOf(disc.thread.Number)), len(runsOf(issue.thread.Number)); a != 1 || b != 1 {
				t.Fatalf("opened: %d runs for the discussion, %d for the issue; want 1 each", a, b)
			}
			recess := func(l *flatLoop, trigger map[string]any) {
				t.Helper()
				ru := newest(l)
				l.step(ru, "claim", nil)
				l.step(ru, "verdict", map[string]any{"verdict": "recessed", "trigger": trigger,
					"replies": []map[string]string{{"body": "A question about " + l.thread.Title}}})
				if err := r.gh.SetRunStatus(ru.ID, "completed", "success"); err != nil {
					t.Fatal(err)
				}
				if rec := l.record(); len(rec.OpenRFCs) != 1 || rec.Kind.OrDiscussion() != l.kind {
					t.Fatalf("%s recessed: record with %d open recesses of kind %q", l.kind, len(rec.OpenRFCs), rec.Kind)
				}
			}
			recess(disc, map[string]any{"kind": "missing_input", "replies": 1})
			recess(issue, map[string]any{"kind": "any", "of": []map[string]any{
				{"kind": "missing_input", "replies": 1}, {"kind": "elapsed", "elapsed": "PT1H"}}})

			r.clock.Step(time.Minute)
			issue.say("ci[bot]", "Coverage: 81%")
			if n := len(runsOf(issue.thread.Number)); n != 1 {
				t.Errorf("a bot's comment on the waiting issue: %d runs, want 1", n)
			}

			r.clock.Step(2 * time.Hour)
			r.ok(r.action("schedule", []byte(`{"schedule":"*/5 * * * *"}`), inputs), "sweep")
			if a, b := len(runsOf(disc.thread.Number)), len(runsOf(issue.thread.Number)); a != 1 || b != 2 {
				t.Fatalf("sweep after the issue's hour: %d runs for the discussion (want 1), %d for the issue (want 2)", a, b)
			}
			rc, err := DecodeResumeContext([]byte(newest(issue).Inputs["resume_context"]))
			if err != nil {
				t.Fatal(err)
			}
			if rc.FiredBy != "elapsed" || rc.Kind != state.KindIssue || len(rc.HistorySince) != 0 {
				t.Errorf("the issue's resume: fired_by %q, kind %q, history %+v; want elapsed, issue, none (a bot is not heard)", rc.FiredBy, rc.Kind, rc.HistorySince)
			}

			c, err := r.gh.Comment(disc.thread.ID, "bob", "S3, please.")
			if err != nil {
				t.Fatal(err)
			}
			reply := c.ID
			payload, err = r.gh.DiscussionCommentPayload(reply, githubfake.Event{Action: "created"})
			disc.act("discussion_comment", payload, err)
			if n := len(runsOf(disc.thread.Number)); n != 2 {
				t.Fatalf("a reply on the discussion: %d runs, want 2", n)
			}
			if n := len(runsOf(issue.thread.Number)); n != 2 {
				t.Errorf("a reply on the discussion: %d runs for the issue, want 2 (unchanged)", n)
			}
			rc, err = DecodeResumeContext([]byte(newest(disc).Inputs["resume_context"]))
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, h := range rc.HistorySince {
				ids = append(ids, h.ID)
			}
			if rc.Kind != "" || !slices.Equal(ids, []string{reply}) {
				t.Errorf("the discussion's resume: kind %q, history %v; want no kind and only %s", rc.Kind, ids, reply)
			}
		})
	}
}

// A run for a thread GitHub does not know names the kind the setup
// serves, not "discussion".
func TestThreads_a_missing_thread_is_named_by_its_kind(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ threads, want string }{
		{"issues", "issue #99 was not found"},
		{"pull-requests", "pull request #99 was not found"},
		{"discussions", "discussion #99 was not found"},
	} {
		t.Run(tt.threads, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, storeComment)
			ru := githubfake.Run{ID: 9000000001, Inputs: map[string]string{"discussion_number": "99", "correlation_id": "c-0123456789abcdef0123"}}
			o := r.agentWith(ru, "claim", nil, map[string]string{"INPUT_THREADS": tt.threads, "INPUT_MENTION-HANDLES": "@lead"})
			if !strings.Contains(o.stdout, tt.want) {
				t.Errorf("claim of a number GitHub does not know: output lacks %q\n%s", tt.want, o.stdout)
			}
		})
	}
}
