package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse checks the decoder against encoding/json: no input panics; a
// syntax refusal is text encoding/json refuses too; whatever is accepted,
// encoding/json reads the same way; and, with surrogates read as
// encoding/json reads them and no bound on nesting, a valid UTF-8 object is
// refused only for a duplicated key. The seed corpus in
// testdata/fuzz/FuzzParse holds hostile documents.
func FuzzParse(f *testing.F) {
	for _, doc := range []string{
		`{}`,
		`{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}]}`,
		`{"s":"\"\\\/\b\f\n\r\t\u00e9\u0000\ud83d\ude00","n":-0.5e+10,"t":true,"f":false,"z":null}`,
		`{"kind":"x","\u006bind":1}`,
		`{"a":"\ud800\udc00\udc00"}`,
		`{"a":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]}`,
		`{"a":1} x`,
		`{"a":01}`,
		"{\"a\":\"\xff\"}",
		`[`,
		``,
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)
		object := valid && bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{"))
		for _, lim := range []Limits{triggerLimits, {ReplaceLoneSurrogates: true, MaxDepth: len(data) + 1}} {
			v, err := Parse(data, "doc", lim)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || !strings.HasPrefix(e.Path, "doc") || e.Reason == "" {
					t.Fatalf("Parse(%q) = %v, want an *Error under doc", data, err)
				}
				if v != nil {
					t.Fatalf("Parse(%q) = %v with error %v, want nil", data, v, err)
				}
				if e.Err != nil {
					// A syntax refusal is encoding/json's own, at the same place.
					var raw json.RawMessage
					want := json.Unmarshal(data, &raw)
					var se *json.SyntaxError
					switch {
					case valid:
						t.Fatalf("Parse(%q) = %v, a syntax error for text encoding/json reads", data, err)
					case errors.Is(e.Err, io.ErrUnexpectedEOF):
						// Cut short: encoding/json, too, fails at the end.
						if !errors.As(want, &se) || se.Offset != int64(len(data)) {
							t.Fatalf("Parse(%q) = %v, encoding/json says %v", data, err, want)
						}
					case !errors.As(e.Err, &se) || se.Error() != want.Error():
						t.Fatalf("Parse(%q) = %v, encoding/json says %v", data, err, want)
					}
				}
				if lim.ReplaceLoneSurrogates && object && utf8.Valid(data) && (e.Reason != "duplicated key" || !hasDuplicateKey(data)) {
					t.Fatalf("Parse(%q) = %v, want it accepted: only a duplicated key is left to refuse", data, err)
				}
				continue
			}
			if !object || !utf8.Valid(data) {
				t.Fatalf("Parse(%q) accepted text that is not one valid UTF-8 JSON object", data)
			}
			if hasDuplicateKey(data) {
				t.Fatalf("Parse(%q) accepted a duplicated key", data)
			}
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			var want any
			if err := dec.Decode(&want); err != nil {
				t.Fatalf("encoding/json cannot read %q, which Parse accepted: %v", data, err)
			}
			// reflect.DeepEqual first: cmp.Diff takes time exponential in
			// the nesting of lists.
			if got := plain(v); !reflect.DeepEqual(want, got) {
				t.Fatalf("Parse(%q) reads otherwise than encoding/json (-encoding/json +Parse):\n%s", data, cmp.Diff(want, got))
			}
		}

		// Raw delimits the first value as encoding/json reads it.
		raw, err := NewDecoder(data, "doc", Limits{MaxDepth: len(data) + 1}).Raw()
		switch {
		case err == nil && (!json.Valid(raw) || !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), raw)):
			t.Fatalf("Raw(%q) = %q, not the valid value it starts with", data, raw)
		case valid && (err != nil || !bytes.Equal(raw, bytes.Trim(data, " \t\r\n"))):
			t.Fatalf("Raw(%q) = %q, %v, want the whole value", data, raw, err)
		}
	})
}

// plain turns a Value into what encoding/json decodes into an any.
func plain(v *Value) any {
	switch v.Kind {
	case Object:
		m := make(map[string]any, len(v.Members))
		for i := range v.Members {
			m[v.Members[i].Key] = plain(&v.Members[i].Value)
		}
		return m
	case Array:
		s := make([]any, len(v.Elems))
		for i := range v.Elems {
			s[i] = plain(&v.Elems[i])
		}
		return s
	case String:
		return v.Text
	case Number:
		return json.Number(v.Text)
	case Bool:
		return v.Text == "true"
	}
	return nil
}

// hasDuplicateKey reports whether valid JSON holds an object with a key
// twice, as encoding/json decodes keys.
func hasDuplicateKey(data []byte) bool {
	type object struct {
		keys    map[string]bool
		wantKey bool
	}
	var stack []*object // nil for a list
	dec := json.NewDecoder(bytes.NewReader(data))
	afterValue := func() {
		if n := len(stack); n > 0 && stack[n-1] != nil {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1] != nil && stack[n-1].wantKey {
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				afterValue()
				continue
			}
			key, _ := tok.(string)
			if stack[n-1].keys[key] {
				return true
			}
			stack[n-1].keys[key] = true
			stack[n-1].wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &object{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, nil)
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			afterValue()
		default:
			afterValue()
		}
	}
}
