package state

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
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

// Encode returns the record's wire form: compact JSON, fields in declaration
// order and map keys sorted so equal records give equal bytes, the schema
// forced to Schema, times in UTC, and strings as valid UTF-8 (a run of invalid
// bytes becomes U+FFFD, as JSON cannot carry it). Rev is not part of it. A record over a bound (MaxOpenRFCs, MaxApplied, MaxDispatchTimes,
// MaxCursorIDs, MaxReplyIDs for reply ids and thread roots, MaxTriggerBytes,
// MaxEncoded) is refused with ErrTooLarge, one that breaks another rule with
// ErrInvalid, each wrapping a *wait.FieldError that names the field. rec itself is not changed.
func Encode(rec *Record) ([]byte, error) {
	if rec == nil {
		return nil, refuse(ErrInvalid, "", "nil record", nil)
	}
	return encode(canonical(rec))
}

// encode checks and marshals a record that is already canonical.
func encode(c *Record) ([]byte, error) {
	if err := check(c); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// The wire form is not embedded in HTML unescaped (the comment form is
	// base64), so keep it readable for people inspecting a branch file.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, refuse(ErrInvalid, "", "cannot marshal", err)
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(out) > MaxEncoded {
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
	if err := wait.DecodeJSON(data, "", rec, wait.JSONLimits{}, jsontext.AllowInvalidUTF8(true), jsonv2.WithUnmarshalers(notNull)); err != nil {
		// A record of another schema is refused for its schema, whatever
		// else in it this version cannot read.
		var other struct {
			Schema int `json:"schema"`
		}
		if jsonv2.Unmarshal(data, &other) == nil && other.Schema != 0 && other.Schema != Schema {
			return nil, refuse(ErrCorrupt, "schema", fmt.Sprintf("version %d, want %d", other.Schema, Schema), nil)
		}
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	switch rec.Schema {
	case Schema:
	case 0:
		return nil, refuse(ErrCorrupt, "schema", "missing", nil)
	default:
		return nil, refuse(ErrCorrupt, "schema", fmt.Sprintf("version %d, want %d", rec.Schema, Schema), nil)
	}
	c := canonical(rec)
	// Encoding again applies every rule Encode applies, so whatever Decode
	// accepts can be saved back unchanged.
	if _, err := encode(c); err != nil {
		var fe *wait.FieldError
		if errors.As(err, &fe) {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, fe)
		}
		return nil, refuse(ErrCorrupt, "", "cannot encode again", err)
	}
	return c, nil
}

// notNull refuses a null where the record has no pointer (a cursor, a
// string, a time, a list, the open recesses): recess never writes one there.
var notNull = jsonv2.JoinUnmarshalers(
	refuseNull[Cursor](), refuseNull[string](), refuseNull[int](), refuseNull[int64](),
	refuseNull[bool](), refuseNull[time.Time](), refuseNull[[]string](), refuseNull[[]time.Time](),
	refuseNull[map[string]*RFC](),
)

func refuseNull[T any]() *jsonv2.Unmarshalers {
	return jsonv2.UnmarshalFromFunc(func(d *jsontext.Decoder, _ *T) error {
		if d.PeekKind() == 'n' {
			return &wait.FieldError{Reason: "must not be null"}
		}
		return errors.ErrUnsupported
	})
}

// canonical returns a deep copy in the form Encode writes: schema forced,
// times in UTC (without monotonic readings), strings valid UTF-8, triggers
// compacted. Values check refuses (nil map entries, invalid triggers) are
// copied as they are, so check can name them.
func canonical(r *Record) *Record {
	c := &Record{
		Schema:       Schema,
		Discussion:   r.Discussion,
		DiscussionID: text(r.DiscussionID),
		Seen:         cursor(r.Seen),
		Active:       run(r.Active),
		Queued:       queued(r.Queued),
		Escalated:    escalation(r.Escalated),
		Dispatches:   times(r.Dispatches),
		Applied:      texts(r.Applied),
		Commands:     cursor(r.Commands),
		Checked:      r.Checked.UTC(),
		Closed:       text(r.Closed),
		UpdatedAt:    r.UpdatedAt.UTC(),
		Status:       text(r.Status),
		Rev:          r.Rev,
	}
	if r.OpenRFCs != nil {
		c.OpenRFCs = make(map[string]*RFC, len(r.OpenRFCs))
		for id, o := range r.OpenRFCs {
			c.OpenRFCs[id] = rfc(o)
		}
	}
	return c
}

func text(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func texts(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = text(s)
	}
	return out
}

func times(ts []time.Time) []time.Time {
	if ts == nil {
		return nil
	}
	out := make([]time.Time, len(ts))
	for i, t := range ts {
		out[i] = t.UTC()
	}
	return out
}

func cursor(c Cursor) Cursor { return Cursor{At: c.At.UTC(), IDs: texts(c.IDs), All: c.All} }

func run(r *Run) *Run {
	if r == nil {
		return nil
	}
	c := *r
	c.CorrelationID = text(r.CorrelationID)
	c.State = text(r.State)
	c.IntentAt = r.IntentAt.UTC()
	c.DispatchedAt = r.DispatchedAt.UTC()
	c.Since = cursor(r.Since)
	c.Until = cursor(r.Until)
	c.LastError = text(r.LastError)
	c.EyesOn = text(r.EyesOn)
	if r.Resume != nil {
		c.Resume = &Resume{
			CorrelationID: text(r.Resume.CorrelationID),
			FiredBy:       text(r.Resume.FiredBy),
			FiredAt:       r.Resume.FiredAt.UTC(),
			Trigger:       r.Resume.Trigger.Clone(),
			RecessCount:   r.Resume.RecessCount,
		}
	}
	return &c
}

func rfc(o *RFC) *RFC {
	if o == nil {
		return nil
	}
	c := &RFC{
		Trigger:      o.Trigger.Clone(),
		OpenedAt:     o.OpenedAt.UTC(),
		RepliesAfter: cursor(o.RepliesAfter),
		Since:        cursor(o.Since),
		RecessCount:  o.RecessCount,
		ReplyIDs:     texts(o.ReplyIDs),
		ThreadRoots:  texts(o.ThreadRoots),
		Summary:      text(o.Summary),
	}
	if o.DueAt != nil {
		t := o.DueAt.UTC()
		c.DueAt = &t
	}
	if o.CancelAt != nil {
		t := o.CancelAt.UTC()
		c.CancelAt = &t
	}
	return c
}

func queued(q *Queued) *Queued {
	if q == nil {
		return nil
	}
	return &Queued{Until: q.Until.UTC(), Reason: text(q.Reason)}
}

func escalation(e *Escalation) *Escalation {
	if e == nil {
		return nil
	}
	return &Escalation{At: e.At.UTC(), Reason: text(e.Reason)}
}

// check applies the format's rules to a canonical record. Over-bound values
// are ErrTooLarge, anything else ErrInvalid; Decode turns both into
// ErrCorrupt.
func check(r *Record) error {
	invalid := func(field, format string, args ...any) error {
		return refuse(ErrInvalid, field, fmt.Sprintf(format, args...), nil)
	}
	tooMany := func(field string, n, limit int) error {
		return refuse(ErrTooLarge, field, fmt.Sprintf("%d entries, more than %d", n, limit), nil)
	}
	checkTime := func(field string, t time.Time) error {
		if y := t.Year(); y < 0 || y > 9999 {
			return invalid(field, "year %d outside 0..9999", y)
		}
		return nil
	}
	checkCursor := func(field string, c Cursor) error {
		if err := checkTime(field+".at", c.At); err != nil {
			return err
		}
		if len(c.IDs) > MaxCursorIDs {
			return tooMany(field+".ids", len(c.IDs), MaxCursorIDs)
		}
		return nil
	}
	checkTrigger := func(field string, t *wait.Trigger) error {
		if t == nil {
			return nil
		}
		b, err := t.MarshalJSON()
		if err != nil {
			return refuse(ErrInvalid, field, "cannot marshal", err)
		}
		if len(b) > MaxTriggerBytes {
			return refuse(ErrTooLarge, field, fmt.Sprintf("%d bytes, more than %d", len(b), MaxTriggerBytes), nil)
		}
		return nil
	}
	nonNegative := func(field string, n int64) error {
		if n < 0 {
			return invalid(field, "%d is negative", n)
		}
		return nil
	}

	if r.Schema != Schema {
		return invalid("schema", "version %d, want %d", r.Schema, Schema)
	}
	if r.Discussion < 1 {
		return invalid("discussion", "%d is not a discussion number", r.Discussion)
	}
	if err := checkCursor("seen", r.Seen); err != nil {
		return err
	}
	if a := r.Active; a != nil {
		if a.CorrelationID == "" {
			return invalid("active.correlation_id", "empty")
		}
		switch a.State {
		case RunDispatching, RunDispatched, RunEscalated:
		default:
			return invalid("active.state", "unknown state %q", a.State)
		}
		for _, v := range []struct {
			field string
			n     int64
		}{{"active.run_id", a.RunID}, {"active.attempt", int64(a.Attempt)}, {"active.dispatch_errors", int64(a.DispatchErrors)}} {
			if err := nonNegative(v.field, v.n); err != nil {
				return err
			}
		}
		if err := checkTime("active.intent_at", a.IntentAt); err != nil {
			return err
		}
		if err := checkTime("active.dispatched_at", a.DispatchedAt); err != nil {
			return err
		}
		if err := checkCursor("active.since", a.Since); err != nil {
			return err
		}
		if err := checkCursor("active.until", a.Until); err != nil {
			return err
		}
		if rs := a.Resume; rs != nil {
			if rs.CorrelationID == "" {
				return invalid("active.resume.correlation_id", "empty")
			}
			if err := checkTime("active.resume.fired_at", rs.FiredAt); err != nil {
				return err
			}
			if err := checkTrigger("active.resume.trigger", rs.Trigger); err != nil {
				return err
			}
			if err := nonNegative("active.resume.recess_count", int64(rs.RecessCount)); err != nil {
				return err
			}
		}
	}
	if len(r.OpenRFCs) > MaxOpenRFCs {
		return tooMany("open_rfcs", len(r.OpenRFCs), MaxOpenRFCs)
	}
	ids := make([]string, 0, len(r.OpenRFCs))
	for id := range r.OpenRFCs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		field := wait.KeyPath("open_rfcs", id)
		if id == "" || !utf8.ValidString(id) {
			return invalid(field, "key is not a correlation id")
		}
		o := r.OpenRFCs[id]
		if o == nil {
			return invalid(field, "null entry")
		}
		if o.Trigger == nil {
			return invalid(field+".trigger", "missing")
		}
		if err := checkTrigger(field+".trigger", o.Trigger); err != nil {
			return err
		}
		if err := checkTime(field+".opened_at", o.OpenedAt); err != nil {
			return err
		}
		if err := checkCursor(field+".replies_after", o.RepliesAfter); err != nil {
			return err
		}
		if err := checkCursor(field+".since", o.Since); err != nil {
			return err
		}
		if o.DueAt != nil {
			if err := checkTime(field+".due_at", *o.DueAt); err != nil {
				return err
			}
		}
		if o.CancelAt != nil {
			if err := checkTime(field+".cancel_at", *o.CancelAt); err != nil {
				return err
			}
		}
		if err := nonNegative(field+".recess_count", int64(o.RecessCount)); err != nil {
			return err
		}
		if len(o.ReplyIDs) > MaxReplyIDs {
			return tooMany(field+".reply_ids", len(o.ReplyIDs), MaxReplyIDs)
		}
		// Every thread root holds at least one of the replies.
		if len(o.ThreadRoots) > MaxReplyIDs {
			return tooMany(field+".thread_roots", len(o.ThreadRoots), MaxReplyIDs)
		}
	}
	if q := r.Queued; q != nil {
		if err := checkTime("queued.since", q.Until); err != nil {
			return err
		}
	}
	if e := r.Escalated; e != nil {
		if err := checkTime("escalated.at", e.At); err != nil {
			return err
		}
	}
	if len(r.Dispatches) > MaxDispatchTimes {
		return tooMany("dispatches", len(r.Dispatches), MaxDispatchTimes)
	}
	for i, t := range r.Dispatches {
		if err := checkTime(wait.IndexPath("dispatches", i), t); err != nil {
			return err
		}
	}
	if len(r.Applied) > MaxApplied {
		return tooMany("applied", len(r.Applied), MaxApplied)
	}
	if err := checkCursor("commands", r.Commands); err != nil {
		return err
	}
	if err := checkTime("checked", r.Checked); err != nil {
		return err
	}
	return checkTime("updated_at", r.UpdatedAt)
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
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 3)
	rest := text
	for {
		i := strings.Index(rest, markerWord)
		if i < 0 {
			break
		}
		after := rest[i+len(markerWord):]
		b.WriteString(rest[:i+len("recess")])
		for _, k := range markerKinds {
			if strings.HasPrefix(after, k) {
				b.WriteString("\u2060")
				break
			}
		}
		b.WriteByte(':')
		rest = after
	}
	b.WriteString(rest)
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
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// wrappedLen is the length of the wrapped base64 of n bytes.
func wrappedLen(n int) int {
	b := base64.StdEncoding.EncodedLen(n)
	if b == 0 {
		return 0
	}
	return b + (b-1)/wrapColumns
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
	b.Grow(len(visible) + 2 + len(stateHeader) + wrappedLen(len(data)) + len(stateFooter))
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

// CommentCapacity is the largest encoded record, in bytes, that EncodeComment
// can put behind this visible text within MaxCommentBody (and MaxEncoded).
func CommentCapacity(visible string) int {
	visible = cleanVisible(visible)
	overhead := len(stateHeader) + len(stateFooter)
	if visible != "" {
		overhead += commentLen(visible) + 2
	}
	avail := MaxCommentBody - overhead
	if avail <= 0 {
		return 0
	}
	n := min(avail/4*3, MaxEncoded)
	for n > 0 && wrappedLen(n) > avail {
		n--
	}
	return n
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
	rest := body[i+len(stateMarker):]
	end := strings.Index(rest, markerClose)
	if end < 0 {
		return corrupt("marker is not closed", nil)
	}
	rest = rest[:end]
	version, payload, ok := strings.Cut(strings.TrimLeft(rest, " \t"), "\n")
	if version = strings.TrimRight(version, " \t\r"); !ok || version != stateVersion {
		return corrupt(fmt.Sprintf("unsupported marker version %.20q", version), nil)
	}
	payload = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\r', '\n', '\f', '\v':
			return -1
		}
		return r
	}, payload)
	if len(payload) > base64.StdEncoding.EncodedLen(MaxEncoded) {
		return corrupt(fmt.Sprintf("payload of %d characters, more than %d", len(payload), base64.StdEncoding.EncodedLen(MaxEncoded)), nil)
	}
	data, err := base64.StdEncoding.Strict().DecodeString(payload)
	if err != nil {
		return corrupt("payload is not base64", err)
	}
	rec, err = Decode(data)
	if err != nil {
		return nil, true, err
	}
	return rec, true, nil
}

// markerToken spells an id inside a marker: as it is when it is made of
// [A-Za-z0-9._-] (GitHub node ids and recess's correlation ids are), else
// "b64:" and its base64, which cannot contain a space or close the comment.
func markerToken(id string) string {
	plain := id != ""
	for i := 0; i < len(id) && plain; i++ {
		c := id[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	if plain {
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

// lastMarker returns the words of the last marker of that kind in body.
func lastMarker(body, kind string) ([]string, bool) {
	open := markerOpen + kind + " "
	i := strings.LastIndex(body, open)
	if i < 0 {
		return nil, false
	}
	rest := body[i+len(open):]
	end := strings.Index(rest, markerClose)
	if end < 0 {
		return nil, false
	}
	return strings.Fields(rest[:end]), true
}

// ReplyMarker is the hidden marker recess appends to each reply it posts for
// a verdict, so that a re-run finds the reply and never posts it twice.
// index is the reply's position in the verdict (0 or more).
func ReplyMarker(correlationID string, index int) string {
	return markerOpen + replyKind + " " + markerToken(correlationID) + " " + strconv.Itoa(index) + " " + markerClose
}

// ParseReplyMarker reads the last reply marker in body.
func ParseReplyMarker(body string) (correlationID string, index int, ok bool) {
	words, ok := lastMarker(body, replyKind)
	if !ok || len(words) != 2 {
		return "", 0, false
	}
	cid, ok := parseMarkerToken(words[0])
	if !ok {
		return "", 0, false
	}
	for _, c := range []byte(words[1]) {
		if c < '0' || c > '9' {
			return "", 0, false
		}
	}
	index, err := strconv.Atoi(words[1])
	if err != nil {
		return "", 0, false
	}
	return cid, index, true
}

// RecessMarker is a hidden marker that carries a copy of a record holding
// one open recess (its trigger, opening moment and history cursor, and the
// discussion's number), appended by recess to the last reply a recessed
// verdict posts, right after that reply's own marker (ReplyBody). When the
// status comment that held the record is deleted, the recess is restored
// from it. Its payload is base64, so no value can close the comment early.
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
// keep is a copy of a recess (RecessMarker) and the whole still fits in a
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

// ParseRecessMarker reads the copy of an open recess in one of recess's
// replies, only where recess puts it (ReplyBody): at the very end of the
// body, right after the reply's own marker, holding one open recess keyed
// by that reply's correlation id. A recess marker anywhere else (quoted,
// planted before recess's own marker, in a note or a status comment) is not
// a copy recess kept; ok is false then, and when it cannot be read.
func ParseRecessMarker(body string) (rec *Record, ok bool) {
	body = strings.TrimRight(body, " \t\r\n")
	open := markerOpen + recessKind + " "
	i := strings.LastIndex(body, open)
	if i < 0 || !strings.HasSuffix(body, markerClose) || strings.Index(body[i:], markerClose) != len(body)-i-len(markerClose) {
		return nil, false
	}
	head := strings.TrimRight(body[:i], " \t\r\n")
	cid, index, ok := ParseReplyMarker(head)
	if !ok || !strings.HasSuffix(head, ReplyMarker(cid, index)) {
		return nil, false
	}
	words, ok := lastMarker(body, recessKind)
	if !ok || len(words) != 2 || words[0] != stateVersion || len(words[1]) > base64.StdEncoding.EncodedLen(MaxEncoded) {
		return nil, false
	}
	data, err := base64.StdEncoding.Strict().DecodeString(words[1])
	if err != nil {
		return nil, false
	}
	rec, err = Decode(data)
	if err != nil || len(rec.OpenRFCs) != 1 || rec.OpenRFCs[cid] == nil {
		return nil, false
	}
	return rec, true
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
