package resume

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// humanTime is how moments are shown to people: "Mon 23 Nov 12:00 UTC".
func humanTime(t time.Time) string { return t.UTC().Format("Mon 2 Jan 15:04 UTC") }

// status is the visible text of the record: what recess waits for, in plain
// words. It changes only when the picture changes (a new reply, a fire, an
// escalation), never with the clock, so an unchanged picture costs no write.
func (p *pass) status() string {
	return p.statusLine() + "\n\n<sub>This comment is kept up to date by recess. Maintainers: `/recess status`, `cancel`, `resume`, `signal NAME`, `retry`, `extend DURATION`.</sub>"
}

// statusLine is the one-line status.
func (p *pass) statusLine() string {
	r := p.rec
	switch {
	case r.Active != nil && r.Active.State == state.RunEscalated:
		reason := ""
		if r.Escalated != nil {
			reason = ": " + r.Escalated.Reason
		}
		return "⚠️ Escalated" + reason + ". No agent runs start until a maintainer says `/recess retry`."
	case r.Active != nil:
		what := "An agent run is working on this discussion"
		if res := r.Active.Resume; res != nil {
			what = fmt.Sprintf("Resumed (%s); an agent run is working on this discussion", firedByWords(res.FiredBy))
		}
		if r.Active.Attempt > 1 {
			what += fmt.Sprintf(" (attempt %d of %d)", r.Active.Attempt, p.cfg.MaxAttempts)
		}
		return "▶️ " + what + "."
	case len(r.OpenRFCs) > 0:
		var parts []string
		for _, id := range sortedRFCs(r) {
			rfc := r.OpenRFCs[id]
			t := rfc.Trigger
			o := p.observedFor(id, rfc)
			parts = append(parts, describe(t, o))
		}
		return "⏸️ Waiting for " + strings.Join(parts, "; and for ") + "."
	case r.Queued != nil:
		return "⏳ A reply is owed and queued until " + humanTime(r.Queued.Until) + ": " + r.Queued.Reason + "."
	case r.Closed != "":
		return "⏹️ Not waiting any more: " + r.Closed + "."
	default:
		return "✅ Not waiting for anything."
	}
}

func firedByWords(by string) string {
	switch by {
	case wait.KindMissingInput:
		return "the replies it waited for arrived"
	case wait.KindElapsed:
		return "the time it waited for has passed"
	case wait.KindEscalationNeeded:
		return "a maintainer's signal arrived"
	case wait.FiredByExpired:
		return "the wait expired"
	case wait.FiredByManual:
		return "a maintainer said /recess resume"
	case wait.FiredByRetry:
		return "retrying after a failed run"
	default:
		return by
	}
}

func sortedRFCs(r *state.Record) []string {
	ids := make([]string, 0, len(r.OpenRFCs))
	for id := range r.OpenRFCs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// describe says in plain words what a trigger still waits for:
// "1 more reply (1 of 2) or until Mon 23 Nov 12:00 UTC".
func describe(t *wait.Trigger, o wait.Observed) string {
	s := describeNode(t, o)
	if t.Expires != nil {
		at := wait.Moment(*t.Expires, o)
		if t.OnExpire == wait.OnExpireCancel {
			s += " (giving up " + humanTime(at) + ")"
		} else {
			s += " (resuming anyway " + humanTime(at) + ")"
		}
	}
	return s
}

func describeNode(t *wait.Trigger, o wait.Observed) string {
	switch t.Kind {
	case wait.KindMissingInput:
		have := wait.CountReplies(t, o)
		need := t.Replies - have
		if need < 0 {
			need = 0
		}
		word := "replies"
		if need == 1 {
			word = "reply"
		}
		s := fmt.Sprintf("%d more %s", need, word)
		if len(t.From) > 0 {
			s += " from @" + strings.Join(t.From, " or @")
		}
		if t.Scope == wait.ScopeThread {
			s += " in recess's thread"
		}
		return s + fmt.Sprintf(" (%d of %d)", min(have, t.Replies), t.Replies)
	case wait.KindElapsed:
		return "until " + humanTime(wait.Moment(*t.Elapsed, o))
	case wait.KindEscalationNeeded:
		return fmt.Sprintf("a maintainer's `/recess signal %s`", t.Signal)
	case wait.KindAny, wait.KindAll:
		sep := " or "
		if t.Kind == wait.KindAll {
			sep = " and "
		}
		parts := make([]string, 0, len(t.Of))
		for _, c := range t.Of {
			parts = append(parts, describe(c, o))
		}
		return strings.Join(parts, sep)
	}
	return t.Kind
}

func containsID(list []string, id string) bool {
	if id == "" {
		return false
	}
	for _, x := range list {
		if x == id {
			return true
		}
	}
	return false
}

// Status reports the discussion's open recesses without changing anything.
func (e *Engine) Status(ctx context.Context, number int) (*Result, error) {
	return e.run(ctx, number, passOpts{command: "status", discussion: true}, func(p *pass) error {
		if p.isNew {
			p.res.note("recess has no record of discussion %d", number)
			return nil
		}
		if p.d == nil {
			return fmt.Errorf("read discussion %d: %w", number, p.snap.dErr)
		}
		for id, rfc := range p.rec.OpenRFCs {
			t := rfc.Trigger
			if p.evals == nil {
				p.evals, p.observed = map[string]wait.Evaluation{}, map[string]wait.Observed{}
			}
			o := p.observe(rfc)
			p.evals[id], p.observed[id] = wait.Evaluate(t, o, p.now), o
		}
		p.res.note("%s", p.statusLine())
		return nil
	})
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
	res.note("%d discussion(s) with something pending", len(list))
	return res, nil
}
