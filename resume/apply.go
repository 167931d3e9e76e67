package resume

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

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
// and its index, so a re-run of the step never posts twice; then the record
// is written (the run ends; a recessed verdict opens its recess); then the
// EYES acknowledgement is removed.
//
// A verdict that leaves nothing pending looks at the discussion once more
// after its write. A comment written while the verdict worked may have had
// its inbound run see the agent run still active (so it only accumulated),
// while the verdict read the discussion before it: with nothing pending no
// sweep would come back for it. Any inbound run that starts after the write
// sees the run over, so this second look closes the gap.
func (e *Engine) Verdict(ctx context.Context, v *Verdict, runID int64) (*Result, error) {
	idle := false
	res, err := e.run(ctx, v.DiscussionNumber, passOpts{command: "verdict"}, func(p *pass) error {
		err := p.verdict(v, runID)
		idle = err == nil && !p.isNew && !p.rec.Pending()
		return err
	})
	if err != nil || !idle {
		return res, err
	}
	again, err := e.run(ctx, v.DiscussionNumber, passOpts{command: "verdict"}, (*pass).reconcile)
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
	if _, err := p.discussion(); err != nil {
		return fmt.Errorf("read discussion %d: %w", v.DiscussionNumber, err)
	}
	targets := make([]string, len(v.Replies))
	for i, r := range v.Replies {
		if r.ReplyTo == "" {
			continue
		}
		c := p.comment(r.ReplyTo)
		if c == nil {
			return refuse(fmt.Sprintf("verdict.replies[%d].reply_to", i), "no comment %q in discussion %d", r.ReplyTo, v.DiscussionNumber)
		}
		targets[i] = c.ID
		if c.ParentID != "" {
			// GitHub threads one level deep: a reply to a reply goes under its parent.
			targets[i] = c.ParentID
		}
	}

	// Everything in the snapshot was there before recess posted anything:
	// with GitHub's one-second timestamps, only this tells a comment
	// written in the same second as recess's reply from a later one.
	before := newest(p.d)

	// Side effects from here on; each is idempotent.
	var posted []*Comment
	for i, r := range v.Replies {
		c, err := p.postReply(v.CorrelationID, i, targets[i], r.Body)
		if err != nil {
			return err
		}
		posted = append(posted, c)
	}

	p.rec.Active = nil
	p.rec.Applied = append(p.rec.Applied, v.CorrelationID)
	if n := len(p.rec.Applied); n > state.MaxApplied {
		p.rec.Applied = p.rec.Applied[n-state.MaxApplied:]
	}
	if a.EyesOn != "" {
		p.unreact = append(p.unreact, a.EyesOn)
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
			Trigger:      v.TriggerJSON,
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
	if err := p.intake(); err != nil {
		return err
	}
	return p.finish()
}

// postReply posts reply i of a verdict unless an earlier attempt already did.
func (p *pass) postReply(id string, i int, replyTo, body string) (*Comment, error) {
	for j := range p.d.Comments {
		c := &p.d.Comments[j]
		if !c.Mine {
			continue
		}
		if k, n, ok := state.ParseReplyMarker(c.Body); ok && k == id && n == i {
			return c, nil
		}
	}
	// The agent's text may carry anything (a prompt-injected marker among
	// it): only the marker recess appends may count.
	c, err := p.e.Discussions.Reply(p.ctx, p.d.ID, replyTo, state.Neutralize(body)+"\n\n"+state.ReplyMarker(id, i))
	if err != nil {
		return nil, fmt.Errorf("post reply %d of verdict %s: %w", i, id, err)
	}
	p.d.Comments = append(p.d.Comments, *c)
	return c, nil
}

// Claim is the agent workflow's first step: is this run the one recess
// expects for the correlation id? A duplicate or stale dispatch gets
// Result.Stale and the workflow skips its work. The first run to claim an
// id owns it.
func (e *Engine) Claim(ctx context.Context, number int, correlationID string, runID int64) (*Result, error) {
	return e.run(ctx, number, passOpts{command: "claim"}, func(p *pass) error {
		p.res.CorrelationID = correlationID
		a := p.rec.Active
		switch {
		case a == nil || a.CorrelationID != correlationID:
			p.res.Stale = true
			p.res.note("%s is not the run recess expects for discussion %d: stale", correlationID, number)
			return nil
		case a.State == state.RunEscalated:
			p.res.Stale = true
			p.res.note("%s was escalated: stale", correlationID)
			return nil
		case a.RunID != 0 && runID != 0 && a.RunID != runID:
			// GitHub named the run for this id (the dispatch answer, a
			// lookup by run-name, or the first claim): any other run that
			// carries the id is a duplicate dispatch.
			p.res.Stale = true
			p.res.note("%s belongs to run %d: this run (%d) is a duplicate", correlationID, a.RunID, runID)
			return nil
		}
		a.Claimed = true
		if runID != 0 {
			a.RunID = runID
		}
		if a.State == state.RunDispatching {
			a.State, a.DispatchedAt = state.RunDispatched, p.now
		}
		p.res.note("run %d claimed %s", runID, correlationID)
		return p.save()
	})
}

// Status reports the discussion's open recesses without changing anything.
func (e *Engine) Status(ctx context.Context, number int) (*Result, error) {
	return e.run(ctx, number, passOpts{command: "status"}, func(p *pass) error {
		if p.isNew {
			p.res.note("recess has no record of discussion %d", number)
			return nil
		}
		if _, err := p.discussion(); err != nil {
			return fmt.Errorf("read discussion %d: %w", number, err)
		}
		for id, rfc := range p.rec.OpenRFCs {
			t, err := wait.ParseTrigger(rfc.Trigger, wait.TriggerLimits{})
			if err != nil {
				return fmt.Errorf("record of discussion %d: open_rfcs[%q].trigger: %v: %w", number, id, err, state.ErrCorrupt)
			}
			if p.evals == nil {
				p.evals, p.observed = map[string]wait.Evaluation{}, map[string]wait.Observed{}
			}
			o := p.observe(rfc)
			p.evals[id], p.observed[id] = wait.Evaluate(t, o, p.now), o
		}
		p.res.note("%s", p.statusLine())
		return nil
	})
}

// StatusAll reports every discussion with something pending, without
// changing anything.
func (e *Engine) StatusAll(ctx context.Context) (*Result, error) {
	res := &Result{Command: "status"}
	list, err := e.Store.Pending(ctx)
	if err != nil {
		return res, fmt.Errorf("list pending discussions: %w", err)
	}
	for _, s := range list {
		r, err := e.Status(ctx, s.Discussion)
		if err != nil {
			return res, fmt.Errorf("discussion %d: %w", s.Discussion, err)
		}
		res.include(r)
	}
	res.note("%d discussion(s) with something pending", len(list))
	return res, nil
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
// Discussions port's ActivityProber, when it has one: a batched probe of the
// waiting records (a request per 100 on GitHub), at most maxProbed of them
// per sweep, compared with each record's Checked. A port without a probe
// leaves only visiting: then every record that waits on people alone is
// visited on every sweep.
func (e *Engine) Sweep(ctx context.Context) (*Result, error) {
	c := e.cfg()
	now := e.Clock.Now().UTC()
	res := &Result{Command: "sweep"}
	list, err := e.Store.Pending(ctx)
	if err != nil {
		return res, fmt.Errorf("list pending discussions: %w", err)
	}
	var due, unknown, waiting []state.Summary
	for _, s := range list {
		switch {
		case !s.Known:
			unknown = append(unknown, s)
		case !s.NextDue.IsZero() && !s.NextDue.After(now):
			due = append(due, s)
		default:
			waiting = append(waiting, s)
		}
	}
	sort.SliceStable(due, func(i, j int) bool {
		if !due[i].NextDue.Equal(due[j].NextDue) {
			return due[i].NextDue.Before(due[j].NextDue)
		}
		return due[i].Discussion < due[j].Discussion
	})
	sort.SliceStable(unknown, func(i, j int) bool { return unknown[i].Discussion < unknown[j].Discussion })
	visit := append(append(due, unknown...), e.lostEvents(ctx, now, c, waiting, res)...)
	if len(visit) > c.MaxOperations {
		res.Left = len(visit) - c.MaxOperations
		visit = visit[:c.MaxOperations]
		res.warn("max-operations %d reached: %d discussion(s) left for the next sweep", c.MaxOperations, res.Left)
	}
	var failures []error
	for _, s := range visit {
		r, err := e.Reconcile(ctx, s.Discussion)
		if err != nil {
			failures = append(failures, fmt.Errorf("discussion %d: %w", s.Discussion, err))
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
			res.warn("discussion %d: %s", s.Discussion, w)
		}
	}
	res.note("visited %d of %d pending discussion(s)", len(visit), len(list))
	return res, errors.Join(failures...)
}

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
	prober, ok := e.Discussions.(ActivityProber)
	if !ok {
		// Only a visit can tell: every record that waits on people alone
		// (no due moment to come back at) is visited.
		var out []state.Summary
		for _, s := range waiting {
			if s.NextDue.IsZero() {
				out = append(out, s)
			}
		}
		return out
	}
	probed := slices.Clone(waiting)
	slices.SortFunc(probed, func(a, b state.Summary) int { return a.Discussion - b.Discussion })
	if len(probed) > maxProbed {
		slot := int(now.Unix() / int64(max(c.SweepInterval/time.Second, 1)))
		from := slot % ((len(probed) + maxProbed - 1) / maxProbed) * maxProbed
		slice := make([]state.Summary, maxProbed)
		for i := range slice {
			slice[i] = probed[(from+i)%len(probed)]
		}
		probed = slice
	}
	numbers := make([]int, len(probed))
	for i, s := range probed {
		numbers[i] = s.Discussion
	}
	seen, err := prober.Activity(ctx, numbers)
	if err != nil {
		res.warn("could not probe %d waiting discussion(s) for missed comments (the next sweep probes again): %v", len(probed), err)
		return nil
	}
	var out []state.Summary
	for _, s := range probed {
		if t, ok := seen[s.Discussion]; !ok || t.After(s.Checked) {
			out = append(out, s)
		}
	}
	res.note("probed %d of %d waiting discussion(s) for missed comments: %d to visit", len(probed), len(waiting), len(out))
	return out
}
