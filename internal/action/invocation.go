package action

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// The commands recess runs (input command; "auto" picks one from the event).
// The lab (cmd/recess-lab) runs claim and verdict by name.
const (
	cmdAuto        = "auto"
	cmdIntake      = "intake"
	cmdInbound     = "inbound"
	CommandVerdict = "verdict"
	cmdSweep       = "sweep"
	cmdPlan        = "plan"
	cmdVisit       = "visit"
	cmdStatus      = "status"
	CommandClaim   = "claim"
	// cmdInstall only puts the binary on PATH: action.yml does it and never
	// runs the binary with it.
	cmdInstall = "install"
)

// actionCommands are the values input command accepts.
var actionCommands = []string{cmdAuto, cmdIntake, cmdInbound, CommandVerdict, cmdSweep, cmdPlan, cmdVisit, cmdStatus, CommandClaim}

// invocation is one run of recess: what to do, on which repository, as
// whom, with which policy. Built once (from the environment, the command
// line or the lab), it is all execute reads.
type invocation struct {
	*settings // the inputs and the repository's policy; Command is never "auto"
	where
	Event         *event          // empty on the command line
	CorrelationID string          // the id a claim is for
	Verdict       []byte          // the verdict document (command verdict)
	ResumeContext *resume.Context // a claim's, nil for a fresh run
	// WithStatus (recess sweep --dry-run) has the sweep's engine first
	// report the status of every pending discussion (execution.Status).
	WithStatus bool
}

// where is where a run runs: the repository, GitHub, the run and its clock.
type where struct {
	Repo string // OWNER/REPO
	// APIURL and GraphQLURL are where GitHub is (GraphQLURL may be empty:
	// derived from APIURL); ServerURL is its web address, for links.
	APIURL, GraphQLURL, ServerURL string
	RunID                         int64        // this run's id (the agent run's, for claim and verdict)
	Clock                         resume.Clock // the wall clock, or RECESS_NOW
}

// execution is what execute did: the engine's result, and what a dry run
// would have written.
type execution struct {
	*resume.Result // nil when the run stopped before the engine answered
	// Status is the status beside a sweep (invocation.WithStatus).
	Status *resume.Result
	// DryRun is set when nothing was written; Would then lists what a real
	// run would have written, in order.
	DryRun   bool
	Would    []dryLine
	Requests int    // the GitHub API requests the run sent
	Prompt   string // a claim's prompt output ("" for a stale claim)
}

// execute wires GitHub, the store and the engine, and calls the one engine
// method the command names. Refused input comes back as a *wait.FieldError
// (nothing was written then); log receives one line per decision. An event
// about a kind of thread not served is a no-op: one line, no request. The
// execution is never nil, and holds what the engine reported.
func execute(ctx context.Context, inv *invocation, log io.Writer) (*execution, error) {
	out := &execution{DryRun: inv.DryRun}
	logf := func(format string, args ...any) { fmt.Fprintf(log, "recess: "+format+"\n", args...) }
	if why := inv.Event.unserved(inv.Threads); why != "" {
		logf("%s", why)
		return out, nil
	}
	e, client, err := wire(inv, logf)
	if err != nil {
		return out, err
	}
	var res *resume.Result
	switch inv.Command {
	case cmdIntake:
		if inv.Discussion == 0 {
			return out, &wait.FieldError{Field: "event", Reason: "intake needs a discussion event"}
		}
		res, err = e.Intake(ctx, inv.Discussion)
	case cmdInbound:
		if inv.Discussion == 0 {
			return out, &wait.FieldError{Field: "event", Reason: "inbound needs a discussion or discussion_comment event"}
		}
		if inv.Event != nil && inv.Event.Deleted != nil {
			res, err = e.Deleted(ctx, inv.Discussion, *inv.Event.Deleted)
		} else {
			res, err = e.Inbound(ctx, inv.Discussion)
		}
	case cmdSweep:
		if inv.WithStatus {
			if out.Status, err = e.StatusAll(ctx); err != nil {
				out.Requests = client.Requests()
				return out, err
			}
		}
		res, err = e.Sweep(ctx)
	case cmdPlan:
		res, err = e.Plan(ctx)
	case cmdVisit:
		if inv.Discussion == 0 {
			return out, &wait.FieldError{Field: inputField(inDiscussion), Reason: "visit needs the discussion to visit"}
		}
		res, err = e.Visit(ctx, inv.Discussion)
	case cmdStatus:
		if inv.Discussion != 0 {
			res, err = e.Status(ctx, inv.Discussion)
		} else {
			res, err = e.StatusAll(ctx)
		}
	case CommandClaim:
		if inv.CorrelationID == "" {
			return out, &wait.FieldError{Field: inputField(inCorrelationID), Reason: "claim needs the correlation id the run was dispatched with"}
		}
		if inv.Discussion == 0 {
			return out, &wait.FieldError{Field: "event payload inputs.discussion_number", Reason: "claim needs the discussion number the run was dispatched with"}
		}
		res, err = e.Claim(ctx, inv.Discussion, inv.CorrelationID, inv.RunID)
		if err == nil && !res.Stale {
			out.Prompt = claimPrompt(ctx, e, inv.Discussion, inv.ResumeContext, logf)
		}
	case CommandVerdict:
		var v *resume.Verdict
		if v, err = e.ParseVerdict(inv.Verdict); err != nil {
			return out, err
		}
		res, err = e.Verdict(ctx, v, inv.RunID)
	default:
		return out, &wait.FieldError{Field: inputField(inCommand), Reason: fmt.Sprintf("%q is not a command recess runs", inv.Command)}
	}
	out.Result = res
	switchSweep(ctx, e, client, inv, res)
	out.Requests = client.Requests()
	if out.DryRun {
		out.Would = would(res)
	}
	if res != nil && res.Missing != nil && inv.Event != nil && inv.Discussion != 0 {
		switch inv.Command {
		case cmdIntake, cmdInbound, CommandClaim, CommandVerdict:
			// A run for one discussion says so when GitHub does not know
			// it (the engine does nothing); after a deletion or a transfer
			// that is expected: a note, not a warning.
			msg := missingMessage(inv.Repo, resume.Noun(cmp.Or(res.Kind, e.Ref(inv.Discussion).Kind)), inv.Discussion, res.Missing)
			if inv.Event.Action == "deleted" || inv.Event.Action == "transferred" {
				res.Notes = append(res.Notes, msg)
			} else {
				res.Warnings = append(res.Warnings, msg)
			}
		}
	}
	return out, err
}

// wire builds the engine for an invocation: the GitHub client, the chosen
// store; for a dry run, an engine that only lists its writes. It sends no
// request.
func wire(inv *invocation, logf func(string, ...any)) (*resume.Engine, *gh.Client, error) {
	owner, name, err := splitRepo("GITHUB_REPOSITORY", inv.Repo)
	if err != nil {
		return nil, nil, err
	}
	if inv.Token == "" {
		return nil, nil, &wait.FieldError{Field: inputField(InputGitHubToken), Reason: "empty (the default is ${{ github.token }})"}
	}
	c, err := gh.New(gh.Config{
		Token:      inv.Token,
		APIURL:     inv.APIURL,
		GraphQLURL: inv.GraphQLURL,
		Owner:      owner,
		Repo:       name,
		Workflow:   inv.Workflow,
		Ref:        inv.Ref,
		Logf:       logf,
		Kinds:      inv.Threads,
	})
	if err != nil {
		return nil, nil, renameField(err, map[string]string{"Workflow": inputField(inWorkflow), "APIURL": "GITHUB_API_URL", "GraphQLURL": "GITHUB_GRAPHQL_URL"})
	}
	var store resume.Store
	switch inv.StateStore {
	case storeComment:
		cs := gh.NewCommentStore(c)
		// The sweep's hourly look follows RECESS_NOW, as the engine does.
		cs.Clock = inv.Clock
		store = cs
	case storeBranch:
		if err := gh.CheckBranchName(inv.StateBranch); err != nil {
			return nil, nil, renameField(err, map[string]string{"StateBranch": inputField(inStateBranch)})
		}
		store = gh.NewBranchStore(c, inv.StateBranch)
	default:
		return nil, nil, checkStore(inputField(inStateStore), inv.StateStore)
	}
	cfg := inv.Engine
	if cfg.RepositoryURL == "" {
		cfg.RepositoryURL = strings.TrimSuffix(orDefault(inv.ServerURL, defaultServerURL), "/") + "/" + inv.Repo
	}
	e := &resume.Engine{Clock: inv.Clock, Store: store, Threads: c, Dispatcher: c, Permissions: c, Config: cfg, Logf: logf,
		DryRun: inv.DryRun}
	if inv.Event != nil {
		e.Kind = inv.Event.Kind
	}
	if e.Kind == "" {
		e.Kind = resume.UnknownKind(inv.Threads) // workflow_dispatch, a visit
	}
	return e, c, nil
}

// splitRepo takes OWNER/REPO apart; field names where it came from.
func splitRepo(field, repo string) (owner, name string, err error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", &wait.FieldError{Field: field, Reason: fmt.Sprintf("%q is not OWNER/REPO", repo)}
	}
	return owner, name, nil
}

// runEnv is the GitHub Actions variables recess reads, read once by
// readRunEnv when the program starts; the commands take this value and never
// read a GITHUB_* variable themselves. (RECESS_* variables, and the inputs
// through go-githubactions, are read where they are used.) The lab fills
// it for each event of a story.
type runEnv struct {
	Actions bool // GITHUB_ACTIONS is "true": the runner, not a terminal
	// where is GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_GRAPHQL_URL,
	// GITHUB_SERVER_URL and GITHUB_RUN_ID; a command that runs the engine
	// sets its Clock (clockFrom).
	where
	Workspace, WorkflowRef string // GITHUB_WORKSPACE, GITHUB_WORKFLOW_REF
	EventName, EventPath   string // GITHUB_EVENT_NAME, GITHUB_EVENT_PATH
	HasSummary, HasOutputs bool   // GITHUB_STEP_SUMMARY and GITHUB_OUTPUT are set
	// Token is GITHUB_TOKEN, else GH_TOKEN (the gh CLI's name for it), so
	// a shell set up for gh works.
	Token string
}

// readRunEnv reads the run's GitHub Actions variables, once.
func readRunEnv(getenv func(string) string) runEnv {
	// A run id that is not a number is no run of GitHub's: claim and
	// verdict then record none.
	runID, _ := strconv.ParseInt(getenv("GITHUB_RUN_ID"), 10, 64)
	return runEnv{
		Actions: getenv("GITHUB_ACTIONS") == "true",
		where: where{
			Repo:       getenv("GITHUB_REPOSITORY"),
			APIURL:     getenv("GITHUB_API_URL"),
			GraphQLURL: getenv("GITHUB_GRAPHQL_URL"),
			ServerURL:  getenv("GITHUB_SERVER_URL"),
			RunID:      runID,
		},
		Workspace:   getenv("GITHUB_WORKSPACE"),
		WorkflowRef: getenv("GITHUB_WORKFLOW_REF"),
		EventName:   getenv("GITHUB_EVENT_NAME"),
		EventPath:   getenv("GITHUB_EVENT_PATH"),
		HasSummary:  getenv("GITHUB_STEP_SUMMARY") != "",
		HasOutputs:  getenv("GITHUB_OUTPUT") != "",
		Token:       cmp.Or(getenv("GITHUB_TOKEN"), getenv("GH_TOKEN")),
	}
}

// invocationFromEnv reads an action run's environment, once. Every refusal
// names its field, and nothing has been sent to GitHub when one is returned.
func invocationFromEnv(env runEnv, getenv func(string) string, input func(string) string) (*invocation, error) {
	var err error
	if env.Clock, err = clockFrom(getenv); err != nil {
		return nil, err
	}
	return newInvocation(env, input, func() (*event, error) { return readEvent(env.EventName, env.EventPath) })
}

// newInvocation reads the inputs (input gives INPUT_<NAME>), the policy
// file, the event and what the command needs (a claim's resume_context, a
// verdict), and resolves command auto from the event. env says where the
// run runs, with its clock.
func newInvocation(env runEnv, input func(string) string, readEvent func() (*event, error)) (*invocation, error) {
	set, err := loadSettings(input, env.Workspace)
	if err != nil {
		return nil, err
	}
	ev, err := readEvent()
	if err != nil {
		return nil, err
	}
	inv := &invocation{settings: set, where: env.where, Event: ev}
	if inv.Discussion == 0 { // the input discussion (visit) wins over the event's
		inv.Discussion = ev.Number
	}
	if inv.Command == cmdAuto {
		if inv.Command, err = ev.command(); err != nil {
			return nil, err
		}
	}
	if err := checkSweepHome(inv.Command, set, env.WorkflowRef); err != nil {
		return nil, err
	}
	input = inputReader(inv.Command, input)
	switch inv.Command {
	case CommandClaim:
		inv.CorrelationID = orDefault(input(inCorrelationID), ev.Inputs["correlation_id"])
		// The resume_context is checked before the claim writes anything;
		// the input wins over the dispatch's.
		field, raw := inputField(inResumeContext), input(inResumeContext)
		if raw == "" {
			field, raw = "event payload inputs.resume_context", ev.Inputs["resume_context"]
		}
		if raw != "" {
			rc, err := DecodeResumeContext([]byte(raw))
			if err != nil {
				var ie *wait.FieldError
				if errors.As(err, &ie) {
					return nil, &wait.FieldError{Field: field + " (" + ie.Field + ")", Reason: ie.Reason}
				}
				return nil, &wait.FieldError{Field: field, Reason: err.Error()}
			}
			inv.ResumeContext = rc
		}
	case CommandVerdict:
		// Refuse a missing or unreadable verdict before anything talks to
		// GitHub.
		if inv.Verdict, err = verdictDocument(input(inVerdict), input(inVerdictFile)); err != nil {
			return nil, err
		}
	}
	return inv, nil
}

// clockFrom is RECESS_NOW when set (tests and predictions pin time), else
// the wall clock.
func clockFrom(getenv func(string) string) (resume.Clock, error) {
	v := getenv("RECESS_NOW")
	if v == "" {
		return resume.ClockFunc(time.Now), nil
	}
	t, err := parseMoment("RECESS_NOW", v)
	if err != nil {
		return nil, err
	}
	return resume.ClockFunc(func() time.Time { return t }), nil
}

// parseMoment parses a moment given from outside (RECESS_NOW, a flag),
// RFC 3339, in UTC; name is where it was given.
func parseMoment(name, value string) (time.Time, error) {
	if strings.TrimSpace(value) == "" {
		return time.Time{}, &wait.FieldError{Field: name, Reason: "missing"}
	}
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return time.Time{}, &wait.FieldError{Field: name, Reason: strconv.Quote(value) + " is not an RFC 3339 time (2026-11-21T10:00:00Z)", Err: err}
	}
	return t.UTC(), nil
}

// readBounded reads at most limit+1 bytes of the file at path: one more
// than a reader of it accepts, so that it can refuse a longer one. Every
// file recess reads from outside comes through it: the event payload, a
// verdict, a resume_context, the policy file.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// maxResumeContext bounds a resume_context read from outside: GitHub's
// inputs limit is far below it.
const maxResumeContext = 1 << 20

// DecodeResumeContext reads a resume_context strictly: one JSON object with
// only the known fields, each of its type, fired_by present. Errors name the
// field ("resume_context.history_since[2].created_at: ...").
func DecodeResumeContext(data []byte) (*resume.Context, error) {
	const root = "resume_context"
	if len(data) > maxResumeContext {
		return nil, &wait.FieldError{Field: root, Reason: "longer than " + strconv.Itoa(maxResumeContext) + " bytes"}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &wait.FieldError{Field: root, Reason: "empty"}
	}
	var rc resume.Context
	if err := wait.DecodeJSON(data, root, &rc, wait.JSONLimits{}); err != nil {
		return nil, err
	}
	if rc.FiredBy == "" {
		return nil, &wait.FieldError{Field: root + ".fired_by", Reason: "missing"}
	}
	if rc.Omitted < 0 {
		return nil, &wait.FieldError{Field: root + ".omitted", Reason: "negative"}
	}
	if rc.Kind != "" && !slices.Contains(state.Kinds, rc.Kind) {
		return nil, &wait.FieldError{Field: root + ".kind", Reason: fmt.Sprintf("%q is not a kind of thread", rc.Kind)}
	}
	if rc.RecessCount < 0 {
		return nil, &wait.FieldError{Field: root + ".recess_count", Reason: "negative"}
	}
	if len(rc.Trigger) > 0 && string(rc.Trigger) != "null" {
		if _, err := wait.ParseTrigger(rc.Trigger, wait.TriggerLimits{}); err != nil {
			var fe *wait.FieldError
			if errors.As(err, &fe) {
				return nil, &wait.FieldError{Field: root + "." + fe.Field, Reason: fe.Reason}
			}
			return nil, &wait.FieldError{Field: root + ".trigger", Reason: err.Error()}
		}
	} else {
		rc.Trigger = nil
	}
	for i, e := range rc.HistorySince {
		if e.ID == "" {
			return nil, &wait.FieldError{Field: fmt.Sprintf("%s.history_since[%d].id", root, i), Reason: "missing"}
		}
	}
	return &rc, nil
}

// verdictDocument is the verdict input, or the file verdict-file names.
func verdictDocument(verdict, file string) ([]byte, error) {
	switch {
	case verdict != "" && file != "":
		return nil, &wait.FieldError{Field: inputField(inVerdict), Reason: "give verdict or verdict-file, not both"}
	case verdict != "":
		return []byte(verdict), nil
	case file != "":
		b, err := readBounded(file, resume.MaxVerdictBytes)
		if err != nil {
			return nil, &wait.FieldError{Field: inputField(inVerdictFile), Reason: err.Error()}
		}
		return b, nil
	}
	return nil, &wait.FieldError{Field: inputField(inVerdict), Reason: "the verdict command needs verdict or verdict-file"}
}

// renameField is err with the *wait.FieldError's field, a name the GitHub
// adapter gives its Config, renamed to what the user set (names maps one
// to the other); any other error is returned as it is.
func renameField(err error, names map[string]string) error {
	var fe *wait.FieldError
	if errors.As(err, &fe) && names[fe.Field] != "" {
		return &wait.FieldError{Field: names[fe.Field], Reason: fe.Reason}
	}
	return err
}

// RefusedField is the field a refused input names, or "" when err is not a
// refusal (GitHub unreachable, a corrupt record, ...).
func RefusedField(err error) string {
	var fe *wait.FieldError
	switch {
	case errors.Is(err, state.ErrCorrupt), errors.Is(err, state.ErrInvalid), errors.Is(err, state.ErrTooLarge):
		return "" // a stored record or a bug, not input this run was given
	case errors.As(err, &fe):
		return fe.Field
	}
	return ""
}

// claimPrompt is the claim step's prompt output: the resume_context
// rendered for a resumed run, framed by what the agent had asked (recess's
// replies carry the recess's correlation id); the discussion itself for a
// fresh one. A failed read leaves the prompt without what it would add.
func claimPrompt(ctx context.Context, e *resume.Engine, discussion int, rc *resume.Context, logf func(string, ...any)) string {
	if rc != nil && rc.CorrelationID == "" {
		return resume.Prompt(*rc, nil)
	}
	ref := e.Ref(discussion)
	d, err := e.Threads.Thread(ctx, ref)
	switch {
	case rc != nil && err != nil:
		logf("prompt: could not read %s %d for the questions asked (%v); answers are listed without them", resume.Noun(ref.Kind), discussion, err)
		return resume.Prompt(*rc, nil)
	case rc != nil:
		return resume.Prompt(*rc, resume.Questions(d, rc.CorrelationID))
	case err != nil:
		logf("prompt: could not read %s %d (%v); the prompt only points to it", resume.Noun(ref.Kind), discussion, err)
		return resume.UnreadPrompt(ref)
	}
	return resume.IntakePrompt(d)
}

// missingMessage says what to check when GitHub does not know the run's
// thread, a noun (resume.Result.Missing): a wrong GITHUB_REPOSITORY, as act
// sets by default, or a thread deleted meanwhile.
func missingMessage(repo, noun string, number int, err error) string {
	msg := fmt.Sprintf("%s #%d was not found in %s (GITHUB_REPOSITORY), so this run did nothing (%v).", noun, number, repo, err)
	if repo == "nektos/act" {
		msg += " act sets GITHUB_REPOSITORY=nektos/act: pass --env GITHUB_REPOSITORY=OWNER/REPO."
	} else {
		msg += " Check that the " + noun + " exists and that the token can read it."
	}
	return msg
}
