package wait

import (
	"bytes"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// TriggerLimits are the policy bounds a trigger is checked against.
type TriggerLimits struct {
	// MaxRecess bounds every duration (elapsed, expires), measured from At.
	// The zero Duration means no bound.
	MaxRecess Duration
	// At is the moment the recess would open.
	At time.Time
	// AllowedKinds, when not empty, are the only kinds a trigger may use
	// (composites included).
	AllowedKinds []string
}

// Bounds on a trigger document, so a hostile agent cannot make recess keep
// or evaluate something unbounded.
const (
	// MaxTriggerBytes is the largest trigger document accepted.
	MaxTriggerBytes = 8 << 10
	// MaxTriggerChildren bounds the "of" list of any / all.
	MaxTriggerChildren = 16
	// MaxTriggerReplies bounds missing_input's "replies".
	MaxTriggerReplies = 10000
	// MaxSignalName bounds an escalation_needed signal name.
	MaxSignalName = 64
	// maxLogin is GitHub's limit on a login, without a "[bot]" suffix.
	maxLogin = 39
	// MaxFromLogins bounds missing_input's "from" list.
	MaxFromLogins = 100
	// maxJSONDepth bounds nesting while decoding, before any field is
	// checked; a valid trigger needs 5 levels.
	maxJSONDepth = 16
	// maxJSONMembers bounds the members of one object while decoding (a
	// trigger node has at most 6), which keeps the duplicate-key check cheap.
	maxJSONMembers = 32
)

// ParseTrigger decodes and validates a trigger document strictly. Errors are
// *FieldError naming the field (prefix "trigger"); a refused duration is
// wrapped as the *FieldError ParseDuration returned.
//
// A JSON null counts as the field being absent. Defaults are filled in, so
// the result is canonical: Scope is ScopeDiscussion unless "thread" was
// asked for, and OnExpire is OnExpireResume when only expires was given.
func ParseTrigger(data []byte, lim TriggerLimits) (*Trigger, error) {
	const root = "trigger"
	if len(data) > MaxTriggerBytes {
		return nil, &FieldError{Field: root, Reason: "document is larger than " + strconv.Itoa(MaxTriggerBytes>>10) + " KiB"}
	}
	var doc triggerDoc
	if err := DecodeJSON(data, root, &doc, JSONLimits{MaxDepth: maxJSONDepth, MaxMembers: maxJSONMembers}, json.RejectUnknownMembers(false)); err != nil {
		return nil, err
	}
	p := triggerParser{lim: lim}
	if !lim.MaxRecess.IsZero() {
		p.maxAt = lim.MaxRecess.AddTo(lim.At)
		p.bounded = true
	}
	return p.node(&doc, root, 0)
}

// triggerDoc is one node of a trigger document, each member kept raw to be
// judged in a fixed order; Unknown collects the members no kind has.
type triggerDoc struct {
	Kind     jsontext.Value `json:"kind"`
	Replies  jsontext.Value `json:"replies"`
	From     jsontext.Value `json:"from"`
	Scope    jsontext.Value `json:"scope"`
	Elapsed  jsontext.Value `json:"elapsed"`
	Signal   jsontext.Value `json:"signal"`
	Of       jsontext.Value `json:"of"`
	Expires  jsontext.Value `json:"expires"`
	OnExpire jsontext.Value `json:"on_expire"`
	Unknown  jsontext.Value `json:",embed"`
}

type triggerParser struct {
	lim     TriggerLimits
	maxAt   time.Time
	bounded bool
}

// triggerFields lists, per kind, the fields it may carry besides the ones
// every node may carry (kind, expires, on_expire).
var triggerFields = map[string][]string{
	KindMissingInput:     {"replies", "from", "scope"},
	KindElapsed:          {"elapsed"},
	KindEscalationNeeded: {"signal"},
	KindAny:              {"of"},
	KindAll:              {"of"},
}

// Present reports whether a member kept raw was given: in every document
// recess reads, a null counts as the member left out.
func Present(v jsontext.Value) bool { return len(v) > 0 && v.Kind() != 'n' }

// StringValue returns the value of a JSON string, and false for any other
// value.
func StringValue(v jsontext.Value) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	s, err := jsontext.AppendUnquote(nil, v)
	return string(s), err == nil
}

// elems returns the elements of a JSON list, and false for any other value.
func elems(v jsontext.Value) ([]jsontext.Value, bool) {
	var out []jsontext.Value
	if v.Kind() != '[' || json.Unmarshal(v, &out) != nil {
		return nil, false
	}
	return out, true
}

// firstName returns the name of an object's first member.
func firstName(obj jsontext.Value) string {
	d := jsontext.NewDecoder(bytes.NewReader(obj))
	if _, err := d.ReadToken(); err != nil {
		return ""
	}
	tok, _ := d.ReadToken()
	return tok.String()
}

func (p *triggerParser) node(v *triggerDoc, path string, depth int) (*Trigger, error) {
	if !Present(v.Kind) {
		return nil, &FieldError{Field: path + ".kind", Reason: "missing"}
	}
	kind, ok := StringValue(v.Kind)
	if !ok {
		return nil, &FieldError{Field: path + ".kind", Reason: "must be a string"}
	}
	own, known := triggerFields[kind]
	if !known {
		return nil, &FieldError{Field: path + ".kind", Reason: "unknown kind " + quote(kind) +
			" (want missing_input, elapsed, escalation_needed, any or all)"}
	}
	if len(p.lim.AllowedKinds) > 0 && !slices.Contains(p.lim.AllowedKinds, kind) {
		return nil, &FieldError{Field: path + ".kind", Reason: "kind " + quote(kind) + " is not allowed by policy"}
	}
	composite := kind == KindAny || kind == KindAll
	if composite && depth >= 2 {
		return nil, &FieldError{Field: path + ".kind", Reason: "composites nest one level at most (" + kind + " inside a composite inside a composite)"}
	}
	if len(v.Unknown) > 0 {
		return nil, &FieldError{Field: MemberPath(path, firstName(v.Unknown)), Reason: "unknown field"}
	}
	for _, m := range []struct {
		name string
		v    jsontext.Value
	}{{"replies", v.Replies}, {"from", v.From}, {"scope", v.Scope}, {"elapsed", v.Elapsed}, {"signal", v.Signal}, {"of", v.Of}} {
		if Present(m.v) && !slices.Contains(own, m.name) {
			return nil, &FieldError{Field: path + "." + m.name, Reason: "not allowed for kind " + kind}
		}
	}

	t := &Trigger{Kind: kind}
	var err error
	switch kind {
	case KindMissingInput:
		if t.Replies, err = parseReplies(v.Replies, path+".replies"); err != nil {
			return nil, err
		}
		if t.From, err = parseFrom(v.From, path+".from"); err != nil {
			return nil, err
		}
		t.Scope = ScopeDiscussion
		if Present(v.Scope) {
			s, _ := StringValue(v.Scope)
			if s != ScopeDiscussion && s != ScopeThread {
				return nil, &FieldError{Field: path + ".scope", Reason: `must be "discussion" or "thread"`}
			}
			t.Scope = s
		}
	case KindElapsed:
		if t.Elapsed, err = p.duration(v.Elapsed, path+".elapsed"); err != nil {
			return nil, err
		}
	case KindEscalationNeeded:
		field := path + ".signal"
		if !Present(v.Signal) {
			return nil, &FieldError{Field: field, Reason: "missing"}
		}
		s, ok := StringValue(v.Signal)
		switch {
		case !ok:
			return nil, &FieldError{Field: field, Reason: "must be a string"}
		case !ValidSignalName(s):
			return nil, &FieldError{Field: field, Reason: "must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' or '-'"}
		}
		t.Signal = s
	case KindAny, KindAll:
		field := path + ".of"
		if !Present(v.Of) {
			return nil, &FieldError{Field: field, Reason: "missing"}
		}
		of, ok := elems(v.Of)
		switch {
		case !ok:
			return nil, &FieldError{Field: field, Reason: "must be a list of triggers"}
		case len(of) == 0:
			return nil, &FieldError{Field: field, Reason: "must list at least one trigger"}
		case len(of) > MaxTriggerChildren:
			return nil, &FieldError{Field: field, Reason: "lists more than " + strconv.Itoa(MaxTriggerChildren) + " triggers"}
		}
		t.Of = make([]*Trigger, len(of))
		for i, e := range of {
			elem := IndexPath(field, i)
			if e.Kind() != '{' {
				return nil, &FieldError{Field: elem, Reason: "must be a JSON object"}
			}
			var child triggerDoc
			if err := DecodeJSON(e, elem, &child, JSONLimits{}, json.RejectUnknownMembers(false)); err != nil {
				return nil, err
			}
			if t.Of[i], err = p.node(&child, elem, depth+1); err != nil {
				return nil, err
			}
		}
	}

	if Present(v.Expires) {
		if t.Expires, err = p.duration(v.Expires, path+".expires"); err != nil {
			return nil, err
		}
	}
	if Present(v.OnExpire) {
		field := path + ".on_expire"
		s, _ := StringValue(v.OnExpire)
		if s != OnExpireResume && s != OnExpireCancel {
			return nil, &FieldError{Field: field, Reason: `must be "resume" or "cancel"`}
		}
		if t.Expires == nil {
			return nil, &FieldError{Field: field, Reason: "needs expires"}
		}
		t.OnExpire = s
	} else if t.Expires != nil {
		t.OnExpire = OnExpireResume
	}
	return t, nil
}

func parseReplies(v jsontext.Value, field string) (int, error) {
	if !Present(v) {
		return 0, &FieldError{Field: field, Reason: "missing"}
	}
	if v.Kind() != '0' {
		return 0, &FieldError{Field: field, Reason: "must be an integer"}
	}
	s := string(v)
	neg := s[0] == '-'
	digits := s
	if neg {
		digits = s[1:]
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return 0, &FieldError{Field: field, Reason: "must be an integer"}
		}
	}
	if neg {
		return 0, &FieldError{Field: field, Reason: "must be at least 1"}
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n > MaxTriggerReplies {
		return 0, &FieldError{Field: field, Reason: "must be at most " + strconv.Itoa(MaxTriggerReplies)}
	}
	if n < 1 {
		return 0, &FieldError{Field: field, Reason: "must be at least 1"}
	}
	return n, nil
}

func parseFrom(v jsontext.Value, field string) ([]string, error) {
	if !Present(v) {
		return nil, nil
	}
	list, ok := elems(v)
	if !ok {
		return nil, &FieldError{Field: field, Reason: "must be a list of GitHub logins"}
	}
	if len(list) == 0 {
		return nil, &FieldError{Field: field, Reason: "must list at least one login (leave it out to count everyone)"}
	}
	if len(list) > MaxFromLogins {
		return nil, &FieldError{Field: field, Reason: "lists more than " + strconv.Itoa(MaxFromLogins) + " logins"}
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := StringValue(e)
		if !ok || !ValidLogin(s) {
			return nil, &FieldError{Field: IndexPath(field, i), Reason: "must be a GitHub login"}
		}
		out[i] = s
	}
	return out, nil
}

// duration parses a duration field and checks it against max-recess.
func (p *triggerParser) duration(v jsontext.Value, field string) (*Duration, error) {
	if !Present(v) {
		return nil, &FieldError{Field: field, Reason: "missing"}
	}
	s, ok := StringValue(v)
	if !ok {
		return nil, &FieldError{Field: field, Reason: "must be an ISO-8601 duration string"}
	}
	d, err := ParseDuration(s)
	if err != nil {
		return nil, &FieldError{Field: field, Reason: "invalid " + err.Error(), Err: err}
	}
	if p.bounded && d.AddTo(p.lim.At).After(p.maxAt) {
		return nil, &FieldError{Field: field, Reason: d.String() + " is longer than max-recess " + p.lim.MaxRecess.String()}
	}
	return &d, nil
}

// ValidLogin reports whether s can be a GitHub login: 1 to 39 letters,
// digits and single inner hyphens, optionally followed by "[bot]" for an app.
func ValidLogin(s string) bool {
	if n := len(s) - len("[bot]"); n > 0 && s[n:] == "[bot]" {
		s = s[:n]
	}
	if len(s) == 0 || len(s) > maxLogin || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c), 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case c == '-' && s[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

// ValidSignalName reports whether s can name an escalation_needed signal:
// 1 to 64 of A-Z, a-z, 0-9, '.', '_', '-'. AnySignal ("*") is not one: only
// "/recess resume" delivers it.
func ValidSignalName(s string) bool {
	if len(s) == 0 || len(s) > MaxSignalName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c), 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// MarshalJSON writes the trigger in its canonical document form: kind, the
// kind's own fields, then expires and on_expire; durations as written.
// Defaults are left out (scope "discussion", on_expire "resume"), so the
// canonical form of a parsed document is never longer than the document and
// always fits MaxTriggerBytes again. ParseTrigger reads it back unchanged.
func (t *Trigger) MarshalJSON() ([]byte, error) {
	if t == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	if err := t.appendJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (t *Trigger) appendJSON(b *bytes.Buffer) error {
	if t == nil {
		return errors.New("resume: marshal trigger: nil trigger in of")
	}
	b.WriteString(`{"kind":`)
	b.WriteString(quote(t.Kind))
	switch t.Kind {
	case KindMissingInput:
		b.WriteString(`,"replies":`)
		b.WriteString(strconv.Itoa(t.Replies))
		if len(t.From) > 0 {
			b.WriteString(`,"from":[`)
			for i, f := range t.From {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(quote(f))
			}
			b.WriteByte(']')
		}
		if t.Scope == ScopeThread {
			b.WriteString(`,"scope":"thread"`)
		}
	case KindElapsed:
		if t.Elapsed == nil {
			return errors.New("resume: marshal trigger: elapsed without a duration")
		}
		b.WriteString(`,"elapsed":`)
		b.WriteString(quote(t.Elapsed.String()))
	case KindEscalationNeeded:
		b.WriteString(`,"signal":`)
		b.WriteString(quote(t.Signal))
	case KindAny, KindAll:
		b.WriteString(`,"of":[`)
		for i, c := range t.Of {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := c.appendJSON(b); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		return fmt.Errorf("resume: marshal trigger: unknown kind %s", quote(t.Kind))
	}
	if t.Expires != nil {
		b.WriteString(`,"expires":`)
		b.WriteString(quote(t.Expires.String()))
		if t.OnExpire != "" && t.OnExpire != OnExpireResume {
			b.WriteString(`,"on_expire":`)
			b.WriteString(quote(t.OnExpire))
		}
	}
	b.WriteByte('}')
	return nil
}

// UnmarshalJSON reads a trigger with ParseTrigger and no policy limits (no
// max-recess, every kind allowed): a value decoded anywhere is as valid as
// one the engine parsed.
func (t *Trigger) UnmarshalJSON(data []byte) error {
	p, err := ParseTrigger(data, TriggerLimits{})
	if err != nil {
		return err
	}
	*t = *p
	return nil
}

// MustParseTrigger parses a trigger without policy limits and panics when
// it is invalid; for triggers written in code (tests, examples).
func MustParseTrigger(doc string) *Trigger {
	t, err := ParseTrigger([]byte(doc), TriggerLimits{})
	if err != nil {
		panic("wait: MustParseTrigger(" + doc + "): " + err.Error())
	}
	return t
}
