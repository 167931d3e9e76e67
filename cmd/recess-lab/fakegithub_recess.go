package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
)

// seedRecess puts a seeded discussion in recess, as if the agent had asked
// its question and recessed: a seed's way to start from a waiting
// discussion. It is played through recess's own engine against the fake
// (intake, the agent run's claim, a recessed verdict), so the status
// comment and the record are exactly what recess writes.
type seedRecess githubfake.SeedRecess

// playRecess plays seedRecess r on discussion number of repo, as the
// account of token (recess's identity: the workflow token's bot). The
// repository must declare the agent workflow.
func playRecess(ctx context.Context, g *githubfake.GitHub, repo string, number int, token string, r *seedRecess) error {
	owner, name, _ := strings.Cut(repo, "/")
	if r.Trigger == nil {
		return fmt.Errorf("trigger: missing")
	}
	c, err := gh.New(gh.Config{Token: token, APIURL: g.URL(), GraphQLURL: g.GraphQLURL(), Owner: owner, Repo: name})
	if err != nil {
		return err
	}
	e := &resume.Engine{Clock: resume.ClockFunc(time.Now), Store: gh.NewCommentStore(c), Discussions: c, Dispatcher: c, Permissions: c}
	// Refuse a verdict recess would refuse before anything is written; the
	// error names the field (trigger.kind, verdict.replies[0].body, ...).
	doc, err := r.verdict(resume.NewCorrelationID(), number)
	if err != nil {
		return err
	}
	if _, err := e.ParseVerdict(doc); err != nil {
		return err
	}
	res, err := e.Intake(ctx, number)
	if err != nil {
		return fmt.Errorf("intake: %w", err)
	}
	if !res.Dispatched {
		return fmt.Errorf("intake dispatched no agent run: %s", strings.Join(append(res.Notes, res.Warnings...), "; "))
	}
	runs, err := g.Runs(repo)
	if err != nil {
		return err
	}
	var runID int64
	for _, ru := range runs {
		if ru.Inputs["correlation_id"] == res.CorrelationID {
			runID = ru.ID
		}
	}
	if runID == 0 {
		return fmt.Errorf("no agent run carries correlation id %s (does the workflow %s declare the inputs correlation_id and discussion_number?)", res.CorrelationID, gh.DefaultWorkflow)
	}
	if _, err := e.Claim(ctx, number, res.CorrelationID, runID); err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	if doc, err = r.verdict(res.CorrelationID, number); err != nil {
		return err
	}
	verdict, err := e.ParseVerdict(doc)
	if err != nil {
		return err
	}
	if _, err := e.Verdict(ctx, verdict, runID); err != nil {
		return fmt.Errorf("verdict: %w", err)
	}
	return g.SetRunStatus(runID, "completed", "success")
}

// verdict is the recessed verdict the agent run with correlationID
// delivers.
func (r *seedRecess) verdict(correlationID string, number int) ([]byte, error) {
	v := map[string]any{"verdict": "recessed", "correlation_id": correlationID, "discussion_number": number, "trigger": r.Trigger}
	if r.Question != "" {
		v["replies"] = []map[string]string{{"body": r.Question}}
	}
	if r.Summary != "" {
		v["summary"] = r.Summary
	}
	doc, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("trigger: not a JSON document: %w", err)
	}
	return doc, nil
}
