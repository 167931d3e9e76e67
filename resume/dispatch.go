package resume

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/recess-action/recess/state"
)

// dispatch is exactly-once bookkeeping around one workflow_dispatch: the
// intent (new correlation id, state "dispatching") is written first; then
// the decision's effects; then the dispatch; then the confirmation. A crash
// between the two writes leaves an intent that the next run or sweep looks
// up by correlation id before sending it again, and the agent workflow's
// claim step turns any remaining duplicate into a no-op. A decision whose
// intent loses its write sends nothing.
func (e *Engine) dispatch(ctx context.Context, p *pass) error {
	a := p.plan.run
	if err := e.save(ctx, p); err != nil {
		return e.saveFailed(ctx, p, err)
	}
	if err := e.effects(ctx, p); err != nil {
		return err
	}
	req := DispatchRequest{CorrelationID: a.CorrelationID, Discussion: p.rec.Discussion, ResumeContext: p.plan.input}
	runID, derr := e.Dispatcher.Dispatch(ctx, req)
	if derr != nil {
		return e.dispatchFailed(ctx, p, a, derr)
	}
	p.res.Dispatched = true
	p.res.CorrelationID = a.CorrelationID
	if a.Resume != nil {
		p.res.Fired = true
		p.res.FiredBy = a.Resume.FiredBy
	}
	p.res.note("dispatched the agent workflow (correlation id %s, attempt %d)", a.CorrelationID, a.Attempt)
	// Confirm first, react after: nothing stands between the dispatch and
	// its confirmation, so the new run's own claim (seconds later at the
	// earliest) lands after the confirmation, even on a store without
	// compare-and-swap.
	if err := e.confirm(ctx, p, a.CorrelationID, runID); err != nil {
		return err
	}
	if a.EyesOn != "" {
		if err := e.Discussions.React(ctx, a.EyesOn, Eyes); err != nil {
			p.res.warn("could not add the EYES reaction: %v", err)
		}
	}
	return nil
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
		if n := len(p.rec.Dispatches); n > state.MaxDispatchTimes {
			p.rec.Dispatches = p.rec.Dispatches[n-state.MaxDispatchTimes:]
		}
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
func (e *Engine) confirm(ctx context.Context, p *pass, id string, runID int64) error {
	for try := 0; try < maxConflictRetries; try++ {
		a := p.rec.Active
		if a == nil || a.CorrelationID != id {
			return nil // settled by another run (claimed, or a verdict already)
		}
		if a.State == state.RunDispatching {
			a.State = state.RunDispatched
			a.DispatchedAt = p.now
			a.LastError = ""
		}
		if a.RunID == 0 {
			a.RunID = runID
		}
		p.write = fingerprint(p.rec) != p.before
		err := e.save(ctx, p)
		if err == nil || !errors.Is(err, state.ErrConflict) {
			return err
		}
		rec, lerr := e.Store.Load(ctx, p.rec.Discussion)
		if lerr != nil {
			return fmt.Errorf("confirm dispatch %s: %w", id, lerr)
		}
		if rec.OpenRFCs == nil {
			rec.OpenRFCs = map[string]*state.RFC{}
		}
		p.rec = rec
		p.before = fingerprint(rec)
	}
	p.res.warn("could not confirm dispatch %s after repeated concurrent writes; the next run finds the run by its correlation id", id)
	return nil
}

// dispatchFailed records a failed dispatch call. A transient failure is
// retried by a later run and does not burn an attempt; a refusal (the
// request itself is wrong: a missing workflow input, an unknown workflow)
// cannot succeed by retrying and is escalated. The failure is a decision of
// its own: its effects (the escalation's label and note) run only after its
// write.
func (e *Engine) dispatchFailed(ctx context.Context, p *pass, a *state.Run, derr error) error {
	a.DispatchErrors++
	a.LastError = clip(derr.Error(), maxErrorText)
	refused := errors.Is(derr, ErrDispatchRefused)
	if refused {
		// People read what happened; what GitHub answered is for the
		// maintainer (the run's annotation, the record's last error).
		p.escalate(a, "GitHub refused to start the agent workflow; the recess run's log says why")
		a.LastError = clip(derr.Error(), maxErrorText)
	} else {
		p.res.warn("the dispatch call failed (%v); a later run looks for the run and retries", derr)
	}
	p.write = true
	switch err := e.save(ctx, p); {
	case err == nil:
		if err := e.effects(ctx, p); err != nil {
			return err
		}
	case !errors.Is(err, state.ErrConflict):
		return e.saveFailed(ctx, p, err)
	}
	if refused {
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

// clip shortens s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
