package action

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
