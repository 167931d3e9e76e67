package recesstest

import (
	"context"
	"testing"
	"time"

	"github.com/recess-action/recess/resume"
)

// The repository-wide rate limit counts only fresh dispatches, not resumes
// and retries. With the production correlation ids
// (c-… fresh, r-… resumes and retries), two resumes on one discussion leave
// room for a fresh dispatch on another; the next fresh one is held back.
func TestRateLimit_counts_only_fresh_dispatches(t *testing.T) {
	t.Parallel()
	for _, store := range stores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := New(t, Options{Store: store, Config: resume.Config{
				MaxDispatchesPerHour: 2,
				NewID:                resume.NewCorrelationID,
				NewResumeID:          resume.NewResumeCorrelationID,
			}})
			a, aID := w.Open("alice")
			must(t)(w.Engine(nil).Engine.Intake(ctx, a))
			for i := range 2 {
				r := w.Waiting()[0]
				if _, err := w.Answer(ctx, r, Recessed("and then?", `{"kind":"missing_input","replies":1}`)); err != nil {
					t.Fatalf("answer %d: %v", i, err)
				}
				w.Advance(time.Minute)
				w.Say(aID, "", "bob", "here is more")
				if res := must(t)(w.Engine(nil).Engine.Inbound(ctx, a)); !res.Fired {
					t.Fatalf("resume %d did not fire (notes %q)", i+1, res.Notes)
				}
			}
			if got := len(w.Runs()); got != 3 {
				t.Fatalf("runs on the first discussion = %d, want 3 (one fresh, two resumes)", got)
			}
			b, _ := w.Open("carol")
			if res := must(t)(w.Engine(nil).Engine.Intake(ctx, b)); !res.Dispatched {
				t.Errorf("second discussion held back (notes %q): the two resumes were counted as fresh dispatches", res.Notes)
			}
			c, _ := w.Open("dave")
			if res := must(t)(w.Engine(nil).Engine.Intake(ctx, c)); res.Dispatched {
				t.Errorf("third discussion dispatched: 2 fresh dispatches already in the hour, limit 2")
			}
		})
	}
}
