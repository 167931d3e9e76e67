package action

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/resume/wait"
)

// DecodeYAML decodes one YAML document from outside (a scenario, the
// policy file) into v, a pointer to a struct with yaml tags, with yaml.v3's
// KnownFields. A refusal is a *wait.FieldError naming the key's path
// ("steps[2].comment.author") and line, never a Go type.
//
// yaml.v3 names what it refuses by a line and a Go type only: in flow style
// ("- comment: {author: x, body: {a: 1}}") several values share a line, a
// time it cannot read has no line at all, and it never says which keys a
// mapping has. So a walk along v's type finds the node at fault first, to
// name it, asking yaml.v3 itself whether each value decodes. The walk also
// refuses what yaml.v3 would take: a second document, an alias, yes/on for
// true, 1.0 for 1. An empty document leaves v as it is.
func DecodeYAML(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		line, reason := splitLine(err.Error())
		return yamlError(line, "", "not valid YAML: "+reason)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return yamlError(extra.Line, "", "a second YAML document; give one")
	}
	if err := yamlWalk(&doc, reflect.TypeOf(v).Elem(), ""); err != nil {
		return err
	}
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(v); err != nil {
		// What the walk let through (a mapping as a key, say), without the
		// Go type yaml.v3 names.
		msg := err.Error()
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			msg = te.Errors[0]
		}
		line, reason := splitLine(msg)
		return yamlError(line, "", goTypes.ReplaceAllString(reason, ""))
	}
	return nil
}

// yamlError names the key at path ("" for the document) and its line (0
// when unknown).
func yamlError(line int, path, reason string) error {
	if line > 0 {
		reason = "line " + strconv.Itoa(line) + ": " + reason
	}
	return &wait.FieldError{Field: path, Reason: reason}
}

var (
	timeType = reflect.TypeFor[time.Time]()
	anyType  = reflect.TypeFor[any]()
)

// yamlWalk checks n against the Go type t it decodes into.
func yamlWalk(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind == yaml.AliasNode {
		return yamlError(n.Line, path, "aliases (*name) are not supported; write the value out")
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		return yamlWalk(n.Content[0], t, path)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == anyType || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // free-form (a trigger document, its parser checks it), or unset
	}
	want := func(what string) error {
		found := strconv.Quote(n.Value)
		switch n.Kind {
		case yaml.MappingNode:
			found = "a mapping"
		case yaml.SequenceNode:
			found = "a list"
		}
		return yamlError(n.Line, path, "want "+what+", found "+found)
	}
	switch k := t.Kind(); {
	case t == timeType:
		if n.Kind != yaml.ScalarNode || n.Decode(new(time.Time)) != nil {
			return want("a time (RFC 3339, such as 2026-11-21T10:00:00Z)")
		}
	case k == reflect.Struct || k == reflect.Map:
		if n.Kind != yaml.MappingNode {
			return want("a mapping")
		}
		seen := map[string]bool{}
		var fields map[string]reflect.Type
		if k == reflect.Struct {
			fields = yamlFields(t)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			kp := joinPath(path, key.Value)
			if seen[key.Value] {
				return yamlError(key.Line, kp, "given twice")
			}
			seen[key.Value] = true
			var ft reflect.Type
			if k == reflect.Map {
				ft = t.Elem()
			} else {
				var ok bool
				if ft, ok = fields[key.Value]; !ok {
					return yamlError(key.Line, kp, "unknown key "+strconv.Quote(key.Value)+"; "+orDocument(path)+" has "+strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
				}
			}
			if err := yamlWalk(n.Content[i+1], ft, kp); err != nil {
				return err
			}
		}
	case k == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return want("a list")
		}
		for i, c := range n.Content {
			if err := yamlWalk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case n.Kind != yaml.ScalarNode:
		return want("a single value")
	case k == reflect.Bool && n.Tag != "!!bool":
		return want("true or false") // yaml.v3 reads yes, no, on and off as YAML 1.1 did
	case (k == reflect.Int || k == reflect.Int64) && (n.Tag != "!!int" || n.Decode(reflect.New(t).Interface()) != nil):
		return want("a whole number") // yaml.v3 reads 1.0 as the whole number 1; one too large does not fit
	}
	return nil
}

// yamlFields are the keys a mapping that decodes into struct t accepts,
// with the type of each value.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			fields[name] = t.Field(i).Type
		}
	}
	return fields
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

var (
	lineRE  = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	goTypes = regexp.MustCompile(` into [\w.\[\]*]+`)
)

// splitLine takes yaml's "line N: reason" apart.
func splitLine(msg string) (int, string) {
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}
