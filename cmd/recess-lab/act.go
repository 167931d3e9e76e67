package main

import (
	"bytes"
	"cmp"
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
	"github.com/recess-action/recess/internal/fakeclock"
	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/internal/workflows"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// recess-lab act tells the act story (testdata/act/story.yaml: intake,
// claim, the lead, a recess, replies, the resume with its prompt, the
// answer) with a repository's front door and agent workflow run under act
// for each step, against the embedded fake GitHub, checking the fake's
// state after every step. actUsage and testdata/act/README.md say what it
// changes for act to run them offline. Jobs run on this machine (act's
// -self-hosted platform), with no Docker: `uses: ./` builds the recess
// binary from this checkout in every job.

const (
	actVersion = "0.2.89"
	actRepo    = "octo/hello"     // testdata/act/seed.yml
	actToken   = "ghs_act_recess" // the seed's workflow token: recess's own identity
	actBot     = "github-actions" // its GraphQL login
	actSeed    = "testdata/act/seed.yml"
	actStory   = "testdata/act/story.yaml"
	// actIssueStory is the story of a setup that serves issues and no
	// discussions.
	actIssueStory = "testdata/act/story-issue.yaml"
	actStandIn    = "testdata/act/actions"
)

const actUsage = `usage: recess-lab act [-v] [--keep] [--timeout DURATION] [--front-door NAME] [--agent FILE] [WORKFLOWS]

Runs a front door and its agent workflow under act (v` + actVersion + `, installed with go
install when missing) against the embedded fake GitHub, seeded from
testdata/act/seed.yml, and checks the story of testdata/act/story.yaml: a
new discussion, the agent asking a question and recessing, two replies, the
resume with the comments, the answer, and a sweep that finds nothing pending.

WORKFLOWS is your repository (its .github/workflows), a directory of workflow
files, or the front door's file; by default the repository around the working
directory. The front door is recess.yml there (--front-door), the agent
workflow the file its workflow input names (default agent.yml; --agent), and,
when the front door keeps its sweep apart (sweep-only-while-waiting), the
sweep the file its sweep-workflow input names (default recess-sweep.yml): a
scheduled sweep runs it, while the fake says it is enabled. The story's
discussion is one the front door serves (its first category and label, a
mention of its first handle under wake-on mention).

It runs copies, changed only so that act runs them offline, and prints each
change: the queue: max lines left out; a model step (anthropics/claude-code-action,
google-github-actions/run-gemini-cli) replaced by the scripted lead
(recess-lab mcp-script) when its key (ANTHROPIC_API_KEY, GEMINI_API_KEY) is
not set, which starts the recess mcp server the step's inputs configure;
recess-action/recess@REF and its reusable workflows served from this
checkout; the artifact actions served by stand-ins. When a step fails, it
prints what recess said (why it did nothing, for one) and the end of the log.

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
		return action.ExitRefused
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "recess-lab act: %v\n", err)
		return 1
	}
	target, err := resolveActTarget(cwd, fs.Arg(0), *frontDoor, *agent)
	if err != nil {
		fmt.Fprintf(stderr, "recess-lab act: %v\n", err)
		return action.ExitRefused
	}
	a := &actRunner{out: stdout, verbose: *verbose, timeout: *timeout, target: target}
	started := time.Now()
	err = a.tell(ctx, getenv)
	if a.gh != nil {
		a.gh.Close()
	}
	if a.work != "" && (err != nil || *keep) {
		fmt.Fprintf(stderr, "recess-lab act: work directory kept: %s\n", a.work)
	} else if a.work != "" {
		os.RemoveAll(a.work)
	}
	if err != nil {
		fmt.Fprintf(stderr, "recess-lab act: FAIL: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nrecess-lab act: PASS in %s (%d GitHub API requests to the fake)\n", time.Since(started).Round(time.Second), len(a.gh.Requests()))
	return 0
}

// actRunner is the story's runner under act: each event runs the front
// door, each agent step the agent workflow.
type actRunner struct {
	out     io.Writer
	verbose bool
	timeout time.Duration
	target  actTarget

	root, work, act string
	// frontDoor, agentWF and sweepWF are the workflow copies act runs
	// (sweepWF "" when the front door sweeps itself).
	frontDoor, agentWF, sweepWF string
	// flags are act's options for serving actions (recess's from a copy
	// of this checkout, others from github.com) and passing model keys.
	flags []string
	// secrets are the model keys passed to act for the lead steps kept;
	// without any, every lead is the scripted one, so the story can check
	// what it says.
	secrets []string
	gh      *githubfake.GitHub
	clock   *fakeclock.Clock
	step    int
}

func (a *actRunner) say(format string, args ...any) {
	fmt.Fprintf(a.out, format+"\n", args...)
}

// tell sets the stage (act, the workflow copies, the seeded fake) and
// tells the act story.
func (a *actRunner) tell(ctx context.Context, getenv func(string) string) error {
	root, err := recessRoot()
	if err != nil {
		return err
	}
	a.root = root
	if a.work, err = os.MkdirTemp("", "recess-act-"); err != nil {
		return err
	}
	if a.act, err = findAct(ctx, a.out); err != nil {
		return err
	}
	files := rel(a.target.FrontDoor) + " and " + rel(a.target.Agent)
	if a.target.Sweep != "" {
		files = rel(a.target.FrontDoor) + ", " + rel(a.target.Sweep) + " and " + rel(a.target.Agent)
	}
	a.say("recess-lab act: %s under act v%s against the embedded fake GitHub", files, actVersion)
	a.say("work directory: %s", a.work)
	if err := a.prepare(getenv); err != nil {
		return err
	}
	story := actStory
	switch threads := a.target.Setup.Threads; {
	case slices.Contains(threads, state.KindDiscussion):
	case slices.Contains(threads, state.KindIssue):
		story = actIssueStory
	default:
		return fmt.Errorf("the front door serves neither discussions nor issues (threads: %v): the act stories open one of them", threads)
	}
	data, err := os.ReadFile(filepath.Join(root, story))
	if err != nil {
		return err
	}
	s, err := parseScenario(data)
	if err != nil {
		return fmt.Errorf("%s: %w", story, err)
	}
	handle := mention(a.target.Setup)
	for _, step := range s.Steps {
		if o := step.Issue; o != nil && handle != "" {
			o.Body = handle + " " + o.Body
		}
	}
	a.clock = fakeclock.New(s.Start)
	if a.gh, err = githubfake.Listen("127.0.0.1:0", "", githubfake.WithClock(a.clock.Now)); err != nil {
		return err
	}
	agentData, err := os.ReadFile(a.target.Agent)
	if err != nil {
		return err
	}
	wf, err := githubfake.WorkflowFromFile(a.target.Setup.Workflow, agentData)
	if err != nil {
		return fmt.Errorf("%s: %w", a.target.Agent, err)
	}
	seeded := []githubfake.SeedWorkflow{wf}
	sweepName := a.target.Setup.SweepWorkflow
	if sweepName != "" {
		// Nothing waits in the repository yet: its last sweep switched the
		// sweep off, and the first run that leaves something pending
		// switches it on.
		seeded = append(seeded, githubfake.SeedWorkflow{File: sweepName, State: githubfake.WorkflowDisabledManually})
	}
	served := ""
	err = applySeed(ctx, a.gh, filepath.Join(root, actSeed), func(seed *githubfake.Seed) {
		for i := range seed.Repos {
			if r := &seed.Repos[i]; r.Name == actRepo {
				r.Workflows = seeded
				served = serve(r, a.target.Setup)
			}
		}
	})
	if err != nil {
		return err
	}
	a.say("fake GitHub at %s, seeded from %s", a.gh.Env()["GITHUB_SERVER_URL"], actSeed)
	if served != "" && story == actStory {
		a.say("  the story's discussion is one the front door serves: %s", served)
	}
	if sweepName != "" {
		a.say("  the sweep's workflow %s starts disabled, as a sweep that found nothing pending leaves it", sweepName)
	}
	if handle != "" && story == actIssueStory {
		a.say("  the story's issue mentions %s (wake-on mention)", handle)
	}
	a.say("the story of %s:\n", story)
	st := newStory(a.out, a.verbose, a, a.gh, a.clock, actRepo, actBot)
	st.store, st.sweepFile = a.target.Setup.Store, sweepName
	return st.tell(ctx, s)
}

// serve makes the seeded discussions ones the front door serves, and says
// how ("" when it serves every discussion): each in the first of its
// categories, carrying the first of its labels, and, with wake-on mention,
// mentioning the first handle.
func serve(r *githubfake.SeedRepo, c action.LabSetup) string {
	var said []string
	if len(c.Categories) > 0 {
		if !slices.ContainsFunc(append([]string{"General"}, r.Categories...), func(x string) bool { return strings.EqualFold(x, c.Categories[0]) }) {
			r.Categories = append(r.Categories, c.Categories[0])
		}
		said = append(said, fmt.Sprintf("in the category %s (categories: %s)", c.Categories[0], strings.Join(c.Categories, ", ")))
	}
	if len(c.Labels) > 0 {
		if !slices.Contains(r.Labels, c.Labels[0]) {
			r.Labels = append(r.Labels, c.Labels[0])
		}
		said = append(said, fmt.Sprintf("labelled %s (labels: %s)", c.Labels[0], strings.Join(c.Labels, ", ")))
	}
	handle := mention(c)
	if handle != "" {
		said = append(said, fmt.Sprintf("mentioning %s (wake-on mention)", handle))
	}
	for i := range r.Discussions {
		d := &r.Discussions[i]
		if len(c.Categories) > 0 {
			d.Category = c.Categories[0]
		}
		if len(c.Labels) > 0 && !slices.Contains(d.Labels, c.Labels[0]) {
			d.Labels = append(d.Labels, c.Labels[0])
		}
		if handle != "" {
			d.Body = handle + " " + d.Body
		}
	}
	return strings.Join(said, ", ")
}

// mention is the first of the setup's handles when its stories' threads
// wake on a mention ("" when they do not): wake-on mention, or an issue's
// default when wake-on is not given.
func mention(c action.LabSetup) string {
	kind := state.KindDiscussion
	if !slices.Contains(c.Threads, kind) {
		kind = state.KindIssue
	}
	if resume.WakeOnOf(c.WakeOn, kind) != resume.WakeMention || len(c.MentionHandles) == 0 {
		return ""
	}
	return "@" + strings.TrimPrefix(c.MentionHandles[0], "@")
}

// prepare writes the copies act runs (the front door and the agent
// workflow) and, when they use recess's action or reusable workflows, the
// copy of this checkout act serves for them, saying what differs.
func (a *actRunner) prepare(getenv func(string) string) error {
	lab, err := os.Executable()
	if err != nil {
		return err
	}
	var refs []string
	copies := []struct {
		role     string
		src, dst *string
	}{{"front-door", &a.target.FrontDoor, &a.frontDoor}, {"agent", &a.target.Agent, &a.agentWF}, {"sweep", &a.target.Sweep, &a.sweepWF}}
	for _, f := range copies {
		if *f.src == "" {
			continue // the front door sweeps itself
		}
		data, err := os.ReadFile(*f.src)
		if err != nil {
			return err
		}
		c, err := prepareForAct(*f.src, data, leadScript{Lab: lab, Keys: getenv})
		if err != nil {
			return fmt.Errorf("%s: %w", *f.src, err)
		}
		for _, o := range otherActions(c.Read) {
			if !slices.Contains(a.flags, o) {
				a.flags = append(a.flags, "--replace-ghe-action-with-github-com", o)
				c.Changes = append(c.Changes, o+" is fetched from github.com, not from the fake GitHub (act's --replace-ghe-action-with-github-com; needs the network)")
			}
		}
		// Each copy in a directory of its own: the two may share a name.
		*f.dst = filepath.Join(a.work, "workflows", f.role, filepath.Base(*f.src))
		if err := os.MkdirAll(filepath.Dir(*f.dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(*f.dst, c.Data, 0o600); err != nil {
			return err
		}
		refs = append(refs, releases(c.Read)...)
		for _, key := range c.Kept {
			if !slices.Contains(a.secrets, key) {
				a.secrets = append(a.secrets, key)
				a.flags = append(a.flags, "-s", key)
			}
		}
		a.say("  %s runs as a copy:", rel(*f.src))
		if len(c.Changes) == 0 {
			a.say("    - unchanged")
		}
		for _, ch := range c.Changes {
			a.say("    - %s", ch)
		}
	}
	a.say("  actions/upload-artifact@v4 and actions/download-artifact@v4 are served by the stand-ins in %s (act's --local-repository)", actStandIn)
	if len(refs) == 0 {
		return nil
	}
	served := filepath.Join(a.work, "recess")
	n, err := serveRecess(a.root, served)
	if err != nil {
		return fmt.Errorf("copying recess for act to serve: %w", err)
	}
	// The reusable workflows call the action at their own ref.
	for _, name := range []string{"front-door.yml", "claim.yml", "verdict.yml"} {
		p := filepath.Join(served, filepath.FromSlash(workflows.Dir), name)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := workflows.Read(p, data)
		if err != nil {
			return err
		}
		refs = append(refs, releases(w)...)
	}
	slices.Sort(refs)
	refs = slices.Compact(refs)
	for _, r := range refs {
		a.flags = append(a.flags, "--local-repository", r+"="+served)
	}
	a.say("  %s and its reusable workflows are served from this checkout (%s), not cloned from GitHub: act's --local-repository; the reusable workflows less their %s",
		strings.Join(refs, ", "), a.root, text.Count(n, "`queue: max` line", "`queue: max` lines"))
	return nil
}

// event runs the front door for a discussion event, and the sweep's own
// workflow, when there is one, for a scheduled sweep.
func (a *actRunner) event(ctx context.Context, name string, payload []byte) (ran, error) {
	wf := a.frontDoor
	if name == "schedule" && a.sweepWF != "" {
		wf = a.sweepWF
	}
	log, err := a.runAct(ctx, name, wf, payload, int64(1000+a.step+1))
	return ran{log: log, said: recessSaid(log)}, err
}

// agent runs the agent workflow for a dispatched run, moving the fake's
// run along as GitHub would. With a model's key set the story ends after
// it: what people say next depends on what the model asked.
func (a *actRunner) agent(ctx context.Context, ru githubfake.Run, s *agentStep, verdict []byte) (ran, error) {
	if verdict != nil || s.Fail != "" {
		return ran{}, errors.New("agent: under act the agent workflow's lead answers (lead: true)")
	}
	payload, err := a.gh.WorkflowDispatchPayload(ru.ID)
	if err != nil {
		return ran{}, err
	}
	again := ru.Status == "completed" // a duplicate delivery of an ended run
	if !again {
		if err := a.gh.SetRunStatus(ru.ID, "in_progress", ""); err != nil {
			return ran{}, err
		}
	}
	log, err := a.runAct(ctx, "workflow_dispatch", a.agentWF, payload, ru.ID)
	if !again {
		conclusion := "success"
		if err != nil {
			conclusion = "failure"
		}
		err = cmp.Or(err, a.gh.SetRunStatus(ru.ID, "completed", conclusion))
	}
	r := ran{log: log, said: recessSaid(log), stale: strings.Contains(log, "stale=true")}
	switch {
	case err != nil:
		return r, err
	case r.stale && strings.Contains(log, "recess-lab mcp-script") && strings.Contains(log, "== call"):
		return r, errors.New("the lead ran for a stale claim")
	case len(a.secrets) > 0 && !r.stale:
		r.end = fmt.Sprintf("The replies and the resume follow what the model asked: run without %s for the whole story with the scripted lead.", strings.Join(a.secrets, ", "))
	}
	return r, nil
}

// runAct runs one workflow under act for one event and returns its log. A
// non-zero exit, a failed job, or a run past the timeout is an error that
// shows the end of the log.
func (a *actRunner) runAct(ctx context.Context, event, workflow string, payload []byte, runID int64) (string, error) {
	a.step++
	base := filepath.Join(a.work, fmt.Sprintf("%02d-%s", a.step, event))
	if err := os.WriteFile(base+".event.json", payload, 0o600); err != nil {
		return "", err
	}
	args := []string{event,
		"-W", workflow, "-e", base + ".event.json",
		"-P", "ubuntu-latest=-self-hosted", "--action-offline-mode", "--no-cache-server",
		"--container-daemon-socket", "-",
		"--action-cache-path", filepath.Join(a.work, "act-cache"),
		"--local-repository", "actions/upload-artifact@v4=" + filepath.Join(a.root, actStandIn, "upload-artifact"),
		"--local-repository", "actions/download-artifact@v4=" + filepath.Join(a.root, actStandIn, "download-artifact"),
	}
	args = append(args, a.flags...)
	env := a.gh.Env()
	env["GITHUB_REPOSITORY"] = actRepo
	env["GITHUB_RUN_ID"] = strconv.FormatInt(runID, 10)
	env["RECESS_ACT_ARTIFACTS"] = filepath.Join(a.work, "artifacts", fmt.Sprintf("%d-%d", runID, a.step))
	env["RECESS_NOW"] = a.clock.Now().Format(time.RFC3339) // the story's clock
	for _, k := range slices.Sorted(maps.Keys(env)) {
		args = append(args, "--env", k+"="+env[k])
	}
	args = append(args, "-s", "GITHUB_TOKEN="+actToken)
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.act, args...)
	cmd.Dir = a.target.Repo
	cmd.Env = append(os.Environ(), "ACT_DISABLE_VERSION_CHECK=1")
	cmd.WaitDelay = 10 * time.Second
	var log bytes.Buffer
	var w io.Writer = &log
	if a.verbose {
		w = io.MultiWriter(&log, prefixed{a.out})
	}
	cmd.Stdout, cmd.Stderr = w, w
	t0 := time.Now()
	err := cmd.Run()
	err = cmp.Or(err, os.WriteFile(base+".log", log.Bytes(), 0o600))
	text := log.String()
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("act %s ran past %s", event, a.timeout)
	case err != nil:
		err = fmt.Errorf("act %s: %v", event, err)
	case strings.Contains(text, "Job failed"):
		err = fmt.Errorf("act %s: a job failed", event)
	case !strings.Contains(text, "Job succeeded"):
		err = fmt.Errorf("act %s: no job succeeded", event)
	}
	if err != nil {
		return text, fmt.Errorf("%w%s\n--- end of %s.log:\n%s", err, saidLines(recessSaid(text)), base, lastLines(text, 60))
	}
	for _, an := range actAnnotations(text) {
		a.say("           %s", an)
	}
	a.say("           act %s ok in %s", event, time.Since(t0).Round(time.Second))
	return text, nil
}

// rel is a path relative to the working directory when it is under it.
func rel(p string) string {
	if cwd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}

// recessRoot finds the recess repository from the working directory up.
func recessRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	root, ok := findUp(dir, func(d string) bool {
		return fileExists(filepath.Join(d, "action.yml")) && fileExists(filepath.Join(d, "cmd", "recess", "main.go")) && fileExists(filepath.Join(d, actStory))
	})
	if !ok {
		return "", errors.New("not inside the recess repository: run recess-lab act from a checkout of it (go run -C ~/recess ./cmd/recess-lab act \"$PWD\")")
	}
	return root, nil
}

// findAct returns act v0.2.89: on PATH, in the Go bin directory, or
// installed there with go install.
func findAct(ctx context.Context, out io.Writer) (string, error) {
	install := "go install github.com/nektos/act@v" + actVersion
	candidates := []string{"act"}
	gobin := ""
	// One line each; GOBIN's is empty unless set.
	if b, err := exec.CommandContext(ctx, "go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		bin, gopath, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		gobin = cmp.Or(strings.TrimSpace(bin), filepath.Join(strings.TrimSpace(gopath), "bin"))
		candidates = append(candidates, filepath.Join(gobin, "act"))
	}
	for _, c := range candidates {
		if v, err := exec.CommandContext(ctx, c, "--version").Output(); err == nil && strings.TrimSpace(string(v)) == "act version "+actVersion {
			return c, nil
		}
	}
	if gobin == "" {
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

// saidLine is a line recess wrote to the job log (each note of a run, the
// GitHub client's log), as act logs it: "[job/step]   | recess: ...".
var saidLine = regexp.MustCompile(`^\[[^\]]+\][^|]*\| (recess(?: \([^)]*\))?: .*)$`)

// recessSaid is what recess said in an act log: its lines and its
// annotations, each once, in order.
func recessSaid(log string) []string { return logMatches(log, saidLine, annotationLine) }

// actAnnotations are the ::warning and ::error lines of a log, for the story.
func actAnnotations(log string) []string { return logMatches(log, annotationLine) }

// logMatches are, each once and in order, the first group of every line of
// log that one of res matches (the first that does).
func logMatches(log string, res ...*regexp.Regexp) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if i := slices.IndexFunc(res, func(re *regexp.Regexp) bool { return re.MatchString(l) }); i >= 0 {
			if m := res[i].FindStringSubmatch(l)[1]; !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// prefixed indents act's log under the story with -v.
type prefixed struct{ w io.Writer }

func (p prefixed) Write(b []byte) (int, error) {
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l != "" {
			fmt.Fprint(p.w, "           | "+l)
		}
	}
	return len(b), nil
}
