// Package recesstest wires the real engine to the real GitHub adapters and
// the in-memory fake GitHub, for tests that exercise recess whole: fault
// injection, races, budgets. Every Engine call builds a fresh client and
// store, as a new run of the action would, so no state leaks between runs
// except through GitHub itself.
//
// It is imported only by tests.
package recesstest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/fakeclock"
	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// Repository and identity every World uses.
const (
	Owner = "octo"
	Name  = "rfcs"
	Repo  = Owner + "/" + Name
	Token = "recess-token"
	// Bot is the GraphQL login of the token's identity.
	Bot = "github-actions"
	// Workflow is the agent workflow's file name.
	Workflow = gh.DefaultWorkflow
	// Member is in every World: a member of the organisation (association
	// MEMBER) whose permission on the repository is read. Membership is no
	// write access: Member's slash commands are ordinary replies.
	Member = "mia"
	// Lead is recess's mention handle in a World whose threads are issues
	// or pull requests (wake-on is mention there by default), and every
	// thread Open opens there mentions it.
	Lead = "@lead"
)

// Options shape a World.
type Options struct {
	// Store is "comment" (default) or "branch".
	Store string
	// Config is the engine policy (NewID defaults to a deterministic counter).
	Config resume.Config
	// Start is the initial clock (default 2026-11-21T10:00:00Z).
	Start time.Time
	// Fake are extra options for the fake GitHub.
	Fake []githubfake.Option
	// Maintainers get the MEMBER association and, through it, write
	// permission (see githubfake.GitHub.SetPermission).
	Maintainers []string
	// Workflow is the workflow input recess is given (default the
	// installed agent workflow, Workflow).
	Workflow string
	// Kind is the kind of thread Open opens and the engine of an event's
	// run addresses by number (default discussions; see Engine and
	// Dispatched). For issues and pull requests, Config.MentionHandles
	// defaults to Lead.
	Kind state.Kind
	// Served are the kinds of thread the setup serves (input threads);
	// default Kind alone.
	Served []state.Kind
}

// World is one fake GitHub with recess installed on one repository.
type World struct {
	T   testing.TB
	GH  *githubfake.GitHub
	opt Options

	mu      sync.Mutex
	clock   *fakeclock.Clock
	ids     int
	handled map[int64]bool
}

// New starts a World; it is closed when the test ends.
func New(t testing.TB, o Options) *World {
	t.Helper()
	if o.Store == "" {
		o.Store = "comment"
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	}
	if o.Kind.Flat() && o.Config.MentionHandles == nil {
		o.Config.MentionHandles = []string{Lead}
	}
	w := &World{T: t, opt: o, clock: fakeclock.New(o.Start), handled: map[int64]bool{}}
	opts := append([]githubfake.Option{githubfake.WithClock(w.Now), githubfake.WithContentCreationLimit(0)}, o.Fake...)
	w.GH = githubfake.New(opts...)
	err := w.GH.InstallRecess(githubfake.RecessSetup{Owner: Owner, Name: Name, Token: Token, Bot: Bot,
		Workflow: Workflow, Maintainers: o.Maintainers, Members: []string{Member}})
	if err != nil {
		t.Fatalf("recesstest: %v", err)
	}
	w.GH.Start()
	t.Cleanup(w.GH.Close)
	return w
}

// Now is the world's clock (GitHub's and the engine's).
func (w *World) Now() time.Time { return w.clock.Now() }

// Advance moves the clock.
func (w *World) Advance(d time.Duration) { w.clock.Step(d) }

// Run is one run of recess: its engine and the client under it.
type Run struct {
	Engine *resume.Engine
	Client *gh.Client
}

// Engine returns a fresh run that an event on a thread of the World's kind
// starts: its engine addresses numbers as of that kind, as the action does
// with the event's. wrap, when not nil, wraps the HTTP transport (to count,
// delay, or kill the run after some requests).
func (w *World) Engine(wrap func(http.RoundTripper) http.RoundTripper) *Run {
	w.T.Helper()
	return w.run(wrap, w.opt.Kind)
}

// Dispatched returns a fresh run that no thread's event starts (a
// workflow_dispatch's claim or verdict, a schedule's sweep): its engine
// addresses a number as the action does then, as of the kind
// resume.UnknownKind says of the kinds served (any of them, where more
// than discussions are served).
func (w *World) Dispatched(wrap func(http.RoundTripper) http.RoundTripper) *Run {
	w.T.Helper()
	return w.run(wrap, resume.UnknownKind(w.served()))
}

// served are the kinds the setup serves (Options.Served).
func (w *World) served() []state.Kind {
	if w.opt.Served != nil {
		return w.opt.Served
	}
	return []state.Kind{w.opt.Kind.OrDiscussion()}
}

// run is a fresh run whose engine addresses numbers as of kind kind.
func (w *World) run(wrap func(http.RoundTripper) http.RoundTripper, kind state.Kind) *Run {
	w.T.Helper()
	var rt http.RoundTripper = w.GH.Start().Client().Transport
	if wrap != nil {
		rt = wrap(rt)
	}
	c, err := gh.New(gh.Config{
		Token:      Token,
		APIURL:     w.GH.URL(),
		GraphQLURL: w.GH.GraphQLURL(),
		Owner:      Owner,
		Repo:       Name,
		Workflow:   cmp.Or(w.opt.Workflow, Workflow),
		HTTPClient: &http.Client{Transport: rt, Timeout: 30 * time.Second},
		Sleep:      func(ctx context.Context, d time.Duration) error { return ctx.Err() },
		MaxWait:    time.Hour,
		Kinds:      w.served(),
	})
	if err != nil {
		w.T.Fatalf("recesstest: client: %v", err)
	}
	var store resume.Store
	switch w.opt.Store {
	case "comment":
		cs := gh.NewCommentStore(c)
		cs.Clock = w.clock
		store = cs
	case "branch":
		store = gh.NewBranchStore(c, gh.DefaultStateBranch)
	default:
		w.T.Fatalf("recesstest: unknown store %q", w.opt.Store)
	}
	cfg := w.opt.Config
	if cfg.NewID == nil {
		cfg.NewID = w.newID
	}
	e := &resume.Engine{Clock: w.clock, Store: store, Threads: c, Kind: kind, Dispatcher: c, Permissions: c, Config: cfg}
	return &Run{Engine: e, Client: c}
}

func (w *World) newID() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ids++
	return fmt.Sprintf("c-%04d", w.ids)
}

// Open creates a thread of the World's kind (Options.Kind) by a person and
// returns its number and node id.
func (w *World) Open(author string) (int, string) {
	w.T.Helper()
	d, err := w.open(author, "RFC", "please review")
	if err != nil {
		w.T.Fatalf("recesstest: %s: %v", resume.Noun(w.opt.Kind), err)
	}
	return d.Number, d.ID
}

// open opens a thread of the World's kind; an issue or a pull request
// mentions Lead.
func (w *World) open(author, title, body string) (githubfake.Discussion, error) {
	switch w.opt.Kind {
	case state.KindIssue:
		return w.GH.CreateIssue(Repo, author, title, body+" "+Lead)
	case state.KindPullRequest:
		return w.GH.CreatePullRequest(Repo, author, title, body+" "+Lead)
	}
	return w.GH.CreateDiscussion(Repo, author, title, body)
}

// Say adds a person's comment (a reply when parent is not "").
func (w *World) Say(discussionID, parent, author, body string) string {
	w.T.Helper()
	var c githubfake.Comment
	var err error
	if parent != "" {
		c, err = w.GH.Reply(parent, author, body)
	} else {
		c, err = w.GH.Comment(discussionID, author, body)
	}
	if err != nil {
		w.T.Fatalf("recesstest: comment: %v", err)
	}
	return c.ID
}

// Runs are the agent runs GitHub started, oldest first.
func (w *World) Runs() []githubfake.Run {
	w.T.Helper()
	runs, err := w.GH.Runs(Repo)
	if err != nil {
		w.T.Fatalf("recesstest: runs: %v", err)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID < runs[j].ID })
	return runs
}

// Waiting are the agent runs that started and have not answered.
func (w *World) Waiting() []githubfake.Run {
	var out []githubfake.Run
	for _, r := range w.Runs() {
		w.mu.Lock()
		done := w.handled[r.ID]
		w.mu.Unlock()
		if !done && r.Status != "completed" {
			out = append(out, r)
		}
	}
	return out
}

// Answer plays agent run r: claim, then the verdict doc makes (given the
// run's correlation id and discussion number), then the run completes. It
// returns whether the claim said stale (then no verdict is sent) and the
// verdict's error.
func (w *World) Answer(ctx context.Context, r githubfake.Run, doc func(cid string, n int) string) (stale bool, err error) {
	w.mu.Lock()
	w.handled[r.ID] = true
	w.mu.Unlock()
	defer func() {
		if serr := w.GH.SetRunStatus(r.ID, "completed", "success"); serr != nil && err == nil {
			err = serr
		}
	}()
	cid := r.Inputs["correlation_id"]
	var n int
	if _, err := fmt.Sscan(r.Inputs["discussion_number"], &n); err != nil {
		return false, fmt.Errorf("run %d: discussion_number %q: %w", r.ID, r.Inputs["discussion_number"], err)
	}
	run := w.Dispatched(nil)
	res, err := run.Engine.Claim(ctx, n, cid, r.ID)
	if err != nil {
		return false, err
	}
	if res.Stale {
		return true, nil
	}
	v, err := run.Engine.ParseVerdict([]byte(doc(cid, n)))
	if err != nil {
		return false, err
	}
	_, err = w.Dispatched(nil).Engine.Verdict(ctx, v, r.ID)
	return false, err
}

// Fail ends agent run r without a verdict.
func (w *World) Fail(r githubfake.Run, conclusion string) {
	w.T.Helper()
	w.mu.Lock()
	w.handled[r.ID] = true
	w.mu.Unlock()
	if err := w.GH.SetRunStatus(r.ID, "completed", conclusion); err != nil {
		w.T.Fatalf("recesstest: run status: %v", err)
	}
}

// Adjourned and Recessed build verdict documents.
func Adjourned(body string) func(string, int) string {
	return func(cid string, n int) string {
		b, _ := json.Marshal(map[string]any{"verdict": "adjourned", "correlation_id": cid, "discussion_number": n,
			"replies": []map[string]string{{"body": body}}})
		return string(b)
	}
}

// Recessed asks a question and waits for trigger (a JSON document).
func Recessed(question, trigger string) func(string, int) string {
	return func(cid string, n int) string {
		doc := map[string]any{"verdict": "recessed", "correlation_id": cid, "discussion_number": n,
			"trigger": json.RawMessage(trigger)}
		if question != "" {
			doc["replies"] = []map[string]string{{"body": question}}
		}
		b, _ := json.Marshal(doc)
		return string(b)
	}
}

// History returns the resume_context of run r (zero when it has none).
func History(r githubfake.Run) resume.Context {
	var rc resume.Context
	_ = json.Unmarshal([]byte(r.Inputs["resume_context"]), &rc)
	return rc
}

// Count is what a stretch of requests cost.
type Count struct {
	REST, GraphQL, Points, Writes int
}

// Total is every request.
func (c Count) Total() int { return c.REST + c.GraphQL }

func (c Count) String() string {
	return fmt.Sprintf("%d requests (%d REST, %d GraphQL, %d writes), %d GraphQL points", c.Total(), c.REST, c.GraphQL, c.Writes, c.Points)
}

// Measure runs fn and counts the requests GitHub saw meanwhile.
func (w *World) Measure(fn func()) Count {
	before := len(w.GH.Requests())
	fn()
	var c Count
	for _, r := range w.GH.Requests()[before:] {
		if r.GraphQL {
			c.GraphQL++
			c.Points += r.Cost
			if r.Mutation {
				c.Writes++
			}
			continue
		}
		c.REST++
		if r.Method != http.MethodGet {
			c.Writes++
		}
	}
	return c
}

// ErrKilled is what a killed run's requests fail with.
var ErrKilled = errors.New("recesstest: the process died")

// KillAfter returns a transport wrapper that lets n requests through and
// fails every later one, as if the process died right after its n-th call.
// When applied is true the (n+1)-th request still reaches GitHub before the
// process "dies", so its effect happens without the run knowing.
func KillAfter(n int, applied bool) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		var mu sync.Mutex
		calls := 0
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			mu.Lock()
			calls++
			k := calls
			mu.Unlock()
			switch {
			case k <= n:
				return next.RoundTrip(req)
			case k == n+1 && applied:
				resp, err := next.RoundTrip(req)
				if err == nil {
					resp.Body.Close()
				}
				return nil, ErrKilled
			default:
				return nil, ErrKilled
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// RecessComments are the comments recess's identity wrote in a discussion.
func (w *World) RecessComments(discussionID string) []githubfake.Comment {
	w.T.Helper()
	cs, err := w.GH.Comments(discussionID)
	if err != nil {
		w.T.Fatalf("recesstest: comments: %v", err)
	}
	var out []githubfake.Comment
	for _, c := range cs {
		if c.Author == Bot {
			out = append(out, c)
		}
	}
	return out
}

// StatusLine is the first line of recess's status comment ("" if none).
func (w *World) StatusLine(discussionID string) string {
	for _, c := range w.RecessComments(discussionID) {
		if strings.Contains(c.Body, "recess:state") {
			line, _, _ := strings.Cut(c.Body, "\n")
			return line
		}
	}
	return ""
}
