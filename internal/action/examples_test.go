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

	"github.com/recess-action/recess/internal/workflows"
)

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

// Each example under .github/examples, put in place of its quick start
// file (an agent example as agent.yml), makes a setup recess check passes:
// the examples use the quick start's reusable pieces.
func TestExamples_pass_check_in_the_quick_start(t *testing.T) {
	t.Parallel()
	examples, err := filepath.Glob("../../.github/examples/*.yml")
	if err != nil || len(examples) < 3 {
		t.Fatalf("glob: %v, %d examples", err, len(examples))
	}
	for _, p := range examples {
		name := filepath.Base(p)
		t.Run(strings.TrimSuffix(name, ".yml"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files := quickStartFiles(t)
			as := name
			if strings.HasPrefix(name, "agent-") {
				as = "agent.yml"
			}
			if _, ok := files[as]; !ok {
				t.Fatalf("%s stands for no file of the quick start (%s)", name, as)
			}
			files[as] = string(data)
			dir := writeSetup(t, files)
			findings, err := workflows.CheckRepo(os.DirFS(dir), CheckKnown(dir))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range findings {
				t.Errorf("%s", f)
			}
		})
	}
}

// The sweep example is the quick start's sweep, with its reasons in
// comments: the same workflow, key for key.
func TestExamples_sweep_is_the_quick_starts(t *testing.T) {
	t.Parallel()
	example, err := os.ReadFile("../../.github/examples/recess-sweep.yml")
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := yaml.Unmarshal([]byte(quickStartFiles(t)["recess-sweep.yml"]), &want); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(example, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf(".github/examples/recess-sweep.yml differs from testdata/quickstart/recess-sweep.yml (-quick start +example):\n%s", diff)
	}
}
