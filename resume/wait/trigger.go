package wait

import (
	"time"
)

// Trigger kinds.
const (
	KindMissingInput     = "missing_input"
	KindElapsed          = "elapsed"
	KindEscalationNeeded = "escalation_needed"
	KindAny              = "any"
	KindAll              = "all"
)

// fired_by values beyond the trigger kinds.
const (
	FiredByExpired = "expired"
	FiredByManual  = "manual"
	FiredByRetry   = "retry"
)

// on_expire values.
const (
	OnExpireResume = "resume"
	OnExpireCancel = "cancel"
)

// Scopes of a missing_input trigger.
const (
	ScopeDiscussion = "discussion"
	ScopeThread     = "thread"
)

// Trigger is a validated trigger: what an open recess waits for.
// Decode one with ParseTrigger; the zero value is not valid.
// The field tags are the document's member names (MarshalJSON).
type Trigger struct {
	Kind string `json:"kind"`

	// missing_input
	Replies int      `json:"replies,omitzero"`
	From    []string `json:"from,omitempty"`  // logins whose replies count (case-insensitive); empty: everyone
	Scope   string   `json:"scope,omitempty"` // ScopeDiscussion (default) or ScopeThread

	// elapsed
	Elapsed *Duration `json:"elapsed,omitempty"`

	// escalation_needed
	Signal string `json:"signal,omitempty"`

	// any / all
	Of []*Trigger `json:"of,omitempty"`

	// Expires, when set, bounds the wait; OnExpire says what happens then.
	Expires  *Duration `json:"expires,omitempty"`
	OnExpire string    `json:"on_expire,omitempty"`
}

// Observed is what a trigger is evaluated against. The engine builds it from
// the discussion itself on every run, so a lost or repeated event changes
// nothing.
type Observed struct {
	// OpenedAt is when the recess opened; elapsed and expires count from it.
	OpenedAt time.Time
	// Replies are the human replies that count for this recess (created after
	// it opened, not recess's own, not minimized or deleted), oldest first.
	// The trigger's own From and Scope filters are applied by Evaluate.
	Replies []Reply
	// Signals delivered after the recess opened. A signal named "*" (from
	// "/recess resume") matches every escalation_needed trigger.
	Signals []Signal
	// ThreadRoots are the top-level comments holding recess's own replies
	// for this recess: scope "thread" counts only replies under them (and
	// the roots' own replies never count: they are recess's).
	ThreadRoots []string
	// Extensions push every time-based moment back, in order (/recess extend).
	Extensions []Duration
}

// Reply is one human reply as the trigger sees it.
type Reply struct {
	ID        string
	Author    string
	Root      string // top-level comment it sits under, "" if top-level
	CreatedAt time.Time
	// NamedOnly: it counts only for a trigger whose From names its author
	// (a bot's comment where bots do not count).
	NamedOnly bool
}

// Signal is a named signal a maintainer delivered.
type Signal struct {
	Name string
	At   time.Time
}

// AnySignal is the signal name "/recess resume" delivers.
const AnySignal = "*"

// Evaluation is the outcome of evaluating a trigger at a moment.
type Evaluation struct {
	// Fired: the trigger fired (or expired with on_expire "resume").
	Fired bool
	// FiredBy is the kind that fired (a leaf kind, or "expired").
	FiredBy string
	// Cancelled: the trigger expired with on_expire "cancel".
	Cancelled bool
	// At is the moment the outcome became true (by GitHub's timestamps for
	// replies and signals, by the schedule for time), when known.
	At time.Time
	// Reason is a short human sentence: why it fired, or why not yet
	// ("1 of 2 replies; elapsed due 2026-11-23T12:00:00Z").
	Reason string
	// DueAt is the earliest moment at which the passing of time alone can
	// fire the trigger; nil when no time component can.
	DueAt *time.Time
}
