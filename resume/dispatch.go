package resume

import (
	"context"
	"errors"
	"fmt"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/state"
)

// dispatch is exactly-once bookkeeping around one workflow_dispatch: the
// intent (new correlation id, state "dispatching") is written first (see
// apply); then the decision's effects; then the dispatch; then the
// confirmation. A crash between the two writes leaves an intent that the
// next run or sweep looks up by correlation id before sending it again, and
// the agent workflow's claim step turns any remaining duplicate into a
// no-op. A decision whose intent loses its write sends nothing.
func (e *Engine) dispatch(ctx context.Context, out *decision) error {
	runID, derr := e.Dispatcher.Dispatch(ctx, out.request())
	if derr != nil {
		return e.dispatchFailed(ctx, out, derr)
	}
	out.dispatched()
	// Confirm first, react after: nothing stands between the dispatch and
	// its confirmation, so the new run's own claim (seconds later at the
	// earliest) lands after the confirmation, even on a store without
	// compare-and-swap.
	if err := e.confirm(ctx, out, runID); err != nil {
		return err
	}
	if a := out.plan.run; a.EyesOn != "" {
		if err := e.Discussions.React(ctx, a.EyesOn, Eyes); err != nil {
			out.res.warn("could not add the EYES reaction: %v", err)
		}
	}
	return nil
}

// request is the workflow_dispatch a decision's plan sends.
func (out *decision) request() DispatchRequest {
	return DispatchRequest{CorrelationID: out.plan.run.CorrelationID, Discussion: out.rec.Discussion, ResumeContext: out.plan.input, Repo: out.d.Repo}
}

// dispatched fills the result of a decision whose dispatch went out.
func (out *decision) dispatched() {
	a := out.plan.run
	out.res.Dispatched = true
	out.res.CorrelationID = a.CorrelationID
	if a.Resume != nil {
		out.res.Fired = true
		out.res.FiredBy = a.Resume.FiredBy
	}
	out.res.note("dispatched the agent workflow (correlation id %s, attempt %d)", a.CorrelationID, a.Attempt)
}

// prepareDispatch turns the decision's plan into the intent the record
// carries (pure: part of the decision).
func (p *pass) prepareDispatch() error {
	plan := p.plan
	a := plan.run
	a.IntentAt = p.now
	p.rec.Active = a
	p.rec.Queued = nil
	p.rec.Seen = maxCursor(p.rec.Seen, a.Until)
	if plan.fresh {
		p.rec.Dispatches = append(p.rec.Dispatches, p.now)
		p.pruneDispatches()
	}
	input, err := p.resumeContext(a)
	if err != nil {
		return err
	}
	plan.input = input
	return nil
}

// confirm records that GitHub accepted the dispatch. Another run may have
// written meanwhile (a comment accumulating, the agent's own claim): the
// confirmation is then applied to a fresh read, as long as the intent is
// still the active one.
func (e *Engine) confirm(ctx context.Context, out *decision, runID int64) error {
	id := out.plan.run.CorrelationID
	rec := out.rec
	for try := 0; try < maxConflictRetries; try++ {
		a := rec.Active
		if a == nil || a.CorrelationID != id {
			return nil // settled by another run (claimed, or a verdict already)
		}
		write := a.RunID == 0 && runID != 0
		if a.State == state.RunDispatching {
			a.State, a.DispatchedAt, a.LastError = state.RunDispatched, out.now, ""
			write = true
		}
		if a.RunID == 0 {
			a.RunID = runID
		}
		if !write {
			return nil
		}
		err := e.store(ctx, rec, out.d, out.now)
		if !errors.Is(err, state.ErrConflict) {
			return err
		}
		if rec, err = e.Store.Load(ctx, rec.Discussion); err != nil {
			return fmt.Errorf("confirm dispatch %s: %w", id, err)
		}
	}
	out.res.warn("could not confirm dispatch %s after repeated concurrent writes; the next run finds the run by its correlation id", id)
	return nil
}

// dispatchFailed records a failed dispatch call, a decision of its own over
// the record whose intent was written, applied as any other: its write,
// then its effects. A transient failure is retried by a later run and does
// not burn an attempt. A refusal no retry fixes (no such agent workflow, an
// input it does not declare) fails the run, naming the cause, and is
// escalated once (see refused): no later run sends it again until the
// setup changes or a maintainer says "/recess retry".
func (e *Engine) dispatchFailed(ctx context.Context, out *decision, derr error) error {
	p := &pass{decision: decision{res: out.res, rec: out.rec, d: out.d, now: out.now, write: true}, cfg: e.cfg(), snap: &snapshot{rec: out.rec}}
	a := p.rec.Active
	if permanent(derr) {
		p.snap.setup, p.snap.setupErr = e.setup(ctx)
		p.snap.haveSetup = true
		p.refused(a, derr)
	} else {
		a.DispatchErrors++
		a.LastError = text.ClipBytes(derr.Error(), maxErrorText)
		p.res.warn("the dispatch call failed (%v); a later run looks for the run and retries", derr)
	}
	if p.d != nil {
		p.rec.Status = p.status()
	}
	switch err := e.store(ctx, p.rec, p.d, p.now); {
	case err == nil:
		if err := e.effects(ctx, &p.decision, p.effects); err != nil {
			return err
		}
	case !errors.Is(err, state.ErrConflict):
		return e.saveFailed(ctx, &p.decision, err)
	}
	if permanent(derr) {
		return fmt.Errorf("dispatch of the agent workflow: %w", derr)
	}
	return nil
}

// resumeContext renders what the run is told: nothing for the first look at
// a discussion (the agent reads it), otherwise the history it has not seen.
func (p *pass) resumeContext(a *state.Run) (string, error) {
	if a.Resume == nil && a.Since.At.IsZero() {
		return "", nil
	}
	rc := Context{HistorySince: p.history(a.Since, a.Until)}
	if r := a.Resume; r != nil {
		rc.CorrelationID, rc.FiredBy, rc.FiredAt = r.CorrelationID, r.FiredBy, r.FiredAt
		rc.Trigger, rc.RecessCount = triggerJSON(r.Trigger), r.RecessCount
	} else {
		rc.FiredBy, rc.FiredAt = FiredByIntake, p.now
	}
	return rc.Encode(DispatchRequest{CorrelationID: a.CorrelationID, Discussion: p.rec.Discussion})
}

// FiredByIntake is the fired_by of a fresh dispatch that carries history
// (comments that arrived after an adjourned answer).
const FiredByIntake = "intake"

// history lists the human comments after since and up to until.
func (p *pass) history(since, until state.Cursor) []HistoryEntry {
	out := []HistoryEntry{}
	for i := range p.d.Comments {
		c := &p.d.Comments[i]
		if since.Covers(c.ID, c.CreatedAt) || !until.Covers(c.ID, c.CreatedAt) {
			continue
		}
		r := p.reading(c)
		if !r.reply() {
			continue
		}
		role := "user"
		if p.writer(c) {
			role = "maintainer"
		}
		out = append(out, HistoryEntry{ID: c.ID, Author: c.Author, Role: role, Body: r.said,
			CreatedAt: c.CreatedAt.UTC(), URL: c.URL, ReplyTo: c.ParentID})
	}
	return out
}

// maxErrorText bounds error text kept in the record (GitHub's messages can
// be long, and the record is bounded).
const maxErrorText = 400
