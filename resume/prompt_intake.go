package resume

import "github.com/recess-action/recess/internal/text"

// intakeBodyRunes bounds each body an intake prompt quotes, and
// intakeComments how many of the newest comments it lists: a step output is
// no place for a whole long discussion, and the links say where the rest is.
const (
	intakeBodyRunes = 4000
	intakeComments  = 50
)

// IntakePrompt renders, for a fresh run (nothing resumed: the claim step of
// an intake), the discussion the agent is to answer: title, link, category
// and author, the opening post, and the people's comments with their ids,
// each quoted as Prompt quotes history, long ones shortened with the link.
// Pure, like Prompt.
func IntakePrompt(d *Thread) string {
	p := &promptWriter{noun: Noun(d.Kind)}
	p.para("# " + text.Capital(withArticle(p.noun)) + " to answer")
	p.linef("%s #%d, “%s”, opened by @%s on %s.", text.Capital(p.noun), d.Number, text.ClipLine(d.Title, 200), text.ClipLine(d.Author, 64), promptTime(d.CreatedAt))
	meta := ""
	if d.Category != "" {
		meta = "Category: " + text.ClipLine(d.Category, 64) + ". "
	}
	if d.URL != "" {
		meta += "Link: " + safeURL(d.URL) + "."
	}
	if meta != "" {
		p.line(meta)
	}
	p.line("")
	p.quote(intakeBody(d.Body))
	p.line("")
	var people []Comment
	for _, c := range d.Comments {
		if !c.Mine && !c.Deleted && !c.Minimized {
			people = append(people, c)
		}
	}
	if len(people) == 0 {
		p.para("No one has commented yet.")
	} else {
		if len(people) > intakeComments {
			p.paraf("%s not shown here; read them in the %s (read_thread).", text.Capital(text.Count(len(people)-intakeComments, "older comment is", "older comments are")), p.noun)
			people = people[len(people)-intakeComments:]
		}
		p.paraf("## %s, oldest first", text.Capital(text.Count(len(people), "comment", "comments")))
		for i, c := range people {
			head := "Comment"
			if c.Root != "" {
				head = "Reply under " + code(c.Root)
			}
			p.entry(i, head, "**@"+text.ClipLine(c.Author, 64)+"**", c.CreatedAt, c.URL, c.ID, intakeBody(c.Body))
		}
	}
	p.para("## What to do now")
	p.line("Answer with `adjourn`, or ask what you need with `reply` (use a comment's id as `reply_to` to answer under it) and wait for people with `recess`. Call the tool, then end your turn.")
	return p.String()
}

// intakeBody cuts a long body with the marker that says the full text is
// at the link.
func intakeBody(body string) string { return text.ClipWith(body, intakeBodyRunes, " "+TruncatedMarker) }

// UnreadPrompt is IntakePrompt for thread ref when it could not be read:
// it points to the thread and to read_thread.
func UnreadPrompt(ref ThreadRef) string {
	p := &promptWriter{noun: Noun(ref.Kind)}
	p.para("# " + text.Capital(withArticle(p.noun)) + " to answer")
	p.linef("%s #%d: read it with the read_thread tool, then answer with `adjourn`, or ask with `reply` and wait with `recess`. Call the tool, then end your turn.", text.Capital(p.noun), ref.Number)
	return p.String()
}
