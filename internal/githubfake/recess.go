package githubfake

import (
	"fmt"

	"github.com/recess-action/recess/resume"
)

// RecessSetup is a repository prepared the way recess's example workflows
// expect it: what tests, scenarios and local runs all start from.
type RecessSetup struct {
	Owner, Name string
	// Token is the token recess runs with; Bot its GraphQL login
	// (github-actions for the workflow token).
	Token, Bot string
	// Workflow is the agent workflow's file name (default agent.yml).
	Workflow string
	// SweepWorkflow, when set, is the sweep's own workflow of a setup that
	// keeps it apart (sweep-only-while-waiting), disabled as a sweep that
	// found nothing pending leaves it.
	SweepWorkflow string
	// Maintainers get the MEMBER association (write access for slash
	// commands).
	Maintainers []string
	// Members are organisation members who may only read the repository:
	// association MEMBER, permission read.
	Members []string
}

// DefaultWorkflow is the agent workflow InstallRecess declares when the
// setup names none: the file name recess dispatches by default. (The fake
// imports no adapter, so it keeps the name beside the test that checks it
// equals internal/github.DefaultWorkflow.)
const DefaultWorkflow = "agent.yml"

// InstallRecess adds the repository, recess's bot token, the labels recess
// uses, and the agent workflow: inputs correlation_id and discussion_number
// (required) and resume_context, and a run-name carrying the correlation id,
// as in the example agent.yml.
func (g *GitHub) InstallRecess(s RecessSetup) error {
	repo := s.Owner + "/" + s.Name
	workflow := s.Workflow
	if workflow == "" {
		workflow = DefaultWorkflow
	}
	g.AddRepo(s.Owner, s.Name)
	g.AddToken(s.Token, s.Bot, KindBot)
	for _, l := range []string{resume.LabelWaiting, resume.LabelEscalated} {
		if _, err := g.AddLabel(repo, l); err != nil {
			return fmt.Errorf("githubfake: label %s: %w", l, err)
		}
	}
	inputs := map[string]InputSpec{}
	for name := range (resume.DispatchRequest{}).Inputs() {
		// resume_context is empty on a fresh dispatch; the others never are.
		inputs[name] = InputSpec{Required: name != "resume_context"}
	}
	runName := func(in map[string]string) string { return "agent " + in["correlation_id"] }
	if err := g.AddWorkflow(repo, workflow, inputs, runName); err != nil {
		return fmt.Errorf("githubfake: workflow %s: %w", workflow, err)
	}
	if s.SweepWorkflow != "" {
		if err := g.AddWorkflow(repo, s.SweepWorkflow, nil, nil); err != nil {
			return fmt.Errorf("githubfake: workflow %s: %w", s.SweepWorkflow, err)
		}
		if err := g.SetWorkflowState(repo, s.SweepWorkflow, WorkflowDisabledManually); err != nil {
			return err
		}
	}
	for _, m := range s.Maintainers {
		if err := g.SetAssociation(repo, m, "MEMBER"); err != nil {
			return fmt.Errorf("githubfake: association of %s: %w", m, err)
		}
	}
	for _, m := range s.Members {
		if err := g.SetAssociation(repo, m, "MEMBER"); err != nil {
			return fmt.Errorf("githubfake: association of %s: %w", m, err)
		}
		if err := g.SetPermission(repo, m, "read"); err != nil {
			return fmt.Errorf("githubfake: permission of %s: %w", m, err)
		}
	}
	return nil
}
