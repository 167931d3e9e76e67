package github

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/githubfake"
)

// The sweep workflow's switch through the adapter, over the fake GitHub:
// one request each, states as GitHub reports them, and errors that carry
// GitHub's status so the caller can name the fix.
func TestWorkflowSwitchOnFakeGitHub(t *testing.T) {
	t.Parallel()
	type step struct {
		Op     string // state, enable, disable
		State  string // the state read (op state)
		Status int    // the error's status, 0 for none
	}
	tests := []struct {
		name string
		from string
		fail int
		file string
		ops  []string
		want []step
	}{
		{name: "enable_then_disable", from: githubfake.WorkflowDisabledManually, file: "recess-sweep.yml",
			ops:  []string{"state", "enable", "state", "disable", "state"},
			want: []step{{"state", "disabled_manually", 0}, {"enable", "", 0}, {"state", "active", 0}, {"disable", "", 0}, {"state", "disabled_manually", 0}}},
		{name: "inactivity_healed", from: githubfake.WorkflowDisabledInactivity, file: "recess-sweep.yml",
			ops:  []string{"state", "enable", "state"},
			want: []step{{"state", "disabled_inactivity", 0}, {"enable", "", 0}, {"state", "active", 0}}},
		{name: "no_such_workflow", from: githubfake.WorkflowActive, file: "missing.yml",
			ops:  []string{"state", "enable", "disable"},
			want: []step{{"state", "", 404}, {"enable", "", 404}, {"disable", "", 404}}},
		{name: "token_without_actions_write", from: githubfake.WorkflowDisabledManually, fail: 403, file: "recess-sweep.yml",
			ops:  []string{"enable", "state"},
			want: []step{{"enable", "", 403}, {"state", "disabled_manually", 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			gh := githubfake.New(githubfake.WithClock(clock.Now))
			gh.Start()
			t.Cleanup(gh.Close)
			gh.AddRepo("o", "r")
			gh.AddToken(testToken, "github-actions[bot]", githubfake.KindBot)
			if err := gh.AddWorkflow("o/r", "recess-sweep.yml", nil, nil); err != nil {
				t.Fatal(err)
			}
			if err := gh.SetWorkflowState("o/r", "recess-sweep.yml", tt.from); err != nil {
				t.Fatal(err)
			}
			if err := gh.FailWorkflowSwitch("o/r", tt.fail); err != nil {
				t.Fatal(err)
			}
			c, err := New(Config{Token: testToken, APIURL: gh.URL(), GraphQLURL: gh.GraphQLURL(), Owner: "o", Repo: "r",
				Clock: clock, Sleep: clock.Sleep, Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var got []step
			for _, op := range tt.ops {
				gh.ResetLog()
				var s step
				s.Op = op
				switch op {
				case "state":
					s.State, err = c.WorkflowState(ctx, tt.file)
				case "enable":
					err = c.EnableWorkflow(ctx, tt.file)
				case "disable":
					err = c.DisableWorkflow(ctx, tt.file)
				}
				var se *WorkflowSwitchError
				if errors.As(err, &se) {
					s.Status = se.Status
				} else if err != nil {
					t.Fatalf("%s = %v, want a *WorkflowSwitchError", op, err)
				}
				if n := gh.CountREST(); n != 1 {
					t.Errorf("%s sent %d REST requests, want 1", op, n)
				}
				got = append(got, s)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("steps (-want +got):\n%s", d)
			}
		})
	}
}

func TestCheckWorkflowFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		ok   bool
	}{
		{"recess-sweep.yml", true},
		{"sweep.yaml", true},
		{"", false},
		{".github/workflows/recess-sweep.yml", false},
		{"sweep", false},
		{"a b.yml", false},
		{"x?.yml", false},
	} {
		if err := CheckWorkflowFile(tc.file); (err == nil) != tc.ok {
			t.Errorf("CheckWorkflowFile(%q) = %v, want ok %v", tc.file, err, tc.ok)
		}
	}
}

// A refused switch reads as GitHub's status and message, without the URL.
func TestWorkflowSwitchErrorText(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	gh := githubfake.New(githubfake.WithClock(clock.Now))
	gh.Start()
	t.Cleanup(gh.Close)
	gh.AddRepo("o", "r")
	gh.AddToken(testToken, "github-actions[bot]", githubfake.KindBot)
	if err := gh.AddWorkflow("o/r", "recess-sweep.yml", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := gh.FailWorkflowSwitch("o/r", 403); err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Token: testToken, APIURL: gh.URL(), GraphQLURL: gh.GraphQLURL(), Owner: "o", Repo: "r", Clock: clock, Sleep: clock.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	err = c.EnableWorkflow(context.Background(), "recess-sweep.yml")
	const want = "github: enable workflow recess-sweep.yml: 403 Resource not accessible by integration"
	if err == nil || err.Error() != want {
		t.Errorf("EnableWorkflow = %v, want %q", err, want)
	}
}
