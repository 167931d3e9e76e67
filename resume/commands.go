package resume

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

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
	line, _ := firstLine(body)
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

// firstLine splits a body into its first non-empty line and what follows
// it, trimmed.
func firstLine(body string) (line, rest string) {
	line = body
	for {
		i := strings.IndexByte(line, '\n')
		first := line
		if i >= 0 {
			first = line[:i]
		}
		if strings.TrimSpace(first) != "" || i < 0 {
			if i >= 0 {
				rest = strings.TrimSpace(line[i+1:])
			}
			return first, rest
		}
		line = line[i+1:]
	}
}

// reading is what one comment is to recess; see pass.reading.
type reading struct {
	// cmd is the slash command of the comment's first line, when the
	// comment has one ("/recess ..."); outsider says its author may not
	// give commands (then the comment is an ordinary reply).
	cmd      command
	hasCmd   bool
	outsider bool
	// refused says why a command from a write-level author is refused
	// ("" when it is not).
	refused string
	// said is what the comment says to the agent: the whole body, the text
	// after an accepted command's line, or "" when it is not a reply.
	said string
}

// accepted reports a slash command recess acts on.
func (r reading) accepted() bool { return r.hasCmd && !r.outsider && r.refused == "" }

// reply reports whether the comment is a reply: a person's words that count
// toward missing_input, reach history_since and may wake recess.
func (r reading) reply() bool { return r.said != "" }

// reading is the one rule for what a comment is to recess (SPEC.md
// "Triggers", what counts as a reply, and "Commands"). A comment by recess's
// own identity or by one of ignore-authors, a minimized or a deleted one is
// nothing: no reply, no command. A slash command from a write-level author
// is accepted or refused; a refused one counts toward nothing, and the text
// after an accepted one's line is a reply. Anyone else's "/recess ..." is an
// ordinary reply. The answer depends on the comment, the configuration and
// the signals the discussion's open recesses await (see awaitedSignals),
// never on the clock.
func (p *pass) reading(c *Comment) reading {
	if c.Mine || c.Deleted || c.Minimized || p.ignored(c.Author) {
		return reading{}
	}
	r := reading{said: c.Body}
	r.cmd, r.hasCmd = parseCommand(c.Body)
	if !r.hasCmd {
		return r
	}
	if !c.WriteAccess() {
		r.outsider = true
		return r
	}
	if r.refused = p.refusal(r.cmd, c.CreatedAt); r.refused != "" {
		r.said = ""
		return r
	}
	_, r.said = firstLine(c.Body)
	return r
}

// human reports whether a comment is a reply (see reading).
func (p *pass) human(c *Comment) bool { return p.reading(c).reply() }

// refusal says why recess refuses a write-level author's command, or "".
// Validity is judged at the comment's own moment (max-recess from its
// creation) and against the signals the open recesses await, so the answer
// never changes with the clock.
func (p *pass) refusal(c command, at time.Time) string {
	switch c.name {
	case "status", "cancel", "resume", "retry", "ask":
		if c.arg != "" {
			return fmt.Sprintf("/recess %s takes no argument", c.name)
		}
	case "signal":
		if !wait.ValidSignalName(c.arg) {
			return "/recess signal needs a name of 1 to 64 letters, digits, '.', '_' or '-'"
		}
		return p.unawaited(c.arg)
	case "extend":
		d, err := wait.ParseDuration(c.arg)
		if err != nil {
			return "/recess extend needs an ISO-8601 duration such as P1D: " + err.Error()
		}
		if max := p.cfg.MaxRecess; max.String() != "" && d.AddTo(at).After(max.AddTo(at)) {
			return "/recess extend: " + c.arg + " is longer than max-recess " + max.String()
		}
	default:
		return fmt.Sprintf("unknown command /recess %s (status, cancel, resume, signal NAME, retry, extend DURATION, ask)", c.name)
	}
	return ""
}

// unawaited says why a signal is refused: no open recess waits for it
// (names compare with wait.SameSignal), naming the signals that are
// awaited; "" when one does. While an agent run works a signal is taken:
// the run may yet recess waiting for it, and then it counts as any comment
// written meanwhile does. The open recesses are the ones this run found
// (see awaitedSignals), so every reading in a run agrees.
func (p *pass) unawaited(name string) string {
	if p.awaited.working {
		return ""
	}
	for _, s := range p.awaited.names {
		if wait.SameSignal(s, name) {
			return ""
		}
	}
	if len(p.awaited.names) == 0 {
		return fmt.Sprintf("no open recess here waits for a signal, so `%s` would change nothing", name)
	}
	quoted := make([]string, len(p.awaited.names))
	for i, s := range p.awaited.names {
		quoted[i] = "`" + s + "`"
	}
	return fmt.Sprintf("no open recess here waits for the signal `%s`; awaited: %s", name, strings.Join(quoted, ", "))
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
	var walk func(*wait.Trigger)
	walk = func(t *wait.Trigger) {
		if t == nil {
			return
		}
		if t.Kind == wait.KindEscalationNeeded && !slices.ContainsFunc(a.names, func(s string) bool { return wait.SameSignal(s, t.Signal) }) {
			a.names = append(a.names, t.Signal)
		}
		for _, c := range t.Of {
			walk(c)
		}
	}
	for _, rfc := range rec.OpenRFCs {
		walk(rfc.Trigger)
	}
	sort.Strings(a.names)
	return a
}

// commandWindow is how far back a discussion recess sees for the first
// time is searched for commands: old commands are history, not requests.
const commandWindow = 10 * time.Minute

// commands handles the slash commands written since the last run, oldest
// first. Only write-level authors (OWNER, MEMBER, COLLABORATOR) may use
// them; anyone else's "/recess ..." is an ordinary reply and a log line.
// Each command is handled once: the command cursor moves past it in the same
// record write that records its effect, and every comment recess posts in
// answer carries a marker, so a re-run neither repeats nor loses one.
func (p *pass) commands() error {
	if p.isNew && p.rec.Commands.At.IsZero() {
		p.rec.Commands = newest(p.d)
		p.rec.Commands.At = p.rec.Commands.At.Add(-commandWindow)
		p.rec.Commands.IDs = nil
	}
	for i := range p.d.Comments {
		c := &p.d.Comments[i]
		if p.rec.Commands.Covers(c.ID, c.CreatedAt) {
			continue
		}
		r := p.reading(c)
		if !r.hasCmd {
			continue
		}
		p.rec.Commands = p.rec.Commands.Advance(c.ID, c.CreatedAt)
		switch {
		case r.outsider:
			p.logf("discussion %d: ignored /recess %s from @%s (%s): slash commands need write access; it counts as an ordinary reply", p.rec.Discussion, r.cmd.name, c.Author, c.Association)
			p.res.note("ignored /recess %s from @%s: no write access", r.cmd.name, c.Author)
		case r.refused != "":
			// Refused: said why, once, in the thread; the comment counts
			// toward nothing.
			p.res.warn("comment %s: %s", c.ID, r.refused)
			p.react(c.ID, Confused)
			p.notify("answer."+c.ID, c.ID, p.text("answer.refused", "why", r.refused))
		default:
			if err := p.command(c, r.cmd); err != nil {
				return err
			}
			p.react(c.ID, ThumbsUp)
		}
	}
	return nil
}

func (p *pass) command(c *Comment, cmd command) error {
	p.res.note("/recess %s from @%s", strings.TrimSpace(cmd.name+" "+cmd.arg), c.Author)
	switch cmd.name {
	case "status":
		p.notify("answer."+c.ID, c.ID, p.statusLine())
		return nil
	case "cancel":
		if len(p.rec.OpenRFCs) == 0 {
			p.notify("answer."+c.ID, c.ID, p.text("answer.no_recess", "command", "cancel"))
			return nil
		}
		p.cancel = c.Author
	case "resume":
		if len(p.rec.OpenRFCs) == 0 {
			p.notify("answer."+c.ID, c.ID, p.text("answer.no_recess", "command", "resume"))
			return nil
		}
		p.manual = true
	case "retry":
		if p.rec.Active == nil || p.rec.Escalated == nil {
			p.notify("answer."+c.ID, c.ID, p.text("answer.not_escalated"))
			return nil
		}
		p.retry = true
	case "ask":
		// Derived from the discussion (see wakes): with nothing pending,
		// an ask nobody has answered starts a fresh run.
		if p.rec.Pending() {
			p.notify("answer."+c.ID, c.ID, p.text("answer.already_active"))
		}
	case "signal", "extend":
		// Derived from the discussion on every evaluation (see observe), so
		// that a lost event cannot lose a signal or an extension.
	}
	return nil
}
