package resume

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// Intake handles a new discussion (or a comment on a discussion with
// nothing pending): a fresh, rate-limited dispatch. It is the same
// reconciliation as Inbound: which one applies is decided from the record
// and the discussion, not from the event.
func (e *Engine) Intake(ctx context.Context, number int) (*Result, error) {
	return e.run(ctx, number, passOpts{command: "intake"}, (*pass).reconcile)
}

// Inbound handles a comment: it re-evaluates the discussion's open recesses
// and fires the ones whose trigger fired; otherwise the comment only
// accumulates. A comment on a discussion with nothing pending starts a fresh
// dispatch (see Intake).
func (e *Engine) Inbound(ctx context.Context, number int) (*Result, error) {
	return e.run(ctx, number, passOpts{command: "inbound"}, (*pass).reconcile)
}

// Reconcile is a sweep's visit of one discussion: like Inbound, and it also
// looks up the active agent run on GitHub.
func (e *Engine) Reconcile(ctx context.Context, number int) (*Result, error) {
	return e.run(ctx, number, passOpts{command: "sweep", checkRuns: true, sweep: true}, (*pass).reconcile)
}

// reconcile brings one discussion up to date. The order matters: commands
// first (they can cancel, fire or retry), then the active run, then the open
// recesses, then a fresh dispatch for anything nobody has answered.
func (p *pass) reconcile() error {
	p.pruneDispatches()
	if _, err := p.discussion(); err != nil {
		if errors.Is(err, ErrNotFound) {
			return p.gone("the discussion was deleted")
		}
		return fmt.Errorf("read discussion %d: %w", p.rec.Discussion, err)
	}
	if p.d.Closed || p.d.Locked {
		reason := "the discussion was closed"
		if p.d.Locked {
			reason = "the discussion was locked"
		}
		return p.gone(reason)
	}
	if p.rec.Closed != "" {
		// Reopened or unlocked: watch it again.
		p.rec.Closed = ""
	}
	if err := p.commands(); err != nil {
		return err
	}
	if err := p.checkActive(); err != nil {
		return err
	}
	if err := p.evaluate(); err != nil {
		return err
	}
	if err := p.intake(); err != nil {
		return err
	}
	return p.finish()
}

// gone expires every recess of a discussion that was closed, locked or
// deleted (expired, not resolved: nobody answered), and drops an owed
// dispatch. An active run is left to finish; its verdict is still accepted.
func (p *pass) gone(reason string) error {
	if len(p.rec.OpenRFCs) == 0 && p.rec.Queued == nil {
		if p.d != nil {
			return p.save()
		}
		return nil
	}
	for id := range p.rec.OpenRFCs {
		p.res.note("recess %s expired: %s", id, reason)
		delete(p.rec.OpenRFCs, id)
	}
	p.rec.Queued = nil
	p.rec.Closed = reason
	if p.d == nil {
		// Deleted: nothing to show people, only the record to update.
		p.rec.UpdatedAt = p.now
		if err := p.e.Store.Save(p.ctx, p.rec); err != nil {
			return fmt.Errorf("save record of discussion %d: %w", p.rec.Discussion, err)
		}
		return nil
	}
	return p.save()
}

func (p *pass) pruneDispatches() {
	keep := p.rec.Dispatches[:0:0]
	for _, t := range p.rec.Dispatches {
		if p.now.Sub(t) < time.Hour {
			keep = append(keep, t)
		}
	}
	if len(keep) > state.MaxDispatchTimes {
		keep = keep[len(keep)-state.MaxDispatchTimes:]
	}
	if len(keep) != len(p.rec.Dispatches) {
		p.rec.Dispatches = keep
	}
}

// checkActive looks after the active run: an unconfirmed intent is looked up
// and redone, a run that ended without a verdict is retried or escalated, an
// escalation waits for "/recess retry".
func (p *pass) checkActive() error {
	a := p.rec.Active
	if a == nil {
		return nil
	}
	switch a.State {
	case state.RunDispatching:
		return p.checkIntent(a)
	case state.RunDispatched:
		if !p.opts.checkRuns && p.now.Sub(a.DispatchedAt) < p.cfg.StaleRun {
			return nil
		}
		return p.checkRun(a)
	case state.RunEscalated:
		if !p.retry {
			p.notifyEscalation(a)
			return nil
		}
		p.rec.Escalated = nil
		next := p.nextAttempt(a, 1)
		// A maintainer's retry also hands over what was said while
		// automatic runs were stopped.
		next.Until = maxCursor(a.Until, newest(p.d))
		p.plan = &dispatchPlan{run: next}
		p.res.note("escalation lifted by /recess retry: dispatching again")
		if err := p.e.Discussions.Unlabel(p.ctx, p.d.ID, LabelEscalated); err != nil {
			p.res.warn("could not remove the %s label: %v", LabelEscalated, err)
		}
		return nil
	default:
		return fmt.Errorf("record of discussion %d: active run in unknown state %q: %w", p.rec.Discussion, a.State, state.ErrCorrupt)
	}
}

// checkIntent resolves a dispatch intent without confirmation: still in
// flight (young, no error), done after all (the run exists), or to be sent
// again.
func (p *pass) checkIntent(a *state.Run) error {
	age := p.now.Sub(a.IntentAt)
	if a.DispatchErrors == 0 && age < p.cfg.DispatchGrace {
		p.res.note("a dispatch (%s) was started %s ago and is not confirmed yet; leaving it to the run that started it", a.CorrelationID, age.Round(time.Second))
		return nil
	}
	if a.DispatchErrors > 0 && age < p.cfg.RetryDelay {
		p.res.note("the last dispatch call for %s failed %s ago; trying again after %s", a.CorrelationID, age.Round(time.Second), p.cfg.RetryDelay)
		return nil
	}
	run, err := p.e.Dispatcher.FindRun(p.ctx, a.CorrelationID)
	switch {
	case err == nil:
		a.State, a.RunID, a.DispatchedAt = state.RunDispatched, run.ID, p.now
		a.LastError = ""
		p.res.note("found run %d for the unconfirmed dispatch %s: confirmed", run.ID, a.CorrelationID)
		return nil
	case errors.Is(err, ErrNotFound):
		p.res.note("no run exists for the unconfirmed dispatch %s: sending it again", a.CorrelationID)
		p.plan = &dispatchPlan{run: a, redo: true}
		return nil
	default:
		p.res.warn("could not look up the run of %s: %v (a later run retries)", a.CorrelationID, err)
		return nil
	}
}

// checkRun asks GitHub how the active run is doing; one that ended without
// its verdict is retried up to max-attempts, then escalated.
func (p *pass) checkRun(a *state.Run) error {
	var run *WorkflowRun
	var err error
	if a.RunID != 0 {
		run, err = p.e.Dispatcher.Run(p.ctx, a.RunID)
	} else {
		run, err = p.e.Dispatcher.FindRun(p.ctx, a.CorrelationID)
	}
	if errors.Is(err, ErrNotFound) {
		if p.now.Sub(a.DispatchedAt) < p.cfg.DispatchGrace {
			return nil
		}
		return p.failed(a, "the agent run cannot be found")
	}
	if err != nil {
		p.res.warn("could not look up agent run %d (%s): %v", a.RunID, a.CorrelationID, err)
		return nil
	}
	if a.RunID == 0 {
		a.RunID = run.ID
	}
	if !run.Completed() {
		return nil
	}
	conclusion := run.Conclusion
	if conclusion == "" {
		conclusion = "unknown"
	}
	return p.failed(a, fmt.Sprintf("agent run %d ended (%s) without a verdict", run.ID, conclusion))
}

// failed retries a run that ended without a verdict, or escalates.
func (p *pass) failed(a *state.Run, why string) error {
	if a.Attempt >= p.cfg.MaxAttempts {
		return p.escalate(a, fmt.Sprintf("%s; %d of %d attempts used", why, a.Attempt, p.cfg.MaxAttempts))
	}
	p.res.note("%s: dispatching attempt %d of %d", why, a.Attempt+1, p.cfg.MaxAttempts)
	next := p.nextAttempt(a, a.Attempt+1)
	next.LastError = why
	p.plan = &dispatchPlan{run: next}
	return nil
}

// nextAttempt is a new dispatch of the same work: a new correlation id, the
// same history and resume_context, fired_by "retry".
func (p *pass) nextAttempt(a *state.Run, attempt int) *state.Run {
	next := &state.Run{
		CorrelationID: p.cfg.NewID(),
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
// "/recess retry": a comment that mentions escalate-to, and a label.
func (p *pass) escalate(a *state.Run, reason string) error {
	a.State = state.RunEscalated
	a.LastError = reason
	p.rec.Escalated = &state.Escalation{At: p.now, Reason: reason}
	p.res.warn("escalated: %s", reason)
	p.notifyEscalation(a)
	if err := p.e.Discussions.Label(p.ctx, p.d.ID, LabelEscalated); err != nil {
		p.res.warn("could not add the %s label: %v", LabelEscalated, err)
	}
	if a.EyesOn != "" {
		p.unreact = append(p.unreact, a.EyesOn)
		a.EyesOn = ""
	}
	return nil
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
	body := "⚠️ recess stopped starting agent runs for this discussion: " + reason + ".\n\n"
	if mentions := mentionList(p.cfg.EscalateTo); mentions != "" {
		body += mentions + ": please take a look. "
	}
	body += "A maintainer can say `/recess retry` to try again."
	p.notify(a.CorrelationID+".escalated", "", body)
}

func mentionList(logins []string) string {
	s := ""
	for _, l := range logins {
		if l == "" {
			continue
		}
		if s != "" {
			s += " "
		}
		if l[0] != '@' {
			l = "@" + l
		}
		s += l
	}
	return s
}

// owedNote is a comment a pass owes people: an escalation, a closed recess, an
// answer to a command.
type owedNote struct {
	key, replyTo, body string
}

// notify owes a comment carrying a marker. It is posted by postNotes only
// after the record write that records the decision (see saveFailed): two
// runs deciding the same thing at once (a sweep and an inbound run are in
// different concurrency groups) both try to write, one wins, the other
// re-reads and finds the decision made, so only the winner posts. The price
// is that a run dying between its write and its post leaves the note
// unposted (an escalation's is owed again by every later pass).
func (p *pass) notify(key, replyTo, body string) {
	p.notes = append(p.notes, owedNote{key: key, replyTo: replyTo, body: body})
}

// postNotes posts the owed comments, each unless recess already posted one
// with the same marker (a re-run never posts twice). replyTo may be any
// comment: a reply to a reply goes under its parent.
func (p *pass) postNotes() error {
	notes := p.notes
	p.notes = nil
	for _, n := range notes {
		if err := p.postOnce(n.key, n.replyTo, n.body); err != nil {
			return err
		}
	}
	return nil
}

func (p *pass) postOnce(key, replyTo, body string) error {
	for i := range p.d.Comments {
		c := &p.d.Comments[i]
		if !c.Mine {
			continue
		}
		if k, _, ok := state.ParseReplyMarker(c.Body); ok && k == key {
			return nil
		}
	}
	if replyTo != "" {
		if c := p.comment(replyTo); c != nil && c.ParentID != "" {
			replyTo = c.ParentID
		}
	}
	c, err := p.e.Discussions.Reply(p.ctx, p.d.ID, replyTo, state.Neutralize(body)+"\n\n"+state.ReplyMarker(key, 0))
	if err != nil {
		return fmt.Errorf("post comment on discussion %d: %w", p.rec.Discussion, err)
	}
	p.d.Comments = append(p.d.Comments, *c)
	return nil
}

// evaluate re-evaluates every open recess from what the discussion shows.
func (p *pass) evaluate() error {
	ids := make([]string, 0, len(p.rec.OpenRFCs))
	for id := range p.rec.OpenRFCs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := p.rec.OpenRFCs[ids[i]], p.rec.OpenRFCs[ids[j]]
		if !a.OpenedAt.Equal(b.OpenedAt) {
			return a.OpenedAt.Before(b.OpenedAt)
		}
		return ids[i] < ids[j]
	})
	p.evals = map[string]wait.Evaluation{}
	p.observed = map[string]wait.Observed{}
	for _, id := range ids {
		rfc := p.rec.OpenRFCs[id]
		if p.cancel != "" {
			if err := p.close(id, rfc, "⏹ No longer waiting here: "+p.cancel+"."); err != nil {
				return err
			}
			continue
		}
		t, err := wait.ParseTrigger(rfc.Trigger, wait.TriggerLimits{})
		if err != nil {
			return fmt.Errorf("record of discussion %d: open_rfcs[%q].trigger: %v: %w", p.rec.Discussion, id, err, state.ErrCorrupt)
		}
		o := p.observe(rfc)
		ev := wait.Evaluate(t, o, p.now)
		p.evals[id], p.observed[id] = ev, o
		rfc.DueAt = ev.DueAt
		rfc.CancelAt = nil
		if at, ok := p.cancelMoment(id, rfc); ok {
			rfc.CancelAt = &at
		}
		if p.rec.Active != nil || p.plan != nil {
			// One agent run at a time: the others wait their turn.
			continue
		}
		switch {
		case p.manual:
			p.fire(id, rfc, wait.FiredByManual, "a maintainer said /recess resume")
		case ev.Fired:
			if ev.FiredBy == wait.KindElapsed || ev.FiredBy == wait.FiredByExpired {
				// Time alone fired it: that was the sweep's job.
				p.warnIfSweepsMissing(id, ev.At)
			}
			p.fire(id, rfc, ev.FiredBy, ev.Reason)
		case ev.Cancelled:
			p.warnIfSweepsMissing(id, ev.At)
			if err := p.close(id, rfc, "⏹ No longer waiting here: the wait expired ("+ev.Reason+")."); err != nil {
				return err
			}
		case rfc.DueAt != nil:
			p.warnIfSweepsMissing(id, *rfc.DueAt)
		}
	}
	return nil
}

// warnIfSweepsMissing notices, in a run that is not a sweep, a moment at
// which time alone decided a recess (it fell due, or expired) long past:
// scheduled sweeps are not running (GitHub delays them under load and
// switches them off after 60 days without activity). This run has just
// caught the discussion up.
func (p *pass) warnIfSweepsMissing(id string, due time.Time) {
	if p.opts.checkRuns || due.IsZero() {
		return
	}
	late := p.now.Sub(due)
	if late > 6*p.cfg.SweepInterval {
		p.res.warn("recess %s was due %s ago: scheduled sweeps do not seem to run (check the front door's schedule and that the workflow is enabled)", id, late.Round(time.Minute))
	}
}

// observe recomputes what a recess's trigger sees from the discussion.
func (p *pass) observe(rfc *state.RFC) wait.Observed {
	o := wait.Observed{OpenedAt: rfc.OpenedAt, ThreadRoots: rfc.ThreadRoots}
	for i := range p.d.Comments {
		c := &p.d.Comments[i]
		if rfc.RepliesAfter.Covers(c.ID, c.CreatedAt) {
			continue
		}
		if p.human(c) {
			o.Replies = append(o.Replies, wait.Reply{ID: c.ID, Author: c.Author, ParentID: c.ParentID, CreatedAt: c.CreatedAt})
			continue
		}
		if c.Mine || c.Deleted || c.Minimized || !c.WriteAccess() {
			continue
		}
		cmd, ok := parseCommand(c.Body)
		if !ok {
			continue
		}
		switch cmd.name {
		case "signal":
			o.Signals = append(o.Signals, wait.Signal{Name: cmd.arg, At: c.CreatedAt})
		case "resume":
			o.Signals = append(o.Signals, wait.Signal{Name: wait.AnySignal, At: c.CreatedAt})
		case "extend":
			if d, err := wait.ParseDuration(cmd.arg); err == nil {
				o.Extensions = append(o.Extensions, d)
			}
		}
	}
	return o
}

// fire turns an open recess into a resume: the RFC is replaced by the
// intent to dispatch, in one record write.
func (p *pass) fire(id string, rfc *state.RFC, firedBy, reason string) {
	until := newest(p.d)
	run := &state.Run{
		CorrelationID: p.cfg.NewID(),
		State:         state.RunDispatching,
		Since:         rfc.Since,
		Until:         until,
		Attempt:       1,
		EyesOn:        p.eyesSubject(rfc.Since),
		Resume: &state.Resume{
			CorrelationID: id,
			FiredBy:       firedBy,
			FiredAt:       p.now,
			Trigger:       rfc.Trigger,
			RecessCount:   rfc.RecessCount,
		},
	}
	delete(p.rec.OpenRFCs, id)
	p.plan = &dispatchPlan{run: run}
	p.res.note("recess %s fired (%s): %s", id, firedBy, reason)
}

// close ends a recess without resuming it, with a note for people.
func (p *pass) close(id string, rfc *state.RFC, note string) error {
	replyTo := ""
	if len(rfc.ThreadRoots) > 0 {
		replyTo = rfc.ThreadRoots[0]
	}
	p.notify(id+".closed", replyTo, note)
	delete(p.rec.OpenRFCs, id)
	// What was said meanwhile was deliberately not handed to an agent.
	p.rec.Seen = maxCursor(p.rec.Seen, newest(p.d))
	p.res.note("recess %s closed: %s", id, note)
	return nil
}

func maxCursor(a, b state.Cursor) state.Cursor {
	if b.At.After(a.At) {
		return b
	}
	if a.At.After(b.At) {
		return a
	}
	for _, id := range b.IDs {
		a = a.Advance(id, b.At)
	}
	return a
}

// eyesSubject is what carries the EYES acknowledgement of a dispatch: the
// newest human comment after since, or the discussion.
func (p *pass) eyesSubject(since state.Cursor) string {
	for i := len(p.d.Comments) - 1; i >= 0; i-- {
		c := &p.d.Comments[i]
		if since.Covers(c.ID, c.CreatedAt) {
			break
		}
		if p.human(c) {
			return c.ID
		}
	}
	return p.d.ID
}

// unseen lists the human comments no agent run was handed yet.
func (p *pass) unseen() []*Comment {
	var out []*Comment
	for i := range p.d.Comments {
		c := &p.d.Comments[i]
		if !p.rec.Seen.Covers(c.ID, c.CreatedAt) && p.human(c) {
			out = append(out, c)
		}
	}
	return out
}

// intake starts a fresh dispatch when nothing is pending and people said
// something no agent run has seen: a new discussion, a comment after an
// adjourned answer. Fresh dispatches are rate-limited; one held back is
// queued and started by a later run.
func (p *pass) intake() error {
	if p.plan != nil || p.rec.Active != nil || len(p.rec.OpenRFCs) > 0 || p.rec.Escalated != nil {
		return nil
	}
	if p.isNew && p.opts.sweep {
		// The first look at a discussion belongs to its own event's run: a
		// sweep that meets a discussion with no record (a stray label, a
		// record not written yet) must not race that run with an intake.
		return nil
	}
	first := p.rec.Seen.At.IsZero()
	unseen := len(p.unseen())
	owed := unseen > 0 || (first && !p.d.Mine && !p.ignored(p.d.Author))
	if !owed {
		if p.rec.Queued != nil {
			p.rec.Queued = nil
		}
		return nil
	}
	if n := len(p.rec.Dispatches); n >= p.cfg.MaxDispatchesPerHour {
		until := p.rec.Dispatches[n-p.cfg.MaxDispatchesPerHour].Add(time.Hour)
		return p.queue(until, fmt.Sprintf("%d fresh dispatches in the last hour on this discussion (max-dispatches-per-hour %d)", n, p.cfg.MaxDispatchesPerHour))
	}
	if p.rec.Queued != nil && p.now.Before(p.rec.Queued.Since) {
		return nil
	}
	n, err := p.e.Dispatcher.RecentDispatches(p.ctx, p.now.Add(-time.Hour))
	if err != nil {
		p.res.warn("could not count recent dispatches: %v; queued for a later run", err)
		return p.queue(p.now, "the repository's dispatch count could not be read")
	}
	if n >= p.cfg.MaxDispatchesPerHour {
		return p.queue(p.now.Add(p.cfg.SweepInterval), fmt.Sprintf("%d agent runs dispatched in the repository in the last hour (max-dispatches-per-hour %d)", n, p.cfg.MaxDispatchesPerHour))
	}
	run := &state.Run{
		CorrelationID: p.cfg.NewID(),
		State:         state.RunDispatching,
		Since:         p.rec.Seen,
		Until:         newest(p.d),
		Attempt:       1,
		EyesOn:        p.eyesSubject(p.rec.Seen),
	}
	p.plan = &dispatchPlan{run: run, fresh: true}
	if first {
		p.res.note("new discussion: fresh dispatch")
	} else {
		p.res.note("%d comment(s) nobody has answered: fresh dispatch", unseen)
	}
	return nil
}

func (p *pass) queue(until time.Time, reason string) error {
	if p.rec.Queued == nil || !p.rec.Queued.Since.Equal(until) || p.rec.Queued.Reason != reason {
		p.rec.Queued = &state.Queued{Since: until, Reason: reason}
	}
	p.res.note("fresh dispatch held back until %s: %s", until.Format(time.RFC3339), reason)
	return nil
}
