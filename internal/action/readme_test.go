package action

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/yaml.v3"
)

// docBlock returns the first fenced yaml block after marker in the page
// (README.md or a page under docs/), unindented.
func docBlock(t *testing.T, page, marker string) string {
	t.Helper()
	b, err := os.ReadFile("../../" + page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, marker)
	if i < 0 {
		t.Fatalf("%s has no %q", page, marker)
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

// The step-by-step front door of the docs is the shipped one, with the
// published action in place of the repository's own checkout (uses: ./).
func TestDocs_step_by_step_front_door_is_the_shipped_workflow(t *testing.T) {
	t.Parallel()
	shipped, err := os.ReadFile("../../.github/workflows/recess.yml")
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := yaml.Unmarshal([]byte(strings.ReplaceAll(string(shipped), "uses: ./", "uses: recess-action/recess@v1")), &want); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(docBlock(t, "docs/step-by-step.md", "Add the **front door**")), &got); err != nil {
		t.Fatalf("docs/step-by-step.md front door: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/step-by-step.md's front door differs from .github/workflows/recess.yml (-shipped +docs):\n%s", diff)
	}
}

// readmeBlocks returns the fenced yaml blocks of the README section that
// starts at heading, unindented, in order.
func readmeBlocks(t *testing.T, heading string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README has no heading %q", heading)
	}
	s = s[i+1:]
	for _, next := range []string{"\n## ", "\n### "} { // the next heading (a yaml comment is "# ")
		if end := strings.Index(s[1:], next); end >= 0 {
			s = s[:end+1]
		}
	}
	var blocks []string
	for _, part := range strings.Split(s, "```yaml\n")[1:] {
		end := strings.Index(part, "```")
		if end < 0 {
			t.Fatal("README: a yaml block is not closed")
		}
		blocks = append(blocks, part[:end])
	}
	return blocks
}

// yamlLines counts the lines a user writes: neither blank nor a comment.
func yamlLines(text string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if l := strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n
}

// The README's quick start is testdata/quickstart (which recess init writes,
// which CI lints with a stock actionlint and recess check judges): the front
// door, the sweep and the agent workflow, within 50 lines of YAML.
func TestReadme_quick_start_is_the_testdata_and_short(t *testing.T) {
	t.Parallel()
	files := quickStartFiles(t)
	var want []string
	for _, name := range []string{"recess.yml", "recess-sweep.yml", "agent.yml"} {
		want = append(want, files[name])
	}
	if len(files) != len(want) {
		t.Fatalf("testdata/quickstart holds %d files, the README shows %d", len(files), len(want))
	}
	got := readmeBlocks(t, "## Five-minute setup")
	if len(got) < len(want) {
		t.Fatalf("the quick start shows %d yaml blocks, want the front door, the sweep and the agent workflow", len(got))
	}
	if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
		t.Errorf("README's quick start differs from testdata/quickstart (-testdata +README):\n%s", diff)
	}
	n := 0
	for _, block := range got[:len(want)] {
		n += yamlLines(block)
	}
	if n > 50 {
		t.Errorf("the quick start is %d lines of YAML, want at most 50", n)
	}
}

// The inputs table of docs/inputs.md lists every input of action.yml, and
// no other.
func TestDocs_inputs_table_is_action_yml(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	var want []string
	for name := range action.Inputs {
		want = append(want, name)
	}
	b, err := os.ReadFile("../../docs/inputs.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n| input | default | meaning |\n")
	if i < 0 {
		t.Fatal("docs/inputs.md has no inputs table")
	}
	var got []string
	for _, row := range strings.Split(s[i+1:], "\n")[2:] {
		if !strings.HasPrefix(row, "|") {
			break
		}
		first := strings.Split(row, "|")[1]
		for _, part := range strings.Split(first, "`")[1:] {
			if name := strings.TrimSpace(part); name != "" && name != "/" {
				got = append(got, name)
			}
		}
	}
	sorted := cmpopts.SortSlices(func(a, b string) bool { return a < b })
	if diff := cmp.Diff(want, got, sorted); diff != "" {
		t.Errorf("docs/inputs.md inputs table (-action.yml +docs):\n%s", diff)
	}
}

// The quick start's lead starts `recess mcp` with the arguments of its
// --mcp-config and nothing else: Claude Code, like many MCP hosts, may give
// the server a cleaned environment. Those arguments alone must start the
// server (here it then ends without a verdict, exit 3), not refuse a flag
// (exit 2).
func TestQuickStart_lead_starts_recess_mcp_by_flags_alone(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../testdata/quickstart/agent.yml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`--mcp-config '([^']*)'`).FindSubmatch(data)
	if m == nil {
		t.Fatal("testdata/quickstart/agent.yml: no --mcp-config '...' in the lead's claude_args")
	}
	// The workflow's expressions, as GitHub would fill them in.
	// The install step wrote the run's resume_context (empty: a first run).
	temp := t.TempDir()
	if err := os.WriteFile(filepath.Join(temp, "recess-resume-context.json"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	filled := strings.NewReplacer(
		"${{ runner.temp }}", temp,
		"${{ inputs.correlation_id }}", "c-0123456789abcdef0123",
		"${{ inputs.discussion_number }}", "12",
		"${{ github.token }}", "ghs_read",
		"${{ github.repository }}", "octo/rfcs",
	).Replace(string(m[1]))
	if strings.Contains(filled, "${{") {
		t.Fatalf("an expression the test does not fill in: %s", filled)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(filled), &cfg); err != nil {
		t.Fatalf("--mcp-config is not JSON: %v\n%s", err, filled)
	}
	srv, ok := cfg.MCPServers["recess"]
	if !ok || srv.Command != "recess" || len(srv.Args) == 0 || srv.Args[0] != "mcp" {
		t.Fatalf("--mcp-config's recess server = %+v, want command recess with args mcp ...", cfg.MCPServers)
	}
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), srv.Args, func(string) string { return "" }, strings.NewReader(""), &stdout, &stderr)
	if code != exitNoVerdict {
		t.Fatalf("recess %s with an empty environment: exit %d, want %d (started, no verdict); stderr: %s", strings.Join(srv.Args, " "), code, exitNoVerdict, stderr.String())
	}
}
