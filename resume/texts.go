package resume

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recess-action/recess/internal/text"
)

// texts are the words recess shows people in discussions (the
// status comment, its notes and its answers to commands), by key, each in
// this one place; {name} placeholders are filled in (see text), {thread}
// always, with the noun of the thread's kind ("discussion", "issue").
var texts = map[string]string{
	// The status comment, one line per state.
	"status.waiting":   "⏸️ Waiting {what}.",
	"status.why":       "The agent's note: {summary}",
	"status.working":   "▶️ An agent is working on this {thread}{run}.",
	"status.resumed":   "▶️ Resumed because {why}; an agent is working on this {thread}{run}.",
	"status.attempt":   "This is attempt {attempt} of {attempts}.",
	"status.escalated": "⚠️ recess stopped starting agent runs here: {reason}. A maintainer can say `/recess retry` to try again.",
	"status.blocked":   "⚠️ recess cannot start the agent here: {reason}. {told} It tries again by itself once the agent workflow changes, or when a maintainer says `/recess retry`.",
	"status.told":      "A maintainer was told.",
	"status.untold":    "Nobody was told, as no maintainer is set to be mentioned (`escalate-to`): please let a maintainer of this repository know.",
	"status.queued":    "⏳ An answer is owed here; it starts after {until}, because {reason}.",
	"status.closed":    "⏹️ Not waiting any more: {reason}.",
	"status.idle":      "✅ Nothing is pending here.",
	"status.footer":    "Kept up to date by recess. Maintainers can say `/recess status`, `cancel`, `resume`, `signal NAME`, `retry`, `extend DURATION` or `ask`.",
	// Notes recess posts in the thread.
	"note.escalated": "⚠️ recess stopped starting agent runs for this {thread}: {reason}.{mentions} A maintainer can say `/recess retry` to try again.",
	"note.blocked":   "⚠️ recess cannot start the agent for this {thread}: {reason}.{mentions} It tries again by itself once the agent workflow changes; a maintainer can also say `/recess retry`.",
	"note.cancelled": "⏹️ No longer waiting here: @{author} cancelled the wait.",
	"note.expired":   "⏹️ No longer waiting here: the wait ended at {at}, still waiting {what}.",
	// The line above a verdict reply posted at the top level instead of
	// under the comment it answers.
	"reply.answered": "↪️ In answer to {what}:",
	// Answers to slash commands.
	"answer.refused":        "I did not act on this: {why}.",
	"answer.no_recess":      "There is no open recess here to {command}.",
	"answer.not_escalated":  "Nothing is escalated here: there is nothing to retry.",
	"answer.already_active": "An agent run is already under way or a recess is open here: there is nothing to ask for.",
}

// ownMarkdown are the placeholders that carry Markdown recess builds itself
// from checked values (a link to the agent run, a command in a code span,
// the logins a maintainer configured to mention). Every other placeholder's
// value is plain words or someone else's text, and is escaped.
var ownMarkdown = map[string][]string{
	"status.waiting": {"what"},
	"status.working": {"run"},
	"status.resumed": {"why", "run"},
	"note.escalated": {"mentions"},
	"note.blocked":   {"mentions"},
	"status.blocked": {"told"},
	"note.expired":   {"what"},
	"reply.answered": {"what"},
}

// text renders text key with its placeholders. Values are given as plain
// text and escaped (EscapeMarkdown), except the placeholders ownMarkdown
// lists.
func (f *facts) text(key string, args ...string) string {
	pairs := []string{"{thread}", f.kind().noun}
	for i := 0; i+1 < len(args); i += 2 {
		v := args[i+1]
		if !slices.Contains(ownMarkdown[key], args[i]) {
			v = EscapeMarkdown(v)
		}
		pairs = append(pairs, "{"+args[i]+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(texts[key])
}

// EscapeMarkdown renders text recess did not write (a comment's words, a
// login, the agent's summary, GitHub's error text) as Markdown that shows it
// as written, on one line: no link, image, HTML, emphasis, code, table cell,
// heading or list of theirs renders, and no bare URL or @mention of theirs
// becomes a link or a notification. It is the one escaper for every place
// that renders others' text as Markdown: job summaries, the status comment
// and the notes and answers recess posts. (The agent's prompt keeps their
// text as written, inside its quote.)
//
// Markdown's own characters are backslash-escaped; the triggers GitHub
// links after rendering (@login, https://, www.) are broken by an invisible
// word joiner, which no backslash would stop.
func EscapeMarkdown(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || text.Break(r) || unicode.IsControl(r)
	}), " ")
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	if n := leadingBlockMarker(s); n >= 0 {
		b.WriteString(s[:n])
		b.WriteByte('\\')
		s = s[n:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '`', '*', '[', ']', '<', '>', '|', '~', '&', '$':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '_':
			// Between two letters or digits (GITHUB_REPOSITORY) an
			// underscore can neither open nor close emphasis.
			before, _ := utf8.DecodeLastRuneInString(s[:i])
			after, _ := utf8.DecodeRuneInString(s[i+1:])
			if !(wordRune(before) && wordRune(after)) {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		case '@':
			b.WriteString("@" + wordJoiner)
		case ':':
			b.WriteByte(c)
			if strings.HasPrefix(s[i+1:], "//") {
				b.WriteString(wordJoiner)
			}
		case 'w', 'W':
			if len(s) >= i+4 && strings.EqualFold(s[i:i+4], "www.") {
				b.WriteString(s[i : i+3])
				b.WriteString(wordJoiner)
				i += 2
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordJoiner (U+2060) is invisible and joins nothing, so text reads the
// same while a pattern GitHub links no longer matches.
const wordJoiner = "\u2060"

// leadingBlockMarker is the index of the character that would make s, at
// the start of a line, a heading ("# "), a list item ("- ", "+ ", "1. ",
// "1) "), a thematic break or a setext underline ("--", "=="), or -1.
// ("*", "_" and ">" are escaped everywhere anyway.)
func leadingBlockMarker(s string) int {
	if s == "" {
		return -1
	}
	ends := func(i int) bool { return i >= len(s) || s[i] == ' ' }
	switch c := s[0]; c {
	case '#':
		i := 0
		for i < len(s) && i < 6 && s[i] == '#' {
			i++
		}
		if ends(i) {
			return 0
		}
	case '-', '+', '=':
		if ends(1) || s[1] == c {
			return 0
		}
	}
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') && ends(i+1) {
		return i
	}
	return -1
}
