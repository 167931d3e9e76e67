package resume

import (
	"fmt"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume/wait"
)

// Question is one reply recess posted for the agent when it recessed: what
// the agent asked. People answer a question by replying in its thread.
type Question struct {
	// ID is the question's comment node id; Thread is the top-level comment
	// it sits in (its own ID when it is top-level), the parent every answer
	// under it names as reply_to.
	ID     string
	Thread string
	Body   string
	URL    string
}

// Prompt renders a resume_context as markdown for the resumed agent: what
// it asked and why it was woken, then every comment since with author,
// role, time and link, replies framed by what they answer, and any
// truncation said in words with the links to the full text.
//
// asked are the questions of the recess being resumed, when the caller
// knows them (from the discussion); a reply in a question's thread is then
// framed as "Answer to your question (…)". With asked nil such a reply is
// still marked as a reply under an earlier comment, with its id.
//
// Prompt is pure: the same context gives the same text, so it can be
// rendered again anywhere (the claim step's output, `recess prompt`).
func Prompt(rc Context, asked []Question) string {
	p := &promptWriter{noun: Noun(rc.Kind)}
	p.header(rc)
	p.truncation(rc)
	p.comments(rc, asked)
	p.para("## What to do now")
	p.line("Read the comments above (and the " + p.noun + " itself where a link says there is more), then either answer with `adjourn`, or ask again with `reply` and `recess`. Use a comment's id as `reply_to` to answer under it. Call the tool, then end your turn.")
	return p.String()
}

// promptWriter writes a prompt about a thread that noun names
// ("discussion", "issue").
type promptWriter struct {
	strings.Builder
	noun string
}

// line writes s and a newline; para writes s as a paragraph, with the
// blank line after it. Their f forms format.
func (p *promptWriter) line(s string) { p.WriteString(s + "\n") }
func (p *promptWriter) para(s string) { p.WriteString(s + "\n\n") }

func (p *promptWriter) linef(format string, args ...any) { p.line(fmt.Sprintf(format, args...)) }
func (p *promptWriter) paraf(format string, args ...any) { p.para(fmt.Sprintf(format, args...)) }

func (p *promptWriter) header(rc Context) {
	if rc.FiredBy == FiredByIntake {
		p.para("# New comments on the " + p.noun)
		p.paraf("You answered this "+p.noun+" earlier (adjourned). People wrote since; the comments are below, as of %s.", promptTime(rc.FiredAt))
		return
	}
	p.para("# You are resumed")
	what := "You recessed on this " + p.noun
	if rc.CorrelationID != "" {
		what += " (recess " + code(rc.CorrelationID) + ")"
	}
	if rc.RecessCount > 1 {
		what += fmt.Sprintf("; this conversation has recessed %d times so far", rc.RecessCount)
	}
	p.para(what + ".")
	p.linef("- **Why you were woken:** %s.", firedByPrompt(rc.FiredBy))
	p.linef("- **When:** %s.", promptTime(rc.FiredAt))
	if len(rc.Trigger) > 0 {
		if t, err := wait.ParseTrigger(rc.Trigger, wait.TriggerLimits{}); err == nil {
			p.linef("- **You waited for:** %s (%s).", triggerWords(t, nil, false), code(string(rc.Trigger)))
		} else {
			p.linef("- **You waited for:** %s.", code(string(rc.Trigger)))
		}
	}
	p.line("")
}

// firedByPrompt says what woke the agent, addressed to it.
func firedByPrompt(by string) string {
	if w, ok := firedBy[by]; ok {
		return w.agent
	}
	return code(text.ClipLine(by, 64))
}

func (p *promptWriter) comments(rc Context, asked []Question) {
	n := len(rc.HistorySince)
	switch {
	case n == 0 && rc.Omitted > 0:
		p.para("## Comments since\n\nNone fit in the context (see above); read the " + p.noun + ".")
		return
	case n == 0:
		p.para("## Comments since\n\nNo one wrote since you last ran.")
		return
	}
	p.paraf("## %s since you last ran, oldest first", text.Capital(text.Count(n, "comment", "comments")))
	byID := make(map[string]int, n)
	for i, e := range rc.HistorySince {
		byID[e.ID] = i
	}
	for i, e := range rc.HistorySince {
		by := fmt.Sprintf("**@%s** (%s)", text.ClipLine(e.Author, 64), roleWords(e.Role))
		p.entry(i, framing(e, i, rc.HistorySince, byID, asked), by, e.CreatedAt, e.URL, e.ID, e.Body)
	}
}

// entry renders comment i of a list: its heading, who wrote it when with
// its link and id, and its body quoted.
func (p *promptWriter) entry(i int, heading, by string, at time.Time, url, id, body string) {
	p.paraf("### %d. %s", i+1, heading)
	meta := by + " · " + promptTime(at)
	if url != "" {
		meta += " · [link](" + safeURL(url) + ")"
	}
	p.para(meta + " · id " + code(id))
	p.quote(body)
	p.line("")
}

// framing is an entry's heading: what it answers.
func framing(e HistoryEntry, i int, all []HistoryEntry, byID map[string]int, asked []Question) string {
	if e.ReplyTo == "" {
		return "Comment"
	}
	// The newest question in the thread is the one being answered.
	for k := len(asked) - 1; k >= 0; k-- {
		q := asked[k]
		if q.Thread == e.ReplyTo || q.ID == e.ReplyTo {
			s := "Answer to your question (“" + text.ClipLine(headline(q.Body), 80) + "”"
			if q.URL != "" {
				s += ", [link](" + safeURL(q.URL) + ")"
			}
			return s + ")"
		}
	}
	if j, ok := byID[e.ReplyTo]; ok && j != i {
		return fmt.Sprintf("Reply to comment %d (@%s)", j+1, text.ClipLine(all[j].Author, 64))
	}
	return "Reply under an earlier comment (" + code(e.ReplyTo) + ", not in this list)"
}

func (p *promptWriter) truncation(rc Context) {
	var cut []HistoryEntry
	for _, e := range rc.HistorySince {
		if strings.HasSuffix(e.Body, TruncatedMarker) {
			cut = append(cut, e)
		}
	}
	if !rc.Truncated && rc.Omitted == 0 && len(cut) == 0 {
		return
	}
	p.para("## Not everything fit")
	p.line("GitHub limits what a workflow run is given, so recess shortened this context (the oldest comments first).")
	if rc.Omitted > 0 {
		p.linef("%s left out entirely: read the %s for everything before the first comment below.", text.Capital(text.Count(rc.Omitted, "older comment was", "older comments were")), p.noun)
	}
	if rc.Truncated && len(rc.Trigger) == 0 && rc.FiredBy != FiredByIntake {
		p.line("What you waited for (the trigger) was left out too.")
	}
	if len(cut) > 0 {
		p.paraf("%s shortened; each ends in “%s”. Read the full text at the links:", text.Capital(text.Count(len(cut), "comment was", "comments were")), TruncatedMarker)
		for _, e := range cut {
			link := safeURL(e.URL)
			if link == "" {
				link = "(no link; comment id " + code(e.ID) + ")"
			}
			p.linef("- @%s, %s: %s", text.ClipLine(e.Author, 64), promptTime(e.CreatedAt), link)
		}
	}
	p.line("")
}

// quote renders a body as a blockquote, so nothing in it reads as the
// prompt's own structure (a heading, a list of instructions). Every form of
// line break is made a newline first: a reader that honours a bare CR or a
// Unicode line separator must not find a line outside the quote.
func (p *promptWriter) quote(body string) {
	body = strings.TrimRight(text.NormalizeBreaks(body), "\n")
	if body == "" {
		p.line("> (empty)")
		return
	}
	for _, l := range strings.Split(body, "\n") {
		if l == "" {
			p.line(">")
			continue
		}
		p.line("> " + l)
	}
}

func roleWords(role string) string {
	switch role {
	case "maintainer":
		return "maintainer, has write access"
	case "user", "":
		return "user"
	default:
		return text.ClipLine(role, 32)
	}
}

func promptTime(t time.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	return t.UTC().Format("Mon 2 Jan 2006 15:04 UTC")
}

// withArticle is noun with its indefinite article ("an issue").
func withArticle(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

func headline(s string) string {
	line, _ := text.FirstLine(s)
	return strings.TrimSpace(line)
}

// code renders outside text as inline code on one line; a backtick in it
// cannot end the code span early.
func code(s string) string {
	return "`" + strings.ReplaceAll(text.ClipLine(s, 8<<10), "`", "'") + "`"
}

// safeURL keeps a link on one line and inside its markdown parentheses.
func safeURL(u string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(text.ClipLine(u, 2048))
}
