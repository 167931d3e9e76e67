package resume

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume/wait"
)

// What wakes recess on a discussion with nothing pending (wake-on).
const (
	// WakeComment: any human comment starts a fresh run (the default).
	WakeComment = "comment"
	// WakeMention: a comment (or a new discussion's body) that mentions one
	// of the mention handles.
	WakeMention = "mention"
	// WakeCommand: only "/recess ask" from a write-level author, and a new
	// discussion.
	WakeCommand = "command"
)

// WakeOns are the values wake-on accepts.
var WakeOns = []string{WakeComment, WakeMention, WakeCommand}

// ParseWakeOn checks a wake-on value; "" (not given) stays "": each kind
// of thread then wakes on its own default (WakeOnOf).
func ParseWakeOn(s string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); {
	case v == "" || slices.Contains(WakeOns, v):
		return v, nil
	default:
		return "", &wait.FieldError{Field: "wake-on", Reason: fmt.Sprintf("%q is not one of %s", s, strings.Join(WakeOns, ", "))}
	}
}

// outOfScope says which filters keep the discussion out of recess's scope
// ("categories", "labels" or "categories, labels"), "" when recess serves
// it: its category is among Categories (by name or slug, case-insensitive;
// none listed: every category) and it carries one of Labels (none listed:
// no filter). A discussion out of scope is never dispatched for and gets no
// status comment; an open recess on a discussion that moved out of scope is
// still served until it resolves.
func (f *facts) outOfScope() string {
	category := func(c string) bool {
		return strings.EqualFold(c, f.d.Category) || strings.EqualFold(c, f.d.CategorySlug)
	}
	label := func(want string) bool {
		return slices.ContainsFunc(f.d.Labels, func(l string) bool { return strings.EqualFold(want, l) })
	}
	var out []string
	if len(f.cfg.Categories) > 0 && !slices.ContainsFunc(f.cfg.Categories, category) {
		out = append(out, "categories")
	}
	if len(f.cfg.Labels) > 0 && !slices.ContainsFunc(f.cfg.Labels, label) {
		out = append(out, "labels")
	}
	return strings.Join(out, ", ")
}

// notWoken says why what people wrote (a new discussion, or replies no
// agent run has seen) starts no run under wake-on mention or command, for
// the maintainer's summary; "" when nobody wrote anything that wake-on
// comment would have answered.
func (f *facts) notWoken(first bool, unseen int) string {
	what := text.Count(unseen, "new reply", "new replies")
	switch {
	case first && !f.d.Mine && !f.quiet(f.d.Author, f.d.AuthorBot):
		what = "the new " + f.kind().noun
	case unseen == 0:
		return ""
	}
	switch f.wakeOn() {
	case WakeMention:
		var handles []string
		for _, h := range f.cfg.MentionHandles {
			handles = append(handles, "@"+handleName(h))
		}
		return fmt.Sprintf("%s, not mentioning %s (wake-on mention)", what, strings.Join(handles, " or "))
	case WakeCommand:
		return fmt.Sprintf("%s, no /recess ask from a maintainer among them (wake-on command)", what)
	}
	return ""
}

// wakes reports whether a comment nobody has answered starts a fresh run
// under wake-on.
func (f *facts) wakes(c *Comment) bool {
	r := f.reading(c)
	ask := r.accepted() && r.cmd.name == "ask"
	switch f.wakeOn() {
	case WakeMention:
		return r.reply() && f.mentions(r.said)
	case WakeCommand:
		return ask
	default:
		return ask || r.reply()
	}
}

// firstWakes reports whether a new thread starts a fresh run: it counts as
// its first comment (an opened issue's body may mention).
func (f *facts) firstWakes() bool {
	if f.d.Mine || f.quiet(f.d.Author, f.d.AuthorBot) {
		return false
	}
	if f.wakeOn() == WakeMention {
		return f.mentions(f.d.Title + "\n" + f.d.Body)
	}
	return true
}

// mentions reports whether text @-mentions one of the mention handles, as
// a whole handle (@lead, not @leader), case-insensitive.
func (f *facts) mentions(text string) bool {
	lower := strings.ToLower(text)
	for _, h := range f.cfg.MentionHandles {
		h = strings.ToLower(handleName(h))
		if h != "" && hasWord(lower, "@"+h, handleByte) {
			return true
		}
	}
	return false
}

// handleName is a mention handle as configured ("@lead" or "lead") without
// its @.
func handleName(h string) string { return strings.TrimPrefix(strings.TrimSpace(h), "@") }

// handleByte is a byte a GitHub handle (a login, or org/team) may hold.
func handleByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '/'
}
