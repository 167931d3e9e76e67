package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

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
	Engine        resume.Config
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

var knownKinds = []string{wait.KindMissingInput, wait.KindElapsed, wait.KindEscalationNeeded, wait.KindAny, wait.KindAll}

// loadSettings reads inputs through input (INPUT_<NAME>) and the policy
// file. Every refusal names the input or the file key.
func loadSettings(input func(string) string, workspace string) (*settings, error) {
	s := &settings{
		Token:         input("github-token"),
		Command:       strings.ToLower(orDefault(input("command"), "auto")),
		Workflow:      orDefault(input("workflow"), gh.DefaultWorkflow),
		Ref:           input("ref"),
		StateStore:    strings.ToLower(orDefault(input("state-store"), "comment")),
		StateBranch:   orDefault(input("state-branch"), gh.DefaultStateBranch),
		Verdict:       input("verdict"),
		VerdictFile:   input("verdict-file"),
		CorrelationID: input("correlation-id"),
		ResumeContext: input("resume-context"),
		Engine:        resume.Defaults(),
	}
	switch s.Command {
	case "auto", "intake", "inbound", "verdict", "sweep", "plan", "visit", "status", "claim":
	default:
		return nil, &inputError{Field: "input command", Reason: fmt.Sprintf("%q is not one of auto, intake, inbound, verdict, sweep, plan, visit, status, claim", s.Command)}
	}
	if v := input("discussion"); v != "" {
		n, err := positive(v)
		if err != nil {
			return nil, &inputError{Field: "input discussion", Reason: err.Error()}
		}
		s.Discussion = n
	}
	switch s.StateStore {
	case "comment", "branch":
	default:
		return nil, &inputError{Field: "input state-store", Reason: fmt.Sprintf("%q is not comment or branch", s.StateStore)}
	}
	if v := input("dry-run"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, &inputError{Field: "input dry-run", Reason: fmt.Sprintf("%q is not true or false", v)}
		}
		s.DryRun = b
	}

	path, explicit := input("config"), true
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
		{"max-dispatches-per-hour", &s.Engine.MaxDispatchesPerHour},
		{"max-attempts", &s.Engine.MaxAttempts},
		{"max-operations", &s.Engine.MaxOperations},
	} {
		if v := input(n.name); v != "" {
			i, err := positive(v)
			if err != nil {
				return nil, &inputError{Field: "input " + n.name, Reason: err.Error()}
			}
			*n.dst = i
		}
	}
	if v := input("max-recess"); v != "" {
		d, err := wait.ParseDuration(v)
		if err != nil {
			return nil, &inputError{Field: "input max-recess", Reason: err.Error()}
		}
		s.Engine.MaxRecess = d
	}
	if v := input("escalate-to"); v != "" {
		s.Engine.EscalateTo = list(v)
	}
	if v := input("ignore-authors"); v != "" {
		s.Engine.IgnoreAuthors = list(v)
	}
	if v := input("categories"); v != "" {
		s.Engine.Categories = names(v)
	}
	if v := input("labels"); v != "" {
		s.Engine.Labels = names(v)
	}
	if v := input("mention-handles"); v != "" {
		s.Engine.MentionHandles = list(v)
	}
	if v := input("wake-on"); v != "" {
		w, err := resume.ParseWakeOn(v)
		if err != nil {
			return nil, &inputError{Field: "input wake-on", Reason: err.(*wait.FieldError).Reason}
		}
		s.Engine.WakeOn = w
	}
	if v := input("hide-summary"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, &inputError{Field: "input hide-summary", Reason: fmt.Sprintf("%q is not true or false", v)}
		}
		s.Engine.HideSummary = b
	}
	if s.Engine.WakeOn == resume.WakeMention && len(s.Engine.MentionHandles) == 0 {
		return nil, &inputError{Field: "input mention-handles", Reason: "wake-on mention needs at least one handle (for example @lead)"}
	}
	return s, nil
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
		return &inputError{Field: field, Reason: err.Error()}
	}
	if len(b) > 64<<10 {
		return &inputError{Field: field, Reason: "larger than 64 KiB"}
	}
	var fc fileConfig
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&fc); err != nil && !errors.Is(err, io.EOF) {
		return &inputError{Field: field, Reason: err.Error()}
	}
	for i, k := range fc.AllowedKinds {
		if !contains(knownKinds, k) {
			return &inputError{Field: fmt.Sprintf("%s: allowed-kinds[%d]", field, i), Reason: fmt.Sprintf("unknown trigger kind %q", k)}
		}
	}
	s.Engine.AllowedKinds = fc.AllowedKinds
	if fc.MaxRecess != "" {
		d, err := wait.ParseDuration(fc.MaxRecess)
		if err != nil {
			return &inputError{Field: field + ": max-recess", Reason: err.Error()}
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
			return &inputError{Field: field + ": " + n.name, Reason: fmt.Sprintf("%d is not a positive number", *n.src)}
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
			return &inputError{Field: field + ": wake-on", Reason: err.(*wait.FieldError).Reason}
		}
		s.Engine.WakeOn = w
	}
	if fc.HideSummary != nil {
		s.Engine.HideSummary = *fc.HideSummary
	}
	if err := resume.CheckTexts(fc.Texts); err != nil {
		fe := err.(*wait.FieldError)
		return &inputError{Field: field + ": " + fe.Field, Reason: fe.Reason}
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
