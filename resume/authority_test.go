package resume_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
)

// TestCommandAuthority: a slash command counts when the Permissions port
// says its author may write; the port is asked about people only (an app's
// account is not a user, and never taken for the person named like the
// app), once per author per engine, and a port that may not answer holds
// the command with a warning.
func TestCommandAuthority(t *testing.T) {
	t.Parallel()
	type outcome struct {
		OpenRFCs int
		Warnings int
		Asked    map[string]int
	}
	tests := []struct {
		name    string
		setup   func(w *world)
		author  string
		bot     bool
		want    outcome
		twoRuns bool
	}{
		{"writer_cancels", func(w *world) { w.roles["wes"] = "write" }, "wes", false,
			outcome{OpenRFCs: 0, Asked: map[string]int{"wes": 1}}, false},
		{"reader_does_not_cancel", func(w *world) { w.roles["rhea"] = "read" }, "rhea", false,
			outcome{OpenRFCs: 1, Asked: map[string]int{"rhea": 1}}, false},
		{"app_is_not_asked_nor_taken_for_the_person_of_its_name", func(w *world) {
			w.roles["deploy"] = "admin"
		}, "deploy", true, outcome{OpenRFCs: 1, Asked: map[string]int{}}, false},
		{"unreadable_permission_refuses_with_a_warning", func(w *world) {
			w.roles["wes"] = "write"
			w.permErr = fmt.Errorf("403: %w", resume.ErrPermissionUnreadable)
		}, "wes", false, outcome{OpenRFCs: 1, Warnings: 1, Asked: map[string]int{"wes": 1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			e := w.engine(resume.Config{})
			n := w.recessed(t, e, `{"kind":"missing_input","replies":3}`, "Which one?")
			tt.setup(w)
			id := w.say(n, tt.author, "NONE", "", "/recess cancel")
			if tt.bot {
				w.discussions[n].Comments[len(w.discussions[n].Comments)-1].AuthorBot = true
			}
			res := mustRun(t)(e.Inbound(ctx, n))
			got := outcome{OpenRFCs: res.OpenRFCs, Warnings: len(res.Warnings), Asked: w.asked}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("after /recess cancel %s by @%s (-want +got):\n%s\nwarnings: %q", id, tt.author, diff, res.Warnings)
			}
		})
	}
}

// TestCommandAuthorityTransientErrorFailsTheRun: a permission read that
// failed for another reason than the token's rights fails the run before
// anything is written; the next run asks again.
func TestCommandAuthorityTransientErrorFailsTheRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{})
	n := w.recessed(t, e, `{"kind":"missing_input","replies":3}`, "Which one?")
	w.roles["wes"] = "write"
	w.permErr = errors.New("502 bad gateway")
	w.say(n, "wes", "NONE", "", "/recess cancel")
	before := w.record(t, n)
	if _, err := e.Inbound(ctx, n); err == nil {
		t.Fatal("Inbound succeeded although the permission could not be read")
	}
	if diff := cmp.Diff(before, w.record(t, n)); diff != "" {
		t.Errorf("the failed run changed the record (-before +after):\n%s", diff)
	}
	w.permErr = nil
	res := mustRun(t)(w.engine(resume.Config{}).Inbound(ctx, n))
	if res.OpenRFCs != 0 {
		t.Errorf("the next run left %d open recesses, want the cancel applied", res.OpenRFCs)
	}
}
