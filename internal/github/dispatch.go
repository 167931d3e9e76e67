package github

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v92/github"
	"github.com/shurcooL/githubv4"

	"github.com/recess-action/recess/resume"
)

// Dispatch starts the agent workflow with the request's inputs and asks
// GitHub for the run's details, returning the run id (0 when the server does
// not report it). A server that refuses return_run_details (older GitHub
// Enterprise Server answers 400) gets the dispatch again without it, once,
// and never sees the field again from this client; the engine then finds the
// run by the correlation id in its run-name.
//
// A dispatch is never retried on a server error: a 502 may hide an applied
// dispatch, and the engine's intent bookkeeping looks for the run instead.
// 400 and 422 answers wrap resume.ErrDispatchRefused; a 404 is the agent
// workflow missing (resume.ErrNoWorkflow, see noWorkflow).
//
// GitHub docs: https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event
func (c *Client) Dispatch(ctx context.Context, req resume.DispatchRequest) (runID int64, err error) {
	ref, err := c.dispatchRef(ctx, req.Repo)
	if err != nil {
		return 0, err
	}
	inputs := map[string]any{}
	for k, v := range req.Inputs() {
		inputs[k] = v
	}
	body := gogithub.CreateWorkflowDispatchEventRequest{Ref: ref, Inputs: inputs}
	withDetails := !c.noRunDetails.Load()
	if withDetails {
		body.ReturnRunDetails = gogithub.Ptr(true)
	}
	what := fmt.Sprintf("github: dispatch %s for discussion %d (%s)", c.workflow, req.Discussion, req.CorrelationID)

	details, resp, err := c.rest.Actions.CreateWorkflowDispatchEventByFileName(ctx, c.owner, c.repo, c.workflow, body)
	if err != nil && withDetails && restStatus(resp, err) == http.StatusBadRequest {
		// The 400 refused the request before applying it, so sending it
		// again without the field cannot dispatch twice.
		body.ReturnRunDetails = nil
		var retryErr error
		details, resp, retryErr = c.rest.Actions.CreateWorkflowDispatchEventByFileName(ctx, c.owner, c.repo, c.workflow, body)
		if retryErr == nil {
			c.noRunDetails.Store(true)
			c.logf("github: server refused return_run_details (%v); dispatching without it from now on", err)
		}
		err = retryErr
	}
	if err != nil {
		switch restStatus(resp, err) {
		case http.StatusNotFound:
			return 0, c.noWorkflow(err)
		case http.StatusBadRequest, http.StatusUnprocessableEntity:
			return 0, fmt.Errorf("%s: %w: %w", what, resume.ErrDispatchRefused, err)
		}
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return details.GetWorkflowRunID(), nil
}

var _ resume.SetupReader = (*Client)(nil)

// Setup is resume.SetupReader: what a dispatch of the agent workflow
// depends on besides its request, as one string: the workflow file and
// the ref recess dispatches it on ("HEAD", the default branch, unless the
// ref input names one), the blob of .github/workflows/FILE there (git's
// object id of its contents: "absent" when there is no such file), and
// the inputs recess sends. A person who adds the file, edits it (its
// inputs, its triggers) or sets recess to another file or ref changes it;
// nothing else does. One GraphQL request, costing one point.
//
// GitHub docs: https://docs.github.com/graphql/reference/objects#repository
func (c *Client) Setup(ctx context.Context) (string, error) {
	rev := cmp.Or(c.ref, "HEAD")
	var q repoQuery[struct {
		Object *struct{ Oid string } `graphql:"object(expression: $expression)"`
	}]
	vars := c.repoVars()
	vars["expression"] = githubv4.String(rev + ":.github/workflows/" + c.workflow)
	if err := c.query(ctx, &q, vars); err != nil {
		return "", fmt.Errorf("github: agent workflow %s at %s: %w", c.workflow, rev, err)
	}
	blob := "absent"
	if o := q.Repository.Object; o != nil && o.Oid != "" {
		blob = o.Oid
	}
	return fmt.Sprintf("%s@%s blob %s inputs %s", c.workflow, rev, blob, strings.Join(slices.Sorted(maps.Keys(resume.DispatchRequest{}.Inputs())), ",")), nil
}

// dispatchRef is Config.Ref, or the repository's default branch: as the
// discussion's read reported it (resume.Repo, which the request carries),
// and looked up (one REST request) only when the request carries none.
//
// GitHub docs: https://docs.github.com/rest/repos/repos#get-a-repository
func (c *Client) dispatchRef(ctx context.Context, r resume.Repo) (string, error) {
	if ref := cmp.Or(c.ref, r.DefaultBranch); ref != "" {
		return ref, nil
	}
	repo, resp, err := c.rest.Repositories.Get(ctx, c.owner, c.repo)
	if err != nil {
		return "", restErr(fmt.Sprintf("github: repository %s/%s", c.owner, c.repo), resp, err)
	}
	if repo.GetDefaultBranch() == "" {
		return "", fmt.Errorf("github: repository %s/%s reports no default branch; set the ref input", c.owner, c.repo)
	}
	return repo.GetDefaultBranch(), nil
}

// FindRun looks up the agent run whose run-name carries the correlation id,
// among the workflow's most recent 100 workflow_dispatch runs (a lookup
// follows a dispatch closely, so the first page is enough). ErrNotFound when
// there is none yet.
//
// GitHub docs: https://docs.github.com/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow
func (c *Client) FindRun(ctx context.Context, correlationID string) (*resume.WorkflowRun, error) {
	what := fmt.Sprintf("github: find run %q", correlationID)
	if correlationID == "" {
		return nil, fmt.Errorf("%s: empty correlation id: %w", what, resume.ErrNotFound)
	}
	opts := &gogithub.ListWorkflowRunsOptions{
		Event:       "workflow_dispatch",
		ListOptions: gogithub.ListOptions{PerPage: pageSize},
	}
	runs, resp, err := c.rest.Actions.ListWorkflowRunsByFileName(ctx, c.owner, c.repo, c.workflow, opts)
	if restStatus(resp, err) == http.StatusNotFound {
		// No workflow, so no run of it either.
		return nil, fmt.Errorf("%s: %w: %w", what, resume.ErrNotFound, c.noWorkflow(err))
	}
	if err != nil {
		return nil, restErr(what, resp, err)
	}
	for _, r := range runs.WorkflowRuns {
		if resume.RunNameHas(r.GetName(), correlationID) || resume.RunNameHas(r.GetDisplayTitle(), correlationID) {
			return toRun(r), nil
		}
	}
	return nil, fmt.Errorf("%s: %w", what, resume.ErrNotFound)
}

// Run returns a workflow run by id.
//
// GitHub docs: https://docs.github.com/rest/actions/workflow-runs#get-a-workflow-run
func (c *Client) Run(ctx context.Context, id int64) (*resume.WorkflowRun, error) {
	r, resp, err := c.rest.Actions.GetWorkflowRunByID(ctx, c.owner, c.repo, id)
	if err != nil {
		return nil, restErr(fmt.Sprintf("github: run %d", id), resp, err)
	}
	return toRun(r), nil
}

// RecentDispatches counts the agent workflow's fresh dispatches created at
// or after since: workflow_dispatch runs whose run-name carries no resume's
// correlation id (resume.FreshRun). One request for up to 100 runs in the
// window, a page more per 100 beyond, at most recentPages.
//
// GitHub docs: https://docs.github.com/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow
func (c *Client) RecentDispatches(ctx context.Context, since time.Time) (int, error) {
	opts := &gogithub.ListWorkflowRunsOptions{
		Event:       "workflow_dispatch",
		Created:     ">=" + since.UTC().Format(time.RFC3339),
		ListOptions: gogithub.ListOptions{PerPage: pageSize},
	}
	fresh := 0
	for page := 1; page <= recentPages; page++ {
		opts.Page = page
		runs, resp, err := c.rest.Actions.ListWorkflowRunsByFileName(ctx, c.owner, c.repo, c.workflow, opts)
		if restStatus(resp, err) == http.StatusNotFound {
			return 0, c.noWorkflow(err)
		}
		if err != nil {
			return 0, restErr("github: recent dispatches", resp, err)
		}
		for _, r := range runs.WorkflowRuns {
			if resume.FreshRun(toRun(r).Name) {
				fresh++
			}
		}
		if resp.NextPage == 0 || len(runs.WorkflowRuns) < opts.PerPage {
			break
		}
	}
	return fresh, nil
}

// noWorkflow is GitHub's 404 for the agent workflow, in words that name the
// input and the fix (resume.ErrNoWorkflow). GitHub answers 404 for a
// workflow file the repository's default branch does not have, both when
// its runs are listed and when it is dispatched.
func (c *Client) noWorkflow(err error) error {
	c.logf("github: agent workflow %s: %v", c.workflow, err)
	return fmt.Errorf("the workflow input names %q, and %s/%s has no such workflow (GitHub answered 404 for .github/workflows/%s): set the workflow input to the agent workflow's file name, or add that file to the default branch; what is owed stays owed until then: %w",
		c.workflow, c.owner, c.repo, c.workflow, resume.ErrNoWorkflow)
}

// recentPages bounds RecentDispatches' listing: 1,000 agent runs in an hour
// is far past any rate limit it serves.
const recentPages = 10

func toRun(r *gogithub.WorkflowRun) *resume.WorkflowRun {
	return &resume.WorkflowRun{
		ID:         r.GetID(),
		Name:       cmp.Or(r.GetDisplayTitle(), r.GetName()),
		Status:     r.GetStatus(),
		Conclusion: r.GetConclusion(),
		CreatedAt:  r.GetCreatedAt().Time,
		URL:        r.GetHTMLURL(),
	}
}
