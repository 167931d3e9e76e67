package main

import (
	"strings"
	"testing"
)

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
