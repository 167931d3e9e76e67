package resume

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/recess-action/recess/state"
)

// humanTime is how moments are shown to people: "Mon 23 Nov 12:00 UTC".
func humanTime(t time.Time) string { return t.UTC().Format("Mon 2 Jan 15:04 UTC") }

// status is the visible text of the record: what recess waits for, in plain
// words. It changes only when the picture changes (a new reply, a fire, an
// escalation), never with the clock, so an unchanged picture costs no write.
func (p *pass) status() string {
	return p.statusLine() + "\n\n<sub>This comment is kept up to date by recess. Maintainers: `/recess status`, `cancel`, `resume`, `signal NAME`, `retry`, `extend DURATION`.</sub>"
}

// statusLine is the one-line status.
func (p *pass) statusLine() string {
	r := p.rec
	switch {
	case r.Active != nil && r.Active.State == state.RunEscalated:
		reason := ""
		if r.Escalated != nil {
			reason = ": " + r.Escalated.Reason
		}
		return "⚠️ Escalated" + reason + ". No agent runs start until a maintainer says `/recess retry`."
	case r.Active != nil:
		what := "An agent run is working on this discussion"
		if res := r.Active.Resume; res != nil {
			what = fmt.Sprintf("Resumed (%s); an agent run is working on this discussion", firedByWords(res.FiredBy))
		}
		if r.Active.Attempt > 1 {
			what += fmt.Sprintf(" (attempt %d of %d)", r.Active.Attempt, p.cfg.MaxAttempts)
		}
		return "▶️ " + what + "."
	case len(r.OpenRFCs) > 0:
		var parts []string
		for _, id := range sortedRFCs(r) {
			rfc := r.OpenRFCs[id]
			t, err := ParseTrigger(rfc.Trigger, TriggerLimits{})
			if err != nil {
				continue
			}
			o, ok := p.observed[id]
			if !ok {
				o = p.observe(rfc)
			}
			parts = append(parts, describe(t, o))
		}
		return "⏸️ Waiting for " + strings.Join(parts, "; and for ") + "."
	case r.Queued != nil:
		return "⏳ A reply is owed and queued until " + humanTime(r.Queued.Since) + ": " + r.Queued.Reason + "."
	case r.Closed != "":
		return "⏹️ Not waiting any more: " + r.Closed + "."
	default:
		return "✅ Not waiting for anything."
	}
}

func firedByWords(by string) string {
	switch by {
	case KindMissingInput:
		return "the replies it waited for arrived"
	case KindElapsed:
		return "the time it waited for has passed"
	case KindEscalationNeeded:
		return "a maintainer's signal arrived"
	case FiredByExpired:
		return "the wait expired"
	case FiredByManual:
		return "a maintainer said /recess resume"
	case FiredByRetry:
		return "retrying after a failed run"
	default:
		return by
	}
}

func sortedRFCs(r *state.Record) []string {
	ids := make([]string, 0, len(r.OpenRFCs))
	for id := range r.OpenRFCs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// describe says in plain words what a trigger still waits for:
// "1 more reply (1 of 2) or until Mon 23 Nov 12:00 UTC".
func describe(t *Trigger, o Observed) string {
	s := describeNode(t, o)
	if t.Expires != nil {
		at := moment(*t.Expires, o)
		if t.OnExpire == OnExpireCancel {
			s += " (giving up " + humanTime(at) + ")"
		} else {
			s += " (resuming anyway " + humanTime(at) + ")"
		}
	}
	return s
}

func describeNode(t *Trigger, o Observed) string {
	switch t.Kind {
	case KindMissingInput:
		have := countReplies(t, o)
		need := t.Replies - have
		if need < 0 {
			need = 0
		}
		word := "replies"
		if need == 1 {
			word = "reply"
		}
		s := fmt.Sprintf("%d more %s", need, word)
		if len(t.From) > 0 {
			s += " from @" + strings.Join(t.From, " or @")
		}
		if t.Scope == ScopeThread {
			s += " in recess's thread"
		}
		return s + fmt.Sprintf(" (%d of %d)", min(have, t.Replies), t.Replies)
	case KindElapsed:
		return "until " + humanTime(moment(*t.Elapsed, o))
	case KindEscalationNeeded:
		return fmt.Sprintf("a maintainer's `/recess signal %s`", t.Signal)
	case KindAny, KindAll:
		sep := " or "
		if t.Kind == KindAll {
			sep = " and "
		}
		parts := make([]string, 0, len(t.Of))
		for _, c := range t.Of {
			parts = append(parts, describe(c, o))
		}
		return strings.Join(parts, sep)
	}
	return t.Kind
}

// moment is opened_at + d, pushed back by every extension.
func moment(d Duration, o Observed) time.Time {
	t := d.AddTo(o.OpenedAt)
	for _, x := range o.Extensions {
		t = x.AddTo(t)
	}
	return t
}

// countReplies counts the replies a missing_input trigger accepts.
func countReplies(t *Trigger, o Observed) int {
	n := 0
	for i := range o.Replies {
		if replyCounts(t, o.ThreadRoots, &o.Replies[i]) {
			n++
		}
	}
	return n
}

func containsID(list []string, id string) bool {
	if id == "" {
		return false
	}
	for _, x := range list {
		if x == id {
			return true
		}
	}
	return false
}
