package recesstest

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// sentLog lists the writes a run sent.
type sentLog struct {
	mu   sync.Mutex
	sent []string
}

// record returns a transport wrapper that logs every GitHub write the run
// sends after armed is set, by its GraphQL root field or REST path.
func (l *sentLog) record(armed *bool) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			l.mu.Lock()
			if *armed && anyMutation(req) {
				what := req.Method + " " + req.URL.Path
				if b := requestBody(req); strings.Contains(b, `"query":"mutation`) {
					what = mutationField(b)
				}
				l.sent = append(l.sent, what)
			}
			l.mu.Unlock()
			return next.RoundTrip(req)
		})
	}
}

// mutationField names the root field of a GraphQL mutation body.
func mutationField(body string) string {
	q := body[strings.Index(body, "mutation"):]
	q = q[strings.Index(q, "{")+1:]
	for {
		t := strings.TrimLeft(q, " \t")
		t = strings.TrimPrefix(t, `\n`)
		if t == q {
			break
		}
		q = t
	}
	if j := strings.IndexAny(q, "( {"); j > 0 {
		return q[:j]
	}
	return q
}

// effectWrites are the writes that are a decision's effects, as opposed to
// the record's own writes (the status comment, the state branch).
var effectWrites = []string{"addReaction", "removeReaction", "addLabelsToLabelable", "removeLabelsFromLabelable", "addDiscussionComment", "/dispatches"}

// TestConflict_losing_decision_sends_no_effect: a run decides (a
// maintainer's /recess retry on an escalated discussion: a reaction, the
// escalated label removed, a dispatch), and before it writes another run
// makes and carries out the same decision. The first run's write loses; it
// decides again from a fresh read, finds the work done, and nothing of its
// lost decision reaches GitHub.
func TestConflict_losing_decision_sends_no_effect(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			w := New(t, Options{Store: store, Maintainers: []string{"maya"}})
			n, id := w.Open("alice")
			must(t)(w.Engine(nil).Engine.Intake(ctx, n))
			for attempt := 0; attempt < 2; attempt++ {
				if attempt > 0 {
					w.Advance(time.Hour)
					must(t)(w.Engine(nil).Engine.Sweep(ctx))
				}
				w.Fail(w.Waiting()[0], "failure")
			}
			w.Advance(time.Hour)
			if res := must(t)(w.Engine(nil).Engine.Sweep(ctx)); len(res.Warnings) == 0 {
				t.Fatalf("sweep after two failed runs: no escalation (%v)", res.Notes)
			}
			runs := len(w.Runs())
			w.Advance(time.Minute)
			w.Say(id, "", "maya", "/recess retry")

			var log sentLog
			armed := false
			second := 0
			// The other run does its whole work just before this run's
			// second request: after this run read the record and the
			// discussion, before anything it decided goes out.
			e := w.Engine(func(next http.RoundTripper) http.RoundTripper {
				logged := log.record(&armed)(next)
				return roundTripFunc(func(req *http.Request) (*http.Response, error) {
					second++
					if second == 2 {
						must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
						armed = true
					}
					return logged.RoundTrip(req)
				})
			}).Engine
			res := must(t)(e.Inbound(ctx, n))

			if got := len(w.Runs()) - runs; got != 1 {
				t.Errorf("agent runs dispatched for one /recess retry = %d, want 1", got)
			}
			if res.Dispatched {
				t.Errorf("the losing run reports a dispatch of its own (%s)", res.CorrelationID)
			}
			if !armed {
				t.Fatalf("the other run never slipped in; the test did not race")
			}
			for _, s := range log.sent {
				for _, f := range effectWrites {
					if s == f || strings.HasSuffix(s, f) {
						t.Errorf("the losing run sent %s after the other run decided first", s)
					}
				}
			}
		})
	}
}

func TestMutationField(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"query":"mutation($input:AddReactionInput!){addReaction(input:$input){reaction{content}}}","variables":{}}`: "addReaction",
		`{"query":"mutation{updateDiscussionComment(input:{}){comment{id}}}"}`:                                        "updateDiscussionComment",
	} {
		if got := mutationField(body); got != want {
			t.Errorf("mutationField(%q) = %q, want %q", body, got, want)
		}
	}
}
