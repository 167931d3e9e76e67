package action

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// What the local lab (cmd/recess-lab) uses: it runs the action in-process
// for each event of a story, against its fake GitHub, and prints what
// happened with the action's own helpers. Nothing here is reachable from
// the recess binary's command line.

// LabRun is one run of the action as the lab hands it over: what GitHub
// would deliver and the action's inputs, with the lab's clock and the
// addresses of its fake GitHub.
type LabRun struct {
	Inputs    func(name string) string // the action's inputs by name (github-token, state-store, ...)
	Workspace string                   // where a policy file (.github/recess.yml) would be
	Event     string                   // the event's name
	Payload   []byte                   // its webhook payload
	Command   string                   // what to run; "" picks it from the event (input command auto)
	// Repo is OWNER/REPO; APIURL, GraphQLURL and ServerURL are the fake's.
	Repo, APIURL, GraphQLURL, ServerURL string
	RunID                               int64 // this run's id (the agent run's, for claim and verdict)
	Clock                               resume.Clock
	Verdict                             []byte // the verdict document (command verdict)
}

// LabOutcome is what one lab run did.
type LabOutcome struct {
	Command string         // what ran (never "auto")
	Result  *resume.Result // nil when the run stopped before the engine answered
	// Ran is set when the run got as far as the engine's wiring: an error
	// before it is in the inputs or the event the lab built.
	Ran bool
	// Log is what the engine logged, then what it noted (the job summary's
	// "What happened") and warned.
	Log []string
}

// RunForLab runs one event through execute, as the action would run it:
// the invocation is built as from the environment (newInvocation), with
// Command and Verdict as the inputs command and verdict.
// The outcome is never nil; RefusedField names the field of a refusal.
func RunForLab(ctx context.Context, r LabRun) (*LabOutcome, error) {
	lo := &LabOutcome{Command: r.Command}
	env := runEnv{where: where{Repo: r.Repo, APIURL: r.APIURL, GraphQLURL: r.GraphQLURL, ServerURL: r.ServerURL, RunID: r.RunID, Clock: r.Clock},
		Workspace: r.Workspace}
	inv, err := newInvocation(env, func(name string) string {
		switch name {
		case inCommand:
			return r.Command
		case inVerdict:
			return string(r.Verdict)
		}
		return r.Inputs(name)
	}, func() (*event, error) { return decodeEvent(r.Event, r.Payload) })
	if err != nil {
		return lo, err
	}
	lo.Command = inv.Command
	var log bytes.Buffer
	lo.Ran = true
	out, err := execute(ctx, inv, &log)
	lo.Result = out.Result
	lo.Log = strings.Split(strings.TrimSpace(log.String()), "\n")
	if out.Result != nil {
		lo.Log = append(lo.Log, allNotes(out)...)
		for _, w := range out.Warnings {
			lo.Log = append(lo.Log, "warning: "+w)
		}
	}
	return lo, err
}

// LabInput says why the lab may not set the action input name: it is not
// an input of recess, or it is not one of the repository's choices, which
// a story gives every run alike, but what one run is about or how it runs,
// which the lab sets for each run (nil: it may).
func LabInput(name string) error {
	in, ok := inputOf(name)
	switch {
	case !ok:
		return fmt.Errorf("not an input of recess (%s)", strings.Join(inputNames, ", "))
	case !in.choice:
		return fmt.Errorf("set by the scenario runner for each run")
	}
	return nil
}

// LabSetup is the repository's setup a story follows, as a run reads it
// from its inputs and the policy file.
type LabSetup struct {
	Workflow string // the agent workflow's file
	Store    string // comment or branch
	// SweepWorkflow is the sweep's own file when the setup keeps it apart
	// (sweep-only-while-waiting), "" when the front door sweeps itself.
	SweepWorkflow                      string
	Categories, Labels, MentionHandles []string
	WakeOn                             string
	Threads                            []state.Kind // the kinds of thread it serves
}

// ReadLabSetup reads the setup from the action's inputs and the policy
// file under workspace, as a run reads them: what a run would refuse is an
// error naming the input or the file's key.
func ReadLabSetup(input func(name string) string, workspace string) (LabSetup, error) {
	s, err := loadSettings(input, workspace)
	if err != nil {
		return LabSetup{}, err
	}
	l := LabSetup{Workflow: s.Workflow, Store: s.StateStore, Categories: s.Engine.Categories, Labels: s.Engine.Labels,
		MentionHandles: s.Engine.MentionHandles, WakeOn: s.Engine.WakeOn, Threads: s.Threads}
	if s.Engine.SweepOnlyWhileWaiting {
		l.SweepWorkflow = s.SweepWorkflow
	}
	return l, nil
}
