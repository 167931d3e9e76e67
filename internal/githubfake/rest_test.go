package githubfake

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const dispatchPath = "repos/octo/hello/actions/workflows/agent.yml/dispatches"

func agentWorkflow(t *testing.T, g *GitHub) {
	t.Helper()
	err := g.AddWorkflow(testRepo, "agent.yml", map[string]InputSpec{
		"correlation_id":    {Required: true},
		"discussion_number": {Required: true},
		"resume_context":    {},
		"mode":              {Default: "normal"},
	}, func(in map[string]string) string {
		return "agent #" + in["discussion_number"] + " " + in["correlation_id"]
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDispatch(t *testing.T) {
	t.Parallel()
	many := map[string]any{}
	for i := range 26 {
		many[fmt.Sprintf("in%d", i)] = "x"
	}
	base := map[string]any{"correlation_id": "c-1", "discussion_number": "12"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range base {
			m[a] = b
		}
		m[k] = v
		return m
	}
	tests := []struct {
		name       string
		opts       []Option
		path       string
		body       map[string]any
		wantStatus int
		wantMsg    string
		wantRun    bool
	}{
		{name: "run_details", body: map[string]any{"ref": "main", "inputs": base, "return_run_details": true}, wantStatus: 200, wantRun: true},
		{name: "no_run_details", body: map[string]any{"ref": "main", "inputs": base}, wantStatus: 204, wantRun: true},
		{name: "run_details_false", body: map[string]any{"ref": "main", "inputs": base, "return_run_details": false}, wantStatus: 204, wantRun: true},
		{name: "old_server_refuses_field", opts: []Option{RefuseRunDetails()}, body: map[string]any{"ref": "main", "inputs": base, "return_run_details": true},
			wantStatus: 400, wantMsg: `"return_run_details" is not a permitted key`},
		{name: "old_server_without_field", opts: []Option{RefuseRunDetails()}, body: map[string]any{"ref": "main", "inputs": base}, wantStatus: 204, wantRun: true},
		{name: "unknown_workflow", path: "repos/octo/hello/actions/workflows/nope.yml/dispatches", body: map[string]any{"ref": "main", "inputs": base},
			wantStatus: 404, wantMsg: "Not Found"},
		{name: "unknown_repo", path: "repos/octo/nope/actions/workflows/agent.yml/dispatches", body: map[string]any{"ref": "main", "inputs": base},
			wantStatus: 404, wantMsg: "Not Found"},
		{name: "unknown_ref", body: map[string]any{"ref": "nope", "inputs": base}, wantStatus: 422, wantMsg: "No ref found for: nope"},
		{name: "missing_ref", body: map[string]any{"inputs": base}, wantStatus: 422, wantMsg: `"ref" wasn't supplied`},
		{name: "undeclared_input", body: map[string]any{"ref": "main", "inputs": with("zeta", "1")}, wantStatus: 422,
			wantMsg: `Unexpected inputs provided: ["zeta"]`},
		{name: "missing_required", body: map[string]any{"ref": "main", "inputs": map[string]any{"correlation_id": "c-1"}}, wantStatus: 422,
			wantMsg: "Required input 'discussion_number' not provided"},
		{name: "too_many_inputs", body: map[string]any{"ref": "main", "inputs": many}, wantStatus: 422, wantMsg: "maximum of 25"},
		{name: "inputs_at_size_limit", body: map[string]any{"ref": "main", "inputs": with("resume_context", strings.Repeat("x", MaxDispatchInputsChars-len("c-1")-len("12")))},
			wantStatus: 204, wantRun: true},
		{name: "inputs_over_size_limit", body: map[string]any{"ref": "main", "inputs": with("resume_context", strings.Repeat("x", MaxDispatchInputsChars-len("c-1")-len("12")+1))},
			wantStatus: 422, wantMsg: "inputs are too large"},
		{name: "non_string_input", body: map[string]any{"ref": "main", "inputs": with("mode", false)}, wantStatus: 422, wantMsg: "false is not a string"},
		{name: "null_input", body: map[string]any{"ref": "main", "inputs": with("mode", nil)}, wantStatus: 422, wantMsg: "nil is not a string"},
		{name: "unknown_key", body: map[string]any{"ref": "main", "inputs": base, "extra": 1}, wantStatus: 422, wantMsg: `"extra" is not a permitted key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, tt.opts...)
			agentWorkflow(t, w.g)
			var hooked []Run
			w.g.OnDispatch(func(r Run) { hooked = append(hooked, r) })
			path := tt.path
			if path == "" {
				path = dispatchPath
			}
			status, hdr, body := w.restCall(t, botToken, http.MethodPost, path, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("POST %s status = %d (%v), want %d", path, status, body, tt.wantStatus)
			}
			if tt.wantMsg != "" {
				msg, _ := body["message"].(string)
				if !strings.Contains(msg, tt.wantMsg) {
					t.Errorf("message = %q, want it to contain %q", msg, tt.wantMsg)
				}
				if _, ok := body["documentation_url"]; !ok {
					t.Errorf("error body %v has no documentation_url", body)
				}
			}
			if hdr.Get("X-Ratelimit-Limit") != "1000" {
				t.Errorf("X-Ratelimit-Limit = %q, want 1000", hdr.Get("X-Ratelimit-Limit"))
			}
			runs, _ := w.g.Runs(testRepo)
			if tt.wantRun != (len(runs) == 1) || len(hooked) != len(runs) {
				t.Fatalf("runs = %d, hooked = %d, want a run: %v", len(runs), len(hooked), tt.wantRun)
			}
			if !tt.wantRun {
				return
			}
			r := runs[0]
			if r.Status != "queued" || r.Event != "workflow_dispatch" || r.Name != "agent #12 c-1" || r.DisplayTitle != r.Name ||
				!r.CreatedAt.Equal(w.clock.Now()) || r.Inputs["mode"] != "normal" || r.Actor != "github-actions[bot]" {
				t.Errorf("run = %+v", r)
			}
			if status == 200 {
				want := map[string]any{
					"workflow_run_id": float64(r.ID),
					"run_url":         fmt.Sprintf("%srepos/octo/hello/actions/runs/%d", w.g.URL(), r.ID),
					"html_url":        fmt.Sprintf("https://github.com/octo/hello/actions/runs/%d", r.ID),
				}
				if diff := cmp.Diff(want, body); diff != "" {
					t.Errorf("run details (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestDispatchNewAPIVersionAlwaysReturnsRunDetails(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	agentWorkflow(t, w.g)
	req, _ := http.NewRequest(http.MethodPost, w.g.URL()+dispatchPath, strings.NewReader(`{"ref":"main","inputs":{"correlation_id":"c","discussion_number":"1"}}`))
	req.Header.Set("Authorization", "bearer "+botToken)
	req.Header.Set("X-GitHub-Api-Version", "2026-03-10")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("status with API version 2026-03-10 = %d, want 200", resp.StatusCode)
	}
}

func TestListRuns(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	agentWorkflow(t, w.g)
	for i := range 5 {
		status, _, body := w.restCall(t, botToken, http.MethodPost, dispatchPath, map[string]any{
			"ref": "main", "inputs": map[string]any{"correlation_id": fmt.Sprintf("c-%d", i), "discussion_number": "7"}})
		if status != 204 {
			t.Fatalf("dispatch %d = %d %v", i, status, body)
		}
		w.clock.Step(time.Minute)
	}
	runs, _ := w.g.Runs(testRepo)
	if err := w.g.SetRunStatus(runs[1].ID, "completed", "failure"); err != nil {
		t.Fatal(err)
	}
	if err := w.g.SetRunStatus(runs[1].ID, "completed", ""); err == nil {
		t.Errorf("SetRunStatus(completed without conclusion) = nil, want an error")
	}
	tests := []struct {
		name      string
		query     string
		wantTotal int
		wantNames []string
	}{
		{name: "all_newest_first", query: "", wantTotal: 5, wantNames: []string{"agent #7 c-4", "agent #7 c-3", "agent #7 c-2", "agent #7 c-1", "agent #7 c-0"}},
		{name: "per_page_and_page", query: "?per_page=2&page=2", wantTotal: 5, wantNames: []string{"agent #7 c-2", "agent #7 c-1"}},
		{name: "created_since", query: "?created=%3E%3D2026-11-21T10:03:00Z", wantTotal: 2, wantNames: []string{"agent #7 c-4", "agent #7 c-3"}},
		{name: "created_range", query: "?created=2026-11-21T10:01:00Z..2026-11-21T10:02:00Z", wantTotal: 2, wantNames: []string{"agent #7 c-2", "agent #7 c-1"}},
		{name: "status_conclusion", query: "?status=failure", wantTotal: 1, wantNames: []string{"agent #7 c-1"}},
		{name: "status_queued", query: "?status=queued&event=workflow_dispatch", wantTotal: 4},
		{name: "other_event", query: "?event=schedule", wantTotal: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, _, body := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello/actions/workflows/agent.yml/runs"+tt.query, nil)
			if status != 200 {
				t.Fatalf("status = %d %v", status, body)
			}
			if got := int(body["total_count"].(float64)); got != tt.wantTotal {
				t.Errorf("total_count = %d, want %d", got, tt.wantTotal)
			}
			if tt.wantNames == nil {
				return
			}
			var names []string
			for _, r := range body["workflow_runs"].([]any) {
				m := r.(map[string]any)
				names = append(names, m["name"].(string))
				for _, k := range []string{"id", "display_title", "status", "conclusion", "created_at", "run_started_at", "html_url", "event", "head_sha", "path"} {
					if _, ok := m[k]; !ok {
						t.Errorf("run has no %q", k)
					}
				}
			}
			if diff := cmp.Diff(tt.wantNames, names); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}
	status, _, body := w.restCall(t, botToken, http.MethodGet, fmt.Sprintf("repos/octo/hello/actions/runs/%d", runs[1].ID), nil)
	if status != 200 || body["conclusion"] != "failure" || body["status"] != "completed" {
		t.Errorf("GET run = %d %v %v", status, body["status"], body["conclusion"])
	}
	if status, _, _ := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello/actions/runs/1", nil); status != 404 {
		t.Errorf("GET unknown run = %d, want 404", status)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, tok := range []string{"", "tok-nope"} {
		status, _, body := w.restCall(t, tok, http.MethodGet, "rate_limit", nil)
		if status != 401 || body["message"] != "Bad credentials" {
			t.Errorf("REST with token %q = %d %v, want 401 Bad credentials", tok, status, body)
		}
		got := w.graphql(t, tok, `{ viewer { login } }`, nil)
		if got.Status != 401 {
			t.Errorf("GraphQL with token %q = %d, want 401", tok, got.Status)
		}
	}
	if status, _, _ := w.restCall(t, aliceToken, http.MethodGet, "../../repos/octo/hello", nil); status != 404 {
		t.Errorf("REST outside the API prefix = %d, want 404", status)
	}
}

func TestRESTRateLimit(t *testing.T) {
	t.Parallel()
	w := newWorld(t, WithRESTBudget(3))
	for i := 1; i <= 3; i++ {
		status, hdr, _ := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello", nil)
		if status != 200 {
			t.Fatalf("request %d = %d", i, status)
		}
		want := map[string]string{"Limit": "3", "Remaining": fmt.Sprint(3 - i), "Used": fmt.Sprint(i), "Resource": "core",
			"Reset": fmt.Sprint(w.clock.Now().Add(time.Hour).Unix())}
		got := map[string]string{}
		for k := range want {
			got[k] = hdr.Get("X-Ratelimit-" + k)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request %d headers (-want +got):\n%s", i, diff)
		}
	}
	status, hdr, body := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello", nil)
	if status != 403 || hdr.Get("X-Ratelimit-Remaining") != "0" || !strings.HasPrefix(fmt.Sprint(body["message"]), "API rate limit exceeded for installation ID") {
		t.Errorf("over budget = %d remaining %q %v, want 403 with remaining 0", status, hdr.Get("X-Ratelimit-Remaining"), body)
	}
	// /rate_limit is free and still answers.
	status, _, body = w.restCall(t, botToken, http.MethodGet, "rate_limit", nil)
	core := body["resources"].(map[string]any)["core"].(map[string]any)
	if status != 200 || core["remaining"] != float64(0) || core["used"] != float64(3) {
		t.Errorf("rate_limit = %d %v", status, core)
	}
	// Another token has its own budget; the window resets after an hour.
	if status, _, _ := w.restCall(t, aliceToken, http.MethodGet, "repos/octo/hello", nil); status != 200 {
		t.Errorf("other token = %d, want 200", status)
	}
	w.clock.Step(time.Hour)
	if status, _, _ := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello", nil); status != 200 {
		t.Errorf("after reset = %d, want 200", status)
	}
	w429 := newWorld(t, WithRESTBudget(0), WithRateLimitStatus(429))
	if status, _, _ := w429.restCall(t, botToken, http.MethodGet, "repos/octo/hello", nil); status != 429 {
		t.Errorf("with WithRateLimitStatus(429) = %d", status)
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	t.Run("502_once_then_success", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		w.g.Fail(Fault{Path: "/repos/octo/hello", Count: 1})
		if status, _, _ := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello", nil); status != 502 {
			t.Errorf("first = %d, want 502", status)
		}
		if status, _, _ := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello", nil); status != 200 {
			t.Errorf("second = %d, want 200", status)
		}
		reqs := w.g.Requests()
		if len(reqs) != 2 || !reqs[0].Fault || reqs[0].Status != 502 || reqs[1].Fault || w.g.CountREST() != 2 {
			t.Errorf("log = %+v", reqs)
		}
	})
	t.Run("secondary_rate_limit", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		agentWorkflow(t, w.g)
		w.g.Fail(SecondaryRateLimit("/repos/octo/hello/actions/", 3))
		status, hdr, body := w.restCall(t, botToken, http.MethodPost, dispatchPath, map[string]any{"ref": "main"})
		if status != 403 || hdr.Get("Retry-After") != "3" || !strings.HasPrefix(fmt.Sprint(body["message"]), "You have exceeded a secondary rate limit") {
			t.Errorf("= %d retry-after %q %v", status, hdr.Get("Retry-After"), body)
		}
		if runs, _ := w.g.Runs(testRepo); len(runs) != 0 {
			t.Errorf("a refused dispatch created %d runs", len(runs))
		}
	})
	t.Run("drop_after_apply_dispatch", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		agentWorkflow(t, w.g)
		w.g.Fail(Fault{Method: "POST", Path: "/repos/octo/hello/actions/workflows/", Count: 1, AfterApply: true})
		status, _, _ := w.restCall(t, botToken, http.MethodPost, dispatchPath, map[string]any{"ref": "main",
			"inputs": map[string]any{"correlation_id": "c-9", "discussion_number": "1"}, "return_run_details": true})
		runs, _ := w.g.Runs(testRepo)
		if status != 502 || len(runs) != 1 {
			t.Errorf("drop after apply: status %d, runs %d; want 502 and the run created", status, len(runs))
		}
	})
	t.Run("drop_after_apply_mutation", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		d := mustDiscussion(t, w.g, "alice", "rfc")
		w.g.Fail(Fault{Field: "addDiscussionComment", Count: 1, AfterApply: true})
		got := w.graphql(t, botToken, addComment, map[string]any{"input": map[string]any{"discussionId": d.ID, "body": "hi"}})
		cs, _ := w.g.Comments(d.ID)
		if got.Status != 502 || len(cs) != 1 {
			t.Errorf("status %d, comments %d; want 502 and the comment posted", got.Status, len(cs))
		}
		// Queries are not matched by a mutation's field rule.
		if got := w.graphql(t, botToken, `{ viewer { login } }`, nil); got.Status != 200 {
			t.Errorf("query status = %d", got.Status)
		}
	})
	t.Run("graphql_rate_limited", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		reset := w.clock.Now().Add(10 * time.Minute)
		w.g.Fail(GraphQLRateLimited("", reset))
		got := w.graphql(t, botToken, `{ viewer { login } }`, nil)
		if got.Status != 200 || len(got.Errors) != 1 || got.Errors[0].Type != "RATE_LIMITED" || got.HasKey["data"] ||
			got.Header.Get("X-Ratelimit-Reset") != fmt.Sprint(reset.Unix()) {
			t.Errorf("= %d %+v reset %q", got.Status, got.Errors, got.Header.Get("X-Ratelimit-Reset"))
		}
		if got := w.graphql(t, botToken, `{ viewer { login } }`, nil); len(got.Errors) > 0 {
			t.Errorf("second = %+v, want success", got.Errors)
		}
	})
	t.Run("latency_and_headers", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		h := http.Header{}
		h.Set("Retry-After", "1")
		w.g.Fail(Fault{Path: "/rate_limit", Count: 2, Status: 500, Header: h, Latency: 20 * time.Millisecond})
		start := time.Now()
		for range 2 {
			status, hdr, _ := w.restCall(t, botToken, http.MethodGet, "rate_limit", nil)
			if status != 500 || hdr.Get("Retry-After") != "1" {
				t.Errorf("= %d retry-after %q", status, hdr.Get("Retry-After"))
			}
		}
		if time.Since(start) < 40*time.Millisecond {
			t.Errorf("two requests took %v, want at least the injected 40ms", time.Since(start))
		}
		w.g.ClearFaults()
		if status, _, _ := w.restCall(t, botToken, http.MethodGet, "rate_limit", nil); status != 200 {
			t.Errorf("after ClearFaults = %d", status)
		}
	})
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				w.graphql(t, botToken, addComment, map[string]any{"input": map[string]any{"discussionId": d.ID, "body": fmt.Sprint(i)}})
			} else if _, err := w.g.Comment(d.ID, "bob", fmt.Sprint(i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	cs, _ := w.g.Comments(d.ID)
	if len(cs) != 20 || w.g.CountGraphQL() != 10 {
		t.Errorf("comments %d, graphql requests %d; want 20 and 10", len(cs), w.g.CountGraphQL())
	}
}

func TestContentCreationLimit(t *testing.T) {
	t.Parallel()
	w := newWorld(t, WithContentCreationLimit(3))
	agentWorkflow(t, w.g)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	post := func() int {
		return w.graphql(t, botToken, addComment, map[string]any{"input": map[string]any{"discussionId": d.ID, "body": "x"}}).Status
	}
	for i := range 2 {
		if got := post(); got != 200 {
			t.Fatalf("mutation %d = %d", i, got)
		}
	}
	// Queries do not count; a REST POST does.
	for range 5 {
		w.graphql(t, botToken, `{ viewer { login } }`, nil)
	}
	status, _, _ := w.restCall(t, botToken, http.MethodPost, dispatchPath, map[string]any{"ref": "main",
		"inputs": map[string]any{"correlation_id": "c", "discussion_number": "1"}})
	if status != 204 {
		t.Fatalf("third content-creating request = %d, want 204", status)
	}
	status, hdr, body := w.restCall(t, botToken, http.MethodPost, dispatchPath, map[string]any{"ref": "main"})
	if status != 403 || hdr.Get("Retry-After") != "60" || !strings.Contains(fmt.Sprint(body["message"]), "secondary rate limit") {
		t.Errorf("fourth = %d %v, want 403 secondary rate limit", status, body)
	}
	if got := post(); got != 403 {
		t.Errorf("mutation over the limit = %d, want 403", got)
	}
	if got := w.graphql(t, aliceToken, addComment, map[string]any{"input": map[string]any{"discussionId": d.ID, "body": "x"}}).Status; got != 200 {
		t.Errorf("another token = %d, want 200", got)
	}
	w.clock.Step(time.Minute)
	if got := post(); got != 200 {
		t.Errorf("a minute later = %d, want 200", got)
	}
}
