package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/resume/wait"
)

// decodeYAML decodes one YAML document from outside (a scenario, the
// policy file) into v, a pointer to a struct with yaml tags. yaml.v3 with
// KnownFields refuses an unknown key, a key given twice and a value of the
// wrong kind; this adds what yaml.v3 leaves: a second document, an alias, a
// time that is not RFC 3339, a YAML 1.1 boolean (yes, on) and a whole
// number written as a decimal are refused, and every refusal is a
// *wait.FieldError naming the key by its path ("steps[2].comment.author")
// and its line, never a Go type. An empty document leaves v as it is.
func decodeYAML(data []byte, v any) error {
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
	w := yamlWalk{at: map[int]string{}, keys: map[string]string{}}
	if err := w.node(&doc, reflect.TypeOf(v).Elem(), ""); err != nil {
		return err
	}
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(v); err != nil {
		msg := err.Error()
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			msg = te.Errors[0]
		}
		line, reason := splitLine(msg)
		if m := unknownRE.FindStringSubmatch(reason); m != nil {
			at := strconv.Itoa(line) + ":" + m[1]
			return yamlError(line, w.keys[at], "unknown key "+strconv.Quote(m[1])+w.hints[at])
		}
		if m := twiceRE.FindStringSubmatch(reason); m != nil {
			key, _ := strconv.Unquote(m[1])
			return yamlError(line, w.keys[strconv.Itoa(line)+":"+key], "given twice")
		}
		return yamlError(line, w.at[line], plainWords(reason))
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

// yamlWalk follows the document along the Go type it decodes into, to name
// what yaml.v3's messages give only a line for: at holds the path of the
// deepest value on each line, keys the path of each key ("line:key"), hints
// the keys a mapping has where it holds one it has not.
type yamlWalk struct {
	at    map[int]string
	keys  map[string]string
	hints map[string]string
}

var (
	timeType = reflect.TypeFor[time.Time]()
	anyType  = reflect.TypeFor[any]()
)

func (w *yamlWalk) node(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind == yaml.AliasNode {
		return yamlError(n.Line, path, "aliases (*name) are not supported; write the value out")
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		return w.node(n.Content[0], t, path)
	}
	if _, ok := w.at[n.Line]; !ok || path != "" {
		w.at[n.Line] = path
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == anyType:
		return nil // free-form (a trigger document): its own parser checks it
	case t == timeType && n.Kind == yaml.ScalarNode && n.Tag != "!!null":
		// yaml.v3 says what time.Parse says, without a line.
		var tm time.Time
		if n.Decode(&tm) != nil {
			return yamlError(n.Line, path, "want a time (RFC 3339, such as 2026-11-21T10:00:00Z), found "+strconv.Quote(n.Value))
		}
	case t.Kind() == reflect.Bool && n.Kind == yaml.ScalarNode && n.Tag != "!!null" && n.Tag != "!!bool":
		// yaml.v3 reads yes, no, on and off as YAML 1.1 did.
		return yamlError(n.Line, path, "want true or false, found "+strconv.Quote(n.Value))
	case (t.Kind() == reflect.Int || t.Kind() == reflect.Int64) && n.Kind == yaml.ScalarNode && n.Tag != "!!null" && n.Tag != "!!int":
		// yaml.v3 reads 1.0 as the whole number 1.
		return yamlError(n.Line, path, "want a whole number, found "+strconv.Quote(n.Value))
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			kp := joinPath(path, k.Value)
			at := strconv.Itoa(k.Line) + ":" + k.Value
			w.keys[at] = kp
			f, ok := yamlField(t, k.Value)
			if !ok {
				if w.hints == nil {
					w.hints = map[string]string{}
				}
				w.hints[at] = "; " + orDocument(path) + " has " + strings.Join(yamlKeys(t), ", ")
				continue
			}
			w.at[k.Line] = kp
			if err := w.node(n.Content[i+1], f, kp); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			kp := joinPath(path, n.Content[i].Value)
			w.keys[strconv.Itoa(n.Content[i].Line)+":"+n.Content[i].Value] = kp
			w.at[n.Content[i].Line] = kp
			if err := w.node(n.Content[i+1], t.Elem(), kp); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, c := range n.Content {
			if err := w.node(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// yamlField returns the type of the field of struct t whose yaml key is key.
func yamlField(t reflect.Type, key string) (reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name == key && name != "-" {
			return t.Field(i).Type, true
		}
	}
	return nil, false
}

// yamlKeys are the keys a struct type accepts, sorted.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	slices.Sort(keys)
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

var (
	lineRE      = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	unknownRE   = regexp.MustCompile(`^field (.*?) not found in type `)
	twiceRE     = regexp.MustCompile(`^mapping key (".*") already defined at line \d+$`)
	wrongKindRE = regexp.MustCompile("^cannot unmarshal !!(\\w+) (?:`(.*)` )?into (\\S+)$")
)

// splitLine takes yaml's "line N: reason" apart.
func splitLine(msg string) (int, string) {
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// plainWords says yaml.v3's "cannot unmarshal" in the words of the file,
// without the Go type it names.
func plainWords(reason string) string {
	m := wrongKindRE.FindStringSubmatch(reason)
	if m == nil {
		return reason
	}
	found := strconv.Quote(m[2])
	switch m[1] {
	case "map":
		found = "a mapping"
	case "seq":
		found = "a list"
	}
	want := "a single value"
	switch t := m[3]; {
	case t == "bool":
		want = "true or false"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		want = "a whole number"
	case strings.HasPrefix(t, "[]"):
		want = "a list"
	case strings.HasPrefix(t, "map[") || strings.Contains(t, "."):
		want = "a mapping"
	}
	return "want " + want + ", found " + found
}
