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
	// EffectNote posts Body (answering the comment ReplyTo when set: the
	// Threads adapter places it) unless recess already posted a comment
	// carrying the marker Key.
	EffectNote
	// EffectEdit replaces the body of recess's comment Subject with Body:
	// the copy of the record it carries, brought up to date before the
	// write of a decision that posts no comment of its own (see
	// facts.keepCopy).
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
	ReplyTo  string // the comment the note answers ("" for none; Threads.Reply places it)
	Body     string
	Dispatch *DispatchRequest // EffectDispatch
}

// notify owes a comment carrying a marker, posted once the record write
// that decides it has won: two runs deciding the same thing at once both
// try to write, one wins, the other decides again and finds the decision
// made, so only the winner posts. The marker keeps it to one comment when a
// run is repeated. A run dying between its write and its post leaves the
// note unposted (an escalation's is owed again by every later decision).
func notify(key, replyTo, body string) plan {
	return after(Effect{Kind: EffectNote, Key: key, ReplyTo: replyTo, Body: body})
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

// post publishes a plan's verdict replies, each with its marker, and adds
// them to the discussion read, so that the next decision finds them
// posted. They are the one kind of effect that comes before the write: the
// record keeps their ids and timestamps. Their markers make a repeated run
// find them instead of posting them again. A dry run adds them to planned
// as the decision would find them posted.
func (e *Engine) post(ctx context.Context, p plan, planned *[]Effect) error {
	for _, r := range p.posts {
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
			id := fmt.Sprintf("plan-reply-%d", len(p.d.Comments))
			p.d.Comments = append(p.d.Comments, Comment{ID: id, Root: r.replyTo, Body: body, CreatedAt: p.now, Mine: true})
			continue
		}
		c, err := e.Threads.Reply(ctx, p.d, r.replyTo, body)
		if err != nil {
			return fmt.Errorf("post reply %d of verdict %s: %w", r.index, r.key, err)
		}
		p.d.Comments = append(p.d.Comments, *c)
	}
	return nil
}

// apply carries out a plan in its one fixed order: the waiting label that
// must go on first (see facts.waitingLabel), the record write, then, once
// the write has won, the effects, then the dispatch (see dispatch). It
// returns the plan's report with what happened added.
func (e *Engine) apply(ctx context.Context, p plan) (*Result, error) {
	res := p.res
	if err := e.effects(ctx, p, p.first, &res); err != nil {
		return &res, err
	}
	if p.write {
		if err := e.store(ctx, p.rec, p.d, p.now); err != nil {
			return &res, e.saveFailed(ctx, p, err, &res)
		}
	}
	if err := e.effects(ctx, p, p.after, &res); err != nil {
		return &res, err
	}
	if p.dispatch != nil {
		return &res, e.dispatch(ctx, p, &res)
	}
	return &res, nil
}

// store writes rec as of now, checked up to the newest comment of d (when
// read).
func (e *Engine) store(ctx context.Context, rec *state.Record, d *Thread, now time.Time) error {
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
// run decided first: nothing of this plan reaches GitHub. Any other
// failure may hide a write that went through (a 502 after GitHub applied
// it): the owed notes are posted all the same, as far as they can be, since
// a later decision that finds them posted never posts them again, while one
// that finds the decision recorded cannot tell a note is owed.
func (e *Engine) saveFailed(ctx context.Context, p plan, err error, res *Result) error {
	if !errors.Is(err, state.ErrConflict) {
		notes := slices.DeleteFunc(slices.Clone(p.after), func(f Effect) bool { return f.Kind != EffectNote })
		if perr := e.effects(ctx, p, notes, res); perr != nil {
			res.warn("could not post a note after the failed write: %v", perr)
		}
	}
	return err
}

// effects runs effects of a plan in order. Reactions and labels are best
// effort (a warning each), but for a label that is missing and may not be
// created; a note that cannot be posted fails the run, and the next run
// owes it again.
func (e *Engine) effects(ctx context.Context, p plan, list []Effect, res *Result) error {
	for _, f := range list {
		var err error
		switch f.Kind {
		case EffectReact:
			if err = e.Threads.React(ctx, f.Subject, f.Reaction); err != nil {
				res.warn("could not react to %s: %v", f.Subject, err)
			}
		case EffectUnreact:
			if err = e.Threads.Unreact(ctx, f.Subject, f.Reaction); err != nil {
				res.warn("could not remove the %s reaction: %v", f.Reaction, err)
			}
		case EffectLabel:
			if err = e.Threads.Label(ctx, p.d, f.Label); errors.Is(err, ErrLabelUnavailable) {
				// The label is missing and may not be created: the run
				// fails, saying which label and the fix.
				return fmt.Errorf("discussion %d: %w", p.rec.Discussion, err)
			}
			if err != nil {
				res.warn("could not add the %s label: %v", f.Label, err)
			}
		case EffectUnlabel:
			if err = e.Threads.Unlabel(ctx, p.d, f.Label); err != nil {
				res.warn("could not remove the %s label: %v", f.Label, err)
			}
		case EffectNote:
			if err := e.postOnce(ctx, p, f); err != nil {
				return err
			}
		case EffectEdit:
			// Best effort: a copy left behind matters only if the status
			// comment is lost too, and the verdict's answer must not be.
			if err = e.Threads.Edit(ctx, f.Subject, f.Body); err != nil {
				res.warn("could not bring recess's copy of the record in comment %s up to date: %v", f.Subject, err)
			}
		}
	}
	return nil
}

// postOnce posts a note unless recess already posted one with its marker.
// The note carries a copy of the record as its decision wrote it (see
// keepMarker), so that it is the newest copy a restore finds.
func (e *Engine) postOnce(ctx context.Context, p plan, f Effect) error {
	for i := range p.d.Comments {
		c := &p.d.Comments[i]
		if !c.Mine {
			continue
		}
		if k, _, ok := state.ParseReplyMarker(c.Body); ok && k == f.Key {
			return nil
		}
	}
	c, err := e.Threads.Reply(ctx, p.d, f.ReplyTo, state.ReplyBody(f.Body, f.Key, 0, keepMarker(p.rec)))
	if err != nil {
		return fmt.Errorf("post comment on discussion %d: %w", p.rec.Discussion, err)
	}
	p.d.Comments = append(p.d.Comments, *c)
	return nil
}

// describe is a dry run's result: the plan's report, as a run whose writes
// all went through would fill it, with what apply would do listed in its
// order (Result.Planned), after the replies and the write back planned
// before it. Nothing reaches GitHub.
func (p plan) describe(planned []Effect) *Result {
	res := p.res
	if p.fail != nil {
		res.warn("a real run would fail: %v", p.fail)
	}
	list := append(slices.Clone(planned), p.first...)
	if p.write {
		list = append(list, Effect{Kind: EffectWrite, Body: p.rec.Status})
	}
	list = append(list, p.after...)
	if p.dispatch != nil {
		req := p.request()
		list = append(list, Effect{Kind: EffectDispatch, Dispatch: &req})
		if a := p.dispatch.run; a.EyesOn != "" {
			list = append(list, Effect{Kind: EffectReact, Subject: a.EyesOn, Reaction: Eyes})
		}
		res.dispatched(p.dispatch.run)
	}
	res.Planned = list
	res.viewed(p.views)
	return &res
}
