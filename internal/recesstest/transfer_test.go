package recesstest

import (
	"context"
	"testing"

	"github.com/recess-action/recess/state"
)

// A discussion transferred from another repository that runs recess
// arrives with that repository's status comment (recess's identity there
// is the same bot). It is foreign, not corrupt (no run fails on it): left
// as it is, and this discussion starts a fresh record in a status comment
// of its own.
func TestTransferred_discussion_starts_a_fresh_record(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := New(t, Options{Store: "comment"})
	n, id := w.Open("alice")
	foreign := state.New(n + 40) // the number it had over there
	foreign.OpenRFCs = map[string]*state.RFC{}
	body, err := state.EncodeComment("⏸️ Waiting for 2 more replies.", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.GH.Comment(id, Bot, body); err != nil {
		t.Fatal(err)
	}
	res := must(t)(w.Engine(nil).Engine.Intake(ctx, n))
	if !res.Dispatched {
		t.Fatalf("intake on a transferred discussion did not dispatch (notes %q)", res.Notes)
	}
	statuses := 0
	for _, c := range w.RecessComments(id) {
		if state.HasMarker(c.Body) {
			statuses++
		}
	}
	if statuses != 2 {
		t.Errorf("status comments = %d, want 2 (the foreign one left as it is, and this discussion's own)", statuses)
	}
	// Later runs read this discussion's own record, not the foreign one.
	w.Say(id, "", "bob", "any news?")
	must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
}
