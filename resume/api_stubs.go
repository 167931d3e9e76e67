package resume

// This file holds the signatures other files are written against while
// their bodies are being built. Each function moves to its own file, with
// its implementation, and this file shrinks to nothing.

import (
	"encoding/json"
	"time"
)

// Duration is an ISO-8601 duration as SPEC.md defines it. Years and months
// are calendar arithmetic in UTC, then weeks and days, then the time part.
type Duration struct {
	Years, Months, Weeks, Days int
	// Clock is the time part plus any fraction of the smallest date unit
	// (P1.5D: Days 1, Clock 12h).
	Clock time.Duration
	text  string
}

// DurationError is a refused duration.
type DurationError struct {
	Input  string
	Reason string
}

func (e *DurationError) Error() string { return "duration " + quote(e.Input) + ": " + e.Reason }

// FieldError is refused outside input; Field names it ("trigger.of[1].replies").
type FieldError struct {
	Field  string
	Reason string
	Err    error // underlying error (a *DurationError, a json error), may be nil
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }
func (e *FieldError) Unwrap() error { return e.Err }

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// ParseDuration parses an ISO-8601 duration. Errors are *DurationError.
func ParseDuration(s string) (Duration, error) { panic("not built yet") }

// AddTo returns t moved forward by d (in UTC).
func (d Duration) AddTo(t time.Time) time.Time { panic("not built yet") }

// String returns the duration as it was written.
func (d Duration) String() string { return d.text }

// TriggerLimits are the policy bounds a trigger is checked against.
type TriggerLimits struct {
	// MaxRecess bounds every duration (elapsed, expires), measured from At.
	MaxRecess Duration
	// At is the moment the recess would open.
	At time.Time
	// AllowedKinds, when not empty, are the only kinds a trigger may use.
	AllowedKinds []string
}

// ParseTrigger decodes and validates a trigger document strictly. Errors are
// *FieldError naming the field (prefix "trigger").
func ParseTrigger(data []byte, lim TriggerLimits) (*Trigger, error) { panic("not built yet") }

// MarshalJSON writes the trigger in its canonical document form.
func (t *Trigger) MarshalJSON() ([]byte, error) { panic("not built yet") }

// Evaluate evaluates a trigger against what was observed at now. Pure.
func Evaluate(t *Trigger, o Observed, now time.Time) Evaluation { panic("not built yet") }

// Verdict kinds.
const (
	VerdictAdjourned = "adjourned"
	VerdictRecessed  = "recessed"
)

// Bounds on a verdict, so a hostile or broken agent cannot make recess post
// without end or store without bound.
const (
	MaxVerdictBytes = 1 << 20
	MaxReplies      = 10
	// MaxReplyBody leaves room in GitHub's 65,536-character comment body for
	// the hidden marker recess appends to every reply.
	MaxReplyBody = 65536 - 512
	MaxSummary   = 4096
	MaxIDLength  = 128
)

// Verdict is the agent's answer for one run.
type Verdict struct {
	Verdict          string
	CorrelationID    string
	DiscussionNumber int
	Replies          []VerdictReply
	// Trigger is set for a recessed verdict; TriggerJSON is its canonical form.
	Trigger     *Trigger
	TriggerJSON []byte
	Summary     string
}

// VerdictReply is one reply the verdict asks recess to post.
type VerdictReply struct {
	Body    string
	ReplyTo string // node id of a comment; "" for a top-level comment
}

// ParseVerdict decodes and validates a verdict document strictly: every
// problem is a *FieldError naming the field ("verdict.replies[2].body",
// "trigger.of[0].elapsed"). Nothing about the verdict is trusted before it
// passes.
func ParseVerdict(data []byte, lim TriggerLimits) (*Verdict, error) { panic("not built yet") }

// ResumeContext is the resume_context input of a resumed agent run.
type ResumeContext struct {
	CorrelationID string          `json:"correlation_id"`
	FiredBy       string          `json:"fired_by"`
	FiredAt       time.Time       `json:"fired_at"`
	Trigger       json.RawMessage `json:"trigger,omitempty"`
	RecessCount   int             `json:"recess_count"`
	Truncated     bool            `json:"truncated"`
	// Omitted counts the oldest entries left out entirely because even
	// without bodies they would not fit (only in extreme discussions).
	Omitted      int            `json:"omitted,omitempty"`
	HistorySince []HistoryEntry `json:"history_since"`
}

// HistoryEntry is one human comment the agent has not seen yet.
type HistoryEntry struct {
	ID        string    `json:"id"`
	Author    string    `json:"author"`
	Role      string    `json:"role"` // "maintainer" (write access) or "user"
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
	URL       string    `json:"url"`
	ReplyTo   string    `json:"reply_to,omitempty"`
}

// Dispatch limits GitHub puts on workflow_dispatch inputs.
const (
	MaxDispatchInputs     = 25
	MaxDispatchInputChars = 65535
)

// Encode renders rc as the resume_context input so that the whole dispatch
// (every input of req, req.ResumeContext replaced) fits GitHub's limit,
// shortening the oldest bodies first and setting Truncated. It never fails
// for size.
func (rc ResumeContext) Encode(req DispatchRequest) (string, error) { panic("not built yet") }
