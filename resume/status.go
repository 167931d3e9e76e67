package resume

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// humanTime is how moments are shown to people: "Mon 23 Nov 12:00 UTC".
func humanTime(t time.Time) string { return t.UTC().Format("Mon 2 Jan 15:04 UTC") }

// status is the visible text of the record: what recess waits for and
// why, in plain words. It changes only when the picture changes (a new
// reply, a fire, an escalation), never with the clock, so an unchanged
// picture costs no write. With nothing pending it shrinks to one small
// line, so that it does not clutter the discussion.
func (f *facts) status(rec *state.Record, obs observations) string {
	line := f.statusLine(rec, obs)
	if !rec.Pending() {
		return "<sub>" + line + "</sub>"
	}
	return line + "\n\n<sub>" + f.text("status.footer") + "</sub>"
}

// statusLine is the status in a sentence or a few: the answer to
// "/recess status" too. obs are what its open recesses' triggers see.
func (f *facts) statusLine(r *state.Record, obs observations) string {
	switch {
	case r.Blocked() != "":
		return f.text("status.blocked", "reason", r.Escalated.Reason, "told", f.told())
	case r.Active != nil && r.Active.State == state.RunEscalated:
		reason := "the agent runs kept failing"
		if r.Escalated != nil {
			reason = r.Escalated.Reason
		}
		return f.text("status.escalated", "reason", reason)
	case r.Active != nil:
		run := ""
		if r.Active.RunID != 0 && f.cfg.RepositoryURL != "" {
			run = fmt.Sprintf(" ([agent run](%s/actions/runs/%d))", strings.TrimSuffix(f.cfg.RepositoryURL, "/"), r.Active.RunID)
		}
		line := f.text("status.working", "run", run)
		if res := r.Active.Resume; res != nil {
			line = f.text("status.resumed", "why", firedByWords(res.FiredBy), "run", run)
		}
		if r.Active.Attempt > 1 {
			line += " " + f.text("status.attempt", "attempt", fmt.Sprint(r.Active.Attempt), "attempts", fmt.Sprint(f.cfg.MaxAttempts))
		}
		return line
	case len(r.OpenRFCs) > 0:
		var lines []string
		for _, id := range sortedRFCs(r) {
			rfc := r.OpenRFCs[id]
			line := f.text("status.waiting", "what", Describe(rfc.Trigger, obs[id]))
			if rfc.Summary != "" && !f.cfg.HideSummary {
				line += "\n" + f.text("status.why", "summary", rfc.Summary)
			}
			lines = append(lines, line)
		}
		return strings.Join(lines, "\n\n")
	case r.Queued != nil:
		return f.text("status.queued", "until", humanTime(r.Queued.Until), "reason", r.Queued.Reason)
	case r.Closed != "":
		return f.text("status.closed", "reason", r.Closed)
	default:
		return f.text("status.idle")
	}
}

// firedBy says what woke a run: for people, in the status comment, and
// for the agent, in its prompt.
var firedBy = map[string]struct{ people, agent string }{
	wait.KindMissingInput:     {"the replies it waited for arrived", "the replies you waited for arrived (`missing_input`)"},
	wait.KindElapsed:          {"the time it waited for has passed", "the time you waited for has passed (`elapsed`)"},
	wait.KindEscalationNeeded: {"a maintainer's signal arrived", "a maintainer sent the signal you waited for (`escalation_needed`)"},
	wait.FiredByExpired:       {"the wait ran out", "your wait expired before its trigger fired, and you asked to be resumed then (`expired`)"},
	wait.FiredByManual:        {"a maintainer said `/recess resume`", "a maintainer said `/recess resume`: they want an answer now, whatever you waited for (`manual`)"},
	wait.FiredByRetry:         {"the last agent run ended without an answer", "the run that was resumed before ended without a verdict (it failed or was cancelled); this run gets the same context again (`retry`)"},
	FiredByIntake:             {"", "people wrote after your last answer (`intake`)"},
	"":                        {"", "not said"},
}

func firedByWords(by string) string {
	if w := firedBy[by].people; w != "" {
		return w
	}
	return EscapeMarkdown(by)
}

// sortedRFCs are the ids of the record's open recesses, sorted.
func sortedRFCs(r *state.Record) []string { return slices.Sorted(maps.Keys(r.OpenRFCs)) }

// Describe says in plain words what a trigger still waits for, given what
// was observed, as it reads after "Waiting": "for 1 more reply (1 of 2 so
// far), or until Mon 23 Nov 12:00 UTC".
func Describe(t *wait.Trigger, o wait.Observed) string {
	s := triggerWords(t, &o, false)
	if t.Expires != nil {
		at := humanTime(wait.Moment(*t.Expires, o))
		if t.OnExpire == wait.OnExpireCancel {
			s += "; if nothing fires it by " + at + ", the wait ends there"
		} else {
			s += "; at " + at + " the agent resumes anyway"
		}
	}
	return s
}

// triggerWords is the one place a trigger is put into words, for either of
// two readers. For people (o given) it says what the trigger still waits
// for, given what was observed, with moments, as it reads after "Waiting"
// ("for 1 more reply (1 of 2 so far)", "until Mon 23 Nov 12:00 UTC");
// Describe adds when the whole wait ends. For the agent's prompt (o nil),
// which does not hold when the recess opened, it says what the agent asked
// for, with durations, as it reads after "You waited for" ("2 replies",
// "P2D to pass, giving up after P30D"). nested is true inside any or all.
func triggerWords(t *wait.Trigger, o *wait.Observed, nested bool) string {
	agent := o == nil
	var s string
	switch t.Kind {
	case wait.KindMissingInput:
		if agent {
			s = text.Count(t.Replies, "reply", "replies") + fromWords(t, "your own replies")
		} else if have := min(wait.CountReplies(t, *o), t.Replies); have == t.Replies {
			s = "for nothing more (" + text.Count(have, "reply is", "replies are") + " in)"
		} else {
			s = "for " + text.Count(t.Replies-have, "more reply", "more replies") + fromWords(t, "recess's question") +
				fmt.Sprintf(" (%d of %d so far)", have, t.Replies)
		}
	case wait.KindElapsed:
		if agent {
			s = t.Elapsed.String() + " to pass"
		} else {
			s = "until " + humanTime(wait.Moment(*t.Elapsed, *o))
		}
	case wait.KindEscalationNeeded:
		if agent {
			s = "a maintainer's `/recess signal " + t.Signal + "`"
		} else {
			s = "for a maintainer to say `/recess signal " + t.Signal + "`"
		}
	case wait.KindAny, wait.KindAll:
		s = compositeWords(t, o, nested)
	default:
		s = t.Kind
	}
	switch {
	case t.Expires == nil:
	case agent && t.OnExpire == wait.OnExpireCancel:
		s += ", giving up after " + t.Expires.String()
	case agent:
		s += ", resuming anyway after " + t.Expires.String()
	case nested:
		at := humanTime(wait.Moment(*t.Expires, *o))
		more := "this part ends " + at
		if t.OnExpire != wait.OnExpireCancel {
			more = "or " + at + " anyway"
		}
		if strings.HasSuffix(s, ")") {
			s = strings.TrimSuffix(s, ")") + "; " + more + ")"
		} else {
			s += " (" + more + ")"
		}
	}
	return s
}

// fromWords says whose replies missing_input counts and where: " from @a or
// @b under recess's question".
func fromWords(t *wait.Trigger, question string) string {
	var s string
	if len(t.From) > 0 {
		s = " from @" + strings.Join(t.From, " or @")
	}
	if t.Scope == wait.ScopeThread {
		s += " under " + question
	}
	return s
}

// compositeWords says any or all in words (see triggerWords). For people,
// a child all already has is said after the rest, and a nested any or all
// reads last, as one clause.
func compositeWords(t *wait.Trigger, o *wait.Observed, nested bool) string {
	word, lead := "or", "either "
	if t.Kind == wait.KindAll {
		word, lead = "and", "both "
	}
	if o == nil {
		parts := make([]string, 0, len(t.Of))
		for _, c := range t.Of {
			parts = append(parts, triggerWords(c, nil, true))
		}
		s := strings.Join(parts, " "+word+" ")
		if len(t.Of) > 1 {
			s = "(" + s + ")"
		}
		return s
	}
	var parts, composite []string
	in := 0
	for _, c := range t.Of {
		switch {
		case c.Kind == wait.KindMissingInput && t.Kind == wait.KindAll && wait.CountReplies(c, *o) >= c.Replies:
			in += c.Replies
		case c.Kind == wait.KindAny || c.Kind == wait.KindAll:
			composite = append(composite, triggerWords(c, o, true))
		default:
			parts = append(parts, triggerWords(c, o, true))
		}
	}
	parts = append(parts, composite...)
	var s string
	if nested && len(parts) == 2 {
		s = lead + parts[0] + " " + word + " " + parts[1]
	} else {
		s = joinWords(parts, word)
	}
	switch {
	case in == 1:
		s += " (the reply it wanted is in)"
	case in > 1:
		s += fmt.Sprintf(" (the %d replies it wanted are in)", in)
	}
	return s
}

// joinWords joins phrases as a sentence does: "a", "a or b", "a, b, or c".
func joinWords(parts []string, word string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	case 2:
		return parts[0] + ", " + word + " " + parts[1]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + ", " + word + " " + parts[len(parts)-1]
}

// Status reports the discussion's open recesses without changing anything.
func (e *Engine) Status(ctx context.Context, number int) (*Result, error) {
	return e.run(ctx, number, input{command: "status", discussion: true, rule: func(f *facts, rec *state.Record) (plan, error) {
		p := plan{readOnly: true}
		if f.s.isNew {
			return p.with(noted("recess has no record of discussion %d", number)), nil
		}
		if f.d == nil {
			return p, fmt.Errorf("read discussion %d: %w", number, f.s.dErr)
		}
		p.obs, p.evals = f.observeAll(rec), map[string]wait.Evaluation{}
		for id, rfc := range rec.OpenRFCs {
			p.evals[id] = wait.Evaluate(rfc.Trigger, p.obs[id], f.now)
		}
		return p.with(noted("%s", f.statusLine(rec, p.obs))), nil
	}})
}

// StatusAll reports every discussion with something pending, without
// changing anything.
func (e *Engine) StatusAll(ctx context.Context) (*Result, error) {
	res := &Result{Command: "status"}
	list, err := e.Store.Pending(ctx)
	if err != nil {
		return res, fmt.Errorf("list pending discussions: %w", err)
	}
	for _, s := range list {
		r, err := e.Status(ctx, s.Discussion)
		if err != nil {
			return res, fmt.Errorf("discussion %d: %w", s.Discussion, err)
		}
		res.include(r)
	}
	res.note("%s with something pending", text.Count(len(list), "discussion", "discussions"))
	return res, nil
}
