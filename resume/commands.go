package resume

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// command is a parsed "/recess NAME [ARG]" line.
type command struct {
	name, arg string
}

// parseCommand reads a slash command from the first non-empty line of a
// comment body. ok is false for anything else (an ordinary comment).
func parseCommand(body string) (command, bool) {
	line, _ := text.FirstLine(body)
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "/recess" {
		return command{}, false
	}
	c := command{name: strings.ToLower(f[1])}
	if len(f) > 2 {
		c.arg = strings.Join(f[2:], " ")
	}
	return c, true
}

// reading is what one comment is to recess; see facts.reading.
type reading struct {
	// cmd is the slash command of the comment's first line, when the
	// comment has one ("/recess ..."); outsider says its author may not
	// give commands (then the comment is an ordinary reply).
	cmd      command
	hasCmd   bool
	outsider bool
	// unknown says recess could not read the author's permission: the
	// command is held, neither applied nor counted as a reply, until a
	// run can read it (commands).
	unknown bool
	// refused says why a command from a write-level author is refused
	// (the zero refusal when it is not).
	refused refusal
	// said is what the comment says to the agent: the whole body, the text
	// after an accepted command's line, or "" when it is not a reply.
	said string
	// quiet: an author whose words never count nor wake on this kind of
	// thread (see facts.quiet), whom a trigger's from may still name.
	quiet bool
}

// accepted reports a slash command recess acts on.
func (r reading) accepted() bool {
	return r.hasCmd && !r.outsider && !r.unknown && r.refused.people == ""
}

// reply reports whether the comment is a reply: a person's words that count
// toward missing_input, reach history_since and may wake recess.
func (r reading) reply() bool { return r.said != "" }

// reading is the one rule for what a comment is to recess (SPEC.md
// "Triggers", what counts as a reply, and "Commands"). A comment by recess's
// own identity or by one of ignore-authors, a minimized or a deleted one is
// nothing: no reply, no command. A slash command from a write-level author
// is accepted or refused; a refused one counts toward nothing, and the text
// after an accepted one's line is a reply. Anyone else's "/recess ..." is an
// ordinary reply. A command whose author's permission could not be read is
// held: nothing yet, until a run can read it. The answer depends on the
// comment, the configuration and the signals the discussion's open recesses
// await (see awaitedSignals), never on the clock.
func (f *facts) reading(c *Comment) reading {
	if !spoken(c, f.cfg.IgnoreAuthors) {
		return reading{}
	}
	if f.quiet(c.Author, c.AuthorBot) {
		return reading{quiet: true}
	}
	r := reading{said: c.Body}
	r.cmd, r.hasCmd = parseCommand(c.Body)
	if !r.hasCmd {
		return r
	}
	if a, ok := f.s.perms[authorityKey(c)]; !ok || a.err != nil {
		// Not asked (settled: see Engine.permissions), or not answered.
		r.unknown, r.said = true, ""
		return r
	}
	if !f.writer(c) {
		r.outsider = true
		return r
	}
	if r.refused = f.refusal(r.cmd, c.CreatedAt); r.refused.people != "" {
		r.said = ""
		return r
	}
	_, r.said = text.FirstLine(c.Body)
	return r
}

// spoken reports whether a comment is someone's word to recess at all: not
// recess's own, not by one of ignore-authors, neither minimized nor
// deleted (see reading).
func spoken(c *Comment, ignore []string) bool {
	return !c.Mine && !c.Deleted && !c.Minimized && !ignored(c.Author, ignore)
}

// quiet is the one rule for an author whose words never count as a reply
// and never wake recess on this kind of thread, besides recess's own: one
// of ignore-authors, or, where the kind quiets bots (threadKind.quietBots),
// an app's account (bot: GitHub says so; or a "[bot]" login). A trigger's
// from may still name a bot (wait.Reply.NamedOnly), never an ignored author.
func (f *facts) quiet(login string, bot bool) bool {
	return ignored(login, f.cfg.IgnoreAuthors) || f.kind().quietBots && isApp(login, bot)
}

// heard reports whether a comment by author, read as r, reaches the agent
// that trigger fired (nil: none) wakes: a reply, or a quiet author's
// words where that trigger's from names the author (wait.Trigger.Names),
// as it counted them.
func (r reading) heard(author string, fired *wait.Trigger) bool {
	return r.reply() || r.quiet && fired.Names(author)
}

// ignored reports whether login is one of ignore-authors: recess treats
// their comments as its own.
func ignored(login string, ignore []string) bool {
	return slices.ContainsFunc(ignore, func(x string) bool { return wait.SameLogin(x, login) })
}

// refusal is why a command is refused: said to the people in the thread
// in plain words, and to the maintainer (an annotation, the job summary),
// naming the setting that decided when one did. The zero refusal accepts.
type refusal struct{ people, maintainer string }

// refusal says why recess refuses a write-level author's command; the zero
// refusal when it does not. Validity is judged at the comment's own moment
// (max-recess from its creation) and against the signals the open recesses
// await, so the answer never changes with the clock.
func (f *facts) refusal(c command, at time.Time) refusal {
	say := func(format string, args ...any) refusal {
		s := fmt.Sprintf(format, args...)
		return refusal{people: s, maintainer: s}
	}
	switch c.name {
	case "status", "cancel", "resume", "retry", "ask":
		if c.arg != "" {
			return say("/recess %s takes nothing after it; write just /recess %s", c.name, c.name)
		}
	case "signal":
		if !wait.ValidSignalName(c.arg) {
			return say("/recess signal needs a name after it, of 1 to 64 letters, digits, dots, dashes or underscores, such as /recess signal security-review")
		}
		if why := f.unawaited(c.arg); why != "" {
			return say("%s", why)
		}
	case "extend":
		if c.arg == "" {
			return say("/recess extend needs a duration after it, such as P1D for one day or PT12H for twelve hours")
		}
		d, err := wait.ParseDuration(c.arg)
		if err != nil {
			reason := err.Error()
			var de *wait.FieldError
			if errors.As(err, &de) {
				reason = de.Reason
			}
			return say("/recess extend needs a duration such as P1D for one day or PT12H for twelve hours; “%s” is not one (%s)", c.arg, reason)
		}
		if max := f.cfg.MaxRecess; max.String() != "" && d.AddTo(at).After(max.AddTo(at)) {
			return refusal{
				people:     fmt.Sprintf("a wait here may last at most %s, and %s is longer; extend by less", max, c.arg),
				maintainer: fmt.Sprintf("/recess extend %s is longer than max-recess %s", c.arg, max),
			}
		}
	default:
		return say("%s is not a recess command; the commands are status, cancel, resume, signal NAME, retry, extend DURATION and ask", c.name)
	}
	return refusal{}
}

// unawaited says why a signal is refused: no open recess waits for it
// (names compare with wait.SameSignal), naming the signals that are
// awaited; "" when one does. While an agent run works a signal is taken:
// the run may yet recess waiting for it, and then it counts as any comment
// written meanwhile does. The open recesses are the ones this run found
// (see awaitedSignals), so every reading in a run agrees.
func (f *facts) unawaited(name string) string {
	if f.awaited.working {
		return ""
	}
	for _, s := range f.awaited.names {
		if wait.SameSignal(s, name) {
			return ""
		}
	}
	if len(f.awaited.names) == 0 {
		return fmt.Sprintf("no open recess here waits for a signal, so “%s” would change nothing", name)
	}
	quoted := make([]string, len(f.awaited.names))
	for i, s := range f.awaited.names {
		quoted[i] = "“" + s + "”"
	}
	return fmt.Sprintf("no open recess here waits for the signal “%s”; the awaited signals are %s", name, strings.Join(quoted, ", "))
}

// awaited is what unawaited judges signals against.
type awaited struct {
	working bool     // an agent run is active
	names   []string // signals the open recesses wait for, sorted, once each
}

// awaitedSignals gathers the signals a record's open recesses wait for
// (escalation_needed anywhere in their triggers).
func awaitedSignals(rec *state.Record) awaited {
	a := awaited{working: rec.Active != nil && rec.Active.State != state.RunEscalated}
	for _, rfc := range rec.OpenRFCs {
		for _, t := range nodes(rfc.Trigger) {
			if t.Kind == wait.KindEscalationNeeded && !slices.ContainsFunc(a.names, func(s string) bool { return wait.SameSignal(s, t.Signal) }) {
				a.names = append(a.names, t.Signal)
			}
		}
	}
	sort.Strings(a.names)
	return a
}

// nodes lists a trigger and every trigger nested in it, parents first.
func nodes(t *wait.Trigger) []*wait.Trigger {
	if t == nil {
		return nil
	}
	out := []*wait.Trigger{t}
	for _, c := range t.Of {
		out = append(out, nodes(c)...)
	}
	return out
}

// commandWindow is how far back a discussion recess sees for the first
// time is searched for commands: old commands are history, not requests.
const commandWindow = 10 * time.Minute

// asked is what the slash commands of a run ask of the rest of its
// decision.
type asked struct {
	manual bool   // "/recess resume"
	cancel string // "/recess cancel": who said it
	retry  bool   // "/recess retry"
}

// commands handles the slash commands written since the last run, oldest
// first. Only write-level authors (see writer) may use them; anyone else's
// "/recess ..." is an ordinary reply and a log line.
// Each command is handled once: the command cursor moves past it in the same
// record write that records its effect, and every comment recess posts in
// answer carries a marker, so a re-run neither repeats nor loses one. A
// command whose author's permission could not be read stops the walk
// without moving the cursor (see reading): it is neither lost nor consumed.
func (f *facts) commands(rec *state.Record, obs observations) (asked, plan) {
	var ask asked
	var p plan
	if f.s.isNew && rec.Commands.At.IsZero() {
		rec.Commands = newest(f.d)
		rec.Commands.At = rec.Commands.At.Add(-commandWindow)
		rec.Commands.IDs = nil
	}
	for i := range f.d.Comments {
		c := &f.d.Comments[i]
		if rec.Commands.Covers(c.ID, c.CreatedAt) {
			continue
		}
		r := f.reading(c)
		if !r.hasCmd {
			continue
		}
		if r.unknown {
			// Held, and every later command with it (they are handled in
			// order): the cursor stays before it, so a run that can read the
			// permission carries it out. Only the maintainer is told.
			p = p.with(f.unauthorized(c, r.cmd))
			break
		}
		rec.Commands = rec.Commands.Advance(c.ID, c.CreatedAt)
		switch {
		case r.outsider:
			p = p.with(f.unauthorized(c, r.cmd))
		case r.refused.people != "":
			// Refused: said why, once, in the thread; the comment counts
			// toward nothing.
			p = p.with(warned("comment %s: %s", c.ID, r.refused.maintainer), after(Effect{Kind: EffectReact, Subject: c.ID, Reaction: Confused}),
				notify("answer."+c.ID, c.ID, f.text("answer.refused", "why", r.refused.people)))
		default:
			p = p.with(f.command(rec, obs, c, r.cmd, &ask), after(Effect{Kind: EffectReact, Subject: c.ID, Reaction: ThumbsUp}))
		}
	}
	return ask, p
}

// command carries out an accepted command, or answers why it changes
// nothing here.
func (f *facts) command(rec *state.Record, obs observations, c *Comment, cmd command, ask *asked) plan {
	p := noted("/recess %s from @%s", strings.TrimSpace(cmd.name+" "+cmd.arg), c.Author)
	answer := ""
	switch cmd.name {
	case "status":
		answer = f.statusLine(rec, obs)
	case "cancel", "resume":
		switch {
		case len(rec.OpenRFCs) == 0:
			answer = f.text("answer.no_recess", "command", cmd.name)
		case cmd.name == "cancel":
			ask.cancel = c.Author
		default:
			ask.manual = true
		}
	case "retry":
		if rec.Active == nil || rec.Escalated == nil {
			answer = f.text("answer.not_escalated")
		} else {
			ask.retry = true
		}
	case "ask":
		// Derived from the discussion (see wakes): with nothing pending,
		// an ask nobody has answered starts a fresh run.
		if rec.Pending() {
			answer = f.text("answer.already_active")
		}
	case "signal", "extend":
		// Derived from the discussion on every evaluation (see observe), so
		// that a lost event cannot lose a signal or an extension.
	}
	if answer != "" {
		p = p.with(notify("answer."+c.ID, c.ID, answer))
	}
	return p
}
