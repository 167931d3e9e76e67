package recesstest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// A dry run reads as a real run does and writes nothing: the decision's
// writes come back as its plan, in the order a real run takes them.
func TestDryRun_plans_the_writes_and_sends_none(t *testing.T) {
	t.Parallel()
	kinds := func(res *resume.Result) []resume.EffectKind {
		var out []resume.EffectKind
		for _, f := range res.Planned {
			out = append(out, f.Kind)
		}
		return out
	}
	tests := []struct {
		name  string
		store string
		// prepare brings the world to the moment before the event and
		// returns the event, run by the dry-run engine.
		prepare func(t *testing.T, w *World) func(e *resume.Engine) *resume.Result
		want    []resume.EffectKind
	}{
		{name: "intake_comment_store", store: "comment",
			prepare: func(t *testing.T, w *World) func(e *resume.Engine) *resume.Result {
				n, _ := w.Open("alice")
				return func(e *resume.Engine) *resume.Result { return must(t)(e.Intake(context.Background(), n)) }
			},
			want: []resume.EffectKind{resume.EffectWrite, resume.EffectLabel, resume.EffectDispatch, resume.EffectReact}},
		{name: "intake_branch_store", store: "branch",
			prepare: func(t *testing.T, w *World) func(e *resume.Engine) *resume.Result {
				n, _ := w.Open("alice")
				return func(e *resume.Engine) *resume.Result { return must(t)(e.Intake(context.Background(), n)) }
			},
			want: []resume.EffectKind{resume.EffectWrite, resume.EffectDispatch, resume.EffectReact}},
		{name: "firing_comment", store: "comment",
			prepare: func(t *testing.T, w *World) func(e *resume.Engine) *resume.Result {
				n, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":1}`)
				w.Say(id, "", "bob", "We use Postgres.")
				return func(e *resume.Engine) *resume.Result { return must(t)(e.Inbound(context.Background(), n)) }
			},
			want: []resume.EffectKind{resume.EffectWrite, resume.EffectDispatch, resume.EffectReact}},
		{name: "comment_that_fires_nothing", store: "comment",
			prepare: func(t *testing.T, w *World) func(e *resume.Engine) *resume.Result {
				n, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":2}`)
				w.Say(id, "", "bob", "We use Postgres.")
				return func(e *resume.Engine) *resume.Result { return must(t)(e.Inbound(context.Background(), n)) }
			},
			want: []resume.EffectKind{resume.EffectWrite}},
		{name: "comment_making_a_record_pending_again", store: "comment",
			prepare: func(t *testing.T, w *World) func(e *resume.Engine) *resume.Result {
				ctx := context.Background()
				n, id := w.Open("alice")
				must(t)(w.Engine(nil).Engine.Intake(ctx, n))
				r := claimAll(t, w, n, w.Waiting())[0]
				if _, err := w.Answer(ctx, r, Adjourned("done")); err != nil {
					t.Fatal(err)
				}
				w.Say(id, "", "bob", "One more thing: add nightly backups.")
				return func(e *resume.Engine) *resume.Result { return must(t)(e.Inbound(ctx, n)) }
			},
			// The waiting label goes on before the write that makes the
			// record pending.
			want: []resume.EffectKind{resume.EffectLabel, resume.EffectWrite, resume.EffectDispatch, resume.EffectReact}},
		{name: "deleted_status_comment", store: "comment",
			prepare: func(t *testing.T, w *World) func(e *resume.Engine) *resume.Result {
				n, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":2}`)
				var gone resume.DeletedComment
				for _, c := range w.RecessComments(id) {
					if state.HasMarker(c.Body) {
						if err := w.GH.DeleteComment(c.ID); err != nil {
							t.Fatal(err)
						}
						gone = resume.DeletedComment{Body: c.Body, Author: c.Author}
					}
				}
				return func(e *resume.Engine) *resume.Result { return must(t)(e.Deleted(context.Background(), n, gone)) }
			},
			// The record written back, and nothing dispatched.
			want: []resume.EffectKind{resume.EffectWrite}},
		{name: "verdict_recessed", store: "comment",
			prepare: func(t *testing.T, w *World) func(e *resume.Engine) *resume.Result {
				ctx := context.Background()
				n, _ := w.Open("alice")
				must(t)(w.Engine(nil).Engine.Intake(ctx, n))
				r := claimAll(t, w, n, w.Waiting())[0]
				doc := Recessed("Which storage backend should we assume?", `{"kind":"missing_input","replies":2}`)(r.Inputs["correlation_id"], n)
				return func(e *resume.Engine) *resume.Result {
					v, err := e.ParseVerdict([]byte(doc))
					if err != nil {
						t.Fatalf("ParseVerdict = %v", err)
					}
					return must(t)(e.Verdict(ctx, v, r.ID))
				}
			},
			want: []resume.EffectKind{resume.EffectReply, resume.EffectWrite, resume.EffectUnreact}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := New(t, Options{Store: tt.store})
			// A first intake, not planned, creates what later runs find
			// (the state branch).
			first, _ := w.Open("alice")
			must(t)(w.Engine(nil).Engine.Intake(context.Background(), first))
			w.Advance(time.Minute)
			event := tt.prepare(t, w)
			e := w.Engine(nil).Engine
			e.DryRun = true
			runs := len(w.Runs())
			var res *resume.Result
			if c := w.Measure(func() { res = event(e) }); c.Writes != 0 {
				t.Errorf("a dry run wrote: %v", c)
			}
			if diff := cmp.Diff(tt.want, kinds(res)); diff != "" {
				t.Errorf("planned writes (-want +got):\n%s", diff)
			}
			if got := len(w.Runs()); got != runs {
				t.Errorf("a dry run started %d agent run(s)", got-runs)
			}
		})
	}
}
