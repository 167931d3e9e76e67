package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemo_tells_the_whole_story(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := runScenarios(context.Background(), "demo", nil, &out, &errb); code != 0 {
		t.Fatalf("recess-lab demo exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{
		"opens discussion #1",
		"recess dispatches the agent",
		"Waiting for 2 more replies (0 of 2 so far)",
		"recess resumes the agent (fired by missing_input)",
		`"fired_by": "missing_input"`,
		"Nothing is pending here",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestScenarios(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios found: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			if code := runScenarios(context.Background(), "scenario", []string{f}, &out, &errb); code != 0 {
				t.Fatalf("scenario %s: exit %d\n%s\n%s", f, code, out.String(), errb.String())
			}
		})
	}
}
