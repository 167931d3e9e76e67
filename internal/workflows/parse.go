package workflows

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// file is the part of one workflow file the rules read, with the nodes kept
// for their line numbers.
type file struct {
	name        string     // the path findings name, e.g. .github/workflows/agent.yml
	line        int        // the document's first line
	on          *yaml.Node // the `on` value; nil when absent
	onLine      int
	runName     *yaml.Node
	permissions *yaml.Node
	concurrency *yaml.Node
	jobs        []*job
}

type job struct {
	id          string
	line        int
	uses        string // a called workflow, for a job that calls one
	usesLine    int
	with        map[string]*yaml.Node // a called workflow's inputs
	permissions *yaml.Node
	concurrency *yaml.Node
	steps       []step
}

type step struct {
	line    int
	name    string
	uses    string
	run     string
	runLine int
	with    map[string]*yaml.Node
}

// parseFile reads one workflow file. Text that is not YAML, or not a
// mapping with jobs, is an error that names the line when YAML says it.
func parseFile(name string, data []byte) (*file, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ParseError{File: name, Reason: "the file is empty"}
		}
		return nil, &ParseError{File: name, Line: yamlErrorLine(err), Reason: err.Error()}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, &ParseError{File: name, Line: root.Line, Reason: "a workflow is a mapping (name, on, jobs)"}
	}
	f := &file{name: name, line: root.Line}
	var jobs *yaml.Node
	for k, v := range pairs(root) {
		switch k.Value {
		case "on", "true": // YAML 1.1 readers take a bare on for true
			f.on, f.onLine = v, k.Line
		case "run-name":
			f.runName = v
		case "permissions":
			f.permissions = v
		case "concurrency":
			f.concurrency = v
		case "jobs":
			jobs = v
		}
	}
	if jobs == nil || jobs.Kind != yaml.MappingNode || len(jobs.Content) == 0 {
		return nil, &ParseError{File: name, Line: root.Line, Reason: "the workflow has no jobs"}
	}
	for k, v := range pairs(jobs) {
		j := &job{id: k.Value, line: k.Line}
		for jk, jv := range pairs(v) {
			switch jk.Value {
			case "uses":
				j.uses, j.usesLine = strings.TrimSpace(jv.Value), jv.Line
			case "with":
				j.with = mapping(jv)
			case "permissions":
				j.permissions = jv
			case "concurrency":
				j.concurrency = jv
			case "steps":
				if jv.Kind != yaml.SequenceNode {
					continue
				}
				for _, sv := range jv.Content {
					s := step{line: sv.Line}
					for sk, sval := range pairs(sv) {
						switch sk.Value {
						case "name":
							s.name = sval.Value
						case "uses":
							s.uses = strings.TrimSpace(sval.Value)
						case "run":
							s.run, s.runLine = sval.Value, sval.Line
						case "with":
							s.with = mapping(sval)
						}
					}
					j.steps = append(j.steps, s)
				}
			}
		}
		f.jobs = append(f.jobs, j)
	}
	return f, nil
}

// pairs yields the keys and values of a mapping node (nothing for any
// other node).
func pairs(n *yaml.Node) func(yield func(k, v *yaml.Node) bool) {
	return func(yield func(k, v *yaml.Node) bool) {
		if n == nil || n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !yield(n.Content[i], n.Content[i+1]) {
				return
			}
		}
	}
}

// lookup is the value of key in a mapping node, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	for k, v := range pairs(n) {
		if k.Value == key {
			return v
		}
	}
	return nil
}

// keyLine is the line of key in a mapping node, or 0.
func keyLine(n *yaml.Node, key string) int {
	for k := range pairs(n) {
		if k.Value == key {
			return k.Line
		}
	}
	return 0
}

func mapping(n *yaml.Node) map[string]*yaml.Node {
	m := map[string]*yaml.Node{}
	for k, v := range pairs(n) {
		m[k.Value] = v
	}
	return m
}

// value is a scalar's text, or "" for nil or any other node.
func value(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return strings.TrimSpace(n.Value)
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

func yamlErrorLine(err error) int {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// ParseError is a workflow file the rules cannot read.
type ParseError struct {
	File   string
	Line   int // 0 when unknown
	Reason string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return e.File + ": " + e.Reason
}

// triggers lists the events in `on` (a name, a list of names or a
// mapping), each with its node (nil for the first two forms) and line.
func (f *file) triggers() map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	switch {
	case f.on == nil:
	case f.on.Kind == yaml.ScalarNode:
		out[f.on.Value] = nil
	case f.on.Kind == yaml.SequenceNode:
		for _, n := range f.on.Content {
			out[n.Value] = nil
		}
	default:
		for k, v := range pairs(f.on) {
			out[k.Value] = v
		}
	}
	return out
}

func (f *file) has(event string) bool {
	_, ok := f.triggers()[event]
	return ok
}
