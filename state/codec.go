package state

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/resume/wait/strictjson"
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

// RecordError says what is wrong with a record and where. Err is ErrCorrupt
// (Decode, DecodeComment), ErrTooLarge or ErrInvalid (Encode, EncodeComment);
// errors.Is sees both Err and Cause.
type RecordError struct {
	Err error
	// Field is the path of the offending value, e.g. open_rfcs["c-1"].opened_at;
	// empty when the record as a whole is at fault.
	Field string
	// Reason says what is wrong with it, for people.
	Reason string
	// Cause is the underlying error, if any.
	Cause error
}

// Error returns "state: corrupt record: FIELD: REASON: CAUSE".
func (e *RecordError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	if e.Cause != nil {
		b.WriteString(": ")
		b.WriteString(e.Cause.Error())
	}
	return b.String()
}

// Unwrap returns the sentinel and the cause.
func (e *RecordError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Cause}
}

// Encode returns the record's wire form: compact JSON, fields in declaration
// order and map keys sorted so equal records give equal bytes, the schema
// forced to Schema, times in UTC, and strings as valid UTF-8 (a run of invalid
// bytes becomes U+FFFD, as JSON cannot carry it). Rev is not part of it. A record over a bound (MaxOpenRFCs, MaxApplied, MaxDispatchTimes,
// MaxCursorIDs, MaxReplyIDs for reply ids and thread roots, MaxTriggerBytes,
// MaxEncoded) is refused with a *RecordError wrapping ErrTooLarge; one that
// breaks another rule with ErrInvalid. rec itself is not changed.
func Encode(rec *Record) ([]byte, error) {
	if rec == nil {
		return nil, &RecordError{Err: ErrInvalid, Reason: "nil record"}
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
		return nil, &RecordError{Err: ErrInvalid, Reason: "cannot marshal", Cause: err}
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(out) > MaxEncoded {
		return nil, &RecordError{Err: ErrTooLarge, Reason: fmt.Sprintf("encoded record of %d bytes, more than %d", len(out), MaxEncoded)}
	}
	return out, nil
}

// Decode reads a record's wire form strictly: unknown or duplicate fields,
// wrong types, a missing or other schema, trailing data, invalid UTF-8, a
// trigger that is not a JSON object, a value outside the rules Encode checks
// — each is a *RecordError wrapping ErrCorrupt that names the field. Input
// over MaxEncoded is refused before it is read. A record Decode accepts
// encodes again, and decodes to the same value. Times come back in UTC.
func Decode(data []byte) (*Record, error) {
	if len(data) > MaxEncoded {
		return nil, &RecordError{Err: ErrCorrupt, Reason: fmt.Sprintf("%d bytes, more than %d", len(data), MaxEncoded)}
	}
	if !utf8.Valid(data) {
		return nil, &RecordError{Err: ErrCorrupt, Reason: "not valid UTF-8"}
	}
	// Recess never writes an unpaired surrogate escape; one in a record
	// reads as U+FFFD, as it always has.
	p := &parser{d: strictjson.NewDecoder(data, "", strictjson.Limits{ReplaceLoneSurrogates: true})}
	rec, err := p.record()
	if err != nil {
		return nil, corrupt(err)
	}
	c := canonical(rec)
	// Encoding again applies every rule Encode applies, so whatever Decode
	// accepts can be saved back unchanged.
	if _, err := encode(c); err != nil {
		var re *RecordError
		if errors.As(err, &re) {
			return nil, &RecordError{Err: ErrCorrupt, Field: re.Field, Reason: re.Reason, Cause: re.Cause}
		}
		return nil, &RecordError{Err: ErrCorrupt, Reason: "cannot encode again", Cause: err}
	}
	return c, nil
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
		return &RecordError{Err: ErrInvalid, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	tooMany := func(field string, n, limit int) error {
		return &RecordError{Err: ErrTooLarge, Field: field, Reason: fmt.Sprintf("%d entries, more than %d", n, limit)}
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
			return &RecordError{Err: ErrInvalid, Field: field, Reason: "cannot marshal", Cause: err}
		}
		if len(b) > MaxTriggerBytes {
			return &RecordError{Err: ErrTooLarge, Field: field, Reason: fmt.Sprintf("%d bytes, more than %d", len(b), MaxTriggerBytes)}
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
		field := strictjson.KeyPath("open_rfcs", id)
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
		if err := checkTime(strictjson.IndexPath("dispatches", i), t); err != nil {
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

// parser reads the wire form with the strict decoder, so that nothing is
// matched loosely (encoding/json alone folds case, keeps the last of
// duplicate fields and says little about where a nested value went wrong);
// every refusal names its field by the decoder's path.
type parser struct {
	d *strictjson.Decoder
}

// fail refuses the value just read.
func (p *parser) fail(reason string, cause error) error {
	return &RecordError{Err: ErrCorrupt, Field: p.d.Path(), Reason: reason, Cause: cause}
}

// corrupt returns a refusal of the decoder as the *RecordError naming the
// same field; the parser's own errors come back as they are.
func corrupt(err error) error {
	if se, ok := err.(*strictjson.Error); ok {
		return &RecordError{Err: ErrCorrupt, Field: se.Path, Reason: se.Reason, Cause: se.Err}
	}
	return err
}

func (p *parser) unknown() error { return p.fail("unknown field", nil) }

func (p *parser) str() (string, error) { return p.d.String() }

func (p *parser) boolean() (bool, error) { return p.d.Bool() }

func (p *parser) integer() (int64, error) {
	n, err := p.d.Number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return 0, p.fail("must be an integer", err)
	}
	return v, nil
}

func (p *parser) int() (int, error) {
	v, err := p.integer()
	if err != nil {
		return 0, err
	}
	if int64(int(v)) != v {
		return 0, p.fail("integer out of range", nil)
	}
	return int(v), nil
}

func (p *parser) time() (time.Time, error) {
	s, err := p.d.String()
	if err != nil {
		return time.Time{}, err
	}
	var t time.Time
	// UnmarshalText is what encoding/json itself uses: strict RFC 3339.
	if err := t.UnmarshalText([]byte(s)); err != nil {
		return time.Time{}, p.fail("must be an RFC 3339 time", err)
	}
	return t.UTC(), nil
}

// optionalTime reads an RFC 3339 time or null.
func (p *parser) optionalTime() (*time.Time, error) {
	if p.d.Null() {
		return nil, nil
	}
	t, err := p.time()
	if err != nil {
		return nil, err
	}
	return &t, nil
}

func (p *parser) strings() ([]string, error) {
	var out []string
	err := p.d.Array(func(int) error {
		s, err := p.d.String()
		out = append(out, s)
		return err
	})
	return out, err
}

func (p *parser) times() ([]time.Time, error) {
	var out []time.Time
	err := p.d.Array(func(int) error {
		t, err := p.time()
		out = append(out, t)
		return err
	})
	return out, err
}

// trigger reads a trigger and validates it: one that does not parse makes
// the record corrupt, named by its field.
func (p *parser) trigger() (*wait.Trigger, error) {
	raw, err := p.d.Raw()
	if err != nil {
		return nil, err
	}
	t, err := wait.ParseTrigger(raw, wait.TriggerLimits{})
	if err != nil {
		return nil, p.fail("not a valid trigger", err)
	}
	return t, nil
}

func (p *parser) record() (*Record, error) {
	r := &Record{}
	sawSchema := false
	err := p.d.Document(func(key string) error {
		var err error
		switch key {
		case "schema":
			sawSchema = true
			if r.Schema, err = p.int(); err == nil && r.Schema != Schema {
				err = p.fail(fmt.Sprintf("version %d, want %d", r.Schema, Schema), nil)
			}
		case "discussion":
			r.Discussion, err = p.int()
		case "discussion_id":
			r.DiscussionID, err = p.str()
		case "seen":
			r.Seen, err = p.cursor()
		case "active":
			r.Active, err = p.run()
		case "open_rfcs":
			r.OpenRFCs, err = p.rfcs()
		case "queued":
			r.Queued, err = p.queued()
		case "escalated":
			r.Escalated, err = p.escalation()
		case "dispatches":
			r.Dispatches, err = p.times()
		case "applied":
			r.Applied, err = p.strings()
		case "commands":
			r.Commands, err = p.cursor()
		case "checked":
			r.Checked, err = p.time()
		case "closed":
			r.Closed, err = p.str()
		case "updated_at":
			r.UpdatedAt, err = p.time()
		case "status":
			r.Status, err = p.str()
		default:
			err = p.unknown()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !sawSchema {
		return nil, &RecordError{Err: ErrCorrupt, Field: "schema", Reason: "missing"}
	}
	return r, nil
}

func (p *parser) cursor() (Cursor, error) {
	var c Cursor
	err := p.d.Object(func(key string) error {
		var err error
		switch key {
		case "at":
			c.At, err = p.time()
		case "ids":
			c.IDs, err = p.strings()
		case "all":
			c.All, err = p.boolean()
		default:
			err = p.unknown()
		}
		return err
	})
	return c, err
}

func (p *parser) run() (*Run, error) {
	if p.d.Null() {
		return nil, nil
	}
	r := &Run{}
	err := p.d.Object(func(key string) error {
		var err error
		switch key {
		case "correlation_id":
			r.CorrelationID, err = p.str()
		case "state":
			r.State, err = p.str()
		case "run_id":
			r.RunID, err = p.integer()
		case "claimed":
			r.Claimed, err = p.boolean()
		case "intent_at":
			r.IntentAt, err = p.time()
		case "dispatched_at":
			r.DispatchedAt, err = p.time()
		case "since":
			r.Since, err = p.cursor()
		case "until":
			r.Until, err = p.cursor()
		case "resume":
			r.Resume, err = p.resume()
		case "attempt":
			r.Attempt, err = p.int()
		case "dispatch_errors":
			r.DispatchErrors, err = p.int()
		case "last_error":
			r.LastError, err = p.str()
		case "eyes_on":
			r.EyesOn, err = p.str()
		default:
			err = p.unknown()
		}
		return err
	})
	return r, err
}

func (p *parser) resume() (*Resume, error) {
	if p.d.Null() {
		return nil, nil
	}
	r := &Resume{}
	err := p.d.Object(func(key string) error {
		var err error
		switch key {
		case "correlation_id":
			r.CorrelationID, err = p.str()
		case "fired_by":
			r.FiredBy, err = p.str()
		case "fired_at":
			r.FiredAt, err = p.time()
		case "trigger":
			r.Trigger, err = p.trigger()
		case "recess_count":
			r.RecessCount, err = p.int()
		default:
			err = p.unknown()
		}
		return err
	})
	return r, err
}

// rfcs reads the open recesses, keyed by correlation id.
func (p *parser) rfcs() (map[string]*RFC, error) {
	out := make(map[string]*RFC)
	err := p.d.Entries(func(id string) error {
		if p.d.Null() {
			return p.fail("null entry", nil)
		}
		o, err := p.rfc()
		out[id] = o
		return err
	})
	return out, err
}

func (p *parser) rfc() (*RFC, error) {
	o := &RFC{}
	err := p.d.Object(func(key string) error {
		var err error
		switch key {
		case "trigger":
			o.Trigger, err = p.trigger()
		case "opened_at":
			o.OpenedAt, err = p.time()
		case "replies_after":
			o.RepliesAfter, err = p.cursor()
		case "since":
			o.Since, err = p.cursor()
		case "due_at":
			o.DueAt, err = p.optionalTime()
		case "cancel_at":
			o.CancelAt, err = p.optionalTime()
		case "recess_count":
			o.RecessCount, err = p.int()
		case "reply_ids":
			o.ReplyIDs, err = p.strings()
		case "thread_roots":
			o.ThreadRoots, err = p.strings()
		case "summary":
			o.Summary, err = p.str()
		default:
			err = p.unknown()
		}
		return err
	})
	return o, err
}

func (p *parser) queued() (*Queued, error) {
	if p.d.Null() {
		return nil, nil
	}
	q := &Queued{}
	err := p.d.Object(func(key string) error {
		var err error
		switch key {
		case "since":
			q.Until, err = p.time()
		case "reason":
			q.Reason, err = p.str()
		default:
			err = p.unknown()
		}
		return err
	})
	return q, err
}

func (p *parser) escalation() (*Escalation, error) {
	if p.d.Null() {
		return nil, nil
	}
	e := &Escalation{}
	err := p.d.Object(func(key string) error {
		var err error
		switch key {
		case "at":
			e.At, err = p.time()
		case "reason":
			e.Reason, err = p.str()
		default:
			err = p.unknown()
		}
		return err
	})
	return e, err
}

// Markers recess leaves in comment bodies. All are HTML comments, so people
// reading the discussion never see them, and all are recognised by their
// exact spelling only.
const (
	markerOpen  = "<!-- recess:"
	markerClose = "-->"
	stateMarker = markerOpen + "state"
	// stateVersion is the version of the hidden-comment wrapping (the record
	// inside carries its own schema).
	stateVersion = "v1"
	replyKind    = "reply"
	// wrapColumns keeps the hidden payload's lines short, as MIME does, so
	// the body stays readable in an editor.
	wrapColumns = 76
)

// markerWords are the words that make a marker; Neutralize breaks them in
// text recess did not write. "recess:answer" is reserved: no marker uses it
// today, and no text recess posts for others may start using it.
var markerWords = []string{"recess:state", "recess:reply", "recess:answer"}

// Neutralize returns text in which no recess marker can be recognised: a
// WORD JOINER (U+2060, invisible) goes between "recess" and ":" in each
// marker word. Use it on any text recess posts but did not write (an agent's
// reply, a summary) so that only recess's own marker counts.
func Neutralize(text string) string {
	for _, w := range markerWords {
		if strings.Contains(text, w) {
			text = strings.ReplaceAll(text, w, "recess\u2060"+w[len("recess"):])
		}
	}
	return text
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
		return "", &RecordError{Err: ErrTooLarge, Reason: fmt.Sprintf("comment body of %d characters, more than %d", n, MaxCommentBody)}
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
		return nil, true, &RecordError{Err: ErrCorrupt, Reason: "hidden record: " + reason, Cause: cause}
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

// recessKind marks a copy of an open recess in one of recess's own replies.
const recessKind = "recess"

// RecessMarker is a hidden marker that carries a copy of a record holding
// one open recess (its trigger, opening moment and history cursor, and the
// discussion's number), appended by recess to the last reply a recessed
// verdict posts. When the status comment that held the record is deleted,
// the recess is restored from it. Its payload is base64, so no value can
// close the comment early.
func RecessMarker(rec *Record) (string, error) {
	data, err := Encode(rec)
	if err != nil {
		return "", err
	}
	return markerOpen + recessKind + " " + stateVersion + " " + base64.StdEncoding.EncodeToString(data) + " " + markerClose, nil
}

// ParseRecessMarker reads the last recess marker in body; ok is false when
// there is none or it cannot be read.
func ParseRecessMarker(body string) (rec *Record, ok bool) {
	words, ok := lastMarker(body, recessKind)
	if !ok || len(words) != 2 || words[0] != stateVersion || len(words[1]) > base64.StdEncoding.EncodedLen(MaxEncoded) {
		return nil, false
	}
	data, err := base64.StdEncoding.Strict().DecodeString(words[1])
	if err != nil {
		return nil, false
	}
	rec, err = Decode(data)
	if err != nil {
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
