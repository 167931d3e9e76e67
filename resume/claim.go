package resume

import (
	"context"
	"fmt"

	"github.com/recess-action/recess/state"
)

// Claim is the agent workflow's first step: is this run the one recess
// expects for the correlation id? A duplicate or stale dispatch gets
// Result.Stale and the workflow skips its work. The first run to claim an
// id owns it.
func (e *Engine) Claim(ctx context.Context, number int, correlationID string, runID int64) (*Result, error) {
	return e.run(ctx, number, input{command: "claim", rule: claim(correlationID, runID)})
}

// claim is the rule of Claim: run runID claims correlationID.
func claim(correlationID string, runID int64) func(*facts, *state.Record) (plan, error) {
	return func(f *facts, rec *state.Record) (plan, error) {
		p := plan{res: Result{CorrelationID: correlationID}}
		a := rec.Active
		why := ""
		switch expects(a, correlationID, runID) {
		case notActive:
			why = fmt.Sprintf("%s is not the run recess expects for %s %d: stale", correlationID, f.kind().noun, rec.Discussion)
		case escalatedRun:
			why = fmt.Sprintf("%s was escalated: stale", correlationID)
		case otherRun:
			why = fmt.Sprintf("%s belongs to run %d: this run (%d) is a duplicate", correlationID, a.RunID, runID)
		}
		if why != "" {
			p.res.Stale, p.readOnly = true, true
			return p.with(noted("%s", why)), nil
		}
		a.Claimed = true
		if runID != 0 {
			a.RunID = runID
		}
		if a.State == state.RunDispatching {
			a.State, a.DispatchedAt = state.RunDispatched, f.now
		}
		return p.with(noted("run %d claimed %s", runID, correlationID)), nil
	}
}

// mismatch is why a run is not the one recess expects (see expects).
type mismatch int

const (
	expected mismatch = iota
	// notActive: another run, or none, is the active one.
	notActive
	// escalatedRun: the run was escalated after it ended without a verdict.
	escalatedRun
	// otherRun: GitHub named the run for the id (the dispatch answer, a
	// lookup by run-name, or the first claim), and this is another one
	// carrying it: a duplicate dispatch's.
	otherRun
)

// expects is the one rule for whether a run that carries correlation id id
// (GitHub's run runID, 0 when unknown) is the active run a, for the claim
// and the verdict alike.
func expects(a *state.Run, id string, runID int64) mismatch {
	switch {
	case a == nil || a.CorrelationID != id:
		return notActive
	case a.State == state.RunEscalated:
		return escalatedRun
	case a.RunID != 0 && runID != 0 && a.RunID != runID:
		return otherRun
	}
	return expected
}
