package action

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume"
)

// A dry run reads from GitHub as a real run does; the engine decides as
// usual and, instead of writing, lists what it would write
// (resume.Engine.DryRun, Result.Planned). This file puts that plan in words.

// dryLine is one write a real run would have made.
type dryLine struct {
	// Discussion is the discussion the write is on (0: not known).
	Discussion int
	// What says it in words, without "would": "dispatch the agent workflow".
	What string
}

func (l dryLine) String() string {
	if l.Discussion == 0 {
		return "would " + l.What
	}
	return fmt.Sprintf("#%d: would %s", l.Discussion, l.What)
}

// would lists what a real run would have written, in order: the plan of
// each discussion the run decided on (a sweep's visits in turn).
func would(res *resume.Result) []dryLine {
	if res == nil {
		return nil
	}
	var out []dryLine
	for _, f := range res.Planned {
		out = append(out, dryLine{Discussion: res.Discussion, What: effectWords(f)})
	}
	for _, r := range res.Sweep {
		out = append(out, would(r)...)
	}
	return out
}

// effectWords says one planned write in words, without "would".
func effectWords(f resume.Effect) string {
	switch f.Kind {
	case resume.EffectReply, resume.EffectNote:
		where := "a comment"
		if f.ReplyTo != "" {
			where = "a reply"
		}
		return fmt.Sprintf("post %s: %q", where, Excerpt(PlainText(f.Body)))
	case resume.EffectEdit:
		return "bring the copy of the record in its comment " + f.Subject + " up to date"
	case resume.EffectWrite:
		what := "save the record"
		if status := PlainText(f.Body); status != "" {
			what += fmt.Sprintf(", status %q", Excerpt(status))
		}
		return what
	case resume.EffectReact:
		return "react with " + reactionWords(f.Reaction)
	case resume.EffectUnreact:
		return fmt.Sprintf("remove its %s reaction", reactionWords(f.Reaction))
	case resume.EffectLabel:
		return "add the label " + f.Label
	case resume.EffectUnlabel:
		return "remove the label " + f.Label
	case resume.EffectDispatch:
		what := "a fresh run"
		if f.Dispatch != nil && f.Dispatch.ResumeContext != "" {
			what = fmt.Sprintf("a resumed run with a resume_context of %d bytes", len(f.Dispatch.ResumeContext))
		}
		return "dispatch the agent workflow: " + what
	}
	return fmt.Sprintf("write (effect %d)", f.Kind)
}

func reactionWords(r resume.Reaction) string {
	if e, ok := map[resume.Reaction]string{resume.Eyes: "👀", resume.ThumbsUp: "👍", resume.Confused: "😕"}[r]; ok {
		return e
	}
	return string(r)
}

// htmlTag matches the HTML recess writes into comments (<sub>, hidden
// markers); PlainText leaves it out of what a terminal or a summary shows.
var htmlTag = regexp.MustCompile(`<!--[\s\S]*?-->|</?[a-zA-Z][^<>]*>`)

// PlainText is markdown or HTML from a comment as one line of plain words.
func PlainText(s string) string {
	return strings.Join(strings.Fields(text.OneLine(htmlTag.ReplaceAllString(s, " "))), " ")
}

// Excerpt is the first line of s, cut at 100 characters.
func Excerpt(s string) string {
	line, _ := text.FirstLine(s)
	return text.Clip(line, 100)
}
