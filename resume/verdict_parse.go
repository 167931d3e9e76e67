package resume

import (
	"encoding/json/jsontext"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

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

// maxDiscussionNumber is GraphQL's Int range: a larger number cannot name a
// discussion, so it is refused here rather than failing later at GitHub.
const maxDiscussionNumber = 1<<31 - 1

// maxVerdictDepth bounds nesting in a verdict: a valid one needs 7 levels
// (the trigger inside it 5 of them).
const maxVerdictDepth = 64

// Verdict is the agent's answer for one run.
type Verdict struct {
	Verdict          string
	CorrelationID    string
	DiscussionNumber int
	Replies          []VerdictReply
	// Trigger is set for a recessed verdict; TriggerJSON is its canonical form.
	Trigger     *wait.Trigger
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
//
// A JSON null counts as the field being absent (as in a trigger document);
// a field that is present must have its type ("12" is not a number). The
// trigger is parsed last, with lim, and its *FieldError is returned as is.
func ParseVerdict(data []byte, lim wait.TriggerLimits) (*Verdict, error) {
	if len(data) > MaxVerdictBytes {
		return nil, &wait.FieldError{Field: "verdict", Reason: "longer than " + strconv.Itoa(MaxVerdictBytes) + " bytes"}
	}
	// Pointers tell a missing member from an empty one; a null member
	// leaves them nil, so agents that write "trigger": null for "no
	// trigger" are read as they mean. The decoder refuses a member of the
	// wrong type, text that is not valid UTF-8 and numbers that are not
	// plain integers. Replies stay raw so that none past MaxReplies is read.
	var doc struct {
		Verdict          *string          `json:"verdict"`
		CorrelationID    *string          `json:"correlation_id"`
		DiscussionNumber *int             `json:"discussion_number"`
		Replies          []jsontext.Value `json:"replies"`
		Trigger          jsontext.Value   `json:"trigger"`
		Summary          *string          `json:"summary"`
	}
	if err := wait.DecodeJSON(data, "verdict", &doc, wait.JSONLimits{MaxDepth: maxVerdictDepth}); err != nil {
		return nil, err
	}
	hasTrigger := wait.Present(doc.Trigger)
	switch {
	case doc.Verdict == nil:
		return nil, &wait.FieldError{Field: "verdict.verdict", Reason: "missing"}
	case *doc.Verdict == VerdictRecessed && !hasTrigger:
		return nil, &wait.FieldError{Field: "verdict.trigger", Reason: "missing: a recessed verdict needs a trigger"}
	case *doc.Verdict == VerdictAdjourned && hasTrigger:
		return nil, &wait.FieldError{Field: "verdict.trigger", Reason: "not allowed: an adjourned verdict has no trigger"}
	case *doc.Verdict != VerdictRecessed && *doc.Verdict != VerdictAdjourned:
		return nil, &wait.FieldError{Field: "verdict.verdict", Reason: "must be " + strconv.Quote(VerdictAdjourned) + " or " + strconv.Quote(VerdictRecessed)}
	case doc.CorrelationID == nil:
		return nil, &wait.FieldError{Field: "verdict.correlation_id", Reason: "missing"}
	}
	v := &Verdict{Verdict: *doc.Verdict, CorrelationID: *doc.CorrelationID}
	if err := checkID(v.CorrelationID, "verdict.correlation_id", correlationIDChars); err != nil {
		return nil, err
	}
	switch n := doc.DiscussionNumber; {
	case n == nil:
		return nil, &wait.FieldError{Field: "verdict.discussion_number", Reason: "missing"}
	case *n < 1:
		return nil, &wait.FieldError{Field: "verdict.discussion_number", Reason: "must be a positive integer"}
	case *n > maxDiscussionNumber:
		return nil, &wait.FieldError{Field: "verdict.discussion_number", Reason: "larger than " + strconv.Itoa(maxDiscussionNumber)}
	default:
		v.DiscussionNumber = *n
	}
	if len(doc.Replies) > MaxReplies {
		return nil, &wait.FieldError{Field: "verdict.replies", Reason: "more than " + strconv.Itoa(MaxReplies) + " replies"}
	}
	for i, raw := range doc.Replies {
		r, err := decodeReply(raw, wait.IndexPath("verdict.replies", i))
		if err != nil {
			return nil, err
		}
		v.Replies = append(v.Replies, r)
	}
	if doc.Summary != nil {
		v.Summary = *doc.Summary
		if err := checkText(v.Summary, "verdict.summary", MaxSummary); err != nil {
			return nil, err
		}
	}

	// The trigger goes last so that every other field is judged without it,
	// and its errors keep the trigger's own paths ("trigger.of[0].elapsed").
	if v.Verdict == VerdictRecessed {
		t, err := wait.ParseTrigger(doc.Trigger, lim)
		if err != nil {
			var fe *wait.FieldError
			if errors.As(err, &fe) {
				return nil, err
			}
			return nil, &wait.FieldError{Field: "trigger", Reason: "invalid", Err: err}
		}
		v.Trigger, v.TriggerJSON = t, triggerJSON(t)
	}
	return v, nil
}

// decodeReply reads the reply at path.
func decodeReply(raw jsontext.Value, path string) (VerdictReply, error) {
	var doc struct {
		Body    *string `json:"body"`
		ReplyTo *string `json:"reply_to"`
	}
	if err := wait.DecodeJSON(raw, path, &doc, wait.JSONLimits{}); err != nil {
		return VerdictReply{}, err
	}
	if doc.Body == nil {
		return VerdictReply{}, &wait.FieldError{Field: path + ".body", Reason: "missing"}
	}
	r := VerdictReply{Body: *doc.Body}
	if strings.TrimSpace(r.Body) == "" {
		return r, &wait.FieldError{Field: path + ".body", Reason: "empty"}
	}
	if err := checkText(r.Body, path+".body", MaxReplyBody); err != nil {
		return r, err
	}
	// recess posts the body with its marker words broken (each one a
	// character longer): that, too, must fit, or GitHub would refuse the
	// post after earlier replies went out.
	if n := utf8.RuneCountInString(state.Neutralize(r.Body)); n > MaxReplyBody {
		return r, &wait.FieldError{Field: path + ".body", Reason: "longer than " + strconv.Itoa(MaxReplyBody) + " characters once the recess marker words in it are broken (" + strconv.Itoa(n) + ")"}
	}
	if doc.ReplyTo != nil {
		r.ReplyTo = *doc.ReplyTo
		if err := checkID(r.ReplyTo, path+".reply_to", nodeIDChars); err != nil {
			return r, err
		}
	}
	return r, nil
}

// The characters an identifier may hold: a correlation id sits in hidden
// markers and run-names, a node id is what GitHub gives (base64 with its
// padding).
const (
	alnum              = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	correlationIDChars = alnum + "._-"
	nodeIDChars        = alnum + "_=-"
)

// checkID bounds an identifier to 1..MaxIDLength of the characters chars
// (alnum and some punctuation), so it can sit in a hidden marker, a
// run-name or a GraphQL variable unescaped.
func checkID(s, path, chars string) error {
	switch {
	case s == "":
		return &wait.FieldError{Field: path, Reason: "empty"}
	case len(s) > MaxIDLength:
		return &wait.FieldError{Field: path, Reason: "longer than " + strconv.Itoa(MaxIDLength) + " characters"}
	case strings.TrimLeft(s, chars) != "":
		punct := strings.Split(strings.TrimPrefix(chars, alnum), "")
		return &wait.FieldError{Field: path, Reason: "may only hold A-Z a-z 0-9 " + strings.Join(punct, " ")}
	}
	return nil
}

// checkText bounds free text in runes (what a person would call characters)
// and refuses NUL, which GitHub and logs treat as the end of the text. The
// decoder has refused text that is not valid UTF-8.
func checkText(s, path string, maxRunes int) error {
	if strings.IndexByte(s, 0) >= 0 {
		return &wait.FieldError{Field: path, Reason: "contains NUL"}
	}
	if n := utf8.RuneCountInString(s); n > maxRunes {
		return &wait.FieldError{Field: path, Reason: "longer than " + strconv.Itoa(maxRunes) + " characters"}
	}
	return nil
}
