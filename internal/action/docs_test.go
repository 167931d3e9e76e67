package action

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"

	"github.com/recess-action/recess/internal/workflows"
)

// The pages a user reads: the README and the reference under docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no page under docs/")
	}
	return append([]string{"../../README.md"}, pages...)
}

// fence is one fenced code block of a page.
type fence struct {
	page, info, text string
	line             int // of the opening fence
}

// fences returns a page's fenced code blocks, unindented.
func fences(t *testing.T, page string) []fence {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []fence
	var cur *fence
	var indent, closing string
	for i, l := range strings.Split(string(b), "\n") {
		if cur == nil {
			if rest, ok := strings.CutPrefix(strings.TrimLeft(l, " "), "```"); ok {
				indent = l[:len(l)-len(strings.TrimLeft(l, " "))]
				closing = indent + "```"
				cur = &fence{page: page, info: strings.TrimSpace(rest), line: i + 1}
			}
			continue
		}
		if l == closing {
			out = append(out, *cur)
			cur = nil
			continue
		}
		cur.text += strings.TrimPrefix(l, indent) + "\n"
	}
	if cur != nil {
		t.Fatalf("%s:%d: a code block is not closed", page, cur.line)
	}
	return out
}

// The README is the adoption path, read top-down: at most 400 lines, the
// rest is reference under docs/.
func TestDocs_README_is_at_most_400_lines(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 400 {
		t.Errorf("README.md is %d lines, want at most 400: move reference to docs/", n)
	}
}

// The README's first code block is the demo and the test command, nothing
// else: a reader runs it first, and CI runs the tests through it
// (.ci/docs-commands.sh).
func TestReadme_first_block_is_the_demo_and_the_tests(t *testing.T) {
	t.Parallel()
	got := fences(t, "../../README.md")[0]
	want := fence{page: got.page, line: got.line, info: "sh",
		text: "GOTOOLCHAIN=go1.27.3 go run ./cmd/recess-lab demo\nGOTOOLCHAIN=go1.27.3 go test -race -count=1 ./...\n"}
	if got != want {
		t.Errorf("the README's first block = %+v, want %+v", got, want)
	}
}

// blockNeeds are the words a ```sh block may carry after "sh": what it
// needs that an offline machine with Go does not have. .ci/docs-commands.sh
// runs every sh block that needs nothing, and shows the others.
var blockNeeds = []string{"needs-network", "needs-github", "needs-ctrl-c"}

// Every shell command of the README and the docs is in a ```sh block that
// says what it needs beyond an offline machine with Go, so that
// .ci/docs-commands.sh runs every one that needs nothing; a synopsis is a
// ```text block.
func TestDocs_shell_blocks_say_what_they_need(t *testing.T) {
	t.Parallel()
	for _, page := range docPages(t) {
		for _, f := range fences(t, page) {
			words := strings.Fields(f.info)
			if len(words) == 0 {
				t.Errorf("%s:%d: a code block without a language: say sh, text, yaml or json", f.page, f.line)
				continue
			}
			switch words[0] {
			case "bash", "shell", "console", "shell-session", "zsh":
				t.Errorf("%s:%d: a %s block: write commands in ```sh blocks (or a synopsis in ```text)", f.page, f.line, words[0])
			case "sh":
				for _, w := range words[1:] {
					if !slices.Contains(blockNeeds, w) {
						t.Errorf("%s:%d: ```sh block needs %q, want one of %v", f.page, f.line, w, blockNeeds)
					}
				}
			default:
				if len(words) > 1 {
					t.Errorf("%s:%d: words after %s in %q: only sh blocks say what they need", f.page, f.line, words[0], f.info)
				}
			}
		}
	}
}

// assignment is a VAR=value word in front of a command.
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// buildsRecess reports whether a go command's arguments build recess's own
// module (whose go.mod asks for Go 1.27.3): a package of the checkout, a
// clone named by -C, or the published module.
func buildsRecess(args []string) bool {
	if len(args) == 0 || !slices.Contains([]string{"run", "build", "test", "install", "vet", "list", "generate", "tool", "mod"}, args[0]) {
		return false
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "./") || a == "-C" || strings.Contains(a, "github.com/recess-action/recess") {
			return true
		}
	}
	return false
}

// goWithoutToolchain returns the go commands of a shell text that build
// recess without GOTOOLCHAIN=go1.27.3 in front (a Go older than go.mod's,
// or GOTOOLCHAIN=local, would refuse them).
func goWithoutToolchain(text string) []string {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, " #")
		// A command substitution is a command of its own, and one word of
		// the command around it.
		subst := regexp.MustCompile(`\$\(([^()]*)\)`)
		for subst.MatchString(line) {
			lines = append(lines, subst.FindStringSubmatch(line)[1])
			line = subst.ReplaceAllString(line, "$$SUBST")
		}
		lines = append(lines, line)
	}
	var bad []string
	for _, line := range lines {
		for _, cmd := range regexp.MustCompile(`&&|\|\||[;|]`).Split(line, -1) {
			words := strings.Fields(cmd)
			var env []string
			for len(words) > 0 && assignment.MatchString(words[0]) {
				env, words = append(env, words[0]), words[1:]
			}
			if len(words) > 0 && words[0] == "go" && buildsRecess(words[1:]) && !slices.Contains(env, "GOTOOLCHAIN=go1.27.3") {
				bad = append(bad, strings.TrimSpace(cmd))
			}
		}
	}
	return bad
}

// Every go command in the README and the docs that builds recess says
// GOTOOLCHAIN=go1.27.3, in blocks and in the prose's code spans alike: it
// then works as written where Go is older than go.mod's or set to local.
func TestDocs_go_commands_name_their_toolchain(t *testing.T) {
	t.Parallel()
	span := regexp.MustCompile("`([^`\n]+)`")
	for _, page := range docPages(t) {
		for _, f := range fences(t, page) {
			if strings.HasPrefix(f.info, "sh") {
				for _, cmd := range goWithoutToolchain(f.text) {
					t.Errorf("%s:%d: %q: put GOTOOLCHAIN=go1.27.3 in front", f.page, f.line, cmd)
				}
			}
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		prose := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(b), "")
		for _, m := range span.FindAllStringSubmatch(prose, -1) {
			for _, cmd := range goWithoutToolchain(m[1]) {
				t.Errorf("%s: `%s`: put GOTOOLCHAIN=go1.27.3 in front", page, cmd)
			}
		}
	}
}

// The rule itself: which commands it catches.
func TestDocs_go_without_toolchain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"GOTOOLCHAIN=go1.27.3 go run ./cmd/recess-lab demo", nil},
		{"go run ./cmd/recess-lab demo", []string{"go run ./cmd/recess-lab demo"}},
		{"cd ~/x && go run -C ~/recess ./cmd/recess check \"$PWD\"", []string{"go run -C ~/recess ./cmd/recess check \"$PWD\""}},
		{"GOCACHE=/tmp go test -race \\\n  ./...", []string{"GOCACHE=/tmp go test -race    ./..."}},
		{"go install github.com/recess-action/recess/cmd/recess@v1", []string{"go install github.com/recess-action/recess/cmd/recess@v1"}},
		{"go install github.com/nektos/act@v0.2.89", nil},
		{`export PATH="$(go env GOPATH)/bin:$PATH"`, nil},
		{"GOTOOLCHAIN=go1.27.3 GOCACHE=$(mktemp -d) go build ./cmd/recess", nil},
		{"echo $(go list ./...)", []string{"go list ./..."}},
		{"GOTOOLCHAIN=local go vet ./... # a comment with go run ./x", []string{"GOTOOLCHAIN=local go vet ./..."}},
	} {
		if got := goWithoutToolchain(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("goWithoutToolchain(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a markdown file's headings.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	prose := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(b), "")
	for _, m := range regexp.MustCompile(`(?m)^#{1,6} (.+)$`).FindAllStringSubmatch(prose, -1) {
		out[slug(m[1])] = true
	}
	return out
}

// Every link of the README and the docs to a file of the repository names
// one that exists, and a heading of it that exists.
func TestDocs_links_resolve(t *testing.T) {
	t.Parallel()
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		prose := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(b), "")
		for _, m := range link.FindAllStringSubmatch(prose, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !anchors(t, path)[anchor] {
				t.Errorf("%s: link %s: %s has no heading #%s", page, target, path, anchor)
			}
		}
	}
}

// The CI workflow the README shows for recess check keeps the quick start
// clean: it is no part of recess's setup that check would refuse.
func TestReadme_check_workflow_keeps_the_quick_start_clean(t *testing.T) {
	t.Parallel()
	blocks := readmeBlocks(t, "## Check your setup")
	if len(blocks) != 1 {
		t.Fatalf("the README's Check your setup shows %d yaml blocks, want the one workflow", len(blocks))
	}
	fsys := fstest.MapFS{".github/workflows/recess-check.yml": {Data: []byte(blocks[0])}}
	for name, text := range quickStartFiles(t) {
		fsys[".github/workflows/"+name] = &fstest.MapFile{Data: []byte(text)}
	}
	findings, err := workflows.CheckRepo(fsys, CheckKnown(""))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("the quick start with the README's recess-check.yml: %s", f)
	}
	if !strings.Contains(blocks[0], "recess check") {
		t.Errorf("the README's check workflow does not run recess check:\n%s", blocks[0])
	}
}
