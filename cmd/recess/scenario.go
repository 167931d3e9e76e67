//go:build !recess_nodemo

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
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
	Agent *struct {
		Verdict string         `yaml:"verdict"`
		Replies []agentReply   `yaml:"replies"`
		Trigger map[string]any `yaml:"trigger"`
		Summary string         `yaml:"summary"`
		Fail    string         `yaml:"fail"`
	} `yaml:"agent"`
	// Wait moves the clock (an ISO-8601 duration such as PT1H or P2D).
	Wait string `yaml:"wait"`
	// Sweep runs the scheduled sweep.
	Sweep bool `yaml:"sweep"`
	// Close closes the discussion (the event reaches recess).
	Close bool `yaml:"close"`
	// Expect checks the world after the previous steps.
	Expect *expectation `yaml:"expect"`
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

// parseScenario reads a scenario strictly: unknown keys are errors.
func parseScenario(data []byte) (*scenario, error) {
	var s scenario
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if s.Start.IsZero() {
		s.Start = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	}
	for i, st := range s.Steps {
		n := 0
		for _, set := range []bool{st.Discussion != nil, st.Comment != nil, st.Agent != nil, st.Wait != "", st.Sweep, st.Close, st.Expect != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return nil, fmt.Errorf("scenario: steps[%d]: a step does exactly one thing (found %d)", i, n)
		}
		if st.Wait != "" {
			if _, err := wait.ParseDuration(st.Wait); err != nil {
				return nil, fmt.Errorf("scenario: steps[%d].wait: %w", i, err)
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

	mu  sync.Mutex
	now time.Time

	gh      *githubfake.GitHub
	repo    string
	discID  string
	number  int
	labels  map[string]string // comment label -> id
	handled map[int64]bool    // agent runs that answered
	last    map[string]string // outputs of the last recess run
	dir     string
	runSeq  int64
}

const (
	storyOwner = "octo"
	storyRepo  = "rfcs"
	storyToken = "recess-demo-token"
)

func (st *story) clock() time.Time {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.now
}

// newStory starts the embedded fake GitHub with the repository, the
// labels and the agent workflow a story needs. Close it with st.close.
func newStory(s *scenario, out io.Writer, verbose bool) (*story, error) {
	dir, err := os.MkdirTemp("", "recess-scenario-")
	if err != nil {
		return nil, err
	}
	st := &story{s: s, out: out, verbose: verbose, now: s.Start.UTC(), labels: map[string]string{},
		handled: map[int64]bool{}, dir: dir, repo: storyOwner + "/" + storyRepo, runSeq: 9000}
	st.gh = githubfake.New(githubfake.WithClock(st.clock))
	err = st.gh.InstallRecess(githubfake.RecessSetup{Owner: storyOwner, Name: storyRepo,
		Token: storyToken, Bot: "github-actions", Maintainers: s.Maintainers})
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
	fmt.Fprintf(st.out, "%s  %s\n", st.clock().Format("Mon 15:04"), fmt.Sprintf(format, args...))
}

func (st *story) step(ctx context.Context, s step) error {
	switch {
	case s.Discussion != nil:
		d, err := st.gh.CreateDiscussion(st.repo, s.Discussion.Author, orDefault(s.Discussion.Title, "RFC"), s.Discussion.Body)
		if err != nil {
			return err
		}
		st.discID, st.number = d.ID, d.Number
		st.say("@%s opens discussion #%d %q", s.Discussion.Author, d.Number, d.Title)
		payload, err := st.gh.DiscussionPayload(d.ID, githubfake.Event{Action: "created"})
		if err != nil {
			return err
		}
		return st.recess(ctx, "discussion", payload, nil)
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
		st.say("@%s comments: %q%s", c.Author, excerpt(c.Body), lost)
		if c.Lost {
			return nil
		}
		payload, err := st.gh.DiscussionCommentPayload(made.ID, githubfake.Event{Action: "created"})
		if err != nil {
			return err
		}
		return st.recess(ctx, "discussion_comment", payload, nil)
	case s.Agent != nil:
		return st.agent(ctx, s)
	case s.Wait != "":
		d, _ := wait.ParseDuration(s.Wait)
		st.mu.Lock()
		st.now = d.AddTo(st.now)
		st.mu.Unlock()
		st.say("… %s later", s.Wait)
		return nil
	case s.Sweep:
		st.say("the scheduled sweep runs")
		return st.recess(ctx, "schedule", []byte(`{"schedule":"*/5 * * * *"}`), nil)
	case s.Close:
		if err := st.gh.CloseDiscussion(st.discID, "RESOLVED"); err != nil {
			return err
		}
		st.say("the discussion is closed")
		payload, err := st.gh.DiscussionPayload(st.discID, githubfake.Event{Action: "closed"})
		if err != nil {
			return err
		}
		return st.recess(ctx, "discussion", payload, nil)
	case s.Expect != nil:
		return st.expect(s.Expect)
	}
	return errors.New("empty step")
}

// recess runs the action exactly as GitHub Actions would: environment,
// event payload file, output and summary files.
func (st *story) recess(ctx context.Context, eventName string, payload []byte, extra map[string]string) error {
	st.runSeq++
	inputs := map[string]string{}
	for k, v := range st.s.Inputs {
		inputs["INPUT_"+strings.ToUpper(k)] = v
	}
	for k, v := range extra {
		inputs[k] = v
	}
	env, err := actionsRun{gh: st.gh, repo: st.repo, token: storyToken, dir: st.dir, seq: st.runSeq,
		now: st.clock(), event: eventName, payload: payload}.env(inputs)
	if err != nil {
		return err
	}
	var stdout, stderr bytes.Buffer
	err = runActionMode(ctx, func(k string) string { return env[k] }, &stdout, &stderr)
	outputs, perr := readOutputs(env["GITHUB_OUTPUT"])
	if perr != nil {
		return perr
	}
	st.last = outputs
	if st.verbose {
		for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			if line != "" && !strings.HasPrefix(line, "::add-mask::") {
				fmt.Fprintf(st.out, "           │ %s\n", line)
			}
		}
	}
	cmd := orDefault(env["INPUT_COMMAND"], eventName)
	if err != nil {
		st.say("recess (%s) refused or failed: %s", cmd, annotation(stdout.String()))
		return nil
	}
	switch {
	case outputs["fired"] == "true":
		st.say("recess resumes the agent (fired by %s): dispatch %s", outputs["fired_by"], outputs["correlation_id"])
	case outputs["correlation_id"] != "" && cmd == eventName && eventName != "workflow_dispatch":
		st.say("recess dispatches the agent: %s", outputs["correlation_id"])
	}
	if status := st.statusLine(); status != "" && cmd != "claim" {
		st.say("status comment: %s", status)
	}
	return nil
}

// agent plays the newest dispatched agent run: claim, then the verdict
// (or a failure without one).
func (st *story) agent(ctx context.Context, s step) error {
	runs, err := st.gh.Runs(st.repo)
	if err != nil {
		return err
	}
	var run *githubfake.Run
	for i := range runs {
		if !st.handled[runs[i].ID] && runs[i].Status != "completed" {
			run = &runs[i]
		}
	}
	if run == nil {
		return errors.New("agent: no dispatched agent run is waiting to answer")
	}
	st.handled[run.ID] = true
	payload, _ := json.Marshal(map[string]any{"inputs": run.Inputs, "ref": "refs/heads/main",
		"repository": map[string]any{"full_name": st.repo}, "workflow": ".github/workflows/agent.yml"})
	runEnv := map[string]string{"GITHUB_RUN_ID": strconv.FormatInt(run.ID, 10), "INPUT_COMMAND": "claim"}
	if err := st.recess(ctx, "workflow_dispatch", payload, runEnv); err != nil {
		return err
	}
	cid := run.Inputs["correlation_id"]
	if st.last["stale"] == "true" {
		st.say("agent run %d (%s) claims: stale, it skips its work", run.ID, cid)
		return st.gh.SetRunStatus(run.ID, "completed", "success")
	}
	if a := s.Agent; a.Fail != "" {
		st.say("agent run %d (%s) ends without a verdict: %s", run.ID, cid, a.Fail)
		return st.gh.SetRunStatus(run.ID, "completed", a.Fail)
	}
	a := s.Agent
	n, _ := strconv.Atoi(run.Inputs["discussion_number"])
	doc := map[string]any{"verdict": a.Verdict, "correlation_id": cid, "discussion_number": n}
	var replies []map[string]string
	for _, r := range a.Replies {
		m := map[string]string{"body": r.Body}
		if r.ReplyTo != "" {
			id, ok := st.labels[r.ReplyTo]
			if !ok {
				return fmt.Errorf("agent.replies.reply_to: no comment labelled %q", r.ReplyTo)
			}
			m["reply_to"] = id
		}
		replies = append(replies, m)
	}
	if replies != nil {
		doc["replies"] = replies
	}
	if a.Trigger != nil {
		doc["trigger"] = a.Trigger
	}
	if a.Summary != "" {
		doc["summary"] = a.Summary
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	what := a.Verdict
	if ctxJSON := run.Inputs["resume_context"]; ctxJSON != "" {
		var rc resume.Context
		if json.Unmarshal([]byte(ctxJSON), &rc) == nil {
			st.say("agent run %d reads resume_context: fired_by %s, %d new comment(s)", run.ID, rc.FiredBy, len(rc.HistorySince))
		}
	}
	if a.Trigger != nil {
		t, _ := json.Marshal(a.Trigger)
		what += " " + string(t)
	}
	st.say("agent run %d answers: %s", run.ID, what)
	runEnv["INPUT_COMMAND"], runEnv["INPUT_VERDICT"] = "verdict", string(b)
	if err := st.recess(ctx, "workflow_dispatch", payload, runEnv); err != nil {
		return err
	}
	return st.gh.SetRunStatus(run.ID, "completed", "success")
}

// statusLine is the first line of recess's status comment, if any.
func (st *story) statusLine() string {
	cs, err := st.gh.Comments(st.discID)
	if err != nil {
		return ""
	}
	for _, c := range cs {
		if c.Author == "github-actions" && strings.Contains(c.Body, "recess:state") {
			return firstLine(c.Body)
		}
	}
	return ""
}

func (st *story) expect(x *expectation) error {
	runs, err := st.gh.Runs(st.repo)
	if err != nil {
		return err
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID < runs[j].ID })
	var problems []string
	if x.Dispatches != nil && len(runs) != *x.Dispatches {
		problems = append(problems, fmt.Sprintf("dispatches = %d, want %d", len(runs), *x.Dispatches))
	}
	if x.OpenRFCs != nil && st.last["open_rfcs"] != strconv.Itoa(*x.OpenRFCs) {
		problems = append(problems, fmt.Sprintf("open_rfcs = %s, want %d", st.last["open_rfcs"], *x.OpenRFCs))
	}
	var rc resume.Context
	if len(runs) > 0 {
		_ = json.Unmarshal([]byte(runs[len(runs)-1].Inputs["resume_context"]), &rc)
	}
	if x.FiredBy != nil && rc.FiredBy != *x.FiredBy {
		problems = append(problems, fmt.Sprintf("the last dispatch's fired_by = %q, want %q", rc.FiredBy, *x.FiredBy))
	}
	if x.History != nil {
		var got []string
		for _, h := range rc.HistorySince {
			got = append(got, h.Author)
		}
		if strings.Join(got, ",") != strings.Join(x.History, ",") {
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
			found = found || (c.Author == "github-actions" && strings.Contains(c.Body, x.Comment))
		}
		if !found {
			problems = append(problems, fmt.Sprintf("no comment by recess contains %q", x.Comment))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("expectation failed: %s", strings.Join(problems, "; "))
	}
	st.say("✓ as expected")
	return nil
}

// actionsRun is one run of the binary laid out the way GitHub Actions lays
// it out: the environment, the event payload file, empty output and summary
// files.
type actionsRun struct {
	gh          *githubfake.GitHub
	repo, token string
	dir         string
	seq         int64
	now         time.Time
	event       string
	payload     []byte
}

// env writes the run's files and returns its environment, with extra
// (INPUT_* and the like) on top.
func (r actionsRun) env(extra map[string]string) (map[string]string, error) {
	base := filepath.Join(r.dir, strconv.FormatInt(r.seq, 10))
	env := map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   r.event,
		"GITHUB_EVENT_PATH":   base + ".event.json",
		"GITHUB_OUTPUT":       base + ".output",
		"GITHUB_STEP_SUMMARY": base + ".summary.md",
		"GITHUB_REPOSITORY":   r.repo,
		"GITHUB_API_URL":      strings.TrimSuffix(r.gh.URL(), "/"),
		"GITHUB_GRAPHQL_URL":  r.gh.GraphQLURL(),
		"GITHUB_SERVER_URL":   "https://github.test",
		"GITHUB_RUN_ID":       strconv.FormatInt(r.seq, 10),
		"GITHUB_WORKSPACE":    r.dir,
		"RECESS_NOW":          r.now.Format(time.RFC3339),
		"INPUT_GITHUB-TOKEN":  r.token,
	}
	for k, v := range extra {
		env[k] = v
	}
	for _, f := range []string{env["GITHUB_OUTPUT"], env["GITHUB_STEP_SUMMARY"]} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(env["GITHUB_EVENT_PATH"], r.payload, 0o600); err != nil {
		return nil, err
	}
	return env, nil
}

// readOutputs parses a GITHUB_OUTPUT file (name<<DELIMITER ... DELIMITER).
func readOutputs(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			if k, v, ok := strings.Cut(lines[i], "="); ok {
				out[k] = v
			}
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out, nil
}

// annotation extracts the message of the first ::error annotation.
func annotation(stdout string) string {
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "::error") {
			if i := strings.Index(line[2:], "::"); i >= 0 {
				return line[i+4:]
			}
		}
	}
	return strings.TrimSpace(stdout)
}

func excerpt(s string) string {
	s = firstLine(s)
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
