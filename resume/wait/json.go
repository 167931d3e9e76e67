package wait

import (
	"bytes"
	"cmp"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/text"
)

// JSONLimits bound a document beyond what encoding/json/v2 bounds itself.
// The byte limit of each caller and the decoder bound the work (one pass,
// duplicate names found through a set once an object has more than 64);
// what they leave is depth: jsontext refuses nesting only past 10,000
// levels, and a refusal there names a path of 10,000 steps, slow to spell
// and useless to read. The zero value means no bound of recess's own.
type JSONLimits struct {
	// MaxDepth bounds nesting: the top-level object is at depth 1, and an
	// object or list that would open at depth MaxDepth+1 is refused.
	MaxDepth int
}

// ErrUnknownField is what a *FieldError from DecodeJSON wraps when the
// document has a member the type does not: a caller that words the refusal
// says to leave it out rather than to correct it.
var ErrUnknownField = errors.New("unknown field")

// DecodeJSON reads data, one JSON object document from outside, into v, a
// pointer to a struct, and names the field of every refusal as a
// *FieldError whose path starts at root ("verdict", "trigger", "" for the
// record). encoding/json/v2 does the reading: it refuses duplicate member
// names (however they are escaped), invalid UTF-8 and unpaired surrogate
// escapes (unless opts allow invalid UTF-8), matches names exactly, and here
// refuses unknown members. A document that is not an object, or has
// anything after it, is refused at root. opts add to these.
func DecodeJSON(data []byte, root string, v any, lim JSONLimits, opts ...json.Options) error {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return &FieldError{Field: root, Reason: "empty document"}
	}
	if c := trimmed[0]; c != '{' && strings.IndexByte(`["tfn-0123456789`, c) >= 0 {
		return &FieldError{Field: root, Reason: "not a JSON object"}
	}
	t := reflect.TypeOf(v)
	if lim.MaxDepth > 0 {
		if err := checkDepth(data, lim.MaxDepth, root, t); err != nil {
			return err
		}
	}
	opts = append([]json.Options{json.RejectUnknownMembers(true)}, opts...)
	return jsonError(json.Unmarshal(data, v, opts...), root, t)
}

// checkDepth reads the document's tokens once, refusing nesting deeper
// than maxDepth before anything is decoded.
func checkDepth(data []byte, maxDepth int, root string, t reflect.Type) error {
	d := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.ReadToken()
		if err != nil {
			return jsonError(err, root, t)
		}
		switch depth := d.StackDepth(); {
		case depth == 0:
			// The top-level value is whole; json.Unmarshal judges the rest.
			return nil
		case depth > maxDepth && (tok.Kind() == '{' || tok.Kind() == '['):
			return &FieldError{Field: PointerPath(root, t, d.StackPointer()), Reason: "nested too deeply"}
		}
	}
}

// jsonError returns a refusal of the JSON reader as the *FieldError naming
// the value at fault; t is the type decoded into, which tells a map's key
// from a struct's member in the path.
func jsonError(err error, root string, t reflect.Type) error {
	var (
		syn *jsontext.SyntacticError
		sem *json.SemanticError
		fe  *FieldError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &syn):
		field := PointerPath(root, t, syn.JSONPointer)
		msg := syn.Err.Error()
		switch {
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return &FieldError{Field: field, Reason: "duplicated key", Err: syn}
		case strings.Contains(msg, "after top-level value"):
			return &FieldError{Field: root, Reason: "trailing data after the object", Err: syn}
		case strings.Contains(msg, "UTF-8"), strings.Contains(msg, "surrogate"):
			return &FieldError{Field: field, Reason: "not valid UTF-8", Err: syn}
		}
		// Text that is not JSON is named by the object or list it lies in.
		if at := syn.JSONPointer; at != "" {
			field = PointerPath(root, t, at.Parent())
		}
		return &FieldError{Field: field, Reason: "invalid JSON: " + msg, Err: syn}
	case errors.As(err, &sem):
		field := PointerPath(root, t, sem.JSONPointer)
		switch {
		case errors.Is(sem.Err, json.ErrUnknownName):
			return &FieldError{Field: field, Reason: ErrUnknownField.Error(), Err: ErrUnknownField}
		case errors.As(sem.Err, &fe) && fe.Field == "":
			return &FieldError{Field: field, Reason: fe.Reason, Err: fe.Err}
		case errors.As(sem.Err, &fe):
			return &FieldError{Field: field, Reason: "not valid: " + fe.Error(), Err: fe}
		case sem.GoType == reflect.TypeFor[time.Time]():
			return &FieldError{Field: field, Reason: "must be an RFC 3339 time", Err: sem}
		case sem.JSONKind == '0' && sem.GoType != nil && isInt(sem.GoType.Kind()):
			return &FieldError{Field: field, Reason: "must be an integer", Err: sem}
		case sem.Err == nil && sem.GoType != nil && sem.JSONKind != 0:
			return &FieldError{Field: field, Reason: "must be " + goKind(sem.GoType) + ", not " + cmp.Or(jsonKinds[sem.JSONKind], "invalid JSON"), Err: sem}
		}
		return &FieldError{Field: field, Reason: "invalid: " + sem.Error(), Err: sem}
	}
	return err
}

func isInt(k reflect.Kind) bool { return reflect.Int <= k && k <= reflect.Uint64 }

// goKind names what a value of type t is written as.
func goKind(t reflect.Type) string {
	switch k := t.Kind(); {
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "a boolean"
	case isInt(k), k == reflect.Float32, k == reflect.Float64:
		return "a number"
	case k == reflect.Slice, k == reflect.Array:
		return "a list"
	}
	return "a JSON object"
}

// jsonKinds name a JSON kind for messages: "a string", "a JSON object".
var jsonKinds = map[jsontext.Kind]string{
	'n': "null", 't': "a boolean", 'f': "a boolean", '"': "a string",
	'0': "a number", '[': "a list", '{': "a JSON object",
}

// PointerPath spells the JSON pointer p, relative to a value of type t at
// root, as recess's field paths: "verdict.replies[2].body",
// `open_rfcs["c-1"].trigger`. Where t says nothing (a raw value), a token of
// digits is an index and any other a member name.
func PointerPath(root string, t reflect.Type, p jsontext.Pointer) string {
	path := root
	raw := reflect.TypeFor[jsontext.Value]()
	for tok := range p.Tokens() {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == raw {
			t = nil
		}
		switch {
		case t != nil && t.Kind() == reflect.Map:
			path, t = KeyPath(path, tok), t.Elem()
		case t != nil && t.Kind() == reflect.Struct:
			path, t = MemberPath(path, tok), fieldType(t, tok)
		case isIndex(tok) && (t == nil || t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
			i, _ := strconv.Atoi(tok)
			path = IndexPath(path, i)
			if t != nil {
				t = t.Elem()
			}
		default:
			path, t = MemberPath(path, tok), nil
		}
	}
	return path
}

// fieldType returns the type of the member of struct t named name, or nil.
func fieldType(t reflect.Type, name string) reflect.Type {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name || tag == "" && f.Name == name {
			return f.Type
		}
	}
	return nil
}

func isIndex(s string) bool {
	return s != "" && len(s) <= 9 && strings.Trim(s, "0123456789") == ""
}

// maxPlainName is the longest member name a path spells bare; a longer
// one is quoted and clipped like any other odd name.
const maxPlainName = 64

// MemberPath returns the path of the member name of the object at path:
// "verdict.replies", or "schema" at an empty root. A name that is not 1 to
// 64 of A-Z a-z 0-9 _ - is spelled as KeyPath spells it, so a hostile name
// can neither forge a path nor break a line: `trigger["a.b\n"]`.
func MemberPath(path, name string) string {
	if !plainName(name) {
		return KeyPath(path, name)
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// KeyPath returns the path of the entry key of a map-like object:
// `open_rfcs["c-1"]`. The key is quoted as Go quotes strings (control
// characters, invalid UTF-8 and invisible runes escaped) and clipped to 64
// characters.
func KeyPath(path, key string) string {
	return path + "[" + strconv.Quote(text.Clip(key, maxPlainName)) + "]"
}

// IndexPath returns the path of element i of the list at path: "verdict.replies[2]".
func IndexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func plainName(s string) bool {
	return s != "" && len(s) <= maxPlainName && strings.Trim(s, plainChars) == ""
}

const plainChars = alnum + "_-"
