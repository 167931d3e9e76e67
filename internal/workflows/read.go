package workflows

import (
	"errors"
	"slices"

	"gopkg.in/yaml.v3"
)

// Workflow is one workflow file as the rules read it, for a caller that
// works with the file itself (the lab runs copies of a repository's
// workflows): its YAML document and what each job and step uses.
type Workflow struct {
	// Doc is the file's YAML document; a step replaced through Use.Step is
	// replaced in it.
	Doc  *yaml.Node
	Uses []Use // every job's and step's `uses:`, in order
	// FrontDoor is what the file's front door (the job that answers a
	// thread's events with recess, as `recess check` finds it) gives
	// recess: every input its piece declares, as given or by default; nil
	// when no job is one.
	FrontDoor map[string]string
}

// Use is one `uses:` of a workflow: a job's call of a reusable workflow or
// a step's action.
type Use struct {
	Job  string            // the job's id
	Uses string            // as written
	With map[string]string // its scalar inputs, as written
	// Release is, for a use of recess (its action, or a reusable workflow
	// it ships), which recess it runs: OWNER/recess@REF as written, or ./
	// for the repository's own; "" for any other use.
	Release string
	// Command is what a use of recess does: the command a step runs (auto
	// when it gives none) or the reusable workflow called (front-door,
	// claim, verdict).
	Command string
	Step    *yaml.Node // the step in Doc; nil for a job's call
}

// Read reads a workflow file, named name in the errors; text that is not a
// workflow GitHub could read is an error saying why.
func Read(name string, data []byte) (*Workflow, error) {
	shipped, err := readShipped()
	if err != nil {
		return nil, err
	}
	f, bad := parseFile(name, data)
	if bad != nil {
		return nil, errors.New(bad.Message)
	}
	c := &checker{shipped: shipped, files: []*file{f}}
	c.survey()
	w := &Workflow{Doc: f.doc}
	for _, j := range f.jobs {
		// The job's call first, as a step without a node (index -1).
		for i, s := range append([]step{{Uses: j.Uses, With: j.With}}, j.Steps...) {
			if value(s.Uses) == "" {
				continue
			}
			u := Use{Job: j.id, Uses: value(s.Uses), With: map[string]string{}, Step: s.node}
			for k, n := range s.With {
				if n.Kind == yaml.ScalarNode {
					u.With[k] = n.Value
				}
			}
			if r := slices.IndexFunc(j.role.uses, func(r use) bool { return r.step == i-1 }); r >= 0 {
				u.Release, u.Command = "./", j.role.uses[r].command
				if !j.role.uses[r].local {
					u.Release = j.role.uses[r].repo + "@" + j.role.uses[r].ref
				}
			}
			w.Uses = append(w.Uses, u)
		}
	}
	if door := c.door; door != nil {
		w.FrontDoor = map[string]string{}
		for _, name := range door.d.names {
			w.FrontDoor[name], _ = door.given(name)
		}
	}
	return w, nil
}
