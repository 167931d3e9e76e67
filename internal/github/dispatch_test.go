package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
)

const dispatchPath = "/api/v3/repos/o/r/actions/workflows/agent.yml/dispatches"

type dispatchBody struct {
	Ref              string            `json:"ref"`
	Inputs           map[string]string `json:"inputs"`
	ReturnRunDetails *bool             `json:"return_run_details"`
}

// dispatchServer serves the repository (default branch "trunk") and a
// dispatch endpoint that answers with answer(body) and records the bodies.
type dispatchServer struct {
	mu     sync.Mutex
	bodies []dispatchBody
}

func (d *dispatchServer) install(t *testing.T, h *hub, answer func(w http.ResponseWriter, b dispatchBody)) {
	h.rest.HandleFunc("GET /api/v3/repos/o/r", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"id": 1, "name": "r", "full_name": "o/r", "default_branch": "trunk"})
	})
	h.rest.HandleFunc("POST "+dispatchPath, func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var b dispatchBody
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Errorf("dispatch body %q: %v", raw, err)
		}
		d.mu.Lock()
		d.bodies = append(d.bodies, b)
		d.mu.Unlock()
		answer(w, b)
	})
}

func (d *dispatchServer) Bodies() []dispatchBody {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]dispatchBody(nil), d.bodies...)
}

func runDetails(w http.ResponseWriter, b dispatchBody) {
	writeJSON(w, 200, map[string]any{"workflow_run_id": 4242,
		"run_url": "https://api.github.com/repos/o/r/actions/runs/4242", "html_url": "https://github.com/o/r/actions/runs/4242"})
}

// olderServer refuses return_run_details like older GitHub Enterprise Server.
func olderServer(w http.ResponseWriter, b dispatchBody) {
	if b.ReturnRunDetails != nil {
		writeJSON(w, 400, map[string]any{"message": "Invalid request.\n\n\"return_run_details\" is not a permitted key."})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func status(code int, msg string) func(w http.ResponseWriter, b dispatchBody) {
	return func(w http.ResponseWriter, b dispatchBody) {
		writeJSON(w, code, map[string]any{"message": msg})
	}
}

var request = resume.DispatchRequest{CorrelationID: "c-7f3a", Discussion: 12, ResumeContext: `{"correlation_id":"c-0"}`}

func TestDispatch(t *testing.T) {
	t.Parallel()
	yes := true
	wantInputs := map[string]string{"correlation_id": "c-7f3a", "discussion_number": "12", "resume_context": `{"correlation_id":"c-0"}`}
	tests := []struct {
		name    string
		answer  func(w http.ResponseWriter, b dispatchBody)
		wantID  int64
		refused bool
		failed  bool
		missing bool
		bodies  []dispatchBody
	}{
		{
			name:   "run_details_returned",
			answer: runDetails,
			wantID: 4242,
			bodies: []dispatchBody{{Ref: "trunk", Inputs: wantInputs, ReturnRunDetails: &yes}},
		},
		{
			name:   "older_server_refuses_field",
			answer: olderServer,
			wantID: 0,
			bodies: []dispatchBody{
				{Ref: "trunk", Inputs: wantInputs, ReturnRunDetails: &yes},
				{Ref: "trunk", Inputs: wantInputs},
			},
		},
		{
			name:    "unprocessable_is_refused",
			answer:  status(422, "Unexpected inputs provided: [\"resume_context\"]"),
			refused: true,
			bodies:  []dispatchBody{{Ref: "trunk", Inputs: wantInputs, ReturnRunDetails: &yes}},
		},
		{
			// A missing agent workflow is its own answer (ErrNoWorkflow):
			// what is owed waits for the workflow input to be fixed.
			name:    "missing_workflow_is_no_workflow",
			answer:  status(404, "Not Found"),
			missing: true,
			bodies:  []dispatchBody{{Ref: "trunk", Inputs: wantInputs, ReturnRunDetails: &yes}},
		},
		{
			name:    "bad_request_both_ways_is_refused",
			answer:  status(400, "Problems parsing JSON"),
			refused: true,
			bodies: []dispatchBody{
				{Ref: "trunk", Inputs: wantInputs, ReturnRunDetails: &yes},
				{Ref: "trunk", Inputs: wantInputs},
			},
		},
		{
			// A 502 may hide an applied dispatch: neither refused nor
			// repeated.
			name:   "bad_gateway_is_plain_and_not_retried",
			answer: status(502, "Server Error"),
			failed: true,
			bodies: []dispatchBody{{Ref: "trunk", Inputs: wantInputs, ReturnRunDetails: &yes}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			var ds dispatchServer
			ds.install(t, h, tt.answer)
			c := h.client(t, nil)
			id, err := c.Dispatch(context.Background(), request)
			if got := errors.Is(err, resume.ErrDispatchRefused); got != tt.refused {
				t.Errorf("Dispatch() = %v; refused %v, want %v", err, got, tt.refused)
			}
			if got := errors.Is(err, resume.ErrNoWorkflow); got != tt.missing {
				t.Errorf("Dispatch() = %v; no workflow %v, want %v", err, got, tt.missing)
			}
			if wantErr := tt.refused || tt.failed || tt.missing; (err != nil) != wantErr {
				t.Errorf("Dispatch() = %v, want error %v", err, wantErr)
			}
			if id != tt.wantID {
				t.Errorf("Dispatch() = %d, want %d", id, tt.wantID)
			}
			if diff := cmp.Diff(tt.bodies, ds.Bodies()); diff != "" {
				t.Errorf("dispatch bodies (-want +got):\n%s", diff)
			}
		})
	}
}

// A dispatch runs on the default branch its discussion's read reported,
// also when an earlier read reported another (the branch was renamed in
// between): the client keeps no branch of its own, and asks for none.
func TestDispatchRunsOnTheDefaultBranchItsReadReported(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.addDiscussion(12)
	var ds dispatchServer
	ds.install(t, h, runDetails)
	c := h.client(t, nil)
	ctx := context.Background()
	var got []string
	for _, branch := range []string{"main", "release"} {
		h.edit(func() { h.defaultBranch = branch })
		read, err := c.Thread(ctx, resume.DiscussionRef(12))
		if err != nil {
			t.Fatalf("Discussion(12) = %v", err)
		}
		req := request
		req.Repo = read.Repo
		if _, err := c.Dispatch(ctx, req); err != nil {
			t.Fatalf("Dispatch() on %s = %v", branch, err)
		}
		got = append(got, ds.Bodies()[len(got)].Ref)
	}
	if diff := cmp.Diff([]string{"main", "release"}, got); diff != "" {
		t.Errorf("dispatch refs (-want +got):\n%s", diff)
	}
	for _, cl := range h.Calls() {
		if cl.Root == "/repos/o/r" {
			t.Errorf("default-branch lookup %s although the read reported it", cl.Root)
		}
	}
}

func TestDispatchRefusalRememberedAndRunFound(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	var ds dispatchServer
	ds.install(t, h, olderServer)
	h.rest.HandleFunc("GET /api/v3/repos/o/r/actions/workflows/agent.yml/runs", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"total_count": 2, "workflow_runs": []any{
			runJSON(9, "agent c-7f3a0 #13"),
			runJSON(8, "agent c-7f3a #12"),
		}})
	})
	c := h.client(t, func(cfg *Config) { cfg.Ref = "release" })
	ctx := context.Background()
	for i := range 2 {
		id, err := c.Dispatch(ctx, request)
		if err != nil || id != 0 {
			t.Fatalf("Dispatch() #%d = %d, %v, want 0, nil", i+1, id, err)
		}
	}
	// The field is sent once; after the refusal, never again. Config.Ref
	// spares the default-branch lookup.
	yes := true
	inputs := request.Inputs()
	want := []dispatchBody{
		{Ref: "release", Inputs: inputs, ReturnRunDetails: &yes},
		{Ref: "release", Inputs: inputs},
		{Ref: "release", Inputs: inputs},
	}
	if diff := cmp.Diff(want, ds.Bodies()); diff != "" {
		t.Errorf("dispatch bodies (-want +got):\n%s", diff)
	}
	run, err := c.FindRun(ctx, request.CorrelationID)
	if err != nil {
		t.Fatalf("FindRun(%q) = %v", request.CorrelationID, err)
	}
	if run.ID != 8 {
		t.Errorf("FindRun(%q).ID = %d, want 8 (c-7f3a0 is another id)", request.CorrelationID, run.ID)
	}
	for _, cl := range h.Calls() {
		if strings.HasPrefix(cl.Root, "/repos/o/r?") || cl.Root == "/repos/o/r" {
			t.Errorf("unexpected default-branch lookup %s with Config.Ref set", cl.Root)
		}
	}
}

func TestFindRun(t *testing.T) {
	t.Parallel()
	runs := []any{
		runJSON(5, "agent c-12"),
		runJSON(4, "c-1x and more"),
		runJSON(3, "resume (c-1) for #4"),
		runJSON(2, "agent c-9"),
	}
	tests := []struct {
		name   string
		id     string
		want   int64
		query  string
		absent bool
	}{
		{name: "whole_token_in_parentheses", id: "c-1", want: 3, query: "event=workflow_dispatch&per_page=100"},
		{name: "newest_match", id: "c-12", want: 5, query: "event=workflow_dispatch&per_page=100"},
		{name: "none", id: "c-2", absent: true, query: "event=workflow_dispatch&per_page=100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			h.rest.HandleFunc("GET /api/v3/repos/o/r/actions/workflows/agent.yml/runs", func(w http.ResponseWriter, r *http.Request) {
				if r.URL.RawQuery != tt.query {
					t.Errorf("runs query = %q, want %q", r.URL.RawQuery, tt.query)
				}
				writeJSON(w, 200, map[string]any{"total_count": len(runs), "workflow_runs": runs})
			})
			c := h.client(t, nil)
			run, err := c.FindRun(context.Background(), tt.id)
			if tt.absent {
				if !errors.Is(err, resume.ErrNotFound) {
					t.Errorf("FindRun(%q) = %v, %v, want ErrNotFound", tt.id, run, err)
				}
				return
			}
			if err != nil || run.ID != tt.want {
				t.Fatalf("FindRun(%q) = %+v, %v, want run %d", tt.id, run, err, tt.want)
			}
			want := &resume.WorkflowRun{ID: tt.want, Name: run.Name, Status: "queued", CreatedAt: epoch,
				URL: "https://github.com/o/r/actions/runs/" + itoa(tt.want)}
			if diff := cmp.Diff(want, run); diff != "" {
				t.Errorf("FindRun(%q) (-want +got):\n%s", tt.id, diff)
			}
			if got := len(h.Calls()); got != 1 {
				t.Errorf("requests = %d, want 1", got)
			}
		})
	}
}

func TestRunNotFound(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	_, err := h.client(t, nil).Run(context.Background(), 99)
	if !errors.Is(err, resume.ErrNotFound) {
		t.Errorf("Run(99) = %v, want ErrNotFound", err)
	}
}

// RecentDispatches counts fresh dispatches only: runs whose name carries a
// resume's correlation id (r-…) are left out, over as many pages as the
// window holds.
func TestRecentDispatches(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	var page1, page2 []any
	for i := range 100 {
		name := fmt.Sprintf("agent c-%020x", i) // fresh
		if i%4 == 0 {
			name = fmt.Sprintf("agent r-%020x", i) // a resume: 25 of them
		}
		page1 = append(page1, runJSON(int64(i+1), name))
	}
	page2 = append(page2, runJSON(101, "agent c-00000000000000000101"), runJSON(102, "agent r-00000000000000000102 (retry)"))
	h.rest.HandleFunc("GET /api/v3/repos/o/r/actions/workflows/agent.yml/runs", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("created") != ">=2026-11-21T09:00:00Z" || q.Get("event") != "workflow_dispatch" || q.Get("per_page") != "100" {
			t.Errorf("runs query = %q", r.URL.RawQuery)
		}
		switch q.Get("page") {
		case "1":
			w.Header().Set("Link", `<http://x/runs?page=2>; rel="next"`)
			writeJSON(w, 200, map[string]any{"total_count": 102, "workflow_runs": page1})
		case "2":
			writeJSON(w, 200, map[string]any{"total_count": 102, "workflow_runs": page2})
		default:
			t.Errorf("page %q asked for", q.Get("page"))
		}
	})
	c := h.client(t, nil)
	since := epoch.Add(-time.Hour).In(time.FixedZone("CET", 3600))
	n, err := c.RecentDispatches(context.Background(), since)
	if err != nil || n != 76 {
		t.Errorf("RecentDispatches(%v) = %d, %v, want 76 fresh of 102, nil", since, n, err)
	}
	if got := len(h.Calls()); got != 2 {
		t.Errorf("requests = %d, want 2 (a page per 100)", got)
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
