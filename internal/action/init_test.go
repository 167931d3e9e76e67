package action

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/internal/workflows"
)

func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(t.Context(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	entries, err := os.ReadDir(filepath.Join(dir, workflows.Dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, workflows.Dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	return files
}

// recess init with no choices writes the README's quick start, byte for byte.
func TestInit_defaults_write_the_quick_start(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, nil, "init", "--dir", dir); code != exitOK {
		t.Fatalf("recess init: exit %d\n%s", code, stderr)
	}
	want := map[string]string{}
	for _, name := range []string{"recess.yml", "agent.yml"} {
		data, err := os.ReadFile(filepath.Join("../../testdata/quickstart", name))
		if err != nil {
			t.Fatal(err)
		}
		want[name] = string(data)
	}
	if diff := cmp.Diff(want, readDir(t, dir)); diff != "" {
		t.Errorf("recess init differs from testdata/quickstart (-quick start +init):\n%s", diff)
	}
}

// Every combination of choices writes a setup that keeps every rule.
func TestInit_choices_keep_the_rules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		files []string
		has   map[string]string // file -> a line the choice must put there
	}{
		{name: "defaults", files: []string{"agent.yml", "recess.yml"}},
		{name: "branch_store", args: []string{"--state-store", "branch"}, files: []string{"agent.yml", "recess.yml"},
			has: map[string]string{"recess.yml": "    with: {state-store: branch}", "agent.yml": "    permissions: {discussions: write, contents: write}"}},
		{name: "own_agent_workflow_name", args: []string{"--workflow", "answer.yml"}, files: []string{"answer.yml", "recess.yml"},
			has: map[string]string{"recess.yml": "    with: {workflow: answer.yml}", "answer.yml": "    with: {workflow: answer.yml}"}},
		{name: "scope_and_wake_on", args: []string{"--categories", "RFCs, Ideas", "--labels", "ask-bot", "--wake-on", "mention", "--mention-handles", "@lead"},
			files: []string{"agent.yml", "recess.yml"},
			has:   map[string]string{"recess.yml": `    with: {categories: "RFCs, Ideas", labels: ask-bot, wake-on: mention, mention-handles: "@lead"}`}},
		{name: "wake_on_read_as_the_action_reads_it", args: []string{"--wake-on", " Command"}, files: []string{"agent.yml", "recess.yml"},
			has: map[string]string{"recess.yml": `    with: {wake-on: " Command"}`}},
		{name: "schedule", args: []string{"--schedule", "7-59/30 7-18 * * 1-5"}, files: []string{"agent.yml", "recess.yml"},
			has: map[string]string{"recess.yml": `  schedule: [{cron: "7-59/30 7-18 * * 1-5"}] # the sweep, off the top of the hour`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if code, _, stderr := runCLI(t, nil, append([]string{"init", "--dir", dir}, tt.args...)...); code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			files := readDir(t, dir)
			var names []string
			for n := range files {
				names = append(names, n)
			}
			if diff := cmp.Diff(tt.files, names, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			for name, line := range tt.has {
				if !containsLine(files[name], line) {
					t.Errorf("%s has no line %q:\n%s", name, line, files[name])
				}
			}
			findings, err := workflows.CheckRepo(os.DirFS(dir))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range findings {
				t.Errorf("%s", f)
			}
		})
	}
}

func containsLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// A refused init writes nothing: a file in the way (without --force) or a
// choice the files cannot keep.
func TestInit_refuses_without_writing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing map[string]string
		args     []string
	}{
		{name: "agent_workflow_exists", existing: map[string]string{"agent.yml": "mine\n"}},
		{name: "front_door_exists", existing: map[string]string{"recess.yml": "mine\n"}},
		{name: "top_of_the_hour", args: []string{"--schedule", "0 * * * *"}},
		{name: "not_a_cron", args: []string{"--schedule", "hourly"}},
		{name: "unknown_store", args: []string{"--state-store", "redis"}},
		{name: "workflow_not_a_file_name", args: []string{"--workflow", "../agent.yml"}},
		{name: "workflow_is_the_front_door", args: []string{"--workflow", "recess.yml"}},
		{name: "mention_without_handles", args: []string{"--wake-on", "mention"}},
		{name: "unknown_wake_on", args: []string{"--wake-on", "always"}},
		{name: "stray_argument", args: []string{"now"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, workflows.Dir), 0o755); err != nil {
				t.Fatal(err)
			}
			for name, text := range tt.existing {
				if err := os.WriteFile(filepath.Join(dir, workflows.Dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := runCLI(t, nil, append([]string{"init", "--dir", dir}, tt.args...)...)
			if code != ExitRefused || stderr == "" {
				t.Errorf("exit %d, stderr %q; want %d and a reason", code, stderr, ExitRefused)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			want := tt.existing
			if want == nil {
				want = map[string]string{}
			}
			if diff := cmp.Diff(want, readDir(t, dir)); diff != "" {
				t.Errorf("the repository changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestInit_force_overwrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, nil, "init", "--dir", dir); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	first := readDir(t, dir)
	if err := os.WriteFile(filepath.Join(dir, workflows.Dir, "agent.yml"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, nil, "init", "--dir", dir, "--force"); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if diff := cmp.Diff(first, readDir(t, dir)); diff != "" {
		t.Errorf("--force did not restore the files (-first +forced):\n%s", diff)
	}
}
