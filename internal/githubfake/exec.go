package githubfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
)

// gqlError is one entry of a GraphQL response's "errors", in GitHub's shape.
type gqlError struct {
	Type       string         `json:"type,omitempty"`
	Path       []any          `json:"path,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
	Locations  []location     `json:"locations,omitempty"`
	Message    string         `json:"message"`
}

type location struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// fieldError is what a resolver returns to fail one field the way GitHub
// does: the field becomes null and an error with a type is reported.
type fieldError struct {
	typ string // NOT_FOUND, FORBIDDEN, UNPROCESSABLE, STALE_DATA, ...
	msg string
}

func (e *fieldError) Error() string { return e.msg }

func errorf(typ, format string, args ...any) *fieldError {
	return &fieldError{typ: typ, msg: fmt.Sprintf(format, args...)}
}

// errNotImplemented marks a schema field the fake does not model.
func errNotImplemented(typeName, field string) *fieldError {
	return &fieldError{typ: "NOT_IMPLEMENTED", msg: fmt.Sprintf("githubfake: field %s.%s not implemented", typeName, field)}
}

// object is a resolved GraphQL object value: its concrete type name and the
// Go value the field resolvers of that type understand.
type object struct {
	typ string
	v   any
}

// resolver computes one field of one type.
type resolver func(x *executor, src any, args map[string]any) (any, error)

// resolvers maps type name -> field name -> resolver. It is filled once by
// init functions of the resolve_*.go files.
var resolvers = map[string]map[string]resolver{}

func register(typeName string, fields map[string]resolver) {
	m := resolvers[typeName]
	if m == nil {
		m = map[string]resolver{}
		resolvers[typeName] = m
	}
	for k, v := range fields {
		m[k] = v
	}
}

// orderedMap keeps response keys in selection order, as GraphQL requires.
type orderedMap struct {
	keys []string
	vals map[string]any
}

func (m *orderedMap) set(k string, v any) {
	if m.vals == nil {
		m.vals = map[string]any{}
	}
	if _, ok := m.vals[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
}

// MarshalJSON writes the keys in order.
func (m *orderedMap) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range m.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(m.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// executor runs one operation against the fake's state. The caller holds
// g.mu for the whole execution, so resolvers see a consistent snapshot and
// mutations apply atomically.
type executor struct {
	g      *GitHub
	schema *ast.Schema
	doc    *ast.QueryDocument
	op     *ast.OperationDefinition
	vars   map[string]any
	viewer *identity
	token  string
	cost   int
	nodes  int
	errors []gqlError
}

// run executes the operation and returns its data (nil when a non-null root
// became null).
func (x *executor) run() any {
	root := x.schema.Query
	if x.op.Operation == ast.Mutation {
		root = x.schema.Mutation
	}
	data, ok := x.selectionSet(root, nil, x.op.SelectionSet, nil)
	if !ok {
		return nil
	}
	return data
}

// selectionSet resolves sel on an object of concrete type def. ok is false
// when a non-null field became null and the object must become null too.
func (x *executor) selectionSet(def *ast.Definition, src any, sel ast.SelectionSet, path []any) (*orderedMap, bool) {
	out := &orderedMap{}
	for _, group := range x.collect(def, sel) {
		f := group[0]
		key := f.Alias
		if key == "" {
			key = f.Name
		}
		fpath := append(slices.Clone(path), key)
		if f.Name == "__typename" {
			out.set(key, def.Name)
			continue
		}
		fdef := def.Fields.ForName(f.Name)
		if fdef == nil {
			x.fail(f, fpath, errorf("", "Field '%s' doesn't exist on type '%s'", f.Name, def.Name))
			out.set(key, nil)
			continue
		}
		val, err := x.resolve(def.Name, f, src)
		if err != nil {
			x.fail(f, fpath, err)
			val = nil
		}
		var sub ast.SelectionSet
		for _, g := range group {
			sub = append(sub, g.SelectionSet...)
		}
		v, ok := x.complete(fdef.Type, val, sub, fpath, f, err != nil)
		if !ok {
			return nil, false
		}
		out.set(key, v)
	}
	return out, true
}

func (x *executor) resolve(typeName string, f *ast.Field, src any) (any, error) {
	r := resolvers[typeName][f.Name]
	if r == nil {
		return nil, errNotImplemented(typeName, f.Name)
	}
	return r(x, src, f.ArgumentMap(x.vars))
}

// complete shapes a resolved value to the field's type. reported tells that
// an error was already reported for this field (no second "null" error).
func (x *executor) complete(t *ast.Type, v any, sel ast.SelectionSet, path []any, f *ast.Field, reported bool) (any, bool) {
	if isNil(v) {
		if t.NonNull {
			if !reported {
				x.fail(f, path, errorf("", "Cannot return null for non-nullable field"))
			}
			return nil, false
		}
		return nil, true
	}
	if t.Elem != nil {
		items, ok := v.([]any)
		if !ok {
			x.fail(f, path, errorf("", "githubfake: internal error: %T is not a list", v))
			return nil, !t.NonNull
		}
		out := make([]any, 0, len(items))
		for i, it := range items {
			c, ok := x.complete(t.Elem, it, sel, append(slices.Clone(path), i), f, false)
			if !ok {
				return nil, !t.NonNull
			}
			out = append(out, c)
		}
		return out, true
	}
	def := x.schema.Types[t.NamedType]
	switch def.Kind {
	case ast.Scalar, ast.Enum:
		return serialize(v), true
	}
	obj, ok := v.(object)
	if !ok {
		x.fail(f, path, errorf("", "githubfake: internal error: %T is not an object", v))
		return nil, !t.NonNull
	}
	concrete := x.schema.Types[obj.typ]
	if concrete == nil {
		x.fail(f, path, errorf("", "githubfake: internal error: unknown type %s", obj.typ))
		return nil, !t.NonNull
	}
	m, ok := x.selectionSet(concrete, obj.v, sel, path)
	if !ok {
		return nil, !t.NonNull
	}
	return m, true
}

func isNil(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case *string:
		return t == nil
	case time.Time:
		return t.IsZero()
	}
	return false
}

func serialize(v any) any {
	switch t := v.(type) {
	case time.Time:
		return ghTime(t)
	case *string:
		return *t
	}
	return v
}

// collect groups the fields of sel that apply to the concrete type def by
// response key, expanding fragments (CollectFields of the GraphQL spec).
func (x *executor) collect(def *ast.Definition, sel ast.SelectionSet) [][]*ast.Field {
	var order []string
	groups := map[string][]*ast.Field{}
	visited := map[string]bool{}
	var walk func(ast.SelectionSet)
	walk = func(ss ast.SelectionSet) {
		for _, s := range ss {
			switch s := s.(type) {
			case *ast.Field:
				if skipped(s.Directives, x.vars) {
					continue
				}
				key := s.Alias
				if key == "" {
					key = s.Name
				}
				if _, ok := groups[key]; !ok {
					order = append(order, key)
				}
				groups[key] = append(groups[key], s)
			case *ast.InlineFragment:
				if skipped(s.Directives, x.vars) || !x.applies(def, s.TypeCondition) {
					continue
				}
				walk(s.SelectionSet)
			case *ast.FragmentSpread:
				if skipped(s.Directives, x.vars) || visited[s.Name] {
					continue
				}
				visited[s.Name] = true
				frag := x.doc.Fragments.ForName(s.Name)
				if frag == nil || !x.applies(def, frag.TypeCondition) {
					continue
				}
				walk(frag.SelectionSet)
			}
		}
	}
	walk(sel)
	out := make([][]*ast.Field, 0, len(order))
	for _, k := range order {
		out = append(out, groups[k])
	}
	return out
}

// applies reports whether a fragment on typeCond applies to def.
func (x *executor) applies(def *ast.Definition, typeCond string) bool {
	if typeCond == "" || typeCond == def.Name {
		return true
	}
	cond := x.schema.Types[typeCond]
	if cond == nil {
		return false
	}
	for _, p := range x.schema.GetPossibleTypes(cond) {
		if p.Name == def.Name {
			return true
		}
	}
	return false
}

func skipped(ds ast.DirectiveList, vars map[string]any) bool {
	if d := ds.ForName("skip"); d != nil {
		if b, _ := d.ArgumentMap(vars)["if"].(bool); b {
			return true
		}
	}
	if d := ds.ForName("include"); d != nil {
		if b, _ := d.ArgumentMap(vars)["if"].(bool); !b {
			return true
		}
	}
	return false
}

func (x *executor) fail(f *ast.Field, path []any, err error) {
	e := gqlError{Path: path, Message: err.Error()}
	if fe, ok := err.(*fieldError); ok {
		e.Type = fe.typ
	}
	if f != nil && f.Position != nil {
		e.Locations = []location{{Line: f.Position.Line, Column: f.Position.Column}}
	}
	x.errors = append(x.errors, e)
}

// Argument helpers: variables decoded from JSON give float64, literals give
// int64; both are accepted.

func argInt(args map[string]any, name string) (int, bool) {
	switch v := args[name].(type) {
	case int64:
		return int(v), true
	case int:
		return v, true
	case float64:
		if v == math.Trunc(v) {
			return int(v), true
		}
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	}
	return 0, false
}

func argString(args map[string]any, name string) (string, bool) {
	s, ok := args[name].(string)
	return s, ok
}

func argBool(args map[string]any, name string) (bool, bool) {
	b, ok := args[name].(bool)
	return b, ok
}

func argObject(args map[string]any, name string) map[string]any {
	m, _ := args[name].(map[string]any)
	return m
}

func argStrings(args map[string]any, name string) []string {
	var out []string
	switch v := args[name].(type) {
	case []any:
		for _, it := range v {
			if s, ok := it.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = v
	case string:
		out = []string{v}
	}
	return out
}

// connection is a resolved *Connection object.
type connection struct {
	typ       string
	nodes     []any
	cursors   []string
	total     int
	hasNext   bool
	hasPrev   bool
	extraInts map[string]int // e.g. discussionCount on search
}

// paginate applies first/after/last/before (Relay's algorithm) to items
// whose cursors are keys. GitHub's pre-execution checks already refused a
// missing or excessive first/last; here a connection read only for
// totalCount gets no nodes.
func paginate(typ string, items []any, keys []string, args map[string]any) (object, error) {
	return paginateWith(typ, items, keys, args, encodeCursor, decodeCursor)
}

// paginateWith is paginate with a cursor codec of its own.
func paginateWith(typ string, items []any, keys []string, args map[string]any, enc, dec func(string) string) (object, error) {
	start, end := 0, len(items)
	if a, ok := argString(args, "after"); ok {
		i := slices.Index(keys, dec(a))
		if i < 0 {
			return object{}, errorf("INVALID_CURSOR_ARGUMENTS", "`%s` does not appear to be a valid cursor.", a)
		}
		start = i + 1
	}
	if b, ok := argString(args, "before"); ok {
		i := slices.Index(keys, dec(b))
		if i < 0 {
			return object{}, errorf("INVALID_CURSOR_ARGUMENTS", "`%s` does not appear to be a valid cursor.", b)
		}
		end = i
	}
	if end < start {
		end = start
	}
	c := &connection{typ: typ, total: len(items)}
	first, hasFirst := argInt(args, "first")
	last, hasLast := argInt(args, "last")
	lo, hi := start, end
	if hasFirst && hi-lo > first {
		hi = lo + first
		c.hasNext = true
	}
	if hasLast && hi-lo > last {
		lo = hi - last
		c.hasPrev = true
	}
	if !hasFirst && !hasLast {
		lo, hi = start, start
	}
	// GitHub reports hasNextPage/hasPreviousPage only in the direction of
	// travel; the other direction says whether a cursor bounded the window.
	if !hasFirst && end < len(items) {
		c.hasNext = true
	}
	if !hasLast && start > 0 {
		c.hasPrev = true
	}
	c.nodes = items[lo:hi]
	for _, k := range keys[lo:hi] {
		c.cursors = append(c.cursors, enc(k))
	}
	return object{typ: typ, v: c}, nil
}

func encodeCursor(k string) string { return b64("cursor:v2:" + k) }

func decodeCursor(c string) string {
	s, ok := unb64(c)
	if !ok {
		return "\x00invalid"
	}
	k, ok := strings.CutPrefix(s, "cursor:v2:")
	if !ok {
		return "\x00invalid"
	}
	return k
}

type edge struct {
	typ    string
	node   any
	cursor string
}

func init() {
	// Every *Connection, *Edge and PageInfo the fake produces resolves here.
	conn := map[string]resolver{
		"totalCount": func(x *executor, src any, _ map[string]any) (any, error) {
			return src.(*connection).total, nil
		},
		"nodes": func(x *executor, src any, _ map[string]any) (any, error) {
			return src.(*connection).nodes, nil
		},
		"edges": func(x *executor, src any, _ map[string]any) (any, error) {
			c := src.(*connection)
			edgeType := strings.TrimSuffix(c.typ, "Connection") + "Edge"
			out := make([]any, len(c.nodes))
			for i, n := range c.nodes {
				out[i] = object{typ: edgeType, v: &edge{typ: edgeType, node: n, cursor: c.cursors[i]}}
			}
			return out, nil
		},
		"pageInfo": func(x *executor, src any, _ map[string]any) (any, error) {
			return object{typ: "PageInfo", v: src}, nil
		},
	}
	for _, t := range []string{"DiscussionCommentConnection", "IssueCommentConnection", "DiscussionConnection", "LabelConnection",
		"ReactionConnection", "ReactorConnection", "ReactingUserConnection", "SearchResultItemConnection", "RefConnection"} {
		register(t, conn)
	}
	search := map[string]resolver{}
	for _, n := range []string{"discussionCount", "issueCount", "codeCount", "repositoryCount", "userCount", "wikiCount"} {
		search[n] = func(x *executor, src any, _ map[string]any) (any, error) {
			return src.(*connection).extraInts[n], nil
		}
	}
	register("SearchResultItemConnection", search)
	edgeFields := map[string]resolver{
		"node":   func(x *executor, src any, _ map[string]any) (any, error) { return src.(*edge).node, nil },
		"cursor": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*edge).cursor, nil },
	}
	for _, t := range []string{"DiscussionCommentEdge", "IssueCommentEdge", "DiscussionEdge", "LabelEdge", "ReactionEdge", "SearchResultItemEdge", "RefEdge"} {
		register(t, edgeFields)
	}
	register("PageInfo", map[string]resolver{
		"hasNextPage":     func(x *executor, src any, _ map[string]any) (any, error) { return src.(*connection).hasNext, nil },
		"hasPreviousPage": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*connection).hasPrev, nil },
		"startCursor": func(x *executor, src any, _ map[string]any) (any, error) {
			c := src.(*connection)
			if len(c.cursors) == 0 {
				return nil, nil
			}
			return c.cursors[0], nil
		},
		"endCursor": func(x *executor, src any, _ map[string]any) (any, error) {
			c := src.(*connection)
			if len(c.cursors) == 0 {
				return nil, nil
			}
			return c.cursors[len(c.cursors)-1], nil
		},
	})
}
