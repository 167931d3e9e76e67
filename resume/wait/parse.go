package wait

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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
	if err := DecodeJSON(data, root, &doc, JSONLimits{MaxDepth: maxJSONDepth}); err != nil {
		return nil, err
	}
	return lim.node(&doc, root, 0)
}

// triggerDoc is one node of a trigger document. A member no kind has is
// refused first, by the JSON reader; the others are kept raw to be judged
// in a fixed order (the kind first, which says what the others may be).
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

// CheckKind says why kind is not a trigger kind (nil when it is). Kinds
// compare exactly: "Elapsed" is not one.
func CheckKind(kind string) error {
	if _, ok := triggerFields[kind]; !ok {
		return errors.New("unknown kind " + quote(kind) + " (want missing_input, elapsed, escalation_needed, any or all)")
	}
	return nil
}

func (lim TriggerLimits) node(v *triggerDoc, path string, depth int) (*Trigger, error) {
	kind, err := stringField(v.Kind, path, "kind", "must be a string")
	if err != nil {
		return nil, err
	}
	if err := CheckKind(kind); err != nil {
		return nil, &FieldError{Field: path + ".kind", Reason: err.Error()}
	}
	own := triggerFields[kind]
	if len(lim.AllowedKinds) > 0 && !slices.Contains(lim.AllowedKinds, kind) {
		return nil, &FieldError{Field: path + ".kind", Reason: "kind " + quote(kind) + " is not allowed by policy"}
	}
	composite := kind == KindAny || kind == KindAll
	if composite && depth >= 2 {
		return nil, &FieldError{Field: path + ".kind", Reason: "composites nest one level at most (" + kind + " inside a composite inside a composite)"}
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
	switch kind {
	case KindMissingInput:
		if t.Replies, err = parseReplies(v.Replies, path+".replies"); err != nil {
			return nil, err
		}
		if t.From, err = parseFrom(v.From, path+".from"); err != nil {
			return nil, err
		}
		if t.Scope, err = oneOf(v.Scope, path+".scope", ScopeDiscussion, ScopeThread); err != nil {
			return nil, err
		}
	case KindElapsed:
		if t.Elapsed, err = lim.duration(v.Elapsed, path, "elapsed"); err != nil {
			return nil, err
		}
	case KindEscalationNeeded:
		if t.Signal, err = stringField(v.Signal, path, "signal", "must be a string"); err != nil {
			return nil, err
		}
		if !ValidSignalName(t.Signal) {
			return nil, &FieldError{Field: path + ".signal", Reason: "must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' or '-'"}
		}
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
			if err := DecodeJSON(e, elem, &child, JSONLimits{}); err != nil {
				return nil, err
			}
			if t.Of[i], err = lim.node(&child, elem, depth+1); err != nil {
				return nil, err
			}
		}
	}

	if Present(v.Expires) {
		if t.Expires, err = lim.duration(v.Expires, path, "expires"); err != nil {
			return nil, err
		}
	}
	if t.OnExpire, err = oneOf(v.OnExpire, path+".on_expire", OnExpireResume, OnExpireCancel); err != nil {
		return nil, err
	}
	switch {
	case t.Expires == nil && Present(v.OnExpire):
		return nil, &FieldError{Field: path + ".on_expire", Reason: "needs expires"}
	case t.Expires == nil:
		t.OnExpire = ""
	}
	return t, nil
}

// stringField reads the required string member name of the node at path;
// notString is the refusal of another value. The field's path is spelled
// only for a refusal.
func stringField(v jsontext.Value, path, name, notString string) (string, error) {
	if !Present(v) {
		return "", &FieldError{Field: path + "." + name, Reason: "missing"}
	}
	s, ok := StringValue(v)
	if !ok {
		return "", &FieldError{Field: path + "." + name, Reason: notString}
	}
	return s, nil
}

// oneOf reads an optional string member that must be one of two values,
// the first being its default.
func oneOf(v jsontext.Value, field, def, other string) (string, error) {
	if !Present(v) {
		return def, nil
	}
	if s, _ := StringValue(v); s == def || s == other {
		return s, nil
	}
	return "", &FieldError{Field: field, Reason: `must be "` + def + `" or "` + other + `"`}
}

func parseReplies(v jsontext.Value, field string) (int, error) {
	if !Present(v) {
		return 0, &FieldError{Field: field, Reason: "missing"}
	}
	// Out of range is still an integer: its sign says which bound it broke.
	n, err := strconv.ParseInt(string(v), 10, 64)
	switch {
	case v.Kind() != '0' || errors.Is(err, strconv.ErrSyntax):
		return 0, &FieldError{Field: field, Reason: "must be an integer"}
	case n < 1:
		return 0, &FieldError{Field: field, Reason: "must be at least 1"}
	case n > MaxTriggerReplies:
		return 0, &FieldError{Field: field, Reason: "must be at most " + strconv.Itoa(MaxTriggerReplies)}
	}
	return int(n), nil
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
		switch {
		case !ok || !ValidLogin(s):
			return nil, &FieldError{Field: IndexPath(field, i), Reason: "must be a GitHub login"}
		case SameLogin(s, DeletedAccount):
			// A reply of any deleted account shows this login: it would
			// count them all, and nobody can answer as it.
			return nil, &FieldError{Field: IndexPath(field, i), Reason: strconv.Quote(s) + " is the name GitHub shows for every deleted account, not a person's login"}
		}
		out[i] = s
	}
	return out, nil
}

// duration parses a duration field and checks it against max-recess.
func (lim TriggerLimits) duration(v jsontext.Value, path, name string) (*Duration, error) {
	s, err := stringField(v, path, name, "must be an ISO-8601 duration string")
	if err != nil {
		return nil, err
	}
	d, err := ParseDuration(s)
	if err != nil {
		return nil, &FieldError{Field: path + "." + name, Reason: "invalid " + err.Error(), Err: err}
	}
	if !lim.MaxRecess.IsZero() && d.AddTo(lim.At).After(lim.MaxRecess.AddTo(lim.At)) {
		return nil, &FieldError{Field: path + "." + name, Reason: d.String() + " is longer than max-recess " + lim.MaxRecess.String()}
	}
	return &d, nil
}

// ValidLogin reports whether s can be a GitHub login: 1 to 39 letters,
// digits and single inner hyphens, optionally followed by "[bot]" for an app.
func ValidLogin(s string) bool {
	s = strings.TrimSuffix(s, "[bot]")
	return s != "" && len(s) <= maxLogin && s[0] != '-' && s[len(s)-1] != '-' &&
		!strings.Contains(s, "--") && strings.Trim(s, alnum+"-") == ""
}

// ValidSignalName reports whether s can name an escalation_needed signal:
// 1 to 64 of A-Z, a-z, 0-9, '.', '_', '-'. AnySignal ("*") is not one: only
// "/recess resume" delivers it.
func ValidSignalName(s string) bool {
	return s != "" && len(s) <= MaxSignalName && strings.Trim(s, alnum+"._-") == ""
}

// alnum are the ASCII letters and digits.
const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// MarshalJSON writes the trigger in its canonical document form: kind, the
// kind's own fields, then expires and on_expire; durations as written.
// Defaults are left out (scope "discussion", on_expire "resume"), so the
// canonical form of a parsed document is never longer than the document and
// always fits MaxTriggerBytes again. ParseTrigger reads it back unchanged.
func (t *Trigger) MarshalJSON() ([]byte, error) {
	switch {
	case t == nil:
		return []byte("null"), nil
	case CheckKind(t.Kind) != nil:
		return nil, fmt.Errorf("wait: marshal trigger: unknown kind %s", quote(t.Kind))
	case t.Kind == KindElapsed && t.Elapsed == nil:
		return nil, errors.New("wait: marshal trigger: elapsed without a duration")
	case slices.Contains(t.Of, nil):
		return nil, errors.New("wait: marshal trigger: nil trigger in of")
	}
	type plain Trigger // the fields without this method
	c := plain(*t)
	if c.Scope == ScopeDiscussion {
		c.Scope = ""
	}
	if c.OnExpire == OnExpireResume || c.Expires == nil {
		c.OnExpire = ""
	}
	return json.Marshal(&c)
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
