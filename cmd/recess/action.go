package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

// Returned after the failure was already reported as an ::error
// annotation: the caller only sets the exit status.
var (
	// errRefused: outside input was refused; nothing was posted or written.
	errRefused = errors.New("refused input (reported)")
	// errFailed: the run failed (GitHub unreachable, a corrupt record, ...).
	errFailed = errors.New("failed (reported)")
)

// actionExit is the exit status of an action run: 0 done (including a
// deliberate no-op), 2 refused input, 1 any other failure.
func actionExit(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errRefused):
		return 2
	default:
		return 1
	}
}

// actionRun is one run of the action: environment in, outputs, annotations
// and a job summary out.
type actionRun struct {
	getenv func(string) string
	gha    *githubactions.Action
	stdout io.Writer
	stderr io.Writer
	clock  resume.Clock
	set    *settings
	ev     *event
	dry    *dryLog
	client *gh.Client
	// prompt is the claim's prompt output: the resume_context rendered for
	// the resumed agent ("" for a fresh run or a stale claim).
	prompt string
}

// runActionMode runs recess as the GitHub Action. Refused input is reported
// as an ::error annotation naming the field, and the run then changed
// nothing; the returned error only decides the exit status.
func runActionMode(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	gha := githubactions.New(githubactions.WithGetenv(githubactions.GetenvFunc(getenv)), githubactions.WithWriter(stdout))
	a := &actionRun{getenv: getenv, gha: gha, stdout: stdout, stderr: stderr}
	err := a.run(ctx)
	if err == nil {
		return nil
	}
	// Refused outside input names its field: a verdict's or trigger's
	// (FieldError) or the environment's and inputs' (inputError).
	var ie *inputError
	var fe *wait.FieldError
	title, reported := "recess failed", errFailed
	switch {
	case errors.As(err, &fe):
		title, reported = "recess refused "+fe.Field, errRefused
	case errors.As(err, &ie):
		title, reported = "recess refused "+ie.Field, errRefused
	}
	gha.WithFieldsMap(map[string]string{"title": title}).Errorf("%s", oneLine(err.Error()))
	a.summaryFailure(err)
	return reported
}

func (a *actionRun) run(ctx context.Context) error {
	clock, err := clockFrom(a.getenv)
	if err != nil {
		return err
	}
	a.clock = clock
	set, err := loadSettings(a.gha.GetInput, a.getenv("GITHUB_WORKSPACE"))
	if err != nil {
		return err
	}
	a.set = set
	if set.Token != "" && a.getenv("GITHUB_ACTIONS") == "true" {
		a.gha.AddMask(set.Token)
	}
	ev, err := readEvent(a.getenv("GITHUB_EVENT_NAME"), a.getenv("GITHUB_EVENT_PATH"))
	if err != nil {
		return err
	}
	a.ev = ev
	cmd := set.Command
	if cmd == "auto" {
		if cmd, err = ev.command(); err != nil {
			return err
		}
	}

	// Refuse bad verdicts before anything talks to GitHub.
	var verdictDoc []byte
	if cmd == "verdict" {
		if verdictDoc, err = a.verdictDocument(); err != nil {
			return err
		}
	}
	if ev.Name == "discussion_comment" && cmd == "inbound" && isWorkflowBot(ev.CommentAuthor) {
		// recess's own comments (made with the workflow token) never count
		// and never dispatch: nothing to do, no request spent.
		a.summary(&resume.Result{Command: cmd, Discussion: ev.Discussion, Notes: []string{"comment by " + ev.CommentAuthor + " (recess's own identity): nothing to do"}})
		a.outputs(&resume.Result{})
		return nil
	}

	e, err := a.engine()
	if err != nil {
		return err
	}
	var missing *missingWatch
	if ev.Discussion != 0 && cmd != "sweep" && cmd != "status" {
		missing = &missingWatch{}
		missing.watch(e)
	}
	var res *resume.Result
	switch cmd {
	case "intake":
		if ev.Discussion == 0 {
			return &inputError{Field: "event", Reason: "intake needs a discussion event"}
		}
		res, err = e.Intake(ctx, ev.Discussion)
	case "inbound":
		if ev.Discussion == 0 {
			return &inputError{Field: "event", Reason: "inbound needs a discussion or discussion_comment event"}
		}
		res, err = e.Inbound(ctx, ev.Discussion)
	case "sweep":
		res, err = e.Sweep(ctx)
	case "plan":
		res, err = e.Plan(ctx)
	case "visit":
		n := a.set.Discussion
		if n == 0 {
			n = ev.Discussion
		}
		if n == 0 {
			return &inputError{Field: "input discussion", Reason: "visit needs the discussion to visit"}
		}
		res, err = e.Visit(ctx, n)
	case "status":
		res, err = a.status(ctx, e)
	case "claim":
		res, err = a.claim(ctx, e)
	case "verdict":
		var v *resume.Verdict
		if v, err = e.ParseVerdict(verdictDoc); err != nil {
			return err
		}
		res, err = e.Verdict(ctx, v, a.runID())
	}
	if res != nil && missing != nil && missing.seen() != nil {
		msg := a.missingMessage(ev.Discussion, missing.seen())
		if ev.Action == "deleted" || ev.Action == "transferred" {
			// Expected after those two: a note, not a warning.
			res.Notes = append(res.Notes, msg)
		} else {
			res.Warnings = append(res.Warnings, msg)
		}
	}
	if res != nil {
		if a.dry != nil {
			res.Notes = append(res.Notes, a.dry.lines...)
		}
		a.outputs(res)
		a.summary(res)
		for _, w := range res.Warnings {
			a.gha.WithFieldsMap(map[string]string{"title": "recess"}).Warningf("%s", oneLine(w))
		}
	}
	return err
}

// clockFrom is RECESS_NOW when set (tests and predictions pin time), else
// the wall clock.
func clockFrom(getenv func(string) string) (resume.Clock, error) {
	v := getenv("RECESS_NOW")
	if v == "" {
		return resume.ClockFunc(time.Now), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, &inputError{Field: "RECESS_NOW", Reason: fmt.Sprintf("%q is not an RFC 3339 time", v)}
	}
	return resume.ClockFunc(func() time.Time { return t }), nil
}

// isWorkflowBot reports whether a webhook login is the Actions bot (the
// identity of GITHUB_TOKEN); REST and webhooks spell it with "[bot]".
func isWorkflowBot(login string) bool {
	return strings.EqualFold(login, "github-actions[bot]")
}

func (a *actionRun) verdictDocument() ([]byte, error) {
	switch {
	case a.set.Verdict != "" && a.set.VerdictFile != "":
		return nil, &inputError{Field: "input verdict", Reason: "give verdict or verdict-file, not both"}
	case a.set.Verdict != "":
		return []byte(a.set.Verdict), nil
	case a.set.VerdictFile != "":
		f, err := os.Open(a.set.VerdictFile)
		if err != nil {
			return nil, &inputError{Field: "input verdict-file", Reason: err.Error()}
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, resume.MaxVerdictBytes+1))
		if err != nil {
			return nil, &inputError{Field: "input verdict-file", Reason: err.Error()}
		}
		return b, nil
	}
	return nil, &inputError{Field: "input verdict", Reason: "the verdict command needs verdict or verdict-file"}
}

func (a *actionRun) runID() int64 {
	id, _ := strconv.ParseInt(a.getenv("GITHUB_RUN_ID"), 10, 64)
	return id
}

// engine wires the GitHub adapters, the chosen store and the policy.
func (a *actionRun) engine() (*resume.Engine, error) {
	repo := a.getenv("GITHUB_REPOSITORY")
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, &inputError{Field: "GITHUB_REPOSITORY", Reason: fmt.Sprintf("%q is not OWNER/REPO", repo)}
	}
	if a.set.Token == "" {
		return nil, &inputError{Field: "input github-token", Reason: "empty (the default is ${{ github.token }})"}
	}
	c, err := gh.New(gh.Config{
		Token:      a.set.Token,
		APIURL:     orDefault(a.getenv("GITHUB_API_URL"), "https://api.github.com"),
		GraphQLURL: a.getenv("GITHUB_GRAPHQL_URL"),
		Owner:      owner,
		Repo:       name,
		Workflow:   a.set.Workflow,
		Ref:        a.set.Ref,
		Logf:       a.logf,
	})
	if err != nil {
		return nil, err
	}
	a.client = c
	var store resume.Store
	switch a.set.StateStore {
	case "comment":
		cs := gh.NewCommentStore(c)
		cs.Clock = a.clock
		store = cs
	case "branch":
		store = gh.NewBranchStore(c, a.set.StateBranch)
	}
	if server := strings.TrimSuffix(orDefault(a.getenv("GITHUB_SERVER_URL"), "https://github.com"), "/"); a.set.Engine.RepositoryURL == "" {
		a.set.Engine.RepositoryURL = server + "/" + repo
	}
	e := &resume.Engine{
		Clock:       a.clock,
		Store:       store,
		Discussions: c,
		Dispatcher:  c,
		Config:      a.set.Engine,
		Logf:        a.logf,
	}
	if a.set.DryRun {
		a.dry = &dryLog{clock: a.clock}
		e.Store = dryStore{Store: e.Store, log: a.dry}
		e.Discussions = dryDiscussions{Discussions: e.Discussions, log: a.dry}
		e.Dispatcher = dryDispatcher{Dispatcher: e.Dispatcher, log: a.dry}
	}
	return e, nil
}

// logf writes a log line to stderr: the job log shows it, and stdout stays
// for workflow commands and machine-readable output.
func (a *actionRun) logf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "recess: "+format+"\n", args...)
}

// status reports one discussion (the event's) or every pending one, as a
// table in the summary and JSON on stdout.
func (a *actionRun) status(ctx context.Context, e *resume.Engine) (*resume.Result, error) {
	var res *resume.Result
	var err error
	if a.ev.Discussion != 0 {
		res, err = e.Status(ctx, a.ev.Discussion)
	} else {
		res, err = e.StatusAll(ctx)
	}
	if err != nil {
		return res, err
	}
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(statusJSON(res)); err != nil {
		return res, err
	}
	return res, nil
}

func (a *actionRun) claim(ctx context.Context, e *resume.Engine) (*resume.Result, error) {
	id := a.set.CorrelationID
	if id == "" {
		id = a.ev.Inputs["correlation_id"]
	}
	if id == "" {
		return nil, &inputError{Field: "input correlation-id", Reason: "claim needs the correlation id the run was dispatched with"}
	}
	if a.ev.Discussion == 0 {
		return nil, &inputError{Field: "event payload inputs.discussion_number", Reason: "claim needs the discussion number the run was dispatched with"}
	}
	// The resume_context is checked before the claim writes anything.
	field, raw := "input resume-context", a.set.ResumeContext
	if raw == "" {
		field, raw = "event payload inputs.resume_context", a.ev.Inputs["resume_context"]
	}
	var rc *resume.Context
	if raw != "" {
		var err error
		if rc, err = decodeResumeContext([]byte(raw)); err != nil {
			var ie *inputError
			if errors.As(err, &ie) {
				return nil, &inputError{Field: field + " (" + ie.Field + ")", Reason: ie.Reason}
			}
			return nil, &inputError{Field: field, Reason: err.Error()}
		}
	}
	res, err := e.Claim(ctx, a.ev.Discussion, id, a.runID())
	if err != nil || res.Stale || rc == nil {
		return res, err
	}
	a.prompt = resume.Prompt(*rc, a.questions(ctx, e, rc.CorrelationID))
	return res, nil
}

// questions are the replies recess posted for the recess being resumed
// (their hidden marker names its correlation id), so the prompt can frame
// the answers under them. Without them (the read failed) the prompt still
// lists every comment; a failed read only costs the framing.
func (a *actionRun) questions(ctx context.Context, e *resume.Engine, correlationID string) []resume.Question {
	if correlationID == "" {
		return nil
	}
	d, err := e.Discussions.Discussion(ctx, a.ev.Discussion)
	if err != nil {
		a.logf("prompt: could not read discussion %d for the questions asked (%v); answers are listed without them", a.ev.Discussion, err)
		return nil
	}
	return resume.Questions(d, correlationID)
}

// outputs writes the step outputs SPEC.md lists.
func (a *actionRun) outputs(res *resume.Result) {
	due := ""
	if res.DueAt != nil {
		due = res.DueAt.UTC().Format(time.RFC3339)
	}
	if a.getenv("GITHUB_OUTPUT") == "" {
		// Not under GitHub Actions (a local run): there is no output file.
		return
	}
	a.gha.SetOutput("fired", strconv.FormatBool(res.Fired))
	a.gha.SetOutput("correlation_id", res.CorrelationID)
	a.gha.SetOutput("fired_by", res.FiredBy)
	a.gha.SetOutput("due_at", due)
	a.gha.SetOutput("open_rfcs", strconv.Itoa(res.OpenRFCs))
	a.gha.SetOutput("stale", strconv.FormatBool(res.Stale))
	plan := res.Plan
	if plan == nil {
		plan = []int{}
	}
	discussions, _ := json.Marshal(plan) // a list of ints always marshals
	a.gha.SetOutput("discussions", string(discussions))
	if res.Command == "claim" {
		a.gha.SetOutput("prompt", a.prompt)
	}
}

// addSummary appends to the job summary when there is one.
func (a *actionRun) addSummary(markdown string) {
	if a.getenv("GITHUB_STEP_SUMMARY") != "" {
		a.gha.AddStepSummary(markdown)
	}
}

// statusJSON is the machine-readable status.
func statusJSON(res *resume.Result) any {
	type rfc struct {
		Discussion    int             `json:"discussion"`
		CorrelationID string          `json:"correlation_id"`
		Trigger       json.RawMessage `json:"trigger"`
		OpenedAt      time.Time       `json:"opened_at"`
		Waiting       string          `json:"waiting_for"`
		Reason        string          `json:"reason"`
		DueAt         *time.Time      `json:"due_at"`
		RecessCount   int             `json:"recess_count"`
	}
	out := struct {
		OpenRFCs int      `json:"open_rfcs"`
		RFCs     []rfc    `json:"rfcs"`
		Notes    []string `json:"notes"`
	}{OpenRFCs: res.OpenRFCs, RFCs: []rfc{}, Notes: res.Notes}
	for _, v := range res.RFCs {
		out.RFCs = append(out.RFCs, rfc{v.Discussion, v.CorrelationID, v.Trigger, v.OpenedAt, v.Waiting, v.Reason, v.DueAt, v.RecessCount})
	}
	return out
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ")
}
