package resume

import (
	"fmt"
	"slices"
	"strings"
	"time"

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

// written is, on a copy of rec, the record verdict v writes over the
// active run a, with its replies posted (none yet: nil), before the rest of
// its decision: the run over, and the recess a recessed verdict opens.
func written(rec *state.Record, v *Verdict, a *state.Run, posted []*Comment, now time.Time) *state.Record {
	r := rec.Clone()
	applied(r, v.CorrelationID)
	if v.Verdict == VerdictRecessed {
		recess(r, v, a, posted, state.Cursor{}, now)
	}
	return r
}

// keepCopy sees, before the write of verdict id, that the newest copy among
// recess's comments is the copy of w, the record the verdict writes. Its
// last reply carries it when it was posted with room for it (posted, as
// the discussion shows them); otherwise recess's newest comment that
// carries a marker, not one of the verdict's replies, is edited to carry
// it, in place of the copy there. Without such a comment there is no copy
// to keep current (a discussion where recess never posted anything): a
// lost status comment then leaves nothing to restore from.
func (f *facts) keepCopy(rec *state.Record, id string, w *state.Record, posted []*Comment) plan {
	if n := len(posted); n > 0 && posted[n-1] != nil {
		if c, ok := state.ParseRecessMarker(posted[n-1].Body); ok && copyWriter(c) == id {
			return plan{}
		}
	}
	keep := keepMarker(w)
	for i := len(f.d.Comments) - 1; i >= 0 && keep != ""; i-- {
		c := &f.d.Comments[i]
		k, _, ok := state.ParseReplyMarker(c.Body)
		if !c.Mine || c.Deleted || !ok || k == id {
			continue
		}
		if cp, ok := state.ParseRecessMarker(c.Body); ok && copyWriter(cp) == id {
			return plan{} // kept by an earlier try of this verdict
		}
		body, ok := state.Recopy(c.Body, keep)
		if !ok {
			return logged("discussion %d: no room in recess's comment %s for the copy of the record verdict %s writes", rec.Discussion, c.ID, id)
		}
		return plan{first: []Effect{{Kind: EffectEdit, Subject: c.ID, Body: body}}}
	}
	return plan{}
}

// restore brings back the record of a discussion whose status comment is
// gone (deleted by a person, and the deletion's event, which gives back the
// whole record, never came: see Engine.Deleted), from the newest copy of
// it among recess's own comments (see kept), into rec. A copy is restored
// when it names this discussion (one that came with a discussion
// transferred from another repository names another) and when nothing
// recess posted after it says otherwise: comments written before copies
// were kept everywhere (a later verdict's reply, a note) mean the copy's
// recesses ended, and then nothing is restored. The replies' own ids and
// timestamps give back what the copy leaves out. A fire keeps no copy of
// its own: a dispatch this decision makes over what was restored looks for
// that first (see unaccountedRun). It returns the facts as they read over
// the restored record.
func (f *facts) restore(rec *state.Record) (plan, *facts) {
	var c *state.Record
	at := -1
	for i := len(f.d.Comments) - 1; i >= 0 && c == nil; i-- {
		if cm := &f.d.Comments[i]; cm.Mine && !cm.Deleted {
			c, _ = state.ParseRecessMarker(cm.Body)
			at = i
		}
	}
	if c == nil || c.Discussion != rec.Discussion {
		return plan{}, f
	}
	p := f.restoreFrom(rec, c, at)
	g := *f
	g.awaited = awaitedSignals(rec)
	if rec.Active == nil {
		g.afterCopy = []string{f.d.ID}
		for _, cm := range f.d.Comments {
			if !cm.Mine && !cm.Deleted && !rec.Seen.Covers(cm.ID, cm.CreatedAt) {
				g.afterCopy = append(g.afterCopy, cm.ID)
			}
		}
	}
	return p, &g
}

// restoreFrom restores into rec the copy c found in comment at, unless
// what recess posted after it says its recesses ended.
func (f *facts) restoreFrom(rec, c *state.Record, at int) plan {
	accounted := func(k string) bool {
		return slices.Contains(c.Applied, k) || c.OpenRFCs[k] != nil || strings.HasPrefix(k, "answer.")
	}
	for _, cm := range f.d.Comments[at+1:] {
		if k, _, ok := state.ParseReplyMarker(cm.Body); ok && cm.Mine && !accounted(k) {
			return plan{}
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
		for i := range f.d.Comments {
			cm := &f.d.Comments[i]
			if k, _, ok := state.ParseReplyMarker(cm.Body); ok && cm.Mine && k == id {
				addReply(rfc, cm)
			}
		}
		rec.OpenRFCs[id] = rfc
	}
	rec.Seen, rec.Commands, rec.Applied = c.Seen, c.Commands, c.Applied
	rec.Active, rec.Queued, rec.Escalated = c.Active, c.Queued, c.Escalated
	return warned("recess's status comment was gone: restored the record from recess's own comment %s (%s)", f.d.Comments[at].ID, restoredWhat(rec))
}

// dispatchUnlessRunning prepares the dispatch d, unless the record was
// restored from recess's copy and an agent run the copy does not account
// for is at work (unaccountedRun).
func (f *facts) dispatchUnlessRunning(rec *state.Record, d *dispatchPlan) (plan, error) {
	if p, held, err := f.unaccountedRun(rec, d); held || err != nil {
		return p, err
	}
	return f.prepareDispatch(rec, d)
}

// unaccountedRun looks, before a record restored from recess's copy of it
// dispatches d, for recess's 👀 where a dispatch after the copy would have
// put it (afterCopy: the discussion, a person's comment the copy's history
// does not cover). Every dispatch puts it there and every verdict or
// escalation takes it off, so one standing means a run was dispatched after
// the copy: its record went with the status comment, and the fire or fresh
// dispatch about to be made is one already made. Dispatching again would
// run the agent twice, and the run at work cannot be told from the
// discussion (its correlation id is gone), so its answer could not be taken
// either: recess escalates instead, the safe choice, and says so (no
// dispatch, a maintainer told, `/recess retry` dispatches again with the
// recess's context). The first decision asks for the 👀 (need.reacted; one
// request, spent only here) and decides again with the answer.
func (f *facts) unaccountedRun(rec *state.Record, d *dispatchPlan) (p plan, held bool, err error) {
	if f.afterCopy == nil || !f.s.readsReactions {
		return plan{}, false, nil
	}
	if !f.s.reacted.read {
		return plan{need: need{reacted: f.afterCopy}}, true, nil
	}
	if err := f.s.reacted.err; err != nil {
		return plan{}, true, fmt.Errorf("discussion %d: its record was restored from recess's copy, and whether an agent run is already at work there cannot be told: %w", rec.Discussion, err)
	}
	if len(f.s.reacted.v) == 0 {
		return plan{}, false, nil
	}
	a := d.run
	a.EyesOn = f.s.reacted.v[0]
	rec.Active, rec.Queued = a, nil
	return f.escalate(rec, a, "its status comment was deleted while an agent run was at work, and which run that was went with it", ""), true, nil
}
