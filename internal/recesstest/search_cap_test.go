package recesstest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// Beyond the 1,000 results a search reaches, no waiting discussion is left
// out of every sweep: sweeps alternate the search's order, so the oldest
// and the newest are both swept within two sweeps, and the sweep
// recommends the branch store.
func TestSearchCap_nobody_starved(t *testing.T) {
	if testing.Short() {
		t.Skip("1,100 waiting discussions: not in -short")
	}
	t.Parallel()
	ctx := context.Background()
	w := New(t, Options{Store: "comment"})
	seed(t, w, seedOpts{open: 1100})
	// The oldest and the newest fall due.
	for _, n := range []int{1, 1100} {
		d, err := w.GH.Discussion(Repo, n)
		if err != nil {
			t.Fatal(err)
		}
		rec := state.New(n)
		rec.DiscussionID = d.ID
		start := state.Cursor{At: d.CreatedAt.UTC()}
		rec.Seen, rec.Commands = start, start
		opened := w.Now().Add(-2 * time.Hour)
		due := opened.Add(time.Hour)
		rec.OpenRFCs = map[string]*state.RFC{"c-old": {Trigger: storetest.MustTrigger(`{"kind":"elapsed","elapsed":"PT1H"}`),
			OpenedAt: opened, RepliesAfter: start, Since: start, RecessCount: 1, DueAt: &due}}
		rec.Checked, rec.UpdatedAt, rec.Status = w.Now(), w.Now(), "⏸️ Waiting."
		body, err := state.EncodeComment(rec.Status, rec)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range w.RecessComments(d.ID) {
			if state.HasMarker(c.Body) {
				if err := w.GH.EditComment(c.ID, body); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	fired := map[string]bool{}
	warned := false
	for i := range 2 {
		at(w, time.Duration(12+5*i)*time.Minute)
		res := must(t)(w.Engine(nil).Engine.Sweep(ctx))
		for _, r := range res.Sweep {
			if r.Fired {
				fired[r.Command+"#"+strconv.Itoa(r.Discussion)] = true
			}
		}
		for _, msg := range res.Warnings {
			warned = warned || strings.Contains(msg, "branch store")
		}
	}
	if !fired["sweep#1"] || !fired["sweep#1100"] {
		t.Errorf("two sweeps over 1,100 waiting fired %v; want both the oldest (1) and the newest (1100)", fired)
	}
	if !warned {
		t.Errorf("no warning recommending the branch store past the search's 1,000 results")
	}
}
