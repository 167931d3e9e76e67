package wait

import (
	"bytes"
	"encoding/json"
	"encoding/json/jsontext"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeJSON checks the reader of outside JSON against encoding/json:
// no input panics; every refusal is a *FieldError under the root whose path
// cannot break a line; whatever is accepted is one valid UTF-8 object with
// no duplicated key, read as encoding/json reads it; and, with lone
// surrogates allowed and no bounds of recess's own, such an object is
// always accepted. The seed corpus in testdata/fuzz/FuzzDecodeJSON holds
// hostile documents.
func FuzzDecodeJSON(f *testing.F) {
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
		for _, strict := range []bool{true, false} {
			lim, opts := JSONLimits{MaxDepth: maxJSONDepth}, []jsontext.Options(nil)
			if !strict {
				lim, opts = JSONLimits{}, []jsontext.Options{jsontext.AllowInvalidUTF8(true)}
			}
			var got map[string]any
			err := DecodeJSON(data, "doc", &got, lim, opts...)
			if err != nil {
				var fe *FieldError
				if !errors.As(err, &fe) || !strings.HasPrefix(fe.Field, "doc") || fe.Reason == "" || strings.ContainsAny(fe.Field, "\r\n") {
					t.Fatalf("DecodeJSON(%q) = %v, want a *FieldError under doc on one line", data, err)
				}
				if !strict && object && utf8.Valid(data) && (fe.Reason != "duplicated key" || !hasDuplicateKey(data)) {
					t.Fatalf("DecodeJSON(%q) = %v, want it accepted: only a duplicated key is left to refuse", data, err)
				}
				continue
			}
			if !object || strict && !utf8.Valid(data) {
				t.Fatalf("DecodeJSON(%q) accepted text that is not one valid (UTF-8, unless allowed) JSON object", data)
			}
			if hasDuplicateKey(data) {
				t.Fatalf("DecodeJSON(%q) accepted a duplicated key", data)
			}
			var want map[string]any
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("encoding/json cannot read %q, which DecodeJSON accepted: %v", data, err)
			}
			// reflect.DeepEqual first: cmp.Diff takes time exponential in
			// the nesting of lists.
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("DecodeJSON(%q) reads otherwise than encoding/json (-encoding/json +DecodeJSON):\n%s", data, cmp.Diff(want, got))
			}
		}
	})
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
