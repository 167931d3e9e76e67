package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/recess-action/recess/resume"
)

// summary writes the job summary: what the run saw, what it decided and
// why, and a table of open recesses with their predicted moments.
func (a *actionRun) summary(res *resume.Result) {
	var b strings.Builder
	title := "recess · " + res.Command
	if res.Discussion != 0 {
		title += fmt.Sprintf(" · discussion #%d", res.Discussion)
	}
	fmt.Fprintf(&b, "### %s\n\n", title)
	if a.ev != nil && a.ev.Name != "" {
		what := a.ev.Name
		if a.ev.Action != "" {
			what += " (" + a.ev.Action + ")"
		}
		fmt.Fprintf(&b, "Event: `%s`", mdEscape(what))
		if a.set != nil && a.set.DryRun {
			b.WriteString(" · **dry run: nothing was written**")
		}
		b.WriteString("\n\n")
	}
	b.WriteString("| outcome | value |\n|---|---|\n")
	fmt.Fprintf(&b, "| dispatched | %v |\n| fired | %v |\n", res.Dispatched, res.Fired)
	if res.FiredBy != "" {
		fmt.Fprintf(&b, "| fired by | `%s` |\n", mdEscape(res.FiredBy))
	}
	if res.CorrelationID != "" {
		fmt.Fprintf(&b, "| correlation id | `%s` |\n", mdEscape(res.CorrelationID))
	}
	if res.Command == "claim" {
		fmt.Fprintf(&b, "| stale | %v |\n", res.Stale)
	}
	fmt.Fprintf(&b, "| open recesses | %d |\n", res.OpenRFCs)
	if res.DueAt != nil {
		fmt.Fprintf(&b, "| next due | %s |\n", res.DueAt.UTC().Format(time.RFC3339))
	}
	if res.Left > 0 {
		fmt.Fprintf(&b, "| left for the next sweep | %d |\n", res.Left)
	}
	b.WriteString("\n")
	notes := append([]string(nil), res.Notes...)
	for _, r := range res.Sweep {
		for _, n := range r.Notes {
			notes = append(notes, fmt.Sprintf("#%d: %s", r.Discussion, n))
		}
	}
	if len(notes) > 0 {
		b.WriteString("**What happened**\n\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", mdEscape(n))
		}
		b.WriteString("\n")
	}
	if len(res.Warnings) > 0 {
		b.WriteString("**Needs attention**\n\n")
		for _, w := range res.Warnings {
			fmt.Fprintf(&b, "- ⚠️ %s\n", mdEscape(w))
		}
		b.WriteString("\n")
	}
	if len(res.RFCs) > 0 {
		b.WriteString("**Open recesses**\n\n| discussion | correlation id | waiting for | predicted fire (time alone) | recess # |\n|---|---|---|---|---|\n")
		for _, r := range res.RFCs {
			due := "— (waits for people)"
			if r.DueAt != nil {
				due = r.DueAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(&b, "| #%d | `%s` | %s | %s | %d |\n", r.Discussion, mdEscape(r.CorrelationID), mdEscape(r.Waiting), due, r.RecessCount)
		}
		b.WriteString("\n")
	}
	if a.client != nil {
		st := a.client.Stats()
		fmt.Fprintf(&b, "<sub>GitHub API requests this run: %d</sub>\n", st.Requests())
	}
	a.addSummary(b.String())
}

// summaryFailure writes a short summary for a run that failed or refused.
func (a *actionRun) summaryFailure(err error) {
	a.addSummary(fmt.Sprintf("### recess · failed\n\n%s\n\nA refused input changes nothing: no comment was posted and no state was written.\n", mdEscape(err.Error())))
}

// mdEscape keeps text from outside (comment excerpts, reasons) from being
// read as markdown table syntax or HTML.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", "\\|", "<", "&lt;", ">", "&gt;", "\n", " ", "\r", " ")
	return r.Replace(s)
}
