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
func (p *pass) checkActive(retry bool) error {
	a := p.rec.Active
	if a == nil {
		return nil
	}
	run, err := p.snap.run, p.snap.runErr
	switch {
	case a.State == state.RunDispatching && !p.snap.looked:
		// Not looked up (see looksUp): still within its grace, or its
		// retry delay after a failed call.
		age := p.now.Sub(a.IntentAt).Round(time.Second)
		if a.DispatchErrors == 0 {
			p.res.note("a dispatch (%s) was started %s ago and is not confirmed yet; leaving it to the run that started it", a.CorrelationID, age)
		} else {
			p.res.note("the last dispatch call for %s failed %s ago; trying again after %s", a.CorrelationID, age, p.cfg.RetryDelay)
		}
	case a.State == state.RunDispatching && err == nil:
		a.State, a.RunID, a.DispatchedAt = state.RunDispatched, run.ID, p.now
		a.LastError = ""
		p.res.note("found run %d for the unconfirmed dispatch %s: confirmed", run.ID, a.CorrelationID)
	case a.State == state.RunDispatching && errors.Is(err, ErrNotFound):
		p.res.note("no run exists for the unconfirmed dispatch %s: sending it again", a.CorrelationID)
		p.plan = &dispatchPlan{run: a}
	case a.State == state.RunDispatching:
		p.res.warn("could not look up the run of %s: %v (a later run retries)", a.CorrelationID, err)
	case a.State == state.RunDispatched && !p.snap.looked:
	case a.State == state.RunDispatched && errors.Is(err, ErrNotFound):
		if p.now.Sub(a.DispatchedAt) >= p.cfg.DispatchGrace {
			p.failed(a, "the agent run cannot be found")
		}
	case a.State == state.RunDispatched && err != nil:
		p.res.warn("could not look up agent run %d (%s): %v", a.RunID, a.CorrelationID, err)
	case a.State == state.RunDispatched:
		if a.RunID == 0 {
			a.RunID = run.ID
		}
		if run.Status == "completed" {
			p.failed(a, fmt.Sprintf("agent run %d ended (%s) without a verdict", run.ID, cmp.Or(run.Conclusion, "unknown")))
		}
	case a.State == state.RunEscalated && !retry:
		if why := p.blocked(); why != "" {
			p.lift(a, why)
			return nil
		}
		if !p.needSetup {
			p.notifyEscalation(a)
		}
	case a.State == state.RunEscalated:
		p.lift(a, "escalation lifted by /recess retry")
	default:
		return fmt.Errorf("record of discussion %d: active run in unknown state %q: %w", p.rec.Discussion, a.State, state.ErrCorrupt)
	}
	return nil
}

// blocked says why a dispatch GitHub refused for a reason no retry fixes
// may go through now: the setup it was refused under (Record.Blocked)
// changed. "" when nothing changed (or it could not be told), or the
// escalation is of another kind; the decision then asks for the setup
// first (needSetup) when it has not read it.
func (p *pass) blocked() string {
	was := p.rec.Blocked()
	switch {
	case was == "":
		return ""
	case !p.snap.haveSetup:
		p.needSetup = true
		return ""
	case p.snap.setupErr != nil:
		p.res.warn("could not tell whether the agent workflow changed since GitHub refused to start it (%v); the next run looks again", p.snap.setupErr)
		return ""
	case p.snap.setup == was:
		return ""
	}
	return "the agent workflow's setup changed since GitHub refused to start it"
}

// lift ends an escalation and dispatches again: what was owed, with what
// was said while automatic runs were stopped. A dispatch GitHub refused
// never started a run, so nothing of it was used up: it goes again as it
// was (its attempt, what fired it). After failed runs, it is a retry.
func (p *pass) lift(a *state.Run, why string) {
	var next *state.Run
	if p.rec.Blocked() != "" {
		next = &state.Run{State: state.RunDispatching, Since: a.Since, Attempt: a.Attempt,
			Resume: a.Resume, EyesOn: p.eyesSubject(a.Since), CorrelationID: p.cfg.NewID()}
		if a.Resume != nil {
			next.CorrelationID = p.cfg.NewResumeID()
		}
	} else {
		next = p.nextAttempt(a, 1)
	}
	next.Until = maxCursor(a.Until, newest(p.d))
	p.rec.Escalated = nil
	p.plan = &dispatchPlan{run: next}
	p.res.note("%s: dispatching again", why)
	p.add(Effect{Kind: EffectUnlabel, Label: LabelEscalated})
}

// refused escalates a dispatch GitHub refused for a reason no retry fixes
// (ErrNoWorkflow, ErrDispatchRefused), once: the escalation remembers the
// setup it was refused under, and waits for it to change (see blocked) or
// for "/recess retry". People read what happened in plain words; what
// GitHub answered is for the maintainer (the run's error and annotation,
// the record's last error).
func (p *pass) refused(a *state.Run, derr error) {
	setup := p.snap.setup
	if p.snap.setupErr != nil || setup == "" {
		setup = setupUnknown
	}
	why := "GitHub refused to start the agent workflow; the recess run's log says why"
	if errors.Is(derr, ErrNoWorkflow) {
		why = "the agent workflow recess is set to start is not in this repository"
	}
	p.escalate(a, why, setup)
	a.LastError = text.ClipBytes(derr.Error(), maxErrorText)
}

// permanent reports a dispatch error GitHub answers the same way until a
// person changes the setup (see refused).
func permanent(err error) bool {
	return errors.Is(err, ErrNoWorkflow) || errors.Is(err, ErrDispatchRefused)
}

// failed retries a run that ended without a verdict, or escalates.
func (p *pass) failed(a *state.Run, why string) {
	if a.Attempt >= p.cfg.MaxAttempts {
		p.escalate(a, fmt.Sprintf("%s; %d of %d attempts used", why, a.Attempt, p.cfg.MaxAttempts), "")
		return
	}
	p.res.note("%s: dispatching attempt %d of %d", why, a.Attempt+1, p.cfg.MaxAttempts)
	next := p.nextAttempt(a, a.Attempt+1)
	next.LastError = why
	p.plan = &dispatchPlan{run: next}
}

// nextAttempt is a new dispatch of the same work: a new correlation id, the
// same history and resume_context, fired_by "retry".
func (p *pass) nextAttempt(a *state.Run, attempt int) *state.Run {
	next := &state.Run{
		CorrelationID: p.cfg.NewResumeID(),
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
func (p *pass) escalate(a *state.Run, reason, setup string) {
	a.State = state.RunEscalated
	a.LastError = reason
	p.rec.Escalated = &state.Escalation{At: p.now, Reason: reason, Setup: setup}
	p.res.warn("escalated: %s", reason)
	p.notifyEscalation(a)
	p.add(Effect{Kind: EffectLabel, Label: LabelEscalated})
	if a.EyesOn != "" {
		p.add(Effect{Kind: EffectUnreact, Subject: a.EyesOn, Reaction: Eyes})
		a.EyesOn = ""
	}
}

// notifyEscalation owes the escalation comment, which mentions escalate-to.
// Every pass over an escalated run owes it again, so a run that died after
// recording the escalation and before posting it is made good; the marker
// keeps it to one comment.
func (p *pass) notifyEscalation(a *state.Run) {
	reason := a.LastError
	if p.rec.Escalated != nil {
		reason = p.rec.Escalated.Reason
	}
	key, mentions := "note.escalated", ""
	if p.rec.Blocked() != "" {
		// Nobody to mention: what to do instead (see told).
		key, mentions = "note.blocked", " "+p.text("status.untold")
	}
	if m := mentionList(p.cfg.EscalateTo); m != "" {
		mentions = " " + m + ", please take a look."
	}
	p.notify(a.CorrelationID+".escalated", "", p.text(key, "reason", reason, "mentions", mentions))
}

// told says, in the status of a dispatch GitHub refused, whether anyone
// was told: a maintainer only when escalate-to names someone (the note
// mentions them), and otherwise what to do instead.
func (p *pass) told() string {
	if mentionList(p.cfg.EscalateTo) != "" {
		return p.text("status.told")
	}
	return p.text("status.untold")
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
