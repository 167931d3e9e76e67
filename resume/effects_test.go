package resume_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// A sweep decides to escalate a run that ended without a verdict, and loses
// its write to that run's verdict, which landed meanwhile. Decided again from
// a fresh read there is nothing to escalate, and nothing of the lost
// decision (the recess:escalated label, the escalation note, the EYES
// removal) may reach the discussion.
func TestConflict_lost_escalation_leaves_no_label(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{MaxAttempts: 1, EscalateTo: []string{"lead"}})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	run := w.calls()[0].run
	// GitHub reports the run over (a step after the verdict failed), and
	// its verdict lands while the sweep decides.
	w.finishRun(run.ID, "failure")
	w.advance(5 * time.Minute)
	w.beforeSave = func() {
		mustRun(t)(verdict(t, w.engine(resume.Config{}), adjourned("c-1", n, "here is the answer")))
	}
	res := mustRun(t)(e.Sweep(ctx))

	d, _ := w.Thread(ctx, resume.DiscussionRef(n))
	if w.labels[d.ID][resume.LabelEscalated] {
		t.Errorf("the %s label is on the discussion after the escalation lost its write", resume.LabelEscalated)
	}
	for _, c := range w.mine(n) {
		if strings.Contains(c.Body, "@lead") {
			t.Errorf("escalation note posted by a decision that lost its write: %q", c.Body)
		}
	}
	if rec := w.record(t, n); rec.Escalated != nil || rec.Active != nil {
		t.Errorf("record after the verdict won: escalated %+v, active %+v; want neither", rec.Escalated, rec.Active)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("sweep warnings %q, want none (the run answered)", res.Warnings)
	}
}

// The verdict path prunes the rate limit's dispatch history too: a
// follow-up dispatch after an adjourned answer is not held back by
// dispatches hours old ("2 fresh dispatches in the last hour").
func TestVerdict_prunes_the_dispatch_history(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{MaxDispatchesPerHour: 2})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	mustRun(t)(verdict(t, e, adjourned("c-1", n, "first answer")))
	w.advance(time.Minute)
	w.say(n, "bob", "NONE", "", "a follow-up question")
	mustRun(t)(e.Inbound(ctx, n))
	if len(w.calls()) != 2 {
		t.Fatalf("dispatches after the follow-up = %d, want 2", len(w.calls()))
	}
	// Hours later, while the second run works, carol comments; the run
	// answers (adjourned): her comment is owed a fresh dispatch, and the
	// two dispatches of the morning no longer count.
	w.advance(3 * time.Hour)
	w.say(n, "carol", "NONE", "", "and another one")
	mustRun(t)(e.Inbound(ctx, n))
	res := mustRun(t)(verdict(t, e, adjourned("c-2", n, "second answer")))
	if len(w.calls()) != 3 || !res.Dispatched {
		t.Fatalf("after the adjourned answer: %d dispatches (dispatched %v, notes %q); want carol's follow-up dispatched", len(w.calls()), res.Dispatched, res.Notes)
	}
	rec := w.record(t, n)
	if rec.Queued != nil {
		t.Errorf("queued %+v after the answer, want nothing held back", rec.Queued)
	}
	for _, at := range rec.Dispatches {
		if w.Now().Sub(at) >= time.Hour {
			t.Errorf("record keeps a dispatch from %s, more than an hour before %s", at, w.Now())
		}
	}
}

// More than 32 comments in one second all reach history_since (a cursor
// that kept only the last 32 ids of the second cut the rest).
func TestHistory_keeps_a_burst_in_one_second(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.recessed(t, e, `{"kind":"missing_input","replies":40}`, "vote, please")
	var want []string
	for i := range 40 {
		want = append(want, w.say(n, fmt.Sprintf("voter%d", i), "NONE", "", "+1"))
	}
	if res := mustRun(t)(e.Inbound(ctx, n)); !res.Fired {
		t.Fatalf("40 replies in one second did not fire replies: 40 (notes %q)", res.Notes)
	}
	var got []string
	for _, h := range w.resumeContext(t, 1).HistorySince {
		got = append(got, h.ID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history_since ids (-want +got):\n%s", diff)
	}
	// The run answers; nobody said anything new: no follow-up dispatch
	// for comments the burst's cursor covers.
	mustRun(t)(verdict(t, e, adjourned("c-2", n, "counted")))
	if len(w.calls()) != 2 {
		t.Errorf("dispatches after the answer = %d, want 2 (no follow-up for the burst)", len(w.calls()))
	}
}

// A verdict that passes validation but would make the record too large for
// the status comment is refused before anything is posted (not at the
// write, after its replies).
func TestVerdict_too_large_for_the_record_is_refused_before_posting(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	// Three recesses already wait here, each with a long summary.
	rec := w.record(t, n)
	long := strings.Repeat("🧭", resume.MaxSummary)
	if rec.OpenRFCs == nil {
		rec.OpenRFCs = map[string]*state.RFC{}
	}
	for i := range 3 {
		rec.OpenRFCs[fmt.Sprintf("c-old%d", i)] = &state.RFC{Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":5}`),
			OpenedAt: w.Now(), Summary: long, RecessCount: 1}
	}
	if err := w.Save(ctx, rec); err != nil {
		t.Fatalf("seed: %v", err)
	}
	before := len(w.mine(n))
	_, err := verdict(t, e, fmt.Sprintf(`{"verdict":"recessed","correlation_id":"c-1","discussion_number":%d,"replies":[{"body":"one more question"}],"trigger":{"kind":"missing_input","replies":1},"summary":%q}`, n, long))
	var fe *wait.FieldError
	if !errors.Is(err, resume.ErrRefused) || !errors.As(err, &fe) || fe.Field != "verdict" {
		t.Fatalf("Verdict = %v, want refused on field verdict", err)
	}
	if got := len(w.mine(n)); got != before {
		t.Errorf("recess posted %d comment(s) for a refused verdict", got-before)
	}
	if a := w.record(t, n).Active; a == nil || a.CorrelationID != "c-1" {
		t.Errorf("active run after the refusal = %+v, want c-1 still at work", a)
	}
}

// A copy of a recess kept in recess's reply names its discussion: one that
// came with a discussion transferred from another repository (a new number)
// is not restored; nor is one that a later verdict ended.
func TestRestore_only_this_discussions_open_recess(t *testing.T) {
	t.Parallel()
	keep := func(number int) string {
		rec := state.New(number)
		rec.OpenRFCs = map[string]*state.RFC{"c-9": {Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":1}`), OpenedAt: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)}}
		m, err := state.RecessMarker(rec)
		if err != nil {
			t.Fatal(err)
		}
		return "Which backend?\n\n" + state.ReplyMarker("c-9", 0) + "\n" + m
	}
	for _, tc := range []struct {
		name     string
		number   int // the discussion number the copy names
		later    string
		restored bool
	}{
		{"this_discussion", 1, "", true},
		{"transferred", 99, "", false},
		{"ended_by_a_later_verdict", 1, "Answer.\n\n" + state.ReplyMarker("c-10", 0), false},
		{"ended_by_its_closing_note", 1, "No longer waiting.\n\n" + state.ReplyMarker("c-9.closed", 0), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			e := w.engine(resume.Config{})
			n := w.openDiscussion("alice")
			w.mu.Lock()
			d := w.discussions[n]
			d.Comments = append(d.Comments, resume.Comment{ID: "DC_q", Author: "bot", Mine: true, Body: keep(tc.number), CreatedAt: w.Now()})
			if tc.later != "" {
				d.Comments = append(d.Comments, resume.Comment{ID: "DC_l", Author: "bot", Mine: true, Body: tc.later, CreatedAt: w.Now()})
			}
			w.mu.Unlock()
			w.advance(time.Minute)
			w.say(n, "bob", "NONE", "", "Postgres")
			res := mustRun(t)(e.Inbound(ctx, n))
			if res.Fired != tc.restored {
				t.Errorf("bob's reply fired a restored recess: %v, want %v (notes %q, warnings %q)", res.Fired, tc.restored, res.Notes, res.Warnings)
			}
		})
	}
}

// A discussion that carries the waiting label but has no record (it came
// with a transfer, its record was lost beyond restoring) loses the label on
// the first look: nothing waits there.
func TestStrayWaitingLabel_removed(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	mustRun(t)(verdict(t, e, adjourned("c-1", n, "answered")))
	// A second discussion, labelled by hand, never served (out of scope
	// for this check: no human comment wakes it either).
	m := w.openDiscussion("bob")
	w.mu.Lock()
	d := w.discussions[m]
	d.Mine = true // opened by recess's own identity: no intake
	d.Labels = []string{"Recess:Waiting"}
	w.mu.Unlock()
	if err := w.Label(ctx, d, "Recess:Waiting"); err != nil {
		t.Fatal(err)
	}
	mustRun(t)(e.Visit(ctx, m))
	if w.labels[d.ID]["Recess:Waiting"] {
		t.Errorf("%s still on a discussion without a record", resume.LabelWaiting)
	}
	if _, stored := w.records[m]; stored {
		t.Errorf("a record was stored for a discussion recess never acted on")
	}
}
