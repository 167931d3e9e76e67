package action

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/internal/workflows"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// settings is everything a run is configured with: action inputs, with
// .github/recess.yml for repository policy underneath (inputs win).
type settings struct {
	Token       string
	Command     string
	Workflow    string
	Ref         string
	StateStore  string
	StateBranch string
	// Discussion is the discussion the command is about (0: none, or every
	// pending one for status): input discussion for visit, else the event's.
	Discussion int
	DryRun     bool
	// SweepWorkflow is the sweep's own workflow, which recess keeps enabled
	// only while something is pending when Engine.SweepOnlyWhileWaiting is
	// set.
	SweepWorkflow string
	// Threads are the kinds of thread recess serves (input threads;
	// default: discussions alone); an event about another kind is a no-op
	// (event.unserved).
	Threads []state.Kind
	Engine  resume.Config
}

// fileConfig is .github/recess.yml (unknown keys are errors), and the
// policy that inputs and recess mcp's flags give, in the same form.
type fileConfig struct {
	AllowedKinds         []string `yaml:"allowed-kinds"`
	MaxRecess            string   `yaml:"max-recess"`
	MaxDispatchesPerHour *int     `yaml:"max-dispatches-per-hour"`
	MaxAttempts          *int     `yaml:"max-attempts"`
	MaxOperations        *int     `yaml:"max-operations"`
	EscalateTo           []string `yaml:"escalate-to"`
	IgnoreAuthors        []string `yaml:"ignore-authors"`
	// Scope (SPEC.md "Scope").
	Categories     []string `yaml:"categories"`
	Labels         []string `yaml:"labels"`
	WakeOn         string   `yaml:"wake-on"`
	MentionHandles []string `yaml:"mention-handles"`
	// Whether the status comment shows the agent's summary.
	HideSummary *bool `yaml:"hide-summary"`
}

// recess's own defaults, in one place (the engine's are resume.Defaults,
// GitHub's addresses and the agent workflow's name internal/github's).
const (
	defaultConfigPath    = ".github/recess.yml"
	defaultSweepWorkflow = "recess-sweep.yml"   // .github/examples/recess-sweep.yml
	defaultServerURL     = "https://github.com" // when GITHUB_SERVER_URL is unset
	defaultSchedule      = "2-59/5 * * * *"     // recess init's sweep: every five minutes, off the hour
)

// The action's inputs (action.yml), as GitHub Actions hands them over:
// INPUT_<NAME>. Each name is written once, here; refusals name them as
// "input <name>". The lab (cmd/recess-lab) passes its token in
// InputGitHubToken.
const (
	InputGitHubToken        = "github-token"
	inCommand               = "command"
	inWorkflow              = "workflow"
	inRef                   = "ref"
	inStateStore            = "state-store"
	inStateBranch           = "state-branch"
	inVerdict               = "verdict"
	inVerdictFile           = "verdict-file"
	inCorrelationID         = "correlation-id"
	inDiscussion            = "discussion"
	inCategories            = "categories"
	inLabels                = "labels"
	inWakeOn                = "wake-on"
	inMentionHandles        = "mention-handles"
	inHideSummary           = "hide-summary"
	inResumeContext         = "resume-context"
	inDryRun                = "dry-run"
	inMaxDispatchesPerHour  = "max-dispatches-per-hour"
	inMaxAttempts           = "max-attempts"
	inMaxOperations         = "max-operations"
	inMaxRecess             = "max-recess"
	inEscalateTo            = "escalate-to"
	inIgnoreAuthors         = "ignore-authors"
	inConfig                = "config"
	inSweepOnlyWhileWaiting = "sweep-only-while-waiting"
	inSweepWorkflow         = "sweep-workflow"
)

// actionInput is one input of action.yml and what reads it.
type actionInput struct {
	name string
	// commands are the commands that read it; nil: every command.
	commands []string
	// choice marks a choice the repository makes once for its whole setup
	// (the agent workflow, the store, scope, wake-on, limits, policy, the
	// sweep switch), as opposed to what one run is about or how it runs.
	// Every reusable workflow recess ships declares each choice its
	// commands read, with action.yml's default, and hands it on (SPEC.md
	// "Who uses it and how"): a choice one piece never receives is a
	// second, silent configuration.
	choice bool
}

// actionInputs are action.yml's inputs, in its order: the one table of
// which command reads which input. A run reads only the inputs its command
// reads (inputReader). The policy the engine decides with is one
// configuration, read by every command, and so is where it dispatches and
// the sweep switch: each entry point decides with all of it. The token,
// dry-run and config (where the policy file is: recess's reusable
// workflows check out .github and read the default) belong to the run.
var actionInputs = []actionInput{
	{name: InputGitHubToken},
	{name: inCommand},
	{name: inWorkflow, choice: true},
	{name: inRef, choice: true},
	{name: inStateStore, choice: true},
	{name: inStateBranch, choice: true},
	{name: inVerdict, commands: []string{CommandVerdict}},
	{name: inVerdictFile, commands: []string{CommandVerdict}},
	{name: inCorrelationID, commands: []string{CommandClaim}},
	{name: inDiscussion, commands: []string{cmdVisit}},
	{name: inThreads, choice: true},
	{name: inCategories, choice: true},
	{name: inLabels, choice: true},
	{name: inWakeOn, choice: true},
	{name: inMentionHandles, choice: true},
	{name: inHideSummary, choice: true},
	{name: inResumeContext, commands: []string{CommandClaim}},
	{name: inDryRun},
	{name: inMaxDispatchesPerHour, choice: true},
	{name: inMaxAttempts, choice: true},
	{name: inMaxOperations, choice: true},
	{name: inMaxRecess, choice: true},
	{name: inEscalateTo, choice: true},
	{name: inIgnoreAuthors, choice: true},
	{name: inConfig},
	{name: inSweepOnlyWhileWaiting, choice: true},
	{name: inSweepWorkflow, choice: true},
}

// inputNames are every input recess reads, in action.yml's order.
var inputNames = func() []string {
	names := make([]string, len(actionInputs))
	for i, in := range actionInputs {
		names[i] = in.name
	}
	return names
}()

// reads reports whether command reads input name (command auto reads only
// what every command does: what it resolves to reads the rest once the
// event has said which).
func reads(command, name string) bool {
	in, ok := inputOf(name)
	return ok && (in.commands == nil || slices.Contains(in.commands, command))
}

// inputOf is input name's entry in actionInputs.
func inputOf(name string) (actionInput, bool) {
	i := slices.IndexFunc(actionInputs, func(in actionInput) bool { return in.name == name })
	if i < 0 {
		return actionInput{}, false
	}
	return actionInputs[i], true
}

// inputReader is input as command reads it: empty for an input command
// does not read.
func inputReader(command string, input func(string) string) func(string) string {
	return func(name string) string {
		if !reads(command, name) {
			return ""
		}
		return input(name)
	}
}

// inputField is how a refusal names an input.
func inputField(name string) string { return "input " + name }

// The state stores (input state-store).
const (
	storeComment = "comment"
	storeBranch  = "branch"
)

// stores are the values input state-store accepts.
var stores = []string{storeComment, storeBranch}

// inThreads is input threads (SPEC "Threads"): which kinds of thread
// recess serves, comma separated. It is an input alone, not a policy file
// key: the front door's triggers and its if: must agree with it, and they
// live in the workflow file.
const inThreads = "threads"

// threadKinds are the values input threads lists.
var threadKinds = workflows.ThreadsValues()

// inputChoices are the inputs that accept only some values, and those
// values: the one list that runs and `recess check` both hold inputs to.
// command's install is the action's own (action.yml stops there, before
// the binary).
var inputChoices = []workflows.Choice{
	{Input: inCommand, Values: append(slices.Clone(actionCommands), cmdInstall)},
	{Input: inStateStore, Values: stores},
	{Input: inWakeOn, Values: resume.WakeOns},
	{Input: inThreads, Values: threadKinds, List: true},
}

// checkStore refuses a state store recess does not have; field names where
// the value came from.
func checkStore(field, store string) error {
	if slices.Contains(stores, store) {
		return nil
	}
	return &wait.FieldError{Field: field, Reason: fmt.Sprintf("%q is not %s", store, strings.Join(stores, " or "))}
}

// newSettings is a run's configuration before any input or policy file:
// SPEC.md's defaults.
func newSettings() *settings {
	return &settings{
		Command:       cmdAuto,
		Workflow:      gh.DefaultWorkflow,
		StateStore:    storeComment,
		StateBranch:   gh.DefaultStateBranch,
		SweepWorkflow: defaultSweepWorkflow,
		Threads:       []state.Kind{state.KindDiscussion},
		Engine:        resume.Defaults(),
	}
}

// loadSettings reads the inputs its command reads (actionInputs) through
// input (INPUT_<NAME>), and the policy file under them. Every refusal names
// the input or the file key.
func loadSettings(input func(string) string, workspace string) (*settings, error) {
	s := newSettings()
	s.Command = strings.ToLower(orDefault(input(inCommand), s.Command))
	if !slices.Contains(actionCommands, s.Command) {
		return nil, &wait.FieldError{Field: inputField(inCommand), Reason: fmt.Sprintf("%q is not one of %s", s.Command, strings.Join(actionCommands, ", "))}
	}
	input = inputReader(s.Command, input)
	s.Token = input(InputGitHubToken)
	s.Workflow = orDefault(input(inWorkflow), s.Workflow)
	s.Ref = input(inRef)
	s.StateStore = strings.ToLower(orDefault(input(inStateStore), s.StateStore))
	s.StateBranch = orDefault(input(inStateBranch), s.StateBranch)
	if v := input(inDiscussion); v != "" {
		n, err := positive(v)
		if err != nil {
			return nil, &wait.FieldError{Field: inputField(inDiscussion), Reason: err.Error()}
		}
		s.Discussion = n
	}
	if err := checkStore(inputField(inStateStore), s.StateStore); err != nil {
		return nil, err
	}
	threads, err := workflows.ParseThreads(inputField(inThreads), input(inThreads))
	if err != nil {
		return nil, err
	}
	if len(threads) > 0 {
		s.Threads = threads
	}
	if err := boolInput(input, inDryRun, &s.DryRun); err != nil {
		return nil, err
	}
	if err := s.sweepSwitch(input); err != nil {
		return nil, err
	}
	if err := s.applyFile(policyPath(input(inConfig), workspace)); err != nil {
		return nil, err
	}
	pol, err := inputPolicy(input)
	if err != nil {
		return nil, err
	}
	if err := s.applyPolicy(pol, inputField); err != nil {
		return nil, err
	}
	if _, err := mentionHeard(s.Threads, s.Engine.WakeOn, len(s.Engine.MentionHandles) > 0, inputField(inMentionHandles)); err != nil {
		return nil, err
	}
	return s, nil
}

// mentionHeard says whether a served kind wakes on mention: wake-on says
// so (wakeOn), or, when it is not given (""), the kind's default does
// (resume.WakeOnOf). Such a kind needs a handle to listen for: without one
// (handles false) it is refused, naming field (the input or init's flag).
func mentionHeard(kinds []state.Kind, wakeOn string, handles bool, field string) (listens bool, err error) {
	for _, k := range kinds {
		switch {
		case resume.WakeOnOf(wakeOn, k) != resume.WakeMention:
			continue
		case handles:
			return true, nil
		case wakeOn == "":
			return true, &wait.FieldError{Field: field, Reason: fmt.Sprintf("%s wake on mention when wake-on is not given: name at least one handle (for example @lead), or set wake-on", workflows.ThreadsValue(k))}
		}
		return true, &wait.FieldError{Field: field, Reason: "wake-on mention needs at least one handle (for example @lead)"}
	}
	return false, nil
}

// inputPolicy is the policy the inputs give, in the policy file's form
// (the keys are the inputs' names): inputs win over the file.
func inputPolicy(input func(string) string) (fileConfig, error) {
	fc := fileConfig{MaxRecess: input(inMaxRecess), WakeOn: input(inWakeOn)}
	for _, n := range []struct {
		name string
		dst  **int
	}{
		{inMaxDispatchesPerHour, &fc.MaxDispatchesPerHour},
		{inMaxAttempts, &fc.MaxAttempts},
		{inMaxOperations, &fc.MaxOperations},
	} {
		if v := input(n.name); v != "" {
			i, err := positive(v)
			if err != nil {
				return fc, &wait.FieldError{Field: inputField(n.name), Reason: err.Error()}
			}
			*n.dst = &i
		}
	}
	for _, l := range []struct {
		name  string
		split func(string) []string
		dst   *[]string
	}{
		{inEscalateTo, list, &fc.EscalateTo},
		{inIgnoreAuthors, list, &fc.IgnoreAuthors},
		{inCategories, text.Items, &fc.Categories},
		{inLabels, text.Items, &fc.Labels},
		{inMentionHandles, list, &fc.MentionHandles},
	} {
		if v := input(l.name); v != "" {
			*l.dst = l.split(v)
		}
	}
	if input(inHideSummary) != "" {
		fc.HideSummary = new(bool)
		if err := boolInput(input, inHideSummary, fc.HideSummary); err != nil {
			return fc, err
		}
	}
	return fc, nil
}

// boolInput reads input name into dst when it is given.
func boolInput(input func(string) string, name string, dst *bool) error {
	v := input(name)
	if v == "" {
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return &wait.FieldError{Field: inputField(name), Reason: fmt.Sprintf("%q is not true or false", v)}
	}
	*dst = b
	return nil
}

// sweepSwitch reads inputs sweep-only-while-waiting and sweep-workflow. The
// sweep workflow must be a file name of its own: never the agent workflow,
// which recess would otherwise switch off with the sweep.
func (s *settings) sweepSwitch(input func(string) string) error {
	if err := boolInput(input, inSweepOnlyWhileWaiting, &s.Engine.SweepOnlyWhileWaiting); err != nil {
		return err
	}
	s.SweepWorkflow = orDefault(input(inSweepWorkflow), s.SweepWorkflow)
	if err := gh.CheckWorkflowFile(s.SweepWorkflow); err != nil {
		return &wait.FieldError{Field: inputField(inSweepWorkflow), Reason: err.Error()}
	}
	if strings.EqualFold(s.SweepWorkflow, s.Workflow) {
		return &wait.FieldError{Field: inputField(inSweepWorkflow), Reason: fmt.Sprintf("%q is the agent workflow (input workflow): the sweep needs a workflow file of its own", s.SweepWorkflow)}
	}
	return nil
}

// policyPath is where the policy file is: the config input (or flag)
// under the workspace, else the default, which may be missing.
func policyPath(config, workspace string) (path string, explicit bool) {
	path, explicit = config, true
	if path == "" {
		path, explicit = defaultConfigPath, false
	}
	if !filepath.IsAbs(path) && workspace != "" {
		path = filepath.Join(workspace, path)
	}
	return path, explicit
}

// applyFile reads repository policy. A missing default file is fine; a
// missing file the config input names is an error.
func (s *settings) applyFile(path string, explicit bool) error {
	b, err := readBounded(path, 64<<10)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil
	}
	field := "config " + filepath.ToSlash(path)
	if err != nil {
		return &wait.FieldError{Field: field, Reason: err.Error()}
	}
	if len(b) > 64<<10 {
		return &wait.FieldError{Field: field, Reason: "larger than 64 KiB"}
	}
	var fc fileConfig
	if err := DecodeYAML(b, &fc); err != nil {
		var fe *wait.FieldError
		if errors.As(err, &fe) && fe.Field != "" {
			return &wait.FieldError{Field: field + ": " + fe.Field, Reason: fe.Reason}
		}
		return &wait.FieldError{Field: field, Reason: err.Error()}
	}
	return s.applyPolicy(fc, func(key string) string { return field + ": " + key })
}

// applyPolicy checks policy from one source and sets what it gives over
// what s holds; field names a key ("max-recess") as that source spells it.
func (s *settings) applyPolicy(fc fileConfig, field func(key string) string) error {
	for i, k := range fc.AllowedKinds {
		if err := wait.CheckKind(k); err != nil {
			return &wait.FieldError{Field: field(fmt.Sprintf("allowed-kinds[%d]", i)), Reason: err.Error()}
		}
	}
	if fc.MaxRecess != "" {
		d, err := wait.ParseDuration(fc.MaxRecess)
		if err != nil {
			return &wait.FieldError{Field: field(inMaxRecess), Reason: err.Error()}
		}
		s.Engine.MaxRecess = d
	}
	for _, n := range []struct {
		name string
		src  *int
		dst  *int
	}{
		{inMaxDispatchesPerHour, fc.MaxDispatchesPerHour, &s.Engine.MaxDispatchesPerHour},
		{inMaxAttempts, fc.MaxAttempts, &s.Engine.MaxAttempts},
		{inMaxOperations, fc.MaxOperations, &s.Engine.MaxOperations},
	} {
		if n.src == nil {
			continue
		}
		if *n.src < 1 {
			return &wait.FieldError{Field: field(n.name), Reason: fmt.Sprintf("%d is not a positive number", *n.src)}
		}
		*n.dst = *n.src
	}
	for _, l := range []struct{ src, dst *[]string }{
		{&fc.AllowedKinds, &s.Engine.AllowedKinds},
		{&fc.EscalateTo, &s.Engine.EscalateTo},
		{&fc.IgnoreAuthors, &s.Engine.IgnoreAuthors},
		{&fc.Categories, &s.Engine.Categories},
		{&fc.Labels, &s.Engine.Labels},
		{&fc.MentionHandles, &s.Engine.MentionHandles},
	} {
		if *l.src != nil {
			*l.dst = *l.src
		}
	}
	if fc.WakeOn != "" {
		w, err := resume.ParseWakeOn(fc.WakeOn)
		if err != nil {
			return &wait.FieldError{Field: field(inWakeOn), Reason: err.(*wait.FieldError).Reason}
		}
		s.Engine.WakeOn = w
	}
	if fc.HideSummary != nil {
		s.Engine.HideSummary = *fc.HideSummary
	}
	return nil
}

func positive(v string) (int, error) {
	i, err := strconv.Atoi(v)
	if err != nil || i < 1 {
		return 0, fmt.Errorf("%q is not a positive whole number", v)
	}
	return i, nil
}

// list splits a comma- or newline-separated input, dropping blanks and a
// leading "@".
func list(v string) []string {
	out := []string{}
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' || r == ' ' }) {
		if f = strings.TrimPrefix(strings.TrimSpace(f), "@"); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
