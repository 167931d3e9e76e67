package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/action"
	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// recess-lab act runs a repository's front door and agent workflow under
// act, against the embedded fake GitHub, and tells the whole story (intake,
// claim, the lead, a recess, replies, the resume with its prompt, the
// answer), checking the fake's state after every step. actUsage and
// testdata/act/README.md say what it changes for act to run them offline.
// Jobs run on this machine (act's -self-hosted platform), with no Docker:
// `uses: ./` builds the recess binary from this checkout in every job.

const (
	actVersion = "0.2.89"
	actRepo    = "octo/hello"     // testdata/act/seed.yml
	actToken   = "ghs_act_recess" // the seed's workflow token: recess's own identity
	actBot     = "github-actions" // its GraphQL login
	actSeed    = "testdata/act/seed.yml"
	actStandIn = "testdata/act/actions"
)

const actUsage = `usage: recess-lab act [-v] [--keep] [--timeout DURATION] [--front-door NAME] [--agent FILE] [WORKFLOWS]

Runs a front door and its agent workflow under act (v` + actVersion + `, installed with go
install when missing) against the embedded fake GitHub, seeded from
testdata/act/seed.yml, and checks the story: a new discussion, the agent
asking a question and recessing, two replies, the resume with the comments,
the answer.

WORKFLOWS is your repository (its .github/workflows), a directory of workflow
files, or the front door's file; by default the repository around the working
directory. The front door is recess.yml there (--front-door), the agent
workflow the file its workflow input names (default agent.yml; --agent).

It runs copies, changed only so that act runs them offline, and prints each
change: the queue: max lines left out; a model step (anthropics/claude-code-action)
replaced by the scripted lead (recess-lab mcp-script) when its key
(ANTHROPIC_API_KEY) is not set; recess-action/recess@REF and its reusable
workflows served from this checkout; the artifact actions served by stand-ins.

Run it from a recess checkout (go run -C ~/recess ./cmd/recess-lab act ~/your-repo);
it needs Go and bash, no Docker and no network (except the Go module proxy to
install act once). testdata/act/README.md documents the seed and the changes.
`

func runAct(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recess-lab act", flag.ContinueOnError)
	verbose := fs.Bool("v", false, "print every act run's log")
	keep := fs.Bool("keep", false, "keep the work directory (logs, events, the workflow copies)")
	timeout := fs.Duration("timeout", 5*time.Minute, "limit for each act run")
	frontDoor := fs.String("front-door", "", "the front door's file name in the workflow directory (default recess.yml)")
	agent := fs.String("agent", "", "the agent workflow's file (default: the one the front door's workflow input names, next to it)")
	if code, ok := action.ParseFlags(fs, args, actUsage, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "recess-lab act: unexpected argument %q\n", fs.Arg(1))
		return 2
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "recess-lab act: %v\n", err)
		return 1
	}
	target, err := resolveActTarget(cwd, fs.Arg(0), *frontDoor, *agent)
	if err != nil {
		fmt.Fprintf(stderr, "recess-lab act: %v\n", err)
		return 2
	}
	s := &actStory{out: stdout, verbose: *verbose, timeout: *timeout, answered: map[int64]bool{}, target: target, getenv: getenv}
	started := time.Now()
	err = s.setUp(ctx)
	if err == nil {
		err = s.tell(ctx)
	}
	s.tearDown(err != nil || *keep, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "recess-lab act: FAIL: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nrecess-lab act: PASS in %s (%d GitHub API requests to the fake)\n", time.Since(started).Round(time.Second), len(s.gh.Requests()))
	return 0
}

// actStory is one run of the story.
type actStory struct {
	out     io.Writer
	verbose bool
	timeout time.Duration

	target actTarget
	getenv func(string) string

	root, work, act  string
	frontDoor, agent string // the workflow copies act runs
	// served is the copy of this checkout act serves for recess's action
	// and reusable workflows at each of refs.
	served string
	refs   []string
	// secrets are the model keys passed to act for the lead steps kept;
	// without any, every lead is the scripted one, so the story can check
	// what it says.
	secrets []string
	// github are the OWNER/REPO of other actions, fetched from github.com.
	github     []string
	gh         *githubfake.GitHub
	urls       map[string]string
	discussion githubfake.Discussion
	step       int
	// answered are the agent runs whose verdict job ran: with the runs the
	// fake holds, they tell how many agent runs were out at any moment.
	answered map[int64]bool
}

func (s *actStory) say(format string, args ...any) {
	fmt.Fprintf(s.out, format+"\n", args...)
}

func (s *actStory) setUp(ctx context.Context) error {
	root, err := recessRoot()
	if err != nil {
		return err
	}
	s.root = root
	if s.work, err = os.MkdirTemp("", "recess-act-"); err != nil {
		return err
	}
	if s.act, err = findAct(ctx, s.out); err != nil {
		return err
	}
	s.say("recess-lab act: %s and %s under act v%s against the embedded fake GitHub", s.rel(s.target.FrontDoor), s.rel(s.target.Agent), actVersion)
	s.say("work directory: %s", s.work)
	if err := s.prepare(); err != nil {
		return err
	}

	if s.gh, err = githubfake.Listen("127.0.0.1:0", ""); err != nil {
		return err
	}
	agentData, err := os.ReadFile(s.target.Agent)
	if err != nil {
		return err
	}
	wf, err := githubfake.WorkflowFromFile(s.target.AgentName, agentData)
	if err != nil {
		return fmt.Errorf("%s: %w", s.target.Agent, err)
	}
	err = applySeed(ctx, s.gh, filepath.Join(root, actSeed), func(seed *githubfake.Seed) {
		for i := range seed.Repos {
			if seed.Repos[i].Name == actRepo {
				seed.Repos[i].Workflows = []githubfake.SeedWorkflow{wf}
			}
		}
	})
	if err != nil {
		return err
	}
	s.urls = s.gh.Env()
	if s.discussion, err = s.gh.Discussion(actRepo, 1); err != nil {
		return fmt.Errorf("%s: %w", actSeed, err)
	}
	s.say("fake GitHub at %s, seeded from %s: %s, discussion #1 %q by @%s", s.urls["GITHUB_SERVER_URL"], actSeed, actRepo, s.discussion.Title, s.discussion.Author)
	return nil
}

// prepare writes the copies act runs (the front door and the agent
// workflow) and, when they use recess's action or reusable workflows, the
// copy of this checkout act serves for them, saying what differs.
func (s *actStory) prepare() error {
	lab, err := os.Executable()
	if err != nil {
		return err
	}
	refs := map[string]bool{}
	for _, f := range []struct {
		role     string
		src, dst *string
	}{{"front-door", &s.target.FrontDoor, &s.frontDoor}, {"agent", &s.target.Agent, &s.agent}} {
		data, err := os.ReadFile(*f.src)
		if err != nil {
			return err
		}
		c, err := prepareForAct(data, leadScript{Lab: lab, Keys: s.getenv})
		if err != nil {
			return fmt.Errorf("%s: %w", *f.src, err)
		}
		for _, a := range otherActions(c.Data) {
			if !slices.Contains(s.github, a) {
				s.github = append(s.github, a)
				c.Changes = append(c.Changes, fmt.Sprintf("%s is fetched from github.com, not from the fake GitHub (act's --replace-ghe-action-with-github-com; needs the network)", a))
			}
		}
		// Each copy in a directory of its own: the two may share a name.
		*f.dst = filepath.Join(s.work, "workflows", f.role, filepath.Base(*f.src))
		if err := os.MkdirAll(filepath.Dir(*f.dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(*f.dst, c.Data, 0o600); err != nil {
			return err
		}
		for _, ref := range recessRefs(data) {
			refs[ref] = true
		}
		for _, key := range c.Kept {
			if !slices.Contains(s.secrets, key) {
				s.secrets = append(s.secrets, key)
			}
		}
		s.say("  %s runs as a copy:", s.rel(*f.src))
		if len(c.Changes) == 0 {
			s.say("    - unchanged")
		}
		for _, ch := range c.Changes {
			s.say("    - %s", ch)
		}
	}
	s.say("  actions/upload-artifact@v4 and actions/download-artifact@v4 are served by the stand-ins in %s (act's --local-repository)", actStandIn)
	if len(refs) == 0 {
		return nil
	}
	s.served = filepath.Join(s.work, "recess")
	n, err := serveRecess(s.root, s.served)
	if err != nil {
		return fmt.Errorf("copying recess for act to serve: %w", err)
	}
	// The reusable workflows call the action at their own ref.
	for _, name := range []string{"front-door.yml", "claim.yml", "verdict.yml"} {
		data, err := os.ReadFile(filepath.Join(s.served, ".github", "workflows", name))
		if err != nil {
			return err
		}
		for _, ref := range recessRefs(data) {
			refs[ref] = true
		}
	}
	s.refs = slices.Sorted(maps.Keys(refs))
	var uses []string
	for _, ref := range s.refs {
		uses = append(uses, recessRepo+"@"+ref)
	}
	s.say("  %s and its reusable workflows are served from this checkout (%s), not cloned from GitHub: act's --local-repository; the reusable workflows less their %s",
		strings.Join(uses, ", "), s.root, resume.Count(n, "`queue: max` line", "`queue: max` lines"))
	return nil
}

// quote shows what people see of a comment of recess.
func (s *actStory) quote(what string, c githubfake.Comment) {
	s.say("   %s (comment %s):", what, c.ID)
	for _, l := range strings.Split(state.Visible(c.Body), "\n") {
		s.say("   | %s", l)
	}
}

// rel is a path relative to the working directory when it is under it.
func (s *actStory) rel(p string) string {
	if cwd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}

func (s *actStory) tearDown(keep bool, stderr io.Writer) {
	if s.gh != nil {
		s.gh.Close()
	}
	if s.work == "" {
		return
	}
	if keep {
		fmt.Fprintf(stderr, "recess-lab act: work directory kept: %s\n", s.work)
		return
	}
	os.RemoveAll(s.work)
}

// tell plays the story, checking the fake after every step.
func (s *actStory) tell(ctx context.Context) error {
	d := s.discussion

	// 1. A new discussion: the front door dispatches the agent.
	s.say("\n1. @%s opened discussion #1: the front door runs (intake)", d.Author)
	payload, err := s.gh.DiscussionPayload(d.ID, githubfake.Event{Action: "created"})
	if err != nil {
		return err
	}
	if _, err := s.runAct(ctx, "intake", "discussion", s.frontDoor, payload, 1001); err != nil {
		return err
	}
	runs, err := s.agentRuns(1)
	if err != nil {
		return err
	}
	first := runs[0]
	cid1 := first.Inputs["correlation_id"]
	s.say("   dispatched agent run %d (%s)", first.ID, cid1)
	if err := s.expectEyes(true); err != nil {
		return err
	}

	// 2. The agent run: claim, the lead asks and recesses, the verdict job posts.
	if len(s.secrets) > 0 {
		return s.modelLead(ctx, first)
	}
	s.say("\n2. agent run %d: claim -> lead (recess-lab mcp-script over recess mcp) -> verdict", first.ID)
	lead, err := s.runAgent(ctx, "agent-first", first)
	if err != nil {
		return err
	}
	if !strings.Contains(lead, "== call recess") || !strings.Contains(lead, "Recess recorded") {
		return fmt.Errorf("the lead's log shows no recess call:\n%s", lastLines(lead, 40))
	}
	question, err := s.questionOf(cid1)
	if err != nil {
		return err
	}
	s.say("   the lead asked (comment %s): %q", question.ID, action.FirstLine(question.Body))
	rec, err := s.record()
	if err != nil {
		return err
	}
	if len(rec.OpenRFCs) != 1 || rec.OpenRFCs[cid1] == nil || rec.Active != nil {
		return fmt.Errorf("after the recessing verdict the record holds %d open recess(es) and active run %v, want the recess %s and no active run", len(rec.OpenRFCs), rec.Active, cid1)
	}
	s.say("   recess %s is open: it waits %s", cid1, waitWords(rec.OpenRFCs[cid1]))

	// 3. One answer under the question: 1 of 2, it only accumulates.
	s.say("\n3. @bob answers under the question: the front door runs (inbound)")
	time.Sleep(time.Second) // GitHub's timestamps have seconds; "after the recess" compares them
	bob, err := s.gh.Reply(question.ID, "bob", "A comment, please: most people never configure a branch.")
	if err != nil {
		return err
	}
	if err := s.comment(ctx, "reply-bob", bob.ID, 1002); err != nil {
		return err
	}
	if _, err := s.agentRuns(1); err != nil {
		return fmt.Errorf("one reply of two: %w", err)
	}
	s.say("   1 of 2 replies: no dispatch")

	// 4. A scheduled sweep: nothing is due.
	s.say("\n4. the scheduled sweep runs")
	if _, err := s.runAct(ctx, "sweep", "schedule", s.frontDoor, []byte(`{"schedule": "2-59/5 * * * *"}`), 1003); err != nil {
		return err
	}
	if _, err := s.agentRuns(1); err != nil {
		return fmt.Errorf("after the sweep: %w", err)
	}
	s.say("   nothing due: no dispatch")

	// 5. The second reply fires the trigger: a resume with the comments.
	s.say("\n5. @carol comments: the front door runs (inbound) and the trigger fires")
	carol, err := s.gh.Comment(d.ID, "carol", "Agreed with bob. A branch is one more thing to protect.")
	if err != nil {
		return err
	}
	if err := s.comment(ctx, "comment-carol", carol.ID, 1004); err != nil {
		return err
	}
	if runs, err = s.agentRuns(2); err != nil {
		return err
	}
	resumed := runs[1]
	rc, err := action.DecodeResumeContext([]byte(resumed.Inputs["resume_context"]))
	if err != nil {
		return fmt.Errorf("agent run %d: %w", resumed.ID, err)
	}
	if rc.CorrelationID != cid1 || rc.FiredBy != wait.KindMissingInput {
		return fmt.Errorf("resume_context: correlation_id %q fired_by %q, want %q missing_input", rc.CorrelationID, rc.FiredBy, cid1)
	}
	var ids []string
	for _, e := range rc.HistorySince {
		ids = append(ids, e.ID)
	}
	if strings.Join(ids, ",") != bob.ID+","+carol.ID {
		return fmt.Errorf("resume_context.history_since = %v, want bob's reply %s and carol's comment %s", ids, bob.ID, carol.ID)
	}
	if rc.HistorySince[0].ReplyTo != question.ID {
		return fmt.Errorf("bob's reply in history_since has reply_to %q, want the question %s", rc.HistorySince[0].ReplyTo, question.ID)
	}
	s.say("   dispatched agent run %d (%s), fired_by %s, history_since: bob's reply and carol's comment", resumed.ID, resumed.Inputs["correlation_id"], rc.FiredBy)

	// 6. A duplicate of the first run: claim says stale, nothing else runs.
	s.say("\n6. agent run %d is delivered again (a duplicate): claim says stale", first.ID)
	before, err := s.gh.Comments(d.ID)
	if err != nil {
		return err
	}
	payload, err = s.gh.WorkflowDispatchPayload(first.ID)
	if err != nil {
		return err
	}
	log, err := s.runAct(ctx, "agent-stale", "workflow_dispatch", s.agent, payload, first.ID)
	if err != nil {
		return err
	}
	if !strings.Contains(log, "stale=true") {
		return fmt.Errorf("the duplicate's claim did not say stale=true")
	}
	if strings.Contains(log, "recess-lab mcp-script") && strings.Contains(log, "== call") {
		return fmt.Errorf("the lead ran for a stale claim")
	}
	after, err := s.gh.Comments(d.ID)
	if err != nil {
		return err
	}
	if len(after) != len(before) {
		return fmt.Errorf("the stale run changed the discussion: %d comments, then %d", len(before), len(after))
	}
	s.say("   stale: the lead and the verdict were skipped, nothing posted")

	// 7. The resumed run: claim renders the prompt, the lead answers.
	s.say("\n7. agent run %d: claim (prompt) -> lead adjourns quoting the replies -> verdict", resumed.ID)
	lead, err = s.runAgent(ctx, "agent-resumed", resumed)
	if err != nil {
		return err
	}
	for _, want := range []string{"== the prompt this run was handed", "# You are resumed", "Answer to your question", "== call adjourn"} {
		if !strings.Contains(lead, want) {
			return fmt.Errorf("the resumed lead's log lacks %q:\n%s", want, lastLines(lead, 60))
		}
	}
	answer, err := s.questionOf(resumed.Inputs["correlation_id"])
	if err != nil {
		return err
	}
	for _, want := range []string{"> **@bob**: A comment, please", "> **@carol**: Agreed with bob"} {
		if !strings.Contains(answer.Body, want) {
			return fmt.Errorf("the answer does not quote %q:\n%s", want, answer.Body)
		}
	}
	s.quote("the answer", answer)
	if rec, err = s.record(); err != nil {
		return err
	}
	if len(rec.OpenRFCs) != 0 || rec.Active != nil || rec.Queued != nil {
		return fmt.Errorf("after the answer the record holds %d open recess(es), active %v, queued %v; want nothing pending", len(rec.OpenRFCs), rec.Active, rec.Queued)
	}
	if err := s.expectEyes(false); err != nil {
		return err
	}
	if _, err := s.agentRuns(2); err != nil {
		return fmt.Errorf("after the answer: %w", err)
	}
	d, err = s.gh.Discussion(actRepo, 1)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(d.Labels, func(l string) bool { return strings.EqualFold(l, resume.LabelWaiting) }) {
		return fmt.Errorf("discussion #1 still carries %s with nothing pending", resume.LabelWaiting)
	}
	s.say("   nothing pending: no open recess, no active run, no label; 2 agent runs in all, never two at once")
	return nil
}

// modelLead is the story's second step with the lead the workflow names
// (a model, its key set): the agent run must end in a verdict, a recess or
// an answer, posted by recess. What people say next depends on what the
// model asked, so the story ends there; the scripted lead tells the rest.
func (s *actStory) modelLead(ctx context.Context, first githubfake.Run) error {
	cid := first.Inputs["correlation_id"]
	s.say("\n2. agent run %d: claim -> lead (as the workflow writes it, with %s) -> verdict", first.ID, strings.Join(s.secrets, ", "))
	if _, err := s.runAgent(ctx, "agent-first", first); err != nil {
		return err
	}
	reply, err := s.questionOf(cid)
	if err != nil {
		return err
	}
	rec, err := s.record()
	if err != nil {
		return err
	}
	if rec.Active != nil {
		return fmt.Errorf("after the verdict the record still holds active run %v", rec.Active)
	}
	s.quote("the lead replied", reply)
	if rfc := rec.OpenRFCs[cid]; rfc != nil {
		s.say("   and recessed: waiting %s", waitWords(rfc))
	} else {
		s.say("   and adjourned: nothing pending")
	}
	s.say("\nThe replies and the resume follow what the model asked: run without %s for the whole story with the scripted lead.", strings.Join(s.secrets, ", "))
	return nil
}

// runAgent runs the agent workflow for a dispatched run, moving the fake's
// run along as GitHub would, and returns the log.
func (s *actStory) runAgent(ctx context.Context, name string, ru githubfake.Run) (string, error) {
	payload, err := s.gh.WorkflowDispatchPayload(ru.ID)
	if err != nil {
		return "", err
	}
	if err := s.gh.SetRunStatus(ru.ID, "in_progress", ""); err != nil {
		return "", err
	}
	log, err := s.runAct(ctx, name, "workflow_dispatch", s.agent, payload, ru.ID)
	conclusion := "success"
	if err != nil {
		conclusion = "failure"
	}
	if serr := s.gh.SetRunStatus(ru.ID, "completed", conclusion); serr != nil && err == nil {
		err = serr
	}
	if err == nil {
		s.answered[ru.ID] = true
	}
	return log, err
}

// comment runs the front door for a comment that was just written.
func (s *actStory) comment(ctx context.Context, name, commentID string, runID int64) error {
	payload, err := s.gh.DiscussionCommentPayload(commentID, githubfake.Event{Action: "created"})
	if err != nil {
		return err
	}
	_, err = s.runAct(ctx, name, "discussion_comment", s.frontDoor, payload, runID)
	return err
}

// runAct runs one workflow under act for one event and returns its log. A
// non-zero exit, a failed job, or a run past the timeout is an error that
// shows the end of the log.
func (s *actStory) runAct(ctx context.Context, name, event, workflow string, payload []byte, runID int64) (string, error) {
	s.step++
	base := filepath.Join(s.work, fmt.Sprintf("%02d-%s", s.step, name))
	if err := os.WriteFile(base+".event.json", payload, 0o600); err != nil {
		return "", err
	}
	artifacts := filepath.Join(s.work, "artifacts", strconv.FormatInt(runID, 10)+"-"+strconv.Itoa(s.step))
	args := []string{event,
		"-W", workflow, "-e", base + ".event.json",
		"-P", "ubuntu-latest=-self-hosted", "--action-offline-mode", "--no-cache-server",
		"--container-daemon-socket", "-",
		"--action-cache-path", filepath.Join(s.work, "act-cache"),
		"--local-repository", "actions/upload-artifact@v4=" + filepath.Join(s.root, actStandIn, "upload-artifact"),
		"--local-repository", "actions/download-artifact@v4=" + filepath.Join(s.root, actStandIn, "download-artifact"),
	}
	for _, ref := range s.refs {
		args = append(args, "--local-repository", recessRepo+"@"+ref+"="+s.served)
	}
	for _, k := range s.secrets {
		args = append(args, "-s", k)
	}
	for _, a := range s.github {
		args = append(args, "--replace-ghe-action-with-github-com", a)
	}
	args = append(args,
		"--env", "GITHUB_REPOSITORY="+actRepo,
		"--env", "GITHUB_RUN_ID="+strconv.FormatInt(runID, 10),
		"--env", "RECESS_ACT_ARTIFACTS="+artifacts,
		"-s", "GITHUB_TOKEN="+actToken,
	)
	for _, k := range []string{"GITHUB_API_URL", "GITHUB_GRAPHQL_URL", "GITHUB_SERVER_URL"} {
		args = append(args, "--env", k+"="+s.urls[k])
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.act, args...)
	cmd.Dir = s.target.Repo
	cmd.Env = append(os.Environ(), "ACT_DISABLE_VERSION_CHECK=1")
	cmd.WaitDelay = 10 * time.Second
	var log bytes.Buffer
	var w io.Writer = &log
	if s.verbose {
		w = io.MultiWriter(&log, prefixed{s.out})
	}
	cmd.Stdout, cmd.Stderr = w, w
	t0 := time.Now()
	err := cmd.Run()
	if werr := os.WriteFile(base+".log", log.Bytes(), 0o600); werr != nil && err == nil {
		err = werr
	}
	text := log.String()
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("act %s (%s) ran past %s", event, name, s.timeout)
	case err != nil:
		err = fmt.Errorf("act %s (%s): %v", event, name, err)
	case strings.Contains(text, "Job failed"):
		err = fmt.Errorf("act %s (%s): a job failed", event, name)
	case !strings.Contains(text, "Job succeeded"):
		err = fmt.Errorf("act %s (%s): no job succeeded", event, name)
	}
	if err != nil {
		return text, fmt.Errorf("%w\n--- end of %s.log:\n%s", err, base, lastLines(text, 60))
	}
	for _, a := range actAnnotations(text) {
		s.say("   %s", a)
	}
	s.say("   act %s ok in %s", event, time.Since(t0).Round(time.Second))
	return text, nil
}

// agentRuns returns the agent workflow's runs, oldest first, after checking
// there are want of them and that never two were out at once: every run but
// the newest has had its verdict.
func (s *actStory) agentRuns(want int) ([]githubfake.Run, error) {
	runs, err := s.gh.Runs(actRepo)
	if err != nil {
		return nil, err
	}
	if len(runs) != want {
		return nil, fmt.Errorf("%s dispatched, want %d", resume.Count(len(runs), "agent run", "agent runs"), want)
	}
	for _, ru := range runs[:len(runs)-1] {
		if !s.answered[ru.ID] {
			return nil, fmt.Errorf("agent run %d was dispatched while run %d had not answered: two agent runs at once", runs[len(runs)-1].ID, ru.ID)
		}
	}
	return runs, nil
}

// questionOf is the first reply recess posted for the verdict of cid.
func (s *actStory) questionOf(cid string) (githubfake.Comment, error) {
	cs, err := s.gh.Comments(s.discussion.ID)
	if err != nil {
		return githubfake.Comment{}, err
	}
	for _, c := range cs {
		if id, i, ok := state.ParseReplyMarker(c.Body); ok && c.Author == actBot && id == cid && i == 0 {
			return c, nil
		}
	}
	return githubfake.Comment{}, fmt.Errorf("no reply of recess carries the verdict of %s", cid)
}

// record decodes the discussion's record from recess's status comment.
func (s *actStory) record() (*state.Record, error) {
	c, err := statusComment(s.gh, s.discussion.ID, actBot)
	if err != nil {
		return nil, err
	}
	rec, _, err := state.DecodeComment(c.Body)
	if err != nil {
		return nil, fmt.Errorf("status comment %s: %w", c.ID, err)
	}
	return rec, nil
}

// expectEyes checks recess's acknowledgement on the discussion.
func (s *actStory) expectEyes(want bool) error {
	d, err := s.gh.Discussion(actRepo, 1)
	if err != nil {
		return err
	}
	if got := slices.Contains(d.Reactions["EYES"], actBot); got != want {
		return fmt.Errorf("EYES of recess on discussion #1: %v, want %v", got, want)
	}
	return nil
}

// recessRoot finds the recess repository from the working directory up.
func recessRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	root, ok := findUp(dir, func(d string) bool {
		return fileExists(filepath.Join(d, "action.yml")) && fileExists(filepath.Join(d, "cmd", "recess", "main.go")) && fileExists(filepath.Join(d, actSeed))
	})
	if !ok {
		return "", errors.New("not inside the recess repository: run recess-lab act from a checkout of it (go run -C ~/recess ./cmd/recess-lab act \"$PWD\")")
	}
	return root, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// findAct returns act v0.2.89: on PATH, in the Go bin directory, or
// installed there with go install.
func findAct(ctx context.Context, out io.Writer) (string, error) {
	install := "go install github.com/nektos/act@v" + actVersion
	b, err := exec.CommandContext(ctx, "go", "env", "GOBIN", "GOPATH").Output()
	// One line each; GOBIN's is empty unless set.
	gobin, gopath, _ := strings.Cut(strings.TrimRight(string(b), "\n"), "\n")
	if gobin = strings.TrimSpace(gobin); gobin == "" {
		gobin = filepath.Join(strings.TrimSpace(gopath), "bin")
	}
	var candidates []string
	if p, err := exec.LookPath("act"); err == nil {
		candidates = append(candidates, p)
	}
	if err == nil {
		// Only when go answered: otherwise gobin is the relative "bin".
		candidates = append(candidates, filepath.Join(gobin, "act"))
	}
	for _, c := range candidates {
		if v, err := exec.CommandContext(ctx, c, "--version").Output(); err == nil && strings.TrimSpace(string(v)) == "act version "+actVersion {
			return c, nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("act v%s is not installed and go is not on PATH to install it: %s", actVersion, install)
	}
	fmt.Fprintf(out, "installing act v%s: %s\n", actVersion, install)
	cmd := exec.CommandContext(ctx, "go", "install", "github.com/nektos/act@v"+actVersion)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w", install, err)
	}
	return filepath.Join(gobin, "act"), nil
}

// annotationLine is a workflow command a step printed, as act logs it
// ("[job/step]   | ::warning title=...::text"); a script's source that act
// echoes does not start with the job's tag.
var annotationLine = regexp.MustCompile(`^\[[^\]]+\][^:]*?(::(?:warning|error)\b.*)$`)

// actAnnotations are the ::warning and ::error lines of a log, for the story.
func actAnnotations(log string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(log, "\n") {
		m := annotationLine.FindStringSubmatch(l)
		if m == nil || seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		out = append(out, m[1])
	}
	return out
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

// prefixed indents act's log under the story with -v.
type prefixed struct{ w io.Writer }

func (p prefixed) Write(b []byte) (int, error) {
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l != "" {
			fmt.Fprint(p.w, "   | "+l)
		}
	}
	return len(b), nil
}

// waitWords says what an open recess waits for, in the engine's words, as
// it stood when it opened.
func waitWords(rfc *state.RFC) string {
	return resume.Describe(rfc.Trigger, wait.Observed{OpenedAt: rfc.OpenedAt})
}
