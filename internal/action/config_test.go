package action

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/resume/wait"
)

// The inputs recess reads are action.yml's, each handed to the binary as
// INPUT_<NAME>: a name lives in inputNames once and nowhere else.
func TestInputs_match_action_yml(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	var declared []string
	for name := range action.Inputs {
		declared = append(declared, name)
		if !strings.Contains(string(b), "INPUT_"+strings.ToUpper(name)+": ${{ inputs."+name+" }}") {
			t.Errorf("action.yml does not hand input %s to the binary as INPUT_%s", name, strings.ToUpper(name))
		}
	}
	slices.Sort(declared)
	read := slices.Clone(inputNames)
	slices.Sort(read)
	if !slices.Equal(declared, read) {
		t.Errorf("action.yml declares inputs %v; cmd/recess reads %v", declared, read)
	}
}

// The policy file's mistakes name the file, the key's path and its line.
func TestSettings_file_errors_name_the_key(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, field, reason string
	}{
		{"unknown_key", "max-recess: P30D\nescalate_to: [lead]\n", ": escalate_to", `line 2: unknown key "escalate_to"`},
		{"wrong_kind", "max-attempts: many\n", ": max-attempts", `line 1: want a whole number, found "many"`},
		{"list_expected", "categories: RFCs\n", ": categories", `line 1: want a list, found "RFCs"`},
		{"not_yaml", "max-attempts: [\n", "", "not valid YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "recess.yml"), []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := loadSettings(func(k string) string {
				if k == inConfig {
					return "recess.yml"
				}
				return ""
			}, dir)
			ie, ok := err.(*wait.FieldError)
			if !ok || !strings.HasPrefix(ie.Field, "config ") || !strings.HasSuffix(ie.Field, "recess.yml"+tc.field) || !strings.Contains(ie.Reason, tc.reason) {
				t.Errorf("loadSettings = %#v, want a refusal of config …recess.yml%s with %q", err, tc.field, tc.reason)
			}
		})
	}
}
