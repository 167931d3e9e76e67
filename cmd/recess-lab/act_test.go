package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The copies act runs differ from the shipped files by the queue lines only.
func TestCopyForActDropsOnlyQueue(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"recess.yml", "agent.yml"} {
		src := filepath.Join("../../.github/workflows", name)
		dst := filepath.Join(t.TempDir(), name)
		n, err := copyForAct(src, dst)
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := os.ReadFile(src)
		cp, _ := os.ReadFile(dst)
		var kept []string
		for _, l := range strings.Split(strings.TrimSuffix(string(orig), "\n"), "\n") {
			if strings.TrimSpace(l) != "queue: max" {
				kept = append(kept, l)
			}
		}
		if n == 0 || string(cp) != strings.Join(kept, "\n")+"\n" {
			t.Errorf("copyForAct(%s) left out %d line(s); the copy differs by more than the queue lines", name, n)
		}
		if strings.Contains(string(cp), "\n  queue:") || strings.Contains(string(cp), "      queue:") {
			t.Errorf("copyForAct(%s) kept a queue line", name)
		}
	}
}

func TestActAnnotations(t *testing.T) {
	t.Parallel()
	log := strings.Join([]string{
		"[recess/recess]   | ::warning title=recess::discussion #1 was not found",
		"[agent/lead ] ⭐ Run Main set -euo pipefail",
		`  error) echo "::error::upload-artifact: no file at $SRC"; exit 1 ;;`,
		"[recess/recess]   | ::warning title=recess::discussion #1 was not found",
		"[agent/verdict]   ❗  ::error title=recess refused verdict.trigger::bad",
	}, "\n")
	got := actAnnotations(log)
	want := []string{"::warning title=recess::discussion #1 was not found", "::error title=recess refused verdict.trigger::bad"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("actAnnotations() = %q, want %q", got, want)
	}
}
