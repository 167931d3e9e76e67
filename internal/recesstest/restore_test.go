package recesstest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
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

// The deletion's event gives back the whole record, the active run
// included, through the engine's entry point and the real adapter: the agent
// run's claim then succeeds, and no second run starts. Its cost is bounded:
// recess's login, the store's check, the status comment written back (and
// its label), then the usual reconciliation; a deleted comment without a
// record marker costs what any comment's event costs.
func TestRestore_deleted_event_keeps_the_active_run(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := New(t, Options{Store: "comment"})
	n, id := w.Open("alice")
	if _, err := w.Engine(nil).Engine.Intake(ctx, n); err != nil {
		t.Fatalf("Intake(%d) = %v", n, err)
	}
	w.Advance(time.Minute)
	run := w.Runs()[0]
	var status githubfake.Comment
	for _, c := range w.RecessComments(id) {
		if state.HasMarker(c.Body) {
			status = c
		}
	}
	if status.ID == "" {
		t.Fatal("no status comment")
	}
	if err := w.GH.DeleteComment(status.ID); err != nil {
		t.Fatal(err)
	}

	var res *resume.Result
	c := w.Measure(func() {
		res = must(t)(w.Engine(nil).Engine.Deleted(ctx, n, resume.DeletedComment{Body: status.Body, Author: Bot + "[bot]"}))
	})
	t.Logf("deleted status comment: %v", c)
	if res.Dispatched || len(w.Runs()) != 1 {
		t.Fatalf("the deletion dispatched (runs %d, notes %q)", len(w.Runs()), res.Notes)
	}
	// recess's login, the store's check, the status comment written back,
	// the label when it went too; then the reconciliation's read.
	if max := 5; c.Total() > max || c.Writes > 2 {
		t.Errorf("Deleted(%d) = %v; want at most %d requests, 2 writes", n, c, max)
	}
	rec, err := w.Engine(nil).Engine.Store.Load(ctx, n)
	if err != nil || rec.Active == nil || rec.Active.CorrelationID != run.Inputs["correlation_id"] {
		t.Fatalf("record after the deletion = %+v, %v; want the active run %s", rec, err, run.Inputs["correlation_id"])
	}
	if stale, err := w.Answer(ctx, run, Adjourned("Done.")); err != nil || stale {
		t.Fatalf("the active run's answer: stale %v, %v; want accepted", stale, err)
	}

	// A person's own comment deleted: nothing to restore, no request more
	// than the reconciliation's.
	bob := w.Say(id, "", "bob", "Never mind.")
	must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
	if err := w.GH.DeleteComment(bob); err != nil {
		t.Fatal(err)
	}
	plain := w.Measure(func() { must(t)(w.Engine(nil).Engine.Inbound(ctx, n)) })
	deleted := w.Measure(func() {
		must(t)(w.Engine(nil).Engine.Deleted(ctx, n, resume.DeletedComment{Body: "Never mind.", Author: "bob"}))
	})
	if deleted.Total() != plain.Total() {
		t.Errorf("a deleted comment without a marker cost %v, a plain reconciliation %v", deleted, plain)
	}
}

// A resumed run's verdict that posts no reply keeps recess's copy of the
// record current (so a lost status comment never brings the fired recess
// back) by editing the comment that carries it: it costs no more than the
// same verdict with a reply, on either store.
func TestRestore_copy_kept_within_the_verdicts_budget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	verdicts := []struct {
		name string
		doc  func(reply string) func(string, int) string
	}{
		{"adjourned", func(reply string) func(string, int) string {
			if reply == "" {
				return func(cid string, n int) string {
					return fmt.Sprintf(`{"verdict":"adjourned","correlation_id":%q,"discussion_number":%d,"replies":[]}`, cid, n)
				}
			}
			return Adjourned(reply)
		}},
		{"recessed", func(reply string) func(string, int) string {
			return Recessed(reply, `{"kind":"elapsed","elapsed":"PT2H"}`)
		}},
	}
	for _, store := range bothStores {
		for _, v := range verdicts {
			t.Run(store+"_"+v.name, func(t *testing.T) {
				t.Parallel()
				cost := map[bool]Count{}
				for _, reply := range []bool{true, false} {
					w := New(t, Options{Store: store})
					n, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":1}`)
					w.Say(id, "", "bob", "Postgres.")
					if res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n)); !res.Fired {
						t.Fatalf("bob's reply did not fire the recess (notes %q)", res.Notes)
					}
					r := w.Waiting()[0]
					cid := r.Inputs["correlation_id"]
					must(t)(w.Engine(nil).Engine.Claim(ctx, n, cid, r.ID))
					w.Advance(time.Minute)
					body := ""
					if reply {
						body = "Postgres it is."
					}
					verdict, err := w.Engine(nil).Engine.ParseVerdict([]byte(v.doc(body)(cid, n)))
					if err != nil {
						t.Fatal(err)
					}
					cost[reply] = w.Measure(func() { must(t)(w.Engine(nil).Engine.Verdict(ctx, verdict, r.ID)) })
					// The newest copy among recess's comments is the
					// verdict's.
					var newest *state.Record
					for _, c := range w.RecessComments(id) {
						if rec, ok := state.ParseRecessMarker(c.Body); ok {
							newest = rec
						}
					}
					if newest == nil || len(newest.Applied) == 0 || newest.Applied[len(newest.Applied)-1] != cid {
						t.Errorf("with a reply %v: the newest copy of the record is %+v, want the one verdict %s wrote", reply, newest, cid)
					}
				}
				t.Logf("verdict with a reply: %v; without: %v", cost[true], cost[false])
				if without, with := cost[false], cost[true]; without.Total() > with.Total() || without.Writes > with.Writes {
					t.Errorf("a %s verdict without a reply cost %v, more than with one (%v)", v.name, without, with)
				}
			})
		}
	}
}
