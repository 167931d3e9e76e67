package action

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
		{"texts_are_not_configurable", "hide-summary: true\ntexts:\n  status.idle: Nothing here.\n", ": texts", `line 2: unknown key "texts"`},
		{"wrong_kind", "max-attempts: many\n", ": max-attempts", `line 1: want a whole number, found "many"`},
		{"list_expected", "categories: RFCs\n", ": categories", `line 1: want a list, found "RFCs"`},
		{"not_yaml", "max-attempts: [\n", "", "not valid YAML"},
		{"key_twice", "max-recess: P30D\nlabels: [a]\nlabels: [b]\n", ": labels", "line 3: given twice"},
		{"number_too_large", "max-operations: 9223372036854775808\n", ": max-operations", `line 1: want a whole number, found "9223372036854775808"`},
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

// Whatever a policy file holds, DecodeYAML either refuses it with a
// *wait.FieldError or decodes what yaml.v3's strict decoder decodes.
func FuzzDecodeYAML(f *testing.F) {
	for _, seed := range []string{
		"max-recess: P30D\nallowed-kinds: [elapsed, any]\n",
		"max-attempts: 3\nhide-summary: true\ntexts: {status.waiting: hi}\n",
		"escalate_to: [lead]\n", "max-attempts: many\n", "categories: RFCs\n", "max-attempts: [\n",
		"a: &x 1\nb: *x\n", "hide-summary: yes\n", "max-attempts: 1.0\n", "---\n---\n", "labels: [a]\nlabels: [b]\n",
		"max-operations: 99999999999999999999\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got fileConfig
		err := DecodeYAML(data, &got)
		if err != nil {
			var fe *wait.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("DecodeYAML(%q) = %T %v, want a *wait.FieldError", data, err, err)
			}
			return
		}
		var want fileConfig
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&want); err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("DecodeYAML(%q) accepted what yaml.v3 refuses: %v", data, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("DecodeYAML(%q) (-yaml.v3 +DecodeYAML):\n%s", data, diff)
		}
	})
}
