package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
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

// The act runner says what an open recess waits for in words, from the
// moment it opened.
func TestWaitWords(t *testing.T) {
	t.Parallel()
	opened := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, trigger, want string
	}{
		{"two_replies_or_a_week", `{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P7D"}]}`,
			"for 2 more replies (0 of 2 so far), or until Sat 28 Nov 10:00 UTC"},
		{"half_a_day", `{"kind":"elapsed","elapsed":"PT12H"}`, "until Sat 21 Nov 22:00 UTC"},
		{"a_signal", `{"kind":"escalation_needed","signal":"approved"}`, "for a maintainer to say `/recess signal approved`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr, err := wait.ParseTrigger([]byte(tc.trigger), wait.TriggerLimits{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, waitWords(&state.RFC{Trigger: tr, OpenedAt: opened})); diff != "" {
				t.Errorf("waitWords (-want +got):\n%s", diff)
			}
		})
	}
}
