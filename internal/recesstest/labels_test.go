package recesstest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
)

func hasLabel(t *testing.T, w *World, n int, name string) bool {
	t.Helper()
	d, err := w.GH.Discussion(Repo, n)
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(d.Labels, func(l string) bool { return strings.EqualFold(l, name) })
}

// A recess:waiting label removed by hand comes back with any run that
// reads the record, even one that writes nothing (otherwise an elapsed
// recess would wait for the next comment).
func TestLabel_removed_by_hand_comes_back(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := New(t, Options{Store: "comment"})
	n, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":2}`)
	if err := w.GH.UnlabelDiscussion(id, resume.LabelWaiting); err != nil {
		t.Fatal(err)
	}
	c := w.Measure(func() { must(t)(w.Engine(nil).Engine.Status(ctx, n)) })
	if c.Writes > 1 || !hasLabel(t, w, n, resume.LabelWaiting) {
		t.Errorf("after a status report (%v): label back %v; want it back, with the label as the only write", c, hasLabel(t, w, n, resume.LabelWaiting))
	}
}

// Label names compare case-insensitively: an owner's
// Recess:Waiting is recess's label, put on while something waits and taken
// off after.
func TestLabel_names_compare_case_insensitively(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := New(t, Options{Store: "comment"})
	if err := w.GH.RenameLabel(Repo, resume.LabelWaiting, "Recess:Waiting"); err != nil {
		t.Fatal(err)
	}
	n, _ := recessedDiscussion(t, w, `{"kind":"elapsed","elapsed":"PT1H"}`)
	if !hasLabel(t, w, n, "Recess:Waiting") {
		t.Fatalf("Recess:Waiting not on the waiting discussion")
	}
	at(w, 2*time.Hour)
	must(t)(w.Engine(nil).Engine.Sweep(ctx))
	r := w.Waiting()[0]
	if _, err := w.Answer(ctx, r, Adjourned("done")); err != nil {
		t.Fatal(err)
	}
	if hasLabel(t, w, n, "Recess:Waiting") {
		t.Errorf("Recess:Waiting still on a discussion with nothing pending")
	}
}

// A pending record whose discussion lost its label (by hand, a failed
// labelling, a record older than the label) is still visited, so an
// elapsed recess fires: the sweep in each hour's first slot also looks at
// the recently updated discussions.
func TestLabel_missing_record_found_within_the_hour(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := New(t, Options{Store: "comment"})
	n, id := recessedDiscussion(t, w, `{"kind":"elapsed","elapsed":"PT30M"}`)
	if err := w.GH.UnlabelDiscussion(id, resume.LabelWaiting); err != nil {
		t.Fatal(err)
	}
	at(w, 45*time.Minute) // 10:45: not the hour's first slot
	if res := must(t)(w.Engine(nil).Engine.Sweep(ctx)); res.Fired {
		t.Fatalf("sweep at 10:45 fired an unlabelled recess: the search cannot have found it")
	}
	at(w, 62*time.Minute) // 11:02
	res := must(t)(w.Engine(nil).Engine.Sweep(ctx))
	if !res.Fired {
		t.Fatalf("sweep at 11:02 did not fire the unlabelled, elapsed recess of discussion %d (notes %q)", n, res.Notes)
	}
	if !hasLabel(t, w, n, resume.LabelWaiting) {
		t.Errorf("the visit did not put the waiting label back")
	}
}

// In a repository without recess's labels, the first
// write that needs one creates it; a token that may not create labels
// fails the run with an error that names the label and the fix.
func TestLabel_created_when_missing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := New(t, Options{Store: "comment"})
	if err := w.GH.RenameLabel(Repo, resume.LabelWaiting, "old-name"); err != nil {
		t.Fatal(err)
	}
	n, _ := recessedDiscussion(t, w, `{"kind":"missing_input","replies":2}`)
	if !hasLabel(t, w, n, resume.LabelWaiting) {
		t.Errorf("recess:waiting was not created and put on the waiting discussion")
	}

	denied := New(t, Options{Store: "comment", Fake: fakeWithoutLabelCreation()})
	if err := denied.GH.RenameLabel(Repo, resume.LabelWaiting, "old-name"); err != nil {
		t.Fatal(err)
	}
	m, _ := denied.Open("alice")
	_, err := denied.Engine(nil).Engine.Intake(ctx, m)
	if err == nil || !strings.Contains(err.Error(), `"recess:waiting"`) || !strings.Contains(err.Error(), "issues: write") {
		t.Errorf("Intake without the label and without the right to create it = %v; want an error naming the label and the fix", err)
	}
}

func fakeWithoutLabelCreation() []githubfake.Option {
	return []githubfake.Option{githubfake.WithoutLabelCreation()}
}

// The waiting label serves the store that finds pending records by it (the
// comment store); the branch store keeps an index and gets none. Either
// way the store's own writes carry no label: the engine asks for it.
func TestLabel_waiting_only_where_the_store_finds_records_by_it(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		store string
		want  bool
	}{
		{store: "comment", want: true},
		{store: "branch", want: false},
	} {
		t.Run(tt.store, func(t *testing.T) {
			t.Parallel()
			w := New(t, Options{Store: tt.store})
			n, _ := recessedDiscussion(t, w, `{"kind":"missing_input","replies":2}`)
			if got := hasLabel(t, w, n, resume.LabelWaiting); got != tt.want {
				t.Errorf("%s store: waiting label on a waiting discussion = %v, want %v", tt.store, got, tt.want)
			}
		})
	}
}

// A run may die between its record write and the waiting label. For a
// record that becomes pending again (a comment on a discussion with
// nothing pending), the label goes on first, so at every moment the run
// can die a pending record carries its label. A new record is labelled
// after its write; one left without its label is found by the sweep in the
// hour's first slot, whose visit puts the label on. Every request the run
// sends is tried as the last, reaching GitHub or not.
func TestLabel_run_dying_around_the_record_write_leaves_no_pending_record_unfound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pendingUnlabelled := func(t *testing.T, w *World, n int, id string) bool {
		t.Helper()
		rec, err := readRecord(w, "comment", n, id)
		if err != nil {
			t.Fatal(err)
		}
		return rec != nil && rec.Pending() && !hasLabel(t, w, n, resume.LabelWaiting)
	}
	tests := []struct {
		name string
		// prepare brings a world to the moment before the run and returns
		// the discussion.
		prepare func(t *testing.T, w *World) (int, string)
		run     func(e *resume.Engine, n int) (*resume.Result, error)
		// labelFirst: a pending record is never without its label, even
		// right after the killed run.
		labelFirst bool
	}{
		{name: "record_made_pending_again", labelFirst: true,
			prepare: func(t *testing.T, w *World) (int, string) {
				n, id := w.Open("alice")
				must(t)(w.Engine(nil).Engine.Intake(ctx, n))
				if _, err := w.Answer(ctx, w.Waiting()[0], Adjourned("done")); err != nil {
					t.Fatal(err)
				}
				if hasLabel(t, w, n, resume.LabelWaiting) {
					t.Fatal("the waiting label is still on a discussion with nothing pending")
				}
				w.Advance(time.Minute)
				w.Say(id, "", "bob", "One more thing: add nightly backups.")
				return n, id
			},
			run: func(e *resume.Engine, n int) (*resume.Result, error) { return e.Inbound(ctx, n) }},
		{name: "new_record",
			prepare: func(t *testing.T, w *World) (int, string) { return w.Open("alice") },
			run:     func(e *resume.Engine, n int) (*resume.Result, error) { return e.Intake(ctx, n) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for k := 0; ; k++ {
				if k > 30 {
					t.Fatal("the run never finished within 30 requests")
				}
				done := false
				for _, applied := range []bool{false, true} {
					w := New(t, Options{Store: "comment"})
					n, id := tt.prepare(t, w)
					res, err := tt.run(w.Engine(KillAfter(k, applied)).Engine, n)
					if err == nil {
						if !res.Dispatched {
							t.Fatalf("the run that was not killed dispatched nothing (notes %q): not the run this test is about", res.Notes)
						}
						if pendingUnlabelled(t, w, n, id) {
							t.Errorf("a whole run left its pending record without the waiting label")
						}
						done = true
						break
					}
					if !errors.Is(err, ErrKilled) {
						t.Fatalf("run killed after %d requests (applied %v) = %v, want it killed", k, applied, err)
					}
					if tt.labelFirst && pendingUnlabelled(t, w, n, id) {
						t.Errorf("killed after %d requests (applied %v): a pending record without the waiting label, which no sweep's search finds", k, applied)
					}
					at(w, 62*time.Minute) // the next hour's first slot
					must(t)(w.Engine(nil).Engine.Sweep(ctx))
					if pendingUnlabelled(t, w, n, id) {
						t.Errorf("killed after %d requests (applied %v): the sweep in the hour's first slot left the pending record without the waiting label", k, applied)
					}
				}
				if done {
					return
				}
			}
		})
	}
}
