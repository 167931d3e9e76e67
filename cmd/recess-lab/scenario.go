package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/action"
	"github.com/recess-action/recess/internal/fakeclock"
	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// A scenario is a story told to recess against the embedded fake GitHub:
// people open discussions and comment, the agent answers, time passes,
// sweeps run; expectations check what recess did. Maintainers use scenario
// files to test their own trigger policies (testdata/scenarios/*.yaml).
type scenario struct {
	Name string `yaml:"name"`
	// Start is the clock at the first step (default 2026-11-21T10:00:00Z).
	Start time.Time `yaml:"start"`
	// Inputs are action inputs for every recess run (state-store,
	// max-attempts, escalate-to, ...).
	Inputs map[string]string `yaml:"inputs"`
	// Maintainers get write access (MEMBER); everyone else is a CONTRIBUTOR.
	Maintainers []string `yaml:"maintainers"`
	Steps       []step   `yaml:"steps"`
}

// step does exactly one thing.
type step struct {
	// Discussion opens a discussion (the event reaches recess).
	Discussion *struct {
		Author string `yaml:"author"`
		Title  string `yaml:"title"`
		Body   string `yaml:"body"`
	} `yaml:"discussion"`
	// Comment adds a comment; reply_to names an earlier comment by its
	// label; lost: true means its event never reaches recess.
	Comment *struct {
		Author  string `yaml:"author"`
		Body    string `yaml:"body"`
		Label   string `yaml:"label"`
		ReplyTo string `yaml:"reply_to"`
		Lost    bool   `yaml:"lost"`
	} `yaml:"comment"`
	// Agent is the dispatched agent run answering: a verdict (the
	// correlation id and discussion number are filled in), or fail: a
	// conclusion (failure, cancelled) for a run that ends without one.
	Agent *agentStep `yaml:"agent"`
	// Wait moves the clock (an ISO-8601 duration such as PT1H or P2D).
	Wait string `yaml:"wait"`
	// Sweep runs the scheduled sweep.
	Sweep bool `yaml:"sweep"`
	// Close closes the discussion (the event reaches recess).
	Close bool `yaml:"close"`
	// Expect checks the world after the previous steps.
	Expect *expectation `yaml:"expect"`
}

type agentStep struct {
	Verdict string         `yaml:"verdict"`
	Replies []agentReply   `yaml:"replies"`
	Trigger map[string]any `yaml:"trigger"`
	Summary string         `yaml:"summary"`
	Fail    string         `yaml:"fail"`
	// Refused is the field recess must refuse the verdict for
	// ("verdict.replies[0].body"); any other refusal fails the scenario.
	Refused string `yaml:"refused"`
}

type agentReply struct {
	Body    string `yaml:"body"`
	ReplyTo string `yaml:"reply_to"` // a comment label
}

// expectation is what must hold. Unset fields are not checked.
type expectation struct {
	Dispatches *int `yaml:"dispatches"`
	// OpenRFCs counts open recesses reported by the last recess run.
	OpenRFCs *int    `yaml:"open_rfcs"`
	FiredBy  *string `yaml:"fired_by"`
	// History lists the authors in the last dispatch's resume_context, in order.
	History []string `yaml:"history"`
	// Status is text the status comment must contain.
	Status string `yaml:"status"`
	// Comment is text some comment by recess must contain.
	Comment string `yaml:"comment"`
}

// parseScenario reads a scenario strictly: an unknown key, a value of the
// wrong kind or a step that does not do exactly one thing is an error that
// names the YAML field (and its line).
func parseScenario(data []byte) (*scenario, error) {
	var s scenario
	if err := action.DecodeYAML(data, &s); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if s.Start.IsZero() {
		s.Start = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Inputs)) {
		if err := action.LabInput(k); err != nil {
			return nil, fmt.Errorf("scenario: inputs.%s: %w", k, err)
		}
	}
	for i, st := range s.Steps {
		var did []string
		for _, x := range []struct {
			key string
			set bool
		}{
			{"discussion", st.Discussion != nil}, {"comment", st.Comment != nil}, {"agent", st.Agent != nil},
			{"wait", st.Wait != ""}, {"sweep", st.Sweep}, {"close", st.Close}, {"expect", st.Expect != nil},
		} {
			if x.set {
				did = append(did, x.key)
			}
		}
		if len(did) != 1 {
			return nil, fmt.Errorf("scenario: steps[%d]: a step does exactly one thing of discussion, comment, agent, wait, sweep, close, expect (found %d: %s)", i, len(did), strings.Join(did, ", "))
		}
		if st.Wait != "" {
			if _, err := wait.ParseDuration(st.Wait); err != nil {
				return nil, fmt.Errorf("scenario: steps[%d].wait: %w", i, err)
			}
		}
		if a := st.Agent; a != nil {
			if (a.Fail == "") == (a.Verdict == "") {
				return nil, fmt.Errorf("scenario: steps[%d].agent: give verdict (the run answers) or fail (it ends without a verdict)", i)
			}
			if a.Refused != "" && a.Verdict == "" {
				return nil, fmt.Errorf("scenario: steps[%d].agent.refused: only a verdict can be refused", i)
			}
		}
	}
	return &s, nil
}

// story runs one scenario.
type story struct {
	s       *scenario
	out     io.Writer
	verbose bool

	// clock is the story's time: a scenario's fake clock, which its wait
	// steps move, or the real one for a seed played on a running fake.
	clock resume.Clock

	gh   *githubfake.GitHub
	repo string
	// token is the token recess runs with, bot its login (the workflow
	// token's), serverURL the web address in links recess writes.
	token, bot, serverURL string
	discID                string
	labels                map[string]string // comment label -> id
	handled               map[int64]bool    // agent runs that answered
	last                  *resume.Result    // what the last recess run reported
	dir                   string
	runSeq                int64
}

const (
	storyOwner = "octo"
	storyRepo  = "rfcs"
	storyToken = "recess-demo-token"
	// storyBot is recess's login in the story: the workflow token's.
	storyBot = "github-actions"
)

// newStory starts the embedded fake GitHub with the repository, the
// labels and the agent workflow a story needs. Close it with st.close.
func newStory(s *scenario, out io.Writer, verbose bool) (*story, error) {
	dir, err := os.MkdirTemp("", "recess-scenario-")
	if err != nil {
		return nil, err
	}
	st := &story{s: s, out: out, verbose: verbose, clock: fakeclock.New(s.Start.UTC()), labels: map[string]string{},
		handled: map[int64]bool{}, dir: dir, repo: storyOwner + "/" + storyRepo, runSeq: 9000,
		token: storyToken, bot: storyBot, serverURL: storyServerURL}
	st.gh = githubfake.New(githubfake.WithClock(st.clock.Now))
	err = st.gh.InstallRecess(githubfake.RecessSetup{Owner: storyOwner, Name: storyRepo,
		Token: st.token, Bot: st.bot, Maintainers: s.Maintainers})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	st.gh.Start()
	return st, nil
}

func (st *story) close() {
	st.gh.Close()
	os.RemoveAll(st.dir)
}

// runScenario tells the story and checks its expectations. It returns an
// error naming the first step whose expectation failed. The returned
// story's fake GitHub is closed but can still be inspected.
func runScenario(ctx context.Context, s *scenario, out io.Writer, verbose bool) (*story, error) {
	st, err := newStory(s, out, verbose)
	if err != nil {
		return nil, err
	}
	defer st.close()
	if s.Name != "" {
		fmt.Fprintf(out, "# %s\n\n", s.Name)
	}
	for i, step := range s.Steps {
		if err := st.step(ctx, step); err != nil {
			return st, fmt.Errorf("steps[%d]: %w", i, err)
		}
	}
	return st, nil
}

func (st *story) say(format string, args ...any) {
	fmt.Fprintf(st.out, "%s  %s\n", st.clock.Now().Format("Mon 15:04"), fmt.Sprintf(format, args...))
}

func (st *story) step(ctx context.Context, s step) error {
	switch {
	case s.Discussion != nil:
		title := s.Discussion.Title
		if title == "" {
			title = "RFC"
		}
		d, err := st.gh.CreateDiscussion(st.repo, s.Discussion.Author, title, s.Discussion.Body)
		if err != nil {
			return err
		}
		st.discID = d.ID
		st.say("@%s opens discussion #%d %q", s.Discussion.Author, d.Number, d.Title)
		payload, err := st.gh.DiscussionPayload(d.ID, githubfake.Event{Action: "created"})
		if err != nil {
			return err
		}
		return st.recess(ctx, storyRun{event: "discussion", payload: payload})
	case s.Comment != nil:
		c := s.Comment
		var made githubfake.Comment
		var err error
		if c.ReplyTo != "" {
			parent, ok := st.labels[c.ReplyTo]
			if !ok {
				return fmt.Errorf("comment.reply_to: no comment labelled %q", c.ReplyTo)
			}
			made, err = st.gh.Reply(parent, c.Author, c.Body)
		} else {
			made, err = st.gh.Comment(st.discID, c.Author, c.Body)
		}
		if err != nil {
			return err
		}
		if c.Label != "" {
			st.labels[c.Label] = made.ID
		}
		lost := ""
		if c.Lost {
			lost = " (its event is lost)"
		}
		st.say("@%s comments: %q%s", c.Author, action.Excerpt(c.Body), lost)
		if c.Lost {
			return nil
		}
		payload, err := st.gh.DiscussionCommentPayload(made.ID, githubfake.Event{Action: "created"})
		if err != nil {
			return err
		}
		return st.recess(ctx, storyRun{event: "discussion_comment", payload: payload})
	case s.Agent != nil:
		return st.agent(ctx, s.Agent)
	case s.Wait != "":
		d, _ := wait.ParseDuration(s.Wait)
		c := st.clock.(*fakeclock.Clock) // only a scenario has wait steps
		c.SetTime(d.AddTo(c.Now()))
		st.say("… %s later", s.Wait)
		return nil
	case s.Sweep:
		st.say("the scheduled sweep runs")
		return st.recess(ctx, storyRun{event: "schedule", payload: []byte(`{"schedule":"*/5 * * * *"}`)})
	case s.Close:
		if err := st.gh.CloseDiscussion(st.discID, "RESOLVED"); err != nil {
			return err
		}
		st.say("the discussion is closed")
		payload, err := st.gh.DiscussionPayload(st.discID, githubfake.Event{Action: "closed"})
		if err != nil {
			return err
		}
		return st.recess(ctx, storyRun{event: "discussion", payload: payload})
	case s.Expect != nil:
		return st.expect(s.Expect)
	}
	return errors.New("empty step")
}

// storyRun is what one recess run of the story is: its event, and what the
// agent's steps set (the command, the run id, the correlation id, the
// verdict).
type storyRun struct {
	event   string
	payload []byte
	command string // "" for auto
	runID   int64
	verdict []byte
	// refused is the field the run must be refused for ("" for none).
	refused string
}

// recess runs recess for one event of the story: the scenario's inputs,
// the event, the story's clock, straight into execute. A refusal the step
// did not expect, or any failure, fails the scenario.
func (st *story) recess(ctx context.Context, r storyRun) error {
	st.runSeq++
	out, err := action.RunForLab(ctx, action.LabRun{
		Inputs: func(k string) string {
			if k == action.InputGitHubToken {
				return st.token
			}
			return st.s.Inputs[k]
		},
		Workspace:  st.dir,
		Event:      r.event,
		Payload:    r.payload,
		Command:    r.command,
		Repo:       st.repo,
		APIURL:     strings.TrimSuffix(st.gh.URL(), "/"),
		GraphQLURL: st.gh.GraphQLURL(),
		ServerURL:  st.serverURL,
		RunID:      cmp.Or(r.runID, st.runSeq),
		Clock:      st.clock,
		Verdict:    r.verdict,
	})
	if st.verbose {
		lines := out.Log
		if err != nil {
			lines = append(lines, "error: "+err.Error())
		}
		for _, line := range lines {
			if line = action.PlainText(line); line != "" {
				fmt.Fprintf(st.out, "           │ %s\n", line)
			}
		}
	}
	if out.Result != nil {
		st.last = out.Result
	}
	if !out.Ran {
		return err
	}
	field := action.RefusedField(err)
	switch {
	case r.refused != "" && field == r.refused:
		st.say("recess (%s) refuses it: %s", out.Command, err)
		return nil
	case r.refused != "" && err == nil:
		return fmt.Errorf("recess (%s) accepted what it should have refused for %s", out.Command, r.refused)
	case field != "":
		return fmt.Errorf("recess (%s) refused %s: %w", out.Command, field, err)
	case err != nil:
		return fmt.Errorf("recess (%s) failed: %w", out.Command, err)
	}
	res := out.Result
	switch {
	case res.Fired:
		st.say("recess resumes the agent (fired by %s): dispatch %s", res.FiredBy, res.CorrelationID)
	case res.Dispatched && out.Command != action.CommandClaim && out.Command != action.CommandVerdict:
		st.say("recess dispatches the agent: %s", res.CorrelationID)
	}
	if status := st.statusLine(); status != "" && out.Command != action.CommandClaim {
		st.say("status comment: %s", status)
	}
	return nil
}

// storyServerURL is the fake's web address in links recess writes.
const storyServerURL = "https://github.test"

// agent plays the newest dispatched agent run: claim, then the verdict
// (or a failure without one).
func (st *story) agent(ctx context.Context, a *agentStep) error {
	runs, err := st.gh.Runs(st.repo)
	if err != nil {
		return err
	}
	var ru *githubfake.Run
	for i := range runs {
		if !st.handled[runs[i].ID] && runs[i].Status != "completed" {
			ru = &runs[i]
		}
	}
	if ru == nil {
		return errors.New("agent: no dispatched agent run is waiting to answer")
	}
	st.handled[ru.ID] = true
	payload, err := st.gh.WorkflowDispatchPayload(ru.ID)
	if err != nil {
		return err
	}
	if err := st.recess(ctx, storyRun{event: "workflow_dispatch", payload: payload, command: action.CommandClaim, runID: ru.ID}); err != nil {
		return err
	}
	cid := ru.Inputs["correlation_id"]
	if st.last.Stale {
		st.say("agent run %d (%s) claims: stale, it skips its work", ru.ID, cid)
		return st.gh.SetRunStatus(ru.ID, "completed", "success")
	}
	if a.Fail != "" {
		st.say("agent run %d (%s) ends without a verdict: %s", ru.ID, cid, a.Fail)
		return st.gh.SetRunStatus(ru.ID, "completed", a.Fail)
	}
	n, _ := strconv.Atoi(ru.Inputs["discussion_number"])
	b, err := st.verdictDoc(a, cid, n)
	if err != nil {
		return err
	}
	if ctxJSON := ru.Inputs["resume_context"]; ctxJSON != "" {
		if rc, err := action.DecodeResumeContext([]byte(ctxJSON)); err == nil {
			st.say("agent run %d is resumed (%s) with %s it has not seen", ru.ID, rc.FiredBy, resume.Count(len(rc.HistorySince), "comment", "comments"))
		}
	}
	// What the agent says, as people will read it in the discussion.
	for _, r := range a.Replies {
		st.say("agent run %d replies: %q", ru.ID, action.Excerpt(r.Body))
	}
	switch {
	case a.Verdict == resume.VerdictRecessed && a.Trigger != nil:
		t, _ := json.Marshal(a.Trigger)
		words := string(t)
		if tr, err := wait.ParseTrigger(t, wait.TriggerLimits{}); err == nil {
			words = resume.Describe(tr, wait.Observed{OpenedAt: st.clock.Now()})
		}
		st.say("agent run %d recesses: resume it %s", ru.ID, words)
	case a.Verdict == resume.VerdictAdjourned:
		st.say("agent run %d adjourns: its answer is given", ru.ID)
	default:
		st.say("agent run %d answers: %s", ru.ID, a.Verdict)
	}
	if err := st.recess(ctx, storyRun{event: "workflow_dispatch", payload: payload, command: action.CommandVerdict, runID: ru.ID, verdict: b, refused: a.Refused}); err != nil {
		return err
	}
	return st.gh.SetRunStatus(ru.ID, "completed", "success")
}

// verdictDoc is the verdict document of agent step a for the run with
// correlation id cid on discussion n.
func (st *story) verdictDoc(a *agentStep, cid string, n int) ([]byte, error) {
	type reply struct {
		Body    string `json:"body"`
		ReplyTo string `json:"reply_to,omitempty"`
	}
	doc := struct {
		Verdict          string         `json:"verdict"`
		CorrelationID    string         `json:"correlation_id"`
		DiscussionNumber int            `json:"discussion_number"`
		Replies          []reply        `json:"replies,omitempty"`
		Trigger          map[string]any `json:"trigger,omitempty"`
		Summary          string         `json:"summary,omitempty"`
	}{Verdict: a.Verdict, CorrelationID: cid, DiscussionNumber: n, Trigger: a.Trigger, Summary: a.Summary}
	for _, r := range a.Replies {
		id, ok := st.labels[r.ReplyTo]
		if r.ReplyTo != "" && !ok {
			return nil, fmt.Errorf("agent.replies.reply_to: no comment labelled %q", r.ReplyTo)
		}
		doc.Replies = append(doc.Replies, reply{r.Body, id})
	}
	return json.Marshal(doc)
}

// statusLine is the first line of recess's status comment, if any.
func (st *story) statusLine() string {
	c, err := statusComment(st.gh, st.discID, st.bot)
	if err != nil {
		return ""
	}
	return action.PlainText(action.FirstLine(c.Body))
}

// statusComment is the status comment bot (recess's login) keeps in a
// discussion.
func statusComment(g *githubfake.GitHub, discussionID, bot string) (githubfake.Comment, error) {
	cs, err := g.Comments(discussionID)
	if err != nil {
		return githubfake.Comment{}, err
	}
	for _, c := range cs {
		if c.Author == bot && state.HasMarker(c.Body) {
			return c, nil
		}
	}
	return githubfake.Comment{}, errors.New("no status comment of recess")
}

func (st *story) expect(x *expectation) error {
	runs, err := st.gh.Runs(st.repo)
	if err != nil {
		return err
	}
	var problems []string
	if x.Dispatches != nil && len(runs) != *x.Dispatches {
		problems = append(problems, fmt.Sprintf("dispatches = %d, want %d", len(runs), *x.Dispatches))
	}
	if x.OpenRFCs != nil {
		got := "no run yet"
		if st.last != nil {
			got = strconv.Itoa(st.last.OpenRFCs)
		}
		if got != strconv.Itoa(*x.OpenRFCs) {
			problems = append(problems, fmt.Sprintf("open_rfcs = %s, want %d", got, *x.OpenRFCs))
		}
	}
	rc := &resume.Context{} // a fresh dispatch has none
	if len(runs) > 0 {
		if c, err := action.DecodeResumeContext([]byte(runs[len(runs)-1].Inputs["resume_context"])); err == nil {
			rc = c
		}
	}
	if x.FiredBy != nil && rc.FiredBy != *x.FiredBy {
		problems = append(problems, fmt.Sprintf("the last dispatch's fired_by = %q, want %q", rc.FiredBy, *x.FiredBy))
	}
	if x.History != nil {
		var got []string
		for _, h := range rc.HistorySince {
			got = append(got, h.Author)
		}
		if !slices.Equal(got, x.History) {
			problems = append(problems, fmt.Sprintf("the last dispatch's history authors = %v, want %v", got, x.History))
		}
	}
	if x.Status != "" && !strings.Contains(st.statusLine(), x.Status) {
		problems = append(problems, fmt.Sprintf("status comment %q does not contain %q", st.statusLine(), x.Status))
	}
	if x.Comment != "" {
		found := false
		cs, _ := st.gh.Comments(st.discID)
		for _, c := range cs {
			found = found || (c.Author == st.bot && strings.Contains(c.Body, x.Comment))
		}
		if !found {
			problems = append(problems, fmt.Sprintf("no comment by recess contains %q", x.Comment))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("expectation failed: %s", strings.Join(problems, "; "))
	}
	if st.verbose {
		st.say("✓ as expected")
	}
	return nil
}
