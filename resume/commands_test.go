package resume_test

import (
	"strings"
	"testing"

	"github.com/recess-action/recess/resume"
)

// A maintainer's refused command says why and counts toward nothing; the
// words after an accepted command's line are a reply.
func TestCommands_refused_count_for_nothing_text_after_accepted_counts(t *testing.T) {
	t.Parallel()
	t.Run("refused_command_counts_for_nothing_and_says_why", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		e := w.engine(resume.Config{})
		n := w.recessed(t, e, `{"kind":"missing_input","replies":1}`, "which backend?")
		id := w.say(n, "maya", "OWNER", "", "/recess frobnicate\nwe should use postgres")
		res := mustRun(t)(e.Inbound(ctx, n))
		if res.Fired {
			t.Errorf("a refused command's comment counted as the awaited reply (notes %q)", res.Notes)
		}
		if !w.reactions[id][resume.Confused] {
			t.Errorf("no 😕 on the refused command")
		}
		why := 0
		for _, c := range w.mine(n) {
			if c.Root == id && strings.Contains(c.Body, "frobnicate is not a recess command") {
				why++
			}
		}
		if why != 1 {
			t.Errorf("replies saying why the command was refused = %d, want 1", why)
		}
		later := w.say(n, "bob", "NONE", "", "postgres, then")
		if res := mustRun(t)(e.Inbound(ctx, n)); !res.Fired {
			t.Fatalf("the reply after the refused command did not fire (notes %q)", res.Notes)
		}
		if h := w.resumeContext(t, 1).HistorySince; len(h) != 1 || h[0].ID != later {
			t.Errorf("history_since = %+v, want only bob's reply %s", h, later)
		}
	})
	t.Run("text_after_an_accepted_command", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		e := w.engine(resume.Config{})
		n := w.recessed(t, e, `{"kind":"all","of":[{"kind":"escalation_needed","signal":"security"},{"kind":"missing_input","replies":1}]}`, "security review?")
		id := w.say(n, "maya", "MEMBER", "", "/recess signal security\n\nReviewed: the token never leaves the runner.")
		res := mustRun(t)(e.Inbound(ctx, n))
		if !res.Fired {
			t.Fatalf("the signal and the words after it did not fire all(signal, 1 reply) (notes %q)", res.Notes)
		}
		h := w.resumeContext(t, 1).HistorySince
		if len(h) != 1 || h[0].ID != id || h[0].Body != "Reviewed: the token never leaves the runner." {
			t.Errorf("history_since = %+v, want the words after the command line", h)
		}
	})
	t.Run("bare_accepted_command_is_not_a_reply", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		e := w.engine(resume.Config{})
		n := w.recessed(t, e, `{"kind":"missing_input","replies":1}`, "anyone?")
		w.say(n, "maya", "OWNER", "", "/recess status")
		if res := mustRun(t)(e.Inbound(ctx, n)); res.Fired {
			t.Errorf("a bare /recess status counted as a reply")
		}
	})
}
