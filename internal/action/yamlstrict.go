package action

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// yamlError is refused YAML from outside (a scenario, the policy file): it
// names the key by its path in the document and its line, never a Go type.
type yamlError struct {
	Line   int    // 1-based; 0 when unknown
	Path   string // "steps[2].comment.author"; "" for the document
	Reason string
}

func (e *yamlError) Error() string {
	where := e.Path
	if where == "" {
		where = "the document"
	}
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s: %s", e.Line, where, e.Reason)
	}
	return where + ": " + e.Reason
}

// decodeYAML decodes one YAML document into v (a pointer to a struct with
// yaml tags) strictly: an unknown key, a value of the wrong kind or a second
// document is a *yamlError naming the key's path and line. An empty
// document leaves v as it is.
func decodeYAML(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return syntaxError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return &yamlError{Line: extra.Line, Reason: "a second YAML document; give one"}
	}
	lines := map[int]string{}
	if err := checkNode(&doc, reflect.TypeOf(v).Elem(), "", lines); err != nil {
		return err
	}
	if err := doc.Decode(v); err != nil {
		// checkNode let through what yaml refuses (a number too large, say):
		// name the key on that line.
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			line, reason := splitLine(te.Errors[0])
			return &yamlError{Line: line, Path: lines[line], Reason: goTypes.ReplaceAllString(reason, "")}
		}
		return &yamlError{Reason: goTypes.ReplaceAllString(err.Error(), "")}
	}
	return nil
}

// goTypes are the Go type names yaml puts in its messages; people reading a
// scenario or a policy file never see them.
var goTypes = regexp.MustCompile(` into [\w.\[\]*]+`)

var lineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// splitLine takes yaml's "line N: reason" apart.
func splitLine(msg string) (int, string) {
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

func syntaxError(err error) error {
	line, reason := splitLine(err.Error())
	return &yamlError{Line: line, Reason: "not valid YAML: " + reason}
}

var (
	timeType = reflect.TypeOf(time.Time{})
	anyType  = reflect.TypeOf((*any)(nil)).Elem()
)

// checkNode compares a YAML node with the Go type it will decode into,
// recording the path of every key by line for later messages.
func checkNode(n *yaml.Node, t reflect.Type, path string, lines map[int]string) error {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		return checkNode(n.Content[0], t, path, lines)
	}
	if n.Kind == yaml.AliasNode {
		return &yamlError{Line: n.Line, Path: path, Reason: "aliases (*name) are not supported; write the value out"}
	}
	if _, ok := lines[n.Line]; !ok || path != "" {
		lines[n.Line] = path
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // leaves the field unset
	}
	if t == anyType {
		return nil // free-form (a trigger document): its own parser checks it
	}
	want := func(what string) error {
		return &yamlError{Line: n.Line, Path: path, Reason: fmt.Sprintf("want %s, found %s", what, nodeWords(n))}
	}
	switch {
	case t == timeType:
		if n.Kind != yaml.ScalarNode {
			return want("a time (RFC 3339)")
		}
		var tm time.Time
		if err := n.Decode(&tm); err != nil {
			return want("a time (RFC 3339, such as 2026-11-21T10:00:00Z)")
		}
		return nil
	case t.Kind() == reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return want("a mapping of " + strings.Join(yamlKeys(t), ", "))
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name != "" && name != "-" {
				fields[name] = f.Type
			}
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			key := k.Value
			kp := joinPath(path, key)
			ft, ok := fields[key]
			if !ok {
				return &yamlError{Line: k.Line, Path: kp, Reason: fmt.Sprintf("unknown key %q; %s has %s", key, orDocument(path), strings.Join(yamlKeys(t), ", "))}
			}
			if seen[key] {
				return &yamlError{Line: k.Line, Path: kp, Reason: "given twice"}
			}
			seen[key] = true
			lines[k.Line] = kp
			if err := checkNode(val, ft, kp, lines); err != nil {
				return err
			}
		}
		return nil
	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			return want("a mapping")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kp := joinPath(path, n.Content[i].Value)
			lines[n.Content[i].Line] = kp
			if err := checkNode(n.Content[i+1], t.Elem(), kp, lines); err != nil {
				return err
			}
		}
		return nil
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return want("a list")
		}
		for i, c := range n.Content {
			if err := checkNode(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), lines); err != nil {
				return err
			}
		}
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return want("a single value")
	}
	switch t.Kind() {
	case reflect.Bool:
		if n.Tag != "!!bool" {
			return want("true or false")
		}
	case reflect.Int, reflect.Int64:
		if n.Tag != "!!int" {
			return want("a whole number")
		}
	}
	return nil
}

// yamlKeys are the keys a struct type accepts, sorted.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	sort.Strings(keys)
	return keys
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orDocument(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

// nodeWords names what a node holds, for messages.
func nodeWords(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}
