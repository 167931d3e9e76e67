package resume_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/fakeclock"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// world is an in-memory stand-in for GitHub and the store, behind the
// engine's ports. It refuses what GitHub refuses (a reply to a reply, a
// comment body over 65,536 characters, dispatch inputs over 65,535).
type world struct {
	mu    sync.Mutex
	clock *fakeclock.Clock

	discussions map[int]*resume.Thread
	seq         int

	reactions map[string]map[resume.Reaction]bool
	labels    map[string]map[string]bool

	dispatches []dispatchCall
	runs       []*resume.WorkflowRun
	// dispatchErrs are returned by the next Dispatch calls, in order; an
	// entry errApplied means "started the run, then answered 502".
	dispatchErrs []error
	// onDispatch, when set, runs after a dispatch was accepted.
	onDispatch func(dispatchCall)

	records map[int][]byte
	revs    map[int]int
	// saveErrs are returned by the next Save calls.
	saveErrs []error
	// beforeSave, when set, runs once at the start of the next Save: another
	// run writing between this run's read and its write.
	beforeSave func()

	// roles are the repository permissions of logins (role names as
	// GitHub's role_name). A login without one takes it from the
	// association it commented with: OWNER admin, MEMBER and COLLABORATOR
	// write, anyone else read (this world's shorthand; the real rule is
	// GitHub's answer, tested through internal/github). permErr, when set,
	// answers every permission read. asked counts the reads per login.
	roles   map[string]string
	assocs  map[string]string
	permErr error
	asked   map[string]int
}

type dispatchCall struct {
	req resume.DispatchRequest
	at  time.Time
	run *resume.WorkflowRun
}

var errApplied = errors.New("502 after the dispatch was applied")

func newWorld(t *testing.T) *world {
	t.Helper()
	return &world{
		clock:       fakeclock.New(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)),
		discussions: map[int]*resume.Thread{},
		reactions:   map[string]map[resume.Reaction]bool{},
		labels:      map[string]map[string]bool{},
		records:     map[int][]byte{},
		revs:        map[int]int{},
		roles:       map[string]string{},
		assocs:      map[string]string{},
		asked:       map[string]int{},
	}
}

// Permission answers the Permissions port (see world.roles).
func (w *world) Permission(_ context.Context, login string) (resume.Permission, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.asked[login]++
	if w.permErr != nil {
		return resume.Permission{}, w.permErr
	}
	role, ok := w.roles[login]
	if !ok {
		switch w.assocs[login] {
		case "OWNER":
			role = "admin"
		case "MEMBER", "COLLABORATOR":
			role = "write"
		default:
			role = "read"
		}
	}
	switch role {
	case "admin", "maintain", "write":
		return resume.Permission{Role: role, Write: true}, nil
	}
	return resume.Permission{Role: role}, nil
}

func (w *world) Now() time.Time { return w.clock.Now() }

func (w *world) advance(d time.Duration) { w.clock.Step(d) }

func (w *world) engine(cfg resume.Config) *resume.Engine {
	n := 0
	if cfg.NewID == nil {
		cfg.NewID = func() string {
			w.mu.Lock()
			defer w.mu.Unlock()
			n++
			return fmt.Sprintf("c-%d", n)
		}
	}
	return &resume.Engine{Clock: w, Store: w, Threads: w, Dispatcher: w, Permissions: w, Config: cfg}
}

func (w *world) nextID(prefix string) string {
	w.seq++
	return fmt.Sprintf("%s_%d", prefix, w.seq)
}

// openDiscussion creates a discussion by a person.
func (w *world) openDiscussion(author string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.discussions) + 1
	w.discussions[n] = &resume.Thread{ID: w.nextID("D"), Number: n, Title: "RFC", Body: "Please review",
		Author: author, CreatedAt: w.clock.Now(), URL: fmt.Sprintf("https://github.test/o/r/discussions/%d", n)}
	return n
}

// say adds a person's comment (a reply when parent is not "").
func (w *world) say(n int, author, assoc, parent, body string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.discussions[n]
	id := w.nextID("DC")
	w.assocs[author] = assoc
	d.Comments = append(d.Comments, resume.Comment{ID: id, Root: parent, Author: author, Association: assoc,
		Body: body, CreatedAt: w.clock.Now(), URL: d.URL + "#" + id})
	return id
}

func (w *world) Thread(_ context.Context, ref resume.ThreadRef) (*resume.Thread, error) {
	n := ref.Number
	w.mu.Lock()
	defer w.mu.Unlock()
	d, ok := w.discussions[n]
	if !ok || cmp.Or(d.Kind, state.KindDiscussion) != cmp.Or(ref.Kind, state.KindDiscussion) {
		// GitHub knows no thread of another kind by that number.
		return nil, fmt.Errorf("%s %d: %w", ref.Kind, n, resume.ErrNotFound)
	}
	c := *d
	c.Comments = append([]resume.Comment(nil), d.Comments...)
	return &c, nil
}

func (w *world) Reply(_ context.Context, t *resume.Thread, to, body string) (*resume.Comment, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len([]rune(body)) > 65536 {
		return nil, errors.New("body is too long (maximum is 65536 characters)")
	}
	for _, d := range w.discussions {
		if d.ID != t.ID {
			continue
		}
		replyTo := ""
		if to != "" {
			// The adapter places an answer under the top-level comment
			// its comment sits in: GitHub threads one level deep. A flat
			// thread (an issue) holds none: the answer quotes it.
			ok := false
			for _, c := range d.Comments {
				if c.ID == to {
					replyTo, ok = c.Thread(), true
				}
			}
			if !ok {
				return nil, fmt.Errorf("comment %s: %w", to, resume.ErrNotFound)
			}
			if d.Kind == state.KindIssue {
				replyTo, body = "", "> [answering]("+d.URL+"#"+to+")\n\n"+body
			}
		}
		id := w.nextID("DC")
		c := resume.Comment{ID: id, Root: replyTo, Author: "github-actions", Association: "NONE", Body: body,
			CreatedAt: w.clock.Now(), URL: d.URL + "#" + id, Mine: true}
		d.Comments = append(d.Comments, c)
		return &c, nil
	}
	return nil, fmt.Errorf("discussion %s: %w", t.ID, resume.ErrNotFound)
}

func (w *world) Edit(_ context.Context, id, body string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, d := range w.discussions {
		for i := range d.Comments {
			if c := &d.Comments[i]; c.ID == id && !c.Deleted {
				c.Body = body
				return nil
			}
		}
	}
	return fmt.Errorf("comment %s: %w", id, resume.ErrNotFound)
}

func (w *world) React(_ context.Context, id string, r resume.Reaction) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reactions[id] == nil {
		w.reactions[id] = map[resume.Reaction]bool{}
	}
	w.reactions[id][r] = true
	return nil
}

func (w *world) Unreact(_ context.Context, id string, r resume.Reaction) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.reactions[id], r)
	return nil
}

func (w *world) Label(_ context.Context, d *resume.Thread, name string) error {
	id := d.ID
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.labels[id] == nil {
		w.labels[id] = map[string]bool{}
	}
	w.labels[id][name] = true
	return nil
}

func (w *world) Unlabel(_ context.Context, d *resume.Thread, name string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.labels[d.ID], name)
	return nil
}

func (w *world) Dispatch(_ context.Context, req resume.DispatchRequest) (int64, error) {
	w.mu.Lock()
	var err error
	if len(w.dispatchErrs) > 0 {
		err, w.dispatchErrs = w.dispatchErrs[0], w.dispatchErrs[1:]
	}
	if err != nil && !errors.Is(err, errApplied) {
		w.mu.Unlock()
		return 0, err
	}
	total := 0
	for _, v := range req.Inputs() {
		total += len([]rune(v))
	}
	if total > resume.MaxDispatchInputChars {
		w.mu.Unlock()
		return 0, fmt.Errorf("inputs are too large (%d characters): %w", total, resume.ErrDispatchRefused)
	}
	run := &resume.WorkflowRun{ID: int64(1000 + len(w.runs)), Name: "agent " + req.CorrelationID, Status: "queued", CreatedAt: w.clock.Now()}
	w.runs = append(w.runs, run)
	call := dispatchCall{req: req, at: w.clock.Now(), run: run}
	w.dispatches = append(w.dispatches, call)
	hook := w.onDispatch
	w.mu.Unlock()
	if hook != nil {
		hook(call)
	}
	if err != nil {
		return 0, err
	}
	return run.ID, nil
}

func (w *world) FindRun(_ context.Context, cid string) (*resume.WorkflowRun, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.runs {
		if strings.HasSuffix(r.Name, " "+cid) {
			c := *r
			return &c, nil
		}
	}
	return nil, fmt.Errorf("run of %s: %w", cid, resume.ErrNotFound)
}

func (w *world) Run(_ context.Context, id int64) (*resume.WorkflowRun, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.runs {
		if r.ID == id {
			c := *r
			return &c, nil
		}
	}
	return nil, fmt.Errorf("run %d: %w", id, resume.ErrNotFound)
}

func (w *world) RecentDispatches(_ context.Context, since time.Time) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, d := range w.dispatches {
		if !d.at.Before(since) {
			n++
		}
	}
	return n, nil
}

func (w *world) finishRun(id int64, conclusion string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.runs {
		if r.ID == id {
			r.Status, r.Conclusion = "completed", conclusion
		}
	}
}

// Store port: JSON records with a revision counter.

func (w *world) Load(_ context.Context, n int) (*state.Record, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	b, ok := w.records[n]
	if !ok {
		return nil, state.ErrNotFound
	}
	var r state.Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", state.ErrCorrupt, err)
	}
	r.Rev = fmt.Sprint(w.revs[n])
	return &r, nil
}

func (w *world) Save(_ context.Context, r *state.Record) error {
	w.mu.Lock()
	if f := w.beforeSave; f != nil {
		w.beforeSave = nil
		w.mu.Unlock()
		f()
		w.mu.Lock()
	}
	defer w.mu.Unlock()
	if len(w.saveErrs) > 0 {
		err := w.saveErrs[0]
		w.saveErrs = w.saveErrs[1:]
		if err != nil {
			return err
		}
	}
	_, exists := w.records[r.Discussion]
	if (r.Rev == "" && exists) || (r.Rev != "" && r.Rev != fmt.Sprint(w.revs[r.Discussion])) {
		return state.ErrConflict
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	w.records[r.Discussion] = b
	w.revs[r.Discussion]++
	r.Rev = fmt.Sprint(w.revs[r.Discussion])
	return nil
}

func (w *world) Pending(_ context.Context) ([]state.Summary, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []state.Summary
	for n, b := range w.records {
		var r state.Record
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, err
		}
		if r.Pending() {
			out = append(out, state.Summary{Discussion: n, Kind: r.Kind, NextDue: r.NextDue(), Known: true, Checked: r.Checked})
		}
	}
	return out, nil
}

// record returns the stored record (test helper).
func (w *world) record(t *testing.T, n int) *state.Record {
	t.Helper()
	r, err := w.Load(context.Background(), n)
	if err != nil {
		t.Fatalf("load record %d: %v", n, err)
	}
	return r
}

func (w *world) mine(n int) []resume.Comment {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []resume.Comment
	for _, c := range w.discussions[n].Comments {
		if c.Mine {
			out = append(out, c)
		}
	}
	return out
}

func (w *world) calls() []dispatchCall {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]dispatchCall(nil), w.dispatches...)
}

// resumeContext decodes the resume_context of dispatch i.
func (w *world) resumeContext(t *testing.T, i int) resume.Context {
	t.Helper()
	calls := w.calls()
	if i >= len(calls) {
		t.Fatalf("dispatch %d: only %d dispatches", i, len(calls))
	}
	var rc resume.Context
	if err := json.Unmarshal([]byte(calls[i].req.ResumeContext), &rc); err != nil {
		t.Fatalf("dispatch %d: resume_context %q: %v", i, calls[i].req.ResumeContext, err)
	}
	return rc
}

// recessed opens a discussion whose first run recessed with question on
// trigger (correlation id c-1), a minute ago.
func (w *world) recessed(t *testing.T, e *resume.Engine, trigger, question string) int {
	t.Helper()
	n := w.openDiscussion("alice")
	mustRun(t)(e.Intake(ctx, n))
	mustRun(t)(verdict(t, e, recessed("c-1", n, trigger, question)))
	w.advance(time.Minute)
	return n
}
