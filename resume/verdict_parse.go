package resume

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
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
	fields, err := decodeObject(data, "verdict", "verdict", "correlation_id", "discussion_number", "replies", "trigger", "summary")
	if err != nil {
		return nil, err
	}
	// Agents write "trigger": null for "no trigger"; it must not read as one.
	dropNulls(fields)
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
		return nil, &wait.FieldError{Field: "verdict.verdict", Reason: "must be " + quote(VerdictAdjourned) + " or " + quote(VerdictRecessed)}
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
func decodeReplies(raw json.RawMessage) ([]VerdictReply, error) {
	const path = "verdict.replies"
	if len(raw) == 0 || raw[0] != '[' {
		return nil, &wait.FieldError{Field: path, Reason: "must be a list"}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
	}
	var replies []VerdictReply
	for i := 0; dec.More(); i++ {
		if i == MaxReplies {
			return nil, &wait.FieldError{Field: path, Reason: "more than " + strconv.Itoa(MaxReplies) + " replies"}
		}
		var item json.RawMessage
		if err := dec.Decode(&item); err != nil {
			return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
		}
		r, err := decodeReply(item, path+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		replies = append(replies, r)
	}
	return replies, nil
}

func decodeReply(raw json.RawMessage, path string) (VerdictReply, error) {
	fields, err := decodeObject(raw, path, "body", "reply_to")
	if err != nil {
		return VerdictReply{}, err
	}
	dropNulls(fields)
	var r VerdictReply
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

// decodeObject reads one JSON object whose keys must be among known and
// appear at most once (encoding/json would silently keep the last duplicate
// and match keys case-insensitively, both of which let two readers of one
// verdict disagree). Anything after the object is refused.
func decodeObject(data []byte, path string, known ...string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, &wait.FieldError{Field: path, Reason: "must be a JSON object"}
	}
	fields := make(map[string]json.RawMessage, len(known))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
		}
		key, _ := tok.(string)
		if !slices.Contains(known, key) {
			return nil, &wait.FieldError{Field: memberPath(path, key), Reason: "unknown field"}
		}
		if _, dup := fields[key]; dup {
			return nil, &wait.FieldError{Field: path + "." + key, Reason: "duplicate key"}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
		}
		fields[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &wait.FieldError{Field: path, Reason: "trailing data after the object", Err: err}
	}
	return fields, nil
}

// dropNulls removes the fields whose value is JSON null, which counts as the
// field being absent.
func dropNulls(fields map[string]json.RawMessage) {
	for k, raw := range fields {
		if string(raw) == "null" {
			delete(fields, k)
		}
	}
}

// decodeString decodes a JSON string value, refusing what encoding/json
// would silently repair: invalid UTF-8 and unpaired surrogate escapes both
// become U+FFFD there, which would post text the agent never wrote.
func decodeString(raw json.RawMessage, path string) (string, error) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", &wait.FieldError{Field: path, Reason: "must be a string"}
	}
	if !utf8.Valid(raw) || hasLoneSurrogate(raw) {
		return "", &wait.FieldError{Field: path, Reason: "not valid UTF-8"}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
	}
	return s, nil
}

// hasLoneSurrogate reports whether a syntactically valid JSON string holds a
// \u escape of a surrogate that is not part of a high-low pair.
func hasLoneSurrogate(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if i >= len(raw) || raw[i] != 'u' {
			continue
		}
		r, ok := hex4(raw, i+1)
		if !ok {
			return true
		}
		i += 4
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+2 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
				return true
			}
			low, ok := hex4(raw, i+3)
			if !ok || low < 0xDC00 || low > 0xDFFF {
				return true
			}
			i += 6
		}
	}
	return false
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[at:at+4]), 16, 32)
	return rune(n), err == nil
}

// decodePositiveInt accepts only the plain digits of a positive integer:
// 12.5, 1e1, "12", 0 and -3 are all refused rather than rounded or coerced.
func decodePositiveInt(raw json.RawMessage, path string, max int) (int, error) {
	s := string(raw)
	if s == "" || s[0] == '"' {
		return 0, &wait.FieldError{Field: path, Reason: "must be a positive integer, not a string"}
	}
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
// and refuses NUL, which GitHub and logs treat as the end of the text.
func checkText(s, path string, maxRunes int) error {
	if !utf8.ValidString(s) {
		return &wait.FieldError{Field: path, Reason: "not valid UTF-8"}
	}
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

// memberPath names a member of an object as the trigger's paths do: a key
// that is not a plain identifier is quoted and clipped, so a hostile key can
// neither forge a path nor flood an annotation.
func memberPath(path, key string) string {
	plain := key != "" && len(key) <= 64
	for i := 0; i < len(key) && plain; i++ {
		plain = isAlnum(key[i]) || key[i] == '_' || key[i] == '-'
	}
	if plain {
		return path + "." + key
	}
	if r := []rune(key); len(r) > 64 {
		key = string(r[:64]) + "…"
	}
	return path + "[" + quote(key) + "]"
}

// quote renders s as a JSON string, as field paths show keys.
func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
