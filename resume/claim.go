package resume

import (
	"context"

	"github.com/recess-action/recess/state"
)

// Claim is the agent workflow's first step: is this run the one recess
// expects for the correlation id? A duplicate or stale dispatch gets
// Result.Stale and the workflow skips its work. The first run to claim an
// id owns it.
func (e *Engine) Claim(ctx context.Context, number int, correlationID string, runID int64) (*Result, error) {
	return e.run(ctx, number, passOpts{command: "claim"}, func(p *pass) error {
		p.res.CorrelationID = correlationID
		a := p.rec.Active
		switch {
		case a == nil || a.CorrelationID != correlationID:
			p.res.Stale, p.readOnly = true, true
			p.res.note("%s is not the run recess expects for discussion %d: stale", correlationID, number)
			return nil
		case a.State == state.RunEscalated:
			p.res.Stale, p.readOnly = true, true
			p.res.note("%s was escalated: stale", correlationID)
			return nil
		case a.RunID != 0 && runID != 0 && a.RunID != runID:
			// GitHub named the run for this id (the dispatch answer, a
			// lookup by run-name, or the first claim): any other run that
			// carries the id is a duplicate dispatch.
			p.res.Stale, p.readOnly = true, true
			p.res.note("%s belongs to run %d: this run (%d) is a duplicate", correlationID, a.RunID, runID)
			return nil
		}
		a.Claimed = true
		if runID != 0 {
			a.RunID = runID
		}
		if a.State == state.RunDispatching {
			a.State, a.DispatchedAt = state.RunDispatched, p.now
		}
		p.res.note("run %d claimed %s", runID, correlationID)
		return nil
	})
}
