package action

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// exampleWorkflows are the shipped agent examples (agent-*.yml: the others
// are not agent workflows) this test holds to the
// rule "the model never runs beside a token that can write".
const exampleWorkflows = "../../.github/examples/agent-*.yml"

type workflowFile struct {
	Permissions yaml.Node              `yaml:"permissions"`
	Jobs        map[string]workflowJob `yaml:"jobs"`
}

type workflowJob struct {
	Permissions yaml.Node `yaml:"permissions"`
	Concurrency struct {
		Group string `yaml:"group"`
	} `yaml:"concurrency"`
	Steps []workflowStep `yaml:"steps"`
}

type workflowStep struct {
	Uses string            `yaml:"uses"`
	With map[string]string `yaml:"with"`
}

// isRecessStep: the recess action itself (local or released).
func isRecessStep(uses string) bool {
	return uses == "./" || regexp.MustCompile(`^[^/]+/recess@`).MatchString(uses)
}

// writes lists the scopes a permissions node grants write to; unset means
// the token's default, which may write, and is reported as "(default)".
func writes(n yaml.Node) []string {
	switch n.Kind {
	case 0:
		return []string{"(default)"}
	case yaml.ScalarNode:
		if n.Value == "read-all" {
			return nil
		}
		return []string{n.Value}
	case yaml.MappingNode:
		var out []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i+1].Value != "read" && n.Content[i+1].Value != "none" {
				out = append(out, n.Content[i].Value+": "+n.Content[i+1].Value)
			}
		}
		return out
	}
	return []string{"(unreadable)"}
}

func TestExampleAgentWorkflows(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(exampleWorkflows)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no example workflows match %s", exampleWorkflows)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var wf workflowFile
			if err := yaml.Unmarshal(b, &wf); err != nil {
				t.Fatal(err)
			}
			leads := 0
			for name, job := range wf.Jobs {
				// command install only puts the binary on PATH: a lead may use it.
				recessJob := slices.ContainsFunc(job.Steps, func(s workflowStep) bool {
					return isRecessStep(s.Uses) && s.With["command"] != "install"
				})
				if recessJob {
					// A job that writes the record runs in the discussion's group.
					if job.Concurrency.Group != "recess-${{ inputs.discussion_number }}" {
						t.Errorf("job %s runs recess outside the discussion's concurrency group (%q)", name, job.Concurrency.Group)
					}
					continue
				}
				leads++
				perms := job.Permissions
				if perms.Kind == 0 {
					perms = wf.Permissions
				}
				if w := writes(perms); len(w) > 0 {
					t.Errorf("job %s runs beside a token that can write: %v", name, w)
				}
			}
			if leads == 0 {
				t.Error("no lead job (a job without the recess action)")
			}
		})
	}
}

// The tools each provider's example allows are the tools recess mcp serves.
func TestExampleAllowsRecessTools(t *testing.T) {
	t.Parallel()
	var served []string
	for _, tool := range inMemoryTools(t) {
		served = append(served, tool.Name)
	}
	slices.Sort(served)
	tests := []struct {
		file  string
		allow func(yml string) []string
	}{
		{"agent-claude.yml", func(yml string) (out []string) {
			for _, m := range regexp.MustCompile(`mcp__recess__([a-z_]+)`).FindAllStringSubmatch(yml, -1) {
				out = append(out, m[1])
			}
			return out
		}},
		{"agent-gemini.yml", func(yml string) (out []string) {
			m := regexp.MustCompile(`includeTools: \[([^\]]*)\]`).FindStringSubmatch(yml)
			if m == nil {
				return nil
			}
			for _, q := range regexp.MustCompile(`"([a-z_]+)"`).FindAllStringSubmatch(m[1], -1) {
				out = append(out, q[1])
			}
			return out
		}},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".yml"), func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("..", "..", ".github", "examples", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			allowed := tt.allow(string(b))
			slices.Sort(allowed)
			allowed = slices.Compact(allowed)
			if diff := cmp.Diff(served, allowed); diff != "" {
				t.Errorf("tools the example allows (-served +allowed):\n%s", diff)
			}
			// Started by flags, with a read token for read_discussion.
			for _, flag := range []string{`"--verdict-file"`, `"--correlation-id"`, `"--discussion"`, `"--token"`, `"--repo"`} {
				if !strings.Contains(string(b), flag) {
					t.Errorf("the example does not start recess mcp with %s", flag)
				}
			}
		})
	}
}
