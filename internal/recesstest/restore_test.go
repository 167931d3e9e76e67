package recesstest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/state"
)

// Deleting recess's status comment keeps the open recess (the next comment
// does not dispatch the agent from scratch). The recessed verdict's reply
// carries a copy of the recess, from which it is restored:
// the reply counts toward the trigger, and the resume carries the original
// correlation id.
func TestRestore_deleted_status_comment(t *testing.T) {
	t.Parallel()
	// The branch store keeps its records on its own branch, out of people's
	// reach in the discussion; the comment store is the one at risk.
	for _, store := range []string{"comment"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := New(t, Options{Store: store})
			n, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":2}`)
			original := w.Runs()[0].Inputs["correlation_id"]
			deleted := 0
			for _, c := range w.RecessComments(id) {
				if state.HasMarker(c.Body) {
					if err := w.GH.DeleteComment(c.ID); err != nil {
						t.Fatal(err)
					}
					deleted++
				}
			}
			if deleted != 1 {
				t.Fatalf("status comments deleted = %d, want 1", deleted)
			}
			w.Say(id, "", "bob", "Postgres.")
			res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			if len(w.Runs()) != 1 || res.Dispatched {
				t.Fatalf("after the record was lost, bob's reply dispatched (runs %d, notes %q): the recess was not restored", len(w.Runs()), res.Notes)
			}
			if !strings.Contains(w.StatusLine(id), "1 more reply (1 of 2 so far)") {
				t.Errorf("status after the restore = %q, want the recess counting bob's reply", w.StatusLine(id))
			}
			w.Advance(time.Minute)
			w.Say(id, "", "carol", "Postgres, and nightly backups.")
			if res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n)); !res.Fired {
				t.Fatalf("second reply did not fire the restored recess (notes %q)", res.Notes)
			}
			rc := History(w.Runs()[len(w.Runs())-1])
			if rc.CorrelationID != original || rc.FiredBy != "missing_input" || len(rc.HistorySince) != 2 {
				t.Errorf("resume_context = %+v; want the original recess %s fired by missing_input with both replies", rc, original)
			}
		})
	}
}
