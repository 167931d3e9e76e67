package resume

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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
	// IgnoreAuthors are logins (bots) whose comments recess treats as its
	// own: never a reply, never a command (compared with wait.SameLogin).
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
	// SweepOnlyWhileWaiting: the sweep runs only while something is
	// pending (see SweepSwitch), so a sweep that would switch it off first
	// makes sure nothing pending escaped its listing (see Overlooker).
	SweepOnlyWhileWaiting bool
	// Categories, when not empty, are the discussion categories (names or
	// slugs) recess serves; Labels, when not empty, serve only discussions
	// carrying one of them. See outOfScope.
	Categories, Labels []string
	// WakeOn says what starts a fresh run on a thread with nothing
	// pending: WakeComment, WakeMention, WakeCommand; empty: the default
	// of the thread's kind (comment for a discussion, mention for an
	// issue or a pull request).
	WakeOn string
	// MentionHandles are the handles WakeMention listens for ("@lead").
	MentionHandles []string
	// HideSummary leaves the verdict's summary out of the status comment.
	HideSummary bool
	// RepositoryURL ("https://github.com/OWNER/REPO") lets the status link
	// the agent run; empty: no link.
	RepositoryURL string
	// NewID returns a fresh correlation id for a fresh dispatch (intake, a
	// follow-up); NewResumeID one for a resume or a retry. The defaults
	// (NewCorrelationID, NewResumeCorrelationID) tell the two apart by
	// their prefix, so that the repository-wide rate limit counts only
	// fresh dispatches (see FreshRun). When only NewID is set, it serves
	// both.
	NewID       func() string
	NewResumeID func() string
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
	orDefault(&c.MaxDispatchesPerHour, d.MaxDispatchesPerHour)
	orDefault(&c.MaxAttempts, d.MaxAttempts)
	orDefault(&c.MaxOperations, d.MaxOperations)
	orDefault(&c.DispatchGrace, d.DispatchGrace)
	orDefault(&c.RetryDelay, d.RetryDelay)
	orDefault(&c.StaleRun, d.StaleRun)
	orDefault(&c.SweepInterval, d.SweepInterval)
	if c.MaxRecess.IsZero() {
		c.MaxRecess = d.MaxRecess
	}
	if c.NewResumeID == nil {
		if c.NewID == nil {
			c.NewResumeID = NewResumeCorrelationID
		} else {
			c.NewResumeID = c.NewID
		}
	}
	if c.NewID == nil {
		c.NewID = NewCorrelationID
	}
	return c
}

// orDefault sets a setting that is zero or less to its default.
func orDefault[T int | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// NewCorrelationID returns a fresh random correlation id for a fresh
// dispatch ("c-" and 20 hex digits).
func NewCorrelationID() string { return randomID("c-") }

// NewResumeCorrelationID returns a fresh random correlation id for a resume
// or a retry ("r-" and 20 hex digits).
func NewResumeCorrelationID() string { return randomID(resumePrefix) }

const resumePrefix = "r-"

func randomID(prefix string) string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("resume: no randomness: %v", err))
	}
	return prefix + hex.EncodeToString(b[:])
}

// FreshRun reports whether an agent run whose run-name is name counts as a
// fresh dispatch toward the repository's rate limit: it does unless the name
// carries a resume's or retry's correlation id (NewResumeCorrelationID).
// Only fresh dispatches (intake, follow-ups) are rate-limited; a resume
// answers a recess that was already paid for.
func FreshRun(name string) bool {
	return !slices.ContainsFunc(runNameTokens(name), func(t string) bool {
		return len(t) == len(resumePrefix)+20 && strings.HasPrefix(t, resumePrefix) &&
			strings.Trim(t[len(resumePrefix):], "0123456789abcdef") == ""
	})
}

// RunNameHas reports whether the run-name name carries the correlation id
// id as a whole word: not inside a longer id ("c-1" is not in "agent c-12"
// nor in "agent xc-1_b"). Words end at anything but a letter, digit, '_' or
// '-'; recess's own ids (NewCorrelationID, NewResumeCorrelationID) hold only
// those, so a run-name that ends a sentence after the id ("… c-1.") still
// names its run.
func RunNameHas(name, id string) bool {
	return hasWord(name, id, func(b byte) bool { return !runNameSep(rune(b)) })
}

// hasWord reports whether s holds w (non-empty) with no byte of a word
// (inWord) right before or right after it: the one whole-word search, for
// run-names and @-mentions.
func hasWord(s, w string, inWord func(byte) bool) bool {
	for i := 0; w != ""; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if (start == 0 || !inWord(s[start-1])) && (end == len(s) || !inWord(s[end])) {
			return true
		}
		i = start + 1
	}
	return false
}

// runNameTokens splits a run-name into its words (see RunNameHas).
func runNameTokens(name string) []string { return strings.FieldsFunc(name, runNameSep) }

func runNameSep(r rune) bool { return !strings.ContainsRune(alnum+"_-", r) }

// Engine decides and acts for recess. Create one per run; it is not safe
// for concurrent use (runs of recess never are: the engine is sequential by
// design, and concurrency between runs is handled by the store's
// optimistic writes).
type Engine struct {
	Clock   Clock
	Store   Store
	Threads Threads
	// Kind is the kind of thread the entry points address by number (see
	// ThreadRef); empty: a discussion; AnyKind: whichever the number
	// names.
	Kind       state.Kind
	Dispatcher Dispatcher
	// Permissions says who may use slash commands; nil: nobody (every
	// command is refused with a warning).
	Permissions Permissions
	Config      Config
	// Logf receives one line per decision; nil discards them.
	Logf func(format string, args ...any)
	// DryRun makes every entry point read and decide as usual and write
	// nothing: the result lists what a real run would write, in order
	// (Result.Planned).
	DryRun bool

	// perms caches the Permissions port's answers by normalised login:
	// asked once per author per run.
	perms map[string]access
	// setupRead caches the Dispatcher's account of the agent workflow
	// (see setup): read once per run, when a refused dispatch needs it.
	setupRead *string
}

// setup is what a dispatch of the agent workflow depends on besides its
// request (SetupReader), read once per run; setupUnknown when the
// Dispatcher cannot tell.
func (e *Engine) setup(ctx context.Context) (string, error) {
	if e.setupRead != nil {
		return *e.setupRead, nil
	}
	r, ok := e.Dispatcher.(SetupReader)
	if !ok {
		return setupUnknown, nil
	}
	s, err := r.Setup(ctx)
	if err != nil {
		return "", fmt.Errorf("look at the agent workflow: %w", err)
	}
	e.setupRead = &s
	return s, nil
}

// Result is what a run did, for outputs, logs and the job summary.
type Result struct {
	Command    string
	Discussion int
	// Kind is the kind of thread Discussion is (empty: a discussion).
	Kind state.Kind
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
	// Plan lists the discussions a sweep would visit, in order (Plan).
	Plan []int
	// SweepSwitch is what the run asks of the sweep workflow when the sweep
	// runs only while something waits (see SweepSwitch).
	SweepSwitch SweepSwitch
	// Planned lists, with Engine.DryRun, what a real run would have written,
	// in order: verdict replies, the record, the effects, the dispatch.
	Planned []Effect
	// Missing is GitHub's "not found" for the discussion this run is about
	// (a wrong repository, a discussion deleted or transferred), nil when
	// GitHub knew it. The engine treats such a discussion as nothing to
	// do; the caller says why the run did nothing.
	Missing error
}

// RFCView describes one open recess for people.
type RFCView struct {
	Discussion    int             `json:"discussion"`
	CorrelationID string          `json:"correlation_id"`
	Trigger       json.RawMessage `json:"trigger"`
	OpenedAt      time.Time       `json:"opened_at"`
	Waiting       string          `json:"waiting_for"` // plain words: what it waits for
	Reason        string          `json:"reason"`      // the evaluation's reason
	DueAt         *time.Time      `json:"due_at"`
	RecessCount   int             `json:"recess_count"`
	Summary       string          `json:"summary,omitempty"`
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

// input is what an entry point asks of a decision: its rule, which decides
// over the facts on the record being built (a copy of the snapshot's) and
// returns the plan, and what the read gathers for it: the discussion
// (every entry point but claim); for a sweep's visit, the active agent run
// looked up on GitHub; in a dry run of a deletion (Engine.Deleted), the
// record the deleted comment held, which a real run writes back first:
// where no record stands in its place, the read takes it (restored), and
// the plan begins with its write.
type input struct {
	command string
	// kind is the kind of the thread this run is about; empty: Engine.Kind.
	kind       state.Kind
	discussion bool
	sweep      bool
	restore    *state.Record
	rule       func(f *facts, rec *state.Record) (plan, error)
}

// snapshot is what one read of a discussion gathered: the record, the
// discussion, and GitHub's answers that a decision needs besides them. A
// decision is a function of the snapshot, the input, the clock and the
// configuration alone; it performs no I/O.
type snapshot struct {
	rec   *state.Record
	isNew bool
	// restored: the read took the record of input.restore.
	restored bool
	// d is the discussion, oldest comment first; nil when it was not read
	// or does not exist (deleted: dErr wraps ErrNotFound).
	d    *Thread
	dErr error
	// missing is GitHub's "not found" for the discussion, from whichever
	// read met it (the store's or the discussion's): Result.Missing.
	missing error
	// run is the active run as GitHub reports it, when the decision looks
	// at it (see looksUp).
	run answer[*WorkflowRun]
	// recent counts the repository's agent runs of the last hour, and
	// setup is the Dispatcher's account of the agent workflow
	// (SetupReader): read only when a decision needs them.
	recent answer[int]
	setup  answer[string]
	// findsByLabel: the store finds pending records by the waiting label
	// (LabelFinder), which the decision then keeps right.
	findsByLabel bool
	// readsReactions: the Threads port tells which subjects carry
	// recess's own reaction (ReactionReader). reacted are those of the
	// subjects a decision needed (need.reacted) that carry recess's 👀.
	readsReactions bool
	reacted        answer[[]string]
	// perms are the permissions of the authors of comments that hold a
	// slash command, by normalised login: a copy of what the engine asked
	// so far (see Engine.permissions).
	perms map[string]access
}

// answer is what a read gave: its value or its error, once read.
type answer[T any] struct {
	v    T
	err  error
	read bool
}

func answered[T any](v T, err error) answer[T] { return answer[T]{v, err, true} }

// need is what a decision must read before it can be taken, one request
// each, spent only then: the repository's recent dispatches (for a fresh
// dispatch), which subjects carry recess's 👀 (see unaccountedRun), the
// agent workflow's setup (for a dispatch GitHub refused: see blocked). The
// runner reads it and decides again.
type need struct {
	recent  bool
	reacted []string
	setup   bool
}

func (n need) any() bool { return n.recent || n.reacted != nil || n.setup }

// plan is a decision as a value, which the runner carries out in one fixed
// order (see Engine.apply): a verdict's replies (posts) before anything
// else; then the waiting label that must precede the write (first, see
// facts.waitingLabel); the write of the decided record rec, when it
// changed and is worth writing (write); the effects once the write has won
// (after); the one dispatch. A plan with posts or a need is not final: the
// runner posts or reads, and decides again. A plan whose write loses to a
// concurrent one is thrown away, effects and all.
//
// res, views (the open recesses, for the result once applied) and logs are
// its report; fail is the error the run ends with once it is applied (what
// is owed is written down, and a person must act: ErrNoWorkflow). d is the
// discussion it read (nil: not read), to which apply adds what it posts;
// now is its moment. readOnly marks a decision that changes nothing,
// whatever the status would read (a re-delivered verdict, a stale claim, a
// status report). obs and evals are what the rule observed and evaluated of
// the open recesses, reused by the status and the report.
type plan struct {
	posts        []post
	need         need
	rec          *state.Record
	write        bool
	first, after []Effect
	dispatch     *dispatchPlan
	res          Result
	views        []RFCView
	logs         []string
	fail         error
	d            *Thread
	now          time.Time
	readOnly     bool
	obs          observations
	evals        map[string]wait.Evaluation
}

// with is p followed by what q adds: lists appended in order, q's
// dispatch, failure and correlation id in place of p's when q has them.
func (p plan) with(qs ...plan) plan {
	for _, q := range qs {
		p.posts = append(p.posts, q.posts...)
		p.need.recent, p.need.setup = p.need.recent || q.need.recent, p.need.setup || q.need.setup
		if q.need.reacted != nil {
			p.need.reacted = q.need.reacted
		}
		p.first, p.after = append(p.first, q.first...), append(p.after, q.after...)
		p.dispatch = cmp.Or(q.dispatch, p.dispatch)
		if q.fail != nil {
			p.fail = q.fail
		}
		p.res.Notes, p.res.Warnings = append(p.res.Notes, q.res.Notes...), append(p.res.Warnings, q.res.Warnings...)
		p.res.CorrelationID = cmp.Or(q.res.CorrelationID, p.res.CorrelationID)
		p.res.Stale = p.res.Stale || q.res.Stale
		p.readOnly = p.readOnly || q.readOnly
		p.logs = append(p.logs, q.logs...)
		if q.obs != nil {
			p.obs, p.evals = q.obs, q.evals
		}
	}
	return p
}

// noted, warned, logged and after are plans of one note, warning, log
// line or list of effects, for rules to return.
func noted(format string, args ...any) plan {
	return plan{res: Result{Notes: []string{fmt.Sprintf(format, args...)}}}
}

func warned(format string, args ...any) plan {
	return plan{res: Result{Warnings: []string{fmt.Sprintf(format, args...)}}}
}

func logged(format string, args ...any) plan {
	return plan{logs: []string{fmt.Sprintf(format, args...)}}
}

func after(f ...Effect) plan { return plan{after: f} }

// facts is what a decision reads, and nothing it changes: the snapshot,
// the input, the configuration, the clock, and what is derived from them
// once. Its methods only read; the rules take the record being built and
// return what they add.
type facts struct {
	s   snapshot
	in  input
	cfg Config
	now time.Time
	// d is the discussion (s.d).
	d *Thread
	// awaited are the signals the open recesses this decision found wait
	// for (see unawaited).
	awaited awaited
	// afterCopy are, when the record was restored from recess's copy of
	// it (restore) without an agent run at work, what a dispatch after the
	// copy would have put recess's 👀 on: a dispatch this decision makes
	// looks there first (unaccountedRun).
	afterCopy []string
}

// dispatchPlan is the one dispatch a decision may make.
type dispatchPlan struct {
	run   *state.Run // the Active run to (re)dispatch
	fresh bool       // counts against the rate limit
	// input is the resume_context the dispatch carries.
	input string
}

// ref addresses the thread number of the run's kind.
func (e *Engine) ref(number int, in input) ThreadRef {
	return NumberRef(cmp.Or(in.kind, e.Kind), number)
}

// read gathers a snapshot: the record, the discussion when the entry point
// needs it (in one read when the store offers ThreadStore), and the
// active run when the decision will look at it.
func (e *Engine) read(ctx context.Context, number int, in input, now time.Time) (*snapshot, error) {
	f, ok := e.Store.(LabelFinder)
	_, reads := e.Threads.(ReactionReader)
	s := &snapshot{findsByLabel: ok && f.FindsPendingByLabel(), readsReactions: reads}
	var err error
	ref := e.ref(number, in)
	// A thread of another kind than a discussion, or of unknown kind, is
	// read through the store that can read it (the comment store finds its
	// record there), whatever the entry point.
	if ds, ok := e.Store.(ThreadStore); ok && (in.discussion || ref.Kind != state.KindDiscussion) {
		s.rec, s.d, err = ds.LoadWith(ctx, ref)
		if errors.Is(err, ErrNotFound) {
			s.d, s.dErr, err = nil, err, state.ErrNotFound
		}
	} else {
		s.rec, err = e.Store.Load(ctx, number)
		// A store that reads the discussion says it is gone alongside
		// state.ErrNotFound.
		s.missing = notFound(err)
	}
	if in.restore != nil && errors.Is(err, state.ErrNotFound) && s.dErr == nil {
		// A dry run of a deletion: the record as the real run's write
		// back leaves it.
		s.rec, s.restored, err = in.restore.Clone(), true, nil
	}
	switch {
	case errors.Is(err, state.ErrNotFound):
		s.rec, s.isNew = state.New(number), true
	case err != nil:
		return nil, fmt.Errorf("load record of discussion %d: %w", number, err)
	}
	if s.rec.OpenRFCs == nil {
		s.rec.OpenRFCs = map[string]*state.RFC{}
	}
	if ref.Kind == AnyKind && !s.isNew {
		ref.Kind = s.rec.Kind.OrDiscussion() // the record knows its thread
	}
	if in.discussion && s.d == nil && s.dErr == nil {
		s.d, s.dErr = e.Threads.Thread(ctx, ref)
		if s.dErr != nil {
			s.d = nil
		}
	}
	if s.d != nil {
		ref.Kind = s.d.Kind.OrDiscussion()
	}
	if s.isNew && ref.Kind != state.KindDiscussion && ref.Kind != AnyKind {
		s.rec.Kind = ref.Kind // omitted for a discussion, as in every record so far
	}
	if s.missing == nil {
		s.missing = notFound(s.dErr)
	}
	if s.d != nil {
		sort.SliceStable(s.d.Comments, func(i, j int) bool { return s.d.Comments[i].CreatedAt.Before(s.d.Comments[j].CreatedAt) })
		if err := e.permissions(ctx, s.rec, s.isNew, s.d); err != nil {
			return nil, fmt.Errorf("discussion %d: %w", number, err)
		}
		s.perms = maps.Clone(e.perms)
	}
	if a := s.rec.Active; a != nil && in.discussion && s.d != nil && looksUp(e.cfg(), a, now, in.sweep) {
		if a.State == state.RunDispatched && a.RunID != 0 {
			s.run = answered(e.Dispatcher.Run(ctx, a.RunID))
		} else {
			s.run = answered(e.Dispatcher.FindRun(ctx, a.CorrelationID))
		}
	}
	return s, nil
}

// readMore reads into s the first thing a decision needs (one request,
// spent only when it is needed).
func (e *Engine) readMore(ctx context.Context, s *snapshot, n need, now time.Time) {
	switch {
	case n.recent:
		s.recent = answered(e.Dispatcher.RecentDispatches(ctx, now.Add(-time.Hour)))
	case n.reacted != nil:
		s.reacted = answered(e.Threads.(ReactionReader).Reacted(ctx, n.reacted, Eyes))
	case n.setup:
		s.setup = answered(e.setup(ctx))
	}
}

// looksUp is the one rule for when a run looks the active agent run up on
// GitHub: an unconfirmed intent past its grace (or past the retry delay
// after a failed call), and a dispatched run on a sweep's visit or once it
// is older than StaleRun.
func looksUp(c Config, a *state.Run, now time.Time, sweep bool) bool {
	switch a.State {
	case state.RunDispatching:
		wait := c.DispatchGrace
		if a.DispatchErrors > 0 {
			wait = c.RetryDelay
		}
		return now.Sub(a.IntentAt) >= wait
	case state.RunDispatched:
		return sweep || now.Sub(a.DispatchedAt) >= c.StaleRun
	}
	return false
}

// decide takes one decision over a snapshot with the entry point's rule
// (in.rule), on a copy of its record, and returns it as a plan. It performs
// no I/O: what it needs to read more of, and what it logs, come back in
// the plan.
func decide(s snapshot, in input, c Config, now time.Time) (plan, error) {
	rec := s.rec.Clone() // read made its OpenRFCs non-nil
	// Every decision prunes the rate limit's history, whatever the entry
	// point: a verdict that kept entries past the hour would hold a
	// follow-up back for a false reason, and past the record's bound fail
	// its write after posting its replies.
	rec.Dispatches = pruned(rec.Dispatches, now)
	if s.d != nil && rec.DiscussionID == "" {
		rec.DiscussionID = s.d.ID
	}
	f := &facts{s: s, in: in, cfg: c, now: now, d: s.d, awaited: awaitedSignals(rec)}
	p, err := in.rule(f, rec)
	p.rec, p.d, p.now = rec, s.d, now
	p.res.Command, p.res.Discussion, p.res.Kind, p.res.Missing = in.command, rec.Discussion, rec.Kind, s.missing
	if in.restore != nil && !s.isNew {
		// A dry run of a deletion says first what its write back would do.
		b := writtenBack(in.restore, s.restored, true)
		p.res.Notes, p.res.Warnings = append(b.res.Notes, p.res.Notes...), append(b.res.Warnings, p.res.Warnings...)
	}
	if err != nil || p.need.any() || len(p.posts) > 0 {
		return p, err
	}
	// The status and the report reuse what the rule observed; a rule that
	// did not look (a re-delivered verdict) adds no recess, observed here.
	if f.d != nil && p.obs == nil {
		p.obs = f.observeAll(rec)
	}
	keep := s.findsByLabel
	if !p.readOnly {
		if f.d != nil {
			rec.Status = f.status(rec, p.obs)
		}
		changed := fingerprint(rec) != fingerprint(s.rec) || p.dispatch != nil || f.behind(rec)
		if changed && s.isNew && p.dispatch == nil && !rec.Pending() && len(rec.Applied) == 0 && rec.Seen.At.IsZero() {
			// Nothing worth remembering about a discussion recess never
			// acted on; a waiting label there is stray (one transferred in
			// with another repository's label, a record lost and not
			// restorable): nothing waits, and every sweep would come back.
			keep = true
		} else {
			p.write = changed
		}
	}
	if keep {
		p = p.with(f.waitingLabel(rec, p.write || p.dispatch != nil))
	}
	p.views = f.views(rec, p.obs, p.evals)
	return p, nil
}

// run is the loop of every entry point: read once, decide, apply. It reads
// again only when a decision asks for it (what it needs, a verdict's
// replies posted) or its write lost to another run.
func (e *Engine) run(ctx context.Context, number int, in input) (*Result, error) {
	c := e.cfg()
	reread := false
	var planned []Effect
	for try := 0; ; try++ {
		now := e.Clock.Now().UTC()
		s, err := e.read(ctx, number, in, now)
		if err != nil {
			return &Result{Command: in.command, Discussion: number, Missing: notFound(err)}, err
		}
		if s.restored && len(planned) == 0 {
			planned = []Effect{{Kind: EffectWrite, Body: in.restore.Status}}
		}
		for posted := false; ; {
			p, err := decide(*s, in, c, now)
			for _, l := range p.logs {
				e.logf("%s", l)
			}
			if p.need.any() {
				e.readMore(ctx, s, p.need, now)
				continue
			}
			if err != nil {
				return &p.res, err
			}
			if len(p.posts) > 0 && !posted {
				posted = true
				err := e.post(ctx, p, &planned)
				if err == nil {
					continue
				}
				if reread {
					return &p.res, err
				}
				// Once, read again and decide again: the comment a reply
				// answers may have been deleted or hidden meanwhile
				// (GitHub refuses a reply under a deleted one), or the
				// post went through without its answer reaching recess
				// (its marker shows it). Nothing is posted twice either
				// way.
				reread = true
				e.logf("discussion %d: %v; reading the discussion again", number, err)
				break
			}
			// Decided before acting: a run that fails half way through
			// writing a pending record still asks for the sweep, which
			// repairs it.
			p.res.SweepSwitch = sweepSwitchFor(in.command, p.rec.Pending(), -1)
			if e.DryRun {
				return p.describe(planned), nil
			}
			res, err := e.apply(ctx, p)
			if err == nil {
				res.viewed(p.views)
				return res, p.fail
			}
			if errors.Is(err, state.ErrConflict) && try < maxConflictRetries {
				e.logf("discussion %d: the record changed while this run worked; deciding again from a fresh read", number)
				break
			}
			return res, err
		}
	}
}

// notFound is err when it is GitHub's "not found" for the discussion.
func notFound(err error) error {
	if errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
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

// waitingLabel asks for the waiting label on the discussion exactly while
// the record is pending (label names compare case-insensitively). Every
// run that reads a record so puts the label right (one removed by hand
// comes back).
//
// The label goes on after the record write, as every effect, but for an
// existing record the decision makes pending (writes: it writes or
// dispatches): then it goes on first. A run that dies between the two
// leaves a labelled discussion whose record is not pending (a harmless
// extra look for the sweep, and the next run that reads the record takes
// the label off), never a pending record no sweep finds by its label. A new
// record is labelled after its write: a label first would show a sweep a
// discussion without a record, whose visit takes the label off again. Such
// a record without its label (a run that died between its write and its
// label) is found by the comment store's hourly look at the recently
// updated discussions (see github.CommentStore.Pending).
func (f *facts) waitingLabel(rec *state.Record, writes bool) plan {
	if f.d == nil {
		return plan{}
	}
	has := ""
	if i := slices.IndexFunc(f.d.Labels, func(l string) bool { return strings.EqualFold(l, LabelWaiting) }); i >= 0 {
		has = f.d.Labels[i]
	}
	switch want := rec.Pending(); {
	case want && has == "" && !f.s.isNew && writes:
		return plan{first: []Effect{{Kind: EffectLabel, Label: LabelWaiting}}}
	case want && has == "":
		return after(Effect{Kind: EffectLabel, Label: LabelWaiting})
	case !want && has != "":
		return after(Effect{Kind: EffectUnlabel, Label: has})
	}
	return plan{}
}

// behind reports a pending record whose Checked lags the discussion's
// newest comment: activity that changed nothing (a comment the trigger does
// not count, one on a recess that waits for time). Writing Checked once
// stops the sweep's lost-event probe from sending every later sweep back
// to it.
// A record with a run at work is left out: every sweep visits it anyway
// (to look at the run).
func (f *facts) behind(rec *state.Record) bool {
	if f.d == nil || !rec.Pending() {
		return false
	}
	if a := rec.Active; a != nil && a.State != state.RunEscalated {
		return false
	}
	return newest(f.d).At.After(rec.Checked)
}

// views describe the decided record's open recesses (Result.RFCs).
func (f *facts) views(rec *state.Record, obs observations, evals map[string]wait.Evaluation) []RFCView {
	var views []RFCView
	for _, id := range sortedRFCs(rec) {
		rfc := rec.OpenRFCs[id]
		v := RFCView{Discussion: rec.Discussion, CorrelationID: id, Trigger: triggerJSON(rfc.Trigger), OpenedAt: rfc.OpenedAt,
			DueAt: rfc.DueAt, RecessCount: rfc.RecessCount, Summary: rfc.Summary, Reason: evals[id].Reason}
		if f.d != nil {
			v.Waiting = Describe(rfc.Trigger, obs[id])
		}
		views = append(views, v)
	}
	return views
}

// viewed fills the result's view of the record once its plan is applied.
func (r *Result) viewed(views []RFCView) {
	r.OpenRFCs, r.RFCs = len(views), views
	for _, v := range views {
		r.DueAt = sooner(r.DueAt, v.DueAt)
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
func newest(d *Thread) state.Cursor {
	c := state.Cursor{At: d.CreatedAt.UTC()}
	for i := range d.Comments {
		c = c.Advance(d.Comments[i].ID, d.Comments[i].CreatedAt.UTC())
	}
	return c
}

func maxCursor(a, b state.Cursor) state.Cursor {
	if b.At.After(a.At) {
		return b
	}
	if a.At.After(b.At) {
		return a
	}
	if b.All {
		return b
	}
	for _, id := range b.IDs {
		a = a.Advance(id, b.At)
	}
	return a
}
