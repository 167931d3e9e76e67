package resume

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// planned is what a test reads of a plan.
type planned struct {
	Need         need
	Posts        int
	Write        bool
	Dispatch     string // the correlation id dispatched, "" for none
	FiredBy      string
	First, After []Effect
	Notes        []string
	Warnings     []string
	Open         []string // the decided record's open recesses
	Stale, Fail  bool
}

func summary(p plan) planned {
	s := planned{Need: p.need, Posts: len(p.posts), Write: p.write, First: p.first, After: p.after,
		Notes: p.res.Notes, Warnings: p.res.Warnings, Stale: p.res.Stale, Fail: p.fail != nil}
	if d := p.dispatch; d != nil {
		s.Dispatch = d.run.CorrelationID
		if d.run.Resume != nil {
			s.FiredBy = d.run.Resume.FiredBy
		}
	}
	if p.rec != nil {
		s.Open = sortedRFCs(p.rec)
	}
	return s
}

// Each entry point is a rule given to decide, and decide returns the plan
// as a value over a snapshot built by hand: no GitHub, no store.
func TestDecide_plans_each_entry_point(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	cfg := Config{NewID: func() string { return "c-new" }, NewResumeID: func() string { return "r-new" }}.withDefaults()
	opened := now.Add(-time.Hour)
	past := state.Cursor{At: opened, All: true}
	thread := func(comments ...Comment) *Thread {
		return &Thread{ID: "D_1", Number: 1, Author: "alice", CreatedAt: now.Add(-2 * time.Hour), Comments: comments}
	}
	reply := Comment{ID: "C_1", Author: "bob", Body: "Postgres.", CreatedAt: now.Add(-time.Minute)}
	waiting := func(trigger string) *state.Record {
		rec := state.New(1)
		rec.Applied, rec.Seen = []string{"c-0"}, past
		rec.OpenRFCs = map[string]*state.RFC{"c-0": {Trigger: storetest.MustTrigger(trigger), OpenedAt: opened, RepliesAfter: past, Since: past, RecessCount: 1}}
		return rec
	}
	active := func(st string) *state.Record {
		rec := state.New(1)
		rec.Seen = past
		rec.Active = &state.Run{CorrelationID: "c-1", State: st, Attempt: 1, IntentAt: opened, DispatchedAt: opened, Since: past, Until: past, EyesOn: "D_1"}
		return rec
	}
	mine := func(body string) Comment {
		return Comment{ID: "C_r", Author: "github-actions", Mine: true, Body: body, CreatedAt: now.Add(-time.Second)}
	}
	reconcile := input{command: "inbound", discussion: true, rule: (*facts).reconcile}
	sweep := input{command: "sweep", discussion: true, sweep: true, rule: (*facts).reconcile}
	verdict := func(v *Verdict) input {
		return input{command: "verdict", discussion: true, rule: func(f *facts, rec *state.Record) (plan, error) { return f.verdict(rec, v, 0) }}
	}
	recessed := &Verdict{DiscussionNumber: 1, CorrelationID: "c-1", Verdict: VerdictRecessed,
		Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":1}`), Replies: []VerdictReply{{Body: "Which database?"}}}
	eyesOff := Effect{Kind: EffectUnreact, Subject: "D_1", Reaction: Eyes}
	labelOn := Effect{Kind: EffectLabel, Label: LabelWaiting}
	tests := []struct {
		name string
		snap snapshot
		in   input
		want planned
	}{
		{name: "intake_asks_for_the_recent_dispatches_first",
			snap: snapshot{rec: state.New(1), isNew: true, d: thread()},
			in:   input{command: "intake", discussion: true, rule: (*facts).reconcile},
			want: planned{Need: need{recent: true}}},
		{name: "intake_dispatches_once_the_recent_dispatches_are_read",
			snap: snapshot{rec: state.New(1), isNew: true, d: thread(), recent: answered(3, nil), findsByLabel: true},
			in:   input{command: "intake", discussion: true, rule: (*facts).reconcile},
			want: planned{Write: true, Dispatch: "c-new", After: []Effect{labelOn}, Notes: []string{"new discussion: fresh dispatch"}}},
		{name: "intake_held_back_when_the_repository_is_busy",
			snap: snapshot{rec: state.New(1), isNew: true, d: thread(), recent: answered(10, nil)},
			in:   input{command: "intake", discussion: true, rule: (*facts).reconcile},
			want: planned{Write: true, Notes: []string{"fresh dispatch held back until 2026-11-21T10:05:00Z: 10 agent runs dispatched in the repository in the last hour (max-dispatches-per-hour 10)"}}},
		{name: "inbound_fires_a_recess_whose_reply_arrived",
			snap: snapshot{rec: waiting(`{"kind":"missing_input","replies":1}`), d: thread(reply)},
			in:   reconcile,
			want: planned{Write: true, Dispatch: "r-new", FiredBy: wait.KindMissingInput,
				Notes: []string{"recess c-0 fired (missing_input): 1 of 1 reply"}}},
		{name: "inbound_counts_a_reply_short_of_the_trigger",
			snap: snapshot{rec: waiting(`{"kind":"missing_input","replies":2}`), d: thread(reply)},
			in:   reconcile,
			want: planned{Write: true, Open: []string{"c-0"}}},
		{name: "verdict_recessed_posts_its_replies_first",
			snap: snapshot{rec: active(state.RunDispatched), d: thread()},
			in:   verdict(recessed),
			want: planned{Posts: 1}},
		{name: "verdict_recessed_opens_its_recess_once_its_reply_is_posted",
			snap: snapshot{rec: active(state.RunDispatched), d: thread(mine(state.ReplyBody("Which database?", "c-1", 0, "")))},
			in:   verdict(recessed),
			want: planned{Write: true, Open: []string{"c-1"}, After: []Effect{eyesOff},
				Notes: []string{"recessed: 1 reply posted; waiting for 1 more reply (0 of 1 so far)"}}},
		{name: "verdict_adjourned_ends_the_run",
			snap: snapshot{rec: active(state.RunDispatched), d: thread()},
			in:   verdict(&Verdict{DiscussionNumber: 1, CorrelationID: "c-1", Verdict: VerdictAdjourned}),
			want: planned{Write: true, After: []Effect{eyesOff}, Notes: []string{"adjourned: 0 replies posted; the run is over"}}},
		{name: "claim_of_another_run_is_stale",
			snap: snapshot{rec: active(state.RunDispatched)},
			in:   input{command: "claim", rule: claim("c-9", 7)},
			want: planned{Stale: true, Notes: []string{"c-9 is not the run recess expects for discussion 1: stale"}}},
		{name: "sweep_visit_sends_an_overdue_intent_again",
			snap: snapshot{rec: active(state.RunDispatching), d: thread(), run: answer[*WorkflowRun]{err: ErrNotFound, read: true}},
			in:   sweep,
			want: planned{Write: true, Dispatch: "c-1", Notes: []string{"no run exists for the unconfirmed dispatch c-1: sending it again"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.snap.rec.Clone()
			if tt.snap.rec.OpenRFCs == nil {
				tt.snap.rec.OpenRFCs = map[string]*state.RFC{}
			}
			p, err := decide(tt.snap, tt.in, cfg, now)
			if err != nil {
				t.Fatalf("decide = %v", err)
			}
			got := summary(p)
			if tt.want.Need.any() || tt.want.Posts > 0 {
				got.Open = nil // not final: nothing else is planned
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(need{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.snap.rec, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("deciding changed the snapshot's record (-before +after):\n%s", diff)
			}
		})
	}
}

// A failed dispatch call is decided on its own, over the record whose
// intent was written: a transient failure is counted and retried later, a
// refusal no retry fixes escalates under the setup it was refused under
// and fails the run.
func TestDecideDispatchFailed(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	rec := state.New(1)
	rec.Active = &state.Run{CorrelationID: "c-1", State: state.RunDispatching, Attempt: 1, IntentAt: now, EyesOn: "C_1"}
	d := &Thread{ID: "D_1", Number: 1, CreatedAt: now.Add(-time.Hour)}
	tests := []struct {
		name  string
		err   error
		setup answer[string]
		want  planned
		check func(*state.Record) bool
	}{
		{name: "transient_is_retried_by_a_later_run", err: errors.New("502 bad gateway"),
			want: planned{Write: true, Warnings: []string{"the dispatch call failed (502 bad gateway); a later run looks for the run and retries"}},
			check: func(r *state.Record) bool {
				return r.Active.State == state.RunDispatching && r.Active.DispatchErrors == 1 && r.Escalated == nil
			}},
		{name: "permanent_escalates_under_its_setup", err: ErrNoWorkflow, setup: answered("agent.yml@abc", nil),
			want: planned{Write: true, Fail: true,
				Warnings: []string{"escalated: the agent workflow recess is set to start is not in this repository"},
				After: []Effect{{Kind: EffectNote, Key: "c-1.escalated"}, {Kind: EffectLabel, Label: LabelEscalated},
					{Kind: EffectUnreact, Subject: "C_1", Reaction: Eyes}}},
			check: func(r *state.Record) bool {
				return r.Active.State == state.RunEscalated && r.Escalated.Setup == "agent.yml@abc" && r.Active.EyesOn == ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := decideDispatchFailed(rec, d, tt.err, tt.setup, Defaults(), now)
			got := summary(p)
			got.Open = nil
			// The note's words are held by the words golden file.
			for i := range got.After {
				got.After[i].Body = ""
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(need{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			if !tt.check(p.rec) {
				t.Errorf("record decided: active %+v, escalated %+v", p.rec.Active, p.rec.Escalated)
			}
			if rec.Active.State != state.RunDispatching || rec.Active.DispatchErrors != 0 || !slices.Equal(rec.Applied, nil) {
				t.Errorf("deciding changed the written record: %+v", rec.Active)
			}
		})
	}
}
