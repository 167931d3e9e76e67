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

	"github.com/recess-action/recess/resume"
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
}

// defaultConfigPath is where repository policy lives in the workspace.
const defaultConfigPath = ".github/recess.yml"

var knownKinds = []string{resume.KindMissingInput, resume.KindElapsed, resume.KindEscalationNeeded, resume.KindAny, resume.KindAll}

// loadSettings reads inputs through input (INPUT_<NAME>) and the policy
// file. Every refusal names the input or the file key.
func loadSettings(input func(string) string, workspace string) (*settings, error) {
	s := &settings{
		Token:         input("github-token"),
		Command:       strings.ToLower(orDefault(input("command"), "auto")),
		Workflow:      orDefault(input("workflow"), "agent.yml"),
		Ref:           input("ref"),
		StateStore:    strings.ToLower(orDefault(input("state-store"), "comment")),
		StateBranch:   orDefault(input("state-branch"), "recess-state"),
		Verdict:       input("verdict"),
		VerdictFile:   input("verdict-file"),
		CorrelationID: input("correlation-id"),
		ResumeContext: input("resume-context"),
		Engine:        resume.Defaults(),
	}
	switch s.Command {
	case "auto", "intake", "inbound", "verdict", "sweep", "status", "claim":
	default:
		return nil, &inputError{Field: "input command", Reason: fmt.Sprintf("%q is not one of auto, intake, inbound, verdict, sweep, status, claim", s.Command)}
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
		d, err := resume.ParseDuration(v)
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
	return s, nil
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
		d, err := resume.ParseDuration(fc.MaxRecess)
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
