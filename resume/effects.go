package resume

import (
	"context"
	"errors"
	"fmt"

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
	Subject  string // node id of a comment or the discussion (reactions)
	Reaction Reaction
	Label    string
	Key      string // the note's marker
	ReplyTo  string // the note's parent comment ("" for top-level)
	Body     string
	Dispatch *DispatchRequest // EffectDispatch
}

func (p *pass) react(subject string, r Reaction) {
	p.effects = append(p.effects, Effect{Kind: EffectReact, Subject: subject, Reaction: r})
}

func (p *pass) unreact(subject string, r Reaction) {
	p.effects = append(p.effects, Effect{Kind: EffectUnreact, Subject: subject, Reaction: r})
}

func (p *pass) label(name string) {
	p.effects = append(p.effects, Effect{Kind: EffectLabel, Label: name})
}

func (p *pass) unlabel(name string) {
	p.effects = append(p.effects, Effect{Kind: EffectUnlabel, Label: name})
}

// notify owes a comment carrying a marker, posted once the record write
// that decides it has won: two runs deciding the same thing at once both
// try to write, one wins, the other decides again and finds the decision
// made, so only the winner posts. The marker keeps it to one comment when a
// run is repeated. A run dying between its write and its post leaves the
// note unposted (an escalation's is owed again by every later pass).
func (p *pass) notify(key, replyTo, body string) {
	p.effects = append(p.effects, Effect{Kind: EffectNote, Key: key, ReplyTo: replyTo, Body: body})
}

// post is a verdict reply to post before the record is written.
type post struct {
	key     string
	index   int
	replyTo string
	// answered is the line that says what a reply posted at the top level
	// instead of under its reply_to answers ("" when none; see placeReply).
	answered string
	body     string
	// keep is a marker that also goes into the reply when it fits: the copy
	// of the recess that restores a lost status comment.
	keep string
}

// post publishes a decision's verdict replies, each with its marker, and
// adds them to the snapshot so that the next decision finds them posted.
// They are the one kind of effect that comes before the write: the record
// keeps their ids and timestamps. Their markers make a repeated run find
// them instead of posting them again.
func (e *Engine) post(ctx context.Context, p *pass) error {
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
			// The reply as the decision would find it posted.
			p.planned = append(p.planned, Effect{Kind: EffectReply, ReplyTo: r.replyTo, Body: body})
			id := fmt.Sprintf("plan-reply-%d", len(p.snap.d.Comments))
			p.snap.d.Comments = append(p.snap.d.Comments, Comment{ID: id, ParentID: r.replyTo, Body: body, CreatedAt: p.now, Mine: true})
			continue
		}
		c, err := e.Discussions.Reply(ctx, p.d.ID, r.replyTo, body)
		if err != nil {
			return fmt.Errorf("post reply %d of verdict %s: %w", r.index, r.key, err)
		}
		p.snap.d.Comments = append(p.snap.d.Comments, *c)
	}
	return nil
}

// act carries out a sealed decision: the record write, then the effects,
// or the dispatch protocol when the decision dispatches. With Engine.DryRun
// it only lists them (see describe).
func (e *Engine) act(ctx context.Context, p *pass) error {
	if e.DryRun {
		e.describe(p)
		return nil
	}
	if f, ok := p.labelFirst(); ok {
		if err := e.apply(ctx, p, []Effect{f}); err != nil {
			return err
		}
	}
	if p.plan != nil {
		return e.dispatch(ctx, p)
	}
	if err := e.save(ctx, p); err != nil {
		return e.saveFailed(ctx, p, err)
	}
	return e.effects(ctx, p)
}

// labelFirst takes out of the decision's effects the waiting label it asks
// for when it makes an existing record pending: that label goes on before
// the record write. A run that dies between the two then leaves a labelled
// discussion whose record is not pending (a harmless extra look for the
// sweep, and the next run that reads the record takes the label off), never
// a pending record no sweep finds by its label. A new record is labelled
// after its write, as every other effect: a label first would show a sweep
// a discussion without a record, whose visit takes the label off again.
// Such a record without its label (a run that died between its write and
// its label) is found by the comment store's hourly look at the recently
// updated discussions (see github.CommentStore.Pending).
func (p *pass) labelFirst() (Effect, bool) {
	if p.isNew || !(p.write || p.plan != nil) {
		return Effect{}, false
	}
	for i, f := range p.effects {
		if f.Kind == EffectLabel && f.Label == LabelWaiting {
			p.effects = append(p.effects[:i:i], p.effects[i+1:]...)
			return f, true
		}
	}
	return Effect{}, false
}

// save writes the record when the decision changed it. It returns an error
// wrapping state.ErrConflict when another run wrote first.
func (e *Engine) save(ctx context.Context, p *pass) error {
	if !p.write {
		return nil
	}
	if p.d != nil {
		p.rec.Checked = newest(p.d).At
	}
	p.rec.UpdatedAt = p.now
	if err := e.Store.Save(ctx, p.rec); err != nil {
		return fmt.Errorf("save record of discussion %d: %w", p.rec.Discussion, err)
	}
	p.isNew = false
	p.before = fingerprint(p.rec)
	p.write = false
	return nil
}

// saveFailed handles a record write that failed. A conflict means another
// run decided first: nothing of this decision reaches GitHub. Any other
// failure may hide a write that went through (a 502 after GitHub applied
// it): the owed notes are posted all the same, as far as they can be, since
// a later pass that finds them posted never posts them again, while one that
// finds the decision recorded cannot tell a note is owed.
func (e *Engine) saveFailed(ctx context.Context, p *pass, err error) error {
	if !errors.Is(err, state.ErrConflict) {
		if perr := e.notes(ctx, p); perr != nil {
			p.res.warn("could not post a note after the failed write: %v", perr)
		}
	}
	return err
}

// effects runs the decision's effects in order. Reactions and labels are
// best effort (a warning each), but for a label that is missing and may not
// be created; a note that cannot be posted fails the run, and the next run
// owes it again.
func (e *Engine) effects(ctx context.Context, p *pass) error {
	list := p.effects
	p.effects = nil
	return e.apply(ctx, p, list)
}

// apply runs effects of the decision p in order (see effects).
func (e *Engine) apply(ctx context.Context, p *pass, list []Effect) error {
	for _, f := range list {
		var err error
		switch f.Kind {
		case EffectReact:
			if err = e.Discussions.React(ctx, f.Subject, f.Reaction); err != nil {
				p.res.warn("could not react to %s: %v", f.Subject, err)
			}
		case EffectUnreact:
			if err = e.Discussions.Unreact(ctx, f.Subject, f.Reaction); err != nil {
				p.res.warn("could not remove the %s reaction: %v", f.Reaction, err)
			}
		case EffectLabel:
			if err = e.Discussions.Label(ctx, p.d.ID, f.Label); errors.Is(err, ErrLabelUnavailable) {
				// The label is missing and may not be created: the run
				// fails, saying which label and the fix.
				return fmt.Errorf("discussion %d: %w", p.rec.Discussion, err)
			}
			if err != nil {
				p.res.warn("could not add the %s label: %v", f.Label, err)
			}
		case EffectUnlabel:
			if err = e.Discussions.Unlabel(ctx, p.d.ID, f.Label); err != nil {
				p.res.warn("could not remove the %s label: %v", f.Label, err)
			}
		case EffectNote:
			if err := e.postOnce(ctx, p, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// notes posts only the decision's owed notes (see saveFailed).
func (e *Engine) notes(ctx context.Context, p *pass) error {
	for _, f := range p.effects {
		if f.Kind != EffectNote {
			continue
		}
		if err := e.postOnce(ctx, p, f); err != nil {
			return err
		}
	}
	return nil
}

// postOnce posts a note unless recess already posted one with its marker.
func (e *Engine) postOnce(ctx context.Context, p *pass, f Effect) error {
	for i := range p.d.Comments {
		c := &p.d.Comments[i]
		if !c.Mine {
			continue
		}
		if k, _, ok := state.ParseReplyMarker(c.Body); ok && k == f.Key {
			return nil
		}
	}
	c, err := e.Discussions.Reply(ctx, p.d.ID, f.ReplyTo, state.ReplyBody(f.Body, f.Key, 0, ""))
	if err != nil {
		return fmt.Errorf("post comment on discussion %d: %w", p.rec.Discussion, err)
	}
	p.d.Comments = append(p.d.Comments, *c)
	return nil
}

// describe lists what act would do for a sealed decision, in its order, in the
// result (Result.Planned), and fills the result as a run whose writes all
// went through would: nothing reaches GitHub.
func (e *Engine) describe(p *pass) {
	out := p.planned
	if f, ok := p.labelFirst(); ok {
		out = append(out, f)
	}
	if p.write || p.plan != nil {
		out = append(out, Effect{Kind: EffectWrite, Body: p.rec.Status})
	}
	out = append(out, p.effects...)
	if p.plan != nil {
		a := p.plan.run
		req := DispatchRequest{CorrelationID: a.CorrelationID, Discussion: p.rec.Discussion, ResumeContext: p.plan.input}
		out = append(out, Effect{Kind: EffectDispatch, Dispatch: &req})
		if a.EyesOn != "" {
			out = append(out, Effect{Kind: EffectReact, Subject: a.EyesOn, Reaction: Eyes})
		}
		p.res.Dispatched = true
		p.res.CorrelationID = a.CorrelationID
		if a.Resume != nil {
			p.res.Fired = true
			p.res.FiredBy = a.Resume.FiredBy
		}
		p.res.note("dispatched the agent workflow (correlation id %s, attempt %d)", a.CorrelationID, a.Attempt)
	}
	p.effects = nil
	p.res.Planned = out
}
