package resume_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

var ctx = context.Background()

// mustRun fails the test when an engine call fails: mustRun(t)(e.Intake(ctx, n)).
func mustRun(t *testing.T) func(*resume.Result, error) *resume.Result {
	t.Helper()
	return func(res *resume.Result, err error) *resume.Result {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v (notes %q, warnings %q)", res.Command, err, res.Notes, res.Warnings)
		}
		return res
	}
}

// verdict applies a verdict document through the engine's own parser.
func verdict(t *testing.T, e *resume.Engine, doc string) (*resume.Result, error) {
	t.Helper()
	v, err := e.ParseVerdict([]byte(doc))
	if err != nil {
		return &resume.Result{Command: "verdict"}, err
	}
	return e.Verdict(ctx, v, 0)
}

func recessed(cid string, n int, trigger string, replies ...string) string {
	rs := make([]string, 0, len(replies))
	for _, r := range replies {
		rs = append(rs, fmt.Sprintf(`{"body": %q}`, r))
	}
	return fmt.Sprintf(`{"verdict":"recessed","correlation_id":%q,"discussion_number":%d,"replies":[%s],"trigger":%s}`,
		cid, n, strings.Join(rs, ","), trigger)
}

func adjourned(cid string, n int, replies ...string) string {
	rs := make([]string, 0, len(replies))
	for _, r := range replies {
		rs = append(rs, fmt.Sprintf(`{"body": %q}`, r))
	}
	return fmt.Sprintf(`{"verdict":"adjourned","correlation_id":%q,"discussion_number":%d,"replies":[%s]}`,
		cid, n, strings.Join(rs, ","))
}

func TestStory_intake_recess_accumulate_fire_adjourn(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")

	res := mustRun(t)(e.Intake(ctx, n))
	if !res.Dispatched || res.Fired || res.CorrelationID != "c-1" {
		t.Fatalf("intake: dispatched %v fired %v id %q, want a fresh dispatch c-1", res.Dispatched, res.Fired, res.CorrelationID)
	}
	if got := w.calls(); len(got) != 1 || got[0].req.ResumeContext != "" {
		t.Fatalf("intake dispatches = %+v, want one with an empty resume_context", got)
	}
	d, _ := w.Thread(ctx, resume.DiscussionRef(n))
	if !w.reactions[d.ID][resume.Eyes] {
		t.Errorf("intake: no EYES reaction on the discussion")
	}
	// A comment while the agent works: it accumulates, it does not dispatch.
	w.advance(time.Minute)
	early := w.say(n, "bob", "NONE", "", "while you were thinking: use postgres")
	res = mustRun(t)(e.Inbound(ctx, n))
	if res.Dispatched || len(w.calls()) != 1 {
		t.Fatalf("comment during a run dispatched (%d dispatches)", len(w.calls()))
	}

	w.advance(time.Minute)
	res = mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"missing_input","replies":2}`, "Which storage backend?")))
	if res.OpenRFCs != 1 {
		t.Fatalf("after recess: open RFCs = %d, want 1", res.OpenRFCs)
	}
	if w.reactions[d.ID][resume.Eyes] {
		t.Errorf("EYES still on the discussion after the verdict")
	}
	if got := w.mine(n); len(got) != 1 || !strings.HasPrefix(got[0].Body, "Which storage backend?") {
		t.Fatalf("recess's comments = %+v, want the one reply", got)
	}

	w.advance(time.Hour)
	w.say(n, "carol", "NONE", "", "S3 please")
	res = mustRun(t)(e.Inbound(ctx, n))
	if res.Dispatched {
		t.Fatalf("1 of 2 replies fired")
	}
	if want := "1 more reply (1 of 2 so far)"; !strings.Contains(w.record(t, n).Status, want) {
		t.Errorf("status = %q, want it to contain %q", w.record(t, n).Status, want)
	}

	w.advance(time.Hour)
	last := w.say(n, "dave", "MEMBER", "", "agree with S3")
	res = mustRun(t)(e.Inbound(ctx, n))
	if !res.Fired || res.FiredBy != "missing_input" || res.CorrelationID != "c-2" {
		t.Fatalf("second reply: fired %v by %q id %q, want missing_input c-2", res.Fired, res.FiredBy, res.CorrelationID)
	}
	rc := w.resumeContext(t, 1)
	if rc.CorrelationID != "c-1" || rc.FiredBy != "missing_input" || rc.RecessCount != 1 || rc.Truncated {
		t.Errorf("resume_context = %+v", rc)
	}
	var authors []string
	for _, h := range rc.HistorySince {
		authors = append(authors, h.Author)
	}
	// bob's comment came while the agent was working: it must not be lost.
	// dave is a MEMBER who wrote no command: recess never asked GitHub for
	// his permission, and membership is no proof of write access, so his
	// role is "user".
	if diff := cmp.Diff([]string{"bob", "carol", "dave"}, authors); diff != "" {
		t.Errorf("history_since authors (-want +got):\n%s", diff)
	}
	if rc.HistorySince[0].ID != early || rc.HistorySince[2].ID != last || rc.HistorySince[2].Role != "user" {
		t.Errorf("history_since = %+v", rc.HistorySince)
	}
	if !w.reactions[last][resume.Eyes] {
		t.Errorf("no EYES on the newest comment after the resume")
	}

	w.advance(time.Minute)
	res = mustRun(t)(verdict(t, e, adjourned("c-2", n, "Going with S3.")))
	if res.OpenRFCs != 0 || len(w.calls()) != 2 {
		t.Fatalf("after adjourn: open %d, dispatches %d", res.OpenRFCs, len(w.calls()))
	}
	rec := w.record(t, n)
	if rec.Pending() {
		t.Errorf("record still pending after adjourn: %+v", rec)
	}
	// Nothing new: a sweep does nothing.
	w.advance(time.Hour)
	mustRun(t)(e.Sweep(ctx))
	if len(w.calls()) != 2 {
		t.Errorf("sweep after adjourn dispatched")
	}
}

func TestVerdict_stale_and_duplicate(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	before := w.record(t, n)
	mineBefore := len(w.mine(n))

	_, err := verdict(t, e, adjourned("c-999", n, "hello"))
	var fe *wait.FieldError
	if !errors.Is(err, resume.ErrRefused) || !errors.As(err, &fe) || fe.Field != "verdict.correlation_id" {
		t.Fatalf("stale verdict error = %v, want refused naming verdict.correlation_id", err)
	}
	if len(w.mine(n)) != mineBefore {
		t.Errorf("stale verdict posted a comment")
	}
	if diff := cmp.Diff(before, w.record(t, n)); diff != "" {
		t.Errorf("stale verdict changed the record (-before +after):\n%s", diff)
	}

	mustRun(t)(verdict(t, e, adjourned("c-1", n, "answer")))
	posted := len(w.mine(n))
	rec := w.record(t, n)
	// Re-delivered: a no-op.
	res := mustRun(t)(verdict(t, e, adjourned("c-1", n, "answer")))
	if len(w.mine(n)) != posted || res.Dispatched {
		t.Errorf("re-delivered verdict posted or dispatched")
	}
	if diff := cmp.Diff(rec, w.record(t, n)); diff != "" {
		t.Errorf("re-delivered verdict changed the record:\n%s", diff)
	}
}

func TestVerdict_reply_to_an_unknown_comment_goes_to_the_top_level(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	doc := `{"verdict":"adjourned","correlation_id":"c-1","discussion_number":1,"replies":[{"body":"ok"},{"body":"x","reply_to":"DC_nope"}]}`
	mustRun(t)(verdict(t, e, doc))
	var got []string
	for _, c := range w.mine(n) {
		if c.Root != "" {
			t.Errorf("reply %q went under %s, want the top level", c.Body, c.Root)
		}
		got = append(got, strings.SplitN(c.Body, "\n\n", 2)[0])
	}
	want := []string{"ok", "↪️ In answer to a comment this discussion does not show (`DC_nope`):"}
	if diff := cmp.Diff(want, got[len(got)-2:]); diff != "" {
		t.Errorf("first paragraphs of recess's replies (-want +got):\n%s", diff)
	}
}

func TestVerdict_reply_to_a_reply_goes_under_its_parent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	top := w.say(n, "bob", "NONE", "", "top")
	nested := w.say(n, "carol", "NONE", top, "nested")
	mustRun(t)(e.Intake(ctx, n))
	doc := fmt.Sprintf(`{"verdict":"adjourned","correlation_id":"c-1","discussion_number":1,"replies":[{"body":"answer","reply_to":%q}]}`, nested)
	mustRun(t)(verdict(t, e, doc))
	var got *resume.Comment
	for _, c := range w.mine(n) {
		if strings.HasPrefix(c.Body, "answer") {
			got = &c
		}
	}
	if got == nil || got.Root != top {
		t.Fatalf("reply = %+v, want it under %s", got, top)
	}
}

func TestVerdict_rerun_after_partial_post_never_posts_twice(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	doc := recessed("c-1", n, `{"kind":"elapsed","elapsed":"P1D"}`, "one", "two")
	w.saveErrs = []error{errors.New("the runner died")}
	if _, err := verdict(t, e, doc); err == nil {
		t.Fatalf("verdict with a failing save succeeded")
	}
	posted := len(w.mine(n))
	mustRun(t)(verdict(t, e, doc))
	replies := 0
	for _, c := range w.mine(n) {
		if strings.HasPrefix(c.Body, "one") || strings.HasPrefix(c.Body, "two") {
			replies++
		}
	}
	if replies != 2 {
		t.Errorf("after a re-run there are %d replies, want 2 (posted before the failure: %d comments)", replies, posted)
	}
	if r := w.record(t, n); len(r.OpenRFCs) != 1 {
		t.Errorf("open RFCs = %d, want 1", len(r.OpenRFCs))
	}
}

func TestElapsed_fires_on_sweep(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	res := mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"elapsed","elapsed":"PT12H"}`)))
	want := w.Now().Add(12 * time.Hour)
	if res.DueAt == nil || !res.DueAt.Equal(want) {
		t.Fatalf("due_at = %v, want %v", res.DueAt, want)
	}
	w.advance(12*time.Hour - time.Second)
	mustRun(t)(e.Sweep(ctx))
	if len(w.calls()) != 1 {
		t.Fatalf("sweep before due dispatched")
	}
	w.advance(time.Second)
	res = mustRun(t)(e.Sweep(ctx))
	if !res.Fired || len(w.calls()) != 2 {
		t.Fatalf("sweep at due: fired %v, dispatches %d", res.Fired, len(w.calls()))
	}
	if rc := w.resumeContext(t, 1); rc.FiredBy != "elapsed" || len(rc.HistorySince) != 0 {
		t.Errorf("resume_context = %+v, want fired_by elapsed with empty history", rc)
	}
}

func TestMissingInput_lost_event_caught_up_by_sweep(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"missing_input","replies":1}`, "question?")))
	w.advance(time.Minute)
	w.say(n, "bob", "NONE", "", "answer") // its event is lost: no Inbound call
	w.advance(5 * time.Minute)
	res := mustRun(t)(e.Sweep(ctx))
	if !res.Fired || res.FiredBy != "missing_input" {
		t.Fatalf("sweep: fired %v by %q, want missing_input", res.Fired, res.FiredBy)
	}
}

func TestDispatch_failure_then_recovery(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	w.dispatchErrs = []error{errors.New("502 bad gateway")}
	res := mustRun(t)(e.Intake(ctx, n))
	if res.Dispatched || len(res.Warnings) == 0 {
		t.Fatalf("failed dispatch: dispatched %v warnings %q", res.Dispatched, res.Warnings)
	}
	rec := w.record(t, n)
	if rec.Active == nil || rec.Active.State != state.RunDispatching || rec.Active.DispatchErrors != 1 || rec.Active.Attempt != 1 {
		t.Fatalf("record after a failed dispatch: %+v", rec.Active)
	}
	// A comment arriving right away neither dispatches nor loses anything.
	w.advance(10 * time.Second)
	w.say(n, "bob", "NONE", "", "hello?")
	mustRun(t)(e.Inbound(ctx, n))
	if len(w.calls()) != 0 {
		t.Fatalf("retried before the retry delay")
	}
	w.advance(2 * time.Minute)
	res = mustRun(t)(e.Sweep(ctx))
	if !res.Dispatched || len(w.calls()) != 1 {
		t.Fatalf("sweep after failure: dispatched %v, %d dispatches", res.Dispatched, len(w.calls()))
	}
	rec = w.record(t, n)
	if rec.Active.State != state.RunDispatched || rec.Active.Attempt != 1 || rec.Active.CorrelationID != "c-1" {
		t.Errorf("after recovery: %+v (a failed call must not burn an attempt)", rec.Active)
	}
}

func TestDispatch_502_after_apply_is_not_doubled(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	w.dispatchErrs = []error{errApplied}
	mustRun(t)(e.Intake(ctx, n))
	if len(w.calls()) != 1 {
		t.Fatalf("dispatches = %d", len(w.calls()))
	}
	w.advance(2 * time.Minute)
	mustRun(t)(e.Sweep(ctx))
	if len(w.calls()) != 1 {
		t.Fatalf("the sweep dispatched again although the run exists (%d dispatches)", len(w.calls()))
	}
	if rec := w.record(t, n); rec.Active.State != state.RunDispatched || rec.Active.RunID == 0 {
		t.Errorf("after lookup: %+v, want confirmed with the run id", rec.Active)
	}
}

func TestCrash_between_intent_and_confirmation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		applied bool // the dispatch reached GitHub before the crash
	}{
		{name: "crash_before_dispatch", applied: false},
		{name: "crash_after_dispatch", applied: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			e := w.engine(resume.Config{})
			n := w.openDiscussion("alice")
			crashed := errors.New("process died")
			if tc.applied {
				// intent save ok, dispatch ok, confirmation save dies.
				w.saveErrs = []error{nil, crashed}
			} else {
				w.dispatchErrs = []error{crashed}
				w.saveErrs = []error{nil, crashed}
			}
			_, _ = e.Intake(ctx, n)
			rec := w.record(t, n)
			if rec.Active == nil || rec.Active.State != state.RunDispatching {
				t.Fatalf("after the crash: %+v, want an unconfirmed intent", rec.Active)
			}
			// Another run soon after leaves the young intent alone.
			w.advance(time.Minute)
			mustRun(t)(e.Inbound(ctx, n))
			wantCalls := 0
			if tc.applied {
				wantCalls = 1
			}
			if len(w.calls()) != wantCalls {
				t.Fatalf("young intent: %d dispatches, want %d", len(w.calls()), wantCalls)
			}
			w.advance(15 * time.Minute)
			mustRun(t)(e.Sweep(ctx))
			if len(w.calls()) != 1 {
				t.Fatalf("after the sweep: %d dispatches, want exactly 1", len(w.calls()))
			}
			rec = w.record(t, n)
			if rec.Active.State != state.RunDispatched || rec.Active.CorrelationID != "c-1" {
				t.Errorf("after the sweep: %+v", rec.Active)
			}
		})
	}
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		onExpire     string
		wantDispatch bool
	}{
		{name: "on_expire_resume", onExpire: "resume", wantDispatch: true},
		{name: "on_expire_cancel", onExpire: "cancel", wantDispatch: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			e := w.engine(resume.Config{})
			n := w.openDiscussion("alice")
			mustRun(t)(e.Intake(ctx, n))
			trig := fmt.Sprintf(`{"kind":"missing_input","replies":3,"expires":"P2D","on_expire":%q}`, tc.onExpire)
			mustRun(t)(verdict(t, e, recessed("c-1", n, trig, "anyone?")))
			w.advance(time.Hour)
			w.say(n, "bob", "NONE", "", "me")
			w.advance(2 * 24 * time.Hour)
			res := mustRun(t)(e.Sweep(ctx))
			if got := len(w.calls()) == 2; got != tc.wantDispatch {
				t.Fatalf("dispatched = %v, want %v (notes %q)", got, tc.wantDispatch, res.Notes)
			}
			rec := w.record(t, n)
			if len(rec.OpenRFCs) != 0 {
				t.Errorf("RFC still open after expiry")
			}
			if tc.wantDispatch {
				rc := w.resumeContext(t, 1)
				if rc.FiredBy != "expired" || len(rc.HistorySince) != 1 {
					t.Errorf("resume_context = %+v, want fired_by expired with bob's comment", rc)
				}
				return
			}
			note := false
			for _, c := range w.mine(n) {
				note = note || strings.Contains(c.Body, "No longer waiting")
			}
			if !note {
				t.Errorf("no 'no longer waiting' note after a cancelled expiry")
			}
			// What was said meanwhile was passed over deliberately: no fresh dispatch.
			mustRun(t)(e.Sweep(ctx))
			mustRun(t)(e.Inbound(ctx, n))
			if len(w.calls()) != 1 {
				t.Errorf("a cancelled recess led to %d dispatches", len(w.calls()))
			}
		})
	}
}

func TestEscalation_after_failed_runs_and_retry(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{EscalateTo: []string{"lead"}})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"missing_input","replies":1}`, "q?")))
	w.advance(time.Minute)
	w.say(n, "bob", "NONE", "", "here you go")
	mustRun(t)(e.Inbound(ctx, n))
	first := w.resumeContext(t, 1)

	// The resumed run fails without a verdict: retried with the same context.
	w.finishRun(w.calls()[1].run.ID, "failure")
	w.advance(5 * time.Minute)
	res := mustRun(t)(e.Sweep(ctx))
	if len(w.calls()) != 3 || res.FiredBy != "retry" {
		t.Fatalf("after a failed run: %d dispatches, fired_by %q; want a retry", len(w.calls()), res.FiredBy)
	}
	retry := w.resumeContext(t, 2)
	first.FiredBy = "retry"
	if diff := cmp.Diff(first, retry); diff != "" {
		t.Errorf("retry resume_context differs from the first (-first +retry):\n%s", diff)
	}
	// It fails again: max-attempts 2 reached, escalate.
	w.finishRun(w.calls()[2].run.ID, "cancelled")
	w.advance(5 * time.Minute)
	res = mustRun(t)(e.Sweep(ctx))
	if len(w.calls()) != 3 || len(res.Warnings) == 0 {
		t.Fatalf("after the second failure: %d dispatches, warnings %q; want an escalation", len(w.calls()), res.Warnings)
	}
	d, _ := w.Thread(ctx, resume.DiscussionRef(n))
	if !w.labels[d.ID][resume.LabelEscalated] {
		t.Errorf("no %s label", resume.LabelEscalated)
	}
	mentioned := false
	for _, c := range w.mine(n) {
		mentioned = mentioned || strings.Contains(c.Body, "@lead")
	}
	if !mentioned {
		t.Errorf("the escalation does not mention @lead")
	}
	// No automatic dispatch, whatever happens...
	w.advance(time.Hour)
	w.say(n, "carol", "NONE", "", "anyone?")
	mustRun(t)(e.Inbound(ctx, n))
	mustRun(t)(e.Sweep(ctx))
	if len(w.calls()) != 3 {
		t.Fatalf("escalated discussion dispatched")
	}
	// ...until a maintainer says /recess retry (a non-maintainer cannot).
	w.say(n, "mallory", "NONE", "", "/recess retry")
	mustRun(t)(e.Inbound(ctx, n))
	if len(w.calls()) != 3 {
		t.Fatalf("/recess retry from a non-maintainer dispatched")
	}
	cmdID := w.say(n, "lead", "MEMBER", "", "/recess retry")
	res = mustRun(t)(e.Inbound(ctx, n))
	if len(w.calls()) != 4 || !res.Dispatched {
		t.Fatalf("/recess retry: %d dispatches", len(w.calls()))
	}
	if !w.reactions[cmdID][resume.ThumbsUp] {
		t.Errorf("/recess retry not acknowledged with a reaction")
	}
	if w.labels[d.ID][resume.LabelEscalated] {
		t.Errorf("escalated label still there after retry")
	}
	if rec := w.record(t, n); rec.Escalated != nil || rec.Active.Attempt != 1 {
		t.Errorf("after retry: escalated %+v, attempt %d", rec.Escalated, rec.Active.Attempt)
	}
}

func TestRateLimit_fresh_dispatches_queue_and_never_lose_comments(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{MaxDispatchesPerHour: 2})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	mustRun(t)(verdict(t, e, adjourned("c-1", n, "done")))
	w.advance(time.Minute)
	w.say(n, "bob", "NONE", "", "follow-up 1")
	mustRun(t)(e.Inbound(ctx, n))
	if len(w.calls()) != 2 {
		t.Fatalf("second fresh dispatch: %d dispatches", len(w.calls()))
	}
	mustRun(t)(verdict(t, e, adjourned("c-2", n, "done again")))
	w.advance(time.Minute)
	held := w.say(n, "bob", "NONE", "", "follow-up 2")
	res := mustRun(t)(e.Inbound(ctx, n))
	if len(w.calls()) != 2 || res.Dispatched {
		t.Fatalf("third fresh dispatch within the hour was not held back")
	}
	if rec := w.record(t, n); rec.Queued == nil {
		t.Fatalf("held-back dispatch not queued: %+v", rec)
	}
	w.advance(time.Hour)
	res = mustRun(t)(e.Sweep(ctx))
	if len(w.calls()) != 3 || !res.Dispatched {
		t.Fatalf("queued dispatch not performed after the hour: %d dispatches", len(w.calls()))
	}
	rc := w.resumeContext(t, 2)
	if len(rc.HistorySince) != 1 || rc.HistorySince[0].ID != held {
		t.Errorf("queued dispatch history = %+v, want the held comment", rc.HistorySince)
	}
}

func TestAccumulating_comments_are_never_rate_limited(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{MaxDispatchesPerHour: 1})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"missing_input","replies":1}`, "q?")))
	w.say(n, "bob", "NONE", "", "a")
	res := mustRun(t)(e.Inbound(ctx, n))
	if !res.Fired {
		t.Fatalf("a resume was rate-limited: %q", res.Notes)
	}
}

func TestSlashCommands(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (*world, *resume.Engine, int) {
		w := newWorld(t)
		e := w.engine(resume.Config{})
		n := w.openDiscussion("alice")
		mustRun(t)(e.Intake(ctx, n))
		mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"any","of":[{"kind":"missing_input","replies":5},{"kind":"escalation_needed","signal":"security"}]}`, "q?")))
		return w, e, n
	}
	t.Run("resume_from_maintainer_fires_manual", func(t *testing.T) {
		t.Parallel()
		w, e, n := setup(t)
		w.advance(time.Minute)
		w.say(n, "lead", "OWNER", "", "/recess resume")
		res := mustRun(t)(e.Inbound(ctx, n))
		if !res.Fired || res.FiredBy != "manual" {
			t.Fatalf("fired %v by %q, want manual", res.Fired, res.FiredBy)
		}
	})
	t.Run("resume_from_anyone_else_is_a_reply", func(t *testing.T) {
		t.Parallel()
		w, e, n := setup(t)
		w.advance(time.Minute)
		w.say(n, "mallory", "CONTRIBUTOR", "", "/recess resume")
		res := mustRun(t)(e.Inbound(ctx, n))
		if res.Fired {
			t.Fatalf("a contributor's /recess resume fired")
		}
		if want := "4 more replies (1 of 5 so far)"; !strings.Contains(w.record(t, n).Status, want) {
			t.Errorf("status %q, want it to count the comment as a reply (%q)", w.record(t, n).Status, want)
		}
	})
	t.Run("signal_fires_escalation_needed", func(t *testing.T) {
		t.Parallel()
		w, e, n := setup(t)
		w.advance(time.Minute)
		w.say(n, "lead", "MEMBER", "", "/recess signal security")
		res := mustRun(t)(e.Inbound(ctx, n))
		if !res.Fired || res.FiredBy != "escalation_needed" {
			t.Fatalf("fired %v by %q, want escalation_needed", res.Fired, res.FiredBy)
		}
	})
	t.Run("cancel_closes_with_a_note", func(t *testing.T) {
		t.Parallel()
		w, e, n := setup(t)
		w.advance(time.Minute)
		id := w.say(n, "lead", "COLLABORATOR", "", "/recess cancel")
		res := mustRun(t)(e.Inbound(ctx, n))
		if res.OpenRFCs != 0 || res.Dispatched {
			t.Fatalf("after cancel: open %d dispatched %v", res.OpenRFCs, res.Dispatched)
		}
		if !w.reactions[id][resume.ThumbsUp] {
			t.Errorf("cancel not acknowledged")
		}
		// Handled once: another run neither re-acknowledges nor posts again.
		posted := len(w.mine(n))
		mustRun(t)(e.Inbound(ctx, n))
		if len(w.mine(n)) != posted {
			t.Errorf("a second run posted again")
		}
	})
	t.Run("status_answers_once", func(t *testing.T) {
		t.Parallel()
		w, e, n := setup(t)
		w.advance(time.Minute)
		id := w.say(n, "lead", "OWNER", "", "/recess status")
		mustRun(t)(e.Inbound(ctx, n))
		mustRun(t)(e.Inbound(ctx, n))
		answers := 0
		for _, c := range w.mine(n) {
			if c.Root == id {
				answers++
				if !strings.Contains(c.Body, "Waiting for") {
					t.Errorf("status answer = %q", c.Body)
				}
			}
		}
		if answers != 1 {
			t.Errorf("status answered %d times, want 1", answers)
		}
	})
	t.Run("extend_pushes_the_due_moment", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		e := w.engine(resume.Config{})
		n := w.openDiscussion("alice")
		mustRun(t)(e.Intake(ctx, n))
		mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"elapsed","elapsed":"P1D"}`)))
		opened := w.Now()
		w.advance(time.Hour)
		w.say(n, "lead", "OWNER", "", "/recess extend P1D")
		res := mustRun(t)(e.Inbound(ctx, n))
		if want := opened.Add(48 * time.Hour); res.DueAt == nil || !res.DueAt.Equal(want) {
			t.Fatalf("due_at after extend = %v, want %v", res.DueAt, want)
		}
		w.advance(24 * time.Hour)
		mustRun(t)(e.Sweep(ctx))
		if len(w.calls()) != 1 {
			t.Fatalf("fired at the original due moment after an extension")
		}
	})
	t.Run("bad_command_is_confused", func(t *testing.T) {
		t.Parallel()
		w, e, n := setup(t)
		id := w.say(n, "lead", "OWNER", "", "/recess extend forever")
		res := mustRun(t)(e.Inbound(ctx, n))
		if !w.reactions[id][resume.Confused] || len(res.Warnings) == 0 {
			t.Errorf("bad command: reactions %v warnings %q", w.reactions[id], res.Warnings)
		}
	})
}

func TestClaim(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	if res := mustRun(t)(e.Claim(ctx, n, "c-404", 1)); !res.Stale {
		t.Errorf("claim of an unknown id: not stale")
	}
	run := w.calls()[0].run.ID
	if res := mustRun(t)(e.Claim(ctx, n, "c-1", run)); res.Stale {
		t.Errorf("claim of the active run: stale")
	}
	if res := mustRun(t)(e.Claim(ctx, n, "c-1", run+77)); !res.Stale {
		t.Errorf("duplicate run's claim: not stale")
	}
	if res := mustRun(t)(e.Claim(ctx, n, "c-1", run)); res.Stale {
		t.Errorf("the same run claiming again: stale")
	}
	_, err := e.Verdict(ctx, mustParse(t, e, adjourned("c-1", n, "x")), run+77)
	if !errors.Is(err, resume.ErrRefused) {
		t.Errorf("verdict from the duplicate run: %v, want refused", err)
	}
}

func mustParse(t *testing.T, e *resume.Engine, doc string) *resume.Verdict {
	t.Helper()
	v, err := e.ParseVerdict([]byte(doc))
	if err != nil {
		t.Fatalf("ParseVerdict: %v", err)
	}
	return v
}

func TestOwnComments_and_ignored_bots_never_dispatch(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{IgnoreAuthors: []string{"dependabot[bot]"}})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	mustRun(t)(verdict(t, e, adjourned("c-1", n, "answer")))
	w.say(n, "dependabot", "NONE", "", "bump")
	mustRun(t)(e.Inbound(ctx, n))
	if len(w.calls()) != 1 {
		t.Errorf("an ignored bot's comment dispatched")
	}
}

func TestClosedDiscussion_expires_recess(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"elapsed","elapsed":"P1D"}`)))
	w.discussions[n].Closed = true
	w.advance(48 * time.Hour)
	res := mustRun(t)(e.Sweep(ctx))
	if res.Fired || len(w.calls()) != 1 {
		t.Fatalf("a closed discussion's recess fired")
	}
	rec := w.record(t, n)
	if len(rec.OpenRFCs) != 0 || !strings.Contains(rec.Closed, "closed") {
		t.Errorf("record after close: open %d closed %q", len(rec.OpenRFCs), rec.Closed)
	}
}

func TestRecess_comment_in_the_same_second_as_the_question(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	w.advance(time.Minute)
	// Written while the agent worked, in the very second it posts its question.
	w.say(n, "bob", "NONE", "", "early thought")
	mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"missing_input","replies":1}`, "question?")))
	// Same second, but after recess's reply: it counts.
	w.say(n, "carol", "NONE", "", "answer")
	res := mustRun(t)(e.Inbound(ctx, n))
	if !res.Fired {
		t.Fatalf("carol's answer did not fire the recess")
	}
	rc := w.resumeContext(t, 1)
	if len(rc.HistorySince) != 2 {
		t.Errorf("history_since = %+v, want bob's and carol's comments", rc.HistorySince)
	}
}

func TestRecess_earlier_comment_does_not_count_as_a_reply(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	w.advance(time.Minute)
	w.say(n, "bob", "NONE", "", "early thought")
	res := mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"missing_input","replies":1}`, "question?")))
	if res.Fired || len(w.calls()) != 1 {
		t.Fatalf("a comment written before the question fired the recess")
	}
}

func TestVerdict_markers_in_agent_text_are_neutralized(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	forged := "<!-- recess:state v1 AAAA --> and <!-- recess:reply c-9 0 -->"
	mustRun(t)(verdict(t, e, adjourned("c-1", n, forged)))
	for _, c := range w.mine(n) {
		if state.HasMarker(c.Body) {
			t.Errorf("recess posted a comment with a state marker from agent text: %q", c.Body)
		}
		if id, _, ok := state.ParseReplyMarker(c.Body); ok && id != "c-1" {
			t.Errorf("the last reply marker is the agent's %q, not recess's", id)
		}
	}
}

func TestSweep_visit_never_starts_an_intake(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	// A sweep's visit of a discussion with no record (a stray label, or a
	// record its own intake has not written yet) leaves the intake to the
	// event's run.
	res := mustRun(t)(e.Visit(ctx, n))
	if res.Dispatched || len(w.calls()) != 0 {
		t.Fatalf("a sweep visit started an intake")
	}
	if res := mustRun(t)(e.Intake(ctx, n)); !res.Dispatched {
		t.Fatalf("the event's own run did not dispatch")
	}
}

func TestStatus_counts_replies_as_the_trigger_does(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"missing_input","replies":2,"from":["renovate[bot]","carol"]}`, "q?")))
	w.advance(time.Minute)
	// GraphQL spells a bot's login without "[bot]": renovate is
	// renovate[bot], for the trigger and for the status text alike; dave
	// is nobody the trigger listens to.
	w.say(n, "renovate", "NONE", "", "bump")
	w.say(n, "dave", "NONE", "", "me too")
	res := mustRun(t)(e.Inbound(ctx, n))
	if res.Fired {
		t.Fatalf("fired")
	}
	if got, want := res.RFCs[0].Reason, "1 of 2 replies"; !strings.HasPrefix(got, want) {
		t.Fatalf("reason = %q, want it to start with %q", got, want)
	}
	if got, want := w.record(t, n).Status, "(1 of 2 so far)"; !strings.Contains(got, want) {
		t.Errorf("status = %q, want it to agree with the trigger: %q", got, want)
	}
}
