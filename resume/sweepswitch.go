package resume

import (
	"context"
	"fmt"
)

// SweepSwitch is what a run asks of the sweep workflow when the sweep runs
// only while something waits (SPEC.md "Cost"): the sweep lives in its own
// workflow file, enabled while anything in the repository is pending (an
// open recess, an active or queued run) and disabled otherwise, so that a
// private repository pays no sweep minutes while nothing waits.
//
// The engine decides from what the run knows of "pending in the repository
// after this run"; the caller performs it (and only when the repository
// opted in).
type SweepSwitch int

const (
	// SweepLeave: nothing to do. The run cannot tell whether anything else
	// waits (it left its own discussion with nothing pending), or it runs
	// inside the sweep workflow itself, which is then evidently enabled.
	SweepLeave SweepSwitch = iota
	// SweepEnsureOn: this run leaves something pending, so the sweep must
	// run. Look at the workflow's state and enable it unless it is active
	// (GitHub's own disabled_inactivity included).
	SweepEnsureOn
	// SweepOff: the listing of every pending record found none: disable the
	// sweep workflow, then look again (Waiting) and enable it back when a
	// concurrent run opened something meanwhile.
	SweepOff
)

// sweepSwitchFor is the one rule for what a run asks of the sweep
// workflow. A run for one discussion asks for it on when it leaves that
// discussion pending, if it is one of the front door's event runs (intake,
// inbound: they run on every comment of a waiting discussion, so each one
// heals a sweep switched off meanwhile, by hand, by GitHub after 60 days
// without activity, by a switch that failed) or a verdict that opens a
// recess (a plan whose listing lagged behind may have switched the sweep
// off while the agent worked, and a recess that waits for time alone would
// then see no event to heal it). The claim and a sweep's visit (inside the
// running sweep) ask nothing. A sweep or a plan asks for it off when its
// listing found nothing pending (listed 0, once the store said what its
// listing may overlook: see Overlooker; -1 when it could not tell), never
// when its visits merely resolved the last recess: the next sweep finds the
// listing empty and switches it off then.
func sweepSwitchFor(command string, pendingAfter bool, listed int) SweepSwitch {
	switch command {
	case "intake", "inbound", "verdict":
		if pendingAfter {
			return SweepEnsureOn
		}
	case "sweep", "plan":
		if listed == 0 {
			return SweepOff
		}
	}
	return SweepLeave
}

// Waiting reports whether anything in the repository is pending, from a
// fresh listing of the store. A run that has just switched the sweep off
// asks it, so that a record a concurrent run opened between the listing and
// the switch turns the sweep back on (that run looked at the workflow
// before the switch and found it active).
func (e *Engine) Waiting(ctx context.Context) (bool, error) {
	list, err := e.Store.Pending(ctx)
	if err != nil {
		return false, fmt.Errorf("list pending discussions: %w", err)
	}
	return len(list) > 0, nil
}
