package action

import (
	"fmt"
	"strings"
	"time"

	"github.com/recess-action/recess/resume"
)

// summary writes the job summary: what the run saw, what it decided and
// why, and a table of open recesses with their predicted moments. A dry run
// says what a real run would have done, never that it did it.
func (r *actionReport) summary(out *execution) {
	res := out.Result
	var b strings.Builder
	row := func(name string, value any) { fmt.Fprintf(&b, "| %s | %v |\n", name, value) }
	bullets := func(items []string, mark string) {
		for _, it := range items {
			fmt.Fprintf(&b, "- %s%s\n", mark, resume.EscapeMarkdown(it))
		}
		b.WriteString("\n")
	}
	title := "recess · " + res.Command
	if res.Discussion != 0 {
		title += fmt.Sprintf(" · %s #%d", resume.Noun(res.Kind), res.Discussion)
	}
	fmt.Fprintf(&b, "### %s\n\n", title)
	if ev := r.inv.Event; ev != nil && ev.Name != "" {
		what := ev.Name
		if ev.Action != "" {
			what += " (" + ev.Action + ")"
		}
		fmt.Fprintf(&b, "Event: %s", resume.EscapeMarkdown(what))
		if out.DryRun {
			b.WriteString(" · ")
		} else {
			b.WriteString("\n\n")
		}
	}
	if out.DryRun {
		b.WriteString("**dry run: nothing was written**\n\n")
	}
	b.WriteString("| outcome | value |\n|---|---|\n")
	if out.DryRun {
		row("would dispatch an agent run", yesNo(res.Dispatched))
		row("would resume a recess", yesNo(res.Fired))
		if res.FiredBy != "" {
			row("would be fired by", resume.EscapeMarkdown(res.FiredBy))
		}
	} else {
		row("dispatched", res.Dispatched)
		row("fired", res.Fired)
		if res.FiredBy != "" {
			row("fired by", resume.EscapeMarkdown(res.FiredBy))
		}
		if res.CorrelationID != "" {
			row("correlation id", resume.EscapeMarkdown(res.CorrelationID))
		}
	}
	if res.Command == CommandClaim {
		row("stale", res.Stale)
	}
	row("open recesses", res.OpenRFCs)
	if res.DueAt != nil {
		row("next due", res.DueAt.UTC().Format(time.RFC3339))
	}
	if res.Left > 0 {
		row("left for the next sweep", res.Left)
	}
	b.WriteString("\n")
	notes := allNotes(out)
	if out.DryRun {
		b.WriteString("**What a real run would have written**\n\n")
		would := []string{}
		for _, w := range out.Would {
			would = append(would, w.String())
		}
		if len(would) == 0 {
			would = []string{"nothing"}
		}
		bullets(would, "")
		if len(notes) > 0 {
			// The engine narrates as if it had written: kept apart, and
			// labelled as what a real run would record.
			b.WriteString("<details><summary>The engine's notes, as a real run would record them</summary>\n\n")
			bullets(notes, "")
			b.WriteString("</details>\n\n")
		}
	} else if len(notes) > 0 {
		b.WriteString("**What happened**\n\n")
		bullets(notes, "")
	}
	if len(res.Warnings) > 0 {
		b.WriteString("**Needs attention**\n\n")
		bullets(res.Warnings, "⚠️ ")
	}
	if len(res.RFCs) > 0 {
		b.WriteString("**Open recesses**\n\n| thread | correlation id | waiting for | predicted fire (time alone) | recess # |\n|---|---|---|---|---|\n")
		for _, v := range res.RFCs {
			due := "— (waits for people)"
			if v.DueAt != nil {
				due = v.DueAt.UTC().Format(time.RFC3339)
			}
			// What it waits for is recess's own words (resume.Describe over a
			// checked trigger), with its code spans.
			fmt.Fprintf(&b, "| #%d | %s | %s | %s | %d |\n", v.Discussion, resume.EscapeMarkdown(v.CorrelationID), v.Waiting, due, v.RecessCount)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "<sub>GitHub API requests this run: %d</sub>\n", out.Requests)
	r.addSummary(b.String())
}

// allNotes are the run's notes, then each swept discussion's.
func allNotes(out *execution) []string {
	notes := append([]string(nil), out.Notes...)
	for _, s := range out.Sweep {
		for _, n := range s.Notes {
			notes = append(notes, fmt.Sprintf("#%d: %s", s.Discussion, n))
		}
	}
	return notes
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// summaryFailure is the job summary of a run that failed or refused.
func summaryFailure(err error) string {
	return fmt.Sprintf("### recess · failed\n\n%s\n\nA refused input changes nothing: no comment was posted and no state was written.\n", resume.EscapeMarkdown(err.Error()))
}
