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
	return e.run(ctx, number, input{command: "intake", discussion: true, rule: (*facts).reconcile})
}

// Inbound handles a comment: it re-evaluates the discussion's open recesses
// and fires the ones whose trigger fired; otherwise the comment only
// accumulates. A comment on a discussion with nothing pending starts a fresh
// dispatch (see Intake).
func (e *Engine) Inbound(ctx context.Context, number int) (*Result, error) {
	return e.run(ctx, number, input{command: "inbound", discussion: true, rule: (*facts).reconcile})
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
	var back plan
	in := input{command: "inbound", discussion: true, rule: (*facts).reconcile}
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
			in.restore = rec
		} else if rec != nil {
			rec.Rev = ""
			err := e.Store.Save(ctx, rec)
			if err != nil && !errors.Is(err, state.ErrConflict) {
				return &Result{Command: "inbound", Discussion: number}, fmt.Errorf("restore the record of discussion %d: %w", number, err)
			}
			back = writtenBack(rec, err == nil, false)
		}
	}
	res, err := e.run(ctx, number, in)
	if res != nil {
		res.Notes = append(back.res.Notes, res.Notes...)
		res.Warnings = append(back.res.Warnings, res.Warnings...)
	}
	return res, err
}

// writtenBack says what became of the record a deleted comment held: it
// was written back (restored), or a record stands in its place and is
// kept. A dry run (would) says what a real run would do.
func writtenBack(rec *state.Record, restored, would bool) plan {
	restore, keep := "restored", "kept"
	if would {
		restore, keep = "would restore", "would keep"
	}
	if restored {
		return warned("recess's status comment was deleted: %s the record as it was (%s)", restore, restoredWhat(rec))
	}
	return noted("a deleted comment held recess's record, and a record stands in its place: %s that one", keep)
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
func (f *facts) reconcile(rec *state.Record) (plan, error) {
	if f.d == nil && !errors.Is(f.s.dErr, ErrNotFound) {
		return plan{}, fmt.Errorf("read discussion %d: %w", rec.Discussion, f.s.dErr)
	}
	if gone, p := f.gone(rec); gone {
		return p, nil
	}
	// Reopened or unlocked: watch it again.
	rec.Closed = ""
	if why := f.outOfScope(); f.s.isNew && why != "" {
		// Never served: no record, no status comment, no answer.
		return noted("%s %d is out of scope (%s): nothing to do", f.kind().noun, rec.Discussion, why), nil
	}
	var p plan
	if f.s.isNew {
		p, f = f.restore(rec)
	}
	obs := f.observeAll(rec)
	ask, q := f.commands(rec, obs)
	p = p.with(q)
	q, err := f.checkActive(rec, ask.retry)
	if p = p.with(q); err != nil {
		return p, err
	}
	return f.evaluate(rec, p, ask, obs)
}

// gone reports a thread that was deleted, locked, closed or merged; it
// then expires every recess (expired, not resolved: nobody answered), and
// drops an owed dispatch. An active run is left to finish; its verdict is
// still accepted. Reopening starts nothing by itself.
func (f *facts) gone(rec *state.Record) (bool, plan) {
	var how string
	switch {
	case f.d == nil:
		how = "deleted"
	case f.d.Locked:
		how = "locked"
	case f.d.Merged:
		how = "merged"
	case f.d.Closed:
		how = "closed"
	default:
		return false, plan{}
	}
	reason := "the " + f.kind().noun + " was " + how
	var p plan
	if len(rec.OpenRFCs) == 0 && rec.Queued == nil {
		return true, p
	}
	for id := range rec.OpenRFCs {
		p = p.with(noted("recess %s expired: %s", id, reason))
		delete(rec.OpenRFCs, id)
	}
	rec.Queued = nil
	rec.Closed = reason
	// Deleted: nothing to show people, only the record to update (decide
	// leaves the status as it was when there is no discussion).
	return true, p
}

// pruned keeps the rate limit's history to the last hour, and to its bound.
func pruned(dispatches []time.Time, now time.Time) []time.Time {
	recent := slices.DeleteFunc(dispatches, func(t time.Time) bool { return now.Sub(t) >= time.Hour })
	return recent[max(0, len(recent)-state.MaxDispatchTimes):]
}

// evaluate re-evaluates every open recess from what the discussion shows
// (obs), with what the slash commands asked, after the plan p decided so
// far (the open recesses wait behind a dispatch it holds), then hands the
// dispatch decided, or none, to intake. It returns p with what they add.
func (f *facts) evaluate(rec *state.Record, p plan, ask asked, obs observations) (plan, error) {
	ids := slices.SortedFunc(maps.Keys(rec.OpenRFCs), func(a, b string) int {
		return cmp.Or(rec.OpenRFCs[a].OpenedAt.Compare(rec.OpenRFCs[b].OpenedAt), strings.Compare(a, b))
	})
	p.obs, p.evals = obs, map[string]wait.Evaluation{}
	for _, id := range ids {
		rfc := rec.OpenRFCs[id]
		if ask.cancel != "" {
			p = p.with(f.close(rec, id, rfc, f.text("note.cancelled", "author", ask.cancel)))
			continue
		}
		t, o := rfc.Trigger, obs[id]
		ev := wait.Evaluate(t, o, f.now)
		p.evals[id] = ev
		rfc.DueAt = ev.DueAt
		rfc.CancelAt = nil
		if at, ok := cancelMoment(t, o); ok {
			rfc.CancelAt = &at
		}
		if rec.Active != nil || p.dispatch != nil {
			// One agent run at a time: the others wait their turn.
			continue
		}
		switch {
		case ask.manual:
			p = p.with(f.fire(rec, id, rfc, wait.FiredByManual, "a maintainer said /recess resume"))
		case ev.Fired:
			if ev.FiredBy == wait.KindElapsed || ev.FiredBy == wait.FiredByExpired {
				// Time alone fired it: that was the sweep's job.
				p = p.with(f.warnIfSweepsMissing(id, ev.At))
			}
			p = p.with(f.fire(rec, id, rfc, ev.FiredBy, ev.Reason))
		case ev.Cancelled:
			p = p.with(f.warnIfSweepsMissing(id, ev.At))
			p = p.with(f.close(rec, id, rfc, f.text("note.expired", "at", humanTime(ev.At), "what", triggerWords(t, &o, false))))
		case rfc.DueAt != nil:
			p = p.with(f.warnIfSweepsMissing(id, *rfc.DueAt))
		}
	}
	d := p.dispatch
	p.dispatch = nil
	q, err := f.intake(rec, d)
	return p.with(q), err
}

// warnIfSweepsMissing notices, in a run that is not a sweep, a moment at
// which time alone decided a recess (it fell due, or expired) long past:
// scheduled sweeps are not running (GitHub delays them under load and
// switches them off after 60 days without activity). This run has just
// caught the discussion up.
func (f *facts) warnIfSweepsMissing(id string, due time.Time) plan {
	if late := f.now.Sub(due); !f.in.sweep && !due.IsZero() && late > 6*f.cfg.SweepInterval {
		return warned("recess %s was due %s ago: scheduled sweeps do not seem to run (check the front door's schedule and that the workflow is enabled)", id, late.Round(time.Minute))
	}
	return plan{}
}

// observations are what the open recesses' triggers see, by correlation
// id: observed once per decision, and read by the evaluation, the status
// and the report.
type observations map[string]wait.Observed

// observeAll observes every open recess of rec.
func (f *facts) observeAll(rec *state.Record) observations {
	obs := observations{}
	for id, rfc := range rec.OpenRFCs {
		obs[id] = f.observe(rfc)
	}
	return obs
}

// observe recomputes what a recess's trigger sees from the discussion.
func (f *facts) observe(rfc *state.RFC) wait.Observed {
	o := wait.Observed{OpenedAt: rfc.OpenedAt, ThreadRoots: rfc.ThreadRoots}
	for i := range f.d.Comments {
		c := &f.d.Comments[i]
		if rfc.RepliesAfter.Covers(c.ID, c.CreatedAt) {
			continue
		}
		r := f.reading(c)
		if r.reply() || r.quiet {
			// A command with words after its line is also a reply.
			o.Replies = append(o.Replies, wait.Reply{ID: c.ID, Author: c.Author, Root: c.Root, CreatedAt: c.CreatedAt, NamedOnly: r.quiet})
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
func (f *facts) fire(rec *state.Record, id string, rfc *state.RFC, firedBy, reason string) plan {
	run := f.intent(rfc.Since, &state.Resume{
		CorrelationID: id,
		FiredBy:       firedBy,
		FiredAt:       f.now,
		Trigger:       rfc.Trigger,
		RecessCount:   rfc.RecessCount,
	})
	delete(rec.OpenRFCs, id)
	p := noted("recess %s fired (%s): %s", id, firedBy, reason)
	p.dispatch = &dispatchPlan{run: run}
	return p
}

// close ends a recess without resuming it, with a note for people.
func (f *facts) close(rec *state.Record, id string, rfc *state.RFC, note string) plan {
	replyTo := ""
	if len(rfc.ThreadRoots) > 0 {
		replyTo = rfc.ThreadRoots[0]
	}
	delete(rec.OpenRFCs, id)
	// What was said meanwhile was deliberately not handed to an agent.
	rec.Seen = maxCursor(rec.Seen, newest(f.d))
	return notify(id+".closed", replyTo, note).with(noted("recess %s closed: %s", id, note))
}

// eyesSubject is what carries the EYES acknowledgement of a dispatch: the
// newest human comment after since, or the discussion.
func (f *facts) eyesSubject(since state.Cursor) string {
	for i := len(f.d.Comments) - 1; i >= 0; i-- {
		c := &f.d.Comments[i]
		if since.Covers(c.ID, c.CreatedAt) {
			break
		}
		if f.reading(c).reply() {
			return c.ID
		}
	}
	return f.d.ID
}

// intake makes the dispatch d already decided (unless an agent run is at
// work: see dispatchUnlessRunning), or else starts a fresh dispatch when
// nothing is pending and people said something no agent run has seen: a
// new discussion, a comment after an adjourned answer. Fresh dispatches are
// rate-limited; one held back is queued and started by a later run.
func (f *facts) intake(rec *state.Record, d *dispatchPlan) (plan, error) {
	if d != nil {
		return f.dispatchUnlessRunning(rec, d)
	}
	if rec.Active != nil || len(rec.OpenRFCs) > 0 || rec.Escalated != nil {
		return plan{}, nil
	}
	if f.s.isNew && f.in.sweep {
		// The first look at a discussion belongs to its own event's run: a
		// sweep that meets a discussion with no record (a stray label, a
		// record not written yet) must not race that run with an intake.
		return plan{}, nil
	}
	first := rec.Seen.At.IsZero()
	// Whatever no agent run was handed yet may wake recess (wake-on
	// decides); the note counts the replies among it.
	owed, unseen := first && f.firstWakes(), 0
	for i := range f.d.Comments {
		if c := &f.d.Comments[i]; !rec.Seen.Covers(c.ID, c.CreatedAt) {
			owed = owed || f.wakes(c)
			if f.reading(c).reply() {
				unseen++
			}
		}
	}
	if out := f.outOfScope(); !owed || out != "" {
		// Nothing owed, or out of scope: answered by nobody here (an open
		// recess was still served above until it resolved).
		rec.Queued = nil
		if why := f.notWoken(first, unseen); !owed && out == "" && why != "" {
			return noted("%s: nothing to do", why), nil
		}
		return plan{}, nil
	}
	if n := len(rec.Dispatches); n >= f.cfg.MaxDispatchesPerHour {
		until := rec.Dispatches[n-f.cfg.MaxDispatchesPerHour].Add(time.Hour)
		return queue(rec, until, fmt.Sprintf("recess already started %s here in the last hour", text.Count(n, "agent run", "agent runs")),
			fmt.Sprintf("%d fresh dispatches on this %s in the last hour (max-dispatches-per-hour %d)", n, f.kind().noun, f.cfg.MaxDispatchesPerHour)), nil
	}
	if rec.Queued != nil && f.now.Before(rec.Queued.Until) {
		return plan{}, nil
	}
	if !f.s.recent.read {
		// The decision needs the repository's recent dispatches: it says
		// so, and the runner reads them (one request, spent only here)
		// and decides again.
		return plan{need: need{recent: true}}, nil
	}
	n, err := f.s.recent.v, f.s.recent.err
	if errors.Is(err, ErrNoWorkflow) {
		// GitHub would refuse the dispatch: escalated once, as a refused
		// one is (the count of its runs already said there is no such
		// workflow); the run fails once the record is written.
		if !f.s.setup.read {
			return plan{need: need{setup: true}}, nil
		}
		run := f.intent(rec.Seen, nil)
		run.EyesOn = ""
		rec.Active, rec.Queued = run, nil
		rec.Seen = maxCursor(rec.Seen, run.Until)
		p := f.refused(rec, run, err)
		p.fail = err
		return p, nil
	}
	if err != nil {
		return warned("could not count recent dispatches: %v; queued for a later run", err).with(
			queue(rec, f.now, "the repository's recent agent runs could not be counted", "the repository's dispatch count could not be read")), nil
	}
	if n >= f.cfg.MaxDispatchesPerHour {
		return queue(rec, f.now.Add(f.cfg.SweepInterval), "many agent runs started in this repository in the last hour",
			fmt.Sprintf("%d agent runs dispatched in the repository in the last hour (max-dispatches-per-hour %d)", n, f.cfg.MaxDispatchesPerHour)), nil
	}
	d = &dispatchPlan{run: f.intent(rec.Seen, nil), fresh: true}
	p := noted("%d comment(s) nobody has answered: fresh dispatch", unseen)
	if first {
		p = noted("new %s: fresh dispatch", f.kind().noun)
	}
	q, err := f.dispatchUnlessRunning(rec, d)
	return p.with(q), err
}

// intent is a new dispatch of what people said after since, up to the
// newest comment, its EYES on the newest reply among it (eyesSubject): a
// resume's when it carries resume (a correlation id of NewResumeID), else
// a fresh dispatch's (NewID). A fresh dispatch of everything nobody has
// answered yet starts after the record's Seen.
func (f *facts) intent(since state.Cursor, resume *state.Resume) *state.Run {
	id := f.cfg.NewID
	if resume != nil {
		id = f.cfg.NewResumeID
	}
	return &state.Run{CorrelationID: id(), State: state.RunDispatching, Since: since, Until: newest(f.d),
		Attempt: 1, EyesOn: f.eyesSubject(since), Resume: resume}
}

// queue holds a fresh dispatch back until a moment. reason is for the
// people in the discussion (plain words); why, for the maintainer's job
// summary, may name the setting.
func queue(rec *state.Record, until time.Time, reason, why string) plan {
	if rec.Queued == nil || !rec.Queued.Until.Equal(until) || rec.Queued.Reason != reason {
		rec.Queued = &state.Queued{Until: until, Reason: reason}
	}
	return noted("fresh dispatch held back until %s: %s", until.Format(time.RFC3339), why)
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
