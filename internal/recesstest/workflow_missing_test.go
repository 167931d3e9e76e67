package recesstest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// TestMissingAgentWorkflow: when the workflow input names a file the
// repository does not have, the run that wants to start the agent fails
// with an error that names the input, the file and the fix, on a fresh
// dispatch and on a resume alike, and escalates it once; later runs on the
// discussion send no dispatch and write nothing. Nothing is lost: the
// dispatch stays owed (its resume, its attempt) and goes out, once, when
// the setup changes (here the input is put right).
func TestMissingAgentWorkflow(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store+"_fresh", func(t *testing.T) {
			t.Parallel()
			w := New(t, Options{Store: store, Workflow: "agnet.yml"})
			n, _ := w.Open("alice")
			// A dry run predicts the failure instead of failing.
			dry := w.Engine(nil).Engine
			dry.DryRun = true
			res, err := dry.Intake(ctx, n)
			if err != nil || len(res.Warnings) == 0 || !strings.Contains(strings.Join(res.Warnings, "\n"), "a real run would fail") {
				t.Errorf("dry run = %v, warnings %q; want no error and a warning that a real run would fail", err, res.Warnings)
			}
			_, err = w.Engine(nil).Engine.Intake(ctx, n)
			wantMissingWorkflow(t, err)
			wantBlocked(t, w, n, nil)
			w.opt.Workflow = ""
			w.Advance(time.Minute)
			res = must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			if !res.Dispatched || len(w.Runs()) != 1 {
				t.Errorf("with the input fixed: dispatched %v, agent runs %d; want one (notes %q)", res.Dispatched, len(w.Runs()), res.Notes)
			}
		})
		t.Run(store+"_resume", func(t *testing.T) {
			t.Parallel()
			w, n, id := recessedWorld(t, store, `{"kind":"missing_input","replies":1}`, Options{})
			before := len(w.Runs())
			w.opt.Workflow = "agnet.yml"
			w.Say(id, "", "bob", "Postgres.")
			_, err := w.Engine(nil).Engine.Inbound(ctx, n)
			wantMissingWorkflow(t, err)
			w.Advance(time.Minute)
			wantBlocked(t, w, n, func(rec *state.Record) bool {
				return rec.Active.Resume != nil && rec.Active.Attempt == 1 && rec.Active.Resume.FiredBy == "missing_input"
			})
			w.opt.Workflow = ""
			w.Advance(time.Minute)
			res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			got := newRuns(w, before)
			if !res.Dispatched || len(got) != 1 {
				t.Fatalf("with the input fixed: dispatched %v, new agent runs %d; want one (notes %q)", res.Dispatched, len(got), res.Notes)
			}
			if by := History(got[0]).FiredBy; by != "missing_input" {
				t.Errorf("the resume, once the input is right, says fired_by %q; want missing_input (the refused dispatch never ran)", by)
			}
		})
	}
}

// wantBlocked checks discussion n after a refused dispatch: escalated once
// and waiting for the setup to change (and kept as ok says), and that the
// next run on it sends no dispatch, writes nothing and succeeds.
func wantBlocked(t *testing.T, w *World, n int, ok func(*state.Record) bool) {
	t.Helper()
	rec, err := w.Engine(nil).Engine.Store.Load(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Active == nil || rec.Active.State != state.RunEscalated || rec.Blocked() == "" || (ok != nil && !ok(rec)) {
		t.Fatalf("record after the refused dispatch: active %+v, escalated %+v; want an escalation that waits for the setup to change", rec.Active, rec.Escalated)
	}
	runs := len(w.Runs())
	var res *resume.Result
	c := w.Measure(func() { res, err = w.Engine(nil).Engine.Inbound(ctx, n) })
	if err != nil || res.Dispatched || len(w.Runs()) != runs || c.Writes != 0 {
		t.Errorf("the next run on the blocked discussion: %v, dispatched %v, %v; want no error, no dispatch, no write", err, res.Dispatched, c)
	}
}

func wantMissingWorkflow(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, resume.ErrNoWorkflow) {
		t.Fatalf("run = %v, want an error wrapping resume.ErrNoWorkflow", err)
	}
	for _, want := range []string{"agnet.yml", "workflow input"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("run error %q does not name %q", err, want)
		}
	}
}
