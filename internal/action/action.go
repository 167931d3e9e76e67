package action

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume"
)

// Exit statuses of every recess command: 0 done (including a deliberate
// no-op), 1 a failure, 2 refused input or usage.
const (
	exitOK      = 0
	exitFailed  = 1
	ExitRefused = 2
)

// runAction runs recess as the GitHub Action: the environment in; step
// outputs, annotations and a job summary out. Refused input is reported as
// an ::error annotation titled with the field, and the run then changed
// nothing.
func runAction(ctx context.Context, env runEnv, getenv func(string) string, stdout, stderr io.Writer) int {
	gha := githubactions.New(githubactions.WithGetenv(githubactions.GetenvFunc(getenv)), githubactions.WithWriter(stdout))
	r := &actionReport{gha: gha, hasSummary: env.HasSummary, hasOutputs: env.HasOutputs}
	if tok := gha.GetInput(InputGitHubToken); tok != "" && env.Actions {
		gha.AddMask(tok)
	}
	inv, err := invocationFromEnv(env, getenv, gha.GetInput)
	if err != nil {
		return r.failed(err)
	}
	r.inv = inv
	out, err := execute(ctx, inv, stderr)
	if inv.Command == cmdStatus && err == nil {
		// The status as JSON in the job log, for scripts that read it.
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(statusJSON(out)); err != nil {
			return r.failed(err)
		}
	}
	if out.Result != nil {
		r.outputs(out)
		r.summary(out)
		// What happened, in the job log too, where a person (or recess-lab
		// act) reading why nothing was dispatched looks first. One line each,
		// after a prefix, so no text in a note can start a workflow command.
		prefix := "recess: "
		if out.DryRun {
			prefix = "recess (dry run, as a real run would record it): "
		}
		for _, n := range allNotes(out) {
			fmt.Fprintf(stderr, "%s%s\n", prefix, text.OneLine(n))
		}
		for _, w := range out.Warnings {
			gha.WithFieldsMap(map[string]string{"title": "recess"}).Warningf("%s", text.OneLine(w))
		}
	}
	if err != nil {
		return r.failed(err)
	}
	return exitOK
}

// actionReport writes what a run did where GitHub Actions shows it.
type actionReport struct {
	gha *githubactions.Action
	inv *invocation // nil when the environment was refused
	// hasSummary and hasOutputs: the run has GITHUB_STEP_SUMMARY and
	// GITHUB_OUTPUT files (a local run has neither).
	hasSummary, hasOutputs bool
}

// failed reports err as one ::error annotation (titled with the field for
// refused input) and a short summary, and returns the exit status.
func (r *actionReport) failed(err error) int {
	title, code := "recess failed", exitFailed
	if field := RefusedField(err); field != "" {
		title, code = "recess refused "+field, ExitRefused
	}
	r.gha.WithFieldsMap(map[string]string{"title": title}).Errorf("%s", text.OneLine(err.Error()))
	r.addSummary(summaryFailure(err))
	return code
}

// outputs writes the step outputs SPEC.md lists. A dry run fired nothing
// and dispatched nothing, and its outputs say so.
func (r *actionReport) outputs(out *execution) {
	if !r.hasOutputs {
		return
	}
	res := out.Result
	due := ""
	if res.DueAt != nil {
		due = res.DueAt.UTC().Format(time.RFC3339)
	}
	fired, firedBy, correlationID := res.Fired, res.FiredBy, res.CorrelationID
	if out.DryRun {
		fired, firedBy, correlationID = false, "", ""
	}
	r.gha.SetOutput("fired", strconv.FormatBool(fired))
	r.gha.SetOutput("correlation_id", correlationID)
	r.gha.SetOutput("fired_by", firedBy)
	r.gha.SetOutput("due_at", due)
	r.gha.SetOutput("open_rfcs", strconv.Itoa(res.OpenRFCs))
	r.gha.SetOutput("stale", strconv.FormatBool(res.Stale))
	plan := res.Plan
	if plan == nil {
		plan = []int{}
	}
	discussions, _ := json.Marshal(plan) // a list of ints always marshals
	r.gha.SetOutput("discussions", string(discussions))
	if res.Command == CommandClaim {
		r.gha.SetOutput("prompt", out.Prompt)
	}
}

// addSummary appends to the job summary when there is one.
func (r *actionReport) addSummary(markdown string) {
	if r.hasSummary {
		r.gha.AddStepSummary(markdown)
	}
}

// statusJSON is the machine-readable status an action run prints.
func statusJSON(out *execution) any {
	type status struct {
		OpenRFCs int              `json:"open_rfcs"`
		RFCs     []resume.RFCView `json:"rfcs"`
		Notes    []string         `json:"notes"`
	}
	return status{OpenRFCs: out.OpenRFCs, RFCs: append([]resume.RFCView{}, out.RFCs...), Notes: out.Notes}
}
