package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/recess-action/recess/internal/text"
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

// RateLimitError means GitHub asked recess to wait longer than the client's
// bound (Config.MaxWait), or kept refusing after several waits. Nothing was
// applied by the refused request.
type RateLimitError struct {
	// ResetAt is when GitHub said (or recess estimates) requests will be
	// accepted again.
	ResetAt time.Time
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
	return len(e.Errors) > 0 && !slices.ContainsFunc(e.Errors, func(it GraphQLErrorItem) bool { return it.Type != "NOT_FOUND" })
}

// Is lets errors.Is(err, resume.ErrNotFound) see through a NOT_FOUND answer.
func (e *GraphQLError) Is(target error) bool {
	return target == resume.ErrNotFound && e.NotFound()
}

func (e *GraphQLError) rateLimited() bool {
	return slices.ContainsFunc(e.Errors, func(it GraphQLErrorItem) bool { return it.Type == "RATE_LIMITED" })
}

// notFoundAt returns the field (the last path element) each error of a
// NOT_FOUND answer names; ok is false for any other error, or one that
// names no field.
func notFoundAt(err error) (fields []string, ok bool) {
	var ge *GraphQLError
	if !errors.As(err, &ge) || !ge.NotFound() {
		return nil, false
	}
	for _, it := range ge.Errors {
		if len(it.Path) == 0 {
			return nil, false
		}
		field, _ := it.Path[len(it.Path)-1].(string)
		fields = append(fields, field)
	}
	return fields, true
}

// absentKey holds the fields a query tolerates as absent (absentOK).
type absentKey struct{}

// absentOK is ctx for a query whose fields named (an error path's last
// element) may each be absent: GitHub answers such a field with null and a
// NOT_FOUND error naming it, and the transport then hands on the data
// alone. Any other error fails the query as usual.
func absentOK(ctx context.Context, fields ...string) context.Context {
	return context.WithValue(ctx, absentKey{}, fields)
}

// absent reports whether every error of gerr is a field ctx tolerates as
// absent (absentOK).
func absent(ctx context.Context, gerr *GraphQLError) bool {
	fields, ok := notFoundAt(gerr)
	tolerated, _ := ctx.Value(absentKey{}).([]string)
	return ok && !slices.ContainsFunc(fields, func(f string) bool { return !slices.Contains(tolerated, f) })
}

// dataOnly is a GraphQL answer without its errors.
func dataOnly(answer []byte) ([]byte, error) {
	var a struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		return nil, err
	}
	return json.Marshal(a)
}

// transport is the single RoundTripper under both API clients.
type transport struct {
	base    http.RoundTripper
	token   string
	graphql *url.URL
	clock   resume.Clock
	sleep   func(context.Context, time.Duration) error
	logf    func(string, ...any)
	maxWait time.Duration

	// sem is held for the whole of a request, waits included, so that
	// nothing is ever sent in parallel. A channel rather than a mutex so
	// that a waiting caller can give up with its context.
	sem chan struct{}

	// paced is the bucket of content-creating requests (see pace).
	paced *rate.Limiter
	// Guarded by sem.
	blockedUntil time.Time

	// sent counts the requests that went over the wire (Requests).
	sent atomic.Int64
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
	write := isWrite(req.Method, isGraphQL, body)
	if write {
		if err := t.pace(ctx); err != nil {
			return nil, err
		}
	}

	limited, retries := 0, 0
	for {
		if wait := t.blockedUntil.Sub(t.clock.Now()); wait > 0 {
			if err := t.limitWait(ctx, wait, false, "rate limit budget exhausted"); err != nil {
				return nil, err
			}
		}
		t.blockedUntil = time.Time{}

		resp, data, err := t.send(req, body)
		var gerr *GraphQLError
		if err == nil {
			if isGraphQL && resp.StatusCode == http.StatusOK {
				gerr = graphQLErrors(data)
			}
			if at, ok := exhaustedUntil(resp.Header); ok {
				// The next request waits for the reset instead of being
				// refused.
				t.blockedUntil = at.Add(time.Second)
			}
			if wait, msg, ok := t.rateLimit(resp, data, gerr, limited); ok {
				limited++
				if err := t.limitWait(ctx, wait, limited > maxRateLimitRetries, msg); err != nil {
					return nil, err
				}
				continue
			}
		}
		// A network error may hide an applied request just like a 502:
		// repeat only what is safe to repeat.
		if (err != nil || resp.StatusCode >= 500) && !write && retries+1 < attempts && ctx.Err() == nil {
			retries++
			if err == nil {
				t.logf("github: %s %s: status %d, retrying", req.Method, req.URL.Path, resp.StatusCode)
			}
			if err := t.backoffWait(ctx, retries); err != nil {
				return nil, err
			}
			continue
		}
		switch {
		case err != nil:
			return nil, err
		case isGraphQL && resp.StatusCode != http.StatusOK:
			return nil, &StatusError{StatusCode: resp.StatusCode, Body: text.Clip(string(data), 512)}
		case gerr != nil && !absent(ctx, gerr):
			return nil, gerr
		case gerr != nil:
			if data, err = dataOnly(data); err != nil {
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
func (t *transport) send(orig *http.Request, body []byte) (*http.Response, []byte, error) {
	req := orig.Clone(orig.Context())
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
	}
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", userAgent)
	}

	t.sent.Add(1)

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
	return strings.EqualFold(u.Host, t.graphql.Host) &&
		strings.TrimSuffix(u.Path, "/") == strings.TrimSuffix(t.graphql.Path, "/")
}

// isWrite tells content-creating requests (REST writes, GraphQL mutations),
// which GitHub paces and which are never repeated after an ambiguous
// failure, from reads. githubv4 sends no operation name, and its mutations
// always start with "mutation".
func isWrite(method string, isGraphQL bool, body []byte) bool {
	if isGraphQL {
		var doc struct {
			Query string `json:"query"`
		}
		return json.Unmarshal(body, &doc) == nil && strings.HasPrefix(strings.TrimSpace(doc.Query), "mutation")
	}
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// rateLimit decides whether an answer is a rate-limit refusal and how long to
// wait, following GitHub's documented order: retry-after first, then an
// exhausted budget's x-ratelimit-reset, otherwise a minute, doubling on
// repeated refusals.
func (t *transport) rateLimit(resp *http.Response, data []byte, gerr *GraphQLError, previous int) (time.Duration, string, bool) {
	var msg string
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		msg = restMessage(data)
	case http.StatusForbidden:
		msg = restMessage(data)
		// A 403 is also "you may not": only headers or GitHub's message
		// say it is a rate limit.
		if resp.Header.Get("Retry-After") == "" && resp.Header.Get("X-RateLimit-Remaining") != "0" &&
			!strings.Contains(strings.ToLower(msg), "rate limit") {
			return 0, "", false
		}
	default:
		if gerr == nil || !gerr.rateLimited() {
			return 0, "", false
		}
		msg = gerr.Error()
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
	if at, ok := exhaustedUntil(resp.Header); ok {
		// The reset header has one-second resolution: wait until after
		// it, as GitHub asks.
		return max(at.Sub(now)+time.Second, time.Second), msg, true
	}
	return defaultSecondaryWait << previous, msg, true
}

// limitWait waits out a rate limit, or refuses with a *RateLimitError when
// the wait is longer than the client's bound or GitHub refused too often.
func (t *transport) limitWait(ctx context.Context, wait time.Duration, tooOften bool, msg string) error {
	if wait > t.maxWait || tooOften {
		return &RateLimitError{ResetAt: t.clock.Now().Add(wait), Message: msg}
	}
	t.logf("github: rate limited, waiting %s: %s", wait, msg)
	return t.wait(ctx, wait)
}

// exhaustedUntil reports an exhausted primary budget and when it resets.
func exhaustedUntil(h http.Header) (time.Time, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-RateLimit-Reset")), 10, 64)
	if h.Get("X-RateLimit-Remaining") != "0" || err != nil || n <= 0 {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}

// pace is a token bucket on the injected clock: bursts of up to
// contentBurst content-creating requests, then one per contentInterval. With
// 10 and 1 s, no 60-second window holds more than 70, under GitHub's 80 per minute,
// and a sustained stream keeps GitHub's advice of a second between writes.
func (t *transport) pace(ctx context.Context) error {
	now := t.clock.Now()
	r := t.paced.ReserveN(now, 1)
	if err := t.wait(ctx, r.DelayFrom(now)); err != nil {
		r.CancelAt(t.clock.Now())
		return err
	}
	return nil
}

// backoffWait waits before the nth retry: backoff, doubling after.
func (t *transport) backoffWait(ctx context.Context, n int) error {
	return t.wait(ctx, backoff<<(n-1))
}

func (t *transport) wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	return t.sleep(ctx, d)
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
	return text.Clip(strings.TrimSpace(string(data)), 200)
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
