package github

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

func TestRateLimitWaits(t *testing.T) {
	t.Parallel()
	secondary := `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before trying again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}`
	tests := []struct {
		name string
		// match picks the requests refused; respond refuses one.
		match   func(call) bool
		respond func(h *hub) func(w http.ResponseWriter)
		do      func(ctx context.Context, c *Client) error
		want    []time.Duration
	}{
		{
			name:  "retry_after_on_403",
			match: isREST,
			respond: func(*hub) func(w http.ResponseWriter) {
				return func(w http.ResponseWriter) {
					w.Header().Set("Retry-After", "3")
					w.WriteHeader(http.StatusForbidden)
					io.WriteString(w, secondary)
				}
			},
			do:   getRun,
			want: []time.Duration{3 * time.Second},
		},
		{
			name:  "retry_after_on_429_mutation",
			match: isMutation,
			respond: func(*hub) func(w http.ResponseWriter) {
				return func(w http.ResponseWriter) {
					w.Header().Set("Retry-After", "7")
					w.WriteHeader(http.StatusTooManyRequests)
				}
			},
			do:   react,
			want: []time.Duration{7 * time.Second},
		},
		{
			name:  "ratelimit_reset_when_budget_exhausted",
			match: isREST,
			respond: func(h *hub) func(w http.ResponseWriter) {
				return func(w http.ResponseWriter) {
					w.Header().Set("X-RateLimit-Remaining", "0")
					w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(h.clock.Now().Add(30*time.Second).Unix(), 10))
					w.WriteHeader(http.StatusForbidden)
					io.WriteString(w, `{"message":"API rate limit exceeded for installation ID 1."}`)
				}
			},
			do: getRun,
			// Until after the reset second, as GitHub asks.
			want: []time.Duration{31 * time.Second},
		},
		{
			name:  "secondary_without_headers_waits_a_minute",
			match: isREST,
			respond: func(*hub) func(w http.ResponseWriter) {
				return func(w http.ResponseWriter) {
					w.WriteHeader(http.StatusForbidden)
					io.WriteString(w, secondary)
				}
			},
			do:   getRun,
			want: []time.Duration{time.Minute},
		},
		{
			name:  "graphql_rate_limited_with_http_200",
			match: isQuery,
			respond: func(h *hub) func(w http.ResponseWriter) {
				return func(w http.ResponseWriter) {
					w.Header().Set("X-RateLimit-Remaining", "0")
					w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(h.clock.Now().Add(20*time.Second).Unix(), 10))
					writeJSON(w, 200, map[string]any{"errors": []any{map[string]any{
						"type": "RATE_LIMITED", "message": "API rate limit exceeded for user ID 1."}}})
				}
			},
			do:   discussion,
			want: []time.Duration{21 * time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			h.addDiscussion(1)
			h.serveRun(7, "agent c-1")
			h.setFault(failFirst(1, tt.match, tt.respond(h)))
			c := h.client(t, nil)
			if err := tt.do(context.Background(), c); err != nil {
				t.Fatalf("call after a rate limit = %v, want success after waiting", err)
			}
			if diff := cmp.Diff(tt.want, h.clock.Sleeps()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if got := len(h.Calls()); got != 2 {
				t.Errorf("requests = %d, want 2 (refused, then repeated)", got)
			}
		})
	}
}

func TestRateLimitBeyondMaxWait(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		match   func(call) bool
		headers map[string]string
		status  int
		do      func(context.Context, *Client) error
		wait    time.Duration
	}{
		{"retry_after_too_long_rest", isREST, map[string]string{"Retry-After": "600"}, 403, getRun, 600 * time.Second},
		{"reset_too_far_graphql_query", isQuery, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "+3600"}, 403, discussion, 3601 * time.Second},
		{"retry_after_too_long_mutation", isMutation, map[string]string{"Retry-After": "61"}, 429, react, 61 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			h.addDiscussion(1)
			h.serveRun(7, "agent c-1")
			h.setFault(failFirst(1, tt.match, func(w http.ResponseWriter) {
				for k, v := range tt.headers {
					if v[0] == '+' {
						d, _ := strconv.Atoi(v[1:])
						v = strconv.FormatInt(h.clock.Now().Add(time.Duration(d)*time.Second).Unix(), 10)
					}
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, `{"message":"rate limit"}`)
			}))
			c := h.client(t, nil)
			start := h.clock.Now()
			err := tt.do(context.Background(), c)
			var rl *RateLimitError
			if !errors.As(err, &rl) {
				t.Fatalf("call = %v, want a *RateLimitError", err)
			}
			if want := start.Add(tt.wait); !rl.ResetAt.Equal(want) {
				t.Errorf("RateLimitError.ResetAt = %v, want %v", rl.ResetAt, want)
			}
			if got := h.clock.Sleeps(); len(got) != 0 {
				t.Errorf("slept %v, want no sleep beyond MaxWait", got)
			}
			if got := len(h.Calls()); got != 1 {
				t.Errorf("requests = %d, want 1", got)
			}
		})
	}
}

func TestExhaustedBudgetWaitsBeforeSending(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.rest.HandleFunc("GET /api/v3/repos/o/r/actions/runs/7", func(w http.ResponseWriter, r *http.Request) {
		// The last request of the budget succeeds but leaves nothing.
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(h.clock.Now().Add(10*time.Second).Unix(), 10))
		writeJSON(w, 200, runJSON(7, "agent c-1"))
	})
	h.serveRun(8, "agent c-2")
	c := h.client(t, nil)
	ctx := context.Background()
	if _, err := c.Run(ctx, 7); err != nil {
		t.Fatalf("Run(7) = %v", err)
	}
	if _, err := c.Run(ctx, 8); err != nil {
		t.Fatalf("Run(8) = %v", err)
	}
	if diff := cmp.Diff([]time.Duration{11 * time.Second}, h.clock.Sleeps()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	calls := h.Calls()
	if len(calls) != 2 || calls[1].At.Sub(calls[0].At) < 11*time.Second {
		t.Errorf("second request sent at %v after the first, want after the reset", calls[1].At.Sub(calls[0].At))
	}
}

func TestServerErrorRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		match    func(call) bool
		failures int
		do       func(context.Context, *Client) error
		wantErr  bool
		requests int
		waits    []time.Duration
	}{
		{"get_retried_then_succeeds", isREST, 2, getRun, false, 3, []time.Duration{time.Second, 2 * time.Second}},
		{"get_gives_up_after_three_tries", isREST, 3, getRun, true, 3, []time.Duration{time.Second, 2 * time.Second}},
		{"graphql_query_retried", isQuery, 1, discussion, false, 2, []time.Duration{time.Second}},
		{"graphql_mutation_not_retried", isMutation, 1, react, true, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			h.addDiscussion(1)
			h.serveRun(7, "agent c-1")
			h.setFault(failFirst(tt.failures, tt.match, func(w http.ResponseWriter) {
				w.WriteHeader(http.StatusBadGateway)
				io.WriteString(w, "bad gateway")
			}))
			c := h.client(t, nil)
			err := tt.do(context.Background(), c)
			if (err != nil) != tt.wantErr {
				t.Fatalf("call = %v, want error %v", err, tt.wantErr)
			}
			if errors.Is(err, resume.ErrNotFound) {
				t.Errorf("call = %v, a 502 must not read as not found", err)
			}
			if got := len(h.Calls()); got != tt.requests {
				t.Errorf("requests = %d, want %d", got, tt.requests)
			}
			if diff := cmp.Diff(tt.waits, h.clock.Sleeps()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGraphQLMutationServerErrorIsTyped(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.setFault(failFirst(1, isMutation, func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) }))
	err := h.client(t, nil).React(context.Background(), "DC_1", resume.Eyes)
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusBadGateway {
		t.Errorf("React = %v, want a *StatusError with status 502", err)
	}
}

// GitHub's error text that recess keeps for people is shortened by whole
// characters: an answer of accented text past the bound is cut before a
// character, never inside one, so logs, annotations and the record stay
// valid UTF-8.
func TestErrorTextKeepsWholeCharacters(t *testing.T) {
	t.Parallel()
	// "a" first, so that a cut by bytes falls inside a two-byte "é".
	long := "a" + strings.Repeat("é", 600)
	tests := []struct {
		name    string
		match   func(call) bool
		status  int
		headers map[string]string
		do      func(context.Context, *Client) error
		// text is the part of the error that carries GitHub's answer.
		text  func(error) (string, bool)
		runes int
	}{
		{name: "graphql_status_body", match: isMutation, status: http.StatusBadGateway, do: react, runes: 512,
			text: func(err error) (string, bool) {
				var se *StatusError
				ok := errors.As(err, &se)
				return se.Body, ok
			}},
		{name: "rest_rate_limit_message", match: isREST, status: http.StatusTooManyRequests,
			headers: map[string]string{"Retry-After": "3600"}, do: getRun, runes: 200,
			text: func(err error) (string, bool) {
				var rl *RateLimitError
				ok := errors.As(err, &rl)
				return rl.Message, ok
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			h.serveRun(7, "agent c-1")
			h.setFault(failFirst(1, tt.match, func(w http.ResponseWriter) {
				for k, v := range tt.headers {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, long)
			}))
			err := tt.do(context.Background(), h.client(t, nil))
			got, ok := tt.text(err)
			if !ok {
				t.Fatalf("call = %v, want the error that carries GitHub's answer", err)
			}
			if want := string([]rune(long)[:tt.runes]) + "…"; got != want {
				t.Errorf("error text = %q (valid UTF-8: %v), want the first %d characters and \"…\"", got, utf8.ValidString(got), tt.runes)
			}
			if !utf8.ValidString(err.Error()) {
				t.Errorf("error %q is not valid UTF-8", err)
			}
		})
	}
}

func TestRequestsNeverParallel(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.addDiscussion(1)
	h.serveRun(7, "agent c-1")
	h.edit(func() { h.delay = 3 * time.Millisecond })
	c := h.client(t, nil)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 24)
	for i := range 24 {
		wg.Go(func() {
			switch i % 3 {
			case 0:
				errs <- getRun(ctx, c)
			case 1:
				errs <- discussion(ctx, c)
			default:
				errs <- react(ctx, c)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent call = %v", err)
		}
	}
	if got := h.MaxInFlight(); got != 1 {
		t.Errorf("server saw %d requests in flight at once, want 1", got)
	}
	if got := c.Requests(); got != 24 {
		t.Errorf("Requests() = %d, want 24", got)
	}
}

func TestContentCreatingRequestsArePaced(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	c := h.client(t, nil)
	ctx := context.Background()
	const n = 200
	for range n {
		if err := react(ctx, c); err != nil {
			t.Fatalf("React = %v", err)
		}
	}
	// Reads are never paced.
	h.serveRun(7, "agent c-1")
	for range 20 {
		if err := getRun(ctx, c); err != nil {
			t.Fatalf("Run = %v", err)
		}
	}
	var at []time.Time
	for _, cl := range h.Calls() {
		if isMutation(cl) {
			at = append(at, cl.At)
		}
	}
	if len(at) != n {
		t.Fatalf("mutations sent = %d, want %d", len(at), n)
	}
	most := 0
	for i := range at {
		j := i
		for j < len(at) && at[j].Sub(at[i]) <= time.Minute {
			j++
		}
		most = max(most, j-i)
	}
	if most >= 80 {
		t.Errorf("most mutations in one minute = %d, want under 80", most)
	}
	if most != contentBurst+60 {
		t.Errorf("most mutations in one minute = %d, want %d (burst plus one a second)", most, contentBurst+60)
	}
	if got := len(h.clock.Sleeps()); got != n-contentBurst {
		t.Errorf("pacing waits = %d, want %d", got, n-contentBurst)
	}
	if got := c.Requests(); got != n+20 {
		t.Errorf("Requests() = %d, want %d mutations and 20 REST reads", got, n)
	}
}

func TestAPIURLPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		suffix string
	}{
		{"without_trailing_slash", "/api/v3"},
		{"with_trailing_slash", "/api/v3/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			h.serveRun(7, "agent c-1")
			c := h.client(t, func(cfg *Config) { cfg.APIURL = h.srv.URL + tt.suffix })
			run, err := c.Run(context.Background(), 7)
			if err != nil {
				t.Fatalf("Run(7) with APIURL %q = %v", tt.suffix, err)
			}
			if run.ID != 7 {
				t.Errorf("Run(7).ID = %d, want 7", run.ID)
			}
		})
	}
}

func TestNewDerivesGraphQLURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		api, want string
	}{
		{"https://api.github.com", "https://api.github.com/graphql"},
		{"https://ghe.example.com/api/v3", "https://ghe.example.com/api/graphql"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/api/graphql"},
	}
	for _, tt := range tests {
		t.Run(tt.api, func(t *testing.T) {
			t.Parallel()
			c, err := New(Config{APIURL: tt.api, Owner: "o", Repo: "r"})
			if err != nil {
				t.Fatalf("New(%q) = %v", tt.api, err)
			}
			if got := c.tr.graphql.String(); got != tt.want {
				t.Errorf("New(%q) GraphQL URL = %q, want %q", tt.api, got, tt.want)
			}
		})
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cfg   Config
		field string
	}{
		{"no_owner", Config{Repo: "r"}, "Owner"},
		{"no_repo", Config{Owner: "o"}, "Repo"},
		{"bad_api_url", Config{Owner: "o", Repo: "r", APIURL: "ftp://x"}, "APIURL"},
		{"bad_graphql_url", Config{Owner: "o", Repo: "r", GraphQLURL: "not a url"}, "GraphQLURL"},
		{"workflow_path", Config{Owner: "o", Repo: "r", Workflow: "../agent.yml"}, "Workflow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(tt.cfg)
			var ce *wait.FieldError
			if !errors.As(err, &ce) || ce.Field != tt.field {
				t.Errorf("New(%+v) = %v, want a *wait.FieldError for %s", tt.cfg, err, tt.field)
			}
		})
	}
}

func getRun(ctx context.Context, c *Client) error {
	_, err := c.Run(ctx, 7)
	return err
}

func discussion(ctx context.Context, c *Client) error {
	_, err := c.Thread(ctx, resume.DiscussionRef(1))
	return err
}

func react(ctx context.Context, c *Client) error {
	return c.React(ctx, "DC_1", resume.Eyes)
}
