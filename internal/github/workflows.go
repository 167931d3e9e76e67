package github

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gogithub "github.com/google/go-github/v92/github"
)

// WorkflowActive is the state GitHub reports for an enabled workflow
// (WorkflowState).
const WorkflowActive = "active"

// WorkflowSwitchError is a refused or failed enable, disable or look at a
// workflow: Status is GitHub's HTTP status (0 when no answer came), so the
// caller can name the fix (403: the token lacks actions: write; 404: no
// such workflow file).
type WorkflowSwitchError struct {
	Op       string // "look at", "enable", "disable"
	Workflow string
	Status   int
	Err      error
}

func (e *WorkflowSwitchError) Error() string {
	var er *gogithub.ErrorResponse
	if errors.As(e.Err, &er) && e.Status != 0 {
		// GitHub's status and message, without the request's URL.
		return fmt.Sprintf("github: %s workflow %s: %d %s", e.Op, e.Workflow, e.Status, er.Message)
	}
	return fmt.Sprintf("github: %s workflow %s: %v", e.Op, e.Workflow, e.Err)
}

func (e *WorkflowSwitchError) Unwrap() error { return e.Err }

// CheckWorkflowFile refuses a workflow file name the REST path cannot carry
// (GitHub takes the file name, e.g. recess-sweep.yml, in place of the id).
func CheckWorkflowFile(file string) error {
	switch {
	case file == "":
		return fmt.Errorf("empty")
	case strings.ContainsAny(file, "/?#%\\ "):
		return fmt.Errorf("%q is not a workflow file name (the file's name in .github/workflows, e.g. recess-sweep.yml)", file)
	case !strings.HasSuffix(file, ".yml") && !strings.HasSuffix(file, ".yaml"):
		return fmt.Errorf("%q is not a workflow file name: it ends in .yml or .yaml", file)
	}
	return nil
}

// WorkflowState returns the state of a workflow of the repository, by file
// name: active, disabled_manually, disabled_inactivity, disabled_fork or
// deleted. One REST request; actions: read.
//
// GitHub docs: https://docs.github.com/rest/actions/workflows#get-a-workflow
func (c *Client) WorkflowState(ctx context.Context, file string) (string, error) {
	wf, resp, err := c.rest.Actions.GetWorkflowByFileName(ctx, c.owner, c.repo, file)
	return wf.GetState(), workflowErr("look at", file, resp, err)
}

// EnableWorkflow makes a workflow active (from any disabled state, GitHub's
// own disabled_inactivity included). Idempotent; one REST request; actions:
// write.
//
// GitHub docs: https://docs.github.com/rest/actions/workflows#enable-a-workflow
func (c *Client) EnableWorkflow(ctx context.Context, file string) error {
	resp, err := c.rest.Actions.EnableWorkflowByFileName(ctx, c.owner, c.repo, file)
	return workflowErr("enable", file, resp, err)
}

// DisableWorkflow disables a workflow (state disabled_manually): its
// schedule stops until it is enabled again. Idempotent; one REST request;
// actions: write.
//
// GitHub docs: https://docs.github.com/rest/actions/workflows#disable-a-workflow
func (c *Client) DisableWorkflow(ctx context.Context, file string) error {
	resp, err := c.rest.Actions.DisableWorkflowByFileName(ctx, c.owner, c.repo, file)
	return workflowErr("disable", file, resp, err)
}

func workflowErr(op, file string, resp *gogithub.Response, err error) error {
	if err == nil {
		return nil
	}
	return &WorkflowSwitchError{Op: op, Workflow: file, Status: restStatus(resp, err), Err: err}
}
