package resume

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

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
	idle, noun := false, ""
	res, err := e.run(ctx, v.DiscussionNumber, input{command: "verdict", discussion: true, rule: func(f *facts, rec *state.Record) (plan, error) {
		p, err := f.verdict(rec, v, runID)
		noun = f.kind().noun
		idle = err == nil && !f.s.isNew && !rec.Pending()
		return p, err
	}})
	if err != nil || !idle {
		return res, err
	}
	again, err := e.run(ctx, v.DiscussionNumber, input{command: "verdict", discussion: true, rule: (*facts).reconcile})
	res.Notes = append(res.Notes, again.Notes...)
	res.Warnings = append(res.Warnings, again.Warnings...)
	if res.Missing == nil {
		res.Missing = again.Missing
	}
	if again.Dispatched {
		// The outputs name the dispatch, as when the verdict's own decision
		// starts one.
		res.Dispatched, res.CorrelationID = true, again.CorrelationID
	}
	if err != nil {
		return res, fmt.Errorf("look again at %s %d after the verdict: %w", noun, v.DiscussionNumber, err)
	}
	return res, nil
}

func refuse(field, format string, args ...any) error {
	return fmt.Errorf("%w: %w", ErrRefused, &wait.FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
}

// verdict applies verdict v from run runID to rec: refused, or its
// replies to post first, or, once they are posted, the run's end.
func (f *facts) verdict(rec *state.Record, v *Verdict, runID int64) (plan, error) {
	if slices.Contains(rec.Applied, v.CorrelationID) {
		p := noted("verdict %s was already applied: nothing to do", v.CorrelationID)
		p.readOnly, p.res.CorrelationID = true, v.CorrelationID
		return p, nil
	}
	a := rec.Active
	if f.s.isNew {
		return plan{}, refuse("verdict.discussion_number", "recess has no record of %s %d", f.kind().noun, v.DiscussionNumber)
	}
	switch expects(a, v.CorrelationID, runID) {
	case notActive:
		expected := "none"
		if a != nil {
			expected = a.CorrelationID
		}
		return plan{}, refuse("verdict.correlation_id", "%q is not the active run of %s %d (expected %s): stale or duplicate", v.CorrelationID, f.kind().noun, v.DiscussionNumber, expected)
	case escalatedRun:
		return plan{}, refuse("verdict.correlation_id", "%q was escalated after its run ended without a verdict", v.CorrelationID)
	case otherRun:
		return plan{}, refuse("verdict.correlation_id", "%q belongs to run %d; this verdict comes from run %d", v.CorrelationID, a.RunID, runID)
	}
	if v.Verdict == VerdictRecessed && len(rec.OpenRFCs) >= state.MaxOpenRFCs {
		return plan{}, refuse("verdict.verdict", "%s %d already has %d open recesses", f.kind().noun, v.DiscussionNumber, len(rec.OpenRFCs))
	}
	if f.d == nil {
		return plan{}, fmt.Errorf("read %s %d: %w", f.kind().noun, v.DiscussionNumber, f.s.dErr)
	}
	if v.Verdict == VerdictRecessed {
		if err := f.fits(rec, v, a); err != nil {
			return plan{}, err
		}
		if err := CheckScope(v.Trigger, f.kind().kind); err != nil {
			return plan{}, err
		}
	}

	// Everything in the snapshot but the verdict's own replies was there
	// before recess posted them: with GitHub's one-second timestamps, only
	// this tells a comment written in the same second as recess's reply
	// from a later one.
	before := state.Cursor{At: f.d.CreatedAt.UTC()}
	posted := make([]*Comment, len(v.Replies))
	for i := range f.d.Comments {
		c := &f.d.Comments[i]
		if k, n, ok := state.ParseReplyMarker(c.Body); ok && c.Mine && k == v.CorrelationID {
			if n >= 0 && n < len(posted) && posted[n] == nil {
				posted[n] = c
			}
			continue
		}
		before = before.Advance(c.ID, c.CreatedAt.UTC())
	}
	var p plan
	for i, r := range v.Replies {
		if posted[i] == nil {
			pl, answered := PlaceReply(f.d, r.ReplyTo), ""
			if pl.Answered != "" {
				answered = f.text("reply.answered", "what", pl.Answered)
			}
			p.posts = append(p.posts, post{key: v.CorrelationID, index: i, replyTo: pl.To, answered: answered, body: r.Body})
		}
	}
	if len(p.posts) > 0 {
		// Posted before the write that records them; then decided again.
		p.posts[len(p.posts)-1].keep = keepMarker(written(rec, v, a, nil, f.now))
		return p, nil
	}

	p = f.keepCopy(rec, v.CorrelationID, written(rec, v, a, nil, f.now), posted)
	applied(rec, v.CorrelationID)
	if a.EyesOn != "" {
		p = p.with(after(Effect{Kind: EffectUnreact, Subject: a.EyesOn, Reaction: Eyes}))
	}
	p.res.CorrelationID = v.CorrelationID
	if v.Summary != "" {
		p = p.with(noted("summary: %s", v.Summary))
	}
	if v.Verdict == VerdictRecessed {
		recess(rec, v, a, posted, before, f.now)
	}
	obs := f.observeAll(rec)
	switch v.Verdict {
	case VerdictAdjourned:
		p = p.with(noted("adjourned: %s posted; the run is over", text.Count(len(posted), "reply", "replies")))
	case VerdictRecessed:
		p = p.with(noted("recessed: %s posted; waiting %s", text.Count(len(posted), "reply", "replies"), Describe(v.Trigger, obs[v.CorrelationID])))
	}
	// The rest is an ordinary reconciliation with the run over: a trigger
	// that already holds fires now, and comments that arrived while the run
	// worked get a fresh dispatch after an adjourned answer.
	return f.evaluate(rec, p, asked{}, obs)
}

// Placement is where a verdict reply is posted (PlaceReply): the one rule
// that the verdict follows and that the agent's tools report before it.
type Placement struct {
	// To is the comment the reply answers in place: what Threads.Reply is
	// given, whose adapter places it (under that comment's thread in a
	// discussion; at the top level, opening with a quote line linking it,
	// in a flat thread). "" when it goes to the top level.
	To string
	// Under is, for people and the agent, the top-level comment the reply
	// will sit under (Comment.Thread of To in a discussion); "" for the top
	// level, and always in a flat thread.
	Under string
	// Moved says, in words for the agent, why a reply whose reply_to names
	// a comment goes to the top level instead ("comment X was deleted");
	// "" when it goes where it was asked to, or names no comment.
	Moved string
	// Answered is what the line that opens a moved reply names (markdown
	// recess writes itself: the reply.answered text's {what}).
	Answered string
}

// PlaceReply says where a verdict reply to the comment id goes in d: under
// that comment's thread when people reading the discussion see the comment
// and its thread, else at the top level with a line that says what it
// answers: a deleted comment (GitHub keeps its placeholder while it has
// replies, and refuses a reply under it), a minimized one or one in a
// minimized or deleted thread (readers do not look there), recess's own
// status comment (recess rewrites it, collapses it and moves it to the end
// of a long discussion), or an id that is not a comment of this discussion
// (unknown, or in another discussion). A flat thread holds nothing under
// a comment: a reply to a comment readers see quotes it (Quote).
func PlaceReply(d *Thread, id string) Placement {
	if id == "" {
		return Placement{}
	}
	c, kind := d.Comment(id), kindOf(d.Kind)
	if c == nil {
		return Placement{Moved: "this " + kind.noun + " shows no comment " + strconv.Quote(text.Clip(id, 64)),
			Answered: fmt.Sprintf("a comment this %s does not show (%s)", kind.noun, code(id))}
	}
	if c.Deleted {
		return Placement{Moved: "comment " + id + " was deleted", Answered: "a comment that was deleted"}
	}
	status := c.Mine && state.HasMarker(c.Body)
	moved, what := "", "a comment"
	switch parent := d.Comment(c.Root); {
	case status:
		moved, what = "comment "+id+" is recess's status comment, which recess rewrites and moves", "recess's status comment"
	case c.Minimized:
		moved, what = "comment "+id+" is hidden (minimized)", "a hidden comment"
	case c.Root != "" && (parent == nil || parent.Deleted || parent.Minimized):
		moved = "comment " + id + " is a reply under a comment that was deleted or hidden"
	case kind.kind.Flat():
		return Placement{To: c.ID}
	default:
		return Placement{To: c.ID, Under: c.Thread()}
	}
	if c.Author != "" && !status {
		what += " by @" + c.Author
	}
	if c.URL != "" {
		what = "[" + what + "](" + c.URL + ")"
	}
	return Placement{Moved: moved, Answered: what}
}

// fits refuses, before anything is posted, a recessed verdict whose record
// would not fit in the status comment (65,536 characters with the visible
// text) or the record's own bounds: its write would fail after its replies
// were out. The recess is built, on a copy of rec, as the write would build
// it, with reply ids longer than any GitHub gives out.
func (f *facts) fits(rec *state.Record, v *Verdict, a *state.Run) error {
	posted := make([]*Comment, len(v.Replies))
	for i := range posted {
		posted[i] = &Comment{ID: fmt.Sprintf("%064d", i), CreatedAt: f.now}
	}
	r := written(rec, v, a, posted, f.now)
	r.Status = f.status(r, f.observeAll(r))
	if _, err := state.EncodeComment(r.Status, r); err != nil {
		if errors.Is(err, state.ErrTooLarge) {
			return refuse("verdict", "the %s's record would not fit in recess's status comment (%v): shorten the summary or the trigger", f.kind().noun, err)
		}
		return fmt.Errorf("record of %s %d: %w", f.kind().noun, v.DiscussionNumber, err)
	}
	return nil
}

// CheckScope refuses trigger t on a thread of kind k when t counts replies
// under recess's question (scope "thread", at any depth) and k holds no
// replies under comments (state.Kind.Flat), naming the field
// ("trigger.of[1].scope"). A kind not known (AnyKind) passes: the verdict
// step, which reads the thread, decides. The verdict step and the recess
// tool both ask it.
func CheckScope(t *wait.Trigger, k state.Kind) error {
	if at := threadScope(t, "trigger"); at != "" && k.Flat() {
		return refuse(at, "scope %q counts only replies under recess's question, and this %s holds no replies under comments: leave it out (every reply counts)", wait.ScopeThread, Noun(k))
	}
	return nil
}

// threadScope is the path of the first scope "thread" in trigger t (at
// path), "" when it has none.
func threadScope(t *wait.Trigger, path string) string {
	if t.Scope == wait.ScopeThread {
		return path + ".scope"
	}
	for i, c := range t.Of {
		if at := threadScope(c, wait.IndexPath(path+".of", i)); at != "" {
			return at
		}
	}
	return ""
}

// recess opens in rec the recess a recessed verdict asks for, with the
// replies recess posted for it; before is the cursor past everything else
// the discussion held.
func recess(rec *state.Record, v *Verdict, a *state.Run, posted []*Comment, before state.Cursor, now time.Time) *state.RFC {
	rfc := opened(v, a, now)
	if len(posted) > 0 {
		rfc.RepliesAfter = maxCursor(rfc.RepliesAfter, before)
	}
	for _, c := range posted {
		addReply(rfc, c)
	}
	if len(rfc.ReplyIDs) > state.MaxReplyIDs {
		rfc.ReplyIDs = rfc.ReplyIDs[len(rfc.ReplyIDs)-state.MaxReplyIDs:]
	}
	rec.OpenRFCs[v.CorrelationID] = rfc
	return rfc
}

// opened is the recess a recessed verdict opens, before its replies.
func opened(v *Verdict, a *state.Run, now time.Time) *state.RFC {
	rfc := &state.RFC{Trigger: v.Trigger, OpenedAt: now, RepliesAfter: a.Until, Since: a.Until, RecessCount: 1, Summary: v.Summary}
	if a.Resume != nil {
		rfc.RecessCount = a.Resume.RecessCount + 1
	}
	return rfc
}

// applied ends the active run with its verdict: the record remembers the
// verdict as applied (the newest state.MaxApplied of them).
func applied(rec *state.Record, id string) {
	rec.Active = nil
	rec.Applied = append(rec.Applied, id)
	if n := len(rec.Applied); n > state.MaxApplied {
		rec.Applied = rec.Applied[n-state.MaxApplied:]
	}
}

// addReply records one of recess's replies for a recess: replies after it
// count, and its top-level comment is a root of the recess's thread.
func addReply(rfc *state.RFC, c *Comment) {
	rfc.RepliesAfter = rfc.RepliesAfter.Advance(c.ID, c.CreatedAt.UTC())
	rfc.ReplyIDs = append(rfc.ReplyIDs, c.ID)
	if root := c.Thread(); !slices.Contains(rfc.ThreadRoots, root) {
		rfc.ThreadRoots = append(rfc.ThreadRoots, root)
	}
}
