package recesstest

import (
	"context"
	"testing"
	"time"
)

// TestStory checks the harness itself: the whole story through the real
// adapters against the fake, for each store.
func TestStory(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"comment", "branch"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := New(t, Options{Store: store})
			n, id := w.Open("alice")
			if _, err := w.Engine(nil).Engine.Intake(ctx, n); err != nil {
				t.Fatalf("intake: %v", err)
			}
			if got := len(w.Waiting()); got != 1 {
				t.Fatalf("waiting runs after intake = %d, want 1", got)
			}
			if _, err := w.Answer(ctx, w.Waiting()[0], Recessed("which one?", `{"kind":"missing_input","replies":2}`)); err != nil {
				t.Fatalf("recessed verdict: %v", err)
			}
			w.Advance(time.Minute)
			w.Say(id, "", "bob", "this one")
			c := w.Measure(func() {
				if _, err := w.Engine(nil).Engine.Inbound(ctx, n); err != nil {
					t.Fatalf("inbound: %v", err)
				}
			})
			t.Logf("%s store, a comment that does not fire: %v", store, c)
			if len(w.Runs()) != 1 {
				t.Fatalf("a non-firing comment dispatched")
			}
			w.Advance(time.Minute)
			w.Say(id, "", "carol", "that one")
			c = w.Measure(func() {
				res, err := w.Engine(nil).Engine.Inbound(ctx, n)
				if err != nil || !res.Fired {
					t.Fatalf("inbound: fired %v, %v", res.Fired, err)
				}
			})
			t.Logf("%s store, a comment that fires: %v", store, c)
			runs := w.Runs()
			if len(runs) != 2 {
				t.Fatalf("runs = %d, want 2", len(runs))
			}
			if rc := History(runs[1]); rc.FiredBy != "missing_input" || len(rc.HistorySince) != 2 {
				t.Fatalf("resume_context = %+v", rc)
			}
			if _, err := w.Answer(ctx, w.Waiting()[0], Adjourned("done")); err != nil {
				t.Fatalf("adjourned verdict: %v", err)
			}
		})
	}
}
