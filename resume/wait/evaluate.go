package wait

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Evaluate evaluates a trigger against what was observed at now. It is pure:
// the same trigger, observations and now always give the same Evaluation,
// so a late sweep decides what a punctual one would have.
//
// Every time-based moment is o.OpenedAt plus the duration, then each of
// o.Extensions in order. Replies and signals without a known moment (zero
// time) count as arrived at o.OpenedAt.
//
// A node with expires fires or is cancelled at its expiry moment E unless it
// fired (or was cancelled) at a moment before E. any fires with its earliest
// child (ties: first in order) and is cancelled once every child is; all
// fires with its latest child (ties: last in order) and is cancelled as soon
// as one child is.
//
// DueAt is the earliest moment at which the passing of time alone fires the
// node, from its time components only, whether or not it already fired: an
// elapsed due moment, an expiry with on_expire resume, the earliest of its
// children's for any, and for all the latest of its children's when every
// child without a time component has already fired. It is nil when no time
// component can fire the node (replies and signals are not time), and for a
// cancelled node. An expiry with on_expire cancel clears a due moment at or
// after it, since time alone would cancel the node first.
func Evaluate(t *Trigger, o Observed, now time.Time) Evaluation {
	e := evaluator{
		opened: o.OpenedAt, replies: o.Replies, signals: o.Signals,
		roots: o.ThreadRoots, extensions: o.Extensions, now: now,
	}
	bp := reasonBufs.Get().(*[]byte)
	buf, r := e.node((*bp)[:0], t)
	ev := Evaluation{Reason: string(buf)}
	if cap(buf) <= maxPooledReason {
		*bp = buf[:0]
		reasonBufs.Put(bp)
	}
	switch r.state {
	case stateFired:
		ev.Fired, ev.FiredBy, ev.At = true, r.firedBy, r.at
	case stateCancelled:
		ev.Cancelled, ev.At = true, r.at
	}
	if r.hasDue {
		due := r.due
		ev.DueAt = &due
	}
	return ev
}

type nodeState uint8

const (
	statePending nodeState = iota
	stateFired
	stateCancelled
)

// result is the outcome of one node. Its reason is appended to a buffer
// threaded through the calls (not kept in evaluator, which would make escape
// analysis move it to the heap), so a whole evaluation builds one string.
type result struct {
	state   nodeState
	firedBy string
	at      time.Time // fire or cancel moment
	due     time.Time // valid when hasDue
	hasDue  bool
}

// evaluator holds what Observed holds, copied rather than pointed to: a
// pointer to Evaluate's argument would make it escape to the heap on every
// call, the recursion defeating escape analysis.
type evaluator struct {
	opened     time.Time
	replies    []Reply
	signals    []Signal
	roots      []string
	extensions []Duration
	now        time.Time
}

// reasonBufs recycles the buffers reasons are built in: a sweep evaluates
// thousands of RFCs and the recursion makes any stack buffer escape.
var reasonBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// maxPooledReason keeps an occasional huge reason's buffer out of the pool.
const maxPooledReason = 4 << 10

// moment is when a duration counted from the opening ends, extensions
// included.
func (e *evaluator) moment(d *Duration) time.Time {
	return momentOf(*d, e.opened, e.extensions)
}

// known returns t, or the opening moment when t is unknown (zero).
func (e *evaluator) known(t time.Time) time.Time {
	if t.IsZero() {
		return e.opened
	}
	return t
}

func appendTime(buf []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(buf, time.RFC3339)
}

func (e *evaluator) node(buf []byte, t *Trigger) ([]byte, result) {
	if t == nil {
		buf = append(buf, "no trigger"...)
		return buf, result{}
	}
	start := len(buf)
	var r result
	switch t.Kind {
	case KindMissingInput:
		buf, r = e.missingInput(buf, t)
	case KindElapsed:
		buf, r = e.elapsed(buf, t)
	case KindEscalationNeeded:
		buf, r = e.escalation(buf, t)
	case KindAny, KindAll:
		buf, r = e.composite(buf, t)
	default:
		buf = append(buf, "unknown kind "...)
		buf = strconv.AppendQuote(buf, t.Kind)
	}
	if t.Expires != nil {
		buf, r = e.expiry(buf, t, r, start)
	}
	if r.state == stateCancelled {
		r.due, r.hasDue = time.Time{}, false
	}
	return buf, r
}

// withExpiry folds a node's expiry moment into its due moment: a resume
// expiry is itself a time component; a cancel expiry at or before the due
// moment means time alone cancels the node rather than fires it.
func withExpiry(r result, exp time.Time, cancel bool) result {
	switch {
	case cancel:
		if r.hasDue && !r.due.Before(exp) {
			r.due, r.hasDue = time.Time{}, false
		}
	case !r.hasDue || exp.Before(r.due):
		r.due, r.hasDue = exp, true
	}
	return r
}

// expiry applies a node's expires to the outcome of its body, whose reason
// starts at buf[start].
func (e *evaluator) expiry(buf []byte, t *Trigger, r result, start int) ([]byte, result) {
	exp := e.moment(t.Expires)
	cancel := t.OnExpire == OnExpireCancel
	switch {
	case r.state != statePending && r.at.Before(exp):
		// Decided before the expiry, whenever it is looked at.
		return buf, withExpiry(r, exp, cancel)
	case !e.now.Before(exp):
		buf = append(buf[:start], "expired at "...)
		buf = appendTime(buf, exp)
		if cancel {
			buf = append(buf, ", cancelled"...)
			return buf, result{state: stateCancelled, at: exp}
		}
		return buf, withExpiry(result{state: stateFired, firedBy: FiredByExpired, at: exp, due: r.due, hasDue: r.hasDue}, exp, false)
	case r.state != statePending:
		// Fired at or after the expiry moment by GitHub's clock, but the
		// expiry has not come by ours: the fire stands.
		return buf, withExpiry(r, exp, cancel)
	}
	buf = append(buf, "; expires "...)
	buf = appendTime(buf, exp)
	if cancel {
		buf = append(buf, ", then cancelled"...)
	}
	return buf, withExpiry(r, exp, cancel)
}

func (e *evaluator) missingInput(buf []byte, t *Trigger) ([]byte, result) {
	want := max(t.Replies, 1)
	count := 0
	sorted := true
	var at, prev time.Time
	for i := range e.replies {
		rp := &e.replies[i]
		if !e.counts(t, rp) {
			continue
		}
		ts := e.known(rp.CreatedAt)
		if count > 0 && ts.Before(prev) {
			sorted = false
		}
		prev = ts
		count++
		if count == want {
			at = ts
		}
	}
	if count >= want && !sorted {
		at = e.nthReply(t, want)
	}
	buf = strconv.AppendInt(buf, int64(min(count, want)), 10)
	buf = append(buf, " of "...)
	buf = strconv.AppendInt(buf, int64(want), 10)
	if want == 1 {
		buf = append(buf, " reply"...)
	} else {
		buf = append(buf, " replies"...)
	}
	if len(t.From) > 0 {
		buf = append(buf, " from "...)
		for i, f := range t.From {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = append(buf, f...)
		}
	}
	if t.Scope == ScopeThread {
		buf = append(buf, " in thread"...)
	}
	if count >= want {
		return buf, result{state: stateFired, firedBy: KindMissingInput, at: at}
	}
	return buf, result{}
}

// counts reports whether a reply passes the trigger's from and scope.
func (e *evaluator) counts(t *Trigger, rp *Reply) bool {
	return replyCounts(t, e.roots, rp)
}

// replyCounts is the one rule for whether a missing_input trigger accepts a
// reply; the status text counts with it too, so it never says otherwise.
func replyCounts(t *Trigger, roots []string, rp *Reply) bool {
	if len(t.From) > 0 && !slices.ContainsFunc(t.From, func(f string) bool { return SameLogin(f, rp.Author) }) {
		return false
	}
	if t.Scope == ScopeThread {
		return rp.ParentID != "" && slices.Contains(roots, rp.ParentID)
	}
	return true
}

// NormLogin folds a GitHub login for comparison: surrounding space, case,
// and the "[bot]" suffix that REST and webhooks give an app's login and
// GraphQL leaves off ("renovate[bot]" and "renovate" are one bot). It is the
// one rule for comparing logins: a trigger's from, ignore-authors, recess's
// own identity, command authors.
func NormLogin(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "[bot]")
}

// SameLogin reports whether two logins name the same account (NormLogin).
func SameLogin(a, b string) bool { return NormLogin(a) == NormLogin(b) }

// SameSignal reports whether two signal names are the same signal: they
// compare case-insensitively ("/recess signal Security-Review" delivers
// "security-review"). It is the one rule for matching signals.
func SameSignal(a, b string) bool { return strings.EqualFold(a, b) }

// nthReply is the moment the n-th counted reply arrived when the replies
// are not in time order (the engine gives them oldest first; this keeps the
// answer right when a caller does not).
func (e *evaluator) nthReply(t *Trigger, n int) time.Time {
	var times []time.Time
	for i := range e.replies {
		if rp := &e.replies[i]; e.counts(t, rp) {
			times = append(times, e.known(rp.CreatedAt))
		}
	}
	slices.SortFunc(times, time.Time.Compare)
	return times[n-1]
}

func (e *evaluator) elapsed(buf []byte, t *Trigger) ([]byte, result) {
	if t.Elapsed == nil {
		buf = append(buf, "elapsed without a duration"...)
		return buf, result{}
	}
	due := e.moment(t.Elapsed)
	if !e.now.Before(due) {
		buf = append(buf, "elapsed at "...)
		buf = appendTime(buf, due)
		return buf, result{state: stateFired, firedBy: KindElapsed, at: due, due: due, hasDue: true}
	}
	buf = append(buf, "elapsed due "...)
	buf = appendTime(buf, due)
	return buf, result{due: due, hasDue: true}
}

func (e *evaluator) escalation(buf []byte, t *Trigger) ([]byte, result) {
	found := -1
	var at time.Time
	for i := range e.signals {
		s := &e.signals[i]
		if !SameSignal(s.Name, t.Signal) && s.Name != AnySignal {
			continue
		}
		if ts := e.known(s.At); found < 0 || ts.Before(at) {
			found, at = i, ts
		}
	}
	if found < 0 {
		buf = append(buf, "waiting for signal "...)
		buf = strconv.AppendQuote(buf, t.Signal)
		return buf, result{}
	}
	buf = append(buf, "signal "...)
	buf = strconv.AppendQuote(buf, e.signals[found].Name)
	buf = append(buf, " received"...)
	return buf, result{state: stateFired, firedBy: KindEscalationNeeded, at: at}
}

func (e *evaluator) composite(buf []byte, t *Trigger) ([]byte, result) {
	start := len(buf)
	if len(t.Of) == 0 {
		buf = append(buf, t.Kind...)
		buf = append(buf, " of nothing"...)
		return buf, result{}
	}
	// Where each child's reason lies in buf, so a fired any can keep only
	// the reason of the child that decided it.
	var bounds [2 * (MaxTriggerChildren + 1)]int
	seg := bounds[:0]
	var (
		fired, cancelled int
		decider          = -1
		decided          result
		lastCancel       time.Time
		firstCancel      time.Time
		dueAll, dueAllOK = time.Time{}, true
		dueAllSet        bool
		dueAny, dueAnyOK = time.Time{}, false
		isAny            = t.Kind == KindAny
	)
	for i, c := range t.Of {
		if i > 0 {
			buf = append(buf, "; "...)
		}
		s := len(buf)
		var r result
		buf, r = e.node(buf, c)
		seg = append(seg, s, len(buf))
		switch r.state {
		case stateFired:
			fired++
			// any: earliest, first on ties; all: latest, last on ties.
			if decider < 0 || (isAny && r.at.Before(decided.at)) || (!isAny && !r.at.Before(decided.at)) {
				decider, decided = i, r
			}
		case stateCancelled:
			if cancelled == 0 || r.at.Before(firstCancel) {
				firstCancel = r.at
			}
			if cancelled == 0 || r.at.After(lastCancel) {
				lastCancel = r.at
			}
			cancelled++
		}
		switch {
		case r.hasDue:
			if !dueAnyOK || r.due.Before(dueAny) {
				dueAny, dueAnyOK = r.due, true
			}
			if r.due.After(dueAll) {
				dueAll, dueAllSet = r.due, true
			}
		case r.state != stateFired:
			// A child that only people can fire, still waiting: time alone
			// cannot fire the all.
			dueAllOK = false
		}
	}
	n := len(t.Of)
	if isAny {
		switch {
		case fired > 0:
			s, end := seg[2*decider], seg[2*decider+1]
			buf = buf[:start+copy(buf[start:], buf[s:end])]
			return buf, result{state: stateFired, firedBy: decided.firedBy, at: decided.at, due: dueAny, hasDue: dueAnyOK}
		case cancelled == n:
			return buf, result{state: stateCancelled, at: lastCancel}
		}
		return buf, result{due: dueAny, hasDue: dueAnyOK}
	}
	dueOK := dueAllOK && dueAllSet
	switch {
	case cancelled > 0:
		return buf, result{state: stateCancelled, at: firstCancel}
	case fired == n:
		return buf, result{state: stateFired, firedBy: decided.firedBy, at: decided.at, due: dueAll, hasDue: dueOK}
	}
	return buf, result{due: dueAll, hasDue: dueOK}
}

// Moment is the one rule for a time-based moment of a recess: the moment it
// opened plus d, then pushed back by every extension in order
// (/recess extend).
func Moment(d Duration, o Observed) time.Time {
	return momentOf(d, o.OpenedAt, o.Extensions)
}

func momentOf(d Duration, opened time.Time, extensions []Duration) time.Time {
	t := d.AddTo(opened)
	for _, x := range extensions {
		t = x.AddTo(t)
	}
	return t
}

// CountReplies counts the replies a missing_input trigger accepts, with the
// same rule Evaluate applies.
func CountReplies(t *Trigger, o Observed) int {
	n := 0
	for i := range o.Replies {
		if replyCounts(t, o.ThreadRoots, &o.Replies[i]) {
			n++
		}
	}
	return n
}
