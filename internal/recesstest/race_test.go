package recesstest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// Races between runs of recess on one discussion, real adapters and the
// fake, both stores.
//
// What the stores guarantee, found here:
//
//   - branch: every write is a compare-and-swap on the branch head
//     (createCommitOnBranch with expectedHeadOid). Racing runs all decide,
//     one write wins, the others re-read and see the decision made: one
//     dispatch, whatever the overlap.
//   - comment: GitHub offers no compare-and-swap on a comment. Save checks
//     that the status comment is still the revision read (re-reading it
//     unless nothing could have changed it since), then updates it; a write
//     by another run that lands between that check and the update is
//     overwritten (TestRace_comment_store_save_window shows it). Racing
//     runs that fire the same recess can therefore both dispatch; the
//     agent's claim step then answers stale to every run but the one the
//     record names, so exactly one run is effective. What the claim cannot
//     repair is an overwritten claim or verdict (see the window test). The
//     front door's concurrency group serialises intake and inbound runs per
//     discussion, but not the sweep (its own group) nor the agent
//     workflow's claim and verdict steps: use the branch store where that
//     matters.

var ctx = context.Background()

var bothStores = []string{"comment", "branch"}

// slipIn returns a transport wrapper that runs fn once, just before the
// first request that match accepts goes out: another run doing its whole
// work at a chosen moment of this one, deterministically.
func slipIn(match func(*http.Request) bool, fn func()) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		var once sync.Once
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if match(req) {
				once.Do(fn)
			}
			return next.RoundTrip(req)
		})
	}
}

// requestBody returns a request's body without consuming it.
func requestBody(req *http.Request) string {
	if req.GetBody == nil {
		return ""
	}
	body, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer body.Close()
	b, _ := io.ReadAll(body)
	return string(b)
}

// anyMutation matches the first GraphQL mutation or REST write.
func anyMutation(req *http.Request) bool {
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/graphql") {
		return req.Method != http.MethodGet
	}
	return strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(requestBody(req), `{"query":"`)), "mutation")
}

// mutationOf matches a GraphQL mutation with the given root field.
func mutationOf(field string) func(*http.Request) bool {
	return func(req *http.Request) bool {
		b := requestBody(req)
		return strings.Contains(b, `"query":"mutation`) && strings.Contains(b, field+"(")
	}
}

// concurrently runs fn(0..n-1) in goroutines released together and
// returns their errors.
func concurrently(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := 0; i < n; i++ {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errs[i] = fn(i)
		}()
	}
	start.Done()
	done.Wait()
	return errs
}

// claimAll has every run claim at once; it returns the runs that were not
// told stale.
func claimAll(t *testing.T, w *World, n int, runs []githubfake.Run) []githubfake.Run {
	t.Helper()
	stale := make([]bool, len(runs))
	errs := concurrently(len(runs), func(i int) error {
		res, err := w.Engine(nil).Engine.Claim(ctx, n, runs[i].Inputs["correlation_id"], runs[i].ID)
		if err == nil {
			stale[i] = res.Stale
		}
		return err
	})
	var live []githubfake.Run
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Claim(%q) = %v", runs[i].Inputs["correlation_id"], err)
		}
		if stale[i] {
			if err := w.GH.SetRunStatus(runs[i].ID, "completed", "success"); err != nil {
				t.Fatal(err)
			}
			continue
		}
		live = append(live, runs[i])
	}
	return live
}

// verdict applies a verdict document for run r and completes the run.
func verdict(t *testing.T, w *World, r githubfake.Run, doc func(string, int) string) *resume.Result {
	t.Helper()
	n := discussionOf(t, r)
	e := w.Engine(nil).Engine
	v, err := e.ParseVerdict([]byte(doc(r.Inputs["correlation_id"], n)))
	if err != nil {
		t.Fatalf("ParseVerdict: %v", err)
	}
	res, err := e.Verdict(ctx, v, r.ID)
	if err != nil {
		t.Fatalf("Verdict(%s) = %v", r.Inputs["correlation_id"], err)
	}
	if err := w.GH.SetRunStatus(r.ID, "completed", "success"); err != nil {
		t.Fatal(err)
	}
	return res
}

func discussionOf(t *testing.T, r githubfake.Run) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(r.Inputs["discussion_number"], &n); err != nil {
		t.Fatalf("run %d: discussion_number %q", r.ID, r.Inputs["discussion_number"])
	}
	return n
}

// must fails the test on an engine error.
func must(t *testing.T) func(*resume.Result, error) *resume.Result {
	t.Helper()
	return func(res *resume.Result, err error) *resume.Result {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", res.Command, err)
		}
		return res
	}
}

// recessedWorld opens a discussion, lets its first run recess on trigger
// and returns the world, the discussion's number and node id.
func recessedWorld(t *testing.T, store, trigger string, o Options) (*World, int, string) {
	t.Helper()
	o.Store = store
	w := New(t, o)
	n, id := w.Open("alice")
	must(t)(w.Engine(nil).Engine.Intake(ctx, n))
	live := claimAll(t, w, n, w.Waiting())
	if len(live) != 1 {
		t.Fatalf("claims after intake: %d live, want 1", len(live))
	}
	verdict(t, w, live[0], Recessed("Which storage backend should we assume?", trigger))
	w.Advance(time.Minute)
	return w, n, id
}

func newRuns(w *World, before int) []githubfake.Run {
	return w.Runs()[before:]
}

func historyIDs(r githubfake.Run) []string {
	var ids []string
	for _, h := range History(r).HistorySince {
		ids = append(ids, h.ID)
	}
	return ids
}

// TestRace_comments_arrive_together fires a recess with two, and eight,
// comments arriving at once, each with its own inbound run (no concurrency
// group): exactly one run is effective, it carries every comment, and the
// record ends consistent. The branch store dispatches once; the comment
// store may dispatch more than once, and then the claim makes every extra
// run stale.
func TestRace_comments_arrive_together(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		for _, n := range []int{2, 8} {
			t.Run(fmt.Sprintf("%s_%d_runs", store, n), func(t *testing.T) {
				t.Parallel()
				w, num, id := recessedWorld(t, store, `{"kind":"missing_input","replies":2}`, Options{})
				before := len(w.Runs())
				want := []string{w.Say(id, "", "bob", "postgres, please")}
				for i := 0; i < n; i++ {
					want = append(want, w.Say(id, "", fmt.Sprintf("user%d", i), fmt.Sprintf("agreed (%d)", i)))
				}
				for i, err := range concurrently(n, func(int) error {
					_, err := w.Engine(nil).Engine.Inbound(ctx, num)
					return err
				}) {
					if err != nil {
						t.Fatalf("Inbound run %d = %v", i, err)
					}
				}
				runs := newRuns(w, before)
				t.Logf("%s store, %d inbound runs at once: %d dispatch(es)", store, n, len(runs))
				if len(runs) == 0 {
					t.Fatalf("no dispatch: the recess did not fire")
				}
				if store == "branch" && len(runs) != 1 {
					t.Errorf("branch store: %d dispatches, want 1 (compare-and-swap)", len(runs))
				}
				live := claimAll(t, w, num, runs)
				if len(live) != 1 {
					t.Fatalf("%d of %d runs claimed without stale, want exactly 1", len(live), len(runs))
				}
				if diff := cmp.Diff(want, historyIDs(live[0])); diff != "" {
					t.Errorf("the effective run's history_since (-want +got):\n%s", diff)
				}
				verdict(t, w, live[0], Adjourned("postgres it is"))
				rec, err := readRecord(w, store, num, id)
				if err != nil {
					t.Fatalf("readRecord: %v", err)
				}
				if rec.Active != nil || len(rec.OpenRFCs) != 0 || !contains(rec.Applied, live[0].Inputs["correlation_id"]) {
					t.Errorf("record after the answer: active %s, %d open, applied %v; want none, 0, and %s applied",
						activeOf(rec), len(rec.OpenRFCs), rec.Applied, live[0].Inputs["correlation_id"])
				}
				if got := statusComments(w, id); store == "comment" && got != 1 {
					t.Errorf("%d status comments, want 1", got)
				}
			})
		}
	}
}

// TestRace_verdict_and_inbound_comment races an agent's adjourned verdict
// with a comment arriving and its inbound run. Whatever the order, the
// comment reaches exactly one effective agent run: the inbound run sees the
// run still active and lets the comment accumulate, and the verdict, once it
// ended the run, looks again for comments written while it worked.
func TestRace_verdict_and_inbound_comment(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store+"_goroutines", func(t *testing.T) {
			t.Parallel()
			for i := 0; i < 4; i++ {
				w := New(t, Options{Store: store})
				n, id := w.Open("alice")
				must(t)(w.Engine(nil).Engine.Intake(ctx, n))
				live := claimAll(t, w, n, w.Waiting())
				before := len(w.Runs())
				var comment string
				errs := concurrently(2, func(k int) error {
					if k == 0 {
						verdict(t, w, live[0], Adjourned("here is the answer"))
						return nil
					}
					comment = w.Say(id, "", "bob", "one more question")
					_, err := w.Engine(nil).Engine.Inbound(ctx, n)
					return err
				})
				if err := errors.Join(errs...); err != nil {
					t.Fatalf("round %d: %v", i, err)
				}
				checkOneEffective(t, w, n, newRuns(w, before), comment)
			}
		})
		t.Run(store+"_comment_while_the_verdict_works", func(t *testing.T) {
			t.Parallel()
			w := New(t, Options{Store: store})
			n, id := w.Open("alice")
			must(t)(w.Engine(nil).Engine.Intake(ctx, n))
			live := claimAll(t, w, n, w.Waiting())
			before := len(w.Runs())
			var comment string
			// The verdict has read the discussion; before it posts, bob
			// comments and his inbound run finds the agent run still active.
			e := w.Engine(slipIn(anyMutation, func() {
				comment = w.Say(id, "", "bob", "one more question")
				must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			})).Engine
			v, err := e.ParseVerdict([]byte(Adjourned("here is the answer")(live[0].Inputs["correlation_id"], n)))
			if err != nil {
				t.Fatal(err)
			}
			must(t)(e.Verdict(ctx, v, live[0].ID))
			if err := w.GH.SetRunStatus(live[0].ID, "completed", "success"); err != nil {
				t.Fatal(err)
			}
			checkOneEffective(t, w, n, newRuns(w, before), comment)
		})
	}
}

// checkOneEffective claims runs at once and checks that exactly one is
// effective and carries comment.
func checkOneEffective(t *testing.T, w *World, n int, runs []githubfake.Run, comment string) {
	t.Helper()
	if len(runs) == 0 {
		t.Fatalf("comment %s reached no agent run: lost", comment)
	}
	live := claimAll(t, w, n, runs)
	if len(live) != 1 {
		t.Fatalf("%d of %d runs claimed without stale, want exactly 1", len(live), len(runs))
	}
	if got := historyIDs(live[0]); !contains(got, comment) {
		t.Errorf("the effective run's history_since = %v, want it to hold %s", got, comment)
	}
	verdict(t, w, live[0], Adjourned("answered"))
}

// TestRace_sweep_and_inbound races the sweep (its own concurrency group)
// with an inbound run, as an elapsed recess falls due and a comment arrives:
// one effective run, carrying the comment.
func TestRace_sweep_and_inbound(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			for i := 0; i < 3; i++ {
				w, n, id := recessedWorld(t, store, `{"kind":"elapsed","elapsed":"PT1H"}`, Options{})
				w.Advance(time.Hour)
				before := len(w.Runs())
				comment := w.Say(id, "", "bob", "and what about backups?")
				errs := concurrently(2, func(k int) error {
					var err error
					if k == 0 {
						_, err = w.Engine(nil).Engine.Sweep(ctx)
					} else {
						_, err = w.Engine(nil).Engine.Inbound(ctx, n)
					}
					return err
				})
				if err := errors.Join(errs...); err != nil {
					t.Fatalf("round %d: %v", i, err)
				}
				runs := newRuns(w, before)
				if store == "branch" && len(runs) != 1 {
					t.Errorf("branch store: %d dispatches, want 1", len(runs))
				}
				checkOneEffective(t, w, n, runs, comment)
			}
		})
	}
}

// TestRace_concurrent_passes_post_once: two passes that take the same
// decision at once (a sweep, and an inbound run in another concurrency
// group) post its note once: the note goes out after the record write that
// decides it, and only the pass whose write won posts it.
func TestRace_concurrent_passes_post_once(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// setup brings the discussion to where a pass decides; it returns
		// the marker key of the note the decision posts.
		setup func(t *testing.T, w *World, n int, id string) string
		// windowed: with the comment store the inbound run sends no
		// request between reading the record and writing it, so the sweep
		// can only slip into the save window, where its write is lost and
		// both post (TestRace_comment_store_save_window); only the branch
		// store is checked then.
		windowed bool
	}{
		{
			name: "escalation",
			setup: func(t *testing.T, w *World, n int, id string) string {
				for attempt := 0; attempt < 2; attempt++ {
					if attempt > 0 {
						w.Advance(time.Hour)
						must(t)(w.Engine(nil).Engine.Sweep(ctx))
					}
					r := w.Waiting()[0]
					w.Fail(r, "failure")
				}
				w.Advance(time.Hour)
				return w.Runs()[len(w.Runs())-1].Inputs["correlation_id"] + ".escalated"
			},
			// The label and the note are effects after the write: the
			// inbound run's first mutation is its write.
			windowed: true,
		},
		{
			name: "cancel_on_expiry",
			setup: func(t *testing.T, w *World, n int, id string) string {
				live := claimAll(t, w, n, w.Waiting())
				verdict(t, w, live[0], Recessed("anyone?", `{"kind":"missing_input","replies":3,"expires":"PT1H","on_expire":"cancel"}`))
				w.Advance(2 * time.Hour)
				return live[0].Inputs["correlation_id"] + ".closed"
			},
			windowed: true,
		},
		{
			name: "answer_to_recess_status",
			setup: func(t *testing.T, w *World, n int, id string) string {
				live := claimAll(t, w, n, w.Waiting())
				verdict(t, w, live[0], Recessed("anyone?", `{"kind":"missing_input","replies":3}`))
				w.Advance(time.Minute)
				return "answer." + w.Say(id, "", "maya", "/recess status")
			},
			// The reaction to the command is an effect after the write:
			// the inbound run's first mutation is its write.
			windowed: true,
		},
	}
	for _, store := range bothStores {
		for _, tc := range cases {
			if tc.windowed && store == "comment" {
				continue
			}
			t.Run(store+"_"+tc.name, func(t *testing.T) {
				t.Parallel()
				w := New(t, Options{Store: store, Maintainers: []string{"maya"}})
				n, id := w.Open("alice")
				must(t)(w.Engine(nil).Engine.Intake(ctx, n))
				key := tc.setup(t, w, n, id)
				// The inbound run has read everything; before its first
				// write the sweep does the same work in full.
				e := w.Engine(slipIn(anyMutation, func() {
					must(t)(w.Engine(nil).Engine.Sweep(ctx))
				})).Engine
				must(t)(e.Inbound(ctx, n))
				if got := notesWithKey(w, id, key); got != 1 {
					t.Errorf("recess posted the %q note %d times, want 1", key, got)
				}
			})
		}
	}
}

// notesWithKey counts recess's comments whose marker key is key.
func notesWithKey(w *World, discussionID, key string) int {
	n := 0
	for _, c := range w.RecessComments(discussionID) {
		if k, _, ok := state.ParseReplyMarker(c.Body); ok && k == key {
			n++
		}
	}
	return n
}

// TestRace_comment_store_save_window shows the one moment a concurrent
// write is lost: between the comparison that Save makes and its update.
// Another run's claim, or verdict, landing right there is overwritten by
// the comment store (GitHub has no compare-and-swap on comments) and kept by
// the branch store. It is a characterisation of a known limit, not a
// wish: if the comment store learns to detect it, flip the comment cases.
//
// What follows a lost write on the comment store: a lost claim leaves the
// run working with the record not naming it as claimed (a redone dispatch
// could then claim too; its verdict, not this one's, would be accepted); a
// lost verdict leaves the record saying the run is active, so once the run
// completes the sweep retries it, and the agent answers a second time (two
// effective runs for one recess), while the recess the verdict opened is
// gone. The front door's concurrency group does not cover the agent
// workflow's steps or the sweep, so this needs two writes within one
// request's time of each other; the branch store has no such window.
func TestRace_comment_store_save_window(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store+"_claim", func(t *testing.T) {
			t.Parallel()
			w := New(t, Options{Store: store, Maintainers: []string{"maya"}})
			n, id := w.Open("alice")
			must(t)(w.Engine(nil).Engine.Intake(ctx, n))
			r := w.Waiting()[0]
			w.Advance(time.Minute)
			// A maintainer's command makes the inbound run write the
			// record; the claim slips in just before that write.
			w.Say(id, "", "maya", "/recess status")
			e := w.Engine(slipIn(mutationOf(commitField(store)), func() {
				must(t)(w.Engine(nil).Engine.Claim(ctx, n, r.Inputs["correlation_id"], r.ID))
			})).Engine
			must(t)(e.Inbound(ctx, n))
			rec, err := readRecord(w, store, n, id)
			if err != nil {
				t.Fatal(err)
			}
			claimed := rec.Active != nil && rec.Active.Claimed
			if want := store == "branch"; claimed != want {
				t.Errorf("%s store: claim kept = %v, want %v", store, claimed, want)
			}
		})
		t.Run(store+"_verdict", func(t *testing.T) {
			t.Parallel()
			w := New(t, Options{Store: store, Maintainers: []string{"maya"}})
			n, id := w.Open("alice")
			must(t)(w.Engine(nil).Engine.Intake(ctx, n))
			live := claimAll(t, w, n, w.Waiting())
			cid := live[0].Inputs["correlation_id"]
			w.Advance(time.Minute)
			w.Say(id, "", "maya", "/recess status")
			e := w.Engine(slipIn(mutationOf(commitField(store)), func() {
				verdict(t, w, live[0], Recessed("more detail?", `{"kind":"missing_input","replies":1}`))
			})).Engine
			must(t)(e.Inbound(ctx, n))
			rec, err := readRecord(w, store, n, id)
			if err != nil {
				t.Fatal(err)
			}
			_, open := rec.OpenRFCs[cid]
			kept := open && contains(rec.Applied, cid) && rec.Active == nil
			if want := store == "branch"; kept != want {
				t.Fatalf("%s store: verdict kept = %v (active %s, applied %v), want %v", store, kept, activeOf(rec), rec.Applied, want)
			}
			if kept {
				return
			}
			// The record still names the finished run: the sweep retries it.
			w.Advance(time.Hour)
			before := len(w.Runs())
			must(t)(w.Engine(nil).Engine.Sweep(ctx))
			if got := len(newRuns(w, before)); got != 1 {
				t.Errorf("comment store, lost verdict: the sweep dispatched %d run(s), want the 1 retry that answers twice", got)
			}
		})
	}
}

// commitField is the mutation that writes a record in each store.
func commitField(store string) string {
	if store == "branch" {
		return "createCommitOnBranch"
	}
	return "updateDiscussionComment"
}

// TestRace_claim_lands_before_the_confirmation: the dispatched run claims
// while the run that dispatched it has not yet written its confirmation
// (the EYES reaction between them can wait out a rate limit for a minute,
// long enough for a runner to start). The confirmation must not undo the
// claim.
func TestRace_claim_lands_before_the_confirmation(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			w, n, id := recessedWorld(t, store, `{"kind":"missing_input","replies":1}`, Options{})
			w.Say(id, "", "bob", "postgres")
			before := len(w.Runs())
			e := w.Engine(slipIn(mutationOf("addReaction"), func() {
				runs := newRuns(w, before)
				if len(runs) != 1 {
					t.Errorf("%d runs started before the EYES reaction, want 1", len(runs))
					return
				}
				res := must(t)(w.Engine(nil).Engine.Claim(ctx, n, runs[0].Inputs["correlation_id"], runs[0].ID))
				if res.Stale {
					t.Errorf("the dispatched run's claim was stale")
				}
			})).Engine
			must(t)(e.Inbound(ctx, n))
			rec, err := readRecord(w, store, n, id)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Active == nil || !rec.Active.Claimed || rec.Active.State != state.RunDispatched {
				t.Errorf("record after the confirmation: %s; want the run dispatched and still claimed", activeOf(rec))
			}
		})
	}
}
