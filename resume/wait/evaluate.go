package wait

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/text"
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
	r := (&evaluator{Observed: o, now: now}).node(t)
	ev := Evaluation{Reason: r.reason}
	switch r.state {
	case stateFired:
		ev.Fired, ev.FiredBy, ev.At = true, r.firedBy, r.at
	case stateCancelled:
		ev.Cancelled, ev.At = true, r.at
	}
	if !r.due.IsZero() {
		ev.DueAt = &r.due
	}
	return ev
}

type nodeState uint8

const (
	statePending nodeState = iota
	stateFired
	stateCancelled
)

// result is the outcome of one node.
type result struct {
	state   nodeState
	firedBy string
	at      time.Time // fire or cancel moment
	due     time.Time // zero when time alone cannot fire the node
	reason  string
}

type evaluator struct {
	Observed
	now time.Time
}

// at is the moment something observed arrived: t, or the opening moment
// when t is unknown (zero). It is the one rule for an unknown moment.
func (o Observed) at(t time.Time) time.Time {
	if t.IsZero() {
		return o.OpenedAt
	}
	return t
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (e *evaluator) node(t *Trigger) result {
	if t == nil {
		return result{reason: "no trigger"}
	}
	var r result
	switch t.Kind {
	case KindMissingInput:
		r = e.missingInput(t)
	case KindElapsed:
		r = e.elapsed(t)
	case KindEscalationNeeded:
		r = e.escalation(t)
	case KindAny, KindAll:
		r = e.composite(t)
	default:
		r = result{reason: "unknown kind " + strconv.Quote(t.Kind)}
	}
	if t.Expires != nil {
		r = e.expiry(t, r)
	}
	if r.state == stateCancelled {
		r.due = time.Time{}
	}
	return r
}

// expiry applies a node's expires to the outcome of its body, then folds
// the expiry moment into the due moment: a resume expiry is itself a time
// component; a cancel expiry at or before the due moment means time alone
// cancels the node rather than fires it.
func (e *evaluator) expiry(t *Trigger, r result) result {
	exp := Moment(*t.Expires, e.Observed)
	cancel := t.OnExpire == OnExpireCancel
	switch {
	case r.state != statePending && r.at.Before(exp):
		// Decided before the expiry, whenever it is looked at.
	case !e.now.Before(exp):
		reason := "expired at " + stamp(exp)
		if cancel {
			return result{state: stateCancelled, at: exp, reason: reason + ", cancelled"}
		}
		r = result{state: stateFired, firedBy: FiredByExpired, at: exp, due: r.due, reason: reason}
	case r.state != statePending:
		// Fired at or after the expiry moment by GitHub's clock, but the
		// expiry has not come by ours: the fire stands.
	case cancel:
		r.reason += "; expires " + stamp(exp) + ", then cancelled"
	default:
		r.reason += "; expires " + stamp(exp)
	}
	switch {
	case cancel:
		if !r.due.IsZero() && !r.due.Before(exp) {
			r.due = time.Time{}
		}
	case r.due.IsZero() || exp.Before(r.due):
		r.due = exp
	}
	return r
}

func (e *evaluator) missingInput(t *Trigger) result {
	want := max(t.Replies, 1)
	times := counted(t, e.Observed)
	r := result{reason: strconv.Itoa(min(len(times), want)) + " of " + text.Count(want, "reply", "replies")}
	if len(t.From) > 0 {
		r.reason += " from " + strings.Join(t.From, ", ")
	}
	if t.Scope == ScopeThread {
		r.reason += " in thread"
	}
	if len(times) >= want {
		// The engine gives replies oldest first; sorting keeps the answer
		// right when a caller does not.
		slices.SortFunc(times, time.Time.Compare)
		r.state, r.firedBy, r.at = stateFired, KindMissingInput, times[want-1]
	}
	return r
}

// counted returns the moments of the replies a missing_input trigger
// accepts (a reply without a known moment counts as arrived at the
// opening): the one rule, which the status text counts with too
// (CountReplies), so it never says otherwise.
func counted(t *Trigger, o Observed) []time.Time {
	var times []time.Time
	for _, rp := range o.Replies {
		switch named := names(t.From, rp.Author); {
		case (len(t.From) > 0 || rp.NamedOnly) && !named:
		case t.Scope == ScopeThread && (rp.Root == "" || !slices.Contains(o.ThreadRoots, rp.Root)):
		default:
			times = append(times, o.at(rp.CreatedAt))
		}
	}
	return times
}

// Names reports whether the from list of t or of one of its parts names
// login: a reply by an author who counts only where named (Reply.NamedOnly)
// is heard by this trigger.
func (t *Trigger) Names(login string) bool {
	return t != nil && (names(t.From, login) || slices.ContainsFunc(t.Of, func(c *Trigger) bool { return c.Names(login) }))
}

// names reports whether a from list names login.
func names(from []string, login string) bool {
	return slices.ContainsFunc(from, func(f string) bool { return SameLogin(f, login) })
}

// NormLogin folds a GitHub login for comparison: surrounding space, case,
// and the "[bot]" suffix that REST and webhooks give an app's login and
// GraphQL leaves off ("renovate[bot]" and "renovate" are one bot). It is the
// one rule for comparing the logins people write or GraphQL reports: a
// trigger's from, ignore-authors, command authors. Where both logins come in
// REST form and the question is "is this that very account", SameAccount
// decides instead.
func NormLogin(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "[bot]")
}

// SameLogin reports whether two logins name the same account (NormLogin).
func SameLogin(a, b string) bool { return NormLogin(a) == NormLogin(b) }

// DeletedAccount is the login GitHub shows for whatever a deleted account
// wrote (REST, webhooks and the web; GraphQL answers null). Nobody can hold
// it, and it may not write to any repository: it names every deleted
// account at once, never one person.
const DeletedAccount = "ghost"

// RESTLogin is an account's login in REST form: an app's (bot is true)
// carries "[bot]", as REST and webhooks give it, so that it is never taken
// for the person whose login is the app's name. It is the one place the
// suffix is added.
func RESTLogin(login string, bot bool) string {
	if bot && !strings.HasSuffix(strings.ToLower(login), "[bot]") {
		return login + "[bot]"
	}
	return login
}

// SameAccount reports whether two logins in REST form (an app's with its
// "[bot]" suffix, as webhooks and GraphQL's viewer give it) are one account:
// space and case aside, they are equal. The suffix counts here: the person
// "foo" is not the app "foo[bot]", so a comment only counts as recess's own
// when its author is recess's very identity.
func SameAccount(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// SameSignal reports whether two signal names are the same signal: they
// compare case-insensitively ("/recess signal Security-Review" delivers
// "security-review"). It is the one rule for matching signals.
func SameSignal(a, b string) bool { return strings.EqualFold(a, b) }

func (e *evaluator) elapsed(t *Trigger) result {
	if t.Elapsed == nil {
		return result{reason: "elapsed without a duration"}
	}
	due := Moment(*t.Elapsed, e.Observed)
	if !e.now.Before(due) {
		return result{state: stateFired, firedBy: KindElapsed, at: due, due: due, reason: "elapsed at " + stamp(due)}
	}
	return result{due: due, reason: "elapsed due " + stamp(due)}
}

func (e *evaluator) escalation(t *Trigger) result {
	var found *Signal
	var at time.Time
	for i, s := range e.Signals {
		if !SameSignal(s.Name, t.Signal) && s.Name != AnySignal {
			continue
		}
		if ts := e.at(s.At); found == nil || ts.Before(at) {
			found, at = &e.Signals[i], ts
		}
	}
	if found == nil {
		return result{reason: "waiting for signal " + strconv.Quote(t.Signal)}
	}
	return result{state: stateFired, firedBy: KindEscalationNeeded, at: at, reason: "signal " + strconv.Quote(found.Name) + " received"}
}

func (e *evaluator) composite(t *Trigger) result {
	if len(t.Of) == 0 {
		return result{reason: t.Kind + " of nothing"}
	}
	// Where any takes the earliest moment, all takes the latest: of the
	// children's fires (ties: any's first, all's last), of their cancels,
	// and of their due moments.
	isAny := t.Kind == KindAny
	var (
		reasons          []string
		fired, cancelled int
		decided          *result
		cancelAt, due    time.Time
		timeAlone        = true
	)
	for _, c := range t.Of {
		r := e.node(c)
		reasons = append(reasons, r.reason)
		switch r.state {
		case stateFired:
			fired++
			if decided == nil || isAny == r.at.Before(decided.at) {
				decided = &r
			}
		case stateCancelled:
			cancelled++
			if cancelled == 1 || isAny == cancelAt.Before(r.at) {
				cancelAt = r.at
			}
		}
		switch {
		case !r.due.IsZero():
			if due.IsZero() || isAny == r.due.Before(due) {
				due = r.due
			}
		case r.state != stateFired:
			// A child that only people can fire, still waiting: time alone
			// cannot fire the all.
			timeAlone = false
		}
	}
	reason := strings.Join(reasons, "; ")
	if !isAny && !timeAlone {
		due = time.Time{}
	}
	n := len(t.Of)
	switch {
	case isAny && fired > 0:
		// A fired any tells only the child that decided it.
		return result{state: stateFired, firedBy: decided.firedBy, at: decided.at, due: due, reason: decided.reason}
	case isAny && cancelled == n, !isAny && cancelled > 0:
		return result{state: stateCancelled, at: cancelAt, reason: reason}
	case !isAny && fired == n:
		return result{state: stateFired, firedBy: decided.firedBy, at: decided.at, due: due, reason: reason}
	}
	return result{due: due, reason: reason}
}

// Moment is the one rule for a time-based moment of a recess: the moment it
// opened plus d, then pushed back by every extension in order
// (/recess extend).
func Moment(d Duration, o Observed) time.Time {
	t := d.AddTo(o.OpenedAt)
	for _, x := range o.Extensions {
		t = x.AddTo(t)
	}
	return t
}

// CountReplies counts the replies a missing_input trigger accepts, with the
// same rule Evaluate applies.
func CountReplies(t *Trigger, o Observed) int { return len(counted(t, o)) }
