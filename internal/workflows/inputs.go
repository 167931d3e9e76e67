package workflows

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess"
)

// Known is what recess's code knows of itself and its files do not say:
// the values an input with choices accepts, and the flags of recess mcp.
// The inputs the action and the reusable workflows declare, with their
// defaults, come from the files recess ships (package recess).
type Known struct {
	Choices  []Choice
	MCPFlags []string // without dashes: verdict-file
	// Validate refuses what a run would refuse of the inputs a piece hands
	// the action (input returns "" for one not given or known only when the
	// workflow runs), with a *wait.FieldError naming the input.
	Validate func(input func(name string) string) error
}

// Choice is an input that accepts only some values.
type Choice struct {
	Input  string
	Values []string
	List   bool // comma separated, each item one of Values
}

func (k Known) choice(input string) (Choice, bool) {
	i := slices.IndexFunc(k.Choices, func(c Choice) bool { return c.Input == input })
	if i < 0 {
		return Choice{}, false
	}
	return k.Choices[i], true
}

// declared is what one file of recess's declares: its inputs in order, with
// their defaults.
type declared struct {
	file     string // action.yml, or the reusable workflow's file name
	names    []string
	defaults map[string]string
}

func (d declared) has(name string) bool { return slices.Contains(d.names, name) }

// value is what the input is in a job or step that gives with: the value
// given, else the default. Choices compare without case or surrounding
// space, as recess reads them.
func (d declared) value(with map[string]yaml.Node, name string) string {
	if n, ok := with[name]; ok {
		return value(n)
	}
	return d.defaults[name]
}

// shipped is recess's own declarations: the action's and each reusable
// workflow's, by piece (front-door, claim, verdict).
type shipped struct {
	action   declared
	reusable map[string]declared
}

// readShipped reads the declarations embedded in the binary once.
var readShipped = sync.OnceValues(func() (shipped, error) {
	s := shipped{reusable: map[string]declared{}}
	data, err := fs.ReadFile(recess.Declarations, "action.yml")
	if err != nil {
		return s, err
	}
	if s.action, err = actionInputs(data); err != nil {
		return s, fmt.Errorf("recess's action.yml: %w", err)
	}
	entries, err := fs.ReadDir(recess.Declarations, recess.ReusableDir)
	if err != nil {
		return s, err
	}
	for _, e := range entries {
		name := path.Join(recess.ReusableDir, e.Name())
		data, err := fs.ReadFile(recess.Declarations, name)
		if err != nil {
			return s, err
		}
		f, bad := parseFile(name, data)
		if bad != nil {
			return s, fmt.Errorf("recess's %s", bad)
		}
		d, ok := callInputs(f)
		if !ok {
			return s, fmt.Errorf("recess's %s is not on: workflow_call", name)
		}
		s.reusable[strings.TrimSuffix(e.Name(), path.Ext(e.Name()))] = d
	}
	return s, nil
})

// actionInputs reads an action.yml's inputs.
func actionInputs(data []byte) (declared, error) {
	var action struct {
		Inputs keyed[struct{ Default yaml.Node }]
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		return declared{}, err
	}
	return declare("action.yml", action.Inputs), nil
}

// declare is what file declares: its inputs, with their defaults.
func declare(file string, inputs keyed[struct{ Default yaml.Node }]) declared {
	d := declared{file: file, defaults: map[string]string{}}
	for _, in := range inputs {
		d.names = append(d.names, in.key)
		d.defaults[in.key] = value(in.val.Default)
	}
	return d
}

// callInputs reads the inputs a reusable workflow declares under
// on.workflow_call; ok is false for a file that is not one.
func callInputs(f *file) (declared, bool) {
	call, ok := f.events.get("workflow_call")
	if !ok {
		return declared{}, false
	}
	var settings struct {
		Inputs keyed[struct{ Default yaml.Node }]
	}
	_ = call.val.Decode(&settings)
	return declare(path.Base(f.name), settings.Inputs), true
}

// nearest is the candidate closest to s in edits, when it is close enough
// to be what s meant to say (a typo), else "".
func nearest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		limit := min(2, len(c)/3)
		if d := edits(strings.ToLower(s), strings.ToLower(c)); d <= limit && d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// edits is the Levenshtein distance between a and b, counting an adjacent
// swap as one edit.
func edits(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// isExpression says whether a value is (or holds) a ${{ }} expression,
// known only when the workflow runs.
func isExpression(v string) bool { return strings.Contains(v, "${{") }
