package resume

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/resume/wait/strictjson"
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
	d := strictjson.NewDecoder(data, "verdict", strictjson.Limits{})
	fields, member := rawMembers(d, "verdict", "correlation_id", "discussion_number", "replies", "trigger", "summary")
	if err := wait.FieldErrorOf(d.Document(member)); err != nil {
		return nil, err
	}
	var err error
	v := &Verdict{}

	raw, ok := fields["verdict"]
	if !ok {
		return nil, &wait.FieldError{Field: "verdict.verdict", Reason: "missing"}
	}
	if v.Verdict, err = decodeString(raw, "verdict.verdict"); err != nil {
		return nil, err
	}
	rawTrigger, hasTrigger := fields["trigger"]
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

	raw, ok = fields["correlation_id"]
	if !ok {
		return nil, &wait.FieldError{Field: "verdict.correlation_id", Reason: "missing"}
	}
	if v.CorrelationID, err = decodeString(raw, "verdict.correlation_id"); err != nil {
		return nil, err
	}
	if err := checkID(v.CorrelationID, "verdict.correlation_id", isCorrelationIDByte, "A-Z a-z 0-9 . _ -"); err != nil {
		return nil, err
	}

	raw, ok = fields["discussion_number"]
	if !ok {
		return nil, &wait.FieldError{Field: "verdict.discussion_number", Reason: "missing"}
	}
	if v.DiscussionNumber, err = decodePositiveInt(raw, "verdict.discussion_number", maxDiscussionNumber); err != nil {
		return nil, err
	}

	if raw, ok := fields["replies"]; ok {
		if v.Replies, err = decodeReplies(raw); err != nil {
			return nil, err
		}
	}

	if raw, ok := fields["summary"]; ok {
		if v.Summary, err = decodeString(raw, "verdict.summary"); err != nil {
			return nil, err
		}
		if err := checkText(v.Summary, "verdict.summary", MaxSummary); err != nil {
			return nil, err
		}
	}

	// The trigger goes last so that every other field is judged without it,
	// and its errors keep the trigger's own paths ("trigger.of[0].elapsed").
	if v.Verdict == VerdictRecessed {
		t, err := wait.ParseTrigger(rawTrigger, lim)
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

// decodeReplies decodes the replies list, stopping at the first element past
// MaxReplies so a huge list costs no more than a short one.
func decodeReplies(raw []byte) ([]VerdictReply, error) {
	const path = "verdict.replies"
	d := strictjson.NewDecoder(raw, path, strictjson.Limits{})
	if d.Peek() != strictjson.Array {
		return nil, &wait.FieldError{Field: path, Reason: "must be a list"}
	}
	var replies []VerdictReply
	err := d.Array(func(i int) error {
		if i == MaxReplies {
			return &wait.FieldError{Field: path, Reason: "more than " + strconv.Itoa(MaxReplies) + " replies"}
		}
		r, err := decodeReply(d)
		replies = append(replies, r)
		return err
	})
	return replies, wait.FieldErrorOf(err)
}

// decodeReply reads the reply at d; its fields are judged in a fixed order,
// whatever the order they come in.
func decodeReply(d *strictjson.Decoder) (VerdictReply, error) {
	path := d.Path()
	var r VerdictReply
	if d.Peek() != strictjson.Object {
		return r, &wait.FieldError{Field: path, Reason: "must be a JSON object"}
	}
	fields, member := rawMembers(d, "body", "reply_to")
	if err := d.Object(member); err != nil {
		return r, err
	}
	var err error
	b, ok := fields["body"]
	if !ok {
		return r, &wait.FieldError{Field: path + ".body", Reason: "missing"}
	}
	if r.Body, err = decodeString(b, path+".body"); err != nil {
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
	if to, ok := fields["reply_to"]; ok {
		if r.ReplyTo, err = decodeString(to, path+".reply_to"); err != nil {
			return r, err
		}
		if err := checkID(r.ReplyTo, path+".reply_to", isNodeIDByte, "A-Z a-z 0-9 _ = -"); err != nil {
			return r, err
		}
	}
	return r, nil
}

// rawMembers returns the function that reads each member of an object
// whose keys must be among known (the decoder refuses a repeated one), and
// the raw text it keeps of each, for the caller to judge in its own order.
// A null member counts as absent.
func rawMembers(d *strictjson.Decoder, known ...string) (map[string][]byte, func(string) error) {
	fields := make(map[string][]byte, len(known))
	return fields, func(key string) error {
		if !slices.Contains(known, key) {
			return &wait.FieldError{Field: d.Path(), Reason: "unknown field"}
		}
		if d.Null() {
			return nil
		}
		raw, err := d.Raw()
		fields[key] = raw
		return err
	}
}

// decodeString decodes a JSON string value; the decoder refuses what
// encoding/json would silently repair (invalid UTF-8, unpaired surrogate
// escapes), which would post text the agent never wrote.
func decodeString(raw []byte, path string) (string, error) {
	d := strictjson.NewDecoder(raw, path, strictjson.Limits{})
	if d.Peek() != strictjson.String {
		return "", &wait.FieldError{Field: path, Reason: "must be a string"}
	}
	s, err := d.String()
	return s, wait.FieldErrorOf(err)
}

// decodePositiveInt accepts only the plain digits of a positive integer:
// 12.5, 1e1, "12", 0 and -3 are all refused rather than rounded or coerced.
func decodePositiveInt(raw []byte, path string, max int) (int, error) {
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

// quote renders s as a JSON string, as reasons show values.
