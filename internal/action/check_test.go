package action

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/workflows"
)

// writeSetup writes files into a temporary repository's .github/workflows.
func writeSetup(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, workflows.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, workflows.Dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// quickStartFiles are the README's quick start's files by name
// (testdata/quickstart).
func quickStartFiles(t *testing.T) map[string]string {
	t.Helper()
	entries, err := os.ReadDir("../../testdata/quickstart")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("../../testdata/quickstart", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	return files
}

// recess check prints each finding with its line and fix (as ::error
// annotations inside GitHub Actions) and exits 1; a clean setup exits 0.
func TestCheck_reports_and_exits(t *testing.T) {
	t.Parallel()
	broken := quickStartFiles(t)
	broken["recess-sweep.yml"] = strings.Replace(broken["recess-sweep.yml"], `"2-59/5 * * * *"`, `"0 * * * *"`, 1)
	tests := []struct {
		name       string
		files      map[string]string
		env        map[string]string
		wantCode   int
		wantStdout []string // lines
	}{
		{name: "quick_start_is_clean", files: quickStartFiles(t), wantCode: exitOK,
			wantStdout: []string{"recess check: DIR/.github/workflows keeps every rule"}},
		{name: "finding_at_a_terminal", files: broken, wantCode: exitFailed,
			wantStdout: []string{
				`DIR/.github/workflows/recess-sweep.yml:4: the schedule "0 * * * *" runs at the top of the hour, when GitHub's scheduler is busiest and drops runs`,
				`	fix: start off the hour, e.g. cron: "2-59/5 * * * *"`,
			}},
		{name: "no_recess_at_all", files: map[string]string{"ci.yml": "on: push\njobs: {test: {runs-on: ubuntu-latest, steps: [{run: make}]}}\n"}, wantCode: exitFailed,
			wantStdout: []string{
				"DIR/.github/workflows:1: no workflow here runs recess: nothing watches discussions or starts an agent run",
				"	fix: run `recess init` (it writes the front door recess.yml and the agent workflow agent.yml), or copy the README's quick start",
			}},
		{name: "finding_in_github_actions", files: broken, env: map[string]string{"GITHUB_ACTIONS": "true"}, wantCode: exitFailed,
			wantStdout: []string{
				`::error file=.github/workflows/recess-sweep.yml,line=4,title=recess check (schedule-top-of-hour)::the schedule "0 * * * *" runs at the top of the hour, when GitHub's scheduler is busiest and drops runs. Fix: start off the hour, e.g. cron: "2-59/5 * * * *"`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeSetup(t, tt.files)
			code, stdout, stderr := runCLI(t, tt.env, "check", dir)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tt.wantCode, stderr)
			}
			got := strings.Split(strings.TrimSuffix(strings.ReplaceAll(stdout, filepath.ToSlash(dir), "DIR"), "\n"), "\n")
			if diff := cmp.Diff(tt.wantStdout, got); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheck_refuses_a_repository_without_workflows(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, nil, "check", t.TempDir())
	if code != ExitRefused || stdout != "" || !strings.Contains(stderr, workflows.Dir) {
		t.Errorf("exit %d, stdout %q, stderr %q; want %d and the directory named on stderr", code, stdout, stderr, ExitRefused)
	}
}

// recess check holds the inputs to what a run accepts with the
// repository's policy file underneath: wake-on mention in the front door
// takes its handles from .github/recess.yml, and a policy file a run would
// refuse is itself a finding.
func TestCheck_reads_the_policy_file(t *testing.T) {
	t.Parallel()
	// This repository's own front door and agent workflow, which run the
	// action step by step.
	files := map[string]string{}
	for _, name := range []string{"recess.yml", "agent.yml"} {
		data, err := os.ReadFile(filepath.Join("../../.github/workflows", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	const event = "      - name: recess\n        uses: ./\n"
	if strings.Count(files["recess.yml"], event) != 1 {
		t.Fatalf("recess.yml has no one step %q", event)
	}
	files["recess.yml"] = strings.Replace(files["recess.yml"], event, event+"        with: {wake-on: mention}\n", 1)
	usesLine := strings.Count(files["recess.yml"][:strings.Index(files["recess.yml"], event)], "\n") + 2 // the step's uses: ./
	tests := []struct {
		name       string
		policy     string
		wantCode   int
		wantStdout []string
	}{
		{name: "handles_in_the_policy_file", policy: "mention-handles: [\"@lead\"]\n", wantCode: exitOK,
			wantStdout: []string{"recess check: DIR/.github/workflows keeps every rule"}},
		{name: "no_handles_anywhere", policy: "max-recess: P30D\n", wantCode: exitFailed,
			wantStdout: []string{
				"DIR/.github/workflows/recess.yml:" + strconv.Itoa(usesLine) + ": job event: recess would refuse every run: input mention-handles: wake-on mention needs at least one handle (for example @lead)",
				"	fix: correct input mention-handles: wake-on mention needs at least one handle (for example @lead)",
			}},
		{name: "policy_file_refused", policy: "mention-handles: [\"@lead\"]\nescalate_to: [maintainers]\n", wantCode: exitFailed,
			wantStdout: []string{
				`DIR/.github/recess.yml:2: recess would refuse every run: escalate_to: line 2: unknown key "escalate_to"; the document has allowed-kinds, categories, escalate-to, hide-summary, ignore-authors, labels, max-attempts, max-dispatches-per-hour, max-operations, max-recess, mention-handles, wake-on`,
				`	fix: correct escalate_to: line 2: unknown key "escalate_to"; the document has allowed-kinds, categories, escalate-to, hide-summary, ignore-authors, labels, max-attempts, max-dispatches-per-hour, max-operations, max-recess, mention-handles, wake-on`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeSetup(t, files)
			if err := os.WriteFile(filepath.Join(dir, ".github", "recess.yml"), []byte(tt.policy), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI(t, nil, "check", dir)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tt.wantCode, stderr)
			}
			got := strings.Split(strings.TrimSuffix(strings.ReplaceAll(stdout, filepath.ToSlash(dir), "DIR"), "\n"), "\n")
			if diff := cmp.Diff(tt.wantStdout, got); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
		})
	}
}
