package resume

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recess-action/recess/state"
)

// A person may delete recess's status comment. When the deletion's event
// arrives, the store gives the record back as the comment held it
// (Engine.Deleted). When that event is lost, the next run finds no record
// and restores it from the newest copy recess keeps in its own comments
// (restore). So that copy is never older than what recess last wrote:
//
//   - every comment recess posts carries a copy of the record its decision
//     writes: a verdict's last reply (the copy is decided before the reply
//     is posted, the write after it), and every note (the copy of the
//     record as written);
//   - a verdict that posts no reply (or whose last reply has no room for
//     the copy) puts its copy, before its write, into recess's newest
//     comment that carries a marker, in place of the copy there (keepCopy).
//
// A dispatch (a fire, a fresh run) writes no copy of its own: a copy would
// cost every dispatch a request. Its 👀 stands for it until its verdict
// takes it off, and a restored record that would dispatch looks for one
// first (unaccountedRun).

// kept is what a copy of the record holds: what a restore cannot read from
// the discussion again. The rest is read again or recomputed: where a
// recess counts replies from and its thread (from recess's own replies),
// due moments, the status text, the rate limit's recent history.
func kept(r *state.Record) *state.Record {
	c := state.New(r.Discussion)
	c.Seen, c.Commands = r.Seen, r.Commands
	c.Active, c.Queued, c.Escalated = r.Active, r.Queued, r.Escalated
	c.Applied = r.Applied
	if len(r.OpenRFCs) > 0 {
		c.OpenRFCs = make(map[string]*state.RFC, len(r.OpenRFCs))
	}
	for id, o := range r.OpenRFCs {
		c.OpenRFCs[id] = &state.RFC{Trigger: o.Trigger, OpenedAt: o.OpenedAt, Since: o.Since, RecessCount: o.RecessCount, Summary: o.Summary}
	}
	return c
}

// keepMarker is the copy of rec that a comment of recess's carries
// (state.RecessMarker of kept); "" when it cannot be encoded.
func keepMarker(rec *state.Record) string {
	m, err := state.RecessMarker(kept(rec))
	if err != nil {
		return ""
	}
	return m
}

// copyWriter is the verdict whose write a copy follows: the newest it
// applied, or, for a copy kept before copies named it, the one recess it
// holds (opened by the verdict whose reply carries it).
func copyWriter(c *state.Record) string {
	if n := len(c.Applied); n > 0 {
		return c.Applied[n-1]
	}
	for id := range c.OpenRFCs {
		return id
	}
	return ""
}

// written is the record verdict v writes over the active run a, before its
// replies and the rest of its decision: the run over, and the recess a
// recessed verdict opens.
func (p *pass) written(v *Verdict, a *state.Run) *state.Record {
	saved := p.rec
	defer func() { p.rec = saved }()
	p.rec = saved.Clone()
	p.applied(v.CorrelationID)
	if v.Verdict == VerdictRecessed {
		p.recess(v, a, nil, state.Cursor{})
	}
	return p.rec
}

// keepCopy sees, before the write of verdict id, that the newest copy among
// recess's comments is the copy of rec, the record the verdict writes. Its
// last reply carries it when it was posted with room for it (posted, as
// the discussion shows them); otherwise recess's newest comment that
// carries a marker, not one of the verdict's replies, is edited to carry
// it, in place of the copy there. Without such a comment there is no copy
// to keep current (a discussion where recess never posted anything): a
// lost status comment then leaves nothing to restore from.
func (p *pass) keepCopy(id string, rec *state.Record, posted []*Comment) {
	if n := len(posted); n > 0 && posted[n-1] != nil {
		if c, ok := state.ParseRecessMarker(posted[n-1].Body); ok && copyWriter(c) == id {
			return
		}
	}
	keep := keepMarker(rec)
	for i := len(p.d.Comments) - 1; i >= 0 && keep != ""; i-- {
		c := &p.d.Comments[i]
		k, _, ok := state.ParseReplyMarker(c.Body)
		if !c.Mine || c.Deleted || !ok || k == id {
			continue
		}
		if cp, ok := state.ParseRecessMarker(c.Body); ok && copyWriter(cp) == id {
			return // kept by an earlier try of this verdict
		}
		body, ok := state.Recopy(c.Body, keep)
		if !ok {
			p.logs = append(p.logs, fmt.Sprintf("discussion %d: no room in recess's comment %s for the copy of the record verdict %s writes", p.rec.Discussion, c.ID, id))
			return
		}
		p.first = append(p.first, Effect{Kind: EffectEdit, Subject: c.ID, Body: body})
		return
	}
}

// restore brings back the record of a discussion whose status comment is
// gone (deleted by a person, and the deletion's event, which gives back the
// whole record, never came: see Engine.Deleted), from the newest copy of
// it among recess's own comments (see kept). A copy is restored when it
// names this discussion (one that came with a discussion transferred from
// another repository names another) and when nothing recess posted after it
// says otherwise: comments written before copies were kept everywhere (a
// later verdict's reply, a note) mean the copy's recesses ended, and then
// nothing is restored. The replies' own ids and timestamps give back what
// the copy leaves out. A fire keeps no copy of its own: a dispatch this
// decision makes over what was restored looks for that first (see
// unaccountedRun).
func (p *pass) restore() {
	var c *state.Record
	at := -1
	for i := len(p.d.Comments) - 1; i >= 0 && c == nil; i-- {
		if cm := &p.d.Comments[i]; cm.Mine && !cm.Deleted {
			c, _ = state.ParseRecessMarker(cm.Body)
			at = i
		}
	}
	if c == nil || c.Discussion != p.rec.Discussion {
		return
	}
	defer func() {
		if p.rec.Active == nil {
			p.afterCopy = []string{p.d.ID}
			for _, cm := range p.d.Comments {
				if !cm.Mine && !cm.Deleted && !p.rec.Seen.Covers(cm.ID, cm.CreatedAt) {
					p.afterCopy = append(p.afterCopy, cm.ID)
				}
			}
		}
	}()
	accounted := func(k string) bool {
		return slices.Contains(c.Applied, k) || c.OpenRFCs[k] != nil || strings.HasPrefix(k, "answer.")
	}
	for _, cm := range p.d.Comments[at+1:] {
		if k, _, ok := state.ParseReplyMarker(cm.Body); ok && cm.Mine && !accounted(k) {
			return
		}
	}
	if len(c.Applied) == 0 {
		// A copy of one recess, kept by the reply of the verdict that
		// opened it.
		c.Applied = []string{copyWriter(c)}
		for _, rfc := range c.OpenRFCs {
			c.Seen = rfc.Since
		}
	}
	for id, rfc := range c.OpenRFCs {
		rfc.RepliesAfter = rfc.Since
		for i := range p.d.Comments {
			cm := &p.d.Comments[i]
			if k, _, ok := state.ParseReplyMarker(cm.Body); ok && cm.Mine && k == id {
				addReply(rfc, cm)
			}
		}
		p.rec.OpenRFCs[id] = rfc
	}
	p.rec.Seen, p.rec.Commands, p.rec.Applied = c.Seen, c.Commands, c.Applied
	p.rec.Active, p.rec.Queued, p.rec.Escalated = c.Active, c.Queued, c.Escalated
	p.awaited = awaitedSignals(p.rec)
	p.res.warn("recess's status comment was gone: restored the record from recess's own comment %s (%s)", p.d.Comments[at].ID, restoredWhat(p.rec))
}

// dispatchUnlessRunning prepares the decision's dispatch, unless the record
// was restored from recess's copy and an agent run the copy does not
// account for is at work (unaccountedRun).
func (p *pass) dispatchUnlessRunning() error {
	if held, err := p.unaccountedRun(); held || err != nil {
		return err
	}
	return p.prepareDispatch()
}

// unaccountedRun looks, before a record restored from recess's copy of it
// dispatches, for recess's 👀 where a dispatch after the copy would have put
// it (afterCopy: the discussion, a person's comment the copy's history does
// not cover). Every dispatch puts it there and every verdict or escalation
// takes it off, so one standing means a run was dispatched after the copy:
// its record went with the status comment, and the fire or fresh dispatch
// about to be made is one already made. Dispatching again would run the
// agent twice, and the run at work cannot be told from the discussion (its
// correlation id is gone), so its answer could not be taken either: recess
// escalates instead, the safe choice, and says so (no dispatch, a
// maintainer told, `/recess retry` dispatches again with the recess's
// context). The first decision asks for the 👀 (needReacted; one request,
// spent only here) and decides again with the answer.
func (p *pass) unaccountedRun() (held bool, err error) {
	if p.afterCopy == nil || !p.snap.readsReactions {
		return false, nil
	}
	if !p.snap.haveReacted {
		p.needReacted = p.afterCopy
		return true, nil
	}
	if err := p.snap.reactedErr; err != nil {
		return true, fmt.Errorf("discussion %d: its record was restored from recess's copy, and whether an agent run is already at work there cannot be told: %w", p.rec.Discussion, err)
	}
	if len(p.snap.reacted) == 0 {
		return false, nil
	}
	a := p.plan.run
	p.plan = nil
	a.EyesOn = p.snap.reacted[0]
	p.rec.Active, p.rec.Queued = a, nil
	p.escalate(a, "its status comment was deleted while an agent run was at work, and which run that was went with it", "")
	return true, nil
}
