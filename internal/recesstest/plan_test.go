package recesstest

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestPlanThenVisit: the sweep split for one writer per discussion. plan
// only reads and lists the due discussions soonest first, within
// max-operations; a visit of each does what the sweep would, and a plan
// after the visits lists nothing.
func TestPlanThenVisit(t *testing.T) {
	t.Parallel()
	for _, store := range stores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := New(t, Options{Store: store})
			due := seed(t, w, seedOpts{open: 30, due: 4})
			at(w, 10*time.Minute)
			var plan []int
			c := w.Measure(func() {
				res, err := w.Engine(nil).Engine.Plan(ctx)
				if err != nil {
					t.Fatalf("Plan() = %v", err)
				}
				plan = res.Plan
			})
			t.Logf("%s store, plan over 30 waiting (4 due): %v", store, c)
			if !slices.Equal(plan, due) {
				t.Fatalf("Plan() = %v, want the due discussions soonest first %v", plan, due)
			}
			if c.Writes != 0 || c.Total() > listingCost(w, store, 30)+probeCost(26) {
				t.Errorf("plan = %v, want the listing and the probe, no write", c)
			}
			for _, n := range plan {
				res, err := w.Engine(nil).Engine.Visit(ctx, n)
				if err != nil || !res.Fired {
					t.Fatalf("Visit(%d) = fired %v, %v; want the due recess resumed", n, res.Fired, err)
				}
			}
			if len(w.Runs()) != len(due) {
				t.Errorf("agent runs after the visits = %d, want %d", len(w.Runs()), len(due))
			}
			res, err := w.Engine(nil).Engine.Plan(ctx)
			if err != nil {
				t.Fatalf("Plan() again = %v", err)
			}
			// The resumed runs are at work: a sweep looks at them only once
			// their intent is due (a confirmed dispatch is not).
			for _, n := range res.Plan {
				if !slices.Contains(due, n) {
					t.Errorf("second plan lists discussion %d, which had nothing due", n)
				}
			}
		})
	}
}
