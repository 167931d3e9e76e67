package resume

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// Intake handles a new discussion (or a comment on a discussion with
// nothing pending): a fresh, rate-limited dispatch. It is the same
// reconciliation as Inbound: which one applies is decided from the record
// and the discussion, not from the event.
func (e *Engine) Intake(ctx context.Context, number int) (*Result, error) {
	return e.run(ctx, number, passOpts{command: "intake", discussion: true}, (*pass).reconcile)
}

// Inbound handles a comment: it re-evaluates the discussion's open recesses
// and fires the ones whose trigger fired; otherwise the comment only
// accumulates. A comment on a discussion with nothing pending starts a fresh
// dispatch (see Intake).
func (e *Engine) Inbound(ctx context.Context, number int) (*Result, error) {
	return e.run(ctx, number, passOpts{command: "inbound", discussion: true}, (*pass).reconcile)
}

// Deleted handles the deletion of a comment. When the comment held the
// discussion's record (the store is a Restorer and says so) and no record
// stands in its place, the record is written back exactly as it was: its
// open recesses, its active run (whose verdict is then accepted) and
// nothing pending when nothing was. Then the discussion is reconciled as
// for any comment (Inbound). A record that cannot be read is refused, and
// nothing is written. A dry run (Engine.DryRun) plans the write back first
// and decides the rest over the record as written back.
func (e *Engine) Deleted(ctx context.Context, number int, gone DeletedComment) (*Result, error) {
	var notes, warnings []string
	opts := passOpts{command: "inbound", discussion: true}
	if r, ok := e.Store.(Restorer); ok {
		rec, err := r.Lost(ctx, number, gone)
		if err != nil {
			return &Result{Command: "inbound", Discussion: number, Missing: notFound(err)}, fmt.Errorf("restore the record of discussion %d: %w", number, err)
		}
		if rec != nil && rec.Discussion != number {
			return &Result{Command: "inbound", Discussion: number}, fmt.Errorf("restore the record of discussion %d: the deleted comment holds the record of discussion %d: %w", number, rec.Discussion, state.ErrCorrupt)
		}
		if rec != nil && e.DryRun {
			rec.Rev = "dry-run-restored"
			opts.restore = &restoring{rec: rec}
		} else if rec != nil {
			rec.Rev = ""
			switch err := e.Store.Save(ctx, rec); {
			case err == nil:
				warnings = append(warnings, fmt.Sprintf("recess's status comment was deleted: restored the record as it was (%s)", restoredWhat(rec)))
			case errors.Is(err, state.ErrConflict):
				notes = append(notes, "a deleted comment held recess's record, and a record stands in its place: kept that one")
			default:
				return &Result{Command: "inbound", Discussion: number}, fmt.Errorf("restore the record of discussion %d: %w", number, err)
			}
		}
	}
	res, err := e.run(ctx, number, opts, (*pass).reconcile)
	if r := opts.restore; r != nil {
		switch {
		case r.used:
			warnings = append(warnings, fmt.Sprintf("recess's status comment was deleted: would restore the record as it was (%s)", restoredWhat(r.rec)))
		case r.stood:
			notes = append(notes, "a deleted comment held recess's record, and a record stands in its place: would keep that one")
		}
	}
	if res != nil {
		res.Notes = append(notes, res.Notes...)
		res.Warnings = append(warnings, res.Warnings...)
	}
	return res, err
}

// restoredWhat says in words what a restored record holds.
func restoredWhat(rec *state.Record) string {
	var parts []string
	if n := len(rec.OpenRFCs); n > 0 {
		parts = append(parts, text.Count(n, "open recess", "open recesses"))
	}
	if rec.Active != nil {
		parts = append(parts, "the active agent run "+rec.Active.CorrelationID)
	}
	if rec.Queued != nil {
		parts = append(parts, "a queued dispatch")
	}
	if len(parts) == 0 {
		return "nothing pending"
	}
	return strings.Join(parts, ", ")
}

// reconcile brings one discussion up to date. The order matters: commands
// first (they can cancel, fire or retry), then the active run, then the open
// recesses, then a fresh dispatch for anything nobody has answered.
func (p *pass) reconcile() error {
	if p.d == nil && !errors.Is(p.snap.dErr, ErrNotFound) {
		return fmt.Errorf("read discussion %d: %w", p.rec.Discussion, p.snap.dErr)
	}
	if p.gone() {
		return nil
	}
	// Reopened or unlocked: watch it again.
	p.rec.Closed = ""
	if why := p.outOfScope(); p.snap.isNew && why != "" {
		// Never served: no record, no status comment, no answer.
		p.res.note("discussion %d is out of scope (%s): nothing to do", p.rec.Discussion, why)
		return nil
	}
	if p.snap.isNew {
		p.restore()
	}
	ask := p.commands()
	if err := p.checkActive(ask.retry); err != nil {
		return err
	}
	p.evaluate(ask)
	return p.intake()
}

// gone reports a discussion that was deleted, locked or closed; it then
// expires every recess (expired, not resolved: nobody answered), and drops
// an owed dispatch. An active run is left to finish; its verdict is still
// accepted.
func (p *pass) gone() bool {
	var reason string
	switch {
	case p.d == nil:
		reason = "the discussion was deleted"
	case p.d.Locked:
		reason = "the discussion was locked"
	case p.d.Closed:
		reason = "the discussion was closed"
	default:
		return false
	}
	if len(p.rec.OpenRFCs) == 0 && p.rec.Queued == nil {
		return true
	}
	for id := range p.rec.OpenRFCs {
		p.res.note("recess %s expired: %s", id, reason)
		delete(p.rec.OpenRFCs, id)
	}
	p.rec.Queued = nil
	p.rec.Closed = reason
	// Deleted: nothing to show people, only the record to update (seal
	// leaves the status as it was when there is no discussion).
	return true
}

// pruneDispatches keeps the rate limit's history to the last hour, and to
// its bound.
func (p *pass) pruneDispatches() {
	recent := slices.DeleteFunc(p.rec.Dispatches, func(t time.Time) bool { return p.now.Sub(t) >= time.Hour })
	p.rec.Dispatches = recent[max(0, len(recent)-state.MaxDispatchTimes):]
}

// evaluate re-evaluates every open recess from what the discussion shows,
// with what the slash commands asked.
func (p *pass) evaluate(ask asked) {
	ids := slices.SortedFunc(maps.Keys(p.rec.OpenRFCs), func(a, b string) int {
		return cmp.Or(p.rec.OpenRFCs[a].OpenedAt.Compare(p.rec.OpenRFCs[b].OpenedAt), strings.Compare(a, b))
	})
	p.evals = map[string]wait.Evaluation{}
	for _, id := range ids {
		rfc := p.rec.OpenRFCs[id]
		if ask.cancel != "" {
			p.close(id, rfc, p.text("note.cancelled", "author", ask.cancel))
			continue
		}
		t := rfc.Trigger
		o := p.observe(rfc)
		ev := wait.Evaluate(t, o, p.now)
		p.evals[id] = ev
		rfc.DueAt = ev.DueAt
		rfc.CancelAt = nil
		if at, ok := cancelMoment(t, o); ok {
			rfc.CancelAt = &at
		}
		if p.rec.Active != nil || p.plan != nil {
			// One agent run at a time: the others wait their turn.
			continue
		}
		switch {
		case ask.manual:
			p.fire(id, rfc, wait.FiredByManual, "a maintainer said /recess resume")
		case ev.Fired:
			if ev.FiredBy == wait.KindElapsed || ev.FiredBy == wait.FiredByExpired {
				// Time alone fired it: that was the sweep's job.
				p.warnIfSweepsMissing(id, ev.At)
			}
			p.fire(id, rfc, ev.FiredBy, ev.Reason)
		case ev.Cancelled:
			p.warnIfSweepsMissing(id, ev.At)
			p.close(id, rfc, p.text("note.expired", "at", humanTime(ev.At), "what", triggerWords(t, &o, false)))
		case rfc.DueAt != nil:
			p.warnIfSweepsMissing(id, *rfc.DueAt)
		}
	}
}

// warnIfSweepsMissing notices, in a run that is not a sweep, a moment at
// which time alone decided a recess (it fell due, or expired) long past:
// scheduled sweeps are not running (GitHub delays them under load and
// switches them off after 60 days without activity). This run has just
// caught the discussion up.
func (p *pass) warnIfSweepsMissing(id string, due time.Time) {
	if p.opts.sweep || due.IsZero() {
		return
	}
	late := p.now.Sub(due)
	if late > 6*p.cfg.SweepInterval {
		p.res.warn("recess %s was due %s ago: scheduled sweeps do not seem to run (check the front door's schedule and that the workflow is enabled)", id, late.Round(time.Minute))
	}
}

// observe recomputes what a recess's trigger sees from the discussion.
func (p *pass) observe(rfc *state.RFC) wait.Observed {
	o := wait.Observed{OpenedAt: rfc.OpenedAt, ThreadRoots: rfc.ThreadRoots}
	for i := range p.d.Comments {
		c := &p.d.Comments[i]
		if rfc.RepliesAfter.Covers(c.ID, c.CreatedAt) {
			continue
		}
		r := p.reading(c)
		if r.reply() {
			// A command with words after its line is also a reply.
			o.Replies = append(o.Replies, wait.Reply{ID: c.ID, Author: c.Author, ParentID: c.ParentID, CreatedAt: c.CreatedAt})
		}
		if !r.accepted() {
			continue
		}
		switch r.cmd.name {
		case "signal":
			o.Signals = append(o.Signals, wait.Signal{Name: r.cmd.arg, At: c.CreatedAt})
		case "resume":
			o.Signals = append(o.Signals, wait.Signal{Name: wait.AnySignal, At: c.CreatedAt})
		case "extend":
			if d, err := wait.ParseDuration(r.cmd.arg); err == nil {
				o.Extensions = append(o.Extensions, d)
			}
		}
	}
	return o
}

// fire turns an open recess into a resume: the RFC is replaced by the
// intent to dispatch, in one record write.
func (p *pass) fire(id string, rfc *state.RFC, firedBy, reason string) {
	until := newest(p.d)
	run := &state.Run{
		CorrelationID: p.cfg.NewResumeID(),
		State:         state.RunDispatching,
		Since:         rfc.Since,
		Until:         until,
		Attempt:       1,
		EyesOn:        p.eyesSubject(rfc.Since),
		Resume: &state.Resume{
			CorrelationID: id,
			FiredBy:       firedBy,
			FiredAt:       p.now,
			Trigger:       rfc.Trigger,
			RecessCount:   rfc.RecessCount,
		},
	}
	delete(p.rec.OpenRFCs, id)
	p.plan = &dispatchPlan{run: run}
	p.res.note("recess %s fired (%s): %s", id, firedBy, reason)
}

// close ends a recess without resuming it, with a note for people.
func (p *pass) close(id string, rfc *state.RFC, note string) {
	replyTo := ""
	if len(rfc.ThreadRoots) > 0 {
		replyTo = rfc.ThreadRoots[0]
	}
	p.notify(id+".closed", replyTo, note)
	delete(p.rec.OpenRFCs, id)
	// What was said meanwhile was deliberately not handed to an agent.
	p.rec.Seen = maxCursor(p.rec.Seen, newest(p.d))
	p.res.note("recess %s closed: %s", id, note)
}

// eyesSubject is what carries the EYES acknowledgement of a dispatch: the
// newest human comment after since, or the discussion.
func (p *pass) eyesSubject(since state.Cursor) string {
	for i := len(p.d.Comments) - 1; i >= 0; i-- {
		c := &p.d.Comments[i]
		if since.Covers(c.ID, c.CreatedAt) {
			break
		}
		if p.reading(c).reply() {
			return c.ID
		}
	}
	return p.d.ID
}

// intake starts a fresh dispatch when nothing is pending and people said
// something no agent run has seen: a new discussion, a comment after an
// adjourned answer. Fresh dispatches are rate-limited; one held back is
// queued and started by a later run.
func (p *pass) intake() error {
	if p.plan != nil {
		return p.dispatchUnlessRunning()
	}
	if p.rec.Active != nil || len(p.rec.OpenRFCs) > 0 || p.rec.Escalated != nil {
		return nil
	}
	if p.snap.isNew && p.opts.sweep {
		// The first look at a discussion belongs to its own event's run: a
		// sweep that meets a discussion with no record (a stray label, a
		// record not written yet) must not race that run with an intake.
		return nil
	}
	first := p.rec.Seen.At.IsZero()
	// Whatever no agent run was handed yet may wake recess (wake-on
	// decides); the note counts the replies among it.
	owed, unseen := first && p.firstWakes(), 0
	for i := range p.d.Comments {
		if c := &p.d.Comments[i]; !p.rec.Seen.Covers(c.ID, c.CreatedAt) {
			owed = owed || p.wakes(c)
			if p.reading(c).reply() {
				unseen++
			}
		}
	}
	if out := p.outOfScope(); !owed || out != "" {
		// Nothing owed, or out of scope: answered by nobody here (an open
		// recess was still served above until it resolved).
		if why := p.notWoken(first, unseen); !owed && out == "" && why != "" {
			p.res.note("%s: nothing to do", why)
		}
		p.rec.Queued = nil
		return nil
	}
	if n := len(p.rec.Dispatches); n >= p.cfg.MaxDispatchesPerHour {
		until := p.rec.Dispatches[n-p.cfg.MaxDispatchesPerHour].Add(time.Hour)
		return p.queue(until, fmt.Sprintf("recess already started %s here in the last hour", text.Count(n, "agent run", "agent runs")),
			fmt.Sprintf("%d fresh dispatches on this discussion in the last hour (max-dispatches-per-hour %d)", n, p.cfg.MaxDispatchesPerHour))
	}
	if p.rec.Queued != nil && p.now.Before(p.rec.Queued.Until) {
		return nil
	}
	if !p.snap.haveRecent {
		// The decision needs the repository's recent dispatches: it says
		// so, and the runner reads them (one request, spent only here)
		// and decides again.
		p.needRecent = true
		return nil
	}
	n, err := p.snap.recent, p.snap.recentErr
	if errors.Is(err, ErrNoWorkflow) {
		// GitHub would refuse the dispatch: escalated once, as a refused
		// one is (the count of its runs already said there is no such
		// workflow); the run fails once the record is written.
		if !p.snap.haveSetup {
			p.needSetup = true
			return nil
		}
		run := p.freshRun()
		run.EyesOn = ""
		p.rec.Active, p.rec.Queued = run, nil
		p.rec.Seen = maxCursor(p.rec.Seen, run.Until)
		p.refused(run, err)
		p.fail = err
		return nil
	}
	if err != nil {
		p.res.warn("could not count recent dispatches: %v; queued for a later run", err)
		return p.queue(p.now, "the repository's recent agent runs could not be counted", "the repository's dispatch count could not be read")
	}
	if n >= p.cfg.MaxDispatchesPerHour {
		return p.queue(p.now.Add(p.cfg.SweepInterval), "many agent runs started in this repository in the last hour",
			fmt.Sprintf("%d agent runs dispatched in the repository in the last hour (max-dispatches-per-hour %d)", n, p.cfg.MaxDispatchesPerHour))
	}
	p.plan = &dispatchPlan{run: p.freshRun(), fresh: true}
	if first {
		p.res.note("new discussion: fresh dispatch")
	} else {
		p.res.note("%d comment(s) nobody has answered: fresh dispatch", unseen)
	}
	return p.dispatchUnlessRunning()
}

// freshRun is the intent of a fresh dispatch: everything nobody has
// answered yet.
func (p *pass) freshRun() *state.Run {
	return &state.Run{
		CorrelationID: p.cfg.NewID(),
		State:         state.RunDispatching,
		Since:         p.rec.Seen,
		Until:         newest(p.d),
		Attempt:       1,
		EyesOn:        p.eyesSubject(p.rec.Seen),
	}
}

// queue holds a fresh dispatch back until a moment. reason is for the
// people in the discussion (plain words); why, for the maintainer's job
// summary, may name the setting.
func (p *pass) queue(until time.Time, reason, why string) error {
	if p.rec.Queued == nil || !p.rec.Queued.Until.Equal(until) || p.rec.Queued.Reason != reason {
		p.rec.Queued = &state.Queued{Until: until, Reason: reason}
	}
	p.res.note("fresh dispatch held back until %s: %s", until.Format(time.RFC3339), why)
	return nil
}

// cancelMoment is the first expiry moment (on_expire "cancel", anywhere in
// the trigger t) at which, given what the discussion shows now (o), the
// recess is cancelled; false when there is none.
func cancelMoment(t *wait.Trigger, o wait.Observed) (time.Time, bool) {
	var moments []time.Time
	for _, n := range nodes(t) {
		if n.Expires != nil && n.OnExpire == wait.OnExpireCancel {
			moments = append(moments, wait.Moment(*n.Expires, o))
		}
	}
	slices.SortFunc(moments, time.Time.Compare)
	for _, m := range moments {
		if wait.Evaluate(t, o, m).Cancelled {
			return m.UTC(), true
		}
	}
	return time.Time{}, false
}
