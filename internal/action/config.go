package action

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

// settings is everything a run is configured with: action inputs, with
// .github/recess.yml for repository policy underneath (inputs win).
type settings struct {
	Token         string
	Command       string
	Workflow      string
	Ref           string
	StateStore    string
	StateBranch   string
	Verdict       string
	VerdictFile   string
	CorrelationID string
	// Discussion is the discussion a visit works on (input discussion).
	Discussion int
	// ResumeContext is the claim's resume_context (input resume-context;
	// empty means the workflow_dispatch event's inputs.resume_context).
	ResumeContext string
	DryRun        bool
	// SweepOnlyWhileWaiting keeps the sweep workflow (SweepWorkflow, a file
	// name in .github/workflows) enabled only while something is pending
	// (inputs sweep-only-while-waiting and sweep-workflow).
	SweepOnlyWhileWaiting bool
	SweepWorkflow         string
	Engine                resume.Config
}

// fileConfig is .github/recess.yml. Unknown keys are errors.
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
	// Words people see: overrides by key (resume.TextKeys), and whether the
	// status comment shows the agent's summary.
	Texts       map[string]string `yaml:"texts"`
	HideSummary *bool             `yaml:"hide-summary"`
}

// defaultConfigPath is where repository policy lives in the workspace.
const defaultConfigPath = ".github/recess.yml"

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

// inputNames are every input recess reads, in action.yml's order.
var inputNames = []string{InputGitHubToken, inCommand, inWorkflow, inRef, inStateStore, inStateBranch,
	inVerdict, inVerdictFile, inCorrelationID, inDiscussion, inCategories, inLabels, inWakeOn,
	inMentionHandles, inHideSummary, inResumeContext, inDryRun, inMaxDispatchesPerHour, inMaxAttempts, inMaxOperations,
	inMaxRecess, inEscalateTo, inIgnoreAuthors, inConfig, inSweepOnlyWhileWaiting, inSweepWorkflow}

// inputField is how a refusal names an input.
func inputField(name string) string { return "input " + name }

// The state stores (input state-store).
const (
	storeComment = "comment"
	storeBranch  = "branch"
)

// checkStore refuses a state store recess does not have; field names where
// the value came from.
func checkStore(field, store string) error {
	switch store {
	case storeComment, storeBranch:
		return nil
	}
	return &wait.FieldError{Field: field, Reason: fmt.Sprintf("%q is not %s or %s", store, storeComment, storeBranch)}
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
		Engine:        resume.Defaults(),
	}
}

// loadSettings reads inputs through input (INPUT_<NAME>) and the policy
// file. Every refusal names the input or the file key.
func loadSettings(input func(string) string, workspace string) (*settings, error) {
	s := newSettings()
	s.Token = input(InputGitHubToken)
	s.Command = strings.ToLower(orDefault(input(inCommand), s.Command))
	s.Workflow = orDefault(input(inWorkflow), s.Workflow)
	s.Ref = input(inRef)
	s.StateStore = strings.ToLower(orDefault(input(inStateStore), s.StateStore))
	s.StateBranch = orDefault(input(inStateBranch), s.StateBranch)
	s.Verdict = input(inVerdict)
	s.VerdictFile = input(inVerdictFile)
	s.CorrelationID = input(inCorrelationID)
	s.ResumeContext = input(inResumeContext)
	if !slices.Contains(actionCommands, s.Command) {
		return nil, &wait.FieldError{Field: inputField(inCommand), Reason: fmt.Sprintf("%q is not one of %s", s.Command, strings.Join(actionCommands, ", "))}
	}
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
	if v := input(inDryRun); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, &wait.FieldError{Field: inputField(inDryRun), Reason: fmt.Sprintf("%q is not true or false", v)}
		}
		s.DryRun = b
	}

	if err := s.sweepSwitch(input); err != nil {
		return nil, err
	}

	path, explicit := input(inConfig), true
	if path == "" {
		path, explicit = defaultConfigPath, false
	}
	if !filepath.IsAbs(path) && workspace != "" {
		path = filepath.Join(workspace, path)
	}
	if err := s.applyFile(path, explicit); err != nil {
		return nil, err
	}

	for _, n := range []struct {
		name string
		dst  *int
	}{
		{inMaxDispatchesPerHour, &s.Engine.MaxDispatchesPerHour},
		{inMaxAttempts, &s.Engine.MaxAttempts},
		{inMaxOperations, &s.Engine.MaxOperations},
	} {
		if v := input(n.name); v != "" {
			i, err := positive(v)
			if err != nil {
				return nil, &wait.FieldError{Field: inputField(n.name), Reason: err.Error()}
			}
			*n.dst = i
		}
	}
	if v := input(inMaxRecess); v != "" {
		d, err := wait.ParseDuration(v)
		if err != nil {
			return nil, &wait.FieldError{Field: inputField(inMaxRecess), Reason: err.Error()}
		}
		s.Engine.MaxRecess = d
	}
	if v := input(inEscalateTo); v != "" {
		s.Engine.EscalateTo = list(v)
	}
	if v := input(inIgnoreAuthors); v != "" {
		s.Engine.IgnoreAuthors = list(v)
	}
	if v := input(inCategories); v != "" {
		s.Engine.Categories = names(v)
	}
	if v := input(inLabels); v != "" {
		s.Engine.Labels = names(v)
	}
	if v := input(inMentionHandles); v != "" {
		s.Engine.MentionHandles = list(v)
	}
	if v := input(inWakeOn); v != "" {
		w, err := resume.ParseWakeOn(v)
		if err != nil {
			return nil, &wait.FieldError{Field: inputField(inWakeOn), Reason: err.(*wait.FieldError).Reason}
		}
		s.Engine.WakeOn = w
	}
	if v := input(inHideSummary); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, &wait.FieldError{Field: inputField(inHideSummary), Reason: fmt.Sprintf("%q is not true or false", v)}
		}
		s.Engine.HideSummary = b
	}
	if s.Engine.WakeOn == resume.WakeMention && len(s.Engine.MentionHandles) == 0 {
		return nil, &wait.FieldError{Field: inputField(inMentionHandles), Reason: "wake-on mention needs at least one handle (for example @lead)"}
	}
	return s, nil
}

// defaultSweepWorkflow is the sweep's own workflow file when the sweep runs
// only while something waits (.github/examples/recess-sweep.yml).
const defaultSweepWorkflow = "recess-sweep.yml"

// sweepSwitch reads inputs sweep-only-while-waiting and sweep-workflow. The
// sweep workflow must be a file name of its own: never the agent workflow,
// which recess would otherwise switch off with the sweep.
func (s *settings) sweepSwitch(input func(string) string) error {
	if v := input(inSweepOnlyWhileWaiting); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return &wait.FieldError{Field: inputField(inSweepOnlyWhileWaiting), Reason: fmt.Sprintf("%q is not true or false", v)}
		}
		s.SweepOnlyWhileWaiting = b
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

// names splits a comma- or newline-separated list of names that may hold
// spaces (category names such as "Show and tell").
func names(v string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// applyFile reads repository policy. A missing default file is fine; a
// missing file the config input names is an error.
func (s *settings) applyFile(path string, explicit bool) error {
	b, err := os.ReadFile(path)
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
	for i, k := range fc.AllowedKinds {
		if err := wait.CheckKind(k); err != nil {
			return &wait.FieldError{Field: fmt.Sprintf("%s: allowed-kinds[%d]", field, i), Reason: err.Error()}
		}
	}
	s.Engine.AllowedKinds = fc.AllowedKinds
	if fc.MaxRecess != "" {
		d, err := wait.ParseDuration(fc.MaxRecess)
		if err != nil {
			return &wait.FieldError{Field: field + ": max-recess", Reason: err.Error()}
		}
		s.Engine.MaxRecess = d
	}
	for _, n := range []struct {
		name string
		src  *int
		dst  *int
	}{
		{"max-dispatches-per-hour", fc.MaxDispatchesPerHour, &s.Engine.MaxDispatchesPerHour},
		{"max-attempts", fc.MaxAttempts, &s.Engine.MaxAttempts},
		{"max-operations", fc.MaxOperations, &s.Engine.MaxOperations},
	} {
		if n.src == nil {
			continue
		}
		if *n.src < 1 {
			return &wait.FieldError{Field: field + ": " + n.name, Reason: fmt.Sprintf("%d is not a positive number", *n.src)}
		}
		*n.dst = *n.src
	}
	if fc.EscalateTo != nil {
		s.Engine.EscalateTo = fc.EscalateTo
	}
	if fc.IgnoreAuthors != nil {
		s.Engine.IgnoreAuthors = fc.IgnoreAuthors
	}
	if fc.Categories != nil {
		s.Engine.Categories = fc.Categories
	}
	if fc.Labels != nil {
		s.Engine.Labels = fc.Labels
	}
	if fc.MentionHandles != nil {
		s.Engine.MentionHandles = fc.MentionHandles
	}
	if fc.WakeOn != "" {
		w, err := resume.ParseWakeOn(fc.WakeOn)
		if err != nil {
			return &wait.FieldError{Field: field + ": wake-on", Reason: err.(*wait.FieldError).Reason}
		}
		s.Engine.WakeOn = w
	}
	if fc.HideSummary != nil {
		s.Engine.HideSummary = *fc.HideSummary
	}
	if err := resume.CheckTexts(fc.Texts); err != nil {
		fe := err.(*wait.FieldError)
		return &wait.FieldError{Field: field + ": " + fe.Field, Reason: fe.Reason}
	}
	s.Engine.Texts = fc.Texts
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
	var out []string
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
