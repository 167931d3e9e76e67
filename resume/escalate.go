package resume

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// checkActive looks after the active run: an unconfirmed intent is looked up
// and redone (or left to the run that started it, within its grace), a run
// that ended without a verdict is retried or escalated, an escalation waits
// for "/recess retry" (or, for a dispatch GitHub refused, for the setup to
// change: see blocked).
func (f *facts) checkActive(rec *state.Record, retry bool) (plan, error) {
	a := rec.Active
	if a == nil {
		return plan{}, nil
	}
	run, err := f.s.run.v, f.s.run.err
	switch {
	case a.State == state.RunDispatching && !f.s.run.read:
		// Not looked up (see looksUp): still within its grace, or its
		// retry delay after a failed call.
		age := f.now.Sub(a.IntentAt).Round(time.Second)
		if a.DispatchErrors == 0 {
			return noted("a dispatch (%s) was started %s ago and is not confirmed yet; leaving it to the run that started it", a.CorrelationID, age), nil
		}
		return noted("the last dispatch call for %s failed %s ago; trying again after %s", a.CorrelationID, age, f.cfg.RetryDelay), nil
	case a.State == state.RunDispatching && err == nil:
		a.State, a.RunID, a.DispatchedAt = state.RunDispatched, run.ID, f.now
		a.LastError = ""
		return noted("found run %d for the unconfirmed dispatch %s: confirmed", run.ID, a.CorrelationID), nil
	case a.State == state.RunDispatching && errors.Is(err, ErrNotFound):
		p := noted("no run exists for the unconfirmed dispatch %s: sending it again", a.CorrelationID)
		p.dispatch = &dispatchPlan{run: a}
		return p, nil
	case a.State == state.RunDispatching:
		return warned("could not look up the run of %s: %v (a later run retries)", a.CorrelationID, err), nil
	case a.State == state.RunDispatched && !f.s.run.read:
	case a.State == state.RunDispatched && errors.Is(err, ErrNotFound):
		if f.now.Sub(a.DispatchedAt) >= f.cfg.DispatchGrace {
			return f.failed(rec, a, "the agent run cannot be found"), nil
		}
	case a.State == state.RunDispatched && err != nil:
		return warned("could not look up agent run %d (%s): %v", a.RunID, a.CorrelationID, err), nil
	case a.State == state.RunDispatched:
		if a.RunID == 0 {
			a.RunID = run.ID
		}
		if run.Status == "completed" {
			return f.failed(rec, a, fmt.Sprintf("agent run %d ended (%s) without a verdict", run.ID, cmp.Or(run.Conclusion, "unknown"))), nil
		}
	case a.State == state.RunEscalated && !retry:
		why, p := f.blocked(rec)
		if why != "" {
			return f.lift(rec, a, why), nil
		}
		if !p.need.setup {
			p = p.with(f.notifyEscalation(rec, a))
		}
		return p, nil
	case a.State == state.RunEscalated:
		return f.lift(rec, a, "escalation lifted by /recess retry"), nil
	default:
		return plan{}, fmt.Errorf("record of discussion %d: active run in unknown state %q: %w", rec.Discussion, a.State, state.ErrCorrupt)
	}
	return plan{}, nil
}

// blocked says why a dispatch GitHub refused for a reason no retry fixes
// may go through now: the setup it was refused under (Record.Blocked)
// changed. "" when nothing changed (or it could not be told), or the
// escalation is of another kind; the decision then asks for the setup
// first (need.setup) when it has not read it.
func (f *facts) blocked(rec *state.Record) (string, plan) {
	was := rec.Blocked()
	switch {
	case was == "":
		return "", plan{}
	case !f.s.setup.read:
		return "", plan{need: need{setup: true}}
	case f.s.setup.err != nil:
		return "", warned("could not tell whether the agent workflow changed since GitHub refused to start it (%v); the next run looks again", f.s.setup.err)
	case f.s.setup.v == was:
		return "", plan{}
	}
	return "the agent workflow's setup changed since GitHub refused to start it", plan{}
}

// lift ends an escalation and dispatches again: what was owed, with what
// was said while automatic runs were stopped. A dispatch GitHub refused
// never started a run, so nothing of it was used up: it goes again as it
// was (its attempt, what fired it). After failed runs, it is a retry.
func (f *facts) lift(rec *state.Record, a *state.Run, why string) plan {
	var next *state.Run
	if rec.Blocked() != "" {
		next = f.intent(a.Since, a.Resume)
		next.Attempt = a.Attempt
	} else {
		next = f.nextAttempt(a, 1)
	}
	next.Until = maxCursor(a.Until, newest(f.d))
	rec.Escalated = nil
	p := noted("%s: dispatching again", why).with(after(Effect{Kind: EffectUnlabel, Label: LabelEscalated}))
	p.dispatch = &dispatchPlan{run: next}
	return p
}

// refused escalates a dispatch GitHub refused for a reason no retry fixes
// (ErrNoWorkflow, ErrDispatchRefused), once: the escalation remembers the
// setup it was refused under, and waits for it to change (see blocked) or
// for "/recess retry". People read what happened in plain words; what
// GitHub answered is for the maintainer (the run's error and annotation,
// the record's last error).
func (f *facts) refused(rec *state.Record, a *state.Run, derr error) plan {
	setup := f.s.setup.v
	if f.s.setup.err != nil || setup == "" {
		setup = setupUnknown
	}
	why := "GitHub refused to start the agent workflow; the recess run's log says why"
	if errors.Is(derr, ErrNoWorkflow) {
		why = "the agent workflow recess is set to start is not in this repository"
	}
	p := f.escalate(rec, a, why, setup)
	a.LastError = text.ClipBytes(derr.Error(), maxErrorText)
	return p
}

// permanent reports a dispatch error GitHub answers the same way until a
// person changes the setup (see refused).
func permanent(err error) bool {
	return errors.Is(err, ErrNoWorkflow) || errors.Is(err, ErrDispatchRefused)
}

// failed retries a run that ended without a verdict, or escalates.
func (f *facts) failed(rec *state.Record, a *state.Run, why string) plan {
	if a.Attempt >= f.cfg.MaxAttempts {
		return f.escalate(rec, a, fmt.Sprintf("%s; %d of %d attempts used", why, a.Attempt, f.cfg.MaxAttempts), "")
	}
	p := noted("%s: dispatching attempt %d of %d", why, a.Attempt+1, f.cfg.MaxAttempts)
	next := f.nextAttempt(a, a.Attempt+1)
	next.LastError = why
	p.dispatch = &dispatchPlan{run: next}
	return p
}

// nextAttempt is a new dispatch of the same work: a new correlation id, the
// same history and resume_context, fired_by "retry".
func (f *facts) nextAttempt(a *state.Run, attempt int) *state.Run {
	next := &state.Run{
		CorrelationID: f.cfg.NewResumeID(),
		State:         state.RunDispatching,
		Since:         a.Since,
		Until:         a.Until,
		Attempt:       attempt,
		EyesOn:        a.EyesOn,
	}
	if a.Resume != nil {
		r := *a.Resume
		r.FiredBy = wait.FiredByRetry
		next.Resume = &r
	}
	return next
}

// escalate stops automatic dispatches until a maintainer says
// "/recess retry" (or, with a setup, until it changes: see refused): a
// comment that mentions escalate-to, and a label.
func (f *facts) escalate(rec *state.Record, a *state.Run, reason, setup string) plan {
	a.State = state.RunEscalated
	a.LastError = reason
	rec.Escalated = &state.Escalation{At: f.now, Reason: reason, Setup: setup}
	p := warned("escalated: %s", reason).with(f.notifyEscalation(rec, a), after(Effect{Kind: EffectLabel, Label: LabelEscalated}))
	if a.EyesOn != "" {
		p = p.with(after(Effect{Kind: EffectUnreact, Subject: a.EyesOn, Reaction: Eyes}))
		a.EyesOn = ""
	}
	return p
}

// notifyEscalation owes the escalation comment, which mentions escalate-to.
// Every decision over an escalated run owes it again, so a run that died
// after recording the escalation and before posting it is made good; the
// marker keeps it to one comment.
func (f *facts) notifyEscalation(rec *state.Record, a *state.Run) plan {
	reason := a.LastError
	if rec.Escalated != nil {
		reason = rec.Escalated.Reason
	}
	key, mentions := "note.escalated", ""
	if rec.Blocked() != "" {
		// Nobody to mention: what to do instead (see told).
		key, mentions = "note.blocked", " "+f.text("status.untold")
	}
	if m := mentionList(f.cfg.EscalateTo); m != "" {
		mentions = " " + m + ", please take a look."
	}
	return notify(a.CorrelationID+".escalated", "", f.text(key, "reason", reason, "mentions", mentions))
}

// told says, in the status of a dispatch GitHub refused, whether anyone
// was told: a maintainer only when escalate-to names someone (the note
// mentions them), and otherwise what to do instead.
func (f *facts) told() string {
	if mentionList(f.cfg.EscalateTo) != "" {
		return f.text("status.told")
	}
	return f.text("status.untold")
}

func mentionList(logins []string) string {
	var m []string
	for _, l := range logins {
		if l != "" {
			m = append(m, "@"+strings.TrimPrefix(l, "@"))
		}
	}
	return strings.Join(m, " ")
}
