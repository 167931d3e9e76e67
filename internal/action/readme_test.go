package action

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// readmeBlock returns the first fenced yaml block after marker in the
// README, unindented.
func readmeBlock(t *testing.T, marker string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, marker)
	if i < 0 {
		t.Fatalf("README has no %q", marker)
	}
	s = s[i:]
	start := strings.Index(s, "```yaml\n")
	if start < 0 {
		t.Fatalf("no yaml block after %q", marker)
	}
	s = s[start+len("```yaml\n"):]
	end := strings.Index(s, "```")
	var out []string
	for _, l := range strings.Split(s[:end], "\n") {
		out = append(out, strings.TrimPrefix(l, "   "))
	}
	return strings.Join(out, "\n")
}

// The README's front door is the shipped one, with the published action in
// place of the repository's own checkout (uses: ./).
func TestReadme_front_door_is_the_shipped_workflow(t *testing.T) {
	t.Parallel()
	shipped, err := os.ReadFile("../../.github/workflows/recess.yml")
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := yaml.Unmarshal([]byte(strings.ReplaceAll(string(shipped), "uses: ./", "uses: recess-action/recess@v1")), &want); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(readmeBlock(t, "Add the **front door**")), &got); err != nil {
		t.Fatalf("README front door: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README's front door differs from .github/workflows/recess.yml (-shipped +README):\n%s", diff)
	}
}
