package clienttest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/recess-action/recess/internal/githubfake"
)

var start = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// setup returns a started fake with octo/hello, an agent.yml workflow and a
// go-github client for the Actions bot.
func setup(t *testing.T, opts ...githubfake.Option) (*githubfake.GitHub, *github.Client) {
	t.Helper()
	g := githubfake.New(append([]githubfake.Option{githubfake.WithClock(func() time.Time { return start })}, opts...)...)
	g.AddRepo("octo", "hello")
	g.AddToken("tok", "github-actions", githubfake.KindBot)
	err := g.AddWorkflow("octo/hello", "agent.yml", map[string]githubfake.InputSpec{
		"correlation_id": {Required: true}, "discussion_number": {Required: true}, "resume_context": {},
	}, func(in map[string]string) string { return "agent " + in["correlation_id"] })
	if err != nil {
		t.Fatal(err)
	}
	g.Start()
	t.Cleanup(g.Close)
	c, err := github.NewClient(github.WithAuthToken("tok"), github.WithEnterpriseURLs(g.URL(), g.URL()))
	if err != nil {
		t.Fatalf("NewClient(%q) = %v", g.URL(), err)
	}
	return g, c
}

func dispatchRequest(inputs map[string]any, details *bool) github.CreateWorkflowDispatchEventRequest {
	return github.CreateWorkflowDispatchEventRequest{Ref: "main", Inputs: inputs, ReturnRunDetails: details}
}

func TestDispatchWithGoGitHub(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	inputs := map[string]any{"correlation_id": "c-1", "discussion_number": "12", "resume_context": "{}"}
	yes, no := true, false
	tests := []struct {
		name       string
		opts       []githubfake.Option
		inputs     map[string]any
		details    *bool
		wantStatus int
		wantRunID  bool
	}{
		{name: "run_details", inputs: inputs, details: &yes, wantStatus: 200, wantRunID: true},
		{name: "no_run_details", inputs: inputs, details: &no, wantStatus: 204},
		{name: "field_absent", inputs: inputs, wantStatus: 204},
		{name: "old_server", opts: []githubfake.Option{githubfake.RefuseRunDetails()}, inputs: inputs, details: &yes, wantStatus: 400},
		{name: "undeclared_input", inputs: map[string]any{"correlation_id": "c", "discussion_number": "1", "extra": "x"}, details: &yes, wantStatus: 422},
		{name: "too_large", inputs: map[string]any{"correlation_id": "c", "discussion_number": "1", "resume_context": strings.Repeat("x", 70000)}, details: &yes, wantStatus: 422},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, c := setup(t, tt.opts...)
			details, resp, err := c.Actions.CreateWorkflowDispatchEventByFileName(ctx, "octo", "hello", "agent.yml", dispatchRequest(tt.inputs, tt.details))
			if resp == nil || resp.StatusCode != tt.wantStatus {
				t.Fatalf("CreateWorkflowDispatchEventByFileName() = %v, %v; want status %d", resp, err, tt.wantStatus)
			}
			if tt.wantStatus >= 400 {
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Message == "" {
					t.Errorf("error = %v, want a *github.ErrorResponse with a message", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("CreateWorkflowDispatchEventByFileName() = %v", err)
			}
			runs, _ := g.Runs("octo/hello")
			if len(runs) != 1 {
				t.Fatalf("runs = %d, want 1", len(runs))
			}
			if tt.wantRunID {
				if details == nil || details.GetWorkflowRunID() != runs[0].ID || details.GetHTMLURL() != runs[0].HTMLURL {
					t.Errorf("details = %+v, want run %d", details, runs[0].ID)
				}
			}
			if resp.Rate.Limit != githubfake.DefaultRESTBudget || resp.Rate.Remaining != githubfake.DefaultRESTBudget-1 {
				t.Errorf("resp.Rate = %+v", resp.Rate)
			}
		})
	}
}

func TestRunsWithGoGitHub(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g, c := setup(t)
	yes := true
	details, _, err := c.Actions.CreateWorkflowDispatchEventByFileName(ctx, "octo", "hello", "agent.yml",
		dispatchRequest(map[string]any{"correlation_id": "c-42", "discussion_number": "3"}, &yes))
	if err != nil {
		t.Fatal(err)
	}
	runs, _, err := c.Actions.ListWorkflowRunsByFileName(ctx, "octo", "hello", "agent.yml", &github.ListWorkflowRunsOptions{
		Event: "workflow_dispatch", Created: ">=" + start.Format(time.RFC3339), ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		t.Fatalf("ListWorkflowRunsByFileName() = %v", err)
	}
	if runs.GetTotalCount() != 1 || runs.WorkflowRuns[0].GetName() != "agent c-42" || runs.WorkflowRuns[0].GetDisplayTitle() != "agent c-42" ||
		runs.WorkflowRuns[0].GetID() != details.GetWorkflowRunID() || !runs.WorkflowRuns[0].GetCreatedAt().Time.Equal(start) {
		t.Errorf("runs = %+v", runs)
	}
	if err := g.SetRunStatus(details.GetWorkflowRunID(), "completed", "timed_out"); err != nil {
		t.Fatal(err)
	}
	run, _, err := c.Actions.GetWorkflowRunByID(ctx, "octo", "hello", details.GetWorkflowRunID())
	if err != nil || run.GetStatus() != "completed" || run.GetConclusion() != "timed_out" || run.GetEvent() != "workflow_dispatch" {
		t.Errorf("GetWorkflowRunByID() = %+v, %v", run, err)
	}
	_, resp, err := c.Actions.GetWorkflowRunByID(ctx, "octo", "hello", 1)
	var er *github.ErrorResponse
	if !errors.As(err, &er) || resp.StatusCode != 404 {
		t.Errorf("unknown run: %v, want a 404 *github.ErrorResponse", err)
	}
}

func TestRateLimitsWithGoGitHub(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, c := setup(t, githubfake.WithRESTBudget(2))
	for range 2 {
		if _, _, err := c.Repositories.Get(ctx, "octo", "hello"); err != nil {
			t.Fatalf("Repositories.Get() = %v", err)
		}
	}
	_, _, err := c.Repositories.Get(ctx, "octo", "hello")
	var rle *github.RateLimitError
	if !errors.As(err, &rle) || rle.Rate.Remaining != 0 {
		t.Errorf("over budget: %v, want a *github.RateLimitError", err)
	}
	limits, _, err := c.RateLimit.Get(ctx)
	if err != nil || limits.GetCore().Remaining != 0 || limits.GetGraphQL().Limit != githubfake.DefaultGraphQLBudget {
		t.Errorf("RateLimit.Get() = %+v, %v", limits, err)
	}

	g2, c2 := setup(t)
	g2.Fail(githubfake.SecondaryRateLimit("/repos/", 7))
	_, _, err = c2.Repositories.Get(ctx, "octo", "hello")
	var abuse *github.AbuseRateLimitError
	if !errors.As(err, &abuse) || abuse.GetRetryAfter() != 7*time.Second {
		t.Errorf("secondary limit: %v, want an *github.AbuseRateLimitError with retry-after 7s", err)
	}
}

func TestBadCredentialsWithGoGitHub(t *testing.T) {
	t.Parallel()
	g, _ := setup(t)
	c, err := github.NewClient(github.WithAuthToken("wrong"), github.WithEnterpriseURLs(g.URL(), g.URL()))
	if err != nil {
		t.Fatal(err)
	}
	_, resp, err := c.Repositories.Get(context.Background(), "octo", "hello")
	var er *github.ErrorResponse
	if !errors.As(err, &er) || resp.StatusCode != 401 || er.Message != "Bad credentials" {
		t.Errorf("Repositories.Get() with a bad token = %v", err)
	}
}

func TestGitWithGoGitHub(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g, c := setup(t)
	main, _, err := c.Git.GetRef(ctx, "octo", "hello", "heads/main")
	if err != nil {
		t.Fatalf("GetRef() = %v", err)
	}
	if _, _, err := c.Git.CreateRef(ctx, "octo", "hello", github.CreateRef{Ref: "refs/heads/recess-state", SHA: main.GetObject().GetSHA()}); err != nil {
		t.Fatalf("CreateRef() = %v", err)
	}
	oid, err := g.Commit("octo/hello", "recess-state", "state", map[string]string{"index.json": `{"due":[]}`})
	if err != nil {
		t.Fatal(err)
	}
	force := false
	_, resp, err := c.Git.UpdateRef(ctx, "octo", "hello", "heads/recess-state", github.UpdateRef{SHA: main.GetObject().GetSHA(), Force: &force})
	if err == nil || resp.StatusCode != 422 {
		t.Errorf("UpdateRef(backwards) = %v, want 422", err)
	}
	file, _, _, err := c.Repositories.GetContents(ctx, "octo", "hello", "index.json", &github.RepositoryContentGetOptions{Ref: "recess-state"})
	if err != nil {
		t.Fatalf("GetContents() = %v", err)
	}
	text, err := file.GetContent()
	if err != nil || text != `{"due":[]}` {
		t.Errorf("GetContent() = %q, %v", text, err)
	}
	ref, _, err := c.Git.GetRef(ctx, "octo", "hello", "heads/recess-state")
	if err != nil || ref.GetObject().GetSHA() != oid {
		t.Errorf("GetRef(recess-state) = %v, %v; want %s", ref, err, oid)
	}
}

// The workflow switch as go-github sends it: GET a workflow by file name,
// PUT enable and disable (204, no body), 404 for a file that is no
// workflow, and a switch the fake was told to fail.
func TestWorkflowSwitchWithGoGitHub(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name       string
		from       string // the state before
		fail       int    // FailWorkflowSwitch
		enable     bool   // enable, else disable
		file       string
		wantStatus int
		wantState  string
	}{
		{name: "enable_manually_disabled", from: githubfake.WorkflowDisabledManually, enable: true, file: "agent.yml", wantStatus: 204, wantState: "active"},
		{name: "enable_inactive", from: githubfake.WorkflowDisabledInactivity, enable: true, file: "agent.yml", wantStatus: 204, wantState: "active"},
		{name: "enable_active", from: githubfake.WorkflowActive, enable: true, file: "agent.yml", wantStatus: 204, wantState: "active"},
		{name: "disable_active", from: githubfake.WorkflowActive, file: "agent.yml", wantStatus: 204, wantState: "disabled_manually"},
		{name: "disable_disabled", from: githubfake.WorkflowDisabledManually, file: "agent.yml", wantStatus: 204, wantState: "disabled_manually"},
		{name: "unknown_workflow", from: githubfake.WorkflowActive, enable: true, file: "nope.yml", wantStatus: 404, wantState: "active"},
		{name: "forbidden", from: githubfake.WorkflowDisabledManually, fail: 403, enable: true, file: "agent.yml", wantStatus: 403, wantState: "disabled_manually"},
		{name: "server_error", from: githubfake.WorkflowActive, fail: 502, file: "agent.yml", wantStatus: 502, wantState: "active"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, c := setup(t)
			if err := g.SetWorkflowState("octo/hello", "agent.yml", tc.from); err != nil {
				t.Fatal(err)
			}
			if err := g.FailWorkflowSwitch("octo/hello", tc.fail); err != nil {
				t.Fatal(err)
			}
			switchFn := c.Actions.DisableWorkflowByFileName
			if tc.enable {
				switchFn = c.Actions.EnableWorkflowByFileName
			}
			resp, err := switchFn(ctx, "octo", "hello", tc.file)
			if resp == nil || resp.StatusCode != tc.wantStatus {
				t.Fatalf("switch %s = %v, %v; want status %d", tc.file, resp, err, tc.wantStatus)
			}
			if (err != nil) != (tc.wantStatus >= 400) {
				t.Errorf("switch %s: error %v with status %d", tc.file, err, tc.wantStatus)
			}
			wf, _, err := c.Actions.GetWorkflowByFileName(ctx, "octo", "hello", "agent.yml")
			if err != nil {
				t.Fatalf("GetWorkflowByFileName = %v", err)
			}
			if wf.GetState() != tc.wantState || wf.GetPath() != ".github/workflows/agent.yml" || wf.GetID() == 0 || wf.GetNodeID() == "" ||
				wf.GetName() == "" || wf.GetURL() == "" || wf.GetHTMLURL() == "" || wf.GetBadgeURL() == "" || wf.CreatedAt == nil || wf.UpdatedAt == nil {
				t.Errorf("workflow after the switch = %+v, want state %s and every required field", wf, tc.wantState)
			}
			byID, _, err := c.Actions.GetWorkflowByID(ctx, "octo", "hello", wf.GetID())
			if err != nil || byID.GetState() != tc.wantState {
				t.Errorf("GetWorkflowByID(%d) = %v, %v", wf.GetID(), byID, err)
			}
		})
	}
	t.Run("unknown_workflow_get", func(t *testing.T) {
		t.Parallel()
		_, c := setup(t)
		_, resp, err := c.Actions.GetWorkflowByFileName(ctx, "octo", "hello", "nope.yml")
		if resp == nil || resp.StatusCode != 404 || err == nil {
			t.Errorf("GetWorkflowByFileName(nope.yml) = %v, %v; want 404", resp, err)
		}
	})
}
