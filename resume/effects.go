package resume

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/recess-action/recess/state"
)

// EffectKind says what an effect does on GitHub.
type EffectKind int

// Effects a decision can ask for.
const (
	// EffectReact adds Reaction to Subject; EffectUnreact removes it.
	EffectReact EffectKind = iota + 1
	EffectUnreact
	// EffectLabel adds Label to the discussion; EffectUnlabel removes it.
	EffectLabel
	EffectUnlabel
	// EffectNote posts Body (under ReplyTo when set) unless recess already
	// posted a comment carrying the marker Key.
	EffectNote
	// EffectEdit replaces the body of recess's comment Subject with Body:
	// the copy of the record it carries, brought up to date before the
	// write of a decision that posts no comment of its own (see
	// pass.keepCopy).
	EffectEdit
	// The kinds below appear only in a dry run (Engine.DryRun), beside the
	// effects above, in the order a real run takes them: EffectReply posts
	// a verdict's reply Body (under ReplyTo) before the record is written;
	// EffectWrite writes the record, whose status reads Body; EffectDispatch
	// starts the agent workflow with Dispatch.
	EffectReply
	EffectWrite
	EffectDispatch
)

// Effect is one change a decision makes on GitHub besides the record. A
// decision lists its effects; they run only after the record write that
// records the decision has won, so a decision that loses to a concurrent
// write leaves nothing behind (no label, reaction or note of it).
type Effect struct {
	Kind     EffectKind
	Subject  string // node id of a comment or the discussion (reactions, edits)
	Reaction Reaction
	Label    string
	Key      string // the note's marker
	ReplyTo  string // the note's parent comment ("" for top-level)
	Body     string
	Dispatch *DispatchRequest // EffectDispatch
}

// add asks for an effect after the record write.
func (out *decision) add(f Effect) { out.effects = append(out.effects, f) }

// notify owes a comment carrying a marker, posted once the record write
// that decides it has won: two runs deciding the same thing at once both
// try to write, one wins, the other decides again and finds the decision
// made, so only the winner posts. The marker keeps it to one comment when a
// run is repeated. A run dying between its write and its post leaves the
// note unposted (an escalation's is owed again by every later pass).
func (out *decision) notify(key, replyTo, body string) {
	out.add(Effect{Kind: EffectNote, Key: key, ReplyTo: replyTo, Body: body})
}

// post is a verdict reply to post before the record is written.
type post struct {
	key     string
	index   int
	replyTo string
	// answered is the line that says what a reply posted at the top level
	// instead of under its reply_to answers ("" when none; see PlaceReply).
	answered string
	body     string
	// keep is a marker that also goes into the reply when it fits: the copy
	// of the record that restores a lost status comment (see restore).
	keep string
}

// post publishes a decision's verdict replies, each with its marker, and
// adds them to the discussion read, so that the next decision finds them
// posted. They are the one kind of effect that comes before the write: the
// record keeps their ids and timestamps. Their markers make a repeated run
// find them instead of posting them again. A dry run adds them to planned
// as the decision would find them posted.
func (e *Engine) post(ctx context.Context, out *decision, planned *[]Effect) error {
	for _, r := range out.posts {
		// The agent's text may carry anything (a prompt-injected marker
		// among it): only the markers recess appends may count. The line
		// saying what a reply answers comes first when it still fits; the
		// copy of the recess has the priority.
		body := state.ReplyBody(r.body, r.key, r.index, r.keep)
		if r.answered != "" && state.FitsComment(r.answered+"\n\n"+body) {
			body = r.answered + "\n\n" + body
		}
		if e.DryRun {
			*planned = append(*planned, Effect{Kind: EffectReply, ReplyTo: r.replyTo, Body: body})
			id := fmt.Sprintf("plan-reply-%d", len(out.d.Comments))
			out.d.Comments = append(out.d.Comments, Comment{ID: id, ParentID: r.replyTo, Body: body, CreatedAt: out.now, Mine: true})
			continue
		}
		c, err := e.Discussions.Reply(ctx, out.d.ID, r.replyTo, body)
		if err != nil {
			return fmt.Errorf("post reply %d of verdict %s: %w", r.index, r.key, err)
		}
		out.d.Comments = append(out.d.Comments, *c)
	}
	return nil
}

// apply carries out a decision in its one fixed order: the waiting label
// that must go on first (see pass.waitingLabel), the record write, then,
// once the write has won, the effects, then the dispatch (see dispatch).
func (e *Engine) apply(ctx context.Context, out *decision) error {
	if err := e.effects(ctx, out, out.first); err != nil {
		return err
	}
	if out.write {
		if err := e.store(ctx, out.rec, out.d, out.now); err != nil {
			return e.saveFailed(ctx, out, err)
		}
	}
	if err := e.effects(ctx, out, out.effects); err != nil {
		return err
	}
	if out.plan != nil {
		return e.dispatch(ctx, out)
	}
	return nil
}

// store writes rec as of now, checked up to the newest comment of d (when
// read).
func (e *Engine) store(ctx context.Context, rec *state.Record, d *Discussion, now time.Time) error {
	if d != nil {
		rec.Checked = newest(d).At
	}
	rec.UpdatedAt = now
	if err := e.Store.Save(ctx, rec); err != nil {
		return fmt.Errorf("save record of discussion %d: %w", rec.Discussion, err)
	}
	return nil
}

// saveFailed handles a record write that failed. A conflict means another
// run decided first: nothing of this decision reaches GitHub. Any other
// failure may hide a write that went through (a 502 after GitHub applied
// it): the owed notes are posted all the same, as far as they can be, since
// a later pass that finds them posted never posts them again, while one that
// finds the decision recorded cannot tell a note is owed.
func (e *Engine) saveFailed(ctx context.Context, out *decision, err error) error {
	if !errors.Is(err, state.ErrConflict) {
		notes := slices.DeleteFunc(slices.Clone(out.effects), func(f Effect) bool { return f.Kind != EffectNote })
		if perr := e.effects(ctx, out, notes); perr != nil {
			out.res.warn("could not post a note after the failed write: %v", perr)
		}
	}
	return err
}

// effects runs effects of a decision in order. Reactions and labels are
// best effort (a warning each), but for a label that is missing and may not
// be created; a note that cannot be posted fails the run, and the next run
// owes it again.
func (e *Engine) effects(ctx context.Context, out *decision, list []Effect) error {
	for _, f := range list {
		var err error
		switch f.Kind {
		case EffectReact:
			if err = e.Discussions.React(ctx, f.Subject, f.Reaction); err != nil {
				out.res.warn("could not react to %s: %v", f.Subject, err)
			}
		case EffectUnreact:
			if err = e.Discussions.Unreact(ctx, f.Subject, f.Reaction); err != nil {
				out.res.warn("could not remove the %s reaction: %v", f.Reaction, err)
			}
		case EffectLabel:
			if err = e.Discussions.Label(ctx, out.d, f.Label); errors.Is(err, ErrLabelUnavailable) {
				// The label is missing and may not be created: the run
				// fails, saying which label and the fix.
				return fmt.Errorf("discussion %d: %w", out.rec.Discussion, err)
			}
			if err != nil {
				out.res.warn("could not add the %s label: %v", f.Label, err)
			}
		case EffectUnlabel:
			if err = e.Discussions.Unlabel(ctx, out.d, f.Label); err != nil {
				out.res.warn("could not remove the %s label: %v", f.Label, err)
			}
		case EffectNote:
			if err := e.postOnce(ctx, out, f); err != nil {
				return err
			}
		case EffectEdit:
			// Best effort: a copy left behind matters only if the status
			// comment is lost too, and the verdict's answer must not be.
			if err = e.Discussions.Edit(ctx, f.Subject, f.Body); err != nil {
				out.res.warn("could not bring recess's copy of the record in comment %s up to date: %v", f.Subject, err)
			}
		}
	}
	return nil
}

// postOnce posts a note unless recess already posted one with its marker.
// The note carries a copy of the record as its decision wrote it (see
// keepMarker), so that it is the newest copy a restore finds.
func (e *Engine) postOnce(ctx context.Context, out *decision, f Effect) error {
	for i := range out.d.Comments {
		c := &out.d.Comments[i]
		if !c.Mine {
			continue
		}
		if k, _, ok := state.ParseReplyMarker(c.Body); ok && k == f.Key {
			return nil
		}
	}
	c, err := e.Discussions.Reply(ctx, out.d.ID, f.ReplyTo, state.ReplyBody(f.Body, f.Key, 0, keepMarker(out.rec)))
	if err != nil {
		return fmt.Errorf("post comment on discussion %d: %w", out.rec.Discussion, err)
	}
	out.d.Comments = append(out.d.Comments, *c)
	return nil
}

// describe lists, in the result (Result.Planned), what apply would do for
// a decision, in its order, after the replies and the write back planned
// before it, and fills the result as a run whose writes all went through
// would: nothing reaches GitHub.
func (e *Engine) describe(out *decision, planned []Effect) {
	list := append(slices.Clone(planned), out.first...)
	if out.write {
		list = append(list, Effect{Kind: EffectWrite, Body: out.rec.Status})
	}
	list = append(list, out.effects...)
	if out.plan != nil {
		req := out.request()
		list = append(list, Effect{Kind: EffectDispatch, Dispatch: &req})
		if a := out.plan.run; a.EyesOn != "" {
			list = append(list, Effect{Kind: EffectReact, Subject: a.EyesOn, Reaction: Eyes})
		}
		out.dispatched()
	}
	out.res.Planned = list
}
