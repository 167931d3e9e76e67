package recesstest

// The API budgets, asserted as request counts against the fake
// GitHub (never as timings), for both state stores. BENCHMARKS.md lists them
// with the figures; the seeding helpers here serve bench_test.go too.

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// stores are the state stores every budget holds for.
var stores = []string{"comment", "branch"}

// threadKinds are the kinds of thread every per-event and per-sweep budget
// holds for, with the same figures, each in a setup that serves it alone:
// what a kind adds is said where it adds it (listingCost).
var threadKinds = []state.Kind{state.KindDiscussion, state.KindIssue}

// eventSetups are the setups every per-event budget holds for, with the
// same figures: each of threadKinds served alone, and a discussion where
// discussions and issues are served, whose claim and verdict address its
// number as of any kind served (resume.AnyKind), as the action does.
var eventSetups = []Options{{Kind: state.KindDiscussion}, {Kind: state.KindIssue},
	{Kind: state.KindDiscussion, Served: []state.Kind{state.KindDiscussion, state.KindIssue}}}

// where names a budget's subtest: the store, the kind unless it is
// discussions, and the kinds served unless the kind alone ("comment",
// "branch/issue", "comment/served_discussion_issue").
func where(store string, o Options) string {
	if o.Served != nil {
		return store + "/served_" + kindList(o.Served, "_")
	}
	if o.Kind == state.KindDiscussion {
		return store
	}
	return store + "/" + string(o.Kind)
}

// in is setup o on store.
func in(store string, o Options) Options {
	o.Store = store
	return o
}

// what names setup o in a budget's log ("issue", "discussion (serving
// discussion, issue)").
func what(o Options) string {
	if o.Served != nil {
		return resume.Noun(o.Kind) + " (serving " + kindList(o.Served, ", ") + ")"
	}
	return resume.Noun(o.Kind)
}

// kindList joins kinds with sep.
func kindList(kinds []state.Kind, sep string) string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k.OrDiscussion())
	}
	return strings.Join(out, sep)
}

// Budgets per event and per sweep.
const (
	// maxCommentReads and maxCommentWrites bound a comment that does not
	// fire; a comment that changes nothing visible writes nothing.
	maxCommentReads  = 1
	maxCommentWrites = 1
	// maxFiring bounds a comment that fires, everything included (on the
	// comment store, plus a re-read before each of its two writes: see
	// checkCost).
	maxFiring = 5
	// maxIntake bounds a new discussion's fresh dispatch: load, the count
	// of the repository's agent runs of the hour, intent, dispatch,
	// confirmation, EYES (on the comment store, plus a check before each
	// of its two writes and the waiting label: see intakeCost).
	maxIntake = 6
	// pageSize is how many records one batched request covers.
	pageSize = 100
)

func reads(c Count) int { return c.Total() - c.Writes }

// checkCost is what a store spends before each record write to detect a
// concurrent one: the comment store re-reads its status comment (GitHub
// has no compare-and-swap on comments); the branch store's write is itself
// a compare-and-swap.
func checkCost(store string) int {
	if store == "comment" {
		return 1
	}
	return 0
}

// firingCost bounds a comment that fires on store: load, intent, dispatch,
// confirmation, EYES, and the checks before the two writes.
func firingCost(store string) int { return maxFiring + 2*checkCost(store) }

// intakeCost bounds a new discussion's intake on store: the comment store
// also puts the waiting label on (Pending finds records by it).
func intakeCost(store string) int {
	if store == "comment" {
		return maxIntake + 2*checkCost(store) + 1
	}
	return maxIntake
}

func pages(n int) int { return (n + pageSize - 1) / pageSize }

// recessedDiscussion opens a discussion, lets recess take it in and the agent
// recess on it with trigger, and moves the clock a minute on.
func recessedDiscussion(t testing.TB, w *World, trigger string) (int, string) {
	t.Helper()
	ctx := context.Background()
	n, id := w.Open("alice")
	if _, err := w.Engine(nil).Engine.Intake(ctx, n); err != nil {
		t.Fatalf("Intake(%d) = %v", n, err)
	}
	var waiting []githubfake.Run
	for _, r := range w.Waiting() {
		if r.Inputs["discussion_number"] == strconv.Itoa(n) {
			waiting = append(waiting, r)
		}
	}
	if len(waiting) != 1 {
		t.Fatalf("agent runs waiting on discussion %d after intake = %d, want 1", n, len(waiting))
	}
	if _, err := w.Answer(ctx, waiting[0], Recessed("Which storage backend should we assume?", trigger)); err != nil {
		t.Fatalf("recessed verdict on %d: %v", n, err)
	}
	w.Advance(time.Minute)
	return n, id
}

// at moves a World's clock to start+d.
func at(w *World, d time.Duration) {
	w.Advance(w.opt.Start.Add(d).Sub(w.Now()))
}

// maxProbed is how many waiting records one sweep probes for lost events
// (resume's maxProbed); a sweep probes the next ones in turn.
const maxProbed = 500

// probeCost is what probing waiting records costs: a request per 100 of
// them, at most maxProbed.
func probeCost(waiting int) int { return pages(min(waiting, maxProbed)) }

// seedOpts shape seeded records.
type seedOpts struct {
	// open records wait on people; due of them have an elapsed trigger
	// already due, spread evenly among the others, soonest first.
	open, due int
	// idle discussions without any record.
	idle int
	// realWorld gives each waiting discussion what real repositories show:
	// another workflow's comment made with recess's token before recess's
	// status comment, a dozen comments before it (so it is not among the
	// first ones), recess's question (the recess's thread), and comments
	// after it that the trigger does not count.
	realWorld bool
}

// seed plants records straight into the fake GitHub in the store's own
// format (the status comment authored by recess's identity with the hidden
// record and the waiting label; or the record files and index shards on the
// state branch), as if recess had written them: seeding 10,000 through engine
// runs would take minutes. It returns the due discussions' numbers, soonest
// due first.
func seed(tb testing.TB, w *World, o seedOpts) []int {
	tb.Helper()
	now := w.Now()
	files := map[string]string{}
	shards := map[int]map[string]map[string]any{}
	every := 0
	if o.due > 0 {
		every = max(o.open/o.due, 1)
	}
	var due []int
	for i := range o.open {
		d, err := w.open("alice", "RFC "+strconv.Itoa(i), "please review")
		if err != nil {
			tb.Fatalf("seed: %s: %v", resume.Noun(w.opt.Kind), err)
		}
		start := state.Cursor{At: d.CreatedAt.UTC()}
		rec := state.New(d.Number)
		rec.DiscussionID = d.ID
		if w.opt.Kind.Flat() {
			rec.Kind = w.opt.Kind
		}
		rec.Seen, rec.Commands = start, start
		rfc := &state.RFC{Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":2}`), OpenedAt: now,
			RepliesAfter: start, Since: start, RecessCount: 1, Summary: "waiting for the storage owners"}
		if every > 0 && i%every == 0 && len(due) < o.due {
			rfc.Trigger = storetest.MustTrigger(`{"kind":"elapsed","elapsed":"PT1H"}`)
			rfc.OpenedAt = now.Add(-2*time.Hour + time.Duration(len(due))*time.Second)
			dueAt := rfc.OpenedAt.Add(time.Hour)
			rfc.DueAt = &dueAt
			due = append(due, d.Number)
		}
		if o.realWorld && rfc.Trigger.Kind == wait.KindMissingInput {
			rfc.Trigger = storetest.MustTrigger(`{"kind":"missing_input","replies":2,"from":["carol"]}`)
		}
		if o.realWorld {
			if _, err := w.GH.Comment(d.ID, Bot, "👋 Welcome! (another workflow, same token)"); err != nil {
				tb.Fatalf("seed: welcome comment: %v", err)
			}
			for j := range 12 {
				if _, err := w.GH.Comment(d.ID, "dave", "chatter "+strconv.Itoa(j)); err != nil {
					tb.Fatalf("seed: comment: %v", err)
				}
			}
			// recess's question, whose thread the sweep's probe reads.
			q, err := w.GH.Comment(d.ID, Bot, "Which storage backend should we assume?")
			if err != nil {
				tb.Fatalf("seed: question: %v", err)
			}
			rfc.ReplyIDs, rfc.ThreadRoots = []string{q.ID}, []string{q.ID}
		}
		rec.OpenRFCs = map[string]*state.RFC{"c-seed-" + strconv.Itoa(d.Number): rfc}
		rec.Checked, rec.UpdatedAt = now, now
		rec.Status = "⏸️ Waiting for replies (seeded)."
		switch w.opt.Store {
		case "comment":
			body, err := state.EncodeComment(rec.Status, rec)
			if err != nil {
				tb.Fatalf("seed: encode: %v", err)
			}
			c, err := w.GH.Comment(d.ID, Bot, body)
			if err != nil {
				tb.Fatalf("seed: status comment: %v", err)
			}
			// Every save after the first edits it.
			if err := w.GH.EditComment(c.ID, body); err != nil {
				tb.Fatalf("seed: status comment edit: %v", err)
			}
			if err := w.GH.LabelDiscussion(d.ID, resume.LabelWaiting); err != nil {
				tb.Fatalf("seed: label: %v", err)
			}
			if o.realWorld {
				// A dozen comments after it: the status comment is
				// among neither the first nor the last ten.
				for j := range 12 {
					if _, err := w.GH.Comment(d.ID, "dave", "more chatter "+strconv.Itoa(j)); err != nil {
						tb.Fatalf("seed: comment: %v", err)
					}
				}
			}
		case "branch":
			data, err := state.Encode(rec)
			if err != nil {
				tb.Fatalf("seed: encode: %v", err)
			}
			files[fmt.Sprintf("discussions/%d.json", d.Number)] = string(data)
			k := d.Number % 16
			if shards[k] == nil {
				shards[k] = map[string]map[string]any{}
			}
			entry := map[string]any{"next_due": nil, "checked": wire(rec.Checked)}
			if rec.Kind != "" {
				entry["kind"] = rec.Kind
			}
			if next := rec.NextDue(); !next.IsZero() {
				entry["next_due"] = wire(next)
			}
			if roots := rec.ThreadRoots(); len(roots) > 0 {
				entry["thread_roots"] = roots
			}
			shards[k][strconv.Itoa(d.Number)] = entry
		}
	}
	if w.opt.Store == "branch" && o.open > 0 {
		for k, entries := range shards {
			data, err := json.MarshalIndent(entries, "", "  ")
			if err != nil {
				tb.Fatalf("seed: index: %v", err)
			}
			files[fmt.Sprintf("index/%d.json", k)] = string(data) + "\n"
		}
		if _, err := w.GH.Commit(Repo, "recess-state", "recess: seeded", files); err != nil {
			tb.Fatalf("seed: commit: %v", err)
		}
	}
	for range o.idle {
		if _, err := w.open("bob", "Question", "no recess here"); err != nil {
			tb.Fatalf("seed: idle %s: %v", resume.Noun(w.opt.Kind), err)
		}
	}
	return due
}

func wire(t time.Time) *string {
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// sweep runs one sweep and counts it.
func sweep(t testing.TB, w *World) (*resume.Result, Count) {
	t.Helper()
	var res *resume.Result
	c := w.Measure(func() {
		var err error
		if res, err = w.Dispatched(nil).Engine.Sweep(context.Background()); err != nil {
			t.Fatalf("Sweep() = %v", err)
		}
	})
	return res, c
}

// listingCost is what a sweep at w's moment spends listing the waiting
// records: pendingCost, and on the comment store, in the hour's first slot,
// the look at the 100 most recently updated threads (unlabelled pending
// records). The world serves its kind alone, and the store asks for no
// other: a setup serving issues lists them at a discussion's cost.
func listingCost(w *World, store string, waiting int) int {
	n := pendingCost(store, waiting)
	if store == "comment" && w.Now().Minute() < 5 {
		n++
	}
	return n
}

// pendingCost is what listing the waiting records costs a store: the
// branch store reads its index in one request; the comment store searches
// the waiting label and reads the status comments, a request each per 100.
func pendingCost(store string, waiting int) int {
	if store == "branch" {
		return 1
	}
	return 2 * max(pages(waiting), 1)
}

// TestBudgetComment: a comment that does not fire costs at most one read
// and one write, none when nothing visible changes; one that fires at most
// five requests in all.
func TestBudgetComment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// trigger is the recess's; "" means the agent is still at work.
		trigger string
		// duplicate delivers the event twice and measures the second.
		duplicate bool
		fires     bool
		// maxReads, maxWrites and maxTotal bound the measured run.
		maxReads, maxWrites, maxTotal int
		// author and body are the comment's (default bob's words); a body
		// holding a slash command costs a permission read per author.
		author, body string
		permReads    int
	}{
		{name: "not_firing", trigger: `{"kind":"missing_input","replies":2}`,
			maxReads: maxCommentReads, maxWrites: maxCommentWrites, maxTotal: maxCommentReads + maxCommentWrites},
		{name: "duplicate_event", trigger: `{"kind":"missing_input","replies":2}`, duplicate: true,
			maxReads: maxCommentReads, maxWrites: 0, maxTotal: maxCommentReads},
		// Nothing visible changes, but the record notes that it looked
		// (Checked), once, so that no sweep comes back for the comment.
		{name: "status_text_unchanged", trigger: `{"kind":"missing_input","replies":1,"from":["carol"]}`,
			maxReads: maxCommentReads, maxWrites: maxCommentWrites, maxTotal: maxCommentReads + maxCommentWrites},
		{name: "while_the_agent_works",
			maxReads: maxCommentReads, maxWrites: 0, maxTotal: maxCommentReads},
		{name: "firing", trigger: `{"kind":"missing_input","replies":1}`, fires: true,
			maxReads: maxFiring, maxWrites: maxFiring, maxTotal: maxFiring},
		// A slash command from someone who may not use one is an ordinary
		// reply, plus one REST read of the author's permission.
		{name: "command_without_write_access", trigger: `{"kind":"missing_input","replies":2}`,
			author: Member, body: "/recess cancel", permReads: 1,
			maxReads: maxCommentReads + 1, maxWrites: maxCommentWrites, maxTotal: maxCommentReads + maxCommentWrites + 1},
	}
	for _, store := range stores {
		for _, o := range eventSetups {
			for _, tt := range tests {
				t.Run(where(store, o)+"/"+tt.name, func(t *testing.T) {
					t.Parallel()
					ctx := context.Background()
					w := New(t, in(store, o))
					var n int
					var id string
					if tt.trigger == "" {
						n, id = w.Open("alice")
						if _, err := w.Engine(nil).Engine.Intake(ctx, n); err != nil {
							t.Fatalf("Intake(%d) = %v", n, err)
						}
						w.Advance(time.Minute)
					} else {
						n, id = recessedDiscussion(t, w, tt.trigger)
					}
					author, body := "bob", "We use Postgres."
					if tt.body != "" {
						author, body = tt.author, tt.body
					}
					w.Say(id, "", author, body)
					runs := len(w.Runs())
					inbound := func() *resume.Result {
						res, err := w.Engine(nil).Engine.Inbound(ctx, n)
						if err != nil {
							t.Fatalf("Inbound(%d) = %v", n, err)
						}
						return res
					}
					if tt.duplicate {
						inbound()
					}
					var res *resume.Result
					w.GH.ResetLog()
					c := w.Measure(func() { res = inbound() })
					t.Logf("%s store, %s, %s: %v", store, what(o), tt.name, c)
					if got := len(permissionReads(w)); got != tt.permReads {
						t.Errorf("permission reads = %d, want %d", got, tt.permReads)
					}
					if res.Fired != tt.fires {
						t.Errorf("Inbound(%d).Fired = %v, want %v", n, res.Fired, tt.fires)
					}
					if got, want := len(w.Runs())-runs, map[bool]int{true: 1}[tt.fires]; got != want {
						t.Errorf("agent runs dispatched by the comment = %d, want %d", got, want)
					}
					maxReads, maxTotal := tt.maxReads+checkCost(store)*tt.maxWrites, tt.maxTotal+checkCost(store)*tt.maxWrites
					if tt.fires {
						maxReads, maxTotal = firingCost(store), firingCost(store)
					}
					if reads(c) > maxReads || c.Writes > tt.maxWrites || c.Total() > maxTotal {
						t.Errorf("Inbound(%d) = %v; want at most %d reads, %d writes, %d in all", n, c, maxReads, tt.maxWrites, maxTotal)
					}
				})
			}
		}
	}
}

// TestBudgetIntake: a new discussion that recess takes in costs the
// record's read, the count of the repository's recent agent runs, the
// dispatch with its intent and confirmation, and EYES; a write each but the
// reads.
func TestBudgetIntake(t *testing.T) {
	t.Parallel()
	for _, store := range stores {
		for _, o := range eventSetups {
			t.Run(where(store, o), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				w := New(t, in(store, o))
				intake := func() {
					n, _ := w.Open("alice")
					if _, err := w.Engine(nil).Engine.Intake(ctx, n); err != nil {
						t.Fatalf("Intake(%d) = %v", n, err)
					}
				}
				// A first intake creates what every later one finds (the
				// state branch, the waiting label).
				intake()
				c := w.Measure(intake)
				t.Logf("%s store, %s, intake: %v", store, what(o), c)
				if max, maxReads := intakeCost(store), 2+checkCost(store)*2; c.Total() > max || reads(c) > maxReads {
					t.Errorf("Intake = %v; want at most %d requests, %d of them reads", c, max, maxReads)
				}
			})
		}
	}
}

// TestBudgetVerdict: an agent run's verdict, after its claim, costs the
// same on every kind of thread, per store the figures BENCHMARKS.md's per
// event table lists (a recess asking one question, an adjournment with one
// reply).
func TestBudgetVerdict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  func(string, int) string
		// max are the requests per store.
		max map[string]int
	}{
		{name: "recessed", doc: Recessed("Which storage backend should we assume?", `{"kind":"missing_input","replies":2}`),
			max: map[string]int{"comment": 5, "branch": 4}},
		{name: "adjourned", doc: Adjourned("Postgres it is."),
			max: map[string]int{"comment": 7, "branch": 5}},
	}
	for _, store := range stores {
		for _, o := range eventSetups {
			for _, tt := range tests {
				t.Run(where(store, o)+"/"+tt.name, func(t *testing.T) {
					t.Parallel()
					ctx := context.Background()
					w := New(t, in(store, o))
					n, _ := w.Open("alice")
					if _, err := w.Engine(nil).Engine.Intake(ctx, n); err != nil {
						t.Fatalf("Intake(%d) = %v", n, err)
					}
					runs := w.Waiting()
					if len(runs) != 1 {
						t.Fatalf("agent runs after intake = %d, want 1", len(runs))
					}
					r := runs[0]
					cid := r.Inputs["correlation_id"]
					if res, err := w.Dispatched(nil).Engine.Claim(ctx, n, cid, r.ID); err != nil || res.Stale {
						t.Fatalf("Claim = %+v, %v; want the run recess expects", res, err)
					}
					w.Advance(time.Minute)
					run := w.Dispatched(nil).Engine
					v, err := run.ParseVerdict([]byte(tt.doc(cid, n)))
					if err != nil {
						t.Fatalf("ParseVerdict = %v", err)
					}
					c := w.Measure(func() {
						if _, err := run.Verdict(ctx, v, r.ID); err != nil {
							t.Fatalf("Verdict = %v", err)
						}
					})
					t.Logf("%s store, %s, verdict %s: %v", store, what(o), tt.name, c)
					if c.Total() > tt.max[store] {
						t.Errorf("Verdict = %v; want at most %d requests", c, tt.max[store])
					}
				})
			}
		}
	}
}

// TestBudgetSweep: a sweep's requests grow with what is due plus a page per
// 100 waiting records (the lost-event probe), never with the discussions of
// the repository; a sweep writes nothing it merely looked at; max-operations
// holds, soonest due first, and what is left is picked up next time.
func TestBudgetSweep(t *testing.T) {
	t.Parallel()
	const open, idle = 150, 250
	for _, store := range stores {
		for _, kind := range threadKinds {
			t.Run(where(store, Options{Kind: kind})+"/nothing_due", func(t *testing.T) {
				t.Parallel()
				w := New(t, Options{Store: store, Kind: kind})
				seed(t, w, seedOpts{idle: idle})
				at(w, 10*time.Minute)
				res, c := sweep(t, w)
				t.Logf("%s store, %s, nothing waiting, %d idle discussions: %v", store, resume.Noun(kind), idle, c)
				if c.Total() > listingCost(w, store, 0) || c.Writes != 0 || len(res.Sweep) != 0 {
					t.Errorf("sweep with nothing waiting = %v visiting %d; want at most %d read(s), no write, no visit", c, len(res.Sweep), listingCost(w, store, 0))
				}
				seed(t, w, seedOpts{open: open})
				at(w, 20*time.Minute)
				res, c = sweep(t, w)
				t.Logf("%s store, %s, %d waiting, %d idle discussions, nothing due: %v", store, resume.Noun(kind), open, idle, c)
				if max := listingCost(w, store, open) + probeCost(open); c.Total() > max || c.Writes != 0 || len(res.Sweep) != 0 {
					t.Errorf("sweep with nothing due = %v visiting %d; want at most %d reads (listing, probe), no write, no visit", c, len(res.Sweep), max)
				}
			})
			t.Run(where(store, Options{Kind: kind})+"/grows_with_due_not_with_discussions", func(t *testing.T) {
				t.Parallel()
				const due = 3
				var counts []Count
				for _, extra := range []int{0, idle} {
					w := New(t, Options{Store: store, Kind: kind})
					seed(t, w, seedOpts{open: open, due: due, idle: extra})
					at(w, 10*time.Minute)
					res, c := sweep(t, w)
					t.Logf("%s store, %s, %d waiting (%d due), %d idle discussions: %v", store, resume.Noun(kind), open, due, extra, c)
					if !res.Fired || len(w.Runs()) != due {
						t.Fatalf("sweep fired %v, %d runs; want the %d due recesses resumed", res.Fired, len(w.Runs()), due)
					}
					if max := listingCost(w, store, open) + probeCost(open-due) + due*firingCost(store); c.Total() > max {
						t.Errorf("sweep with %d due = %v, want at most %d (listing, probe, %d per resume)", due, c, max, firingCost(store))
					}
					counts = append(counts, c)
				}
				if counts[0] != counts[1] {
					t.Errorf("sweep cost %v with no idle discussion but %v with %d: it must not grow with the repository", counts[0], counts[1], idle)
				}
			})
			t.Run(where(store, Options{Kind: kind})+"/lost_event_caught_by_the_next_sweep", func(t *testing.T) {
				t.Parallel()
				w := New(t, Options{Store: store, Kind: kind})
				seed(t, w, seedOpts{open: 20})
				n, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":1}`)
				w.Say(id, "", "bob", "We use Postgres.") // its event is lost
				runs := len(w.Runs())
				at(w, 10*time.Minute)
				res, c := sweep(t, w)
				t.Logf("%s store, %s, sweep over 21 waiting, one lost event: %v", store, resume.Noun(kind), c)
				if !res.Fired || res.FiredBy != wait.KindMissingInput || len(w.Runs()) != runs+1 {
					t.Fatalf("sweep fired %v by %q: the lost reply on discussion %d was not caught up", res.Fired, res.FiredBy, n)
				}
				if max := listingCost(w, store, 21) + probeCost(21) + firingCost(store); c.Total() > max {
					t.Errorf("sweep = %v, want at most %d", c, max)
				}
			})
			t.Run(where(store, Options{Kind: kind})+"/lost_event_beyond_one_probe", func(t *testing.T) {
				t.Parallel()
				const many = maxProbed + 100
				w := New(t, Options{Store: store, Kind: kind})
				seed(t, w, seedOpts{open: many - 1})
				n, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":1}`)
				w.Say(id, "", "bob", "We use Postgres.") // its event is lost
				// Each sweep probes maxProbed of the waiting records, the next
				// ones in turn: two sweeps cover them all.
				fired := false
				for i := range 2 {
					at(w, time.Duration(10+5*i)*time.Minute)
					res, c := sweep(t, w)
					t.Logf("%s store, %s, sweep %d over %d waiting: %v", store, resume.Noun(kind), i+1, many, c)
					if max := listingCost(w, store, many) + probeCost(many) + firingCost(store); c.Total() > max {
						t.Errorf("sweep %d = %v, want at most %d", i+1, c, max)
					}
					fired = fired || res.Fired
				}
				if !fired {
					t.Errorf("two sweeps over %d waiting did not catch the lost reply on discussion %d", many, n)
				}
			})
			t.Run(where(store, Options{Kind: kind})+"/looked_at_once", func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				w := New(t, Options{Store: store, Kind: kind})
				seed(t, w, seedOpts{open: 99})
				n, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":1,"from":["carol"]}`)
				// Comments the trigger does not count, one
				// whose event arrived and one whose event was lost.
				w.Say(id, "", "bob", "Not carol, but: Postgres.")
				if _, err := w.Engine(nil).Engine.Inbound(ctx, n); err != nil {
					t.Fatalf("Inbound(%d) = %v", n, err)
				}
				w.Advance(time.Minute)
				w.Say(id, "", "dave", "Me neither; MySQL?")
				// The first sweep's probe sees dave's comment and visits; the
				// visit notes that it looked (one write). Every later sweep is
				// the listing and the probe, even after the intake's dispatch
				// aged out of the rate limit's hour.
				res, c := sweep(t, w)
				t.Logf("%s store, %s, sweep catching up a lost comment that counts for nothing, 100 waiting: %v", store, resume.Noun(kind), c)
				if len(res.Sweep) != 1 || res.Fired || c.Writes > maxCommentWrites {
					t.Fatalf("first sweep visited %d, fired %v, cost %v; want discussion %d visited once, not fired, at most %d write(s)", len(res.Sweep), res.Fired, c, n, maxCommentWrites)
				}
				for i, after := range []time.Duration{5 * time.Minute, 2 * time.Hour, 3 * time.Hour} {
					at(w, after)
					res, c := sweep(t, w)
					if len(res.Sweep) != 0 || c.Writes != 0 || c.Total() > listingCost(w, store, 100)+probeCost(100) {
						t.Errorf("sweep %d after the look = %v visiting %d; want the listing and the probe only", i+2, c, len(res.Sweep))
					}
				}
			})
			t.Run(where(store, Options{Kind: kind})+"/expiry_visited_when_due", func(t *testing.T) {
				t.Parallel()
				w := New(t, Options{Store: store, Kind: kind})
				seed(t, w, seedOpts{open: 20})
				_, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":2,"expires":"P7D","on_expire":"cancel"}`)
				at(w, 24*time.Hour)
				if res, c := sweep(t, w); len(res.Sweep) != 0 || c.Total() > listingCost(w, store, 21)+probeCost(21) {
					t.Errorf("sweep a day in = %v visiting %d; want the listing and the probe only", c, len(res.Sweep))
				}
				at(w, 7*24*time.Hour+10*time.Minute)
				res, c := sweep(t, w)
				t.Logf("%s store, %s, sweep closing an expired recess among 21 waiting: %v", store, resume.Noun(kind), c)
				if len(res.Sweep) != 1 || res.Fired || res.OpenRFCs != 0 {
					t.Fatalf("sweep after the expiry visited %d, fired %v, %d open; want the recess closed", len(res.Sweep), res.Fired, res.OpenRFCs)
				}
				closed := false
				for _, cm := range w.RecessComments(id) {
					closed = closed || strings.Contains(cm.Body, "No longer waiting")
				}
				if !closed || len(w.Runs()) != 1 {
					t.Errorf("expired recess: closing note %v, %d agent runs; want the note and no resume", closed, len(w.Runs()))
				}
			})
			t.Run(where(store, Options{Kind: kind})+"/max_operations_soonest_first", func(t *testing.T) {
				t.Parallel()
				const due, limit = 5, 2
				w := New(t, Options{Store: store, Kind: kind, Config: resume.Config{MaxOperations: limit}})
				order := seed(t, w, seedOpts{open: 10, due: due})
				dispatched := func() []int {
					var out []int
					for _, r := range w.Runs() {
						n, _ := strconv.Atoi(r.Inputs["discussion_number"])
						out = append(out, n)
					}
					return out
				}
				for i, want := range [][]int{order[:2], order[:4], order[:5]} {
					at(w, time.Duration(10+5*i)*time.Minute)
					res, c := sweep(t, w)
					got := dispatched()
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("after sweep %d: dispatched for %v, want %v (soonest due first, the rest next time)", i+1, got, want)
					}
					if len(res.Sweep) != limit || res.Left == 0 {
						t.Errorf("sweep %d visited %d and left %d; want %d visited, some left (%v)", i+1, len(res.Sweep), res.Left, limit, c)
					}
				}
			})
		}
	}
}
