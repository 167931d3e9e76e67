package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/recess-action/recess/internal/action"
	"github.com/recess-action/recess/internal/fakeclock"
	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
)

const (
	storyOwner = "octo"
	storyRepo  = "rfcs"
	storyToken = "recess-demo-token"
	// storyBot is recess's login in the story: the workflow token's.
	storyBot = "github-actions"
	// storyServerURL is the fake's web address in links recess writes.
	storyServerURL = "https://github.test"
)

// runScenario tells the story against a new embedded fake GitHub, running
// recess in this process, and checks its expectations. The returned
// story's fake GitHub is closed but can still be inspected.
func runScenario(ctx context.Context, s *scenario, out io.Writer, verbose bool) (*story, error) {
	clock := fakeclock.New(s.Start.UTC())
	gh := githubfake.New(githubfake.WithClock(clock.Now))
	r := &inproc{inputs: s.Inputs, token: storyToken, serverURL: storyServerURL}
	st, done, err := inprocStory(gh, r, storyOwner+"/"+storyRepo, storyBot, clock, out, verbose)
	if err != nil {
		return nil, err
	}
	defer done()
	setup, err := action.ReadLabSetup(func(k string) string { return s.Inputs[k] }, r.dir)
	if err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	err = gh.InstallRecess(githubfake.RecessSetup{Owner: storyOwner, Name: storyRepo, Token: storyToken, Bot: storyBot,
		SweepWorkflow: setup.SweepWorkflow, Maintainers: s.Maintainers})
	if err != nil {
		return nil, err
	}
	gh.Start()
	defer gh.Close()
	st.store, st.sweepFile = setup.Store, setup.SweepWorkflow
	return st, st.tell(ctx, s)
}

// inprocStory is a story of repo on gh whose runner is r, recess in this
// process in a work directory of its own that done removes.
func inprocStory(gh *githubfake.GitHub, r *inproc, repo, bot string, clock resume.Clock, out io.Writer, verbose bool) (*story, func(), error) {
	dir, err := os.MkdirTemp("", "recess-lab-")
	if err != nil {
		return nil, nil, err
	}
	r.gh, r.repo, r.dir = gh, repo, dir
	r.st = newStory(out, verbose, r, gh, clock, repo, bot)
	return r.st, func() { os.RemoveAll(dir) }, nil
}

// inproc runs recess in this process (action.RunForLab) as the action
// would run it, with the story's inputs and clock.
type inproc struct {
	st                          *story
	gh                          *githubfake.GitHub
	inputs                      map[string]string
	repo, token, serverURL, dir string
	runSeq                      int64
}

func (r *inproc) event(ctx context.Context, name string, payload []byte) (ran, error) {
	out, log, err := r.recess(ctx, name, payload, "", 0, nil)
	return ran{log: log, said: said(out), result: out.Result}, failure(out, err)
}

// said is what recess said in a run: its notes and warnings.
func said(out *action.LabOutcome) []string {
	if out.Result == nil {
		return nil
	}
	return append(append([]string(nil), out.Result.Notes...), out.Result.Warnings...)
}

func (r *inproc) agent(ctx context.Context, ru githubfake.Run, a *agentStep, verdict []byte) (ran, error) {
	if a.Lead {
		return ran{}, errors.New("agent.lead: only recess-lab act runs the workflow's lead; give verdict or fail")
	}
	payload, err := r.gh.WorkflowDispatchPayload(ru.ID)
	if err != nil {
		return ran{}, err
	}
	out, log, err := r.recess(ctx, "workflow_dispatch", payload, action.CommandClaim, ru.ID, nil)
	res := ran{log: log, said: said(out), result: out.Result}
	if err != nil {
		return res, failure(out, err)
	}
	conclusion := "success"
	switch {
	case out.Result.Stale:
		res.stale = true
	case a.Fail != "":
		conclusion = a.Fail
	case verdict != nil:
		out, log, err = r.recess(ctx, "workflow_dispatch", payload, action.CommandVerdict, ru.ID, verdict)
		res.log += "\n" + log
		res.said = append(res.said, said(out)...)
		res.result = cmp.Or(out.Result, res.result)
		field := action.RefusedField(err)
		switch {
		case a.Refused != "" && field == a.Refused:
			r.st.say("recess (%s) refuses it: %s", out.Command, err)
		case a.Refused != "" && err == nil:
			return res, fmt.Errorf("recess (%s) accepted what it should have refused for %s", out.Command, a.Refused)
		case err != nil:
			return res, failure(out, err)
		}
	}
	return res, r.gh.SetRunStatus(ru.ID, "completed", conclusion)
}

// recess runs recess for one event: the story's inputs, the event, the
// story's clock, straight into the action's execute.
func (r *inproc) recess(ctx context.Context, event string, payload []byte, command string, runID int64, verdict []byte) (*action.LabOutcome, string, error) {
	r.runSeq++
	out, err := action.RunForLab(ctx, action.LabRun{
		Inputs: func(k string) string {
			if k == action.InputGitHubToken {
				return r.token
			}
			return r.inputs[k]
		},
		Workspace:  r.dir,
		Event:      event,
		Payload:    payload,
		Command:    command,
		Repo:       r.repo,
		APIURL:     strings.TrimSuffix(r.gh.URL(), "/"),
		GraphQLURL: r.gh.GraphQLURL(),
		ServerURL:  r.serverURL,
		RunID:      cmp.Or(runID, 9000+r.runSeq),
		Clock:      r.st.clock,
		Verdict:    verdict,
	})
	lines := out.Log
	if err != nil {
		lines = append(lines, "error: "+err.Error())
	}
	for _, line := range lines {
		if line = action.PlainText(line); line != "" && r.st.verbose {
			fmt.Fprintf(r.st.out, "           │ %s\n", line)
		}
	}
	return out, strings.Join(lines, "\n"), err
}

// failure is a run's error as the story tells it: what ran, and the field
// it refused.
func failure(out *action.LabOutcome, err error) error {
	switch field := action.RefusedField(err); {
	case err == nil || !out.Ran:
		return err
	case field != "":
		return fmt.Errorf("recess (%s) refused %s: %w", out.Command, field, err)
	}
	return fmt.Errorf("recess (%s) failed: %w", out.Command, err)
}
