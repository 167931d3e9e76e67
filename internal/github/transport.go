package github

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/recess-action/recess/resume"
)

// maxBody bounds a buffered response body. The largest answer recess asks
// for is a page of 100 comments with 100 replies each; GitHub bounds comment
// bodies at 65,536 characters, so this leaves room without letting a broken
// server exhaust memory.
const maxBody = 64 << 20

// defaultSecondaryWait is GitHub's documented wait for a rate-limited request
// that names no moment ("wait for at least one minute before retrying").
const defaultSecondaryWait = time.Minute

// maxRateLimitRetries bounds how often one request is re-sent after rate
// limit waits; GitHub asks clients to give up after a few.
const maxRateLimitRetries = 3

// Kind classifies a request for pacing, retries and Stats.
type Kind int

// Request kinds.
const (
	// GraphQLQuery is a GraphQL query: safe to repeat.
	GraphQLQuery Kind = iota
	// GraphQLMutation is a GraphQL mutation: content-creating, never repeated
	// after an ambiguous failure.
	GraphQLMutation
	// RESTRead is a GET or HEAD: safe to repeat.
	RESTRead
	// RESTWrite is a POST, PATCH, PUT or DELETE: content-creating, never
	// repeated after an ambiguous failure.
	RESTWrite
	numKinds
)

// String names the kind for logs and benchmark output.
func (k Kind) String() string {
	switch k {
	case GraphQLQuery:
		return "graphql-query"
	case GraphQLMutation:
		return "graphql-mutation"
	case RESTRead:
		return "rest-read"
	case RESTWrite:
		return "rest-write"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// safe reports whether a request of this kind may be repeated after a server
// error: it cannot have changed anything.
func (k Kind) safe() bool { return k == GraphQLQuery || k == RESTRead }

// creating reports whether GitHub counts the request against its limit of
// content-creating requests.
func (k Kind) creating() bool { return k == GraphQLMutation || k == RESTWrite }

// Stats are the transport's counters since the client was built. Sent counts
// every request that went over the wire, retries included, because that is
// what GitHub's budgets count.
type Stats struct {
	// Sent is indexed by Kind.
	Sent [numKinds]int
	// Retries counts re-sent requests after a server error or network error.
	Retries int
	// RateLimited counts rate-limit answers (and pre-emptive waits on an
	// exhausted budget).
	RateLimited int
	// Paced counts content-creating requests that had to wait for pacing.
	Paced int
	// Waited is the total time slept: rate limits, backoff and pacing.
	Waited time.Duration
	// MaxInFlight is the most requests the transport ever had on the wire
	// at once; anything but 1 would be a bug.
	MaxInFlight int
}

// Requests returns the number of requests sent, all kinds together.
func (s Stats) Requests() int {
	n := 0
	for _, v := range s.Sent {
		n += v
	}
	return n
}

// Writes returns the number of content-creating requests sent.
func (s Stats) Writes() int { return s.Sent[GraphQLMutation] + s.Sent[RESTWrite] }

// RateLimitError means GitHub asked recess to wait longer than the client's
// bound (Config.MaxWait), or kept refusing after several waits. Nothing was
// applied by the refused request.
type RateLimitError struct {
	// ResetAt is when GitHub said (or recess estimates) requests will be
	// accepted again.
	ResetAt time.Time
	// StatusCode is the HTTP status of the refusal (200 for GraphQL's
	// RATE_LIMITED errors; 0 for a pre-emptive refusal).
	StatusCode int
	// Message is GitHub's message, when it gave one.
	Message string
}

func (e *RateLimitError) Error() string {
	msg := "github: rate limited until " + e.ResetAt.UTC().Format(time.RFC3339)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// StatusError is a non-200 answer of the GraphQL endpoint. (REST errors are
// go-github's *github.ErrorResponse.)
type StatusError struct {
	StatusCode int
	// Body is the beginning of the answer, for people.
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("github: graphql: http status %d: %s", e.StatusCode, e.Body)
}

// GraphQLError is the errors array of a GraphQL answer. Partial data that
// came with it is discarded: recess never acts on half an answer.
type GraphQLError struct {
	Errors []GraphQLErrorItem
}

// GraphQLErrorItem is one entry of a GraphQL errors array. Type is GitHub's
// extension (NOT_FOUND, FORBIDDEN, RATE_LIMITED, ...); it is empty for parse
// and validation errors.
type GraphQLErrorItem struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Path    []any  `json:"path"`
}

func (e *GraphQLError) Error() string {
	parts := make([]string, 0, len(e.Errors))
	for _, it := range e.Errors {
		s := it.Message
		if it.Type != "" {
			s = it.Type + ": " + s
		}
		parts = append(parts, s)
	}
	return "github: graphql: " + strings.Join(parts, "; ")
}

// NotFound reports whether every error says something does not exist, so the
// answer as a whole means "not found" rather than "failed".
func (e *GraphQLError) NotFound() bool {
	if len(e.Errors) == 0 {
		return false
	}
	for _, it := range e.Errors {
		if it.Type != "NOT_FOUND" {
			return false
		}
	}
	return true
}

// Is lets errors.Is(err, resume.ErrNotFound) see through a NOT_FOUND answer.
func (e *GraphQLError) Is(target error) bool {
	return target == resume.ErrNotFound && e.NotFound()
}

func (e *GraphQLError) rateLimited() bool {
	for _, it := range e.Errors {
		if it.Type == "RATE_LIMITED" {
			return true
		}
	}
	return false
}

// transport is the single RoundTripper under both API clients.
type transport struct {
	base     http.RoundTripper
	token    string
	agent    string
	graphql  *url.URL
	clock    resume.Clock
	sleep    func(context.Context, time.Duration) error
	logf     func(string, ...any)
	maxWait  time.Duration
	attempts int
	backoff  time.Duration
	burst    float64
	interval time.Duration

	// sem is held for the whole of a request, waits included, so that
	// nothing is ever sent in parallel. A channel rather than a mutex so
	// that a waiting caller can give up with its context.
	sem chan struct{}

	// Guarded by sem.
	tokens       float64
	refilled     time.Time
	blockedUntil time.Time

	mu       sync.Mutex // guards stats and inflight, read by Stats at any time
	stats    Stats
	inflight int
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, ctx.Err()
	}
	defer func() { <-t.sem }()

	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("github: reading request body: %w", err)
		}
	}
	isGraphQL := t.isGraphQL(req.URL)
	kind := classify(req.Method, isGraphQL, body)

	if kind.creating() {
		if err := t.pace(ctx); err != nil {
			return nil, err
		}
	}

	limited, serverErrors := 0, 0
	for {
		if err := t.waitBlocked(ctx); err != nil {
			return nil, err
		}
		resp, data, err := t.send(req, body, kind)
		if err != nil {
			// A network error may hide an applied request just like a
			// 502: repeat only what is safe to repeat.
			if kind.safe() && serverErrors+1 < t.attempts && ctx.Err() == nil {
				serverErrors++
				if werr := t.backoffWait(ctx, serverErrors); werr != nil {
					return nil, werr
				}
				continue
			}
			return nil, err
		}

		t.noteBudget(resp.Header)
		if wait, msg, ok := t.rateLimit(resp, data, isGraphQL, limited); ok {
			t.count(func(s *Stats) { s.RateLimited++ })
			limited++
			resetAt := t.clock.Now().Add(wait)
			if wait > t.maxWait || limited > maxRateLimitRetries {
				return nil, &RateLimitError{ResetAt: resetAt, StatusCode: resp.StatusCode, Message: msg}
			}
			t.logf("github: rate limited (%d), waiting %s: %s", resp.StatusCode, wait, msg)
			if err := t.wait(ctx, wait); err != nil {
				return nil, err
			}
			continue
		}

		if resp.StatusCode >= 500 && kind.safe() && serverErrors+1 < t.attempts {
			serverErrors++
			t.logf("github: %s %s: status %d, retrying", req.Method, req.URL.Path, resp.StatusCode)
			if err := t.backoffWait(ctx, serverErrors); err != nil {
				return nil, err
			}
			continue
		}

		if isGraphQL {
			if resp.StatusCode != http.StatusOK {
				return nil, &StatusError{StatusCode: resp.StatusCode, Body: truncate(string(data), 512)}
			}
			if gerr := graphQLErrors(data); gerr != nil {
				return nil, gerr
			}
		}
		resp.Body = io.NopCloser(bytes.NewReader(data))
		resp.ContentLength = int64(len(data))
		return resp, nil
	}
}

// send performs one attempt and buffers the whole answer while the request
// slot is still held, so that reading a body never overlaps the next request.
func (t *transport) send(orig *http.Request, body []byte, kind Kind) (*http.Response, []byte, error) {
	req := orig.Clone(orig.Context())
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
	}
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	if req.Header.Get("User-Agent") == "" && t.agent != "" {
		req.Header.Set("User-Agent", t.agent)
	}

	t.mu.Lock()
	t.stats.Sent[kind]++
	t.inflight++
	if t.inflight > t.stats.MaxInFlight {
		t.stats.MaxInFlight = t.inflight
	}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.inflight--
		t.mu.Unlock()
	}()

	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, nil, fmt.Errorf("github: reading answer of %s %s: %w", req.Method, req.URL.Path, err)
	}
	if len(data) > maxBody {
		return nil, nil, fmt.Errorf("github: answer of %s %s exceeds %d bytes", req.Method, req.URL.Path, maxBody)
	}
	return resp, data, nil
}

func (t *transport) isGraphQL(u *url.URL) bool {
	return t.graphql != nil && strings.EqualFold(u.Host, t.graphql.Host) &&
		strings.TrimSuffix(u.Path, "/") == strings.TrimSuffix(t.graphql.Path, "/")
}

// classify tells queries from mutations by the document itself: githubv4
// sends no operation name, and its mutations always start with "mutation".
func classify(method string, isGraphQL bool, body []byte) Kind {
	if isGraphQL {
		var doc struct {
			Query string `json:"query"`
		}
		if json.Unmarshal(body, &doc) == nil && strings.HasPrefix(strings.TrimSpace(doc.Query), "mutation") {
			return GraphQLMutation
		}
		return GraphQLQuery
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return RESTRead
	}
	return RESTWrite
}

// rateLimit decides whether an answer is a rate-limit refusal and how long to
// wait, following GitHub's documented order: retry-after first, then an
// exhausted budget's x-ratelimit-reset, otherwise a minute, doubling on
// repeated refusals.
func (t *transport) rateLimit(resp *http.Response, data []byte, isGraphQL bool, previous int) (time.Duration, string, bool) {
	limited := false
	msg := ""
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		limited = true
		msg = restMessage(data)
	case http.StatusForbidden:
		msg = restMessage(data)
		// A 403 is also "you may not": only headers or GitHub's message
		// say it is a rate limit.
		limited = resp.Header.Get("Retry-After") != "" ||
			resp.Header.Get("X-RateLimit-Remaining") == "0" ||
			strings.Contains(strings.ToLower(msg), "rate limit")
	case http.StatusOK:
		if isGraphQL {
			if gerr := graphQLErrors(data); gerr != nil && gerr.rateLimited() {
				limited = true
				msg = gerr.Error()
			}
		}
	}
	if !limited {
		return 0, "", false
	}
	now := t.clock.Now()
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
			return time.Duration(n) * time.Second, msg, true
		}
		if at, err := http.ParseTime(s); err == nil {
			return max(at.Sub(now), 0), msg, true
		}
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if at, ok := resetTime(resp.Header); ok {
			// The reset header has one-second resolution: wait until
			// after it, as GitHub asks.
			return max(at.Sub(now)+time.Second, time.Second), msg, true
		}
	}
	return defaultSecondaryWait << previous, msg, true
}

// noteBudget remembers an exhausted primary budget so that the next request
// waits for the reset instead of being refused.
func (t *transport) noteBudget(h http.Header) {
	if h.Get("X-RateLimit-Remaining") != "0" {
		return
	}
	if at, ok := resetTime(h); ok {
		t.blockedUntil = at.Add(time.Second)
	}
}

func (t *transport) waitBlocked(ctx context.Context) error {
	if t.blockedUntil.IsZero() {
		return nil
	}
	wait := t.blockedUntil.Sub(t.clock.Now())
	if wait <= 0 {
		t.blockedUntil = time.Time{}
		return nil
	}
	t.count(func(s *Stats) { s.RateLimited++ })
	if wait > t.maxWait {
		return &RateLimitError{ResetAt: t.blockedUntil, Message: "rate limit budget exhausted"}
	}
	t.logf("github: rate limit budget exhausted, waiting %s", wait)
	if err := t.wait(ctx, wait); err != nil {
		return err
	}
	t.blockedUntil = time.Time{}
	return nil
}

func resetTime(h http.Header) (time.Time, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-RateLimit-Reset")), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}

// pace is a token bucket on the injected clock: bursts of up to t.burst
// content-creating requests, then one per t.interval. With the defaults (10,
// 1 s) no 60-second window holds more than 70, under GitHub's 80 per minute,
// and a sustained stream keeps GitHub's advice of a second between writes.
func (t *transport) pace(ctx context.Context) error {
	now := t.clock.Now()
	t.refill(now)
	if t.tokens >= 1 {
		t.tokens--
		return nil
	}
	wait := time.Duration((1 - t.tokens) * float64(t.interval))
	t.count(func(s *Stats) { s.Paced++ })
	if err := t.wait(ctx, wait); err != nil {
		return err
	}
	t.refill(t.clock.Now())
	t.tokens = max(t.tokens-1, 0)
	return nil
}

func (t *transport) refill(now time.Time) {
	if t.refilled.IsZero() {
		t.tokens, t.refilled = t.burst, now
		return
	}
	if d := now.Sub(t.refilled); d > 0 {
		t.tokens = min(t.burst, t.tokens+float64(d)/float64(t.interval))
		t.refilled = now
	}
}

func (t *transport) backoffWait(ctx context.Context, n int) error {
	t.count(func(s *Stats) { s.Retries++ })
	return t.wait(ctx, t.backoff<<(n-1))
}

func (t *transport) wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t.count(func(s *Stats) { s.Waited += d })
	return t.sleep(ctx, d)
}

func (t *transport) count(f func(*Stats)) {
	t.mu.Lock()
	f(&t.stats)
	t.mu.Unlock()
}

func (t *transport) snapshot() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stats
}

// graphQLErrors returns the answer's errors array, or nil when it has none
// (or is not a GraphQL answer at all).
func graphQLErrors(data []byte) *GraphQLError {
	var out struct {
		Errors []GraphQLErrorItem `json:"errors"`
	}
	if json.Unmarshal(data, &out) != nil || len(out.Errors) == 0 {
		return nil
	}
	return &GraphQLError{Errors: out.Errors}
}

func restMessage(data []byte) string {
	var out struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &out) == nil && out.Message != "" {
		return out.Message
	}
	return truncate(strings.TrimSpace(string(data)), 200)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// sleepContext is the real Sleep: a timer that gives up with the context.
func sleepContext(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
