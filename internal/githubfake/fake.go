package githubfake

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"
)

// Errors returned by the Go API when a test names something that does not
// exist in the fake's state.
var (
	// ErrUnknownRepo: no repository by that owner/name (AddRepo first).
	ErrUnknownRepo = errors.New("githubfake: unknown repository")
	// ErrUnknownDiscussion: no live discussion (or issue, or pull request)
	// by that id or number.
	ErrUnknownDiscussion = errors.New("githubfake: unknown discussion")
	// ErrUnknownComment: no live comment by that id.
	ErrUnknownComment = errors.New("githubfake: unknown comment")
	// ErrUnknownLogin: no account by that login.
	ErrUnknownLogin = errors.New("githubfake: unknown login")
	// ErrUnknownRun: no workflow run by that id.
	ErrUnknownRun = errors.New("githubfake: unknown workflow run")
	// ErrUnknownRef: no such branch or ref.
	ErrUnknownRef = errors.New("githubfake: unknown ref")
	// ErrInvalid: an argument GitHub would refuse (a reply to a reply, an
	// unknown association or classifier, ...).
	ErrInvalid = errors.New("githubfake: invalid argument")
)

// Kind tells a human account from a bot. GitHub renders them differently:
// a bot is "github-actions" in GraphQL but "github-actions[bot]" in REST and
// webhook payloads.
type Kind int

// Account kinds.
const (
	// KindUser is a person.
	KindUser Kind = iota
	// KindBot is an app or the Actions bot (GITHUB_TOKEN).
	KindBot
)

// APIPrefix is where REST is served, as on GitHub Enterprise Server.
const APIPrefix = "/api/v3"

// GraphQLPath is where GraphQL is served.
const GraphQLPath = "/api/graphql"

// Default per-token hourly budgets, those of a GITHUB_TOKEN.
const (
	// DefaultRESTBudget is REST requests per hour.
	DefaultRESTBudget = 1000
	// DefaultGraphQLBudget is GraphQL points per hour.
	DefaultGraphQLBudget = 1000
	// DefaultContentCreationLimit is GitHub's documented cap on
	// content-creating requests per minute.
	DefaultContentCreationLimit = 80
)

// Option configures a GitHub.
type Option func(*GitHub)

// WithClock sets the source of every timestamp (createdAt, run created_at,
// rate-limit windows). Without it the fake uses time.Now.
func WithClock(now func() time.Time) Option {
	return func(g *GitHub) { g.now = now }
}

// WithServerURL sets the web base of html_url/url fields (default
// https://github.com), e.g. the fake's own URL when served to act.
func WithServerURL(u string) Option {
	return func(g *GitHub) { g.serverURL = strings.TrimSuffix(u, "/") }
}

// WithRESTBudget sets every token's hourly REST request budget.
func WithRESTBudget(n int) Option {
	return func(g *GitHub) { g.restBudget = n }
}

// WithGraphQLBudget sets every token's hourly GraphQL point budget.
func WithGraphQLBudget(n int) Option {
	return func(g *GitHub) { g.graphqlBudget = n }
}

// WithRateLimitStatus sets the status of a primary rate-limit refusal: 403
// (the default) or 429; GitHub documents both.
func WithRateLimitStatus(code int) Option {
	return func(g *GitHub) { g.limitStatus = code }
}

// WithContentCreationLimit sets how many content-creating requests (GraphQL
// mutations and REST POSTs) one token may send in any minute before GitHub's
// secondary rate limit refuses it (default 80, as GitHub documents; 0 turns
// the limit off).
func WithContentCreationLimit(n int) Option {
	return func(g *GitHub) { g.createLimit = n }
}

// RefuseRunDetails emulates a GitHub Enterprise Server that predates
// return_run_details: a dispatch body carrying the field is refused with 400.
func RefuseRunDetails() Option {
	return func(g *GitHub) { g.refuseRunDetails = true }
}

// WithoutLabelCreation makes createLabel refuse every token, as GitHub does
// for a GITHUB_TOKEN without issues: write (or pull-requests: write).
func WithoutLabelCreation() Option {
	return func(g *GitHub) { g.noLabelCreation = true }
}

// GitHub is the fake. Create it with New.
type GitHub struct {
	mu sync.Mutex

	now              func() time.Time
	serverURL        string
	restBudget       int
	graphqlBudget    int
	limitStatus      int
	refuseRunDetails bool
	createLimit      int
	// noLabelCreation: tokens may not create labels (a GITHUB_TOKEN
	// without issues or pull-requests write permission).
	noLabelCreation bool

	srv     *httptest.Server
	muxOnce sync.Once
	mux     *http.ServeMux

	tokens   map[string]*identity
	accounts map[string]*identity // by lower-case base login
	repos    map[string]*repo     // by lower-case owner/name
	nodes    map[string]any       // node id -> *discussion, *comment, ...
	runs     map[int64]*run
	budgets  map[string]*budget // by token

	nextDB  int64
	nextRun int64

	requests  []Request
	faults    []*fault
	onDisp    []func(Run)
	graveyard map[string]*comment    // deleted comments, for webhook payloads
	creations map[string][]time.Time // recent content-creating requests by token
}

// New returns an empty fake. Serve it with Start.
func New(opts ...Option) *GitHub {
	g := &GitHub{
		now:           time.Now,
		serverURL:     "https://github.com",
		restBudget:    DefaultRESTBudget,
		graphqlBudget: DefaultGraphQLBudget,
		limitStatus:   http.StatusForbidden,
		tokens:        map[string]*identity{},
		accounts:      map[string]*identity{},
		repos:         map[string]*repo{},
		nodes:         map[string]any{},
		runs:          map[int64]*run{},
		budgets:       map[string]*budget{},
		graveyard:     map[string]*comment{},
		creations:     map[string][]time.Time{},
		createLimit:   DefaultContentCreationLimit,
		nextDB:        4_100_000,
		nextRun:       9_000_000_000,
	}
	for _, o := range opts {
		o(g)
	}
	return g
}

// Start serves the fake on a loopback httptest server and returns it. It is
// idempotent: later calls return the same server.
func (g *GitHub) Start() *httptest.Server {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.srv == nil {
		g.srv = httptest.NewServer(g)
	}
	return g.srv
}

// StartListener serves the fake on l instead of a random loopback port
// (the fakegithub program listens on the address it is told). It fails if
// the fake is already started.
func (g *GitHub) StartListener(l net.Listener) (*httptest.Server, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.srv != nil {
		return nil, fmt.Errorf("%w: already started at %s", ErrInvalid, g.srv.URL)
	}
	srv := httptest.NewUnstartedServer(g)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	g.srv = srv
	return srv, nil
}

// Listen serves a new fake on addr (HOST:PORT; port 0 picks one), for a
// program rather than a test: its html_url fields point at serverURL, or at
// the fake itself when serverURL is empty.
func Listen(addr, serverURL string, opts ...Option) (*GitHub, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if serverURL == "" {
		serverURL = "http://" + l.Addr().String()
	}
	g := New(append(opts, WithServerURL(serverURL))...)
	if _, err := g.StartListener(l); err != nil {
		l.Close()
		return nil, err
	}
	return g, nil
}

// Env is what a workflow run against the fake is given: GITHUB_API_URL,
// GITHUB_GRAPHQL_URL and GITHUB_SERVER_URL (the fake's own address).
func (g *GitHub) Env() map[string]string {
	return map[string]string{
		"GITHUB_API_URL":     g.Start().URL + APIPrefix,
		"GITHUB_GRAPHQL_URL": g.GraphQLURL(),
		"GITHUB_SERVER_URL":  g.Start().URL,
	}
}

// Server is Start.
func (g *GitHub) Server() *httptest.Server { return g.Start() }

// Close stops the server, if started.
func (g *GitHub) Close() {
	g.mu.Lock()
	srv := g.srv
	g.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// URL returns the REST base URL with a trailing slash
// (http://127.0.0.1:PORT/api/v3/), the value for GITHUB_API_URL and
// go-github's enterprise base URL. It starts the server if needed.
func (g *GitHub) URL() string { return g.Start().URL + APIPrefix + "/" }

// GraphQLURL returns the GraphQL endpoint (GITHUB_GRAPHQL_URL).
func (g *GitHub) GraphQLURL() string { return g.Start().URL + GraphQLPath }

// identity is an account: a user or a bot.
type identity struct {
	login  string // base login, without the [bot] suffix
	kind   Kind
	dbID   int64
	nodeID string
}

// graphQLLogin is the login GraphQL reports.
func (i *identity) graphQLLogin() string { return i.login }

// restLogin is the login REST and webhooks report.
func (i *identity) restLogin() string {
	if i.kind == KindBot {
		return i.login + "[bot]"
	}
	return i.login
}

func (i *identity) typeName() string {
	if i.kind == KindBot {
		return "Bot"
	}
	return "User"
}

// AddToken registers a token for an account, creating the account on first
// use. For a bot, login may be given with or without the "[bot]" suffix.
func (g *GitHub) AddToken(token, login string, kind Kind) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tokens[token] = g.account(login, kind)
}

// AddAccount creates an account without a token (a person who only comments
// through the Go API).
func (g *GitHub) AddAccount(login string, kind Kind) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.account(login, kind)
}

// DeleteAccount deletes a person's account as GitHub does: what it wrote
// stays, GraphQL answers null for its author, and REST and webhooks name
// GitHub's placeholder account, ghost. The login is free again afterwards,
// with no role or association in any repository.
func (g *GitHub) DeleteAccount(login string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	a, err := g.lookupAccount(login)
	if err != nil {
		return err
	}
	if a.kind != KindUser {
		return fmt.Errorf("%w: %q is an app's account, not a person's", ErrInvalid, login)
	}
	key := strings.ToLower(a.login)
	var orphan func(cs []*comment)
	orphan = func(cs []*comment) {
		for _, c := range cs {
			if c.author == a {
				c.author = nil
			}
			orphan(c.replies)
		}
	}
	for _, r := range g.repos {
		delete(r.roles, key)
		delete(r.assoc, key)
		for _, d := range slices.Concat(r.discussions, r.issues) {
			if d.author == a {
				d.author = nil
			}
			orphan(d.comments)
		}
	}
	delete(g.accounts, key)
	return nil
}

// ghost is GitHub's placeholder for a deleted account, as REST and webhooks
// name it (id 10137).
var ghost = &identity{login: "ghost", kind: KindUser, dbID: 10137, nodeID: "MDQ6VXNlcjEwMTM3"}

// account returns the account for login, creating it. Callers hold g.mu.
func (g *GitHub) account(login string, kind Kind) *identity {
	base := strings.TrimSuffix(login, "[bot]")
	if base != login {
		kind = KindBot
	}
	key := strings.ToLower(base)
	if a, ok := g.accounts[key]; ok {
		return a
	}
	a := &identity{login: base, kind: kind, dbID: g.newDB()}
	prefix := "U"
	if kind == KindBot {
		prefix = "BOT"
	}
	a.nodeID = nodeID(prefix, uint32(a.dbID))
	g.accounts[key] = a
	g.nodes[a.nodeID] = a
	return a
}

// lookupAccount finds an account by either form of its login.
func (g *GitHub) lookupAccount(login string) (*identity, error) {
	a, ok := g.accounts[strings.ToLower(strings.TrimSuffix(login, "[bot]"))]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownLogin, login)
	}
	return a, nil
}

// authorFor returns the account for a login used by the Go API, creating a
// user account when none exists (tests rarely bother to declare commenters).
func (g *GitHub) authorFor(login string) *identity {
	if a, err := g.lookupAccount(login); err == nil {
		return a
	}
	return g.account(login, KindUser)
}

func (g *GitHub) newDB() int64 {
	g.nextDB++
	return g.nextDB
}

// clock returns the current time truncated to GitHub's second precision.
func (g *GitHub) clock() time.Time { return g.now().UTC().Truncate(time.Second) }

// nodeID renders an id in GitHub's current format: a type prefix, "_", and
// the URL-safe base64 of a MessagePack array [0, parts...] with every part a
// uint32, which gives the familiar "D_kwDO..." and "R_kgDO..." shapes.
func nodeID(prefix string, parts ...uint32) string {
	b := []byte{0x90 | byte(len(parts)+1), 0x00}
	for _, p := range parts {
		b = append(b, 0xce, byte(p>>24), byte(p>>16), byte(p>>8), byte(p))
	}
	return prefix + "_" + base64.RawURLEncoding.EncodeToString(b)
}

// ghTime renders a timestamp the way GitHub does: UTC, second precision.
func ghTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
