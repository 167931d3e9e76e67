package workflows

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// workflow is the part of a workflow file the rules read.
type workflow struct {
	Permissions yaml.Node      `yaml:"permissions"`
	Concurrency yaml.Node      `yaml:"concurrency"`
	Jobs        map[string]job `yaml:"jobs"`
}

type job struct {
	Name        string    `yaml:"name"`
	Uses        string    `yaml:"uses"`
	Permissions yaml.Node `yaml:"permissions"`
	Concurrency yaml.Node `yaml:"concurrency"`
	Steps       []step    `yaml:"steps"`
}

type step struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

// agentActions are actions that run a model. A job using one is a lead.
var agentActions = []string{
	"anthropics/claude-code-action",
	"anthropics/claude-code-base-action",
	"openai/codex-action",
	"google-github-actions/run-gemini-cli",
	"actions/ai-inference",
}

// readOnlyCommands are recess commands that write no record.
var readOnlyCommands = map[string]bool{"install": true, "status": true, "plan": true}

// recessAction matches a step that runs the recess action: this repository
// (uses: ./) or OWNER/recess@REF.
var recessAction = regexp.MustCompile(`^(\./?|[A-Za-z0-9_.-]+/recess@.+)$`)

// recessGroup is the one-writer group: recess- and an expression that names
// the discussion (its number, the dispatch input, a visit's matrix entry).
var recessGroup = regexp.MustCompile(`^recess-\$\{\{[^}]*discussion[^}]*\}\}$`)

// Check returns every rule the workflow file breaks, one sentence each
// naming the job. An unreadable file is an error.
func Check(data []byte) ([]string, error) {
	w, err := parse(data)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(w.Jobs))
	for id := range w.Jobs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var problems []string
	for _, id := range ids {
		j := w.Jobs[id]
		lead, writer := classify(id, j)
		if lead && writer {
			problems = append(problems, fmt.Sprintf("job %s runs the agent and a recess command that writes: split them (claim, lead, verdict)", id))
		}
		if lead {
			problems = append(problems, leadPermissions(id, j, *w)...)
		}
		if writer {
			problems = append(problems, writerGroup(id, j, *w)...)
		}
		for i, s := range j.Steps {
			if strings.Contains(s.Run, "${{") {
				problems = append(problems, fmt.Sprintf("job %s step %d (%s): ${{ }} inside run: pass the value through env", id, i+1, stepName(s)))
			}
		}
	}
	return problems, nil
}

func parse(data []byte) (*workflow, error) {
	var w workflow
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return nil, err
	}
	if len(w.Jobs) == 0 {
		return nil, fmt.Errorf("no jobs")
	}
	return &w, nil
}

// classify says whether a job runs the agent (a lead) and whether it runs
// a recess command that writes a record.
func classify(id string, j job) (lead, writer bool) {
	if id == "lead" {
		lead = true
	}
	for _, s := range j.Steps {
		if strings.Contains(s.Run, "recess mcp") {
			lead = true
		}
		for _, a := range agentActions {
			if strings.HasPrefix(s.Uses, a+"@") {
				lead = true
			}
		}
		if recessAction.MatchString(s.Uses) {
			cmd := strings.ToLower(strings.TrimSpace(s.With["command"]))
			if cmd == "" {
				cmd = "auto"
			}
			if !readOnlyCommands[cmd] {
				writer = true
			}
		}
	}
	return lead, writer
}

// leadPermissions: the job's token may write nothing. Permissions not set
// at all leave the repository's default, which may be write-all.
func leadPermissions(id string, j job, w workflow) []string {
	p := j.Permissions
	where := "job"
	if p.Kind == 0 {
		p, where = w.Permissions, "workflow"
	}
	switch p.Kind {
	case 0:
		return []string{fmt.Sprintf("lead job %s sets no permissions (neither the job nor the workflow): the default token may write", id)}
	case yaml.ScalarNode:
		if p.Value == "read-all" {
			return nil
		}
		return []string{fmt.Sprintf("lead job %s: %s permissions %q may write", id, where, p.Value)}
	case yaml.MappingNode:
		var out []string
		for i := 0; i+1 < len(p.Content); i += 2 {
			k, v := p.Content[i].Value, p.Content[i+1].Value
			if v != "read" && v != "none" {
				out = append(out, fmt.Sprintf("lead job %s: %s permission %s: %s (a lead may only read)", id, where, k, v))
			}
		}
		return out
	}
	return []string{fmt.Sprintf("lead job %s: permissions are neither a scope map nor read-all", id)}
}

// writerGroup: the job runs in recess-<number> with queue: max and is
// never cancelled in progress.
func writerGroup(id string, j job, w workflow) []string {
	c := j.Concurrency
	if c.Kind == 0 {
		c = w.Concurrency
	}
	if c.Kind != yaml.MappingNode {
		return []string{fmt.Sprintf("job %s writes a discussion's record outside its concurrency group: want concurrency group recess-<number>, queue: max", id)}
	}
	fields := map[string]string{}
	for i := 0; i+1 < len(c.Content); i += 2 {
		fields[c.Content[i].Value] = c.Content[i+1].Value
	}
	var out []string
	if g := strings.TrimSpace(fields["group"]); !recessGroup.MatchString(g) {
		out = append(out, fmt.Sprintf("job %s writes a discussion's record in concurrency group %q: want recess-${{ <the discussion's number> }}", id, g))
	}
	if fields["queue"] != "max" {
		out = append(out, fmt.Sprintf("job %s: concurrency queue is %q, want max (GitHub's default keeps one pending run and cancels the rest)", id, fields["queue"]))
	}
	if v := fields["cancel-in-progress"]; v != "" && v != "false" {
		out = append(out, fmt.Sprintf("job %s: cancel-in-progress %s would cut a write short", id, v))
	}
	return out
}

func stepName(s step) string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Uses != "":
		return s.Uses
	}
	return "run"
}
