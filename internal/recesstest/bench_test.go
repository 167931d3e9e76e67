package recesstest

// Benchmarks of what recess costs GitHub and the machine: requests, GraphQL
// points and writes per event and per sweep (reported as custom metrics
// beside ns/op and allocs/op), for both stores. The fake GitHub serves in
// the same process, so ns/op and allocs/op include its work (parsing and
// validating every GraphQL document, executing it) as well as recess's;
// the request metrics are exact. .ci/bench.sh runs them and the
// start-up measurements; BENCHMARKS.md has the figures.

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
)

// benchWorld is a World whose rate limits never get in the way: the
// benchmarks measure cost, the budget tests judge it.
func benchWorld(b *testing.B, store string, cfg resume.Config) *World {
	b.Helper()
	if cfg.MaxDispatchesPerHour == 0 {
		cfg.MaxDispatchesPerHour = 1 << 20
	}
	return New(b, Options{Store: store, Config: cfg,
		Fake: []githubfake.Option{githubfake.WithGraphQLBudget(1 << 30), githubfake.WithRESTBudget(1 << 30)}})
}

func (c Count) add(o Count) Count {
	return Count{REST: c.REST + o.REST, GraphQL: c.GraphQL + o.GraphQL, Points: c.Points + o.Points, Writes: c.Writes + o.Writes}
}

// reportCount adds the GitHub cost per operation to a benchmark's line.
func reportCount(b *testing.B, total Count) {
	n := float64(b.N)
	b.ReportMetric(float64(total.Total())/n, "requests/op")
	b.ReportMetric(float64(total.Points)/n, "points/op")
	b.ReportMetric(float64(total.Writes)/n, "writes/op")
}

// BenchmarkEvent is one run of recess per event, from the record read to
// the last request.
func BenchmarkEvent(b *testing.B) {
	ctx := context.Background()
	claimed := func(b *testing.B, w *World) (githubfake.Run, int) {
		b.Helper()
		n, _ := w.Open("alice")
		if _, err := w.Engine(nil).Engine.Intake(ctx, n); err != nil {
			b.Fatalf("Intake(%d) = %v", n, err)
		}
		var r githubfake.Run
		for _, x := range w.Waiting() {
			if x.Inputs["discussion_number"] == strconv.Itoa(n) {
				r = x
			}
		}
		w.mu.Lock()
		w.handled[r.ID] = true
		w.mu.Unlock()
		if _, err := w.Engine(nil).Engine.Claim(ctx, n, r.Inputs["correlation_id"], r.ID); err != nil {
			b.Fatalf("Claim = %v", err)
		}
		w.Advance(time.Minute)
		return r, n
	}
	verdict := func(b *testing.B, w *World, doc func(string, int) string) func() {
		r, n := claimed(b, w)
		run := w.Engine(nil).Engine
		v, err := run.ParseVerdict([]byte(doc(r.Inputs["correlation_id"], n)))
		if err != nil {
			b.Fatalf("ParseVerdict = %v", err)
		}
		return func() {
			if _, err := run.Verdict(ctx, v, r.ID); err != nil {
				b.Fatalf("Verdict = %v", err)
			}
		}
	}
	inbound := func(b *testing.B, w *World, trigger string) func() {
		n, id := recessedDiscussion(b, w, trigger)
		w.Say(id, "", "bob", "We use Postgres.")
		run := w.Engine(nil).Engine
		return func() {
			if _, err := run.Inbound(ctx, n); err != nil {
				b.Fatalf("Inbound(%d) = %v", n, err)
			}
		}
	}
	events := []struct {
		name string
		// prepare brings a fresh discussion to the moment before the event
		// and returns the event: one run of recess, timed and counted.
		prepare func(b *testing.B, w *World) func()
	}{
		{"intake", func(b *testing.B, w *World) func() {
			n, _ := w.Open("alice")
			run := w.Engine(nil).Engine
			return func() {
				if _, err := run.Intake(ctx, n); err != nil {
					b.Fatalf("Intake(%d) = %v", n, err)
				}
			}
		}},
		{"comment_not_firing", func(b *testing.B, w *World) func() {
			return inbound(b, w, `{"kind":"missing_input","replies":2}`)
		}},
		{"comment_firing", func(b *testing.B, w *World) func() {
			return inbound(b, w, `{"kind":"missing_input","replies":1}`)
		}},
		{"verdict_recessed", func(b *testing.B, w *World) func() {
			return verdict(b, w, Recessed("Which storage backend should we assume?", `{"kind":"missing_input","replies":2}`))
		}},
		{"verdict_adjourned", func(b *testing.B, w *World) func() {
			return verdict(b, w, Adjourned("Postgres it is."))
		}},
	}
	for _, store := range stores {
		for _, ev := range events {
			b.Run(store+"/"+ev.name, func(b *testing.B) {
				w := benchWorld(b, store, resume.Config{})
				// A first event, not counted, creates what every later one
				// finds (the state branch).
				w.Measure(ev.prepare(b, w))
				b.ReportAllocs()
				b.ResetTimer()
				var total Count
				for range b.N {
					b.StopTimer()
					run := ev.prepare(b, w)
					b.StartTimer()
					total = total.add(w.Measure(run))
				}
				reportCount(b, total)
			})
		}
	}
}

// BenchmarkSweep is one scheduled sweep over open recesses, each in its own
// discussion, with none or 1% of them due (at least one). The records are
// seeded straight into the fake in each store's format.
func BenchmarkSweep(b *testing.B) {
	ctx := context.Background()
	for _, store := range stores {
		for _, open := range []int{10, 100, 1000, 10000} {
			for _, due := range []int{0, max(open/100, 1)} {
				b.Run(fmt.Sprintf("%s/open_%d/due_%d", store, open, due), func(b *testing.B) {
					b.ReportAllocs()
					var total Count
					visited, fired := 0, 0
					for range b.N {
						b.StopTimer()
						w := benchWorld(b, store, resume.Config{})
						seed(b, w, seedOpts{open: open, due: due})
						at(w, 10*time.Minute)
						run := w.Engine(nil).Engine
						b.StartTimer()
						var res *resume.Result
						c := w.Measure(func() {
							var err error
							if res, err = run.Sweep(ctx); err != nil {
								b.Fatalf("Sweep() = %v", err)
							}
						})
						b.StopTimer()
						total = total.add(c)
						visited += len(res.Sweep)
						for _, r := range res.Sweep {
							if r.Fired {
								fired++
							}
						}
						w.GH.Close()
						b.StartTimer()
					}
					reportCount(b, total)
					b.ReportMetric(float64(visited)/float64(b.N), "visited/op")
					b.ReportMetric(float64(fired)/float64(b.N), "fired/op")
				})
			}
		}
	}
}
