package resume

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/state"
)

// Visit is a sweep's visit of one discussion: what Inbound does, and it also
// looks up the active agent run on GitHub.
func (e *Engine) Visit(ctx context.Context, number int) (*Result, error) {
	return e.visit(ctx, number, "")
}

// visit is Visit of a thread of kind kind (empty: Engine.Kind).
func (e *Engine) visit(ctx context.Context, number int, kind state.Kind) (*Result, error) {
	return e.run(ctx, number, input{command: "sweep", kind: kind, discussion: true, sweep: true, rule: (*facts).reconcile})
}

// Sweep visits the discussions that need it, at most max-operations of them,
// in this order: due moments (soonest first), then records whose due moment
// the store cannot tell, then records that show activity the engine has not
// looked at (a lost event). The rest are left for the next sweep; due ones
// stay due, so they come first then. It fires due elapsed triggers, catches
// up missing_input triggers whose events were lost, applies expiries,
// reconciles unconfirmed or failed dispatches and escalates.
//
// What a sweep costs grows with what is due, never with what merely waits:
// a record with nothing due is not read. Lost events are found by the
// Threads port's ActivityProber, when it has one: a batched probe of the
// waiting records (a request per 100 on GitHub), at most maxProbed of them
// per sweep, compared with each record's Checked. A port without a probe
// leaves only visiting: then every record that waits on people alone is
// visited on every sweep.
func (e *Engine) Sweep(ctx context.Context) (*Result, error) {
	res, visit, pending, err := e.choose(ctx, "sweep")
	if err != nil {
		return res, err
	}
	var failures []error
	for _, s := range visit {
		// Each listed thread is visited as its own kind.
		n := s.Discussion
		r, err := e.visit(ctx, n, s.Kind.OrDiscussion())
		if err != nil {
			failures = append(failures, fmt.Errorf("discussion %d: %w", n, err))
			r.warn("%v", err)
			res.Sweep = append(res.Sweep, r)
			continue
		}
		res.include(r)
		if r.Dispatched && !res.Dispatched {
			// The outputs name the first dispatch; the summary lists them all.
			res.Dispatched, res.CorrelationID = true, r.CorrelationID
		}
		if r.Fired && !res.Fired {
			res.Fired, res.FiredBy = true, r.FiredBy
		}
		for _, w := range r.Warnings {
			res.warn("discussion %d: %s", n, w)
		}
	}
	res.note("visited %d of %s", len(visit), text.Count(pending, "pending discussion", "pending discussions"))
	return res, errors.Join(failures...)
}

// Plan is the first half of a sweep split for one writer per discussion: it
// only reads, and lists in Result.Plan the discussions a sweep would visit,
// in the order it would visit them (due moments soonest first, then records
// whose due moment the store cannot tell, then those that show activity the
// engine has not looked at), at most max-operations of them. A visit job per
// discussion (Visit), in that discussion's concurrency group, does the rest.
func (e *Engine) Plan(ctx context.Context) (*Result, error) {
	res, visit, pending, err := e.choose(ctx, "plan")
	if err != nil {
		return res, err
	}
	res.Plan = make([]int, len(visit))
	for i, s := range visit {
		res.Plan[i] = s.Discussion
	}
	res.note("%d of %s to visit", len(visit), text.Count(pending, "pending discussion", "pending discussions"))
	return res, nil
}

// choose chooses what a sweep visits; it only reads (the store's listing and
// the lost-event probe).
func (e *Engine) choose(ctx context.Context, command string) (res *Result, visit []state.Summary, pending int, err error) {
	c := e.cfg()
	now := e.Clock.Now().UTC()
	res = &Result{Command: command}
	list, err := e.Store.Pending(ctx)
	if err != nil {
		return res, nil, 0, fmt.Errorf("list pending discussions: %w", err)
	}
	if a, ok := e.Store.(PendingAdvisor); ok {
		for _, w := range a.PendingAdvice() {
			res.warn("%s", w)
		}
	}
	listed := len(list)
	if o, ok := e.Store.(Overlooker); ok && listed == 0 && c.SweepOnlyWhileWaiting {
		// About to switch the sweep off: not while a pending record the
		// listing cannot see may exist.
		if list, err = o.Overlooked(ctx); err != nil {
			res.warn("could not make sure that nothing pending escaped the listing (%v): the sweep stays on, and the next one looks again", err)
			list = nil
		}
		listed = len(list)
		if err != nil {
			listed = -1
		}
		if listed > 0 {
			res.note("found %s the listing left out: visiting to put it right", text.Count(listed, "pending discussion", "pending discussions"))
		}
	}
	changed := e.setupChanged(ctx, list, res)
	var due, unknown, waiting []state.Summary
	for _, s := range list {
		switch {
		case !s.Known, changed[s.Discussion]:
			unknown = append(unknown, s)
		case !s.NextDue.IsZero() && !s.NextDue.After(now):
			due = append(due, s)
		default:
			waiting = append(waiting, s)
		}
	}
	slices.SortStableFunc(due, func(a, b state.Summary) int { return cmp.Or(a.NextDue.Compare(b.NextDue), byNumber(a, b)) })
	slices.SortStableFunc(unknown, byNumber)
	chosen := append(append(due, unknown...), e.lostEvents(ctx, now, c, waiting, res)...)
	if len(chosen) > c.MaxOperations {
		res.Left = len(chosen) - c.MaxOperations
		chosen = chosen[:c.MaxOperations]
		res.warn("max-operations %d reached: %s left for the next sweep", c.MaxOperations, text.Count(res.Left, "discussion", "discussions"))
	}
	res.SweepSwitch = sweepSwitchFor(command, false, listed)
	return res, chosen, len(list), nil
}

// setupChanged picks the records whose dispatch GitHub refused for a
// reason no retry fixes and whose setup has changed since (see
// SetupReader): their visit dispatches again. Such records are otherwise
// left alone, as any waiting record; the setup is read (one request) only
// while one of them is listed. It never fails the sweep: a setup that
// cannot be read is reported, and the next sweep reads it again.
func (e *Engine) setupChanged(ctx context.Context, list []state.Summary, res *Result) map[int]bool {
	blocked := slices.DeleteFunc(slices.Clone(list), func(s state.Summary) bool { return s.Blocked == "" })
	if len(blocked) == 0 {
		return nil
	}
	setup, err := e.setup(ctx)
	if err != nil {
		res.warn("%s wait for the agent workflow to change, and it could not be read (%v): the next sweep looks again", text.Count(len(blocked), "discussion", "discussions"), err)
		return nil
	}
	changed := map[int]bool{}
	for _, s := range blocked {
		if s.Blocked != setup {
			changed[s.Discussion] = true
		}
	}
	if len(changed) > 0 {
		res.note("the agent workflow changed since GitHub refused to start it: visiting %s to dispatch again", text.Count(len(changed), "discussion", "discussions"))
	} else {
		res.note("%s wait for the agent workflow to change (GitHub refused to start it)", text.Count(len(blocked), "discussion", "discussions"))
	}
	return changed
}

// byNumber orders summaries by discussion number.
func byNumber(a, b state.Summary) int { return a.Discussion - b.Discussion }

// maxProbed bounds how many waiting records one sweep probes for lost
// events. Up to it, every sweep probes them all, so a lost event is caught by
// the next sweep. Beyond it, each sweep probes the next maxProbed in turn (a
// slice chosen by the sweep's moment: sweeps keep no memory), and a lost
// event waits up to waiting/maxProbed sweeps. On GitHub 500 is 5 requests and
// about 10 points a sweep, 120 points an hour at a 5-minute schedule whatever
// the number of recesses; probing 10,000 on every sweep would spend 2,400 of
// the 1,000 points an hour GitHub allows.
const maxProbed = 500

// lostEvents picks, among records with nothing due, those to visit because
// their discussion may hold comments the engine never looked at. It never
// fails the sweep: a probe that cannot be read is reported, and the next
// sweep probes again.
func (e *Engine) lostEvents(ctx context.Context, now time.Time, c Config, waiting []state.Summary, res *Result) []state.Summary {
	if len(waiting) == 0 {
		return nil
	}
	prober, ok := e.Threads.(ActivityProber)
	if !ok {
		// Only a visit can tell: every record that waits on people alone
		// (no due moment to come back at) is visited.
		return slices.DeleteFunc(slices.Clone(waiting), func(s state.Summary) bool { return !s.NextDue.IsZero() })
	}
	probed := slices.Clone(waiting)
	slices.SortFunc(probed, byNumber)
	if len(probed) > maxProbed {
		slot := int(now.Unix() / int64(max(c.SweepInterval/time.Second, 1)))
		from := slot % ((len(probed) + maxProbed - 1) / maxProbed) * maxProbed
		slice := make([]state.Summary, maxProbed)
		for i := range slice {
			slice[i] = probed[(from+i)%len(probed)]
		}
		probed = slice
	}
	seen, err := prober.Activity(ctx, probed)
	if err != nil {
		res.warn("could not probe %s for missed comments (the next sweep probes again): %v", text.Count(len(probed), "waiting discussion", "waiting discussions"), err)
		return nil
	}
	var out []state.Summary
	for _, s := range probed {
		if t, ok := seen[s.Discussion]; !ok || t.After(s.Checked) {
			out = append(out, s)
		}
	}
	res.note("probed %d of %s for missed comments: %d to visit", len(probed), text.Count(len(waiting), "waiting discussion", "waiting discussions"), len(out))
	return out
}
