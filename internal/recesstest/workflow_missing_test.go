package recesstest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/resume"
)

// TestMissingAgentWorkflow: when the workflow input names a file the
// repository does not have, the run that wants to start the agent fails
// with an error that names the input, the file and the fix, on a fresh
// dispatch and on a resume alike; nothing is lost: the discussion stays owed
// (queued, or its resume's intent kept) without burning an attempt or
// escalating, and once the input is right the next run dispatches, once.
func TestMissingAgentWorkflow(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store+"_fresh", func(t *testing.T) {
			t.Parallel()
			w := New(t, Options{Store: store, Workflow: "agnet.yml"})
			n, _ := w.Open("alice")
			for run := 1; run <= 2; run++ {
				_, err := w.Engine(nil).Engine.Intake(ctx, n)
				wantMissingWorkflow(t, run, err)
			}
			if len(w.Runs()) != 0 {
				t.Fatalf("agent runs = %d, want none", len(w.Runs()))
			}
			// A dry run predicts the failure instead of failing.
			dry := w.Engine(nil).Engine
			dry.DryRun = true
			res, err := dry.Inbound(ctx, n)
			if err != nil || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "a real run would fail") {
				t.Errorf("dry run = %v, warnings %q; want no error and a warning that a real run would fail", err, res.Warnings)
			}
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
			for run := 1; run <= 2; run++ {
				_, err := w.Engine(nil).Engine.Inbound(ctx, n)
				wantMissingWorkflow(t, run, err)
				w.Advance(time.Minute) // the retry delay after a failed call
			}
			rec, err := w.Engine(nil).Engine.Store.Load(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Active == nil || rec.Active.Resume == nil || rec.Escalated != nil || rec.Active.Attempt != 1 {
				t.Fatalf("record after the failed resumes: active %+v, escalated %+v; want the resume's intent kept at attempt 1, not escalated", rec.Active, rec.Escalated)
			}
			w.opt.Workflow = ""
			w.Advance(time.Minute)
			res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			if got := newRuns(w, before); !res.Dispatched || len(got) != 1 {
				t.Errorf("with the input fixed: dispatched %v, new agent runs %d; want one (notes %q)", res.Dispatched, len(got), res.Notes)
			}
		})
	}
}

func wantMissingWorkflow(t *testing.T, run int, err error) {
	t.Helper()
	if !errors.Is(err, resume.ErrNoWorkflow) {
		t.Fatalf("run %d = %v, want an error wrapping resume.ErrNoWorkflow", run, err)
	}
	for _, want := range []string{"agnet.yml", "workflow input"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("run %d error %q does not name %q", run, err, want)
		}
	}
}
