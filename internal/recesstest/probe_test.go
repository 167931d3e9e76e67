package recesstest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/resume/wait"
)

// A reply under recess's own question whose event was lost, while a newer
// top-level comment exists (its event delivered), is caught up: the probe
// reads more than the newest thread, so the next sweep sees it and
// resumes the agent.
func TestProbe_sees_a_reply_under_an_older_thread(t *testing.T) {
	t.Parallel()
	for _, store := range stores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := New(t, Options{Store: store})
			n, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":2}`)
			var question string
			for _, c := range w.RecessComments(id) {
				if c.ParentID == "" && strings.HasPrefix(c.Body, "Which storage backend") {
					question = c.ID
				}
			}
			if question == "" {
				t.Fatal("recess's question not found")
			}
			w.Say(id, "", "carol", "Unrelated: when is the next release?")
			must(t)(w.Engine(nil).Engine.Inbound(ctx, n)) // carol's event arrives
			w.Advance(time.Minute)
			w.Say(id, question, "bob", "Postgres.") // its event is lost
			at(w, 30*time.Minute)
			res, c := sweep(t, w)
			t.Logf("%s store, sweep catching the reply under the question: %v", store, c)
			if !res.Fired || res.FiredBy != wait.KindMissingInput {
				t.Fatalf("sweep fired %v by %q: bob's reply under recess's question was not caught up", res.Fired, res.FiredBy)
			}
		})
	}
}

// A reply under recess's question whose event was lost is caught up by the
// next sweep however many newer top-level comments follow the question
// (their events delivered): the probe looks into the question's thread
// itself, in the same request, so the sweep costs what it did.
func TestProbe_sees_a_reply_under_a_question_buried_by_newer_comments(t *testing.T) {
	t.Parallel()
	for _, store := range stores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := New(t, Options{Store: store})
			n, id := recessedDiscussion(t, w, `{"kind":"missing_input","replies":1,"scope":"thread"}`)
			question := ""
			for _, c := range w.RecessComments(id) {
				if c.ParentID == "" && strings.HasPrefix(c.Body, "Which storage backend") {
					question = c.ID
				}
			}
			if question == "" {
				t.Fatal("recess's question not found")
			}
			for i := range 6 {
				w.Say(id, "", "carol", fmt.Sprintf("Unrelated, part %d.", i+1))
				must(t)(w.Engine(nil).Engine.Inbound(ctx, n)) // its event arrives
				w.Advance(time.Minute)
			}
			w.Say(id, question, "bob", "Postgres.") // its event is lost
			lost := w.Now()
			for _, after := range []time.Duration{5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 25 * time.Hour} {
				w.Advance(lost.Add(after).Sub(w.Now()))
				res, c := sweep(t, w)
				t.Logf("%s store, sweep %s after the lost reply: fired %v, %v", store, after, res.Fired, c)
				if res.Fired {
					if after != 5*time.Minute || res.FiredBy != wait.KindMissingInput {
						t.Errorf("fired by %q %s after the lost reply, want by missing_input at the first sweep", res.FiredBy, after)
					}
					return
				}
			}
			t.Fatal("no sweep fired: bob's reply under recess's question, six newer top-level comments after it, was never caught up")
		})
	}
}
