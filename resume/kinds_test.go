package resume

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// What differs by kind of thread is decided over the same snapshots for an
// issue (or a pull request) and for a discussion: the discussion case of
// every rule shows that discussions behave as they always did.
func TestDecide_rules_by_kind_of_thread(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	opened := now.Add(-time.Hour)
	past := state.Cursor{At: opened, All: true}
	cfg := Config{NewID: func() string { return "c-new" }, NewResumeID: func() string { return "r-new" }, MentionHandles: []string{"@lead"}}
	thread := func(k state.Kind, body string, comments ...Comment) *Thread {
		return &Thread{Kind: k, ID: "D_1", Number: 1, Author: "alice", Body: body, CreatedAt: now.Add(-2 * time.Hour), Comments: comments}
	}
	waiting := func(trigger string) *state.Record {
		rec := state.New(1)
		rec.Applied, rec.Seen = []string{"c-0"}, past
		rec.OpenRFCs = map[string]*state.RFC{"c-0": {Trigger: storetest.MustTrigger(trigger), OpenedAt: opened, RepliesAfter: past, Since: past, RecessCount: 1}}
		return rec
	}
	adjourned := func() *state.Record {
		rec := state.New(1)
		rec.Applied, rec.Seen = []string{"c-0"}, past
		return rec
	}
	bot := Comment{ID: "C_b", Author: "ci", AuthorBot: true, Body: "Coverage 81% @lead", CreatedAt: now.Add(-time.Minute)}
	restBot := Comment{ID: "C_b", Author: "preview[bot]", Body: "Preview ready @lead", CreatedAt: now.Add(-time.Minute)}
	reconcile := input{command: "inbound", discussion: true, rule: (*facts).reconcile}
	intake := input{command: "intake", discussion: true, rule: (*facts).reconcile}
	dispatch := planned{Write: true, Dispatch: "r-new", FiredBy: wait.KindMissingInput, Notes: []string{"recess c-0 fired (missing_input): 1 of 1 reply"}}
	closedIssue, merged := thread(state.KindIssue, ""), thread(state.KindPullRequest, "")
	closedIssue.Closed, merged.Closed, merged.Merged = true, true, true
	closedDiscussion := thread(state.KindDiscussion, "")
	closedDiscussion.Closed = true
	reopened := func(how string) *state.Record {
		rec := adjourned()
		rec.Closed = how
		return rec
	}
	botIssue := thread(state.KindIssue, "@lead the build is red")
	botIssue.Author, botIssue.AuthorBot = "ci", true
	tests := []struct {
		name string
		cfg  Config
		snap snapshot
		in   input
		want planned
	}{
		{name: "issue_bot_comment_is_no_reply",
			snap: snapshot{rec: waiting(`{"kind":"missing_input","replies":1}`), d: thread(state.KindIssue, "", bot)},
			in:   reconcile, want: planned{Write: true, Open: []string{"c-0"}}},
		{name: "pull_request_bot_login_is_no_reply",
			snap: snapshot{rec: waiting(`{"kind":"missing_input","replies":1}`), d: thread(state.KindPullRequest, "", restBot)},
			in:   reconcile, want: planned{Write: true, Open: []string{"c-0"}}},
		{name: "issue_bot_named_by_from_counts",
			snap: snapshot{rec: waiting(`{"kind":"missing_input","replies":1,"from":["ci[bot]"]}`), d: thread(state.KindIssue, "", bot)},
			in:   reconcile, want: planned{Write: true, Dispatch: "r-new", FiredBy: wait.KindMissingInput,
				Notes: []string{"recess c-0 fired (missing_input): 1 of 1 reply from ci[bot]"}}},
		{name: "discussion_bot_comment_is_a_reply",
			snap: snapshot{rec: waiting(`{"kind":"missing_input","replies":1}`), d: thread(state.KindDiscussion, "", bot)},
			in:   reconcile, want: dispatch},
		{name: "issue_bot_mention_wakes_nothing",
			cfg:  Config{WakeOn: WakeComment},
			snap: snapshot{rec: adjourned(), d: thread(state.KindIssue, "", bot), recent: answered(0, nil)},
			in:   intake, want: planned{Write: true}}, // the status comment's first words
		{name: "discussion_bot_comment_wakes",
			snap: snapshot{rec: adjourned(), d: thread(state.KindDiscussion, "", bot), recent: answered(0, nil)},
			in:   intake, want: planned{Write: true, Dispatch: "c-new", Notes: []string{"1 comment(s) nobody has answered: fresh dispatch"}}},
		{name: "issue_opened_by_a_bot_wakes_nothing",
			snap: snapshot{rec: state.New(1), isNew: true, d: botIssue},
			in:   intake, want: planned{}},
		{name: "issue_wakes_on_mention_by_default",
			snap: snapshot{rec: state.New(1), isNew: true, d: thread(state.KindIssue, "the build is red")},
			in:   intake, want: planned{Notes: []string{"the new issue, not mentioning @lead (wake-on mention): nothing to do"}}},
		{name: "issue_opened_mentioning_is_its_first_comment",
			snap: snapshot{rec: state.New(1), isNew: true, d: thread(state.KindIssue, "@lead the build is red")},
			in:   intake, want: planned{Need: need{recent: true}}},
		{name: "issue_wake_on_configured_wins",
			cfg:  Config{WakeOn: WakeComment},
			snap: snapshot{rec: state.New(1), isNew: true, d: thread(state.KindIssue, "the build is red")},
			in:   intake, want: planned{Need: need{recent: true}}},
		{name: "discussion_wakes_on_comment_by_default",
			snap: snapshot{rec: state.New(1), isNew: true, d: thread(state.KindDiscussion, "the build is red")},
			in:   intake, want: planned{Need: need{recent: true}}},
		{name: "issue_closed_expires_its_recess",
			snap: snapshot{rec: waiting(`{"kind":"elapsed","elapsed":"P1D"}`), d: closedIssue},
			in:   reconcile, want: planned{Write: true, Notes: []string{"recess c-0 expired: the issue was closed"}}},
		{name: "pull_request_merged_expires_its_recess",
			snap: snapshot{rec: waiting(`{"kind":"elapsed","elapsed":"P1D"}`), d: merged},
			in:   reconcile, want: planned{Write: true, Notes: []string{"recess c-0 expired: the pull request was merged"}}},
		{name: "issue_reopened_starts_nothing",
			snap: snapshot{rec: reopened("the issue was closed"), d: thread(state.KindIssue, "@lead the build is red"), recent: answered(0, nil)},
			in:   reconcile, want: planned{Write: true}},
		{name: "discussion_reopened_starts_nothing",
			snap: snapshot{rec: reopened("the discussion was closed"), d: thread(state.KindDiscussion, "the build is red"), recent: answered(0, nil)},
			in:   reconcile, want: planned{Write: true}},
		{name: "discussion_closed_expires_its_recess",
			snap: snapshot{rec: waiting(`{"kind":"elapsed","elapsed":"P1D"}`), d: closedDiscussion},
			in:   reconcile, want: planned{Write: true, Notes: []string{"recess c-0 expired: the discussion was closed"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tt.cfg
			c.NewID, c.NewResumeID, c.MentionHandles = cfg.NewID, cfg.NewResumeID, cfg.MentionHandles
			p, err := decide(tt.snap, tt.in, c.withDefaults(), now)
			if err != nil {
				t.Fatalf("decide = %v", err)
			}
			got := summary(p)
			if tt.want.Need.any() {
				got.Open = nil
			}
			got.After = nil // the waiting label and the status comment's words are not what this test is about
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(need{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// A verdict's reply_to on a flat thread answers at the top level, quoting
// the comment (no reply goes under a comment there, and that is not a
// move); scope "thread" is refused there before anything is posted.
func TestDecide_verdict_by_kind_of_thread(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	past := state.Cursor{At: now.Add(-time.Hour), All: true}
	rec := state.New(1)
	rec.Seen, rec.OpenRFCs = past, map[string]*state.RFC{}
	rec.Active = &state.Run{CorrelationID: "c-1", State: state.RunDispatched, Attempt: 1, DispatchedAt: past.At, Since: past, Until: past}
	comments := []Comment{
		{ID: "C_1", Author: "bob", Body: "Which one?", CreatedAt: now.Add(-3 * time.Hour)},
		{ID: "C_2", Root: "C_1", Author: "carol", Body: "This one.", CreatedAt: now.Add(-3 * time.Hour)},
	}
	verdict := func(trigger, replyTo string) *Verdict {
		return &Verdict{DiscussionNumber: 1, CorrelationID: "c-1", Verdict: VerdictRecessed,
			Trigger: storetest.MustTrigger(trigger), Replies: []VerdictReply{{Body: "Which database?", ReplyTo: replyTo}}}
	}
	tests := []struct {
		name    string
		kind    state.Kind
		v       *Verdict
		place   Placement // where PlaceReply puts the reply
		want    []post
		refused string // the field refused, "" when accepted
	}{
		{name: "issue_reply_quotes_its_comment", kind: state.KindIssue, v: verdict(`{"kind":"missing_input","replies":1}`, "C_1"),
			place: Placement{To: "C_1"}, want: []post{{key: "c-1", replyTo: "C_1", body: "Which database?"}}},
		{name: "discussion_reply_answers_a_reply_under_its_thread", kind: state.KindDiscussion, v: verdict(`{"kind":"missing_input","replies":1}`, "C_2"),
			place: Placement{To: "C_2", Under: "C_1"}, want: []post{{key: "c-1", replyTo: "C_2", body: "Which database?"}}},
		{name: "issue_scope_thread_refused", kind: state.KindIssue, v: verdict(`{"kind":"missing_input","replies":1,"scope":"thread"}`, "C_1"),
			refused: "trigger.scope"},
		{name: "pull_request_nested_scope_thread_refused", kind: state.KindPullRequest,
			v:       verdict(`{"kind":"any","of":[{"kind":"elapsed","elapsed":"P1D"},{"kind":"missing_input","replies":1,"scope":"thread"}]}`, ""),
			refused: "trigger.of[1].scope"},
		{name: "discussion_scope_thread_accepted", kind: state.KindDiscussion, v: verdict(`{"kind":"missing_input","replies":1,"scope":"thread"}`, "C_1"),
			place: Placement{To: "C_1", Under: "C_1"}, want: []post{{key: "c-1", replyTo: "C_1", body: "Which database?"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := &Thread{Kind: tt.kind, ID: "D_1", Number: 1, Author: "alice", CreatedAt: now.Add(-4 * time.Hour), Comments: comments}
			in := input{command: "verdict", discussion: true, rule: func(f *facts, rec *state.Record) (plan, error) { return f.verdict(rec, tt.v, 0) }}
			p, err := decide(snapshot{rec: rec.Clone(), d: d}, in, Defaults().withDefaults(), now)
			var fe *wait.FieldError
			switch {
			case tt.refused != "" && (!errors.Is(err, ErrRefused) || !errors.As(err, &fe) || fe.Field != tt.refused):
				t.Fatalf("decide = %v, want refused on %s", err, tt.refused)
			case tt.refused != "" && (len(p.posts) > 0 || p.write):
				t.Errorf("a refused verdict planned %d posts, write %v", len(p.posts), p.write)
			case tt.refused == "" && err != nil:
				t.Fatalf("decide = %v", err)
			}
			for i := range p.posts {
				p.posts[i].keep = ""
			}
			if diff := cmp.Diff(tt.want, p.posts, cmp.AllowUnexported(post{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("posts (-want +got):\n%s", diff)
			}
			if got := PlaceReply(d, tt.v.Replies[0].ReplyTo); tt.refused == "" && got != tt.place {
				t.Errorf("PlaceReply = %+v, want %+v", got, tt.place)
			}
		})
	}
}

// A refused verdict names the thread by its kind ("issue 1"), as the
// verdict step's log and the agent read it.
func TestVerdict_refusal_names_the_kind_of_thread(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	rec := state.New(1)
	rec.Active = &state.Run{CorrelationID: "c-1", State: state.RunDispatched, Attempt: 1, DispatchedAt: now.Add(-time.Hour)}
	tests := []struct {
		name  string
		kind  state.Kind
		isNew bool
		want  string
	}{
		{name: "stale_on_an_issue", kind: state.KindIssue, want: `"c-9" is not the active run of issue 1 (expected c-1): stale or duplicate`},
		{name: "stale_on_a_pull_request", kind: state.KindPullRequest, want: `"c-9" is not the active run of pull request 1 (expected c-1): stale or duplicate`},
		{name: "stale_on_a_discussion", kind: state.KindDiscussion, want: `"c-9" is not the active run of discussion 1 (expected c-1): stale or duplicate`},
		{name: "no_record_of_an_issue", kind: state.KindIssue, isNew: true, want: "recess has no record of issue 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := rec.Clone()
			r.Kind = tt.kind
			d := &Thread{Kind: tt.kind, ID: "D_1", Number: 1, Author: "alice", CreatedAt: now.Add(-4 * time.Hour)}
			v := &Verdict{DiscussionNumber: 1, CorrelationID: "c-9", Verdict: VerdictAdjourned}
			in := input{command: "verdict", discussion: true, rule: func(f *facts, rec *state.Record) (plan, error) { return f.verdict(rec, v, 0) }}
			_, err := decide(snapshot{rec: r, isNew: tt.isNew, d: d}, in, Defaults().withDefaults(), now)
			var fe *wait.FieldError
			if !errors.Is(err, ErrRefused) || !errors.As(err, &fe) || fe.Reason != tt.want {
				t.Errorf("decide = %v, want refused with %q", err, tt.want)
			}
		})
	}
}

// The words people read name the thread's kind; a discussion's are the
// words golden file's.
func TestWords_name_the_kind_of_thread(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind state.Kind
		want []string
	}{
		{state.KindIssue, []string{"▶️ An agent is working on this issue.",
			"⚠️ recess stopped starting agent runs for this issue: it failed. A maintainer can say `/recess retry` to try again.",
			"this issue shows no comment \"C_9\"", "a comment this issue does not show (`C_9`)", "the issue was deleted"}},
		{state.KindPullRequest, []string{"▶️ An agent is working on this pull request.",
			"⚠️ recess stopped starting agent runs for this pull request: it failed. A maintainer can say `/recess retry` to try again.",
			"this pull request shows no comment \"C_9\"", "a comment this pull request does not show (`C_9`)", "the pull request was deleted"}},
		{state.KindDiscussion, []string{"▶️ An agent is working on this discussion.",
			"⚠️ recess stopped starting agent runs for this discussion: it failed. A maintainer can say `/recess retry` to try again.",
			"this discussion shows no comment \"C_9\"", "a comment this discussion does not show (`C_9`)", "the discussion was deleted"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			t.Parallel()
			rec := state.New(1)
			rec.Kind = tt.kind
			rec.OpenRFCs = map[string]*state.RFC{"c-0": {Trigger: storetest.MustTrigger(`{"kind":"elapsed","elapsed":"P1D"}`)}}
			d := &Thread{Kind: tt.kind, ID: "D_1", Number: 1}
			f := &facts{s: snapshot{rec: rec, d: d}, d: d}
			pl := PlaceReply(d, "C_9")
			gone := &facts{s: snapshot{rec: rec}}
			_, p := gone.gone(rec.Clone())
			got := []string{f.text("status.working", "run", ""), f.text("note.escalated", "reason", "it failed", "mentions", ""),
				pl.Moved, pl.Answered, p.res.Notes[0][len("recess c-0 expired: "):]}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("words (-want +got):\n%s", diff)
			}
		})
	}
}

// A thread known by its number alone is of the one kind the setup serves
// (a number of another kind is then not found); only a setup that serves
// more than one kind reads it as whichever kind the number names.
func TestUnknownKind_is_the_one_kind_served(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		served []state.Kind
		want   ThreadRef
	}{
		{name: "discussions_by_default", want: ThreadRef{Kind: state.KindDiscussion, Number: 4}},
		{name: "discussions_alone", served: []state.Kind{state.KindDiscussion}, want: ThreadRef{Kind: state.KindDiscussion, Number: 4}},
		{name: "issues_alone", served: []state.Kind{state.KindIssue}, want: ThreadRef{Kind: state.KindIssue, Number: 4}},
		{name: "pull_requests_alone", served: []state.Kind{state.KindPullRequest}, want: ThreadRef{Kind: state.KindPullRequest, Number: 4}},
		{name: "issues_and_pull_requests", served: []state.Kind{state.KindIssue, state.KindPullRequest}, want: ThreadRef{Kind: AnyKind, Number: 4}},
		{name: "discussions_and_issues", served: []state.Kind{state.KindDiscussion, state.KindIssue}, want: ThreadRef{Kind: AnyKind, Number: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := (&Engine{Kind: UnknownKind(tt.served)}).Ref(4); got != tt.want {
				t.Errorf("a number alone where %q are served is read as %+v, want %+v", tt.served, got, tt.want)
			}
		})
	}
}

// Scope "thread" is refused on a kind that holds no replies under
// comments, naming the field, and passes where the kind is not known (the
// verdict step, which reads the thread, decides then).
func TestCheckScope_refuses_scope_thread_on_a_flat_thread(t *testing.T) {
	t.Parallel()
	nested := storetest.MustTrigger(`{"kind":"any","of":[{"kind":"elapsed","elapsed":"P1D"},{"kind":"missing_input","replies":1,"scope":"thread"}]}`)
	plain := storetest.MustTrigger(`{"kind":"missing_input","replies":1}`)
	tests := []struct {
		name    string
		trigger *wait.Trigger
		kind    state.Kind
		refused string // the field, "" when it passes
	}{
		{name: "issue", trigger: nested, kind: state.KindIssue, refused: "trigger.of[1].scope"},
		{name: "pull_request", trigger: nested, kind: state.KindPullRequest, refused: "trigger.of[1].scope"},
		{name: "discussion", trigger: nested, kind: state.KindDiscussion},
		{name: "unknown_kind", trigger: nested, kind: AnyKind},
		{name: "issue_without_scope", trigger: plain, kind: state.KindIssue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckScope(tt.trigger, tt.kind)
			var fe *wait.FieldError
			switch {
			case tt.refused == "" && err != nil:
				t.Errorf("CheckScope = %v, want it to pass", err)
			case tt.refused != "" && (!errors.Is(err, ErrRefused) || !errors.As(err, &fe) || fe.Field != tt.refused):
				t.Errorf("CheckScope = %v, want refused on %s", err, tt.refused)
			}
		})
	}
}
