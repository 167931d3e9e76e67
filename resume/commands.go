package resume

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/recess-action/recess/resume/wait"
)

// command is a parsed "/recess NAME [ARG]" line.
type command struct {
	name, arg string
}

var signalName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

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

// accepted returns the command a comment gives recess: a valid slash
// command from a write-level author. Anything else (no command, a refused
// one, one from an author without write access) is an ordinary comment.
// Validity is judged at the comment's own moment, so the answer never
// changes with the clock.
func (p *pass) accepted(c *Comment) (command, bool) {
	if !p.writer(c) {
		return command{}, false
	}
	cmd, ok := parseCommand(c.Body)
	if !ok || cmd.validate(p.cfg.MaxRecess, c.CreatedAt).people != "" {
		return command{}, false
	}
	return cmd, true
}

// said is what a comment says to the agent: the whole body, or for an
// accepted command the text after its line ("" when there is none).
func (p *pass) said(c *Comment) string {
	if _, ok := p.accepted(c); ok {
		_, rest := firstLine(c.Body)
		return rest
	}
	return c.Body
}

// refusal is why a command is refused: said to the people in the thread
// in plain words, and to the maintainer (an annotation, the job summary),
// naming the setting that decided when one did. The zero refusal accepts.
type refusal struct{ people, maintainer string }

// validate says what is wrong with a command; the zero refusal when nothing is.
func (c command) validate(max wait.Duration, at time.Time) refusal {
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
		if !signalName.MatchString(c.arg) {
			return say("/recess signal needs a name after it, of 1 to 64 letters, digits, dots, dashes or underscores, such as /recess signal security-review")
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
		if max.String() != "" && d.AddTo(at).After(max.AddTo(at)) {
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

// commandWindow is how far back a discussion recess sees for the first
// time is searched for commands: old commands are history, not requests.
const commandWindow = 10 * time.Minute

// commands handles the slash commands written since the last run, oldest
// first. Only write-level authors (see writer) may use them; anyone else's
// "/recess ..." is an ordinary reply and a log line.
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
		cmd, ok := parseCommand(c.Body)
		if !ok || c.Mine || c.Deleted || c.Minimized {
			continue
		}
		p.rec.Commands = p.rec.Commands.Advance(c.ID, c.CreatedAt)
		if !p.writer(c) {
			p.unauthorized(c, cmd)
			continue
		}
		if why := cmd.validate(p.cfg.MaxRecess, c.CreatedAt); why.people != "" {
			// Refused: said why, once, in the thread; the comment counts
			// as an ordinary reply.
			p.res.warn("comment %s: %s", c.ID, why.maintainer)
			p.react(c.ID, Confused)
			p.notify("answer."+c.ID, c.ID, p.text("answer.refused", "why", why.people))
			continue
		}
		if err := p.command(c, cmd); err != nil {
			return err
		}
		p.react(c.ID, ThumbsUp)
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
