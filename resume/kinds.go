package resume

import (
	"cmp"

	"github.com/recess-action/recess/state"
)

// threadKind is what differs between the kinds of thread recess serves,
// as data: every rule that differs by kind reads it here, and nowhere else
// asks which kind a thread is.
type threadKind struct {
	// kind is the kind itself. kind.Flat(): the thread holds no replies
	// under comments (an issue, a pull request's conversation), so a
	// verdict reply answers its reply_to at the top level (the adapter
	// quotes and links it), and scope "thread" has no thread to count in.
	kind state.Kind
	// noun names the kind in the words people read ("this issue").
	noun string
	// wakeOn is wake-on when it is not configured.
	wakeOn string
	// quietBots: an app's account never counts as a reply and never wakes
	// recess (CI, coverage and preview bots comment all day), unless a
	// trigger's from names it.
	quietBots bool
}

// kinds are the rules of every kind of thread.
var kinds = map[state.Kind]threadKind{
	state.KindDiscussion:  {kind: state.KindDiscussion, noun: "discussion", wakeOn: WakeComment},
	state.KindIssue:       {kind: state.KindIssue, noun: "issue", wakeOn: WakeMention, quietBots: true},
	state.KindPullRequest: {kind: state.KindPullRequest, noun: "pull request", wakeOn: WakeMention, quietBots: true},
}

// Noun names kind k in the words people read ("pull request"); a thread
// of unknown kind (AnyKind) is a "thread".
func Noun(k state.Kind) string {
	if k == AnyKind {
		return "thread"
	}
	return kindOf(k).noun
}

// kindOf is the rules of kind k; an empty (or unknown) kind is a
// discussion, as in every record written before kinds existed.
func kindOf(k state.Kind) threadKind {
	if tk, ok := kinds[k]; ok {
		return tk
	}
	return kinds[state.KindDiscussion]
}

// kind is the rules of the thread the decision is about: the kind the
// read gave, else the record's (a deleted thread).
func (f *facts) kind() threadKind {
	switch {
	case f.d != nil && f.d.Kind != "":
		return kindOf(f.d.Kind)
	case f.s.rec != nil:
		return kindOf(f.s.rec.Kind)
	}
	return kindOf("")
}

// wakeOn is what wakes recess on the decision's thread (WakeOnOf).
func (f *facts) wakeOn() string { return WakeOnOf(f.cfg.WakeOn, f.kind().kind) }

// WakeOnOf is what wakes recess on a thread of kind k: wake-on as
// configured (wakeOn, "" when not given), else the kind's default.
func WakeOnOf(wakeOn string, k state.Kind) string { return cmp.Or(wakeOn, kindOf(k).wakeOn) }
