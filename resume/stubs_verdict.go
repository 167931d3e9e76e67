package resume

import (
	"encoding/json"
	"time"
)

var _ = json.Valid // keep the import while this file is a stub

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
