package workflows

import (
	"errors"

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
	c    *checker
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
	c := &checker{shipped: shipped, files: []*file{f}, byName: map[string]*file{}, suspect: map[string]bool{}}
	c.survey()
	w := &Workflow{Doc: f.doc, c: c}
	for _, j := range f.jobs {
		recess := map[int]use{}
		for _, u := range j.role.uses {
			recess[u.step] = u
		}
		add := func(uses string, with map[string]yaml.Node, step int, node *yaml.Node) {
			if uses == "" {
				return
			}
			u := Use{Job: j.id, Uses: uses, With: map[string]string{}, Step: node}
			for k, n := range with {
				if n.Kind == yaml.ScalarNode {
					u.With[k] = n.Value
				}
			}
			if r, ok := recess[step]; ok {
				u.Release, u.Command = "./", r.command
				if !r.local {
					u.Release = r.repo + "@" + r.ref
				}
			}
			w.Uses = append(w.Uses, u)
		}
		add(value(j.Uses), j.With, -1, nil)
		for i, s := range j.Steps {
			add(s.Uses, s.With, i, s.node)
		}
	}
	return w, nil
}

// FrontDoor is what the workflow's front door (the job that answers a
// thread's events with recess, as `recess check` finds it) gives recess:
// every input its piece declares, as given or by its default. ok is false
// when no job in the file is a front door.
func (w *Workflow) FrontDoor() (inputs map[string]string, ok bool) {
	door := w.c.door
	if door == nil {
		return nil, false
	}
	inputs = map[string]string{}
	for _, name := range door.d.names {
		inputs[name], _ = door.given(name)
	}
	return inputs, true
}
