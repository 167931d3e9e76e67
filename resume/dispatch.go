package resume

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// dispatch is exactly-once bookkeeping around one workflow_dispatch: the
// intent (new correlation id, state "dispatching") is written first (see
// apply); then the plan's effects; then the dispatch; then the
// confirmation. A crash between the two writes leaves an intent that the
// next run or sweep looks up by correlation id before sending it again, and
// the agent workflow's claim step turns any remaining duplicate into a
// no-op. A plan whose intent loses its write sends nothing.
func (e *Engine) dispatch(ctx context.Context, p plan, res *Result) error {
	runID, derr := e.Dispatcher.Dispatch(ctx, p.request())
	if derr != nil {
		return e.dispatchFailed(ctx, p, derr, res)
	}
	res.dispatched(p.dispatch.run)
	// Confirm first, react after: nothing stands between the dispatch and
	// its confirmation, so the new run's own claim (seconds later at the
	// earliest) lands after the confirmation, even on a store without
	// compare-and-swap.
	if err := e.confirm(ctx, p, runID, res); err != nil {
		return err
	}
	if a := p.dispatch.run; a.EyesOn != "" {
		if err := e.Threads.React(ctx, a.EyesOn, Eyes); err != nil {
			res.warn("could not add the EYES reaction: %v", err)
		}
	}
	return nil
}

// request is the workflow_dispatch a plan sends.
func (p plan) request() DispatchRequest {
	r := DispatchRequest{CorrelationID: p.dispatch.run.CorrelationID, Discussion: p.rec.Discussion, ResumeContext: p.dispatch.input}
	if p.d != nil {
		r.Repo = p.d.Repo
	}
	return r
}

// dispatched fills the result of a plan whose dispatch of a went out.
func (r *Result) dispatched(a *state.Run) {
	r.Dispatched = true
	r.CorrelationID = a.CorrelationID
	if a.Resume != nil {
		r.Fired = true
		r.FiredBy = a.Resume.FiredBy
	}
	r.note("dispatched the agent workflow (correlation id %s, attempt %d)", a.CorrelationID, a.Attempt)
}

// prepareDispatch turns a dispatch into the intent the record carries, and
// renders what it carries.
func (f *facts) prepareDispatch(rec *state.Record, d *dispatchPlan) (plan, error) {
	a := d.run
	a.IntentAt = f.now
	rec.Active = a
	rec.Queued = nil
	rec.Seen = maxCursor(rec.Seen, a.Until)
	if d.fresh {
		rec.Dispatches = pruned(append(rec.Dispatches, f.now), f.now)
	}
	input, err := f.resumeContext(rec, a)
	if err != nil {
		return plan{}, err
	}
	d.input = input
	return plan{dispatch: d}, nil
}

// confirm records that GitHub accepted the dispatch. Another run may have
// written meanwhile (a comment accumulating, the agent's own claim): the
// confirmation is then applied to a fresh read, as long as the intent is
// still the active one.
func (e *Engine) confirm(ctx context.Context, p plan, runID int64, res *Result) error {
	id := p.dispatch.run.CorrelationID
	rec := p.rec
	for try := 0; try < maxConflictRetries; try++ {
		a := rec.Active
		if a == nil || a.CorrelationID != id {
			return nil // settled by another run (claimed, or a verdict already)
		}
		write := a.RunID == 0 && runID != 0
		if a.State == state.RunDispatching {
			a.State, a.DispatchedAt, a.LastError = state.RunDispatched, p.now, ""
			write = true
		}
		if a.RunID == 0 {
			a.RunID = runID
		}
		if !write {
			return nil
		}
		err := e.store(ctx, rec, p.d, p.now)
		if !errors.Is(err, state.ErrConflict) {
			return err
		}
		if rec, err = e.Store.Load(ctx, rec.Discussion); err != nil {
			return fmt.Errorf("confirm dispatch %s: %w", id, err)
		}
	}
	res.warn("could not confirm dispatch %s after repeated concurrent writes; the next run finds the run by its correlation id", id)
	return nil
}

// dispatchFailed applies the plan of a failed dispatch call (see
// decideDispatchFailed): its write, then its effects. A refusal no retry
// fixes reads the setup first, and fails the run once applied; a write
// that lost to another run's leaves the failure to it.
func (e *Engine) dispatchFailed(ctx context.Context, p plan, derr error, res *Result) error {
	var setup answer[string]
	if permanent(derr) {
		setup = answered(e.setup(ctx))
	}
	q := decideDispatchFailed(p.rec, p.d, derr, setup, e.cfg(), p.now)
	r, err := e.apply(ctx, q)
	res.Notes, res.Warnings = append(res.Notes, r.Notes...), append(res.Warnings, r.Warnings...)
	if err != nil && !errors.Is(err, state.ErrConflict) {
		return err
	}
	return q.fail
}

// decideDispatchFailed decides over the record whose intent was written
// and whose dispatch call failed (derr). A transient failure is retried by
// a later run and does not burn an attempt. A refusal no retry fixes (no
// such agent workflow, an input it does not declare), under the setup read
// then, fails the run, naming the cause, and is escalated once (see
// refused): no later run sends it again until the setup changes or a
// maintainer says "/recess retry".
func decideDispatchFailed(written *state.Record, d *Thread, derr error, setup answer[string], c Config, now time.Time) plan {
	f := &facts{s: snapshot{setup: setup}, cfg: c, now: now, d: d}
	rec := written.Clone()
	a := rec.Active
	var p plan
	if permanent(derr) {
		p = f.refused(rec, a, derr)
		p.fail = fmt.Errorf("dispatch of the agent workflow: %w", derr)
	} else {
		a.DispatchErrors++
		a.LastError = text.ClipBytes(derr.Error(), maxErrorText)
		p = warned("the dispatch call failed (%v); a later run looks for the run and retries", derr)
	}
	if d != nil {
		rec.Status = f.status(rec, nil)
	}
	p.rec, p.d, p.now, p.write = rec, d, now, true
	return p
}

// resumeContext renders what the run a is told: nothing for the first look
// at a discussion (the agent reads it), otherwise the history it has not
// seen.
func (f *facts) resumeContext(rec *state.Record, a *state.Run) (string, error) {
	if a.Resume == nil && a.Since.At.IsZero() {
		return "", nil
	}
	rc := Context{Kind: rec.Kind}
	if r := a.Resume; r != nil {
		rc.HistorySince = f.history(a.Since, a.Until, r.Trigger)
		rc.CorrelationID, rc.FiredBy, rc.FiredAt = r.CorrelationID, r.FiredBy, r.FiredAt
		rc.Trigger, rc.RecessCount = triggerJSON(r.Trigger), r.RecessCount
	} else {
		rc.HistorySince = f.history(a.Since, a.Until, nil)
		rc.FiredBy, rc.FiredAt = FiredByIntake, f.now
	}
	return rc.Encode(DispatchRequest{CorrelationID: a.CorrelationID, Discussion: rec.Discussion})
}

// FiredByIntake is the fired_by of a fresh dispatch that carries history
// (comments that arrived after an adjourned answer).
const FiredByIntake = "intake"

// history lists the human comments after since and up to until: the
// replies, and the comments of quiet authors (facts.heard) the trigger
// that fired names.
func (f *facts) history(since, until state.Cursor, fired *wait.Trigger) []HistoryEntry {
	out := []HistoryEntry{}
	for i := range f.d.Comments {
		c := &f.d.Comments[i]
		if since.Covers(c.ID, c.CreatedAt) || !until.Covers(c.ID, c.CreatedAt) {
			continue
		}
		r := f.reading(c)
		if !r.heard(c.Author, fired) {
			continue
		}
		role := "user"
		if f.writer(c) {
			role = "maintainer"
		}
		out = append(out, HistoryEntry{ID: c.ID, Author: c.Author, Role: role, Body: cmp.Or(r.said, c.Body),
			CreatedAt: c.CreatedAt.UTC(), URL: c.URL, ReplyTo: c.Root})
	}
	return out
}

// maxErrorText bounds error text kept in the record (GitHub's messages can
// be long, and the record is bounded).
const maxErrorText = 400
