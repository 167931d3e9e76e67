package githubfake

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// schemaSource is GitHub's public schema (see testdata/github/SOURCES.md).
//
//go:embed schema.strict.graphql
var schemaSource string

var (
	schemaOnce sync.Once
	schemaVal  *ast.Schema
	schemaErr  error
)

// Schema returns GitHub's GraphQL schema as the fake loads it, so that other
// tests can validate their documents against the very same definition.
func Schema() (*ast.Schema, error) {
	schemaOnce.Do(func() {
		schemaVal, schemaErr = gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: schemaSource})
	})
	return schemaVal, schemaErr
}

// SchemaSource returns the text of the embedded schema.
func SchemaSource() string { return schemaSource }

// Limits GitHub enforces on every GraphQL call.
const (
	maxPageSize  = 100
	maxNodeLimit = 500_000
)

type graphQLRequest struct {
	Query         string          `json:"query"`
	Variables     json.RawMessage `json:"variables"`
	OperationName string          `json:"operationName"`
}

// prepared is a parsed, validated request ready to execute.
type prepared struct {
	doc    *ast.QueryDocument
	op     *ast.OperationDefinition
	vars   map[string]any
	fields []string // root fields, for the log and fault rules
	cost   int
	nodes  int
}

// rootFields parses body just far enough to name its root fields (for fault
// rules and the log), even when the document is invalid.
func rootFields(body []byte) (fields []string, mutation bool) {
	var req graphQLRequest
	if json.Unmarshal(body, &req) != nil {
		return nil, false
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: req.Query})
	if err != nil || len(doc.Operations) == 0 {
		return nil, false
	}
	op := doc.Operations[0]
	if req.OperationName != "" {
		if o := doc.Operations.ForName(req.OperationName); o != nil {
			op = o
		}
	}
	for _, s := range op.SelectionSet {
		if f, ok := s.(*ast.Field); ok {
			fields = append(fields, f.Name)
		}
	}
	return fields, op.Operation == ast.Mutation
}

// prepare parses and validates a request the way GitHub does before running
// it: schema validation, variable coercion, pagination limits, node limit
// and cost. errs is non-nil when GitHub would refuse the whole document.
func prepare(body []byte) (*prepared, []gqlError) {
	schema, err := Schema()
	if err != nil {
		return nil, []gqlError{{Message: "githubfake: schema failed to load: " + err.Error()}}
	}
	var req graphQLRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, []gqlError{{Message: "Problems parsing JSON"}}
	}
	if strings.TrimSpace(req.Query) == "" {
		return nil, []gqlError{{Message: "A query attribute must be specified and must be a string."}}
	}
	doc, errs := gqlparser.LoadQueryWithRules(schema, req.Query, nil)
	if len(errs) > 0 {
		return nil, convertErrors(errs)
	}
	var op *ast.OperationDefinition
	switch {
	case req.OperationName != "":
		op = doc.Operations.ForName(req.OperationName)
		if op == nil {
			return nil, []gqlError{{Message: fmt.Sprintf("No operation named %q", req.OperationName)}}
		}
	case len(doc.Operations) == 1:
		op = doc.Operations[0]
	default:
		return nil, []gqlError{{Message: "An operation name is required"}}
	}
	if op.Operation == ast.Subscription {
		return nil, []gqlError{{Message: "Subscriptions are not supported"}}
	}
	rawVars := map[string]any{}
	if len(req.Variables) > 0 && string(req.Variables) != "null" {
		if err := json.Unmarshal(req.Variables, &rawVars); err != nil {
			return nil, []gqlError{{Message: "Variables are invalid JSON."}}
		}
	}
	vars, err := validator.VariableValues(schema, op, rawVars)
	if err != nil {
		return nil, []gqlError{variableError(op, err)}
	}
	p := &prepared{doc: doc, op: op, vars: vars}
	for _, s := range op.SelectionSet {
		if f, ok := s.(*ast.Field); ok {
			p.fields = append(p.fields, f.Name)
		}
	}
	requests, perrs := analyze(schema, doc, vars, op.SelectionSet, 1, []any{}, &p.nodes, map[string]bool{})
	if len(perrs) > 0 {
		return nil, perrs
	}
	if p.nodes > maxNodeLimit {
		return nil, []gqlError{{Type: "MAX_NODE_LIMIT_EXCEEDED",
			Message: fmt.Sprintf("This query requests up to %d possible nodes which exceeds the maximum limit of %d.", p.nodes, maxNodeLimit)}}
	}
	p.cost = int(math.Round(float64(requests) / 100))
	if p.cost < 1 {
		p.cost = 1
	}
	return p, nil
}

// convertErrors turns validation errors into GitHub's shape, with GitHub's
// wording for the most common one (an undefined field).
func convertErrors(list gqlerror.List) []gqlError {
	out := make([]gqlError, 0, len(list))
	for _, e := range list {
		ge := gqlError{Message: e.Message}
		for _, l := range e.Locations {
			ge.Locations = append(ge.Locations, location{Line: l.Line, Column: l.Column})
		}
		if e.Rule == "FieldsOnCorrectType" {
			var field, typ string
			if _, err := fmt.Sscanf(strings.ReplaceAll(strings.ReplaceAll(e.Message, `"`, " "), ".", " "),
				"Cannot query field %s on type %s", &field, &typ); err == nil {
				ge.Message = fmt.Sprintf("Field '%s' doesn't exist on type '%s'", field, typ)
				ge.Extensions = map[string]any{"code": "undefinedField", "typeName": typ, "fieldName": field}
			}
		}
		if e.Rule == "" && len(e.Locations) > 0 && !strings.HasPrefix(ge.Message, "Parse error") {
			ge.Message = fmt.Sprintf("Parse error on %s at [%d, %d]", strings.TrimSpace(e.Message), e.Locations[0].Line, e.Locations[0].Column)
		}
		out = append(out, ge)
	}
	return out
}

func variableError(op *ast.OperationDefinition, err error) gqlError {
	var ge *gqlerror.Error
	name := ""
	msg := err.Error()
	if errors.As(err, &ge) {
		msg = ge.Message
		if len(ge.Path) > 1 {
			name = fmt.Sprint(ge.Path[1])
		}
	}
	e := gqlError{Message: "Variables are invalid: " + msg, Extensions: map[string]any{"problems": []any{map[string]any{"explanation": msg}}}}
	if v := op.VariableDefinitions.ForName(name); v != nil {
		e.Message = fmt.Sprintf("Variable $%s of type %s was provided invalid value (%s)", name, v.Type.String(), msg)
		if v.Position != nil {
			e.Locations = []location{{Line: v.Position.Line, Column: v.Position.Column}}
		}
	}
	return e
}

// analyze walks the operation like GitHub's pre-execution analysis: every
// connection selecting nodes or edges must say first or last, within 1..100;
// and it sums the requests the call needs (each connection costs as many
// requests as its parents can return) and the nodes it may return.
func analyze(schema *ast.Schema, doc *ast.QueryDocument, vars map[string]any, sel ast.SelectionSet, mult int, path []any, nodes *int, seen map[string]bool) (int, []gqlError) {
	requests := 0
	var errs []gqlError
	for _, f := range flatten(doc, sel, map[string]bool{}) {
		if f.Definition == nil {
			continue
		}
		key := f.Alias
		if key == "" {
			key = f.Name
		}
		fpath := append(append([]any{}, path...), key)
		childMult := mult
		named := f.Definition.Type.Name()
		if strings.HasSuffix(named, "Connection") && f.Definition.Arguments.ForName("first") != nil {
			args := f.ArgumentMap(vars)
			first, hasFirst := argInt(args, "first")
			last, hasLast := argInt(args, "last")
			loc := []location{}
			if f.Position != nil {
				loc = append(loc, location{Line: f.Position.Line, Column: f.Position.Column})
			}
			wantsNodes := selectsNodes(doc, f.SelectionSet)
			switch {
			case hasFirst && hasLast:
				errs = append(errs, gqlError{Type: "EXCESSIVE_PAGINATION", Path: fpath, Locations: loc,
					Message: fmt.Sprintf("Passing both `first` and `last` to paginate the `%s` connection is not supported.", f.Name)})
			case !hasFirst && !hasLast && wantsNodes:
				errs = append(errs, gqlError{Type: "MISSING_PAGINATION_BOUNDARIES", Path: fpath, Locations: loc,
					Message: fmt.Sprintf("You must provide a `first` or `last` value to properly paginate the `%s` connection.", f.Name)})
			case hasFirst && first > maxPageSize:
				errs = append(errs, gqlError{Type: "EXCESSIVE_PAGINATION", Path: fpath, Locations: loc,
					Message: fmt.Sprintf("Requesting %d records on the `%s` connection exceeds the `first` limit of %d records.", first, f.Name, maxPageSize)})
			case hasLast && last > maxPageSize:
				errs = append(errs, gqlError{Type: "EXCESSIVE_PAGINATION", Path: fpath, Locations: loc,
					Message: fmt.Sprintf("Requesting %d records on the `%s` connection exceeds the `last` limit of %d records.", last, f.Name, maxPageSize)})
			case (hasFirst && first < 0) || (hasLast && last < 0):
				errs = append(errs, gqlError{Type: "INVALID_PAGINATION", Path: fpath, Locations: loc,
					Message: fmt.Sprintf("`first` and `last` on the `%s` connection cannot be less than zero.", f.Name)})
			}
			limit := max(first, last)
			if !hasFirst && !hasLast {
				limit = 0
			}
			requests += mult
			*nodes += mult * limit
			childMult = mult * max(limit, 1)
		}
		if len(f.SelectionSet) > 0 {
			r, e := analyze(schema, doc, vars, f.SelectionSet, childMult, fpath, nodes, seen)
			requests += r
			errs = append(errs, e...)
		}
	}
	return requests, errs
}

// flatten returns the fields of sel with fragments expanded (every type
// condition included: the analysis is about the worst case).
func flatten(doc *ast.QueryDocument, sel ast.SelectionSet, visited map[string]bool) []*ast.Field {
	var out []*ast.Field
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			out = append(out, s)
		case *ast.InlineFragment:
			out = append(out, flatten(doc, s.SelectionSet, visited)...)
		case *ast.FragmentSpread:
			if visited[s.Name] {
				continue
			}
			visited[s.Name] = true
			if fr := doc.Fragments.ForName(s.Name); fr != nil {
				out = append(out, flatten(doc, fr.SelectionSet, visited)...)
			}
		}
	}
	return out
}

func selectsNodes(doc *ast.QueryDocument, sel ast.SelectionSet) bool {
	for _, f := range flatten(doc, sel, map[string]bool{}) {
		if f.Name == "nodes" || f.Name == "edges" {
			return true
		}
	}
	return false
}

// graphQLResponse is the body GitHub sends.
type graphQLResponse struct {
	Data   any        `json:"data,omitempty"`
	Errors []gqlError `json:"errors,omitempty"`
}

// serveGraphQL answers one GraphQL request for an authenticated identity.
// It returns the status, the body and the points charged.
func (g *GitHub) serveGraphQL(body []byte, viewer *identity, token string) (int, []byte, int) {
	p, errs := prepare(body)
	if errs != nil {
		return http.StatusOK, mustJSON(graphQLResponse{Errors: errs}), 0
	}
	schema, _ := Schema()
	g.mu.Lock()
	b := g.budget(token)
	if b.graphqlUsed+p.cost > g.graphqlBudget {
		g.mu.Unlock()
		return http.StatusOK, mustJSON(graphQLResponse{Errors: []gqlError{{Type: "RATE_LIMITED",
			Message: fmt.Sprintf("API rate limit exceeded for user ID %d.", viewer.dbID)}}}), 0
	}
	b.graphqlUsed += p.cost
	x := &executor{g: g, schema: schema, doc: p.doc, op: p.op, vars: p.vars, viewer: viewer, token: token, cost: p.cost, nodes: p.nodes}
	data := x.run()
	g.mu.Unlock()
	resp := graphQLResponse{Errors: x.errors}
	if data != nil {
		resp.Data = data
	} else {
		resp.Data = json.RawMessage("null")
	}
	return http.StatusOK, mustJSON(resp), p.cost
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"message": "githubfake: cannot encode response: " + err.Error()})
	}
	return b
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func unb64(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", false
	}
	return string(b), true
}
