package action

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

// workflowSwitcher is the part of GitHub the sweep switch talks to
// (*internal/github.Client).
type workflowSwitcher interface {
	WorkflowState(ctx context.Context, file string) (string, error)
	EnableWorkflow(ctx context.Context, file string) error
	DisableWorkflow(ctx context.Context, file string) error
}

// switchSweep does what the engine asked of the sweep workflow
// (res.SweepSwitch) when input sweep-only-while-waiting is on, and says so
// in the notes, or what failed and the fix in the warnings. It never fails
// the run: while the sweep is off by mistake a comment still resumes on its
// own event, and the next run that asks tries again. Cost in REST requests:
// ensure-on 1 GET (+1 PUT when not active); off 1 PUT and the store's
// listing once more (+1 PUT when a concurrent run opened something).
func switchSweep(ctx context.Context, e *resume.Engine, sw workflowSwitcher, inv *invocation, res *resume.Result) {
	if res == nil || !inv.Engine.SweepOnlyWhileWaiting {
		return
	}
	file := inv.SweepWorkflow
	switch res.SweepSwitch {
	case resume.SweepEnsureOn:
		if inv.DryRun {
			res.Notes = append(res.Notes, fmt.Sprintf("dry run: something is pending, so a real run would look at the sweep workflow %s and enable it unless it is active", file))
			return
		}
		state, err := sw.WorkflowState(ctx, file)
		if err != nil {
			res.Warnings = append(res.Warnings, switchWarning("look at", file, err, true))
			return
		}
		if state == gh.WorkflowActive {
			return
		}
		if err := sw.EnableWorkflow(ctx, file); err != nil {
			res.Warnings = append(res.Warnings, switchWarning("enable", file, err, true))
			return
		}
		res.Notes = append(res.Notes, fmt.Sprintf("enabled the sweep workflow %s (it was %s): something is pending", file, state))
	case resume.SweepOff:
		if inv.DryRun {
			res.Notes = append(res.Notes, fmt.Sprintf("dry run: nothing is pending, so a real run would disable the sweep workflow %s", file))
			return
		}
		if err := sw.DisableWorkflow(ctx, file); err != nil {
			res.Warnings = append(res.Warnings, switchWarning("disable", file, err, false))
			return
		}
		waiting, err := e.Waiting(ctx)
		if err == nil && !waiting {
			res.Notes = append(res.Notes, fmt.Sprintf("disabled the sweep workflow %s: nothing is pending; the next run that leaves something pending enables it", file))
			return
		}
		// A discussion started waiting meanwhile, or unsure: on is the safe
		// side (a sweep more, never a recess left without one).
		if eerr := sw.EnableWorkflow(ctx, file); eerr != nil {
			res.Warnings = append(res.Warnings, switchWarning("enable", file, eerr, true))
			return
		}
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("could not look again for pending discussions after disabling the sweep workflow %s (%v): enabled it back; the next sweep decides again", file, err))
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("left the sweep workflow %s enabled: a discussion started waiting while this run switched it off", file))
		}
	}
}

// switchWarning says what failed, what it means while it lasts, and the
// fix. on: the switch was to turn the sweep on.
func switchWarning(op, file string, err error, on bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "could not %s the sweep workflow %s (%v). ", op, file, err)
	var se *gh.WorkflowSwitchError
	status := 0
	if errors.As(err, &se) {
		status = se.Status
	}
	switch status {
	case http.StatusForbidden:
		b.WriteString("Fix: give the job `permissions: actions: write` (with GITHUB_TOKEN) or a token that may manage workflows. ")
	case http.StatusNotFound:
		fmt.Fprintf(&b, "Fix: add .github/workflows/%s with the sweep (recess's .github/examples/recess-sweep.yml), or set input %s to the sweep's file name. ", file, inSweepWorkflow)
	}
	if on {
		fmt.Fprintf(&b, "Until it runs, elapsed triggers, expiries and retries wait (comments still resume on their own events); the next event run on a waiting discussion tries again, or enable it now: gh workflow enable %s", file)
	} else {
		fmt.Fprintf(&b, "The sweep keeps running while nothing waits; the next sweep tries again, or disable it now: gh workflow disable %s", file)
	}
	return b.String()
}

// checkSweepHome refuses an event run from the sweep workflow itself
// (workflowRef is GITHUB_WORKFLOW_REF, "o/r/.github/workflows/f.yml@ref"):
// recess disables that file while nothing waits, and the events would stop
// with it.
func checkSweepHome(command string, set *settings, workflowRef string) error {
	if !set.Engine.SweepOnlyWhileWaiting || (command != cmdIntake && command != cmdInbound) {
		return nil
	}
	file, _, _ := strings.Cut(workflowRef, "@")
	if workflowRef != "" && strings.EqualFold(path.Base(file), set.SweepWorkflow) {
		return &wait.FieldError{Field: inputField(inSweepWorkflow), Reason: fmt.Sprintf(
			"%q is the workflow handling this discussion event: with %s the sweep needs a workflow file of its own (recess disables it while nothing waits, and the events would stop with it)", set.SweepWorkflow, inSweepOnlyWhileWaiting)}
	}
	return nil
}
