//go:build !recess_nodemo

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestRepoCommands drives `recess status` and `recess sweep --dry-run`
// against a repository (the fake) with a recess open.
func TestRepoCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := parseScenario([]byte(`
steps:
  - discussion: {author: alice, title: RFC}
  - agent:
      verdict: recessed
      replies: [{body: "question?"}]
      trigger: {kind: elapsed, elapsed: PT12H}
`))
	if err != nil {
		t.Fatal(err)
	}
	st, err := newStory(s, io.Discard, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	for i, step := range s.Steps {
		if err := st.step(ctx, step); err != nil {
			t.Fatalf("steps[%d]: %v", i, err)
		}
	}
	dispatches := func() int {
		runs, err := st.gh.Runs(st.repo)
		if err != nil {
			t.Fatal(err)
		}
		return len(runs)
	}
	env := map[string]string{
		"GITHUB_TOKEN":       storyToken,
		"GITHUB_API_URL":     strings.TrimSuffix(st.gh.URL(), "/"),
		"GITHUB_GRAPHQL_URL": st.gh.GraphQLURL(),
	}
	cli := func(now time.Time, args ...string) (int, string, string) {
		env["RECESS_NOW"] = now.Format(time.RFC3339)
		var out, errb bytes.Buffer
		code := run(ctx, args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}

	code, out, errs := cli(st.clock(), "status", "--repo", st.repo)
	if code != 0 {
		t.Fatalf("recess status: exit %d\n%s\n%s", code, out, errs)
	}
	var status struct {
		OpenRFCs int `json:"open_rfcs"`
		RFCs     []struct {
			Discussion int        `json:"discussion"`
			DueAt      *time.Time `json:"due_at"`
			Waiting    string     `json:"waiting_for"`
		} `json:"rfcs"`
	}
	if err := json.Unmarshal([]byte(out), &status); err != nil {
		t.Fatalf("recess status stdout is not JSON: %v\n%s", err, out)
	}
	want := st.clock().Add(12 * time.Hour)
	if status.OpenRFCs != 1 || len(status.RFCs) != 1 || status.RFCs[0].DueAt == nil || !status.RFCs[0].DueAt.Equal(want) {
		t.Fatalf("status = %+v, want one recess due %v", status, want)
	}

	if code, _, _ := cli(st.clock(), "status", "--repo", st.repo, "--discussion", "1"); code != 0 {
		t.Errorf("recess status --discussion 1: exit %d", code)
	}

	// A dry-run sweep at the due moment predicts the dispatch and makes none.
	before := dispatches()
	code, out, errs = cli(want, "sweep", "--dry-run", "--repo", st.repo)
	if code != 0 {
		t.Fatalf("recess sweep --dry-run: exit %d\n%s\n%s", code, out, errs)
	}
	if dispatches() != before {
		t.Errorf("a dry-run sweep dispatched")
	}
	if code, _, errs := cli(want, "sweep", "--repo", st.repo); code != 2 || !strings.Contains(errs, "--dry-run") {
		t.Errorf("recess sweep without --dry-run: exit %d, stderr %q; want a refusal", code, errs)
	}
}
