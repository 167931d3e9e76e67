package action

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/resume/wait"
)

// The sweep split through the action: command plan outputs the due
// discussions as a JSON list and writes nothing; command visit with input
// discussion resumes one of them.
func TestAction_plan_then_visit(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"comment", "branch"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, store)
			var due []int
			for range 2 {
				n, _ := r.open("alice")
				ru := r.runs()[len(r.runs())-1]
				r.ok(r.agent(ru, "claim", nil), "claim")
				doc, _ := json.Marshal(map[string]any{"verdict": "recessed", "correlation_id": ru.Inputs["correlation_id"],
					"discussion_number": n, "trigger": map[string]any{"kind": "elapsed", "elapsed": "PT1H"}})
				r.ok(r.agent(ru, "verdict", doc), "verdict")
				due = append(due, n)
			}
			r.clock.Step(2 * time.Hour)
			schedule := []byte(`{"schedule":"2-59/5 * * * *"}`)
			plan := r.ok(r.action("schedule", schedule, map[string]string{"INPUT_COMMAND": "plan"}), "plan")
			var got []int
			if err := json.Unmarshal([]byte(plan.outputs["discussions"]), &got); err != nil {
				t.Fatalf("discussions output %q: %v", plan.outputs["discussions"], err)
			}
			if len(got) != 2 || got[0] != due[0] || got[1] != due[1] {
				t.Fatalf("plan's discussions = %v, want %v", got, due)
			}
			runs := len(r.runs())
			if plan.outputs["fired"] != "false" {
				t.Errorf("plan fired = %q, want false: it only reads", plan.outputs["fired"])
			}
			visit := r.ok(r.action("schedule", schedule, map[string]string{"INPUT_COMMAND": "visit", "INPUT_DISCUSSION": strconv.Itoa(got[0])}), "visit")
			if visit.outputs["fired"] != "true" || len(r.runs()) != runs+1 {
				t.Errorf("visit of %d: fired %q, %d new run(s); want the recess resumed", got[0], visit.outputs["fired"], len(r.runs())-runs)
			}
			if o := r.action("schedule", schedule, map[string]string{"INPUT_COMMAND": "visit"}); o.code != 2 || !strings.Contains(o.stdout, "input discussion") {
				t.Errorf("visit without a discussion: exit %d, want 2 naming input discussion\n%s", o.code, o.stdout)
			}
		})
	}
}

func TestSettings_scope_and_words(t *testing.T) {
	t.Parallel()
	in := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, err := loadSettings(in(map[string]string{"categories": "RFCs, Show and tell", "labels": "agent", "wake-on": "Mention",
		"mention-handles": "@lead", "hide-summary": "true", "command": "visit", "discussion": "12"}), t.TempDir())
	if err != nil {
		t.Fatalf("loadSettings = %v", err)
	}
	if got := strings.Join(s.Engine.Categories, "|"); got != "RFCs|Show and tell" || s.Engine.WakeOn != "mention" || !s.Engine.HideSummary || s.Discussion != 12 {
		t.Errorf("settings = categories %q, wake-on %q, hide-summary %v, discussion %d", got, s.Engine.WakeOn, s.Engine.HideSummary, s.Discussion)
	}
	for _, tc := range []struct {
		inputs map[string]string
		field  string
	}{
		{map[string]string{"wake-on": "reaction"}, "input wake-on"},
		{map[string]string{"wake-on": "mention"}, "input mention-handles"},
		{map[string]string{"hide-summary": "maybe"}, "input hide-summary"},
		{map[string]string{"command": "visit", "discussion": "twelve"}, "input discussion"},
		{map[string]string{"command": "plan-b"}, "input command"},
	} {
		_, err := loadSettings(in(tc.inputs), t.TempDir())
		ie, ok := err.(*wait.FieldError)
		if !ok || ie.Field != tc.field {
			t.Errorf("loadSettings(%v) = %v, want an error naming %s", tc.inputs, err, tc.field)
		}
	}
}

func TestSettings_file_scope(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := writeFile(dir+"/recess.yml", "categories: [RFCs]\nwake-on: command\n"); err != nil {
		t.Fatal(err)
	}
	s, err := loadSettings(func(k string) string {
		if k == "config" {
			return "recess.yml"
		}
		return ""
	}, dir)
	if err != nil {
		t.Fatalf("loadSettings = %v", err)
	}
	if s.Engine.WakeOn != "command" || len(s.Engine.Categories) != 1 {
		t.Errorf("file settings = %+v", s.Engine)
	}
}

func writeFile(path, body string) error { return os.WriteFile(path, []byte(body), 0o600) }
