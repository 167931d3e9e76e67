package githubfake

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Request is one logged request.
type Request struct {
	At     time.Time
	Method string
	// Path is the REST path under the API root ("/repos/o/r/..."), or
	// "/graphql" for GraphQL.
	Path     string
	RawQuery string
	GraphQL  bool
	// Fields are the GraphQL root fields ("repository", "addDiscussionComment").
	Fields   []string
	Mutation bool
	Token    string
	Status   int
	// Cost is the GraphQL points charged.
	Cost int
	// Fault tells that a fault rule shaped the answer.
	Fault bool
}

// Requests returns a copy of the request log.
func (g *GitHub) Requests() []Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.requests)
}

// ResetLog empties the request log (budgets are kept).
func (g *GitHub) ResetLog() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = nil
}

// CountREST counts logged REST requests.
func (g *GitHub) CountREST() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, r := range g.requests {
		if !r.GraphQL {
			n++
		}
	}
	return n
}

// CountGraphQL counts logged GraphQL requests.
func (g *GitHub) CountGraphQL() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, r := range g.requests {
		if r.GraphQL {
			n++
		}
	}
	return n
}

// GraphQLPoints sums the points charged for logged GraphQL requests.
func (g *GitHub) GraphQLPoints() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, r := range g.requests {
		n += r.Cost
	}
	return n
}

// budget is one token's hourly rate-limit window.
type budget struct {
	start       time.Time
	restUsed    int
	graphqlUsed int
}

func (b *budget) reset() time.Time { return b.start.Add(time.Hour) }

// budget returns token's current window, opening a new one when the last
// has run out. Callers hold g.mu.
func (g *GitHub) budget(token string) *budget {
	now := g.clock()
	b := g.budgets[token]
	if b == nil || !now.Before(b.reset()) {
		b = &budget{start: now}
		g.budgets[token] = b
	}
	return b
}

type ctxKey struct{}

type reqInfo struct {
	viewer *identity
	token  string
	after  []func()
}

func info(r *http.Request) *reqInfo { return r.Context().Value(ctxKey{}).(*reqInfo) }

// ServeHTTP implements http.Handler: GraphQL at GraphQLPath, REST under
// APIPrefix, 404 elsewhere.
func (g *GitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, nil, restError("Problems reading the request body", ""))
		return
	}
	entry := Request{At: g.clock(), Method: r.Method, RawQuery: r.URL.RawQuery}
	isGraphQL := r.URL.Path == GraphQLPath
	switch {
	case isGraphQL:
		entry.GraphQL, entry.Path = true, "/graphql"
		entry.Fields, entry.Mutation = rootFields(body)
	case strings.HasPrefix(r.URL.Path, APIPrefix+"/"):
		entry.Path = strings.TrimPrefix(r.URL.Path, APIPrefix)
	default:
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", "https://docs.github.com/rest"))
		return
	}
	entry.Token = tokenOf(r)

	g.mu.Lock()
	f := g.matchFault(entry)
	viewer := g.tokens[entry.Token]
	g.mu.Unlock()

	if f != nil && f.Latency > 0 {
		select {
		case <-time.After(f.Latency):
		case <-r.Context().Done():
			return
		}
	}
	var rec *httptest.ResponseRecorder
	var hooks []func()
	switch {
	case f != nil && !f.AfterApply:
		rec = f.respond()
		entry.Fault = true
	case viewer == nil:
		rec = httptest.NewRecorder()
		writeJSON(rec, http.StatusUnauthorized, nil, map[string]any{
			"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401"})
	case !g.allowCreation(entry):
		rec = SecondaryRateLimit("", 60).respondRecorder()
	case isGraphQL:
		if r.Method != http.MethodPost {
			rec = httptest.NewRecorder()
			writeJSON(rec, http.StatusNotFound, nil, restError("Not Found", "https://docs.github.com/graphql"))
			break
		}
		status, out, cost := g.serveGraphQL(body, viewer, entry.Token)
		rec = httptest.NewRecorder()
		g.mu.Lock()
		b := g.budget(entry.Token)
		hdr := rateHeaders(g.graphqlBudget, b.graphqlUsed, b.reset(), "graphql")
		g.mu.Unlock()
		writeRaw(rec, status, hdr, out)
		entry.Cost = cost
	default:
		ri := &reqInfo{viewer: viewer, token: entry.Token}
		req := r.Clone(context.WithValue(r.Context(), ctxKey{}, ri))
		req.URL.Path = entry.Path
		req.Body = io.NopCloser(strings.NewReader(string(body)))
		rec = httptest.NewRecorder()
		g.serveREST(rec, req)
		hooks = ri.after
	}
	if f != nil && f.AfterApply {
		rec = f.respond()
		entry.Fault = true
	}
	for _, h := range hooks {
		h()
	}
	entry.Status = rec.Code
	g.mu.Lock()
	g.requests = append(g.requests, entry)
	g.mu.Unlock()
	for k, vs := range rec.Header() {
		w.Header()[k] = vs
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// tokenOf reads "Authorization: Bearer X" or "token X".
func tokenOf(r *http.Request) string {
	h := r.Header.Get("Authorization")
	for _, p := range []string{"Bearer ", "bearer ", "token ", "Token "} {
		if t, ok := strings.CutPrefix(h, p); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

func rateHeaders(limit, used int, reset time.Time, resource string) http.Header {
	h := http.Header{}
	h.Set("X-Ratelimit-Limit", strconv.Itoa(limit))
	h.Set("X-Ratelimit-Remaining", strconv.Itoa(max(0, limit-used)))
	h.Set("X-Ratelimit-Used", strconv.Itoa(used))
	h.Set("X-Ratelimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-Ratelimit-Resource", resource)
	return h
}

func restError(msg, doc string) map[string]any {
	if doc == "" {
		doc = "https://docs.github.com/rest"
	}
	return map[string]any{"message": msg, "documentation_url": doc}
}

func writeJSON(w http.ResponseWriter, status int, hdr http.Header, v any) {
	var b []byte
	if v != nil {
		b = mustJSON(v)
	}
	writeRaw(w, status, hdr, b)
}

func writeRaw(w http.ResponseWriter, status int, hdr http.Header, b []byte) {
	for k, vs := range hdr {
		w.Header()[k] = vs
	}
	if b != nil {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// OnDispatch registers a hook called with every run a dispatch creates,
// after the state is committed and before the dispatch is answered, without
// the fake's lock held: a hook may call the fake (SetRunStatus, Comment) to
// play the agent.
func (g *GitHub) OnDispatch(hook func(Run)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.onDisp = append(g.onDisp, hook)
}

// GraphQLError is an error GitHub reports inside a 200 GraphQL response.
type GraphQLError struct {
	Type    string
	Message string
}

// Fault is a fault-injection rule. A rule matches a request by Method (any
// when empty) and either Field (a GraphQL root field; only GraphQL requests
// match) or Path (a prefix of the REST path under the API root, e.g.
// "/repos/o/r/actions/"; "/graphql" names the GraphQL endpoint; any when
// empty).
type Fault struct {
	Method string
	Path   string
	Field  string
	// Count limits the rule to the next Count matching requests; zero means
	// every matching request until ClearFaults.
	Count int
	// Status is the HTTP status to answer (502 when zero, or 200 with
	// GraphQLErrors).
	Status int
	// Header is added to the answer (retry-after, x-ratelimit-*).
	Header http.Header
	// Body is the answer's body; empty gives {"message": <status text>}.
	Body string
	// GraphQLErrors, when set, are answered inside a GraphQL response.
	GraphQLErrors []GraphQLError
	// Latency delays the request (before it is handled).
	Latency time.Duration
	// AfterApply performs the request (mutation, dispatch) and then answers
	// with the fault instead: the client cannot know it succeeded.
	AfterApply bool
}

type fault struct {
	Fault
	left int // remaining matches; -1 for unlimited
}

// Fail adds a fault rule. Rules are tried in the order added; the first
// match with uses left applies.
func (g *GitHub) Fail(f Fault) {
	g.mu.Lock()
	defer g.mu.Unlock()
	left := f.Count
	if left <= 0 {
		left = -1
	}
	g.faults = append(g.faults, &fault{Fault: f, left: left})
}

// ClearFaults removes every fault rule.
func (g *GitHub) ClearFaults() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.faults = nil
}

// matchFault finds and consumes the first rule matching e. Callers hold g.mu.
func (g *GitHub) matchFault(e Request) *fault {
	for _, f := range g.faults {
		if f.left == 0 {
			continue
		}
		if f.Method != "" && !strings.EqualFold(f.Method, e.Method) {
			continue
		}
		if f.Field != "" {
			if !e.GraphQL || !slices.Contains(e.Fields, f.Field) {
				continue
			}
		} else if f.Path != "" && !strings.HasPrefix(e.Path, f.Path) {
			continue
		}
		if f.left > 0 {
			f.left--
		}
		return f
	}
	return nil
}

// allowCreation applies the per-minute cap on content-creating requests
// (GraphQL mutations, REST POSTs) of e's token, recording e when allowed.
func (g *GitHub) allowCreation(e Request) bool {
	if g.createLimit <= 0 || !(e.Mutation || (!e.GraphQL && e.Method == http.MethodPost)) {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock()
	recent := g.creations[e.Token][:0]
	for _, t := range g.creations[e.Token] {
		if now.Sub(t) < time.Minute {
			recent = append(recent, t)
		}
	}
	if len(recent) >= g.createLimit {
		g.creations[e.Token] = recent
		return false
	}
	g.creations[e.Token] = append(recent, now)
	return true
}

func (f Fault) respondRecorder() *httptest.ResponseRecorder {
	return (&fault{Fault: f}).respond()
}

func (f *fault) respond() *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	status := f.Status
	if len(f.GraphQLErrors) > 0 {
		if status == 0 {
			status = http.StatusOK
		}
		errs := make([]gqlError, 0, len(f.GraphQLErrors))
		for _, e := range f.GraphQLErrors {
			errs = append(errs, gqlError{Type: e.Type, Message: e.Message})
		}
		writeJSON(rec, status, f.Header, graphQLResponse{Errors: errs})
		return rec
	}
	if status == 0 {
		status = http.StatusBadGateway
	}
	if f.Body != "" {
		writeRaw(rec, status, f.Header, []byte(f.Body))
		return rec
	}
	writeJSON(rec, status, f.Header, map[string]any{"message": http.StatusText(status)})
	return rec
}

// SecondaryRateLimit returns a rule answering once with GitHub's secondary
// rate-limit refusal: 403, retry-after, and its message.
func SecondaryRateLimit(path string, retryAfter int) Fault {
	h := http.Header{}
	h.Set("Retry-After", strconv.Itoa(retryAfter))
	h.Set("X-Ratelimit-Resource", "core")
	return Fault{Path: path, Count: 1, Status: http.StatusForbidden, Header: h, Body: string(mustJSON(map[string]any{
		"message":           "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.",
		"documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
	}))}
}

// GraphQLRateLimited returns a rule answering once, for requests with the
// given root field (any GraphQL request when empty), with GitHub's GraphQL
// rate-limit error inside an HTTP 200 and a reset header.
func GraphQLRateLimited(field string, reset time.Time) Fault {
	h := http.Header{}
	h.Set("X-Ratelimit-Remaining", "0")
	h.Set("X-Ratelimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-Ratelimit-Resource", "graphql")
	f := Fault{Field: field, Count: 1, Header: h, GraphQLErrors: []GraphQLError{{Type: "RATE_LIMITED",
		Message: "API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000."}}}
	if field == "" {
		f.Path = "/graphql"
	}
	return f
}

// decodeJSONBody decodes a REST request body strictly enough to refuse
// what GitHub refuses ("Problems parsing JSON").
func decodeJSONBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("problems parsing JSON: %w", err)
	}
	return nil
}
