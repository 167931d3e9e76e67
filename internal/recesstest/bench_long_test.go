package recesstest

import (
	"strconv"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// longWaiting is what BenchmarkSweepLongDiscussions and
// TestSweepCostDoesNotGrowWithDiscussionLength wait on: discussions with
// more than a page of comments before recess's status comment, and a dozen
// after its question that the trigger does not count.
const (
	longWaiting = 40
	longBefore  = 105
	longAfter   = 12
)

// longDiscussions brings count discussions there through the engine: a
// long discussion, recess's intake (its status comment after those
// comments), the agent's recessed verdict with a question waiting for
// carol, then a dozen comments by others, which an inbound run looks at.
func longDiscussions(tb testing.TB, w *World, count, after int) {
	tb.Helper()
	for range count {
		n, id := w.Open("alice")
		for j := range longBefore {
			w.Say(id, "", "dave", "chatter "+strconv.Itoa(j))
		}
		if _, err := w.Engine(nil).Engine.Intake(ctx, n); err != nil {
			tb.Fatalf("Intake(%d) = %v", n, err)
		}
		var run githubfake.Run
		for _, r := range w.Waiting() {
			if r.Inputs["discussion_number"] == strconv.Itoa(n) {
				run = r
			}
		}
		if _, err := w.Answer(ctx, run, Recessed("Which storage backend should we assume?", `{"kind":"missing_input","replies":1,"from":["carol"]}`)); err != nil {
			tb.Fatalf("recessed verdict on %d: %v", n, err)
		}
		w.Advance(time.Second)
		for j := range after {
			w.Say(id, "", "dave", "more chatter "+strconv.Itoa(j))
		}
		if _, err := w.Engine(nil).Engine.Inbound(ctx, n); err != nil {
			tb.Fatalf("Inbound(%d) = %v", n, err)
		}
	}
}

// sweepAt runs one sweep at start+d and checks that it had nothing to do.
func sweepAt(tb testing.TB, w *World, d time.Duration) Count {
	tb.Helper()
	at(w, d)
	res, c := sweep(tb, w)
	if len(res.Sweep) != 0 || c.Writes != 0 {
		tb.Fatalf("sweep at %s visited %d discussions, wrote %d times; want nothing due", w.Now().Format("15:04"), len(res.Sweep), c.Writes)
	}
	return c
}

// BenchmarkSweepLongDiscussions is a sweep with nothing due over 40
// waiting discussions, each with more than 100 comments before recess's
// status comment and a dozen after its question: the first sweep after
// they were written, and the sweeps after it (steady state). Reported per
// sweep; the figures are in BENCHMARKS.md.
func BenchmarkSweepLongDiscussions(b *testing.B) {
	for _, store := range stores {
		b.Run(store+"/first_sweep", func(b *testing.B) {
			var total Count
			for range b.N {
				b.StopTimer()
				w := benchWorld(b, store, resume.Config{})
				longDiscussions(b, w, longWaiting, longAfter)
				b.StartTimer()
				total = total.add(sweepAt(b, w, 2*time.Hour+12*time.Minute))
			}
			reportSweep(b, total)
		})
		b.Run(store+"/steady_state", func(b *testing.B) {
			w := benchWorld(b, store, resume.Config{})
			longDiscussions(b, w, longWaiting, longAfter)
			sweepAt(b, w, 2*time.Hour+12*time.Minute)
			b.ResetTimer()
			var total Count
			d := 2*time.Hour + 12*time.Minute
			for range b.N {
				// Five-minute sweeps, off the hour's first slot.
				if d += 5 * time.Minute; d%time.Hour < 5*time.Minute {
					d += 5 * time.Minute
				}
				total = total.add(sweepAt(b, w, d))
			}
			reportSweep(b, total)
		})
	}
}

func reportSweep(b *testing.B, total Count) {
	n := float64(b.N)
	b.ReportMetric(float64(total.Total())/n, "requests/sweep")
	b.ReportMetric(float64(total.Points)/n, "points/sweep")
}

// TestSweepCostDoesNotGrowWithDiscussionLength: a sweep with nothing due
// over waiting discussions whose status comments stand past their first
// 100 comments costs the listing plus the probe, as for short ones,
// whether a dozen comments follow recess's question or more than a
// hundred: the sweep does not page through each discussion again to find
// the status comment.
func TestSweepCostDoesNotGrowWithDiscussionLength(t *testing.T) {
	t.Parallel()
	for _, store := range stores {
		for _, after := range []int{longAfter, 101} {
			t.Run(store+"/"+strconv.Itoa(after)+"_after_the_question", func(t *testing.T) {
				t.Parallel()
				const waiting = 3
				w := New(t, Options{Store: store})
				longDiscussions(t, w, waiting, after)
				for i, d := range []time.Duration{2*time.Hour + 12*time.Minute, 2*time.Hour + 17*time.Minute} {
					c := sweepAt(t, w, d)
					if want := listingCost(w, store, waiting) + probeCost(waiting); c.Total() > want {
						t.Errorf("sweep %d = %v; want the listing and the probe only (%d requests)", i+1, c, want)
					}
				}
				if store != "comment" {
					return
				}
				for n := 1; n <= waiting; n++ {
					id := discussionNode(t, w, n)
					if rec, err := readRecord(w, store, n, id); err != nil || rec == nil || len(rec.OpenRFCs) != 1 {
						t.Errorf("discussion %d: record %v, %v; want its open recess", n, rec, err)
					}
					status := 0
					for _, c := range w.RecessComments(id) {
						if state.HasMarker(c.Body) {
							status++
						}
					}
					if status != 1 {
						t.Errorf("discussion %d: %d status comments, want 1", n, status)
					}
				}
			})
		}
	}
}

// discussionNode is discussion n's node id.
func discussionNode(t *testing.T, w *World, n int) string {
	t.Helper()
	d, err := w.GH.Discussion(Repo, n)
	if err != nil {
		t.Fatalf("discussion %d: %v", n, err)
	}
	return d.ID
}
