package resume_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// An issue through the engine's entry points: opened mentioning the lead,
// it is dispatched for and its record says it is an issue; a bot's
// comment counts for nothing; a person's reply fires the recess.
func TestStory_an_issue_mentions_recesses_ignores_a_bot_and_resumes(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{MentionHandles: []string{"@lead"}})
	e.Kind = state.KindIssue
	n := w.openDiscussion("alice")
	w.discussions[n].Kind, w.discussions[n].Body = state.KindIssue, "@lead the build is red"
	if res := mustRun(t)(e.Intake(ctx, n)); !res.Dispatched || res.Kind != state.KindIssue || !slices.Contains(res.Notes, "new issue: fresh dispatch") {
		t.Fatalf("intake of an issue mentioning @lead: dispatched %v, kind %q, notes %q; want a fresh dispatch said of an issue", res.Dispatched, res.Kind, res.Notes)
	}
	if k := w.record(t, n).Kind; k != state.KindIssue {
		t.Errorf("record kind = %q, want %q", k, state.KindIssue)
	}
	q := w.say(n, "bob", "NONE", "", "Which runner?")
	mustRun(t)(verdict(t, e, `{"verdict":"recessed","correlation_id":"c-1","discussion_number":1,"replies":[{"body":"Which one?","reply_to":"`+q+`"}],"trigger":{"kind":"missing_input","replies":1}}`))
	if mine := w.mine(n); len(mine) == 0 || mine[0].Root != "" || !strings.HasPrefix(mine[0].Body, "> [answering]") {
		t.Errorf("recess's reply on an issue = %+v, want a top-level comment quoting %s", mine, q)
	}
	w.advance(time.Minute)
	w.mu.Lock()
	w.discussions[n].Comments = append(w.discussions[n].Comments, resume.Comment{ID: "IC_bot", Author: "ci", AuthorBot: true, Body: "Coverage 81%", CreatedAt: w.clock.Now()})
	w.mu.Unlock()
	if res := mustRun(t)(e.Inbound(ctx, n)); res.Fired || res.OpenRFCs != 1 {
		t.Errorf("a bot's comment: fired %v, open %d; want nothing", res.Fired, res.OpenRFCs)
	}
	w.advance(time.Minute)
	w.say(n, "bob", "NONE", "", "The ARM one.")
	if res := mustRun(t)(e.Inbound(ctx, n)); !res.Fired {
		t.Errorf("a person's reply on an issue did not fire the recess (notes %q)", res.Notes)
	}
}

// A sweep visits each listed thread as its own kind, whatever kind the
// engine's entry points address: an elapsed recess on an issue fires on
// the sweep of an engine that addresses discussions.
func TestSweep_fires_an_elapsed_recess_on_an_issue(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	issues := w.engine(resume.Config{MentionHandles: []string{"@lead"}})
	issues.Kind = state.KindIssue
	n := w.openDiscussion("alice")
	w.discussions[n].Kind, w.discussions[n].Body = state.KindIssue, "@lead the build is red"
	mustRun(t)(issues.Intake(ctx, n))
	mustRun(t)(verdict(t, issues, recessed("c-1", n, `{"kind":"elapsed","elapsed":"PT12H"}`)))
	w.advance(12 * time.Hour)
	res := mustRun(t)(w.engine(resume.Config{}).Sweep(ctx))
	if !res.Fired || len(w.calls()) != 2 {
		t.Fatalf("sweep at due: fired %v, dispatches %d, warnings %q; want the issue's recess fired", res.Fired, len(w.calls()), res.Warnings)
	}
	if rc := w.resumeContext(t, 1); rc.FiredBy != "elapsed" {
		t.Errorf("resume_context fired_by %q, want elapsed", rc.FiredBy)
	}
}

// Who is heard is one rule: on an issue a bot counts only where a trigger's
// from names it, and the comment that fired the recess then reaches the
// agent in history_since, beside the people's; an unnamed bot's does not.
func TestResumeContext_holds_the_named_bot_comment_that_fired(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trigger string
		want    []string // history_since ids
	}{
		{name: "named_bot_fires_and_is_heard", trigger: `{"kind":"missing_input","replies":1,"from":["ci[bot]"]}`, want: []string{"IC_bot"}},
		{name: "named_in_a_part_of_any", trigger: `{"kind":"any","of":[{"kind":"elapsed","elapsed":"P1D"},{"kind":"missing_input","replies":2,"from":["ci","bob"]}]}`,
			want: []string{"IC_bot", "IC_bob"}},
		{name: "unnamed_bot_is_not_heard", trigger: `{"kind":"missing_input","replies":1}`, want: []string{"IC_bob"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			e := w.engine(resume.Config{MentionHandles: []string{"@lead"}})
			e.Kind = state.KindIssue
			n := w.openDiscussion("alice")
			w.discussions[n].Kind, w.discussions[n].Body = state.KindIssue, "@lead the build is red"
			mustRun(t)(e.Intake(ctx, n))
			mustRun(t)(verdict(t, e, recessed("c-1", n, tt.trigger)))
			w.advance(time.Minute)
			w.mu.Lock()
			w.discussions[n].Comments = append(w.discussions[n].Comments, resume.Comment{ID: "IC_bot", Author: "ci", AuthorBot: true, Body: "Coverage 81%", CreatedAt: w.clock.Now()})
			w.mu.Unlock()
			mustRun(t)(e.Inbound(ctx, n))
			if len(w.calls()) == 1 {
				w.advance(time.Minute)
				w.mu.Lock()
				w.discussions[n].Comments = append(w.discussions[n].Comments, resume.Comment{ID: "IC_bob", Author: "bob", Body: "The ARM one.", CreatedAt: w.clock.Now()})
				w.mu.Unlock()
				mustRun(t)(e.Inbound(ctx, n))
			}
			rc := w.resumeContext(t, 1)
			var got []string
			for _, h := range rc.HistorySince {
				got = append(got, h.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || rc.Kind != state.KindIssue {
				t.Errorf("resume_context kind %q, history_since ids (-want +got):\n%s", rc.Kind, diff)
			}
		})
	}
}
