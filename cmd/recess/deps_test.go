package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The action's binary holds the action and the user's CLI: the fake GitHub
// and the test world are the local lab's (cmd/recess-lab), never linked
// into what runs on a user's runner.
func TestBinaryLinksNoTestDouble(t *testing.T) {
	t.Parallel()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/recess: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/recess-action/recess/internal/action") {
		t.Fatalf("go list -deps ./cmd/recess lists no internal/action (%d packages): the check below would see nothing", len(deps))
	}
	for _, double := range []string{
		"github.com/recess-action/recess/internal/githubfake",
		"github.com/recess-action/recess/internal/recesstest",
		"github.com/recess-action/recess/internal/fakeclock",
		"github.com/recess-action/recess/state/storetest",
	} {
		if slices.Contains(deps, double) {
			t.Errorf("go list -deps ./cmd/recess lists %s", double)
		}
	}
}
