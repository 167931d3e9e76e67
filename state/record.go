package state

import (
	"cmp"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/recess-action/recess/resume/wait"
)

// Schema is the version of the record format this package reads and writes.
// A record with another schema is refused (see ErrCorrupt), never guessed at.
const Schema = 1

// Sentinel errors the engine branches on.
var (
	// ErrNotFound means no record exists for the discussion yet.
	ErrNotFound = errors.New("state: no record")
	// ErrConflict means the record changed since it was read: re-read and retry.
	ErrConflict = errors.New("state: record changed since it was read")
	// ErrCorrupt means a stored record could not be decoded. The store leaves
	// the bytes where they are and never overwrites them silently.
	ErrCorrupt = errors.New("state: corrupt record")
	// ErrTooLarge means an encoded record would not fit where the store keeps it.
	ErrTooLarge = errors.New("state: record too large")
)

// Limits that keep a record bounded whatever happens in a discussion.
const (
	// MaxApplied is how many applied verdict correlation ids are remembered
	// for idempotent re-delivery.
	MaxApplied = 16
	// MaxDispatchTimes is how many recent fresh-dispatch moments are kept
	// for the per-discussion rate limit.
	MaxDispatchTimes = 64
	// MaxOpenRFCs bounds open recesses per discussion.
	MaxOpenRFCs = 8
	// MaxCursorIDs bounds the ids kept beside a cursor's timestamp.
	MaxCursorIDs = 32
	// MaxReplyIDs bounds the ids of recess's own replies kept per RFC.
	MaxReplyIDs = 32
	// MaxTriggerBytes bounds a stored trigger document.
	MaxTriggerBytes = wait.MaxTriggerBytes
	// MaxWatchedThreads bounds the threads a summary names
	// (Summary.ThreadRoots), so that looking into them costs a sweep a
	// constant per waiting discussion.
	MaxWatchedThreads = 10
)

// Record is everything recess keeps for one discussion. It holds cursors and
// open recesses, never copies of the discussion's history: the discussion
// itself is the history, and every run recomputes what it needs from it.
type Record struct {
	Schema int `json:"schema"`
	// Discussion is the discussion number; DiscussionID its GraphQL node id.
	Discussion   int    `json:"discussion"`
	DiscussionID string `json:"discussion_id,omitempty"`
	// Kind is the kind of thread Discussion numbers; empty is a
	// discussion (KindDiscussion), as in every record written before
	// kinds existed.
	Kind Kind `json:"kind,omitempty"`

	// Seen is the history cursor: every human comment at or before it has been
	// handed to an agent run (or deliberately passed over). Comments after it
	// are what the next dispatch must carry.
	Seen Cursor `json:"seen"`

	// Active is the agent run recess dispatched whose verdict has not arrived,
	// or the intent to dispatch it. At most one per discussion.
	Active *Run `json:"active,omitempty"`

	// OpenRFCs are the open recesses, keyed by the correlation id of the
	// verdict that opened them.
	OpenRFCs map[string]*RFC `json:"open_rfcs,omitempty"`

	// Queued is a fresh dispatch that was owed but held back (rate limit,
	// failed dispatch call); a later run or sweep performs it.
	Queued *Queued `json:"queued,omitempty"`

	// Escalated is set when automatic dispatches stopped: after repeated
	// failed runs, which only a maintainer's "/recess retry" lifts, or
	// after GitHub refused a dispatch for a reason no retry fixes, which a
	// change of the setup lifts too (see Escalation.Setup).
	Escalated *Escalation `json:"escalated,omitempty"`

	// Dispatches are the moments of recent fresh dispatches (engine clock),
	// for the per-discussion rate limit. Pruned to the last hour.
	Dispatches []time.Time `json:"dispatches,omitempty"`

	// Applied are correlation ids whose verdicts were applied, newest last.
	Applied []string `json:"applied,omitempty"`

	// Commands is the slash-command cursor: every command comment at or
	// before it has been handled, so a re-run never handles one twice.
	Commands Cursor `json:"commands"`

	// Checked is the creation time of the newest comment the engine had
	// looked at when it last wrote the record; a sweep that sees newer
	// activity knows an event was lost and visits the discussion.
	Checked time.Time `json:"checked,omitzero"`

	// Closed is set when the discussion was closed, locked or deleted and its
	// recesses expired; the reason is kept for people.
	Closed string `json:"closed,omitempty"`

	// UpdatedAt is the engine clock at the last write.
	UpdatedAt time.Time `json:"updated_at"`

	// Status is the visible text that stores showing the record to people
	// (the status comment) display. The engine derives it; it is kept in the
	// record too, so that "nothing visible changed" needs no extra read.
	Status string `json:"status,omitempty"`

	// Rev is the store's version of the record as it was read, for
	// optimistic writes. Empty for a record never stored.
	Rev string `json:"-"`
}

// Kind is a kind of thread recess keeps records for.
type Kind string

// The kinds of thread: a GitHub Discussion, an issue, and a pull
// request's conversation (its issue comments).
const (
	KindDiscussion  Kind = "discussion"
	KindIssue       Kind = "issue"
	KindPullRequest Kind = "pull_request"
)

// Kinds are the kinds a record may store.
var Kinds = []Kind{KindDiscussion, KindIssue, KindPullRequest}

// Flat reports whether threads of kind k hold no replies under comments:
// an issue's and a pull request's conversations are one flat list.
func (k Kind) Flat() bool { return k == KindIssue || k == KindPullRequest }

// OrDiscussion is the kind k names: a discussion when k is empty, as in
// every record written before records named their kind.
func (k Kind) OrDiscussion() Kind {
	if k == "" {
		return KindDiscussion
	}
	return k
}

// Cursor marks a position in a discussion's history by GitHub's own
// timestamps: everything created at or before At is on the near side, except
// comments created exactly at At whose ids are not in IDs (GitHub timestamps
// have one-second resolution, so several comments can share one).
type Cursor struct {
	At  time.Time `json:"at"`
	IDs []string  `json:"ids,omitempty"`
	// All covers every comment created at At: set when more comments share
	// the second than IDs may hold (a burst), so that none of them is cut.
	All bool `json:"all,omitzero"`
}

// Covers reports whether a comment created at t with the given id lies at or
// before the cursor.
func (c Cursor) Covers(id string, t time.Time) bool {
	return t.Before(c.At) || t.Equal(c.At) && (c.All || slices.Contains(c.IDs, id))
}

// Advance moves the cursor to include a comment created at t with the given id.
// It never moves backwards.
func (c Cursor) Advance(id string, t time.Time) Cursor {
	switch {
	case t.After(c.At):
		return Cursor{At: t, IDs: []string{id}}
	case t.Equal(c.At):
		if c.Covers(id, t) {
			return c
		}
		ids := append(append([]string(nil), c.IDs...), id)
		if len(ids) > MaxCursorIDs {
			// A burst: more comments in one second than the ids kept.
			// Dropping ids would leave some of the burst uncovered and cut
			// them from the history a run is handed; covering the whole
			// second keeps them. (A comment written in that same second
			// after the discussion was read would be covered too: a burst
			// of this size is already far past what people write.)
			return Cursor{At: c.At, All: true}
		}
		return Cursor{At: c.At, IDs: ids}
	default:
		return c
	}
}

// Run states.
const (
	// RunDispatching: the intent is recorded, the dispatch not yet confirmed.
	RunDispatching = "dispatching"
	// RunDispatched: GitHub accepted the dispatch.
	RunDispatched = "dispatched"
	// RunEscalated: attempts are exhausted; waiting for "/recess retry".
	RunEscalated = "escalated"
)

// Run is an agent run recess dispatched (or intends to dispatch).
type Run struct {
	CorrelationID string `json:"correlation_id"`
	State         string `json:"state"`
	// RunID is GitHub's workflow run id once known (from the dispatch answer,
	// a run lookup, or the run's own claim).
	RunID int64 `json:"run_id,omitzero"`
	// Claimed is set when the run's claim step accepted it.
	Claimed bool `json:"claimed,omitzero"`
	// IntentAt is the engine clock when the intent was recorded;
	// DispatchedAt when GitHub accepted it.
	IntentAt     time.Time `json:"intent_at"`
	DispatchedAt time.Time `json:"dispatched_at,omitzero"`
	// Since is where the run's history begins: the history cursor before this
	// dispatch. Until is the history cursor the dispatch carried everything up
	// to. A retry rebuilds the same resume_context from Since..Until.
	Since Cursor `json:"since"`
	Until Cursor `json:"until"`
	// Resume is set for a resume (nil for a fresh dispatch).
	Resume *Resume `json:"resume,omitempty"`
	// Attempt counts dispatches of this resume, the first included.
	Attempt int `json:"attempt"`
	// DispatchErrors counts failed dispatch calls; they never burn attempts.
	DispatchErrors int `json:"dispatch_errors,omitzero"`
	// LastError is the last dispatch or run failure, for people.
	LastError string `json:"last_error,omitempty"`
	// EyesOn is the subject (comment or discussion node id) that carries the
	// EYES acknowledgement, removed when the verdict arrives.
	EyesOn string `json:"eyes_on,omitempty"`
}

// Resume is what a resumed run was told, so a retry can tell it again.
type Resume struct {
	// CorrelationID is the original correlation id of the recess.
	CorrelationID string        `json:"correlation_id"`
	FiredBy       string        `json:"fired_by"`
	FiredAt       time.Time     `json:"fired_at"`
	Trigger       *wait.Trigger `json:"trigger,omitempty"`
	RecessCount   int           `json:"recess_count"`
}

// RFC is an open recess.
type RFC struct {
	// Trigger is what the recess waits for, validated where it entered (the
	// verdict, or Decode: a record whose trigger does not parse is corrupt).
	Trigger *wait.Trigger `json:"trigger"`
	// OpenedAt is the engine clock when the recess opened; time-based
	// moments (elapsed, expires) count from it.
	OpenedAt time.Time `json:"opened_at"`
	// RepliesAfter is the GitHub-timestamp cursor after which a human
	// comment counts as a reply: the last reply recess posted for the verdict,
	// or the recessing run's history cursor when it posted none.
	RepliesAfter Cursor `json:"replies_after"`
	// Since is where history_since begins: the history cursor of the run
	// that recessed, so comments written while it worked are never lost.
	Since Cursor `json:"since"`
	// DueAt is the predicted moment at which time alone fires the trigger
	// (nil when time alone cannot). The sweep visits records by it.
	DueAt *time.Time `json:"due_at,omitempty"`
	// CancelAt is the moment an expiry with on_expire "cancel" ends the wait
	// (nil when none): time alone never fires such a recess, but the sweep
	// must still come back to close it.
	CancelAt *time.Time `json:"cancel_at,omitempty"`
	// RecessCount counts recesses in this chain, this one included.
	RecessCount int `json:"recess_count"`
	// ReplyIDs are the comments recess posted with the verdict (their
	// top-level parents define scope "thread").
	ReplyIDs []string `json:"reply_ids,omitempty"`
	// ThreadRoots are the top-level comments that hold recess's replies.
	ThreadRoots []string `json:"thread_roots,omitempty"`
	// Summary is the verdict's summary, for people.
	Summary string `json:"summary,omitempty"`
}

// Queued is an owed fresh dispatch.
type Queued struct {
	// Until is the moment the held-back dispatch may go out. Its wire name
	// stays "since", the name schema 1 records were written with.
	Until  time.Time `json:"since"`
	Reason string    `json:"reason"`
}

// Escalation records why automatic dispatch stopped.
type Escalation struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
	// Setup is set when GitHub refused the dispatch for a reason no retry
	// fixes (no such agent workflow, an input it does not declare): what
	// the dispatch depended on then (the Dispatcher's account of the agent
	// workflow). The dispatch is tried again once that changes.
	Setup string `json:"setup,omitempty"`
}

// New returns an empty record for a discussion.
func New(number int) *Record {
	return &Record{Schema: Schema, Discussion: number}
}

// Pending reports whether the record needs watching: an open recess, an
// active or escalated run, or an owed dispatch.
func (r *Record) Pending() bool {
	return len(r.OpenRFCs) > 0 || r.Active != nil || r.Queued != nil
}

// Blocked is the setup an escalated dispatch waits to change
// (Escalation.Setup); "" when the record waits for no such change.
func (r *Record) Blocked() string {
	if r.Active == nil || r.Active.State != RunEscalated || r.Escalated == nil {
		return ""
	}
	return r.Escalated.Setup
}

// NextDue is the earliest moment a sweep should visit the record: the
// soonest RFC due moment, or now-ish for work that is owed right away
// (an unconfirmed intent, a queued dispatch). Zero when nothing is owed by
// the passing of time.
func (r *Record) NextDue() time.Time {
	var next time.Time
	consider := func(t *time.Time) {
		if t != nil && !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = *t
		}
	}
	for _, rfc := range r.OpenRFCs {
		consider(rfc.DueAt)
		consider(rfc.CancelAt)
	}
	if r.Active != nil && r.Active.State != RunEscalated {
		consider(&r.Active.IntentAt)
	}
	if r.Queued != nil {
		consider(&r.Queued.Until)
	}
	return next
}

// ThreadRoots are the threads (top-level comments) where the open recesses
// asked their questions (RFC.ThreadRoots), newest recess first, each once,
// at most MaxWatchedThreads: where people answer, and where a sweep looks
// for an answer whose event was lost, however many newer comments follow.
func (r *Record) ThreadRoots() []string {
	var rfcs []*RFC
	for _, id := range slices.Sorted(maps.Keys(r.OpenRFCs)) {
		if o := r.OpenRFCs[id]; o != nil {
			rfcs = append(rfcs, o)
		}
	}
	slices.SortStableFunc(rfcs, func(a, b *RFC) int { return b.OpenedAt.Compare(a.OpenedAt) })
	var out []string
	for _, o := range rfcs {
		for _, root := range o.ThreadRoots {
			if len(out) < MaxWatchedThreads && !slices.Contains(out, root) {
				out = append(out, root)
			}
		}
	}
	return out
}

// Summary is what a store can tell about a record without reading it whole:
// enough for a sweep to choose what to visit, soonest due first, and to
// look for activity it missed.
type Summary struct {
	Discussion int
	// Kind is Record.Kind: the kind of thread Discussion numbers; empty is
	// a discussion.
	Kind Kind
	// NextDue as of the last write; zero when nothing is due by time.
	NextDue time.Time
	// Known is false when the store could not tell NextDue and Checked
	// without reading the record: the sweep must visit it.
	Known bool
	// Checked is Record.Checked as of the last write.
	Checked time.Time
	// Blocked is Record.Blocked as of the last write: a sweep visits the
	// record when the setup it waits on has changed.
	Blocked string
	// ThreadRoots are Record.ThreadRoots as of the last write.
	ThreadRoots []string
}

// SortSummaries puts summaries in the order every store's Pending returns
// them: soonest due first, those with nothing due by time last, ties by
// discussion number.
func SortSummaries(s []Summary) {
	slices.SortFunc(s, func(a, b Summary) int {
		if a.NextDue.IsZero() != b.NextDue.IsZero() {
			if a.NextDue.IsZero() {
				return 1
			}
			return -1
		}
		return cmp.Or(a.NextDue.Compare(b.NextDue), cmp.Compare(a.Discussion, b.Discussion))
	})
}

// Clone returns a deep copy of the record, Rev included. Triggers are
// shared: a trigger is never changed once parsed.
func (r *Record) Clone() *Record {
	c := *r
	c.Seen, c.Commands = r.Seen.clone(), r.Commands.clone()
	if a := r.Active; a != nil {
		ca := *a
		ca.Since, ca.Until, ca.Resume = a.Since.clone(), a.Until.clone(), clonePtr(a.Resume)
		c.Active = &ca
	}
	c.OpenRFCs = maps.Clone(r.OpenRFCs)
	for id, o := range c.OpenRFCs {
		if o != nil {
			co := *o
			co.RepliesAfter, co.Since = o.RepliesAfter.clone(), o.Since.clone()
			co.DueAt, co.CancelAt = clonePtr(o.DueAt), clonePtr(o.CancelAt)
			co.ReplyIDs, co.ThreadRoots = slices.Clone(o.ReplyIDs), slices.Clone(o.ThreadRoots)
			c.OpenRFCs[id] = &co
		}
	}
	c.Queued, c.Escalated = clonePtr(r.Queued), clonePtr(r.Escalated)
	c.Dispatches, c.Applied = slices.Clone(r.Dispatches), slices.Clone(r.Applied)
	return &c
}

func (c Cursor) clone() Cursor {
	c.IDs = slices.Clone(c.IDs)
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
