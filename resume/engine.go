package resume

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// Labels recess puts on discussions.
const (
	// LabelWaiting marks discussions with something pending (stores that
	// cannot list their records use it to find them).
	LabelWaiting = "recess:waiting"
	// LabelEscalated marks discussions whose automatic runs stopped.
	LabelEscalated = "recess:escalated"
)

// Config is the policy the engine applies. Zero fields take the defaults
// of SPEC.md (see Defaults).
type Config struct {
	// MaxDispatchesPerHour bounds fresh dispatches per discussion and per
	// repository. Resumes and retries are never rate-limited.
	MaxDispatchesPerHour int
	// MaxAttempts counts every dispatch of one resume, the first included.
	MaxAttempts int
	// MaxOperations bounds the discussions one sweep visits.
	MaxOperations int
	// MaxRecess bounds every trigger duration.
	MaxRecess wait.Duration
	// AllowedKinds, when not empty, are the trigger kinds verdicts may use.
	AllowedKinds []string
	// EscalateTo are the logins an escalation mentions.
	EscalateTo []string
	// IgnoreAuthors are logins whose comments never count (bots), compared
	// case-insensitively with any "[bot]" suffix removed.
	IgnoreAuthors []string
	// DispatchGrace is how long an unconfirmed dispatch intent is presumed
	// to belong to a run still at work before it is looked up and redone.
	DispatchGrace time.Duration
	// RetryDelay is the wait after a failed dispatch call before another.
	RetryDelay time.Duration
	// StaleRun is the age after which an inbound run (not only a sweep)
	// checks on the active agent run.
	StaleRun time.Duration
	// SweepInterval is the schedule's interval; an inbound run that finds a
	// due moment overdue by far more than it warns that sweeps are missing.
	SweepInterval time.Duration
	// NewID returns a fresh correlation id.
	NewID func() string
}

// Defaults returns the configuration SPEC.md describes.
func Defaults() Config {
	max, _ := wait.ParseDuration("P90D")
	return Config{
		MaxDispatchesPerHour: 10,
		MaxAttempts:          2,
		MaxOperations:        100,
		MaxRecess:            max,
		DispatchGrace:        10 * time.Minute,
		RetryDelay:           time.Minute,
		StaleRun:             30 * time.Minute,
		SweepInterval:        5 * time.Minute,
	}
}

func (c Config) withDefaults() Config {
	d := Defaults()
	if c.MaxDispatchesPerHour <= 0 {
		c.MaxDispatchesPerHour = d.MaxDispatchesPerHour
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = d.MaxAttempts
	}
	if c.MaxOperations <= 0 {
		c.MaxOperations = d.MaxOperations
	}
	if c.MaxRecess.IsZero() {
		c.MaxRecess = d.MaxRecess
	}
	if c.DispatchGrace <= 0 {
		c.DispatchGrace = d.DispatchGrace
	}
	if c.RetryDelay <= 0 {
		c.RetryDelay = d.RetryDelay
	}
	if c.StaleRun <= 0 {
		c.StaleRun = d.StaleRun
	}
	if c.SweepInterval <= 0 {
		c.SweepInterval = d.SweepInterval
	}
	if c.NewID == nil {
		c.NewID = NewCorrelationID
	}
	return c
}

// NewCorrelationID returns a fresh random correlation id ("c-" and 20 hex
// digits).
func NewCorrelationID() string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("resume: no randomness: %v", err))
	}
	return "c-" + hex.EncodeToString(b[:])
}

// Engine decides and acts for recess. Create one per run; it is not safe
// for concurrent use (runs of recess never are: the engine is sequential by
// design, and concurrency between runs is handled by the store's
// optimistic writes).
type Engine struct {
	Clock       Clock
	Store       Store
	Discussions Discussions
	Dispatcher  Dispatcher
	Config      Config
	// Logf receives one line per decision; nil discards them.
	Logf func(format string, args ...any)
}

// Result is what a run did, for outputs, logs and the job summary.
type Result struct {
	Command    string
	Discussion int
	// Fired is true when this run dispatched a resume (or a retry).
	Fired         bool
	FiredBy       string
	CorrelationID string
	// DueAt is the soonest predicted fire moment among open recesses.
	DueAt    *time.Time
	OpenRFCs int
	// Stale is the claim answer: this run is not the one recess expects.
	Stale bool
	// Dispatched is true when this run started an agent run (fresh,
	// resume or retry).
	Dispatched bool
	// Notes say what happened and why; Warnings need a person's attention.
	Notes    []string
	Warnings []string
	// RFCs describe the open recesses after the run.
	RFCs []RFCView
	// Sweep holds the per-discussion results of a sweep.
	Sweep []*Result
	// Left counts discussions a sweep left for the next one (max-operations).
	Left int
}

// RFCView describes one open recess for people.
type RFCView struct {
	Discussion    int
	CorrelationID string
	Trigger       json.RawMessage
	OpenedAt      time.Time
	Waiting       string // plain words: what it waits for
	Reason        string // the evaluation's reason
	DueAt         *time.Time
	RecessCount   int
	Summary       string
}

func (r *Result) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

func (r *Result) warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// maxConflictRetries bounds how often one run re-reads after a concurrent
// write before giving up (the next run or sweep picks the work up).
const maxConflictRetries = 8

// ErrRefused marks refused input (a stale verdict, an unknown discussion):
// the run changed nothing. errors.As with *FieldError gives the field.
var ErrRefused = errors.New("refused")

func (e *Engine) logf(format string, args ...any) {
	if e.Logf != nil {
		e.Logf(format, args...)
	}
}

func (e *Engine) cfg() Config { return e.Config.withDefaults() }

// passOpts says what kind of run a pass belongs to.
type passOpts struct {
	command string
	// checkRuns: look up the active agent run on GitHub (sweeps).
	checkRuns bool
	// sweep: the pass is a sweep's visit, not a run for an event.
	sweep bool
}

// pass is one read-decide-act cycle over one discussion. A pass that meets
// a concurrent write is thrown away and started again from a fresh read;
// everything it did before that is idempotent (markers on posted comments,
// reactions, intents recorded before dispatches).
type pass struct {
	e    *Engine
	cfg  Config
	ctx  context.Context
	now  time.Time
	opts passOpts
	res  *Result

	rec    *state.Record
	isNew  bool
	before string

	d *Discussion

	// decisions taken in this pass
	plan     *dispatchPlan
	manual   bool   // "/recess resume"
	cancel   string // "/recess cancel": the reason
	retry    bool   // "/recess retry"
	unreact  []string
	notes    []owedNote // posted once the record write that decides them won
	evals    map[string]wait.Evaluation
	observed map[string]wait.Observed
}

// dispatchPlan is the one dispatch a pass may make.
type dispatchPlan struct {
	run   *state.Run // the Active run to (re)dispatch
	fresh bool       // counts against the rate limit
	redo  bool       // re-sending an earlier intent with the same id
}

func (e *Engine) newPass(ctx context.Context, number int, opts passOpts, res *Result) (*pass, error) {
	p := &pass{e: e, cfg: e.cfg(), ctx: ctx, now: e.Clock.Now().UTC(), opts: opts, res: res}
	rec, err := e.Store.Load(ctx, number)
	switch {
	case errors.Is(err, state.ErrNotFound):
		rec, p.isNew = state.New(number), true
	case err != nil:
		return nil, fmt.Errorf("load record of discussion %d: %w", number, err)
	}
	if rec.OpenRFCs == nil {
		rec.OpenRFCs = map[string]*state.RFC{}
	}
	p.rec = rec
	p.before = fingerprint(rec)
	return p, nil
}

// discussion reads the discussion once per pass.
func (p *pass) discussion() (*Discussion, error) {
	if p.d != nil {
		return p.d, nil
	}
	d, err := p.e.Discussions.Discussion(p.ctx, p.rec.Discussion)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(d.Comments, func(i, j int) bool { return d.Comments[i].CreatedAt.Before(d.Comments[j].CreatedAt) })
	p.d = d
	if p.rec.DiscussionID == "" {
		p.rec.DiscussionID = d.ID
	}
	return d, nil
}

// fingerprint is what "the record changed" compares: everything but the
// bookkeeping that alone never justifies a write. Checked moves with every
// comment looked at; Dispatches only lose entries that aged out of the rate
// limit's hour (a new one always comes with a new Active run). Both are
// written when something else is, and a run that writes nothing recomputes
// them, so a sweep never writes a record it merely looked at.
func fingerprint(rec *state.Record) string {
	c := *rec
	c.UpdatedAt, c.Checked, c.Dispatches = time.Time{}, time.Time{}, nil
	if len(c.OpenRFCs) == 0 {
		c.OpenRFCs = nil
	}
	b, err := json.Marshal(&c)
	if err != nil {
		panic(fmt.Sprintf("resume: fingerprint: %v", err))
	}
	return string(b)
}

// save writes the record if it changed. It returns an error wrapping
// state.ErrConflict when another run wrote first.
func (p *pass) save() error {
	if p.d == nil && len(p.rec.OpenRFCs) > 0 {
		// Describing an open recess needs the discussion (reply counts).
		if _, err := p.discussion(); err != nil {
			return fmt.Errorf("read discussion %d: %w", p.rec.Discussion, err)
		}
	}
	p.rec.Status = p.status()
	if fingerprint(p.rec) == p.before {
		return nil
	}
	if p.isNew && !p.rec.Pending() && len(p.rec.Applied) == 0 && p.rec.Seen.At.IsZero() {
		// Nothing worth remembering about a discussion recess never acted on.
		return nil
	}
	if p.d != nil {
		p.rec.Checked = newest(p.d).At
	}
	p.rec.UpdatedAt = p.now
	if err := p.e.Store.Save(p.ctx, p.rec); err != nil {
		return fmt.Errorf("save record of discussion %d: %w", p.rec.Discussion, err)
	}
	p.isNew = false
	p.before = fingerprint(p.rec)
	return nil
}

// cancelMoment is the first expiry moment (on_expire "cancel", anywhere in
// the trigger) at which, given what the discussion shows now, the recess is
// cancelled; false when there is none.
func (p *pass) cancelMoment(id string, rfc *state.RFC) (time.Time, bool) {
	t, err := wait.ParseTrigger(rfc.Trigger, wait.TriggerLimits{})
	if err != nil || p.d == nil {
		return time.Time{}, false
	}
	var expiries []wait.Duration
	var collect func(*wait.Trigger)
	collect = func(t *wait.Trigger) {
		if t.Expires != nil && t.OnExpire == wait.OnExpireCancel {
			expiries = append(expiries, *t.Expires)
		}
		for _, c := range t.Of {
			collect(c)
		}
	}
	collect(t)
	if len(expiries) == 0 {
		return time.Time{}, false
	}
	o, ok := p.observed[id]
	if !ok {
		o = p.observe(rfc)
	}
	moments := make([]time.Time, len(expiries))
	for i, d := range expiries {
		moments[i] = wait.Moment(d, o)
	}
	slices.SortFunc(moments, time.Time.Compare)
	for _, m := range moments {
		if wait.Evaluate(t, o, m).Cancelled {
			return m.UTC(), true
		}
	}
	return time.Time{}, false
}

// run performs fn in passes until one completes without a concurrent write.
func (e *Engine) run(ctx context.Context, number int, opts passOpts, fn func(*pass) error) (*Result, error) {
	var res *Result
	for try := 0; ; try++ {
		res = &Result{Command: opts.command, Discussion: number}
		p, err := e.newPass(ctx, number, opts, res)
		if err != nil {
			return res, err
		}
		err = fn(p)
		if err == nil {
			p.after()
			return res, nil
		}
		if errors.Is(err, state.ErrConflict) && try < maxConflictRetries {
			e.logf("discussion %d: the record changed while this run worked; reading it again", number)
			continue
		}
		return res, err
	}
}

// after fills the result's view of the record once the pass is done.
func (p *pass) after() {
	ids := make([]string, 0, len(p.rec.OpenRFCs))
	for id := range p.rec.OpenRFCs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	p.res.OpenRFCs = len(ids)
	for _, id := range ids {
		rfc := p.rec.OpenRFCs[id]
		v := RFCView{Discussion: p.rec.Discussion, CorrelationID: id, Trigger: rfc.Trigger, OpenedAt: rfc.OpenedAt,
			DueAt: rfc.DueAt, RecessCount: rfc.RecessCount, Summary: rfc.Summary}
		if ev, ok := p.evals[id]; ok {
			v.Reason = ev.Reason
		}
		if t, err := wait.ParseTrigger(rfc.Trigger, wait.TriggerLimits{}); err == nil {
			v.Waiting = describe(t, p.observed[id])
		}
		p.res.RFCs = append(p.res.RFCs, v)
		p.res.DueAt = sooner(p.res.DueAt, rfc.DueAt)
	}
}

// include adds one discussion's result to a result over many (a sweep, a
// status of every pending discussion).
func (r *Result) include(d *Result) {
	r.Sweep = append(r.Sweep, d)
	r.OpenRFCs += d.OpenRFCs
	r.RFCs = append(r.RFCs, d.RFCs...)
	r.DueAt = sooner(r.DueAt, d.DueAt)
}

// sooner returns the earlier of two optional moments, as a copy.
func sooner(a, b *time.Time) *time.Time {
	if b == nil || (a != nil && !b.Before(*a)) {
		return a
	}
	t := *b
	return &t
}

// newest is the cursor just past every comment of the discussion.
func newest(d *Discussion) state.Cursor {
	c := state.Cursor{At: d.CreatedAt.UTC()}
	for i := range d.Comments {
		c = c.Advance(d.Comments[i].ID, d.Comments[i].CreatedAt.UTC())
	}
	return c
}

// normLogin folds a login for comparison: case, and GitHub's "[bot]" suffix
// that REST and webhooks add and GraphQL leaves off.
func normLogin(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "[bot]")
}

func (p *pass) ignored(login string) bool {
	n := normLogin(login)
	for _, x := range p.cfg.IgnoreAuthors {
		if normLogin(x) == n {
			return true
		}
	}
	return false
}

// human reports whether a comment is a person's words that count: not
// recess's own, not an ignored bot's, not minimized or deleted, and not a
// slash command recess accepted.
func (p *pass) human(c *Comment) bool {
	if c.Mine || c.Deleted || c.Minimized || p.ignored(c.Author) {
		return false
	}
	if _, ok := parseCommand(c.Body); ok && c.WriteAccess() {
		return false
	}
	return true
}

func (p *pass) comment(id string) *Comment {
	for i := range p.d.Comments {
		if p.d.Comments[i].ID == id {
			return &p.d.Comments[i]
		}
	}
	return nil
}
