package resume

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
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
	// A null member counts as absent: agents write "trigger": null for "no
	// trigger", and it must not read as one.
	var doc struct {
		Verdict          jsontext.Value `json:"verdict"`
		CorrelationID    jsontext.Value `json:"correlation_id"`
		DiscussionNumber jsontext.Value `json:"discussion_number"`
		Replies          jsontext.Value `json:"replies"`
		Trigger          jsontext.Value `json:"trigger"`
		Summary          jsontext.Value `json:"summary"`
	}
	if err := wait.DecodeJSON(data, "verdict", &doc, wait.JSONLimits{MaxDepth: maxVerdictDepth}); err != nil {
		return nil, err
	}
	var err error
	v := &Verdict{}

	if !wait.Present(doc.Verdict) {
		return nil, &wait.FieldError{Field: "verdict.verdict", Reason: "missing"}
	}
	if v.Verdict, err = decodeString(doc.Verdict, "verdict.verdict"); err != nil {
		return nil, err
	}
	hasTrigger := wait.Present(doc.Trigger)
	switch v.Verdict {
	case VerdictRecessed:
		if !hasTrigger {
			return nil, &wait.FieldError{Field: "verdict.trigger", Reason: "missing: a recessed verdict needs a trigger"}
		}
	case VerdictAdjourned:
		if hasTrigger {
			return nil, &wait.FieldError{Field: "verdict.trigger", Reason: "not allowed: an adjourned verdict has no trigger"}
		}
	default:
		return nil, &wait.FieldError{Field: "verdict.verdict", Reason: "must be " + strconv.Quote(VerdictAdjourned) + " or " + strconv.Quote(VerdictRecessed)}
	}

	if !wait.Present(doc.CorrelationID) {
		return nil, &wait.FieldError{Field: "verdict.correlation_id", Reason: "missing"}
	}
	if v.CorrelationID, err = decodeString(doc.CorrelationID, "verdict.correlation_id"); err != nil {
		return nil, err
	}
	if err := checkID(v.CorrelationID, "verdict.correlation_id", isCorrelationIDByte, "A-Z a-z 0-9 . _ -"); err != nil {
		return nil, err
	}

	if !wait.Present(doc.DiscussionNumber) {
		return nil, &wait.FieldError{Field: "verdict.discussion_number", Reason: "missing"}
	}
	if v.DiscussionNumber, err = decodePositiveInt(doc.DiscussionNumber, "verdict.discussion_number", maxDiscussionNumber); err != nil {
		return nil, err
	}

	if wait.Present(doc.Replies) {
		if v.Replies, err = decodeReplies(doc.Replies); err != nil {
			return nil, err
		}
	}

	if wait.Present(doc.Summary) {
		if v.Summary, err = decodeString(doc.Summary, "verdict.summary"); err != nil {
			return nil, err
		}
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
		canonical, err := json.Marshal(t)
		if err != nil {
			return nil, &wait.FieldError{Field: "trigger", Reason: "cannot be encoded", Err: err}
		}
		v.Trigger, v.TriggerJSON = t, canonical
	}
	return v, nil
}

// decodeReplies decodes the replies list, judging no element past
// MaxReplies.
func decodeReplies(raw jsontext.Value) ([]VerdictReply, error) {
	const path = "verdict.replies"
	var elems []jsontext.Value
	if raw.Kind() != '[' || json.Unmarshal(raw, &elems) != nil {
		return nil, &wait.FieldError{Field: path, Reason: "must be a list"}
	}
	if len(elems) > MaxReplies {
		return nil, &wait.FieldError{Field: path, Reason: "more than " + strconv.Itoa(MaxReplies) + " replies"}
	}
	var replies []VerdictReply
	for i, e := range elems {
		r, err := decodeReply(e, wait.IndexPath(path, i))
		if err != nil {
			return nil, err
		}
		replies = append(replies, r)
	}
	return replies, nil
}

// decodeReply reads the reply at path; its fields are judged in a fixed
// order, whatever the order they come in.
func decodeReply(raw jsontext.Value, path string) (VerdictReply, error) {
	var r VerdictReply
	if raw.Kind() != '{' {
		return r, &wait.FieldError{Field: path, Reason: "must be a JSON object"}
	}
	var doc struct {
		Body    jsontext.Value `json:"body"`
		ReplyTo jsontext.Value `json:"reply_to"`
	}
	if err := wait.DecodeJSON(raw, path, &doc, wait.JSONLimits{}); err != nil {
		return r, err
	}
	var err error
	if !wait.Present(doc.Body) {
		return r, &wait.FieldError{Field: path + ".body", Reason: "missing"}
	}
	if r.Body, err = decodeString(doc.Body, path+".body"); err != nil {
		return r, err
	}
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
	if wait.Present(doc.ReplyTo) {
		if r.ReplyTo, err = decodeString(doc.ReplyTo, path+".reply_to"); err != nil {
			return r, err
		}
		if err := checkID(r.ReplyTo, path+".reply_to", isNodeIDByte, "A-Z a-z 0-9 _ = -"); err != nil {
			return r, err
		}
	}
	return r, nil
}

// decodeString decodes a JSON string value; the reader has refused what
// encoding/json v1 would silently repair (invalid UTF-8, unpaired surrogate
// escapes), which would post text the agent never wrote.
func decodeString(raw jsontext.Value, path string) (string, error) {
	s, ok := wait.StringValue(raw)
	if !ok {
		return "", &wait.FieldError{Field: path, Reason: "must be a string"}
	}
	return s, nil
}

// decodePositiveInt accepts only the plain digits of a positive integer:
// 12.5, 1e1, "12", 0 and -3 are all refused rather than rounded or coerced.
func decodePositiveInt(raw jsontext.Value, path string, max int) (int, error) {
	if len(raw) == 0 || raw[0] == '"' {
		return 0, &wait.FieldError{Field: path, Reason: "must be a positive integer, not a string"}
	}
	s := string(raw)
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, &wait.FieldError{Field: path, Reason: "must be a positive integer"}
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > max {
		return 0, &wait.FieldError{Field: path, Reason: "larger than " + strconv.Itoa(max), Err: err}
	}
	if n < 1 {
		return 0, &wait.FieldError{Field: path, Reason: "must be a positive integer"}
	}
	return n, nil
}

// checkID bounds an identifier to 1..MaxIDLength bytes of an allowed set, so
// it can sit in a hidden marker, a run-name or a GraphQL variable unescaped.
func checkID(s, path string, allowed func(byte) bool, set string) error {
	if s == "" {
		return &wait.FieldError{Field: path, Reason: "empty"}
	}
	if len(s) > MaxIDLength {
		return &wait.FieldError{Field: path, Reason: "longer than " + strconv.Itoa(MaxIDLength) + " characters"}
	}
	for i := 0; i < len(s); i++ {
		if !allowed(s[i]) {
			return &wait.FieldError{Field: path, Reason: "may only hold " + set}
		}
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

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isCorrelationIDByte(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '-'
}

func isNodeIDByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '=' || c == '-'
}
