package workflows

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// file is the part of one workflow file the rules read. Values whose line or
// shape a rule reports stay YAML nodes; a mapping whose keys a finding points
// at is keyed.
type file struct {
	name        string // the path findings name, e.g. .github/workflows/agent.yml
	doc         *yaml.Node
	lines       []string // the text, for the line of a word inside a value
	line        int      // the document's first line
	onLine      int
	events      keyed[yaml.Node] // `on`: each event with its settings
	runName     yaml.Node
	permissions yaml.Node
	concurrency yaml.Node
	jobs        []*job
}

type job struct {
	id   string
	line int
	role role

	Uses        yaml.Node // a called workflow, for a job that calls one
	With        map[string]yaml.Node
	Permissions yaml.Node
	Concurrency yaml.Node
	If          yaml.Node
	Needs       yaml.Node // a job's id or a list of them
	Env         map[string]yaml.Node
	Steps       []step
}

type step struct {
	node *yaml.Node // the step in the file's document
	line int        // the step's first line
	Name string
	Uses yaml.Node
	Run  yaml.Node
	With map[string]yaml.Node
	Env  map[string]yaml.Node
}

// UnmarshalYAML reads a step as far as it fits, and where it stands.
func (s *step) UnmarshalYAML(n *yaml.Node) error {
	type plain step
	_ = n.Decode((*plain)(s))
	s.node, s.line = n, n.Line
	return nil
}

// entry is one key of a mapping, with the key's line.
type entry[T any] struct {
	key  string
	line int
	val  T
}

// keyed is a mapping in document order. It reads anything else as empty,
// and a value of another shape than T as far as it fits: the rules judge
// what GitHub would run, and say nothing about the rest (actionlint does).
type keyed[T any] []entry[T]

func (m *keyed[T]) UnmarshalYAML(n *yaml.Node) error {
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		e := entry[T]{key: n.Content[i].Value, line: n.Content[i].Line}
		_ = n.Content[i+1].Decode(&e.val)
		*m = append(*m, e)
	}
	return nil
}

// get is the entry named key (parseFile refuses a key given twice).
func (m keyed[T]) get(key string) (entry[T], bool) {
	i := slices.IndexFunc(m, func(e entry[T]) bool { return e.key == key })
	if i < 0 {
		return entry[T]{}, false
	}
	return m[i], true
}

// parseFile reads one workflow file. Text that is not YAML, or not a mapping
// with jobs, is an unreadable finding that names the line when YAML says it.
func parseFile(name string, data []byte) (*file, *Finding) {
	unreadable := func(line int, reason string) (*file, *Finding) {
		return nil, &Finding{File: name, Line: max(line, 1), Rule: RuleUnreadable, Message: reason,
			Fix: "make it a workflow GitHub accepts (actionlint says more)"}
	}
	var doc yaml.Node
	err := yaml.Unmarshal(data, &doc)
	if err == nil {
		// Decoding refuses a key given twice in one mapping, as GitHub does.
		err = doc.Decode(new(any))
	}
	var typeErr *yaml.TypeError
	if errors.As(err, &typeErr) {
		err = errors.New("yaml: " + strings.Join(typeErr.Errors, "; "))
	}
	if err != nil {
		var line int
		_, _ = fmt.Sscanf(err.Error(), "yaml: line %d:", &line)
		return unreadable(line, err.Error())
	}
	if doc.Kind == 0 {
		return unreadable(0, "the file is empty")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return unreadable(root.Line, "a workflow is a mapping (name, on, jobs)")
	}
	expand(root, map[*yaml.Node]bool{})
	f := &file{name: name, doc: &doc, line: root.Line, lines: strings.Split(string(data), "\n")}
	var top keyed[yaml.Node]
	var jobs keyed[job]
	_ = root.Decode(&top)
	for _, e := range top {
		switch e.key {
		case "on", "true": // YAML 1.1 readers take a bare on for true
			f.onLine, f.events = e.line, events(e.val)
		case "run-name":
			f.runName = e.val
		case "permissions":
			f.permissions = e.val
		case "concurrency":
			f.concurrency = e.val
		case "jobs":
			_ = e.val.Decode(&jobs)
		}
	}
	if len(jobs) == 0 {
		return unreadable(root.Line, "the workflow has no jobs")
	}
	for _, e := range jobs {
		j := e.val
		j.id, j.line = e.key, e.line
		f.jobs = append(f.jobs, &j)
	}
	return f, nil
}

// expand puts in place of every alias the node it names, so that the rules
// read what a YAML reader does. Decoding has refused excessive aliasing.
func expand(n *yaml.Node, seen map[*yaml.Node]bool) {
	if seen[n] {
		return
	}
	seen[n] = true
	for i, c := range n.Content {
		for c.Kind == yaml.AliasNode {
			c = c.Alias
		}
		n.Content[i] = c
		expand(c, seen)
	}
}

// events reads `on`: an event's name, a list of names, or a mapping from
// name to settings (only this form gives each event a line).
func events(on yaml.Node) keyed[yaml.Node] {
	var out keyed[yaml.Node]
	switch on.Kind {
	case yaml.ScalarNode:
		out = keyed[yaml.Node]{{key: on.Value}}
	case yaml.SequenceNode:
		for _, n := range on.Content {
			out = append(out, entry[yaml.Node]{key: n.Value})
		}
	default:
		_ = on.Decode(&out)
	}
	return out
}

func (f *file) has(event string) bool {
	_, ok := f.events.get(event)
	return ok
}

// called says whether the file runs only when another workflow calls it:
// its jobs get the caller's event and grant.
func (f *file) called() bool {
	return len(f.events) > 0 && !slices.ContainsFunc(f.events, func(e entry[yaml.Node]) bool { return e.key != "workflow_call" })
}

// lineOf is the first line at or after from whose text holds word as a
// whole (not inside a longer name), else from: the line of a word inside a
// value, such as a flag in a script.
func (f *file) lineOf(from int, word string) int {
	whole := regexp.MustCompile(regexp.QuoteMeta(word) + `(?:[^-\w]|$)`)
	for i := max(from, 1) - 1; i < len(f.lines); i++ {
		if whole.MatchString(f.lines[i]) {
			return i + 1
		}
	}
	return from
}

// needs is the ids of the jobs j needs.
func (j *job) needs() []string {
	if v := value(j.Needs); v != "" {
		return []string{v}
	}
	var ids []string
	for _, n := range j.Needs.Content {
		ids = append(ids, value(*n))
	}
	return ids
}

// texts are every value of the job that may hold a command line or a
// configuration: the job's and its steps' env, each step's inputs and
// script, each with the line it starts on.
func (j *job) texts() []yaml.Node {
	var out []yaml.Node
	add := func(m map[string]yaml.Node) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if n := m[k]; n.Kind == yaml.ScalarNode {
				out = append(out, n)
			}
		}
	}
	add(j.Env)
	for _, s := range j.Steps {
		add(s.Env)
		add(s.With)
		if s.Run.Kind == yaml.ScalarNode {
			out = append(out, s.Run)
		}
	}
	return out
}

// value is a scalar's text, or "" for any other node.
func value(n yaml.Node) string {
	if n.Kind != yaml.ScalarNode {
		return ""
	}
	return strings.TrimSpace(n.Value)
}
