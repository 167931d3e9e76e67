package strictjson

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the JSON type of a value.
type Kind uint8

// The kinds of JSON values; Invalid is what Peek says of text that cannot
// begin a value.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"invalid JSON", "null", "a boolean", "a number", "a string", "a list", "a JSON object"}

// String names the kind for messages: "a string", "a JSON object".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind " + strconv.Itoa(int(k))
}

// DefaultMaxDepth bounds nesting when Limits.MaxDepth is zero: far more
// than any document recess reads needs, and far less than would strain
// the stack.
const DefaultMaxDepth = 64

// Limits bound what a Decoder accepts.
type Limits struct {
	// MaxDepth bounds nesting: the top-level value is at depth 0, and an
	// object or list at depth MaxDepth is refused. Zero means
	// DefaultMaxDepth.
	MaxDepth int
	// MaxMembers bounds the members of one object; zero means no bound
	// (the caller refuses unknown keys, or bounds the count itself).
	MaxMembers int
	// ReplaceLoneSurrogates reads an unpaired surrogate escape as U+FFFD,
	// as encoding/json does, instead of refusing the string. Only for
	// documents recess wrote itself, which never hold one: a record read
	// back keeps the reading it always had.
	ReplaceLoneSurrogates bool
}

// Error is a refusal: Path names the value at fault, Reason says what is
// wrong with it.
type Error struct {
	Path   string
	Reason string
	// Err is the syntax error for text that is not JSON: a
	// *json.SyntaxError, or io.ErrUnexpectedEOF for a document cut short.
	Err error
}

// Error reads "path: reason".
func (e *Error) Error() string { return e.Path + ": " + e.Reason }

// Unwrap returns the syntax error, if any.
func (e *Error) Unwrap() error { return e.Err }

// A Decoder reads one JSON document, or one value taken raw from one, in
// order. Each read consumes one value; a callback of Object, Entries,
// Array or Document that returns without reading its value leaves it
// skipped. After an error the Decoder is done.
type Decoder struct {
	data   []byte
	off    int
	root   string
	lim    Limits
	frames []frame
	keys   []string // keys of the open objects, for the duplicate check
	buf    []byte   // scratch for unescaping
}

// frame is an open object or list.
type frame struct {
	array   bool
	entries bool // keys are map keys: `path["key"]`, never path.key
	index   int  // the current element
	key     string
	rawKey  []byte // the current key's undecoded text, while skipping
	hasRaw  bool
	members int
	from    int // where the frame's keys start in Decoder.keys
	seen    map[string]struct{}
}

// NewDecoder returns a decoder of data whose top-level value has the path
// root ("verdict", "trigger", "" for the record).
func NewDecoder(data []byte, root string, lim Limits) *Decoder {
	if lim.MaxDepth <= 0 {
		lim.MaxDepth = DefaultMaxDepth
	}
	return &Decoder{data: data, root: root, lim: lim}
}

// Document reads the whole input as one object: member is called with each
// key, and reads (or leaves) its value. An input that holds only white
// space, is not an object, or has anything after the object is refused
// at the root.
func (d *Decoder) Document(member func(key string) error) error {
	d.ws()
	if d.off == len(d.data) {
		return &Error{Path: d.root, Reason: "empty document"}
	}
	if c := d.data[d.off]; c != '{' {
		if kindOf(c) != Invalid {
			return &Error{Path: d.root, Reason: "not a JSON object"}
		}
		return d.syntaxError()
	}
	if err := d.object(member, false); err != nil {
		return err
	}
	d.ws()
	if d.off != len(d.data) {
		return &Error{Path: d.root, Reason: "trailing data after the object"}
	}
	return nil
}

// Path returns the path of the value being read: the member whose key the
// callback was given, the element of its index, or the top-level value.
// Callers name their own refusals with it.
func (d *Decoder) Path() string { return d.render(len(d.frames)) }

// Peek returns the kind of the next value without reading it; Invalid
// when the text there cannot begin one (the read that follows says why).
func (d *Decoder) Peek() Kind {
	d.ws()
	if d.off == len(d.data) {
		return Invalid
	}
	return kindOf(d.data[d.off])
}

// Null reads the next value if it is null, and reports whether it was.
func (d *Decoder) Null() bool {
	if d.Peek() != Null || !hasPrefix(d.data[d.off:], "null") {
		return false
	}
	d.off += len("null")
	return true
}

// Object reads an object, calling member with each key.
func (d *Decoder) Object(member func(key string) error) error {
	if k := d.Peek(); k != Object {
		return d.wrongKind(k, Object)
	}
	return d.object(member, false)
}

// Entries reads an object used as a map: as Object, but its members' paths
// always quote the key (`open_rfcs["c-1"]`), as an entry is named by data,
// not by the format.
func (d *Decoder) Entries(entry func(key string) error) error {
	if k := d.Peek(); k != Object {
		return d.wrongKind(k, Object)
	}
	return d.object(entry, true)
}

// Array reads a list, calling elem with each index.
func (d *Decoder) Array(elem func(i int) error) error {
	if k := d.Peek(); k != Array {
		return d.wrongKind(k, Array)
	}
	return d.array(elem)
}

// String reads a string.
func (d *Decoder) String() (string, error) {
	if k := d.Peek(); k != String {
		return "", d.wrongKind(k, String)
	}
	return d.str(false)
}

// Number reads a number and returns its literal text, for the caller to
// read as the integer or decimal it must be.
func (d *Decoder) Number() (string, error) {
	if k := d.Peek(); k != Number {
		return "", d.wrongKind(k, Number)
	}
	start := d.off
	if err := d.number(); err != nil {
		return "", err
	}
	return string(d.data[start:d.off]), nil
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	if k := d.Peek(); k != Bool {
		return false, d.wrongKind(k, Bool)
	}
	b := d.data[d.off] == 't'
	if err := d.skip(); err != nil {
		return false, err
	}
	return b, nil
}

// Raw reads the next value's syntax and returns its text, without
// decoding it: whoever decodes it (with a Decoder of its own) applies the
// checks on keys and strings. Its nesting counts towards this decoder's
// MaxDepth.
func (d *Decoder) Raw() ([]byte, error) {
	d.ws()
	start := d.off
	if err := d.skip(); err != nil {
		return nil, err
	}
	return d.data[start:d.off], nil
}

// wrongKind refuses a value of another kind than the read expects. A value
// that is not even JSON is refused as such.
func (d *Decoder) wrongKind(got, want Kind) error {
	if got == Invalid {
		return d.syntaxError()
	}
	if err := d.skip(); err != nil {
		return err
	}
	return &Error{Path: d.Path(), Reason: "must be " + want.String() + ", not " + got.String()}
}

func kindOf(c byte) Kind {
	switch {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == 't', c == 'f':
		return Bool
	case c == 'n':
		return Null
	case c == '-', '0' <= c && c <= '9':
		return Number
	}
	return Invalid
}

func (d *Decoder) ws() {
	for d.off < len(d.data) {
		switch d.data[d.off] {
		case ' ', '\t', '\n', '\r':
			d.off++
		default:
			return
		}
	}
}

// enter opens an object or list at d.off, refusing one nested too deeply,
// and returns the index of its frame.
func (d *Decoder) enter(f frame) (int, error) {
	if len(d.frames) >= d.lim.MaxDepth {
		return 0, &Error{Path: d.Path(), Reason: "nested too deeply"}
	}
	d.off++
	f.from = len(d.keys)
	d.frames = append(d.frames, f)
	return len(d.frames) - 1, nil
}

func (d *Decoder) leave() {
	f := &d.frames[len(d.frames)-1]
	d.keys = d.keys[:f.from]
	d.frames = d.frames[:len(d.frames)-1]
	d.off++
}

// object reads the object at d.off; member reads each value (or leaves it
// to be skipped). A nil member reads only the syntax (see skip).
func (d *Decoder) object(member func(key string) error, entries bool) error {
	top, err := d.enter(frame{entries: entries})
	if err != nil {
		return err
	}
	return d.items('}', func(int) error {
		if err := d.key(top, member != nil); err != nil {
			return err
		}
		if err := d.colon(); err != nil {
			return err
		}
		if member == nil {
			return d.skip()
		}
		key := d.frames[top].key
		return d.read(func() error { return member(key) })
	})
}

// items reads the members or elements of the object or list just entered,
// up to and with its closing delimiter; item reads one.
func (d *Decoder) items(closing byte, item func(i int) error) error {
	d.ws()
	if d.off < len(d.data) && d.data[d.off] == closing {
		d.leave()
		return nil
	}
	for i := 0; ; i++ {
		d.ws()
		if err := item(i); err != nil {
			return err
		}
		d.ws()
		if d.off == len(d.data) {
			return d.syntaxError()
		}
		switch d.data[d.off] {
		case ',':
			d.off++
		case closing:
			d.leave()
			return nil
		default:
			return d.syntaxError()
		}
	}
}

// read calls a caller's function that reads one value, and skips the value
// when it was left unread.
func (d *Decoder) read(value func() error) error {
	start := d.off
	if err := value(); err != nil || d.off != start {
		return err
	}
	return d.skip()
}

// key reads a member's key into frame top: decoded and checked against
// the others, or only its syntax, kept for a path.
func (d *Decoder) key(top int, decode bool) error {
	if d.off == len(d.data) || d.data[d.off] != '"' {
		return d.syntaxError()
	}
	if decode {
		key, err := d.str(true)
		if err != nil {
			return err
		}
		return d.addKey(top, key)
	}
	start := d.off
	if _, _, err := d.scanString(); err != nil {
		return err
	}
	f := &d.frames[top]
	f.rawKey, f.hasRaw = d.data[start+1:d.off-1], true
	return nil
}

// colon reads the colon after a key and the white space after it.
func (d *Decoder) colon() error {
	d.ws()
	if d.off == len(d.data) || d.data[d.off] != ':' {
		return d.syntaxError()
	}
	d.off++
	d.ws()
	return nil
}

// addKey makes key the current member of frame top, refusing one too many
// or a repeated one.
func (d *Decoder) addKey(top int, key string) error {
	f := &d.frames[top]
	f.key, f.hasRaw = key, false
	f.members++
	if d.lim.MaxMembers > 0 && f.members > d.lim.MaxMembers {
		return &Error{Path: d.Path(), Reason: "too many fields (an object has at most " + strconv.Itoa(d.lim.MaxMembers) + ")"}
	}
	const linear = 16 // below this, a scan beats a map
	if f.seen != nil {
		if _, dup := f.seen[key]; dup {
			return &Error{Path: d.Path(), Reason: "duplicated key"}
		}
		f.seen[key] = struct{}{}
		return nil
	}
	for _, k := range d.keys[f.from:] {
		if k == key {
			return &Error{Path: d.Path(), Reason: "duplicated key"}
		}
	}
	d.keys = append(d.keys, key)
	if len(d.keys)-f.from > linear {
		f.seen = make(map[string]struct{}, 2*linear)
		for _, k := range d.keys[f.from:] {
			f.seen[k] = struct{}{}
		}
		d.keys = d.keys[:f.from]
	}
	return nil
}

func (d *Decoder) array(elem func(i int) error) error {
	top, err := d.enter(frame{array: true})
	if err != nil {
		return err
	}
	return d.items(']', func(i int) error {
		d.frames[top].index = i
		return d.read(func() error { return elem(i) })
	})
}

// skip reads the syntax of the next value, checking nesting but not keys
// or strings.
func (d *Decoder) skip() error {
	d.ws()
	if d.off == len(d.data) {
		return d.syntaxError()
	}
	switch c := d.data[d.off]; c {
	case '{':
		return d.object(nil, false)
	case '[':
		return d.array(func(int) error { return d.skip() })
	case '"':
		_, _, err := d.scanString()
		return err
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		if kindOf(c) == Number {
			return d.number()
		}
		return d.syntaxError()
	}
}

func hasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}

func (d *Decoder) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if d.off == len(d.data) || d.data[d.off] != word[i] {
			return d.syntaxError()
		}
		d.off++
	}
	return nil
}

// number reads a number as RFC 8259 spells one.
func (d *Decoder) number() error {
	digits := func() bool {
		start := d.off
		for d.off < len(d.data) && '0' <= d.data[d.off] && d.data[d.off] <= '9' {
			d.off++
		}
		return d.off > start
	}
	if d.data[d.off] == '-' {
		d.off++
	}
	switch {
	case d.off == len(d.data):
		return d.syntaxError()
	case d.data[d.off] == '0':
		d.off++
	case !digits():
		return d.syntaxError()
	}
	if d.off < len(d.data) && d.data[d.off] == '.' {
		d.off++
		if !digits() {
			return d.syntaxError()
		}
	}
	if d.off < len(d.data) && (d.data[d.off] == 'e' || d.data[d.off] == 'E') {
		d.off++
		if d.off < len(d.data) && (d.data[d.off] == '+' || d.data[d.off] == '-') {
			d.off++
		}
		if !digits() {
			return d.syntaxError()
		}
	}
	return nil
}

// scanString reads the syntax of the string at d.off and leaves d.off after
// its closing quote. It reports whether the string holds escapes and bytes
// beyond ASCII.
func (d *Decoder) scanString() (escaped, wide bool, err error) {
	d.off++
	for d.off < len(d.data) {
		c := d.data[d.off]
		switch {
		case c == '"':
			d.off++
			return escaped, wide, nil
		case c < 0x20:
			return false, false, d.syntaxError()
		case c >= 0x80:
			wide = true
			d.off++
		case c != '\\':
			d.off++
		default:
			escaped = true
			d.off++
			if d.off == len(d.data) {
				return false, false, d.syntaxError()
			}
			switch d.data[d.off] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.off++
			case 'u':
				d.off++
				for range 4 {
					if d.off == len(d.data) || unhex(d.data[d.off]) < 0 {
						return false, false, d.syntaxError()
					}
					d.off++
				}
			default:
				return false, false, d.syntaxError()
			}
		}
	}
	return false, false, d.syntaxError()
}

func unhex(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// str reads and decodes the string at d.off, refusing invalid UTF-8 and
// (unless the limits say otherwise) unpaired surrogate escapes. A key's
// refusal names the member it would have been.
func (d *Decoder) str(key bool) (string, error) {
	start := d.off
	escaped, wide, err := d.scanString()
	if err != nil {
		return "", err
	}
	text := d.data[start+1 : d.off-1]
	if !escaped {
		if wide && !utf8.Valid(text) {
			return "", d.badText(key, string(text))
		}
		return string(text), nil
	}
	s, ok := unquote(text, d.buf[:0], d.lim.ReplaceLoneSurrogates)
	if !ok || wide && !utf8.Valid(text) {
		return "", d.badText(key, string(s))
	}
	if cap(s) <= 1<<10 {
		d.buf = s[:0]
	}
	return string(s), nil
}

func (d *Decoder) badText(key bool, s string) error {
	path := d.Path()
	if key {
		path = d.render(len(d.frames) - 1)
		if d.frames[len(d.frames)-1].entries {
			path = KeyPath(path, s)
		} else {
			path = MemberPath(path, s)
		}
	}
	return &Error{Path: path, Reason: "not valid UTF-8"}
}

// unquote decodes the escapes of a string's text (syntax already checked)
// into buf. ok is false when an escape is an unpaired surrogate, which
// becomes U+FFFD when replace is set and makes ok false otherwise.
func unquote(text, buf []byte, replace bool) (out []byte, ok bool) {
	ok = true
	for i := 0; i < len(text); {
		c := text[i]
		if c != '\\' {
			buf = append(buf, c)
			i++
			continue
		}
		switch e := text[i+1]; e {
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r := hex4(text[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if r < 0xDC00 && i+6 <= len(text) && text[i] == '\\' && text[i+1] == 'u' {
					if pair := utf16.DecodeRune(r, hex4(text[i+2:])); pair != utf8.RuneError {
						buf = utf8.AppendRune(buf, pair)
						i += 6
						continue
					}
				}
				ok = ok && replace
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
			continue
		default: // '"', '\\', '/'
			buf = append(buf, e)
		}
		i += 2
	}
	return buf, ok
}

func hex4(b []byte) rune {
	return unhex(b[0])<<12 | unhex(b[1])<<8 | unhex(b[2])<<4 | unhex(b[3])
}

// syntaxError refuses the text at d.off, naming the innermost object or
// list it lies in. The error is encoding/json's own, so its message is the
// one Go programmers know; a document cut short is io.ErrUnexpectedEOF.
func (d *Decoder) syntaxError() error {
	path := d.root
	if len(d.frames) > 0 {
		path = d.render(len(d.frames) - 1)
	}
	var err error
	if d.off >= len(d.data) {
		err = io.ErrUnexpectedEOF
	} else {
		var raw json.RawMessage
		var se *json.SyntaxError
		if e := json.Unmarshal(d.data, &raw); errors.As(e, &se) && se.Offset == int64(d.off)+1 {
			err = se
		} else {
			// encoding/json reads the text otherwise: keep our own account.
			err = errors.New("invalid character " + quoteChar(d.data[d.off]) + " at offset " + strconv.Itoa(d.off))
		}
	}
	return &Error{Path: path, Reason: "invalid JSON: " + err.Error(), Err: err}
}

// quoteChar spells a byte as encoding/json's messages do.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// render returns the path of the current value of the first n frames.
func (d *Decoder) render(n int) string {
	p := d.root
	for i := range n {
		f := &d.frames[i]
		switch {
		case f.array:
			p = IndexPath(p, f.index)
		case f.hasRaw:
			k, _ := unquote(f.rawKey, nil, true)
			p = MemberPath(p, string(k))
		case f.entries:
			p = KeyPath(p, f.key)
		default:
			p = MemberPath(p, f.key)
		}
	}
	return p
}
