package github

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
)

// TestDispatchOnFakeGitHub dispatches the agent workflow on the fake GitHub,
// as github.com does it and as an older GitHub Enterprise Server that
// refuses return_run_details does, and finds the run by its run-name.
func TestDispatchOnFakeGitHub(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		opts   []githubfake.Option
		withID bool
	}{
		{"run_details", nil, true},
		{"older_server", []githubfake.Option{githubfake.RefuseRunDetails()}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			gh := githubfake.New(append(tt.opts, githubfake.WithClock(clock.Now))...)
			gh.Start()
			t.Cleanup(gh.Close)
			gh.AddRepo("o", "r")
			gh.AddToken(testToken, "github-actions[bot]", githubfake.KindBot)
			inputs := map[string]githubfake.InputSpec{
				"correlation_id":    {Required: true},
				"discussion_number": {Required: true},
				"resume_context":    {},
			}
			runName := func(in map[string]string) string {
				return "agent " + in["correlation_id"] + " #" + in["discussion_number"]
			}
			if err := gh.AddWorkflow("o/r", "agent.yml", inputs, runName); err != nil {
				t.Fatalf("AddWorkflow = %v", err)
			}
			c, err := New(Config{Token: testToken, APIURL: gh.URL(), GraphQLURL: gh.GraphQLURL(), Owner: "o", Repo: "r",
				Clock: clock, Sleep: clock.Sleep, Logf: t.Logf})
			if err != nil {
				t.Fatalf("New = %v", err)
			}
			ctx := context.Background()

			gh.ResetLog()
			id, err := c.Dispatch(ctx, request)
			if err != nil {
				t.Fatalf("Dispatch = %v", err)
			}
			t.Logf("Dispatch: %d REST requests (default-branch lookup included)", gh.CountREST())
			if (id != 0) != tt.withID {
				t.Errorf("Dispatch() = %d, want a run id: %v", id, tt.withID)
			}
			gh.ResetLog()
			found, err := c.FindRun(ctx, request.CorrelationID)
			if err != nil {
				t.Fatalf("FindRun(%q) = %v", request.CorrelationID, err)
			}
			if got := gh.CountREST(); got != 1 {
				t.Errorf("FindRun requests = %d, want 1", got)
			}
			if tt.withID && found.ID != id {
				t.Errorf("FindRun(%q).ID = %d, want the dispatched %d", request.CorrelationID, found.ID, id)
			}
			if want := "agent c-7f3a #12"; found.Name != want || found.Status != "queued" {
				t.Errorf("FindRun(%q) = %+v, want name %q, queued", request.CorrelationID, found, want)
			}
			run, err := c.Run(ctx, found.ID)
			if err != nil || run.ID != found.ID {
				t.Errorf("Run(%d) = %+v, %v", found.ID, run, err)
			}
			n, err := c.RecentDispatches(ctx, clock.Now().Add(-time.Hour))
			if err != nil || n != 1 {
				t.Errorf("RecentDispatches = %d, %v, want 1", n, err)
			}
			if _, err := c.FindRun(ctx, "c-other"); !errors.Is(err, resume.ErrNotFound) {
				t.Errorf("FindRun(%q) = %v, want ErrNotFound", "c-other", err)
			}
			// A workflow that does not exist is GitHub's 404: its own
			// answer, naming the input, whether dispatched or listed.
			bad := resume.DispatchRequest{CorrelationID: "c-x", Discussion: 1}
			c2, _ := New(Config{Token: testToken, APIURL: gh.URL(), GraphQLURL: gh.GraphQLURL(), Owner: "o", Repo: "r",
				Workflow: "missing.yml", Clock: clock, Sleep: clock.Sleep})
			if _, err := c2.Dispatch(ctx, bad); !errors.Is(err, resume.ErrNoWorkflow) || errors.Is(err, resume.ErrDispatchRefused) {
				t.Errorf("Dispatch(missing workflow) = %v, want ErrNoWorkflow", err)
			}
			if _, err := c2.RecentDispatches(ctx, clock.Now().Add(-time.Hour)); !errors.Is(err, resume.ErrNoWorkflow) {
				t.Errorf("RecentDispatches(missing workflow) = %v, want ErrNoWorkflow", err)
			}
			if _, err := c2.FindRun(ctx, "c-x"); !errors.Is(err, resume.ErrNotFound) || !errors.Is(err, resume.ErrNoWorkflow) {
				t.Errorf("FindRun(missing workflow) = %v, want ErrNotFound and ErrNoWorkflow", err)
			}
		})
	}
}

// Setup, what a refused dispatch waits to change, names the workflow file,
// the ref and recess's inputs, and the file's blob on GitHub: "absent" while
// the repository has no such file; it changes when the file appears, when a
// new version of it is pushed, and when recess is set to another workflow or
// ref, and stays the same over anything else (another commit, a run).
func TestSetupOnFakeGitHub(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	gh := githubfake.New(githubfake.WithClock(clock.Now))
	gh.Start()
	t.Cleanup(gh.Close)
	gh.AddRepo("o", "r")
	gh.AddToken(testToken, "github-actions[bot]", githubfake.KindBot)
	ctx := context.Background()
	setup := func(workflow, ref string) string {
		t.Helper()
		c, err := New(Config{Token: testToken, APIURL: gh.URL(), GraphQLURL: gh.GraphQLURL(), Owner: "o", Repo: "r",
			Workflow: workflow, Ref: ref, Clock: clock, Sleep: clock.Sleep, Logf: t.Logf})
		if err != nil {
			t.Fatalf("New = %v", err)
		}
		s, err := c.Setup(ctx)
		if err != nil {
			t.Fatalf("Setup() = %v", err)
		}
		return s
	}
	const inputs = " inputs correlation_id,discussion_number,resume_context"
	missing := setup("agent.yml", "")
	if want := "agent.yml@HEAD blob absent" + inputs; missing != want {
		t.Errorf("Setup() without the workflow = %q, want %q", missing, want)
	}
	narrow := map[string]githubfake.InputSpec{"correlation_id": {Required: true}}
	if err := gh.AddWorkflow("o/r", "agent.yml", narrow, nil); err != nil {
		t.Fatal(err)
	}
	added := setup("agent.yml", "")
	full := map[string]githubfake.InputSpec{"correlation_id": {Required: true}, "discussion_number": {Required: true}, "resume_context": {}}
	if err := gh.AddWorkflow("o/r", "agent.yml", full, nil); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{
		"missing":     missing,
		"added":       added,
		"new_version": setup("agent.yml", ""),
		"other_file":  setup("answer.yml", ""),
		"other_ref":   setup("agent.yml", "main"),
	}
	if _, err := gh.Commit("o/r", "main", "another unrelated change", map[string]string{"docs/more.md": "more"}); err != nil {
		t.Fatal(err)
	}
	if again := setup("agent.yml", ""); again != got["new_version"] {
		t.Errorf("Setup() after an unrelated commit = %q, want it unchanged: %q", again, got["new_version"])
	}
	seen := map[string]string{}
	for name, s := range got {
		if other, dup := seen[s]; dup {
			t.Errorf("Setup() is %q both %s and %s; want them told apart", s, other, name)
		}
		seen[s] = name
	}
}
