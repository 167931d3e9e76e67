package github

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	gogithub "github.com/google/go-github/v92/github"
	"github.com/shurcooL/githubv4"
	"golang.org/x/time/rate"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// The client satisfies the engine's ports.
var (
	_ resume.Threads        = (*Client)(nil)
	_ resume.Dispatcher     = (*Client)(nil)
	_ resume.ActivityProber = (*Client)(nil)
	_ resume.ReactionReader = (*Client)(nil)
)

// Defaults for Config fields left empty.
const (
	DefaultAPIURL   = "https://api.github.com"
	DefaultWorkflow = "agent.yml"
	DefaultMaxWait  = 60 * time.Second
)

// The transport's fixed settings: a safe request (GET, GraphQL query) is
// tried up to attempts times on server errors, waiting backoff before the
// first retry and doubling after; content-creating requests come in bursts
// of up to contentBurst, then one per contentInterval (at most 70 in any
// minute, under GitHub's 80).
const (
	attempts        = 3
	backoff         = time.Second
	contentBurst    = 10
	contentInterval = time.Second
	userAgent       = "recess"
)

// Config says where GitHub is and which repository and workflow recess works
// on. Zero values take the documented defaults.
type Config struct {
	// Token authenticates every request (GITHUB_TOKEN or a PAT).
	Token string
	// APIURL is the REST base (GITHUB_API_URL): https://api.github.com, or a
	// GitHub Enterprise Server / fake ".../api/v3". A trailing slash is
	// optional; every REST path is resolved under it.
	APIURL string
	// GraphQLURL is the GraphQL endpoint (GITHUB_GRAPHQL_URL), always
	// honoured. Empty: derived from APIURL (".../api/v3" → ".../api/graphql",
	// otherwise APIURL + "/graphql").
	GraphQLURL string
	// Owner and Repo name the repository.
	Owner, Repo string
	// Workflow is the agent workflow's file name (default agent.yml).
	Workflow string
	// Ref is the ref dispatches run on; empty means the repository's default
	// branch.
	Ref string
	// HTTPClient is the base client whose Transport (and Timeout) carry the
	// requests; nil means http.DefaultTransport without timeout.
	HTTPClient *http.Client
	// Clock is the wall clock for pacing and rate-limit waits. It must not be
	// the engine's clock when that is pinned (RECESS_NOW): a frozen clock
	// would never let the pacing bucket refill. Nil: the system clock.
	Clock resume.Clock
	// Sleep waits (or gives up with ctx). Nil: a real timer. Tests pass a
	// function that records the wait and moves their clock.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logf receives diagnostics (rate-limit waits, forged markers, created
	// labels). Nil: discarded.
	Logf func(format string, args ...any)
	// MaxWait bounds a single rate-limit wait; a longer one fails with
	// *RateLimitError instead (default 60 s).
	MaxWait time.Duration
	// Kinds are the kinds of thread the repository's setup serves (input
	// threads); nil: discussions alone. A thread of unknown kind
	// (resume.AnyKind) is asked of GitHub as these kinds only (a token may
	// not read the others, and GitHub refuses the field then; a number of
	// another kind is not found), and the
	// comment store's sweep lists the issues and pull requests among them.
	Kinds []state.Kind
}

// Client talks to one repository on one GitHub. Build it with New. It keeps
// nothing learned from one call for the next, with one exception
// (noRunDetails): what a call needs of the repository comes with its
// arguments (resume.Repo, read with each discussion).
type Client struct {
	owner, repo, workflow string
	// ref is Config.Ref, "" for the default branch.
	ref  string
	gql  *githubv4.Client
	rest *gogithub.Client
	tr   *transport
	logf func(string, ...any)
	// kinds is Config.Kinds.
	kinds []state.Kind

	// noRunDetails is set once the server refused return_run_details; it
	// is never sent again by this client. It is a fact of the server, which
	// no read tells: forgetting it would cost an older server a refused
	// request before every dispatch.
	noRunDetails atomic.Bool
}

// New builds a Client. It sends no request. An unusable Config field is a
// *wait.FieldError naming it.
func New(cfg Config) (*Client, error) {
	if cfg.Owner == "" {
		return nil, &wait.FieldError{Field: "Owner", Reason: "empty"}
	}
	if cfg.Repo == "" {
		return nil, &wait.FieldError{Field: "Repo", Reason: "empty"}
	}
	if strings.ContainsAny(cfg.Owner+cfg.Repo, "/ ?#") {
		return nil, &wait.FieldError{Field: "Owner/Repo", Reason: fmt.Sprintf("%q/%q is not a repository name", cfg.Owner, cfg.Repo)}
	}
	workflow := cmp.Or(cfg.Workflow, DefaultWorkflow)
	if strings.ContainsAny(workflow, "/?#") {
		return nil, &wait.FieldError{Field: "Workflow", Reason: fmt.Sprintf("%q is not a workflow file name", workflow)}
	}

	api, err := httpURL("APIURL", cmp.Or(cfg.APIURL, DefaultAPIURL))
	if err != nil {
		return nil, err
	}
	// go-github resolves relative paths against the base; without a
	// trailing slash the last segment ("v3") would be replaced.
	if !strings.HasSuffix(api.Path, "/") {
		api.Path += "/"
	}
	gq, err := httpURL("GraphQLURL", cmp.Or(cfg.GraphQLURL, deriveGraphQLURL(api)))
	if err != nil {
		return nil, err
	}

	hc := cmp.Or(cfg.HTTPClient, &http.Client{})
	clock := cfg.Clock
	if clock == nil {
		// The transport needs the real passage of time (see Config.Clock);
		// this is the one place recess's GitHub code reads the wall clock.
		clock = resume.ClockFunc(time.Now)
	}
	sleep := cfg.Sleep
	if sleep == nil {
		sleep = sleepContext
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	tr := &transport{
		base:    cmp.Or(hc.Transport, http.DefaultTransport),
		token:   cfg.Token,
		graphql: gq,
		clock:   clock,
		sleep:   sleep,
		logf:    logf,
		maxWait: cmp.Or(cfg.MaxWait, DefaultMaxWait),
		sem:     make(chan struct{}, 1),
		paced:   rate.NewLimiter(rate.Every(contentInterval), contentBurst),
	}
	hc = &http.Client{Transport: tr, Timeout: hc.Timeout}

	apiString := api.String()
	rest, err := gogithub.NewClient(
		gogithub.WithHTTPClient(hc),
		gogithub.WithURLs(&apiString, &apiString),
		// The transport owns every wait, on the injected clock; go-github's
		// own bookkeeping would refuse requests on the wall clock.
		gogithub.WithDisableRateLimitCheck(),
		gogithub.WithUserAgent(userAgent),
	)
	if err != nil {
		return nil, &wait.FieldError{Field: "APIURL", Reason: err.Error()}
	}

	return &Client{
		owner:    cfg.Owner,
		repo:     cfg.Repo,
		workflow: workflow,
		gql:      githubv4.NewEnterpriseClient(gq.String(), hc),
		rest:     rest,
		tr:       tr,
		logf:     logf,
		ref:      cfg.Ref,
		kinds:    cfg.Kinds,
	}, nil
}

// serves says whether the setup serves threads of kind k (Config.Kinds).
func (c *Client) serves(k state.Kind) bool {
	return slices.Contains(c.kinds, k) || len(c.kinds) == 0 && k == state.KindDiscussion
}

func deriveGraphQLURL(api *url.URL) string {
	u := *api
	p := strings.TrimSuffix(u.Path, "/")
	if strings.HasSuffix(p, "/api/v3") {
		u.Path = strings.TrimSuffix(p, "/v3") + "/graphql"
	} else {
		u.Path = p + "/graphql"
	}
	return u.String()
}

func httpURL(field, s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &wait.FieldError{Field: field, Reason: fmt.Sprintf("%q is not an http(s) URL", s)}
	}
	return u, nil
}

// Requests returns the number of requests that went over the wire since the
// client was built, retries included, because that is what GitHub's budgets
// count: for logs and benchmarks.
func (c *Client) Requests() int { return int(c.tr.sent.Load()) }

// pageSize is GitHub's largest page for any connection.
const pageSize = 100

// node is any object recess knows only by its node id; "" when GitHub
// answers null (no such label, no comment replied to).
type node struct{ ID string }

// mutationResult is the selection of a mutation whose answer recess does not
// need.
type mutationResult struct{ ClientMutationID *string }

type pageInfo struct {
	HasNextPage bool
	EndCursor   *string
}

// repoQuery reads the fields T of the client's repository, with the
// variables of repoVars.
type repoQuery[T any] struct {
	Repository T `graphql:"repository(owner: $owner, name: $name)"`
}

func (c *Client) repoVars() map[string]any {
	return map[string]any{
		"owner": githubv4.String(c.owner),
		"name":  githubv4.String(c.repo),
	}
}

// pages reads a connection page by page from its start, until
// GitHub says there is no more or limit pages were read (0: no limit).
func pages[T any](limit int, read func(after *string) ([]T, pageInfo, error)) ([]T, error) {
	var out []T
	var after *string
	for n := 0; limit == 0 || n < limit; n++ {
		nodes, pi, err := read(after)
		if err != nil {
			return nil, err
		}
		out = append(out, nodes...)
		if !pi.HasNextPage || pi.EndCursor == nil {
			break
		}
		after = pi.EndCursor
	}
	return out, nil
}

// query and mutate run githubv4 operations. net/http wraps the transport's
// typed errors in a *url.Error that only repeats the endpoint; it is dropped.
func (c *Client) query(ctx context.Context, q any, vars map[string]any) error {
	return unwrapTransport(c.gql.Query(ctx, q, vars))
}

func (c *Client) mutate(ctx context.Context, m any, input githubv4.Input) error {
	return unwrapTransport(c.gql.Mutate(ctx, m, input, nil))
}

func unwrapTransport(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		switch ue.Err.(type) {
		case *GraphQLError, *StatusError, *RateLimitError:
			return ue.Err
		}
	}
	return err
}

// restStatus returns the HTTP status of a go-github error (0 when the
// request got no answer).
func restStatus(resp *gogithub.Response, err error) int {
	var er *gogithub.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	if resp != nil && resp.Response != nil {
		return resp.StatusCode
	}
	return 0
}

// restErr wraps a go-github error with what was being done, adding
// resume.ErrNotFound for a 404.
func restErr(what string, resp *gogithub.Response, err error) error {
	if restStatus(resp, err) == http.StatusNotFound {
		return fmt.Errorf("%s: %w: %w", what, resume.ErrNotFound, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
