package strictjson

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// triggerLimits are the bounds the trigger parser reads with.
var triggerLimits = Limits{MaxDepth: 16, MaxMembers: 32}

func str(s string) Value { return Value{Kind: String, Text: s} }
func num(s string) Value { return Value{Kind: Number, Text: s} }

func TestParseAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		lim  Limits
		want *Value
	}{
		{name: "empty_object", doc: `{}`, want: &Value{Kind: Object}},
		{name: "white_space_everywhere", doc: " \t\r\n{ \"a\" :\n1 ,\t\"b\" : [ ] } \n",
			want: &Value{Kind: Object, Members: []Member{{"a", num("1")}, {"b", Value{Kind: Array}}}}},
		{name: "member_order_kept", doc: `{"z":1,"a":2,"m":3}`,
			want: &Value{Kind: Object, Members: []Member{{"z", num("1")}, {"a", num("2")}, {"m", num("3")}}}},
		{name: "every_kind", doc: `{"s":"x","n":-12.5e+3,"t":true,"f":false,"z":null,"l":[1,"2",[{}]],"o":{"k":"v"}}`,
			want: &Value{Kind: Object, Members: []Member{
				{"s", str("x")},
				{"n", num("-12.5e+3")},
				{"t", Value{Kind: Bool, Text: "true"}},
				{"f", Value{Kind: Bool, Text: "false"}},
				{"z", Value{Kind: Null}},
				{"l", Value{Kind: Array, Elems: []Value{num("1"), str("2"), {Kind: Array, Elems: []Value{{Kind: Object}}}}}},
				{"o", Value{Kind: Object, Members: []Member{{"k", str("v")}}}},
			}}},
		{name: "number_forms", doc: `{"a":0,"b":-0,"c":0.5,"d":1E9,"e":1e-9,"f":123456789012345678901234567890}`,
			want: &Value{Kind: Object, Members: []Member{{"a", num("0")}, {"b", num("-0")}, {"c", num("0.5")}, {"d", num("1E9")}, {"e", num("1e-9")}, {"f", num("123456789012345678901234567890")}}}},
		{name: "escapes", doc: `{"s":"\"\\\/\b\f\n\r\t\u00e9\u0000\ud83d\ude00"}`,
			want: &Value{Kind: Object, Members: []Member{{"s", str("\"\\/\b\f\n\r\t\u00e9\x00\U0001F600")}}}},
		{name: "escaped_key", doc: `{"\u006bind":1}`, want: &Value{Kind: Object, Members: []Member{{"kind", num("1")}}}},
		{name: "utf8_text", doc: `{"日本":"é 😀 \u2028"}`, want: &Value{Kind: Object, Members: []Member{{"日本", str("é 😀 \u2028")}}}},
		{name: "keys_differing_in_case", doc: `{"kind":1,"Kind":2}`, want: &Value{Kind: Object, Members: []Member{{"kind", num("1")}, {"Kind", num("2")}}}},
		{name: "depth_at_the_limit", doc: `{"a":[[]]}`, lim: Limits{MaxDepth: 3},
			want: &Value{Kind: Object, Members: []Member{{"a", Value{Kind: Array, Elems: []Value{{Kind: Array}}}}}}},
		{name: "members_at_the_limit", doc: `{"a":1,"b":2}`, lim: Limits{MaxMembers: 2},
			want: &Value{Kind: Object, Members: []Member{{"a", num("1")}, {"b", num("2")}}}},
		{name: "lone_surrogate_replaced_when_asked", doc: `{"s":"a\ud800b\udc00\ud800\ud800\udc00"}`, lim: Limits{ReplaceLoneSurrogates: true},
			want: &Value{Kind: Object, Members: []Member{{"s", str("a\uFFFDb\uFFFD\uFFFD\U00010000")}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(tt.doc), "doc", tt.lim)
			if err != nil {
				t.Fatalf("Parse(%q) = %v, want no error", tt.doc, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.doc, diff)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	deep := `{"a":` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}`
	many := `{"k":0`
	for i := range 40 {
		many += `,"f` + strconv.Itoa(i) + `":0`
	}
	many += "}"
	tests := []struct {
		name   string
		doc    string
		lim    Limits
		path   string
		reason string
		syntax bool // Err is a *json.SyntaxError
		eof    bool // Err is io.ErrUnexpectedEOF
	}{
		{name: "empty", doc: ``, path: "doc", reason: "empty document"},
		{name: "only_white_space", doc: " \n\t\r", path: "doc", reason: "empty document"},
		{name: "list", doc: `[{}]`, path: "doc", reason: "not a JSON object"},
		{name: "string", doc: `"{}"`, path: "doc", reason: "not a JSON object"},
		{name: "null", doc: `null`, path: "doc", reason: "not a JSON object"},
		{name: "number", doc: `12`, path: "doc", reason: "not a JSON object"},
		{name: "not_json", doc: `kind: elapsed`, path: "doc", reason: "invalid JSON: invalid character 'k' looking for beginning of value", syntax: true},
		{name: "byte_order_mark", doc: "\ufeff{}", path: "doc", reason: "invalid JSON: invalid character 'ï' looking for beginning of value", syntax: true},
		{name: "trailing_object", doc: `{} {}`, path: "doc", reason: "trailing data after the object"},
		{name: "trailing_garbage", doc: `{}x`, path: "doc", reason: "trailing data after the object"},
		{name: "truncated", doc: `{"a":"b"`, path: "doc", reason: "invalid JSON: unexpected EOF", eof: true},
		{name: "truncated_in_string", doc: `{"a":"b`, path: "doc", reason: "invalid JSON: unexpected EOF", eof: true},
		{name: "truncated_in_nested_list", doc: `{"a":[1,`, path: "doc.a", reason: "invalid JSON: unexpected EOF", eof: true},
		{name: "missing_value", doc: `{"a":}`, path: "doc", reason: "invalid JSON: invalid character '}' looking for beginning of value", syntax: true},
		{name: "double_comma", doc: `{"a":1,,}`, path: "doc", reason: "invalid JSON: invalid character ',' looking for beginning of object key string", syntax: true},
		{name: "trailing_comma_in_object", doc: `{"a":1,}`, path: "doc", reason: "invalid JSON: invalid character '}' looking for beginning of object key string", syntax: true},
		{name: "trailing_comma_in_list", doc: `{"a":{"b":[1,]}}`, path: "doc.a.b", reason: "invalid JSON: invalid character ']' looking for beginning of value", syntax: true},
		{name: "unquoted_key", doc: `{a:1}`, path: "doc", reason: "invalid JSON: invalid character 'a' looking for beginning of object key string", syntax: true},
		{name: "missing_colon", doc: `{"a" 1}`, path: "doc", reason: "invalid JSON: invalid character '1' after object key", syntax: true},
		{name: "missing_comma", doc: `{"a":1 "b":2}`, path: "doc", reason: "invalid JSON: invalid character '\"' after object key:value pair", syntax: true},
		{name: "leading_zero", doc: `{"a":01}`, path: "doc", reason: "invalid JSON: invalid character '1' after object key:value pair", syntax: true},
		{name: "bare_minus", doc: `{"a":-}`, path: "doc", reason: "invalid JSON: invalid character '}' in numeric literal", syntax: true},
		{name: "dot_without_digits", doc: `{"a":1.}`, path: "doc", reason: "invalid JSON: invalid character '}' after decimal point in numeric literal", syntax: true},
		{name: "exponent_without_digits", doc: `{"a":1e+}`, path: "doc", reason: "invalid JSON: invalid character '}' in exponent of numeric literal", syntax: true},
		{name: "plus_sign", doc: `{"a":+1}`, path: "doc", reason: "invalid JSON: invalid character '+' looking for beginning of value", syntax: true},
		{name: "bad_literal", doc: `{"a":tru}`, path: "doc", reason: "invalid JSON: invalid character '}' in literal true (expecting 'e')", syntax: true},
		{name: "capital_literal", doc: `{"a":True}`, path: "doc", reason: "invalid JSON: invalid character 'T' looking for beginning of value", syntax: true},
		{name: "control_character_in_string", doc: "{\"a\":\"x\ny\"}", path: "doc", reason: `invalid JSON: invalid character '\n' in string literal`, syntax: true},
		{name: "bad_escape", doc: `{"a":"\x"}`, path: "doc", reason: "invalid JSON: invalid character 'x' in string escape code", syntax: true},
		{name: "bad_unicode_escape", doc: `{"a":"\u12g4"}`, path: "doc", reason: `invalid JSON: invalid character 'g' at offset 10`},
		{name: "single_quotes", doc: `{'a':1}`, path: "doc", reason: `invalid JSON: invalid character '\'' looking for beginning of object key string`, syntax: true},
		{name: "duplicated_key", doc: `{"a":1,"b":2,"a":3}`, path: "doc.a", reason: "duplicated key"},
		{name: "duplicated_key_by_escape", doc: `{"kind":"x","\u006bind":1}`, path: "doc.kind", reason: "duplicated key"},
		{name: "duplicated_key_nested", doc: `{"a":[{"b":null,"b":null}]}`, path: "doc.a[0].b", reason: "duplicated key"},
		{name: "duplicated_key_among_many", doc: many[:len(many)-1] + `,"f0":1}`, path: "doc.f0", reason: "duplicated key"},
		{name: "nested_too_deeply", doc: deep, lim: triggerLimits, path: "doc.a[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]", reason: "nested too deeply"},
		{name: "nested_too_deeply_by_default", doc: `{"a":` + strings.Repeat("[", DefaultMaxDepth) + strings.Repeat("]", DefaultMaxDepth) + `}`,
			path: "doc.a" + strings.Repeat("[0]", DefaultMaxDepth-1), reason: "nested too deeply"},
		{name: "too_many_members", doc: many, lim: triggerLimits, path: "doc.f31", reason: "too many fields (an object has at most 32)"},
		{name: "invalid_utf8_value", doc: "{\"a\":{\"b\":\"x\xffy\"}}", path: "doc.a.b", reason: "not valid UTF-8"},
		{name: "invalid_utf8_escaped_value", doc: "{\"a\":\"\\n\xc0\xaf\"}", path: "doc.a", reason: "not valid UTF-8"},
		{name: "surrogate_half_as_utf8", doc: "{\"a\":\"\xed\xa0\x80\"}", path: "doc.a", reason: "not valid UTF-8"},
		{name: "invalid_utf8_key", doc: "{\"a\xff\":1}", path: `doc["a\xff"]`, reason: "not valid UTF-8"},
		{name: "lone_high_surrogate", doc: `{"a":["ok","x\ud800y"]}`, path: "doc.a[1]", reason: "not valid UTF-8"},
		{name: "lone_low_surrogate", doc: `{"a":"\udc00"}`, path: "doc.a", reason: "not valid UTF-8"},
		{name: "reversed_surrogates", doc: `{"a":"\udc00\ud800"}`, path: "doc.a", reason: "not valid UTF-8"},
		{name: "high_surrogate_at_end", doc: `{"a":"x\ud83d"}`, path: "doc.a", reason: "not valid UTF-8"},
		{name: "lone_surrogate_key", doc: `{"\ud800":1}`, path: "doc[\"\uFFFD\"]", reason: "not valid UTF-8"},
		{name: "syntax_before_utf8", doc: "{\"a\":\"\xff\n\"}", path: "doc", reason: `invalid JSON: invalid character '\n' in string`, syntax: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(tt.doc), "doc", tt.lim)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q) = %v, %v, want an *Error", tt.doc, got, err)
			}
			if got != nil {
				t.Errorf("Parse(%q) value = %v, want nil", tt.doc, got)
			}
			// A syntax error's words are encoding/json's, which change between
			// Go releases: they are compared with encoding/json below.
			if e.Path != tt.path || (!tt.syntax && e.Reason != tt.reason) {
				t.Errorf("Parse(%q) error path, reason = %q, %q, want %q, %q", tt.doc, e.Path, e.Reason, tt.path, tt.reason)
			}
			var se *json.SyntaxError
			if gotSyntax := errors.As(err, &se); gotSyntax != tt.syntax {
				t.Errorf("Parse(%q) error wraps a *json.SyntaxError = %v, want %v", tt.doc, gotSyntax, tt.syntax)
			}
			if gotEOF := errors.Is(err, io.ErrUnexpectedEOF); gotEOF != tt.eof {
				t.Errorf("Parse(%q) error wraps io.ErrUnexpectedEOF = %v, want %v", tt.doc, gotEOF, tt.eof)
			}
			if tt.syntax {
				// The message is encoding/json's own for the same text.
				var raw json.RawMessage
				if want := json.Unmarshal([]byte(tt.doc), &raw); want == nil || se == nil || se.Error() != want.Error() {
					t.Errorf("Parse(%q) syntax error = %v, encoding/json says %v", tt.doc, se, want)
				}
			}
		})
	}
}

// record is what the callback tests read: a record-like document with a
// map, lists and optional members.
type record struct {
	Name  string
	Count string
	On    bool
	Tags  []string
	Items map[string]string
	Raw   string
}

func readRecord(d *Decoder) (*record, error) {
	r := &record{Items: map[string]string{}}
	err := d.Document(func(key string) error {
		var err error
		switch key {
		case "name":
			r.Name, err = d.String()
		case "count":
			r.Count, err = d.Number()
		case "on":
			r.On, err = d.Bool()
		case "tags":
			err = d.Array(func(int) error {
				s, err := d.String()
				r.Tags = append(r.Tags, s)
				return err
			})
		case "items":
			err = d.Entries(func(id string) error {
				if d.Null() {
					return &Error{Path: d.Path(), Reason: "null entry"}
				}
				return d.Object(func(key string) error {
					if key != "v" {
						return &Error{Path: d.Path(), Reason: "unknown field"}
					}
					s, err := d.String()
					r.Items[id] = s
					return err
				})
			})
		case "raw":
			var b []byte
			b, err = d.Raw()
			r.Raw = string(b)
		case "ignored":
			// Left unread: the decoder skips it.
		default:
			err = &Error{Path: d.Path(), Reason: "unknown field"}
		}
		return err
	})
	return r, err
}

func TestDecoderCallbacks(t *testing.T) {
	t.Parallel()
	doc := `{"name":"n","count":-1.5,"on":true,"tags":["a","b"],"items":{"c-1":{"v":"x"},"a.b":{"v":"y"}},` +
		`"raw":{"k": [1, "\ud800", {"x":1,"x":2}]},"ignored":[{"deep":[null]}]}`
	got, err := readRecord(NewDecoder([]byte(doc), "", Limits{}))
	if err != nil {
		t.Fatalf("read(%s) = %v", doc, err)
	}
	want := &record{Name: "n", Count: "-1.5", On: true, Tags: []string{"a", "b"}, Items: map[string]string{"c-1": "x", "a.b": "y"},
		Raw: `{"k": [1, "\ud800", {"x":1,"x":2}]}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read(%s) mismatch (-want +got):\n%s", doc, diff)
	}

	refusals := []struct {
		name, doc, path, reason string
	}{
		{"wrong_kind_string", `{"name":1}`, "name", "must be a string, not a number"},
		{"wrong_kind_number", `{"count":"1"}`, "count", "must be a number, not a string"},
		{"wrong_kind_bool", `{"on":"true"}`, "on", "must be a boolean, not a string"},
		{"wrong_kind_list", `{"tags":{}}`, "tags", "must be a list, not a JSON object"},
		{"wrong_kind_object", `{"items":[]}`, "items", "must be a JSON object, not a list"},
		{"wrong_kind_null", `{"items":{"c-1":{"v":null}}}`, `items["c-1"].v`, "must be a string, not null"},
		{"malformed_value_of_wrong_kind", `{"name":[1,}`, "name", "invalid JSON: invalid character '}' looking for beginning of value"},
		{"element_path", `{"tags":["a",2]}`, "tags[1]", "must be a string, not a number"},
		{"entry_paths_are_quoted", `{"items":{"c-1":null}}`, `items["c-1"]`, "null entry"},
		{"entry_member_path", `{"items":{"c-1":{"w":1}}}`, `items["c-1"].w`, "unknown field"},
		{"duplicated_entry", `{"items":{"c-1":{"v":"x"},"c-1":{"v":"x"}}}`, `items["c-1"]`, "duplicated key"},
		{"root_member_path", `{"extra":1}`, "extra", "unknown field"},
		{"odd_root_member_path", `{"a b":1}`, `["a b"]`, "unknown field"},
		{"raw_checks_syntax", `{"raw":{"a":[1 2]}}`, "raw.a", "invalid JSON: invalid character '2' after array element"},
		{"raw_names_odd_keys", `{"raw":{"a\n":{"b":}}}`, `raw["a\n"]`, "invalid JSON: invalid character '}' looking for beginning of value"},
		{"raw_counts_depth", `{"raw":` + strings.Repeat("[", DefaultMaxDepth) + strings.Repeat("]", DefaultMaxDepth) + `}`,
			"raw" + strings.Repeat("[0]", DefaultMaxDepth-1), "nested too deeply"},
		{"skipped_value_checks_syntax", `{"ignored":[01]}`, "ignored", "invalid JSON: invalid character '1' after array element"},
		{"string_text_checked", "{\"tags\":[\"\xff\"]}", "tags[0]", "not valid UTF-8"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := readRecord(NewDecoder([]byte(tt.doc), "", Limits{}))
			var e *Error
			if !errors.As(err, &e) || e.Path != tt.path || e.Reason != tt.reason {
				t.Errorf("read(%q) = %v, want %s: %s", tt.doc, err, tt.path, tt.reason)
			}
		})
	}
}

func TestDecoderValueAndPeek(t *testing.T) {
	t.Parallel()
	d := NewDecoder([]byte(` [1, {"a": null}] `), "v", Limits{})
	if k := d.Peek(); k != Array {
		t.Fatalf("Peek() = %v, want %v", k, Array)
	}
	got, err := d.Value()
	if err != nil {
		t.Fatalf("Value() = %v", err)
	}
	want := &Value{Kind: Array, Elems: []Value{num("1"), {Kind: Object, Members: []Member{{"a", Value{Kind: Null}}}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Value() mismatch (-want +got):\n%s", diff)
	}
	if got.Elems[1].Get("a") != nil || got.Elems[1].Get("b") != nil {
		t.Errorf("Get of a null and an absent member = %v, %v, want nil, nil", got.Elems[1].Get("a"), got.Elems[1].Get("b"))
	}
	if k := d.Peek(); k != Invalid {
		t.Errorf("Peek() at the end = %v, want %v", k, Invalid)
	}
	for _, tt := range []struct {
		text string
		want Kind
	}{{`"x"`, String}, {`-1`, Number}, {`7`, Number}, {`true`, Bool}, {`false`, Bool}, {`null`, Null}, {`{`, Object}, {`x`, Invalid}, {``, Invalid}} {
		if got := NewDecoder([]byte(tt.text), "", Limits{}).Peek(); got != tt.want {
			t.Errorf("Peek(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestPaths(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 70)
	tests := []struct {
		got, want string
	}{
		{MemberPath("verdict", "replies"), "verdict.replies"},
		{IndexPath(MemberPath("verdict", "replies"), 2) + ".body", "verdict.replies[2].body"},
		{MemberPath(KeyPath("open_rfcs", "c-1"), "trigger"), `open_rfcs["c-1"].trigger`},
		{MemberPath(IndexPath("trigger.of", 0), "elapsed"), "trigger.of[0].elapsed"},
		{MemberPath("", "schema"), "schema"},
		{MemberPath("trigger", "a.b\n"), `trigger["a.b\n"]`},
		{MemberPath("v", ""), `v[""]`},
		{MemberPath("v", "x<y>&"), `v["x<y>&"]`},
		{MemberPath("v", "\u202e"), `v["\u202e"]`},
		{MemberPath("v", strings.Repeat("a", 64)), "v." + strings.Repeat("a", 64)},
		{MemberPath("v", strings.Repeat("a", 65)), `v["` + strings.Repeat("a", 64) + `…"]`},
		{KeyPath("open_rfcs", "c-\xff"), `open_rfcs["c-\xff"]`},
		{KeyPath("m", long), `m["` + strings.Repeat("é", 64) + `…"]`},
		{KeyPath("m", "c-1"), `m["c-1"]`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("path = %s, want %s", tt.got, tt.want)
		}
	}
}
