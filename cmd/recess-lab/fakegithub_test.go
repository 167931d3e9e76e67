package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/state"
)

// syncBuffer lets the test read what run prints while it serves.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const seedYAML = `
tokens:
  - {token: bot-tok, login: github-actions, bot: true}
repos:
  - name: octo/hello
    labels: ["recess:waiting"]
    associations: {alice: MEMBER}
    workflows:
      - file: agent.yml
        run_name: "agent ${{ inputs.correlation_id }} #${{ github.event.inputs.discussion_number }}"
        inputs:
          correlation_id: {required: true}
          discussion_number: {required: true}
          resume_context: {default: ""}
    discussions:
      - author: alice
        title: RFC
        body: Which backend?
        labels: ["recess:waiting"]
        comments:
          - author: bob
            body: Postgres
            replies: [{author: carol, body: agreed}]
`

// start runs the program and returns the URLs it printed.
func start(t *testing.T, args ...string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan int, 1)
	errs := &syncBuffer{}
	go func() { done <- runFakeGitHub(ctx, args, out, errs) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("runFakeGitHub() = %d, %s", code, errs)
		}
	})
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		env := map[string]string{}
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), "="); ok {
				env[k] = v
			}
		}
		if len(env) == 3 {
			return env
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("runFakeGitHub() printed %q, want three URLs", out.String())
	return nil
}

func post(t *testing.T, url, token, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestRunServesSeededState(t *testing.T) {
	t.Parallel()
	seedPath := filepath.Join(t.TempDir(), "seed.yml")
	if err := os.WriteFile(seedPath, []byte(seedYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	env := start(t, "--addr", "127.0.0.1:0", "--seed", seedPath, "--token", "alice-tok=alice")
	if !strings.HasSuffix(env["GITHUB_API_URL"], "/api/v3") || !strings.HasSuffix(env["GITHUB_GRAPHQL_URL"], "/api/graphql") {
		t.Fatalf("URLs = %v", env)
	}
	q := `{"query":"{ repository(owner:\"octo\", name:\"hello\") { discussion(number: 1) { url labels(first: 5) { nodes { name } } comments(first: 5) { nodes { body authorAssociation replies(first: 5) { nodes { body } } } } } } }"}`
	status, body := post(t, env["GITHUB_GRAPHQL_URL"], "alice-tok", q)
	want := `{"data":{"repository":{"discussion":{"url":"` + env["GITHUB_SERVER_URL"] + `/octo/hello/discussions/1","labels":{"nodes":[{"name":"recess:waiting"}]},"comments":{"nodes":[{"body":"Postgres","authorAssociation":"NONE","replies":{"nodes":[{"body":"agreed"}]}}]}}}}}`
	if status != 200 || string(body) != want {
		t.Errorf("query = %d %s\nwant %s", status, body, want)
	}
	status, body = post(t, env["GITHUB_API_URL"]+"/repos/octo/hello/actions/workflows/agent.yml/dispatches", "bot-tok",
		`{"ref":"main","inputs":{"correlation_id":"c-1","discussion_number":"1"},"return_run_details":true}`)
	if status != 200 {
		t.Fatalf("dispatch = %d %s", status, body)
	}
	var details struct {
		RunURL string `json:"run_url"`
	}
	if err := json.Unmarshal(body, &details); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, details.RunURL, nil)
	req.Header.Set("Authorization", "token bot-tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var run struct{ Name string }
	if err := json.NewDecoder(resp.Body).Decode(&run); err != nil {
		t.Fatal(err)
	}
	if run.Name != "agent c-1 #1" {
		t.Errorf("run name = %q, want the rendered run-name", run.Name)
	}
}

func TestRunRefusesBadArguments(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.yml")
	if err := os.WriteFile(bad, []byte("repos:\n  - name: octo/hello\n    colour: red\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{name: "token_without_login", args: []string{"--token", "abc"}},
		{name: "repo_without_owner", args: []string{"--repo", "hello"}},
		{name: "unknown_seed_field", args: []string{"--seed", bad}},
		{name: "missing_seed", args: []string{"--seed", filepath.Join(t.TempDir(), "none.yml")}},
		{name: "extra_argument", args: []string{"serve"}},
		{name: "bad_address", args: []string{"--addr", "256.0.0.1:99999"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // a valid configuration would return at once
			if code := runFakeGitHub(ctx, tt.args, io.Discard, io.Discard); code == 0 {
				t.Errorf("runFakeGitHub(%q) = 0, want a failure", tt.args)
			}
		})
	}
}

func TestRunHelp(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if code := runFakeGitHub(context.Background(), []string{"--help"}, &out, io.Discard); code != 0 {
		t.Fatalf("runFakeGitHub(--help) = %d, want 0", code)
	}
	if !strings.Contains(out.String(), "testdata/act/README.md") || !strings.Contains(out.String(), "-seed") {
		t.Errorf("runFakeGitHub(--help) printed %q, want the usage with the seed format's pointer", out.String())
	}
}

// A seeded recess is played through recess itself: the discussion starts
// with recess's question, its status comment and an open recess, and the
// agent run that asked is over; a trigger recess would refuse writes nothing.
func TestSeedPlaysARecess(t *testing.T) {
	t.Parallel()
	const seed = `
tokens: [{token: bot-tok, login: github-actions, bot: true}]
repos:
  - name: octo/hello
    workflows:
      - file: agent.yml
        run_name: "agent ${{ inputs.correlation_id }}"
        inputs: {correlation_id: {required: true}, discussion_number: {required: true}, resume_context: {default: ""}}
    discussions:
      - {author: alice, title: RFC, body: "Which backend?"}
      - author: alice
        title: Waiting
        body: Which storage?
        recess: {trigger: {kind: missing_input, replies: 2}, question: "Who owns storage?", summary: asking}
`
	for _, tc := range []struct {
		name, seed, err string
	}{
		{name: "a_recess", seed: seed},
		{name: "a_trigger_recess_refuses", seed: strings.Replace(seed, "kind: missing_input", "kind: never", 1), err: "repos[0].discussions[1].recess: trigger.kind: unknown kind"},
		{name: "no_bot_token", seed: strings.Replace(seed, "bot: true", "bot: false", 1), err: "no bot token"},
		{name: "intake_says_the_agent_workflow_is_missing", seed: strings.Replace(seed, "file: agent.yml", "file: other.yml", 1), err: `recess (intake) failed: the workflow input names "agent.yml", and octo/hello has no such workflow`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "seed.yml")
			if err := os.WriteFile(path, []byte(tc.seed), 0o600); err != nil {
				t.Fatal(err)
			}
			g := githubfake.New()
			defer g.Close()
			err := applySeed(t.Context(), g, path, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("applySeed() = %v, want an error saying %q", err, tc.err)
				}
				if runs, _ := g.Runs("octo/hello"); len(runs) != 0 {
					t.Errorf("a refused seed dispatched %d agent runs", len(runs))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d, err := g.Discussion("octo/hello", 2)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := g.Comments(d.ID)
			if err != nil {
				t.Fatal(err)
			}
			var rec *state.Record
			var question string
			for _, c := range cs {
				if r, found, err := state.DecodeComment(c.Body); err == nil && found {
					rec = r
				} else if _, _, ok := state.ParseReplyMarker(c.Body); ok {
					question = state.Visible(c.Body)
				}
			}
			if rec == nil || len(rec.OpenRFCs) != 1 || rec.Active != nil {
				t.Fatalf("record = %+v, want one open recess and no active run", rec)
			}
			if question != "Who owns storage?" {
				t.Errorf("recess's reply = %q, want the seeded question", question)
			}
			runs, err := g.Runs("octo/hello")
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 || runs[0].Status != "completed" {
				t.Errorf("agent runs = %+v, want one, completed", runs)
			}
		})
	}
}
