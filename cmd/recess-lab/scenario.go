package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/action"
	"github.com/recess-action/recess/internal/fakeclock"
	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// A scenario is a story told to recess against the embedded fake GitHub:
// people open discussions and comment, the agent answers, time passes,
// sweeps run; expectations check what recess did. Maintainers use scenario
// files to test their own trigger policies (testdata/scenarios/*.yaml); the
// demo and recess-lab act tell scenarios too (demo.yaml,
// testdata/act/story.yaml).
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
	// Discussion opens a discussion, or names one the fake holds (number);
	// the event reaches recess. Issue opens an issue the same way;
	// PullRequest opens a pull request, whose opening is no event recess
	// serves (its conversation starts with a comment).
	Discussion  *discussionStep `yaml:"discussion"`
	Issue       *discussionStep `yaml:"issue"`
	PullRequest *discussionStep `yaml:"pull_request"`
	// Comment adds a comment; reply_to names an earlier comment by its
	// label; lost: true means its event never reaches recess.
	Comment *struct {
		Author  string `yaml:"author"`
		Body    string `yaml:"body"`
		Label   string `yaml:"label"`
		ReplyTo string `yaml:"reply_to"`
		Lost    bool   `yaml:"lost"`
	} `yaml:"comment"`
	// Agent is a dispatched agent run answering.
	Agent *agentStep `yaml:"agent"`
	// Wait moves the clock (an ISO-8601 duration such as PT1H or P2D).
	Wait string `yaml:"wait"`
	// Sweep runs the scheduled sweep.
	Sweep bool `yaml:"sweep"`
	// Close closes the story's thread (the event reaches recess; a pull
	// request's closing is noticed by the next run that reads it).
	Close bool `yaml:"close"`
	// Expect checks the world after the previous steps.
	Expect *expectation `yaml:"expect"`
}

type discussionStep struct {
	Number int    `yaml:"number"`
	Author string `yaml:"author"`
	Title  string `yaml:"title"`
	Body   string `yaml:"body"`
}

// agentStep is an agent run answering: a verdict (the correlation id and
// discussion number are filled in), fail: a conclusion (failure,
// cancelled) for a run that ends without one, or lead: the agent
// workflow's own lead answers (recess-lab act).
type agentStep struct {
	Verdict string         `yaml:"verdict"`
	Replies []agentReply   `yaml:"replies"`
	Trigger map[string]any `yaml:"trigger"`
	Summary string         `yaml:"summary"`
	Fail    string         `yaml:"fail"`
	Lead    bool           `yaml:"lead"`
	// Refused is the field recess must refuse the verdict for
	// ("verdict.replies[0].body"); any other refusal fails the scenario.
	Refused string `yaml:"refused"`
	// Run is the dispatch that answers, counted from 1 (default: the
	// newest one waiting); an earlier one is delivered again.
	Run int `yaml:"run"`
	// Stale: the claim must find the run stale (it then does nothing).
	Stale bool `yaml:"stale"`
	// Label names recess's first reply for this run, for reply_to.
	Label string `yaml:"label"`
}

// agentReply is a reply of a verdict; in a scenario ReplyTo is a comment's
// label, in the verdict document its id.
type agentReply struct {
	Body    string `yaml:"body" json:"body"`
	ReplyTo string `yaml:"reply_to" json:"reply_to,omitempty"`
}

// expectation is what must hold. Unset fields are not checked.
type expectation struct {
	// Dispatches counts the discussion's agent runs so far.
	Dispatches *int `yaml:"dispatches"`
	// OpenRFCs counts open recesses reported by the last recess run
	// (in-process runs only).
	OpenRFCs *int    `yaml:"open_rfcs"`
	FiredBy  *string `yaml:"fired_by"`
	// History lists the authors in the last dispatch's resume_context, in
	// order; "bob > question" is bob's reply to the comment labelled question.
	History []string `yaml:"history"`
	// Status is text the status comment's first line must contain.
	Status string `yaml:"status"`
	// Comment is text some comment by recess must contain.
	Comment string `yaml:"comment"`
	// Eyes is whether recess's EYES reaction is on the discussion.
	Eyes *bool `yaml:"eyes"`
	// Labels are the discussion's labels, all of them.
	Labels *[]string `yaml:"labels"`
	// Log is text the last step's log must contain (recess's; under act,
	// the act run's).
	Log []string `yaml:"log"`
	// SweepWorkflow is the state GitHub reports for the sweep's own
	// workflow (active, disabled_manually) in a setup that keeps it apart
	// (sweep-only-while-waiting); a setup whose front door sweeps has none,
	// and the story says so instead.
	SweepWorkflow string `yaml:"sweep_workflow"`
	// Store limits the expectation to the setup's state store (comment,
	// branch): only the comment store keeps a status comment and labels.
	Store string `yaml:"store"`
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
			{"discussion", st.Discussion != nil}, {"issue", st.Issue != nil}, {"pull_request", st.PullRequest != nil},
			{"comment", st.Comment != nil}, {"agent", st.Agent != nil},
			{"wait", st.Wait != ""}, {"sweep", st.Sweep}, {"close", st.Close}, {"expect", st.Expect != nil},
		} {
			if x.set {
				did = append(did, x.key)
			}
		}
		if len(did) != 1 {
			return nil, fmt.Errorf("scenario: steps[%d]: a step does exactly one thing of discussion, issue, pull_request, comment, agent, wait, sweep, close, expect (found %d: %s)", i, len(did), strings.Join(did, ", "))
		}
		if st.Wait != "" {
			if _, err := wait.ParseDuration(st.Wait); err != nil {
				return nil, fmt.Errorf("scenario: steps[%d].wait: %w", i, err)
			}
		}
		if a := st.Agent; a != nil {
			answers := len(slices.DeleteFunc([]bool{a.Verdict != "", a.Fail != "", a.Lead}, func(b bool) bool { return !b }))
			if answers > 1 || answers == 0 && !a.Stale {
				return nil, fmt.Errorf("scenario: steps[%d].agent: give verdict (the run answers), fail (it ends without a verdict) or lead: true (the workflow's lead answers)", i)
			}
			if a.Refused != "" && a.Verdict == "" {
				return nil, fmt.Errorf("scenario: steps[%d].agent.refused: only a verdict can be refused", i)
			}
		}
	}
	return &s, nil
}

// A runner runs recess for a story: in this process (runner.go), or the
// workflows under act (act.go).
type runner interface {
	// event delivers one event to recess, as the front door would.
	event(ctx context.Context, name string, payload []byte) (ran, error)
	// agent plays dispatched run ru: its claim, then the answer a gives
	// (verdict is a's verdict document, nil for none).
	agent(ctx context.Context, ru githubfake.Run, a *agentStep, verdict []byte) (ran, error)
}

// ran is what one runner call did.
type ran struct {
	log string
	// said is what recess said: its notes and warnings (under act, its
	// lines and annotations in the log).
	said []string
	// result is the engine's answer to the last recess run; nil under act.
	result *resume.Result
	// stale: the claim found the agent run stale.
	stale bool
	// end, when set, ends the story after this step, saying why.
	end string
}

// story tells one scenario against a fake GitHub through a runner.
type story struct {
	out     io.Writer
	verbose bool
	run     runner
	gh      *githubfake.GitHub
	clock   resume.Clock
	// bot is recess's login; disc the story's thread, of kind (a
	// discussion, an issue or a pull request).
	repo, bot string
	kind      state.Kind
	// store is the setup's state store (comment, branch); sweepFile the
	// sweep's own workflow, "" when the front door sweeps itself.
	store, sweepFile string
	disc             githubfake.Discussion
	labels           map[string]string // comment label -> id
	handled          map[int64]bool    // agent runs that answered
	last             ran               // what the last runner call did
	status           string            // the status line last told
}

func newStory(out io.Writer, verbose bool, run runner, gh *githubfake.GitHub, clock resume.Clock, repo, bot string) *story {
	return &story{out: out, verbose: verbose, run: run, gh: gh, clock: clock, repo: repo, bot: bot,
		labels: map[string]string{}, handled: map[int64]bool{}}
}

// tell plays the steps, checking every expectation; the error names the
// first step that failed.
func (st *story) tell(ctx context.Context, s *scenario) error {
	if s.Name != "" {
		fmt.Fprintf(st.out, "# %s\n\n", s.Name)
	}
	for i, step := range s.Steps {
		if err := st.step(ctx, step); err != nil {
			return fmt.Errorf("steps[%d]: %w", i, err)
		}
		if st.last.end != "" {
			fmt.Fprintf(st.out, "\n%s\n", st.last.end)
			return nil
		}
	}
	return nil
}

func (st *story) say(format string, args ...any) {
	fmt.Fprintf(st.out, "%s  %s\n", st.clock.Now().Format("Mon 15:04"), fmt.Sprintf(format, args...))
}

func (st *story) step(ctx context.Context, s step) error {
	switch {
	case s.Discussion != nil || s.Issue != nil || s.PullRequest != nil:
		return st.open(ctx, s)
	case s.Comment != nil:
		c := s.Comment
		var made githubfake.Comment
		var err error
		if c.ReplyTo != "" && st.kind.Flat() {
			return fmt.Errorf("comment.reply_to: a comment on %s answers no comment (its conversation is flat)", resume.Noun(st.kind))
		}
		if c.ReplyTo != "" {
			parent, ok := st.labels[c.ReplyTo]
			if !ok {
				return fmt.Errorf("comment.reply_to: no comment labelled %q", c.ReplyTo)
			}
			made, err = st.gh.Reply(parent, c.Author, c.Body)
		} else {
			made, err = st.gh.Comment(st.disc.ID, c.Author, c.Body)
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
		if st.kind.Flat() {
			payload, err := st.gh.IssueCommentPayload(made.ID, githubfake.Event{Action: "created"})
			if err != nil {
				return err
			}
			return st.event(ctx, "issue_comment", payload)
		}
		payload, err := st.gh.DiscussionCommentPayload(made.ID, githubfake.Event{Action: "created"})
		if err != nil {
			return err
		}
		return st.event(ctx, "discussion_comment", payload)
	case s.Agent != nil:
		return st.agent(ctx, s.Agent)
	case s.Wait != "":
		d, _ := wait.ParseDuration(s.Wait)
		c, ok := st.clock.(*fakeclock.Clock)
		if !ok {
			return errors.New("wait: this story runs on the real clock")
		}
		c.SetTime(d.AddTo(c.Now()))
		st.say("… %s later", s.Wait)
		return nil
	case s.Sweep:
		if st.sweepFile != "" {
			state, err := st.gh.WorkflowState(st.repo, st.sweepFile)
			if err != nil {
				return err
			}
			if state != githubfake.WorkflowActive {
				st.say("no sweep runs: GitHub runs no schedule of the sweep's workflow %s, %s", st.sweepFile, state)
				return nil
			}
		}
		st.say("the scheduled sweep runs")
		return st.event(ctx, "schedule", []byte(`{"schedule":"*/5 * * * *"}`))
	case s.Close:
		return st.close(ctx)
	case s.Expect != nil:
		return st.expect(s.Expect)
	}
	return errors.New("empty step")
}

// open opens the story's thread (or names a seeded discussion) and
// delivers its opening event.
func (st *story) open(ctx context.Context, s step) error {
	var d githubfake.Discussion
	var err error
	st.kind = state.KindDiscussion
	switch o := cmp.Or(s.Discussion, s.Issue, s.PullRequest); {
	case s.Issue != nil:
		st.kind = state.KindIssue
		d, err = st.gh.CreateIssue(st.repo, o.Author, cmp.Or(o.Title, "Bug"), o.Body)
	case s.PullRequest != nil:
		st.kind = state.KindPullRequest
		d, err = st.gh.CreatePullRequest(st.repo, o.Author, cmp.Or(o.Title, "Fix"), o.Body)
	case o.Number > 0:
		d, err = st.gh.Discussion(st.repo, o.Number) // a seeded one
	default:
		d, err = st.gh.CreateDiscussion(st.repo, o.Author, cmp.Or(o.Title, "RFC"), o.Body)
	}
	if err != nil {
		return err
	}
	st.disc = d
	st.say("@%s opens %s #%d %q", d.Author, resume.Noun(st.kind), d.Number, d.Title)
	switch st.kind {
	case state.KindIssue:
		return st.threadEvent(ctx, "opened")
	case state.KindPullRequest:
		return nil // no event recess serves: the conversation starts with a comment
	}
	return st.threadEvent(ctx, "created")
}

// close closes the story's thread; a pull request's closing reaches recess
// with the next run that reads it, not as an event.
func (st *story) close(ctx context.Context) error {
	if !st.kind.Flat() {
		if err := st.gh.CloseDiscussion(st.disc.ID, "RESOLVED"); err != nil {
			return err
		}
	} else if err := st.gh.CloseIssue(st.disc.ID, ""); err != nil {
		return err
	}
	st.say("the %s is closed", resume.Noun(st.kind))
	if st.kind == state.KindPullRequest {
		return nil
	}
	return st.threadEvent(ctx, "closed")
}

// threadEvent delivers the discussion or issue event of the story's thread.
func (st *story) threadEvent(ctx context.Context, what string) error {
	if st.kind == state.KindIssue {
		payload, err := st.gh.IssuePayload(st.disc.ID, githubfake.Event{Action: what})
		if err != nil {
			return err
		}
		return st.event(ctx, "issues", payload)
	}
	payload, err := st.gh.DiscussionPayload(st.disc.ID, githubfake.Event{Action: what})
	if err != nil {
		return err
	}
	return st.event(ctx, "discussion", payload)
}

// event delivers an event to recess and tells what it dispatched and what
// the status comment says now.
func (st *story) event(ctx context.Context, name string, payload []byte) error {
	before, err := st.runs()
	if err != nil {
		return err
	}
	r, err := st.run.event(ctx, name, payload)
	st.last = r
	if err != nil {
		return err
	}
	runs, err := st.runs()
	if err != nil {
		return err
	}
	for _, ru := range runs[len(before):] {
		cid := ru.Inputs["correlation_id"]
		if rc, err := action.DecodeResumeContext([]byte(ru.Inputs["resume_context"])); err == nil {
			st.say("recess resumes the agent (fired by %s): dispatch %s", rc.FiredBy, cid)
		} else {
			st.say("recess dispatches the agent: %s", cid)
		}
	}
	// recess keeps one agent run out per discussion: every run but the
	// newest has ended.
	for _, ru := range runs[:max(len(runs)-1, 0)] {
		if ru.Status != "completed" {
			return fmt.Errorf("agent run %d was dispatched while run %d had not ended: two agent runs at once", runs[len(runs)-1].ID, ru.ID)
		}
	}
	st.tellStatus()
	return nil
}

// tellStatus says the status comment's first line when it changed.
func (st *story) tellStatus() {
	if s := st.statusLine(); s != "" && s != st.status {
		st.status = s
		st.say("status comment: %s", s)
	}
}

// runs are the agent runs dispatched for the story's discussion, oldest first.
func (st *story) runs() ([]githubfake.Run, error) {
	runs, err := st.gh.Runs(st.repo)
	return slices.DeleteFunc(runs, func(ru githubfake.Run) bool {
		return ru.Inputs["discussion_number"] != strconv.Itoa(st.disc.Number)
	}), err
}

// agent plays a dispatched agent run: claim, then its answer.
func (st *story) agent(ctx context.Context, a *agentStep) error {
	runs, err := st.runs()
	if err != nil {
		return err
	}
	var ru *githubfake.Run
	for i := range runs {
		if a.Run == i+1 || a.Run == 0 && !st.handled[runs[i].ID] && runs[i].Status != "completed" {
			ru = &runs[i]
		}
	}
	if ru == nil {
		return fmt.Errorf("agent: no dispatched agent run is waiting to answer%s", saidLines(st.last.said))
	}
	st.handled[ru.ID] = true
	cid := ru.Inputs["correlation_id"]
	if rc, err := action.DecodeResumeContext([]byte(ru.Inputs["resume_context"])); err == nil {
		st.say("agent run %d is resumed (%s) with %s it has not seen", ru.ID, rc.FiredBy, text.Count(len(rc.HistorySince), "comment", "comments"))
	}
	var verdict []byte
	if a.Verdict != "" {
		if verdict, err = st.verdictDoc(a, cid, st.disc.Number); err != nil {
			return err
		}
	}
	before, err := st.gh.Comments(st.disc.ID)
	if err != nil {
		return err
	}
	r, err := st.run.agent(ctx, *ru, a, verdict)
	st.last = r
	if err != nil {
		return err
	}
	after, err := st.gh.Comments(st.disc.ID)
	if err != nil {
		return err
	}
	switch {
	case r.stale:
		st.say("agent run %d (%s) claims: stale, it skips its work", ru.ID, cid)
		if len(after) != len(before) {
			return fmt.Errorf("the stale run %d changed the discussion: %d comments, then %d", ru.ID, len(before), len(after))
		}
		return nil
	case a.Stale:
		return fmt.Errorf("agent: the claim of run %d did not find it stale", ru.ID)
	case a.Fail != "":
		st.say("agent run %d (%s) ends without a verdict: %s", ru.ID, cid, a.Fail)
	}
	labelled := false
	for _, c := range after {
		if id, i, ok := state.ParseReplyMarker(c.Body); ok && c.Author == st.bot && id == cid {
			st.say("agent run %d replies: %q", ru.ID, action.Excerpt(state.Visible(c.Body)))
			if a.Label != "" && i == 0 {
				st.labels[a.Label], labelled = c.ID, true
			}
		}
	}
	if a.Label != "" && !labelled {
		return fmt.Errorf("agent.label: recess posted no reply for agent run %d", ru.ID)
	}
	st.tellStatus()
	return nil
}

// verdictDoc is the verdict document of agent step a for the run with
// correlation id cid on discussion n.
func (st *story) verdictDoc(a *agentStep, cid string, n int) ([]byte, error) {
	doc := struct {
		Verdict          string         `json:"verdict"`
		CorrelationID    string         `json:"correlation_id"`
		DiscussionNumber int            `json:"discussion_number"`
		Replies          []agentReply   `json:"replies,omitempty"`
		Trigger          map[string]any `json:"trigger,omitempty"`
		Summary          string         `json:"summary,omitempty"`
	}{Verdict: a.Verdict, CorrelationID: cid, DiscussionNumber: n, Trigger: a.Trigger, Summary: a.Summary}
	for _, r := range a.Replies {
		id, ok := st.labels[r.ReplyTo]
		if r.ReplyTo != "" && !ok {
			return nil, fmt.Errorf("agent.replies.reply_to: no comment labelled %q", r.ReplyTo)
		}
		doc.Replies = append(doc.Replies, agentReply{r.Body, id})
	}
	return json.Marshal(doc)
}

// statusLine is the first line of recess's status comment, if any.
func (st *story) statusLine() string {
	cs, _ := st.gh.Comments(st.disc.ID)
	for _, c := range cs {
		if c.Author == st.bot && state.HasMarker(c.Body) {
			line, _ := text.FirstLine(c.Body)
			return action.PlainText(line)
		}
	}
	return ""
}

func (st *story) expect(x *expectation) error {
	if x.Store != "" && !strings.EqualFold(x.Store, st.store) {
		if st.verbose {
			st.say("(an expectation of the %s store: this setup keeps its records on the %s store)", x.Store, st.store)
		}
		return nil
	}
	runs, err := st.runs()
	if err != nil {
		return err
	}
	var problems []string
	check := func(ok bool, format string, args ...any) {
		if !ok {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	if x.Dispatches != nil {
		check(len(runs) == *x.Dispatches, "dispatches = %d, want %d", len(runs), *x.Dispatches)
	}
	if x.OpenRFCs != nil {
		got := "no run yet"
		if st.last.result != nil {
			got = strconv.Itoa(st.last.result.OpenRFCs)
		}
		check(got == strconv.Itoa(*x.OpenRFCs), "open_rfcs = %s, want %d", got, *x.OpenRFCs)
	}
	rc := &resume.Context{} // a fresh dispatch has none
	if len(runs) > 0 {
		if c, err := action.DecodeResumeContext([]byte(runs[len(runs)-1].Inputs["resume_context"])); err == nil {
			rc = c
		}
	}
	if x.FiredBy != nil {
		check(rc.FiredBy == *x.FiredBy, "the last dispatch's fired_by = %q, want %q", rc.FiredBy, *x.FiredBy)
	}
	if x.History != nil {
		var got []string
		for _, h := range rc.HistorySince {
			name := h.Author
			for label, id := range st.labels {
				if h.ReplyTo != "" && id == h.ReplyTo {
					name += " > " + label
				}
			}
			got = append(got, name)
		}
		check(slices.Equal(got, x.History), "the last dispatch's history = %q, want %q", got, x.History)
	}
	if x.Status != "" {
		check(strings.Contains(st.statusLine(), x.Status), "status comment %q does not contain %q", st.statusLine(), x.Status)
	}
	cs, err := st.gh.Comments(st.disc.ID)
	if err != nil {
		return err
	}
	if x.Comment != "" {
		check(slices.ContainsFunc(cs, func(c githubfake.Comment) bool { return c.Author == st.bot && strings.Contains(c.Body, x.Comment) }),
			"no comment by recess contains %q", x.Comment)
	}
	read := st.gh.Discussion
	if st.kind.Flat() {
		read = st.gh.Issue
	}
	d, err := read(st.repo, st.disc.Number)
	if err != nil {
		return err
	}
	if x.Eyes != nil {
		got := slices.Contains(d.Reactions["EYES"], st.bot)
		check(got == *x.Eyes, "EYES of recess on the %s: %v, want %v", resume.Noun(st.kind), got, *x.Eyes)
	}
	if x.Labels != nil {
		check(slices.Equal(slices.Sorted(slices.Values(d.Labels)), slices.Sorted(slices.Values(*x.Labels))), "labels = %q, want %q", d.Labels, *x.Labels)
	}
	for _, want := range x.Log {
		check(strings.Contains(st.last.log, want), "the last step's log lacks %q", want)
	}
	if x.SweepWorkflow != "" {
		if st.sweepFile == "" {
			st.say("(the front door sweeps itself: no sweep workflow of its own to be %s)", x.SweepWorkflow)
		} else {
			got, err := st.gh.WorkflowState(st.repo, st.sweepFile)
			if err != nil {
				return err
			}
			check(got == x.SweepWorkflow, "the sweep's workflow %s is %s, want %s", st.sweepFile, got, x.SweepWorkflow)
		}
	}
	if len(problems) > 0 {
		// What recess gave as its reasons, and the end of the log of the
		// step before, which did (or did not do) what is expected.
		err := fmt.Errorf("expectation failed: %s%s", strings.Join(problems, "; "), saidLines(st.last.said))
		if st.last.log != "" && !st.verbose {
			err = fmt.Errorf("%w\n--- end of the log:\n%s", err, lastLines(st.last.log, 40))
		}
		return err
	}
	if st.verbose {
		st.say("✓ as expected")
	}
	return nil
}

// saidLines is what recess said, as lines under the error that quotes
// them; "" when it said nothing.
func saidLines(said []string) string {
	if len(said) == 0 {
		return ""
	}
	return "\n--- recess said:\n  " + strings.Join(said, "\n  ")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
