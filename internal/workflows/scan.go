package workflows

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// A lead's command lines hide in values of every shape: a shell script, an
// MCP configuration as JSON inside an action's input or written by a step
// (echo, a heredoc, jq), a YAML or TOML file a step writes. The readers
// below take them as words and punctuation, which every one of these
// shapes shares, rather than parsing each.

// expression is a ${{ }} expression inside a value.
var expression = regexp.MustCompile(`\$\{\{.*?\}\}`)

// words splits text into words and the punctuation that gives them their
// place: brackets, a line's end, a shell's command separators. Quotes,
// commas and colons only separate; a backslash before a line's end joins
// the lines; a word starting with # comments out the line's rest.
func words(text string) []string {
	text = expression.ReplaceAllString(text, "EXPR")
	text = strings.ReplaceAll(text, "\\\n", " ")
	var out []string
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			out = append(out, w.String())
			w.Reset()
		}
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '"', '\'':
			// A shell assignment's quoted value stays its word: NAME="a b".
			if end := strings.IndexByte(text[i+1:], c); strings.HasSuffix(w.String(), "=") && end >= 0 {
				w.WriteString(text[i+1 : i+1+end])
				i += end + 1
				continue
			}
			flush()
		case ' ', '\t', '\r', ',', '`':
			flush()
		case ':':
			// A colon ends a key ("args":, args:), not a URL's scheme.
			if i+1 < len(text) && text[i+1] != '/' {
				flush()
			} else {
				w.WriteByte(c)
			}
		case '\n', '[', ']', '{', '}', '(', ')', ';', '|', '&':
			flush()
			out = append(out, string(c))
		case '#':
			if w.Len() > 0 {
				w.WriteByte(c)
				continue
			}
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		default:
			w.WriteByte(c)
		}
	}
	flush()
	return out
}

// flagWord is a command-line flag, -name or --name, with its value after
// = when it has one.
var flagWord = regexp.MustCompile(`^--?([A-Za-z][A-Za-z0-9_-]*)(?:=.*)?$`)

// mcpFlags finds each recess mcp command line in text and returns the
// flags it gives, by name, in order. A command line is the word mcp right
// after recess (or a word naming it: "$RECESS_BIN", a path ending in
// recess) or as the first argument of a server whose entry names recess
// shortly before (an MCP configuration's "recess": {"command": …,
// "args": ["mcp", …]}). Its flags run to the end of its argument list: the
// closing bracket when mcp opens one, else the end of the line.
func mcpFlags(text string) [][]string {
	ws := words(text)
	var out [][]string
	for i, w := range ws {
		if w != "mcp" || !namesRecess(ws[max(0, i-16):i]) {
			continue
		}
		listed := i > 0 && ws[i-1] == "["
		var flags []string
		depth := 0
	args:
		for k := i + 1; k < len(ws); k++ {
			switch w := ws[k]; {
			case w == "[" || w == "{" || w == "(":
				depth++
			case w == "]" || w == "}" || w == ")":
				if depth == 0 {
					break args
				}
				depth--
			case w == "\n":
				// A YAML list goes on with its next item.
				if !listed && (k+1 >= len(ws) || ws[k+1] != "-") {
					break args
				}
			case !listed && (w == ";" || w == "|" || w == "&"):
				break args
			case w == "--":
				break args
			default:
				if m := flagWord.FindStringSubmatch(w); m != nil {
					flags = append(flags, m[1])
				}
			}
		}
		out = append(out, flags)
	}
	return out
}

// namesRecess says whether one of the words before an mcp names recess.
func namesRecess(before []string) bool {
	return slices.ContainsFunc(before, func(w string) bool { return strings.Contains(strings.ToLower(w), "recess") })
}

// agentCLIs are agent command-line programs that run a model; agentPackages
// the npm or PyPI packages that ship them, as npx and uvx run them.
var (
	agentCLIs     = []string{"claude", "gemini", "codex", "aider", "opencode", "goose", "qwen", "cursor-agent", "copilot"}
	agentPackages = []string{"@anthropic-ai/claude-code", "@google/gemini-cli", "@openai/codex", "@qwen-code/qwen-code", "@github/copilot", "opencode-ai", "aider-chat"}
)

// wrappers run the command after them (and their own flags): the command
// that runs is the first word after them that is not a flag.
var wrappers = []string{"sudo", "env", "exec", "time", "nohup", "command", "timeout", "npx", "bunx", "pnpx", "uvx", "pipx", "uv", "npm", "pnpm", "yarn", "dlx", "run"}

// notCommands are words in a command's place that are not one: shell
// keywords, and a duration or count a wrapper takes (timeout 10m).
var notCommands = regexp.MustCompile(`^(?:if|then|else|elif|do|while|until|!|[0-9]+[smhd]?)$`)

// runsAgentCLI says whether a shell script runs an agent CLI: a command
// (the first word of a pipeline's part, after assignments and wrappers
// such as npx) that is one, by name or package.
func runsAgentCLI(script string) bool {
	command := true
	for _, w := range words(script) {
		switch {
		case w == "\n" || w == ";" || w == "|" || w == "&" || w == "(" || w == ")" || w == "{" || w == "}" || w == "$":
			command = true
		case !command:
		case strings.HasPrefix(w, "-") || strings.Contains(w, "=") || slices.Contains(wrappers, w) || notCommands.MatchString(w):
			// still before the command
		default:
			if isAgentCommand(w) {
				return true
			}
			command = false
		}
	}
	return false
}

func isAgentCommand(w string) bool {
	pkg := w
	if at := strings.LastIndex(pkg, "@"); at > 0 {
		pkg = pkg[:at] // @anthropic-ai/claude-code@latest
	}
	return slices.Contains(agentPackages, pkg) || slices.Contains(agentPackages, w) || slices.Contains(agentCLIs, path.Base(w))
}
