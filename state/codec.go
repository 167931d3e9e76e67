package state

import (
	"encoding/base64"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/recess-action/recess/resume/wait"
)

// MaxEncoded bounds an encoded record in bytes. Decode refuses larger input
// before reading it, and Encode never produces it, so whatever a store holds
// can be read back.
const MaxEncoded = 60 << 10

// MaxCommentBody is GitHub's limit on a discussion comment body, in
// characters. EncodeComment counts UTF-16 code units, the larger of the usual
// ways to count characters, so a body it accepts fits however GitHub counts.
const MaxCommentBody = 65536

// ErrInvalid means Encode was handed a record that breaks the format's rules
// (a negative count, an empty correlation id, a trigger that is not a JSON
// object): a bug in the caller, refused before anything is stored.
var ErrInvalid = errors.New("state: invalid record")

// refuse returns a refusal of a record: the sentinel (ErrCorrupt from
// Decode and DecodeComment, ErrTooLarge or ErrInvalid from Encode and
// EncodeComment) wrapping the *wait.FieldError that names the field ("" when
// the record as a whole is at fault) and says what is wrong with it. The
// cause, if any, is in the reason and unwraps from the *wait.FieldError.
func refuse(sentinel error, field, reason string, cause error) error {
	if cause != nil {
		reason += ": " + cause.Error()
	}
	return fmt.Errorf("%w: %w", sentinel, &wait.FieldError{Field: field, Reason: reason, Err: cause})
}

// wire writes a record as its wire form holds it: times in UTC (and only
// those of years 0..9999, which RFC 3339 can write), strings as valid UTF-8
// (a run of invalid bytes becomes U+FFFD, as JSON cannot carry it), U+2028
// and U+2029 escaped, map keys sorted so equal records give equal bytes.
var wire = json.JoinOptions(
	json.Deterministic(true),
	jsontext.EscapeForJS(true),
	json.WithMarshalers(json.JoinMarshalers(
		json.MarshalToFunc(func(e *jsontext.Encoder, s string) error {
			return e.WriteToken(jsontext.String(strings.ToValidUTF8(s, "\uFFFD")))
		}),
		json.MarshalToFunc(func(e *jsontext.Encoder, t time.Time) error {
			if y := t.UTC().Year(); y < 0 || y > 9999 {
				return &wait.FieldError{Reason: fmt.Sprintf("year %d outside 0..9999", y)}
			}
			return e.WriteToken(jsontext.String(t.UTC().Format(time.RFC3339Nano)))
		}),
	)),
)

// Encode returns the record's wire form: compact JSON, fields in declaration
// order and map keys sorted so equal records give equal bytes, the schema
// forced to Schema, times in UTC, and strings as valid UTF-8 (see wire). Rev
// is not part of it. A record over a bound (MaxOpenRFCs, MaxApplied,
// MaxDispatchTimes, MaxCursorIDs, MaxReplyIDs for reply ids and thread
// roots, MaxTriggerBytes, MaxEncoded) is refused with ErrTooLarge, one that
// breaks another rule with ErrInvalid, each wrapping a *wait.FieldError that
// names the field. rec itself is not changed.
func Encode(rec *Record) ([]byte, error) {
	if rec == nil {
		return nil, refuse(ErrInvalid, "", "nil record", nil)
	}
	if err := check(rec); err != nil {
		return nil, err
	}
	c := *rec
	c.Schema = Schema
	out, err := json.Marshal(&c, wire)
	var sem *json.SemanticError
	var fe *wait.FieldError
	switch {
	case errors.As(err, &sem) && errors.As(err, &fe):
		return nil, refuse(ErrInvalid, wait.PointerPath("", reflect.TypeFor[Record](), sem.JSONPointer), fe.Reason, nil)
	case err != nil:
		return nil, refuse(ErrInvalid, "", "cannot marshal", err)
	case len(out) > MaxEncoded:
		return nil, refuse(ErrTooLarge, "", fmt.Sprintf("encoded record of %d bytes, more than %d", len(out), MaxEncoded), nil)
	}
	return out, nil
}

// Decode reads a record's wire form strictly: unknown or duplicate fields,
// wrong types, a null where the format has no pointer, a missing or other
// schema, trailing data, invalid UTF-8, a trigger that is not a JSON object,
// a value outside the rules Encode checks — each is refused with ErrCorrupt
// wrapping a *wait.FieldError that names the field. Input over MaxEncoded is
// refused before it is read. A record Decode accepts encodes again, and
// decodes to the same value. Times come back in UTC.
func Decode(data []byte) (*Record, error) {
	if len(data) > MaxEncoded {
		return nil, refuse(ErrCorrupt, "", fmt.Sprintf("%d bytes, more than %d", len(data), MaxEncoded), nil)
	}
	if !utf8.Valid(data) {
		return nil, refuse(ErrCorrupt, "", "not valid UTF-8", nil)
	}
	rec := &Record{}
	// Recess never writes an unpaired surrogate escape; one in a record
	// reads as U+FFFD, as it always has.
	err := wait.DecodeJSON(data, "", rec, wait.JSONLimits{}, jsontext.AllowInvalidUTF8(true), json.WithUnmarshalers(notNull))
	if err != nil || rec.Schema != Schema {
		// A record of another schema is refused for its schema, whatever
		// else in it this version cannot read.
		var other struct {
			Schema int `json:"schema"`
		}
		if json.Unmarshal(data, &other) == nil && other.Schema != 0 && other.Schema != Schema {
			return nil, refuse(ErrCorrupt, "schema", fmt.Sprintf("version %d, want %d", other.Schema, Schema), nil)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return nil, refuse(ErrCorrupt, "schema", "missing", nil)
	}
	// Encoding again applies every rule Encode applies, so whatever Decode
	// accepts can be saved back unchanged; the record is then read from its
	// wire form, in the form Encode writes (times in UTC, triggers canonical).
	enc, err := Encode(rec)
	var fe *wait.FieldError
	if errors.As(err, &fe) {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, fe)
	}
	out := &Record{}
	if err := json.Unmarshal(enc, out); err != nil {
		return nil, refuse(ErrCorrupt, "", "cannot decode again", err)
	}
	return out, nil
}

// notNull refuses a null where the record has no pointer (a cursor, a
// string, a time, a list, the open recesses): recess never writes one there.
var notNull = json.UnmarshalFromFunc(func(d *jsontext.Decoder, v any) error {
	if d.PeekKind() == 'n' && reflect.TypeOf(v).Elem().Kind() != reflect.Pointer {
		return &wait.FieldError{Reason: "must not be null"}
	}
	return errors.ErrUnsupported
})

// check applies the format's rules that the JSON form does not carry
// itself (the range of a time is wire's). Over-bound values are
// ErrTooLarge, anything else ErrInvalid; Decode turns both into ErrCorrupt.
// The first rule broken is the one reported.
func check(r *Record) error {
	var err error
	fail := func(sentinel error, field, format string, args ...any) {
		if err == nil {
			err = refuse(sentinel, field, fmt.Sprintf(format, args...), nil)
		}
	}
	invalid := func(bad bool, field, format string, args ...any) {
		if bad {
			fail(ErrInvalid, field, format, args...)
		}
	}
	negative := func(field string, n int64) { invalid(n < 0, field, "%d is negative", n) }
	bound := func(field string, n, limit int) {
		if n > limit {
			fail(ErrTooLarge, field, "%d entries, more than %d", n, limit)
		}
	}
	cursor := func(field string, c Cursor) { bound(field+".ids", len(c.IDs), MaxCursorIDs) }
	trigger := func(field string, t *wait.Trigger) {
		b, merr := t.MarshalJSON() // "null" for none
		if merr != nil && err == nil {
			err = refuse(ErrInvalid, field, "cannot marshal", merr)
		}
		if len(b) > MaxTriggerBytes {
			fail(ErrTooLarge, field, "%d bytes, more than %d", len(b), MaxTriggerBytes)
		}
	}

	invalid(r.Discussion < 1, "discussion", "%d is not a discussion number", r.Discussion)
	invalid(r.Kind != "" && !slices.Contains(Kinds, r.Kind), "kind", "unknown kind %q", r.Kind)
	cursor("seen", r.Seen)
	if a := r.Active; a != nil {
		invalid(a.CorrelationID == "", "active.correlation_id", "empty")
		invalid(!slices.Contains([]string{RunDispatching, RunDispatched, RunEscalated}, a.State), "active.state", "unknown state %q", a.State)
		negative("active.run_id", a.RunID)
		negative("active.attempt", int64(a.Attempt))
		negative("active.dispatch_errors", int64(a.DispatchErrors))
		cursor("active.since", a.Since)
		cursor("active.until", a.Until)
		if rs := a.Resume; rs != nil {
			invalid(rs.CorrelationID == "", "active.resume.correlation_id", "empty")
			trigger("active.resume.trigger", rs.Trigger)
			negative("active.resume.recess_count", int64(rs.RecessCount))
		}
	}
	bound("open_rfcs", len(r.OpenRFCs), MaxOpenRFCs)
	for _, id := range slices.Sorted(maps.Keys(r.OpenRFCs)) {
		field, o := wait.KeyPath("open_rfcs", id), r.OpenRFCs[id]
		invalid(id == "" || !utf8.ValidString(id), field, "key is not a correlation id")
		if o == nil {
			invalid(true, field, "null entry")
			continue
		}
		invalid(o.Trigger == nil, field+".trigger", "missing")
		trigger(field+".trigger", o.Trigger)
		cursor(field+".replies_after", o.RepliesAfter)
		cursor(field+".since", o.Since)
		negative(field+".recess_count", int64(o.RecessCount))
		bound(field+".reply_ids", len(o.ReplyIDs), MaxReplyIDs)
		// Every thread root holds at least one of the replies.
		bound(field+".thread_roots", len(o.ThreadRoots), MaxReplyIDs)
	}
	bound("dispatches", len(r.Dispatches), MaxDispatchTimes)
	bound("applied", len(r.Applied), MaxApplied)
	cursor("commands", r.Commands)
	return err
}

// Markers recess leaves in comment bodies. All are HTML comments, so people
// reading the discussion never see them, and all are recognised by their
// exact spelling only: markerOpen, a kind, a space.
const (
	markerOpen  = "<!-- recess:"
	markerClose = "-->"
	// stateKind marks the record in a status comment (EncodeComment).
	stateKind   = "state"
	stateMarker = markerOpen + stateKind
	// stateVersion is the version of the hidden-comment wrapping (the record
	// inside carries its own schema).
	stateVersion = "v1"
	// replyKind marks a reply or note recess posted (ReplyMarker).
	replyKind = "reply"
	// recessKind marks a copy of an open recess in one of recess's own
	// replies (RecessMarker).
	recessKind = "recess"
	// answerKind is reserved: no marker uses it today, and no text recess
	// posts for others may start using it.
	answerKind = "answer"
	// wrapColumns keeps the hidden payload's lines short, as MIME does, so
	// the body stays readable in an editor.
	wrapColumns = 76
)

// markerKinds is every kind of marker recess reads or reserves: the one list
// Neutralize breaks in text recess posts for someone else. A new kind goes
// here, or an agent could plant it under recess's identity.
var markerKinds = []string{stateKind, replyKind, recessKind, answerKind}

// markerWord is how every marker spells itself after "<!-- ".
const markerWord = "recess:"

// Neutralize returns text in which no recess marker can be recognised: a
// WORD JOINER (U+2060, invisible) goes between "recess" and ":" wherever
// "recess:" is followed by a marker kind (markerKinds). Use it on any text
// recess posts but did not write (an agent's reply, a summary, a person's
// words quoted back) so that only the markers recess appends itself count.
func Neutralize(text string) string {
	if !strings.Contains(text, markerWord) {
		return text // the usual case: nothing to copy
	}
	var b strings.Builder
	for {
		before, after, found := strings.Cut(text, markerWord)
		if !found {
			break
		}
		b.WriteString(before + "recess")
		if slices.ContainsFunc(markerKinds, func(k string) bool { return strings.HasPrefix(after, k) }) {
			b.WriteString("\u2060")
		}
		b.WriteByte(':')
		text = after
	}
	b.WriteString(text)
	return b.String()
}

// cleanVisible makes the visible text safe to post and to put in front of
// the hidden record: valid UTF-8, no NUL (GitHub drops it), no marker, no
// trailing blank space (the separator provides it).
func cleanVisible(visible string) string {
	visible = strings.ToValidUTF8(visible, "\uFFFD")
	visible = strings.ReplaceAll(visible, "\x00", "")
	visible = Neutralize(visible)
	return strings.TrimRight(visible, " \t\r\n")
}

// commentLen counts characters as UTF-16 code units.
func commentLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// The hidden record's first and last lines; the payload lies between.
const (
	stateHeader = stateMarker + " " + stateVersion + "\n"
	stateFooter = "\n" + markerClose
)

// EncodeComment returns a comment body: the visible text for people, a blank
// line, and the encoded record in a hidden HTML comment. The record travels
// as base64 (no '-' or '>' in that alphabet, so nothing in it can close the
// comment, and nothing markdown rewrites), wrapped at 76 columns. The visible
// text is cleaned first: invalid UTF-8 becomes U+FFFD, NUL is dropped, any
// marker word is broken (see Neutralize), so the record's marker is the only
// one and the last. A body over MaxCommentBody is ErrTooLarge.
func EncodeComment(visible string, rec *Record) (string, error) {
	data, err := Encode(rec)
	if err != nil {
		return "", err
	}
	visible = cleanVisible(visible)
	payload := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	if visible != "" {
		b.WriteString(visible)
		b.WriteString("\n\n")
	}
	b.WriteString(stateHeader)
	for len(payload) > wrapColumns {
		b.WriteString(payload[:wrapColumns])
		b.WriteByte('\n')
		payload = payload[wrapColumns:]
	}
	b.WriteString(payload)
	b.WriteString(stateFooter)
	body := b.String()
	if n := commentLen(body); n > MaxCommentBody {
		return "", refuse(ErrTooLarge, "", fmt.Sprintf("comment body of %d characters, more than %d", n, MaxCommentBody), nil)
	}
	return body, nil
}

// unixLines turns CRLF and lone CR line breaks into LF: a browser sends a
// comment edited on the web with CRLF.
func unixLines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// ErrNotExact means a comment holds a record marker that reads, in a body
// that is not exactly what recess writes around that record (StatusBody,
// ReplyBody): recess did not write the comment as it stands. Another
// workflow posting with recess's own token (a cross-post, translation or
// summary bot reposting someone's comment, marker and all) leaves such a
// body, and so does a person's edit of recess's comment. It is no record of
// recess's.
var ErrNotExact = errors.New("state: not a comment recess wrote for the record it holds")

// StatusBody is the status comment recess writes for rec: the record's own
// Status as the visible text and the record hidden after it
// (EncodeComment). It is the one rendering of a status comment: the comment
// store writes it, and ReadStatus trusts a body only when it is exactly this
// for the record it holds. The visible text travels inside the record, so a
// status comment written under one configuration (text overrides,
// hide-summary, the repository's URL for the run's link, the clock of the
// moment it was written) is recognised under any other: nothing is
// rendered again from this run's configuration.
func StatusBody(rec *Record) (string, error) {
	if rec == nil {
		return "", refuse(ErrInvalid, "", "nil record", nil)
	}
	return EncodeComment(rec.Status, rec)
}

// ReadStatus reads recess's status comment: the record DecodeComment finds,
// only when the whole body is exactly StatusBody of that record (line
// breaks aside: a comment saved from GitHub's web editor, even unchanged,
// comes back with CRLF). found is false when body holds no record marker;
// a marker that cannot be read is an error wrapping ErrCorrupt, as
// DecodeComment says; a readable record in any other body (words around
// it, a visible text that is not the record's Status, another encoding of
// the record) is ErrNotExact, and no record.
func ReadStatus(body string) (rec *Record, found bool, err error) {
	rec, found, err = DecodeComment(body)
	if !found || err != nil {
		return rec, found, err
	}
	if want, werr := StatusBody(rec); werr != nil || unixLines(want) != unixLines(body) {
		return nil, true, ErrNotExact
	}
	return rec, true, nil
}

// HasMarker reports whether body holds a hidden record marker at all, well
// formed or not; it is cheaper than DecodeComment.
func HasMarker(body string) bool {
	return strings.Contains(body, stateMarker)
}

// DecodeComment reads the record hidden in a comment body by EncodeComment.
// Only the last marker counts. found is false when there is none; when the
// last one cannot be read (other version, not closed, not base64, not a
// record) found is true and err wraps ErrCorrupt. Whether the comment is
// trustworthy (written by recess's own identity) is for the caller to decide.
func DecodeComment(body string) (rec *Record, found bool, err error) {
	i := strings.LastIndex(body, stateMarker)
	if i < 0 {
		return nil, false, nil
	}
	corrupt := func(reason string, cause error) (*Record, bool, error) {
		return nil, true, refuse(ErrCorrupt, "", "hidden record: "+reason, cause)
	}
	rest, _, closed := strings.Cut(body[i+len(stateMarker):], markerClose)
	if !closed {
		return corrupt("marker is not closed", nil)
	}
	version, payload, ok := strings.Cut(strings.TrimLeft(rest, " \t"), "\n")
	if version = strings.TrimRight(version, " \t\r"); !ok || version != stateVersion {
		return corrupt(fmt.Sprintf("unsupported marker version %.20q", version), nil)
	}
	payload = strings.Map(func(r rune) rune {
		if strings.ContainsRune(" \t\r\n\f\v", r) {
			return -1
		}
		return r
	}, payload)
	rec, err = decodePayload(payload)
	return rec, true, err
}

// decodePayload reads a record from a marker's base64 payload, refusing
// one longer than any record's before decoding it.
func decodePayload(payload string) (*Record, error) {
	if n, limit := len(payload), base64.StdEncoding.EncodedLen(MaxEncoded); n > limit {
		return nil, refuse(ErrCorrupt, "", fmt.Sprintf("hidden record: payload of %d characters, more than %d", n, limit), nil)
	}
	data, err := base64.StdEncoding.Strict().DecodeString(payload)
	if err != nil {
		return nil, refuse(ErrCorrupt, "", "hidden record: payload is not base64", err)
	}
	return Decode(data)
}

// markerToken spells an id inside a marker: as it is when it is made of
// [A-Za-z0-9._-] (GitHub node ids and recess's correlation ids are), else
// "b64:" and its base64, which cannot contain a space or close the comment.
func markerToken(id string) string {
	const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"
	if id != "" && strings.Trim(id, plain) == "" {
		return id
	}
	return "b64:" + base64.StdEncoding.EncodeToString([]byte(id))
}

func parseMarkerToken(tok string) (string, bool) {
	if enc, ok := strings.CutPrefix(tok, "b64:"); ok {
		b, err := base64.StdEncoding.Strict().DecodeString(enc)
		if err != nil {
			return "", false
		}
		return string(b), true
	}
	return tok, tok != "" && markerToken(tok) == tok
}

// ReplyMarker is the hidden marker recess appends to each reply it posts for
// a verdict, so that a re-run finds the reply and never posts it twice.
// index is the reply's position in the verdict (0 or more).
func ReplyMarker(correlationID string, index int) string {
	return markerOpen + replyKind + " " + markerToken(correlationID) + " " + strconv.Itoa(index) + " " + markerClose
}

// ParseReplyMarker reads the last reply marker in body.
func ParseReplyMarker(body string) (correlationID string, index int, ok bool) {
	i := strings.LastIndex(body, markerOpen+replyKind+" ")
	if i < 0 {
		return "", 0, false
	}
	inside, _, closed := strings.Cut(body[i:], markerClose)
	words := strings.Fields(inside)[2:] // after "<!--" and "recess:reply"
	if !closed || len(words) != 2 {
		return "", 0, false
	}
	cid, ok := parseMarkerToken(words[0])
	index, err := strconv.Atoi(words[1])
	if !ok || err != nil || strings.Trim(words[1], "0123456789") != "" {
		return "", 0, false
	}
	return cid, index, true
}

// RecessMarker is a hidden marker that carries a copy of a record: what a
// restore needs of what recess wrote (the engine decides what that is),
// appended by recess after its own reply marker in a comment it posts
// (ReplyBody), or put there in place of an older copy when a write leaves
// no comment of its own. When the status comment that held the record is
// deleted and the deletion's event is lost, the newest copy is what the
// record is restored from. Its payload is base64, so no value can close
// the comment early.
func RecessMarker(rec *Record) (string, error) {
	data, err := Encode(rec)
	if err != nil {
		return "", err
	}
	return markerOpen + recessKind + " " + stateVersion + " " + base64.StdEncoding.EncodeToString(data) + " " + markerClose, nil
}

// ReplyBody is the body recess posts for text someone else wrote (an
// agent's reply, a note that quotes people): the text with every marker
// neutralised (Neutralize), a blank line, recess's reply marker, and, when
// keep is a copy of the record (RecessMarker) and the whole still fits in a
// comment (FitsComment), that copy right after the marker, where
// ParseRecessMarker looks for it. It is the one place that builds such a
// body, so that only the markers recess appends can ever be read back.
func ReplyBody(text, correlationID string, index int, keep string) string {
	body := Neutralize(text) + "\n\n" + ReplyMarker(correlationID, index)
	if keep != "" && FitsComment(body+"\n"+keep) {
		body += "\n" + keep
	}
	return body
}

// Recopy returns body, a comment recess posted (built by ReplyBody), with
// keep as its copy of the record, in place of the copy it carries if any:
// what ReplyBody would have built with keep. ok is false when body is not
// such a comment, or when keep does not fit in it.
func Recopy(body, keep string) (string, bool) {
	text, cid, index, _, ok := readReply(body)
	if !ok {
		return "", false
	}
	out := ReplyBody(text, cid, index, keep)
	return out, keep != "" && strings.HasSuffix(out, keep)
}

// ParseRecessMarker reads the copy of a record in one of recess's comments
// only where and as recess puts it: the body must be exactly
// ReplyBody(text, id, index, RecessMarker(rec)) for the record it holds and
// some text (line breaks and trailing blank space aside), so the copy ends
// the body, right after the reply's own marker, and nothing in the text
// reads as a marker. A copy anywhere else (quoted, planted before recess's
// own marker, reposted with other words around it, written in another
// encoding) is not one recess kept; ok is false then, and when it cannot
// be read. A copy that names no applied verdict is one kept before copies
// named their writer: it holds exactly one open recess, keyed by the
// reply's own correlation id.
func ParseRecessMarker(body string) (rec *Record, ok bool) {
	_, _, _, rec, ok = readReply(body)
	return rec, ok && rec != nil
}

// readReply reads a comment recess built with ReplyBody, line breaks and
// trailing blank space aside: its text, its reply marker's correlation id
// and index, and the copy of the record it ends with (nil when none). ok
// is false for any other body, and for one whose copy ParseRecessMarker
// would not take.
func readReply(body string) (text, correlationID string, index int, rec *Record, ok bool) {
	body = strings.TrimRight(unixLines(body), " \t\n")
	if i := strings.LastIndex(body, markerOpen+recessKind+" "); i >= 0 {
		// The copy counts only exactly as RecessMarker writes it.
		payload, _ := strings.CutPrefix(body[i:], markerOpen+recessKind+" "+stateVersion+" ")
		copied, err := decodePayload(strings.TrimSuffix(payload, " "+markerClose))
		if keep, kerr := RecessMarker(copied); err != nil || kerr != nil || body[i:] != keep {
			return "", "", 0, nil, false
		}
		if body, ok = strings.CutSuffix(body[:i], "\n"); !ok {
			return "", "", 0, nil, false
		}
		rec = copied
	}
	correlationID, index, ok = ParseReplyMarker(body)
	if !ok {
		return "", "", 0, nil, false
	}
	text, ok = strings.CutSuffix(body, "\n\n"+ReplyMarker(correlationID, index))
	if !ok || Neutralize(text) != text {
		return "", "", 0, nil, false
	}
	if rec != nil && len(rec.Applied) == 0 && (len(rec.OpenRFCs) != 1 || rec.OpenRFCs[correlationID] == nil) {
		return "", "", 0, nil, false
	}
	return text, correlationID, index, rec, true
}

// FitsComment reports whether body fits GitHub's limit on a comment body
// (MaxCommentBody characters, counted as EncodeComment counts them).
func FitsComment(body string) bool { return commentLen(body) <= MaxCommentBody }

// Visible is the text of a comment recess wrote without its hidden
// markers: what people see.
func Visible(body string) string {
	if i := strings.Index(body, markerOpen); i >= 0 {
		body = body[:i]
	}
	return strings.TrimSpace(body)
}
