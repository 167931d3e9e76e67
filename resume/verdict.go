package resume

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// Verdict kinds.
const (
	VerdictAdjourned = "adjourned"
	VerdictRecessed  = "recessed"
)

// Bounds on a verdict, so a hostile or broken agent cannot make recess post
// without end or store without bound.
const (
	MaxVerdictBytes = 1 << 20
	MaxReplies      = 10
	// MaxReplyBody leaves room in GitHub's 65,536-character comment body for
	// the hidden marker recess appends to every reply.
	MaxReplyBody = 65536 - 512
	MaxSummary   = 4096
	MaxIDLength  = 128
)

// maxDiscussionNumber is GraphQL's Int range: a larger number cannot name a
// discussion, so it is refused here rather than failing later at GitHub.
const maxDiscussionNumber = 1<<31 - 1

// Verdict is the agent's answer for one run.
type Verdict struct {
	Verdict          string
	CorrelationID    string
	DiscussionNumber int
	Replies          []VerdictReply
	// Trigger is set for a recessed verdict; TriggerJSON is its canonical form.
	Trigger     *wait.Trigger
	TriggerJSON []byte
	Summary     string
}

// VerdictReply is one reply the verdict asks recess to post.
type VerdictReply struct {
	Body    string
	ReplyTo string // node id of a comment; "" for a top-level comment
}

// ParseVerdict decodes and validates a verdict document strictly: every
// problem is a *FieldError naming the field ("verdict.replies[2].body",
// "trigger.of[0].elapsed"). Nothing about the verdict is trusted before it
// passes.
//
// A JSON null counts as the field being absent (as in a trigger document);
// a field that is present must have its type ("12" is not a number). The
// trigger is parsed last, with lim, and its *FieldError is returned as is.
func ParseVerdict(data []byte, lim wait.TriggerLimits) (*Verdict, error) {
	if len(data) > MaxVerdictBytes {
		return nil, &wait.FieldError{Field: "verdict", Reason: "longer than " + strconv.Itoa(MaxVerdictBytes) + " bytes"}
	}
	fields, err := decodeObject(data, "verdict", "verdict", "correlation_id", "discussion_number", "replies", "trigger", "summary")
	if err != nil {
		return nil, err
	}
	// Agents write "trigger": null for "no trigger"; it must not read as one.
	dropNulls(fields)
	v := &Verdict{}

	raw, ok := fields["verdict"]
	if !ok {
		return nil, &wait.FieldError{Field: "verdict.verdict", Reason: "missing"}
	}
	if v.Verdict, err = decodeString(raw, "verdict.verdict"); err != nil {
		return nil, err
	}
	rawTrigger, hasTrigger := fields["trigger"]
	switch v.Verdict {
	case VerdictRecessed:
		if !hasTrigger {
			return nil, &wait.FieldError{Field: "verdict.trigger", Reason: "missing: a recessed verdict needs a trigger"}
		}
	case VerdictAdjourned:
		if hasTrigger {
			return nil, &wait.FieldError{Field: "verdict.trigger", Reason: "not allowed: an adjourned verdict has no trigger"}
		}
	default:
		return nil, &wait.FieldError{Field: "verdict.verdict", Reason: "must be " + quote(VerdictAdjourned) + " or " + quote(VerdictRecessed)}
	}

	raw, ok = fields["correlation_id"]
	if !ok {
		return nil, &wait.FieldError{Field: "verdict.correlation_id", Reason: "missing"}
	}
	if v.CorrelationID, err = decodeString(raw, "verdict.correlation_id"); err != nil {
		return nil, err
	}
	if err := checkID(v.CorrelationID, "verdict.correlation_id", isCorrelationIDByte, "A-Z a-z 0-9 . _ -"); err != nil {
		return nil, err
	}

	raw, ok = fields["discussion_number"]
	if !ok {
		return nil, &wait.FieldError{Field: "verdict.discussion_number", Reason: "missing"}
	}
	if v.DiscussionNumber, err = decodePositiveInt(raw, "verdict.discussion_number", maxDiscussionNumber); err != nil {
		return nil, err
	}

	if raw, ok := fields["replies"]; ok {
		if v.Replies, err = decodeReplies(raw); err != nil {
			return nil, err
		}
	}

	if raw, ok := fields["summary"]; ok {
		if v.Summary, err = decodeString(raw, "verdict.summary"); err != nil {
			return nil, err
		}
		if err := checkText(v.Summary, "verdict.summary", MaxSummary); err != nil {
			return nil, err
		}
	}

	// The trigger goes last so that every other field is judged without it,
	// and its errors keep the trigger's own paths ("trigger.of[0].elapsed").
	if v.Verdict == VerdictRecessed {
		t, err := wait.ParseTrigger(rawTrigger, lim)
		if err != nil {
			var fe *wait.FieldError
			if errors.As(err, &fe) {
				return nil, err
			}
			return nil, &wait.FieldError{Field: "trigger", Reason: "invalid", Err: err}
		}
		canonical, err := json.Marshal(t)
		if err != nil {
			return nil, &wait.FieldError{Field: "trigger", Reason: "cannot be encoded", Err: err}
		}
		v.Trigger, v.TriggerJSON = t, canonical
	}
	return v, nil
}

// decodeReplies decodes the replies list, stopping at the first element past
// MaxReplies so a huge list costs no more than a short one.
func decodeReplies(raw json.RawMessage) ([]VerdictReply, error) {
	const path = "verdict.replies"
	if len(raw) == 0 || raw[0] != '[' {
		return nil, &wait.FieldError{Field: path, Reason: "must be a list"}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
	}
	var replies []VerdictReply
	for i := 0; dec.More(); i++ {
		if i == MaxReplies {
			return nil, &wait.FieldError{Field: path, Reason: "more than " + strconv.Itoa(MaxReplies) + " replies"}
		}
		var item json.RawMessage
		if err := dec.Decode(&item); err != nil {
			return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
		}
		r, err := decodeReply(item, path+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		replies = append(replies, r)
	}
	return replies, nil
}

func decodeReply(raw json.RawMessage, path string) (VerdictReply, error) {
	fields, err := decodeObject(raw, path, "body", "reply_to")
	if err != nil {
		return VerdictReply{}, err
	}
	dropNulls(fields)
	var r VerdictReply
	b, ok := fields["body"]
	if !ok {
		return r, &wait.FieldError{Field: path + ".body", Reason: "missing"}
	}
	if r.Body, err = decodeString(b, path+".body"); err != nil {
		return r, err
	}
	if strings.TrimSpace(r.Body) == "" {
		return r, &wait.FieldError{Field: path + ".body", Reason: "empty"}
	}
	if err := checkText(r.Body, path+".body", MaxReplyBody); err != nil {
		return r, err
	}
	// recess posts the body with its marker words broken (each one a
	// character longer): that, too, must fit, or GitHub would refuse the
	// post after earlier replies went out.
	if n := utf8.RuneCountInString(state.Neutralize(r.Body)); n > MaxReplyBody {
		return r, &wait.FieldError{Field: path + ".body", Reason: "longer than " + strconv.Itoa(MaxReplyBody) + " characters once the recess marker words in it are broken (" + strconv.Itoa(n) + ")"}
	}
	if to, ok := fields["reply_to"]; ok {
		if r.ReplyTo, err = decodeString(to, path+".reply_to"); err != nil {
			return r, err
		}
		if err := checkID(r.ReplyTo, path+".reply_to", isNodeIDByte, "A-Z a-z 0-9 _ = -"); err != nil {
			return r, err
		}
	}
	return r, nil
}

// decodeObject reads one JSON object whose keys must be among known and
// appear at most once (encoding/json would silently keep the last duplicate
// and match keys case-insensitively, both of which let two readers of one
// verdict disagree). Anything after the object is refused.
func decodeObject(data []byte, path string, known ...string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, &wait.FieldError{Field: path, Reason: "must be a JSON object"}
	}
	fields := make(map[string]json.RawMessage, len(known))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
		}
		key, _ := tok.(string)
		if !slices.Contains(known, key) {
			return nil, &wait.FieldError{Field: memberPath(path, key), Reason: "unknown field"}
		}
		if _, dup := fields[key]; dup {
			return nil, &wait.FieldError{Field: path + "." + key, Reason: "duplicate key"}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
		}
		fields[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &wait.FieldError{Field: path, Reason: "trailing data after the object", Err: err}
	}
	return fields, nil
}

// dropNulls removes the fields whose value is JSON null, which counts as the
// field being absent.
func dropNulls(fields map[string]json.RawMessage) {
	for k, raw := range fields {
		if string(raw) == "null" {
			delete(fields, k)
		}
	}
}

// decodeString decodes a JSON string value, refusing what encoding/json
// would silently repair: invalid UTF-8 and unpaired surrogate escapes both
// become U+FFFD there, which would post text the agent never wrote.
func decodeString(raw json.RawMessage, path string) (string, error) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", &wait.FieldError{Field: path, Reason: "must be a string"}
	}
	if !utf8.Valid(raw) || hasLoneSurrogate(raw) {
		return "", &wait.FieldError{Field: path, Reason: "not valid UTF-8"}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &wait.FieldError{Field: path, Reason: "not valid JSON", Err: err}
	}
	return s, nil
}

// hasLoneSurrogate reports whether a syntactically valid JSON string holds a
// \u escape of a surrogate that is not part of a high-low pair.
func hasLoneSurrogate(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if i >= len(raw) || raw[i] != 'u' {
			continue
		}
		r, ok := hex4(raw, i+1)
		if !ok {
			return true
		}
		i += 4
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+2 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
				return true
			}
			low, ok := hex4(raw, i+3)
			if !ok || low < 0xDC00 || low > 0xDFFF {
				return true
			}
			i += 6
		}
	}
	return false
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[at:at+4]), 16, 32)
	return rune(n), err == nil
}

// decodePositiveInt accepts only the plain digits of a positive integer:
// 12.5, 1e1, "12", 0 and -3 are all refused rather than rounded or coerced.
func decodePositiveInt(raw json.RawMessage, path string, max int) (int, error) {
	s := string(raw)
	if s == "" || s[0] == '"' {
		return 0, &wait.FieldError{Field: path, Reason: "must be a positive integer, not a string"}
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, &wait.FieldError{Field: path, Reason: "must be a positive integer"}
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > max {
		return 0, &wait.FieldError{Field: path, Reason: "larger than " + strconv.Itoa(max), Err: err}
	}
	if n < 1 {
		return 0, &wait.FieldError{Field: path, Reason: "must be a positive integer"}
	}
	return n, nil
}

// checkID bounds an identifier to 1..MaxIDLength bytes of an allowed set, so
// it can sit in a hidden marker, a run-name or a GraphQL variable unescaped.
func checkID(s, path string, allowed func(byte) bool, set string) error {
	if s == "" {
		return &wait.FieldError{Field: path, Reason: "empty"}
	}
	if len(s) > MaxIDLength {
		return &wait.FieldError{Field: path, Reason: "longer than " + strconv.Itoa(MaxIDLength) + " characters"}
	}
	for i := 0; i < len(s); i++ {
		if !allowed(s[i]) {
			return &wait.FieldError{Field: path, Reason: "may only hold " + set}
		}
	}
	return nil
}

// checkText bounds free text in runes (what a person would call characters)
// and refuses NUL, which GitHub and logs treat as the end of the text.
func checkText(s, path string, maxRunes int) error {
	if !utf8.ValidString(s) {
		return &wait.FieldError{Field: path, Reason: "not valid UTF-8"}
	}
	if strings.IndexByte(s, 0) >= 0 {
		return &wait.FieldError{Field: path, Reason: "contains NUL"}
	}
	if n := utf8.RuneCountInString(s); n > maxRunes {
		return &wait.FieldError{Field: path, Reason: "longer than " + strconv.Itoa(maxRunes) + " characters"}
	}
	return nil
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isCorrelationIDByte(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '-'
}

func isNodeIDByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '=' || c == '-'
}

// memberPath names a member of an object as the trigger's paths do: a key
// that is not a plain identifier is quoted and clipped, so a hostile key can
// neither forge a path nor flood an annotation.
func memberPath(path, key string) string {
	plain := key != "" && len(key) <= 64
	for i := 0; i < len(key) && plain; i++ {
		plain = isAlnum(key[i]) || key[i] == '_' || key[i] == '-'
	}
	if plain {
		return path + "." + key
	}
	if r := []rune(key); len(r) > 64 {
		key = string(r[:64]) + "…"
	}
	return path + "[" + quote(key) + "]"
}

// quote renders s as a JSON string, as field paths show keys.
func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// ParseVerdict parses a verdict under the engine's policy (max-recess,
// allowed trigger kinds), with the recess opening now.
func (e *Engine) ParseVerdict(data []byte) (*Verdict, error) {
	c := e.cfg()
	return ParseVerdict(data, wait.TriggerLimits{MaxRecess: c.MaxRecess, At: e.Clock.Now().UTC(), AllowedKinds: c.AllowedKinds})
}

// Verdict applies an agent's verdict. runID is the GitHub run the verdict
// comes from (0 when unknown). Everything is validated before any side
// effect: a verdict for another run than the active one is refused (stale or
// duplicate) with an error wrapping ErrRefused; a verdict already applied is
// a no-op, so a re-delivered verdict changes nothing.
//
// Replies are posted first, each with a hidden marker of the correlation id
// and its index, so a re-run of the step never posts twice (the record keeps
// their ids and timestamps: they are the one effect before the write); then
// the record is written (the run ends; a recessed verdict opens its recess);
// then the EYES acknowledgement is removed.
//
// A verdict that leaves nothing pending looks at the discussion once more
// after its write. A comment written while the verdict worked may have had
// its inbound run see the agent run still active (so it only accumulated),
// while the verdict read the discussion before it: with nothing pending no
// sweep would come back for it. Any inbound run that starts after the write
// sees the run over, so this second look closes the gap.
func (e *Engine) Verdict(ctx context.Context, v *Verdict, runID int64) (*Result, error) {
	idle := false
	res, err := e.run(ctx, v.DiscussionNumber, passOpts{command: "verdict", discussion: true}, func(p *pass) error {
		err := p.verdict(v, runID)
		idle = err == nil && !p.isNew && !p.rec.Pending()
		return err
	})
	if err != nil || !idle {
		return res, err
	}
	again, err := e.run(ctx, v.DiscussionNumber, passOpts{command: "verdict", discussion: true}, (*pass).reconcile)
	res.Notes = append(res.Notes, again.Notes...)
	res.Warnings = append(res.Warnings, again.Warnings...)
	if again.Dispatched {
		// The outputs name the dispatch, as when the verdict's own pass
		// starts one.
		res.Dispatched, res.CorrelationID = true, again.CorrelationID
	}
	if err != nil {
		return res, fmt.Errorf("look again at discussion %d after the verdict: %w", v.DiscussionNumber, err)
	}
	return res, nil
}

func refuse(field, format string, args ...any) error {
	return fmt.Errorf("%w: %w", ErrRefused, &wait.FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
}

func (p *pass) verdict(v *Verdict, runID int64) error {
	for _, id := range p.rec.Applied {
		if id == v.CorrelationID {
			p.res.note("verdict %s was already applied: nothing to do", v.CorrelationID)
			p.res.CorrelationID = v.CorrelationID
			return nil
		}
	}
	a := p.rec.Active
	switch {
	case p.isNew:
		return refuse("verdict.discussion_number", "recess has no record of discussion %d", v.DiscussionNumber)
	case a == nil || a.CorrelationID != v.CorrelationID:
		expected := "none"
		if a != nil {
			expected = a.CorrelationID
		}
		return refuse("verdict.correlation_id", "%q is not the active run of discussion %d (expected %s): stale or duplicate", v.CorrelationID, v.DiscussionNumber, expected)
	case a.State == state.RunEscalated:
		return refuse("verdict.correlation_id", "%q was escalated after its run ended without a verdict", v.CorrelationID)
	case a.RunID != 0 && runID != 0 && a.RunID != runID:
		// GitHub named the run (dispatch answer, lookup, or the first claim):
		// a verdict from any other run carrying the id is a duplicate's.
		return refuse("verdict.correlation_id", "%q belongs to run %d; this verdict comes from run %d", v.CorrelationID, a.RunID, runID)
	}
	if v.Verdict == VerdictRecessed && len(p.rec.OpenRFCs) >= state.MaxOpenRFCs {
		return refuse("verdict.verdict", "discussion %d already has %d open recesses", v.DiscussionNumber, len(p.rec.OpenRFCs))
	}
	if p.d == nil {
		return fmt.Errorf("read discussion %d: %w", v.DiscussionNumber, p.snap.dErr)
	}
	for i, r := range v.Replies {
		if r.ReplyTo != "" && p.comment(r.ReplyTo) == nil {
			return refuse(fmt.Sprintf("verdict.replies[%d].reply_to", i), "no comment %q in discussion %d", r.ReplyTo, v.DiscussionNumber)
		}
	}

	// Everything in the snapshot but the verdict's own replies was there
	// before recess posted them: with GitHub's one-second timestamps, only
	// this tells a comment written in the same second as recess's reply
	// from a later one.
	before := state.Cursor{At: p.d.CreatedAt.UTC()}
	posted := make([]*Comment, len(v.Replies))
	for i := range p.d.Comments {
		c := &p.d.Comments[i]
		if k, n, ok := state.ParseReplyMarker(c.Body); ok && c.Mine && k == v.CorrelationID {
			if n >= 0 && n < len(posted) && posted[n] == nil {
				posted[n] = c
			}
			continue
		}
		before = before.Advance(c.ID, c.CreatedAt.UTC())
	}
	for i, r := range v.Replies {
		if posted[i] == nil {
			p.posts = append(p.posts, post{key: v.CorrelationID, index: i, replyTo: p.thread(r.ReplyTo), body: r.Body})
		}
	}
	if len(p.posts) > 0 {
		// Posted before the write that records them; then decided again.
		return nil
	}

	p.rec.Active = nil
	p.rec.Applied = append(p.rec.Applied, v.CorrelationID)
	if n := len(p.rec.Applied); n > state.MaxApplied {
		p.rec.Applied = p.rec.Applied[n-state.MaxApplied:]
	}
	if a.EyesOn != "" {
		p.unreact(a.EyesOn, Eyes)
	}
	p.res.CorrelationID = v.CorrelationID
	if v.Summary != "" {
		p.res.note("summary: %s", v.Summary)
	}
	switch v.Verdict {
	case VerdictAdjourned:
		p.res.note("adjourned: %d repl(ies) posted; the run is over", len(posted))
	case VerdictRecessed:
		rfc := &state.RFC{
			Trigger:      v.Trigger,
			OpenedAt:     p.now,
			RepliesAfter: a.Until,
			Since:        a.Until,
			RecessCount:  1,
			Summary:      v.Summary,
		}
		if a.Resume != nil {
			rfc.RecessCount = a.Resume.RecessCount + 1
		}
		if len(posted) > 0 {
			rfc.RepliesAfter = maxCursor(rfc.RepliesAfter, before)
		}
		for _, c := range posted {
			rfc.RepliesAfter = maxCursor(rfc.RepliesAfter, state.Cursor{At: c.CreatedAt.UTC(), IDs: []string{c.ID}})
			rfc.ReplyIDs = append(rfc.ReplyIDs, c.ID)
			root := c.ID
			if c.ParentID != "" {
				root = c.ParentID
			}
			if !containsID(rfc.ThreadRoots, root) {
				rfc.ThreadRoots = append(rfc.ThreadRoots, root)
			}
		}
		if len(rfc.ReplyIDs) > state.MaxReplyIDs {
			rfc.ReplyIDs = rfc.ReplyIDs[len(rfc.ReplyIDs)-state.MaxReplyIDs:]
		}
		p.rec.OpenRFCs[v.CorrelationID] = rfc
		p.res.note("recessed: %d repl(ies) posted; waiting (%s)", len(posted), string(v.TriggerJSON))
	}
	// The rest is an ordinary reconciliation with the run over: a trigger
	// that already holds fires now, and comments that arrived while the run
	// worked get a fresh dispatch after an adjourned answer.
	if err := p.evaluate(); err != nil {
		return err
	}
	return p.intake()
}
