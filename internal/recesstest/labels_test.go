package recesstest

import (
	"context"
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

// Issue 10, item 6: a recess:waiting label removed by hand was never put
// back by a run that writes nothing, and an elapsed recess then waited for
// the next comment. Any run that reads the record puts it back.
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

// Issue 10, item 7: label names compare case-insensitively: an owner's
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

// Issue 10, item 14: a pending record whose discussion lost its label (by
// hand, a failed labelling, a record older than the label) was never
// visited again: an elapsed recess silently never fired. The sweep in each
// hour's first slot also looks at the recently updated discussions.
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

// Issue 10, item 3: in a repository without recess's labels, the first
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
