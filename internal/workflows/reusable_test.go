package workflows

import (
	"os"
	"regexp"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// recess's reusable workflows hand the action only inputs it has, and use
// every input they declare.
func TestReusableWorkflows_inputs(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	used := regexp.MustCompile(`(?:^|[^.\w])inputs\.([A-Za-z0-9_-]+)`) // not github.event.inputs
	for _, name := range []string{"front-door.yml", "claim.yml", "verdict.yml"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text, err := os.ReadFile("../../.github/workflows/" + name)
			if err != nil {
				t.Fatal(err)
			}
			f, bad := parseFile(name, text)
			if bad != nil {
				t.Fatalf("%s", bad)
			}
			if len(f.events) != 1 || !f.has("workflow_call") {
				t.Fatalf("%s is not only on: workflow_call", name)
			}
			var call struct{ Inputs map[string]any }
			if err := f.events[0].val.Decode(&call); err != nil {
				t.Fatal(err)
			}
			declared := map[string]bool{}
			for in := range call.Inputs {
				declared[in] = true
			}
			steps := 0
			for _, j := range f.jobs {
				for _, s := range j.Steps {
					if value(s.Uses) != "recess-action/recess@v1" {
						continue
					}
					steps++
					for in := range s.With {
						if _, ok := action.Inputs[in]; !ok {
							t.Errorf("job %s passes %s, which action.yml does not declare", j.id, in)
						}
					}
				}
			}
			if steps == 0 {
				t.Errorf("no step runs recess-action/recess@v1")
			}
			got := map[string]bool{}
			for _, m := range used.FindAllStringSubmatch(string(text), -1) {
				got[m[1]] = true
			}
			var unused, undeclared []string
			for in := range declared {
				if !got[in] {
					unused = append(unused, in)
				}
			}
			for in := range got {
				if !declared[in] {
					undeclared = append(undeclared, in)
				}
			}
			sort.Strings(unused)
			sort.Strings(undeclared)
			if diff := cmp.Diff([]string(nil), unused); diff != "" {
				t.Errorf("declared but never used (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string(nil), undeclared); diff != "" {
				t.Errorf("used but not declared (-want +got):\n%s", diff)
			}
		})
	}
}
