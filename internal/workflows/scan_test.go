package workflows

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recess mcp's flags are found in every shape a lead's MCP configuration
// takes: a script, inline JSON, jq, YAML and TOML a step writes.
func TestMCPFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       [][]string
	}{
		{name: "shell", text: `recess mcp --verdict-file "$F" --correlation-id "$C"` + "\nclaude -p x --model y",
			want: [][]string{{"verdict-file", "correlation-id"}}},
		{name: "shell_continued_lines", text: "\"$RECESS_BIN\" mcp \\\n  --verdict-file x \\\n  --discussion=12 <&0\n--after the line",
			want: [][]string{{"verdict-file", "discussion"}}},
		{name: "inline_json_with_expressions", text: `--allowedTools mcp__recess --mcp-config '{"mcpServers":{"recess":{"command":"recess","args":["mcp","--verdict-file","${{ runner.temp }}/v.json","--repo","${{ github.repository }}"]}}}'`,
			want: [][]string{{"verdict-file", "repo"}}},
		{name: "jq", text: "jq -n --arg bin \"$B\" \\\n  '{mcpServers: {recess: {type: \"stdio\", command: $bin,\n    args: ([\"mcp\", \"--verdict-file\", $verdict,\n            \"--discusion\", $d]\n           + (if $p == \"\" then [] else [\"--config\", $p] end))}}}'",
			want: [][]string{{"verdict-file", "discusion"}}},
		{name: "yaml_list", text: "servers:\n  recess:\n    command: /opt/recess\n    args:\n      - mcp\n      - --verdict-file\n      - /tmp/v.json\n      - --tokn\n      - \"x\"\nother: --not-a-flag\n",
			want: [][]string{{"verdict-file", "tokn"}}},
		{name: "toml", text: "[mcp_servers.recess]\ncommand = \"recess\"\nargs = [\"mcp\", \"--verdict-file\", \"/tmp/v\", \"-repo\", \"o/r\"]\n",
			want: [][]string{{"verdict-file", "repo"}}},
		{name: "another_server", text: `{"mcpServers":{"github":{"command":"docker","args":["run","mcp","--rm"]}}}`},
		{name: "a_comment", text: "# recess mcp --old-flag\necho done"},
		{name: "names_that_hold_mcp", text: "--mcp-config recess/mcp.json --allowedTools mcp__recess__reply"},
		{name: "prose", text: "Read the discussion with the recess mcp tools, then answer.",
			want: [][]string{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, mcpFlags(tt.text)); diff != "" {
				t.Errorf("mcpFlags(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// A script runs an agent CLI when one stands in a command's place, by name
// or package, after assignments and wrappers.
func TestRunsAgentCLI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script string
		want   bool
	}{
		{`claude -p "$PROMPT"`, true},
		{`npx -y @anthropic-ai/claude-code@latest -p x`, true},
		{`GEMINI_API_KEY="$K" gemini -p x`, true},
		{`GITHUB_TOKEN="" claude -p x`, true},
		{`PROMPT='a b' codex exec "$PROMPT"`, true},
		{`timeout 10m codex exec "$P"`, true},
		{"set -e\nif claude -p x; then echo ok; fi", true},
		{`cat prompt.md | /usr/local/bin/claude -p`, true},
		{`out=$(opencode run x)`, true},
		{`uvx --from aider-chat aider --yes`, true},
		{`echo "ask claude"`, false},
		{`npm install -g @anthropic-ai/claude-code`, false},
		{`go run ./cmd/recess-lab mcp-script`, false},
		{"# claude -p x\nmake", false},
		{`./scripts/claude-review.sh`, false},
	}
	for _, tt := range tests {
		if got := runsAgentCLI(tt.script); got != tt.want {
			t.Errorf("runsAgentCLI(%q) = %v, want %v", tt.script, got, tt.want)
		}
	}
}
