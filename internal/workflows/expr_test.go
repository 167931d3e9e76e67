package workflows_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// evalExpr evaluates a GitHub Actions expression (an if: without ${{ }})
// in a context (github, inputs, ...), as GitHub documents them
// (docs.github.com/en/actions/reference/workflows-and-actions/expressions):
// literals, property and index access, the * object filter, ! < <= > >=
// == != && || with their precedence and loose equality (strings compare
// without case), && and || yielding an operand, and the functions
// contains, startsWith, endsWith and toJSON. Anything else is an error, so
// a workflow that outgrows it fails the test that reads it.
func evalExpr(expr string, context map[string]any) (any, error) {
	p := &exprParser{toks: exprToken.FindAllString(expr, -1), context: context}
	if strings.TrimSpace(exprToken.ReplaceAllString(expr, " ")) != "" {
		return nil, fmt.Errorf("expression %q: a character no token takes", expr)
	}
	v, err := p.or()
	if err == nil && p.i < len(p.toks) {
		err = fmt.Errorf("expression %q: unexpected %q", expr, p.toks[p.i])
	}
	return v, err
}

var exprToken = regexp.MustCompile(`'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_-]*|[0-9]+(?:\.[0-9]+)?|&&|\|\||==|!=|<=|>=|[()\[\].,!<>*]`)

// filtered is the array an object filter (*) makes: a property of it is
// that property of each element.
type filtered []any

type exprParser struct {
	toks    []string
	i       int
	context map[string]any
}

func (p *exprParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *exprParser) next() string { t := p.peek(); p.i++; return t }

func (p *exprParser) expect(t string) error {
	if got := p.next(); got != t {
		return fmt.Errorf("expression: want %q, got %q", t, got)
	}
	return nil
}

// binary parses operands joined by the operators ops, left to right.
func (p *exprParser) binary(operand func() (any, error), apply func(op string, a, b any) any, ops ...string) (any, error) {
	v, err := operand()
	for err == nil && slices.Contains(ops, p.peek()) {
		op := p.next()
		var w any
		if w, err = operand(); err == nil {
			v = apply(op, v, w)
		}
	}
	return v, err
}

func (p *exprParser) or() (any, error) {
	return p.binary(p.and, func(_ string, a, b any) any {
		if truthy(a) {
			return a
		}
		return b
	}, "||")
}

func (p *exprParser) and() (any, error) {
	return p.binary(p.eq, func(_ string, a, b any) any {
		if !truthy(a) {
			return a
		}
		return b
	}, "&&")
}

func (p *exprParser) eq() (any, error) {
	return p.binary(p.cmp, func(op string, a, b any) any { return looseEqual(a, b) == (op == "==") }, "==", "!=")
}

func (p *exprParser) cmp() (any, error) {
	return p.binary(p.unary, func(op string, a, b any) any {
		x, y := number(a), number(b)
		if s, ok := a.(string); ok {
			if t, ok := b.(string); ok {
				x, y = float64(strings.Compare(strings.ToLower(s), strings.ToLower(t))), 0
			}
		}
		switch op {
		case "<":
			return x < y
		case "<=":
			return x <= y
		case ">":
			return x > y
		}
		return x >= y
	}, "<", "<=", ">", ">=")
}

func (p *exprParser) unary() (any, error) {
	if p.peek() == "!" {
		p.next()
		v, err := p.unary()
		return !truthy(v), err
	}
	return p.postfix()
}

func (p *exprParser) postfix() (any, error) {
	v, err := p.primary()
	for err == nil {
		switch p.peek() {
		case ".":
			p.next()
			if k := p.next(); k == "*" {
				v = star(v)
			} else {
				v = index(v, k)
			}
		case "[":
			p.next()
			if p.peek() == "*" {
				p.next()
				v = star(v)
			} else {
				var k any
				if k, err = p.or(); err == nil {
					v = index(v, k)
				}
			}
			if err == nil {
				err = p.expect("]")
			}
		default:
			return v, err
		}
	}
	return v, err
}

func (p *exprParser) primary() (any, error) {
	t := p.next()
	switch {
	case t == "(":
		v, err := p.or()
		if err == nil {
			err = p.expect(")")
		}
		return v, err
	case strings.HasPrefix(t, "'"):
		return strings.ReplaceAll(t[1:len(t)-1], "''", "'"), nil
	case t == "true" || t == "false":
		return t == "true", nil
	case t == "null":
		return nil, nil
	case t != "" && t[0] >= '0' && t[0] <= '9':
		return strconv.ParseFloat(t, 64)
	case p.peek() == "(":
		return p.call(t)
	}
	v, ok := p.context[t]
	if !ok {
		return nil, fmt.Errorf("expression: no context %q", t)
	}
	return v, nil
}

func (p *exprParser) call(name string) (any, error) {
	p.next()
	var args []any
	for p.peek() != ")" {
		if len(args) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		v, err := p.or()
		if err != nil {
			return nil, err
		}
		args = append(args, v)
	}
	p.next()
	need := map[string]int{"contains": 2, "startswith": 2, "endswith": 2, "tojson": 1}
	if n, ok := need[strings.ToLower(name)]; !ok || n != len(args) {
		return nil, fmt.Errorf("expression: function %s with %d arguments", name, len(args))
	}
	switch strings.ToLower(name) {
	case "contains":
		if list, ok := asList(args[0]); ok {
			for _, e := range list {
				if looseEqual(e, args[1]) {
					return true, nil
				}
			}
			return false, nil
		}
		return strings.Contains(strings.ToLower(str(args[0])), strings.ToLower(str(args[1]))), nil
	case "startswith":
		return strings.HasPrefix(strings.ToLower(str(args[0])), strings.ToLower(str(args[1]))), nil
	case "endswith":
		return strings.HasSuffix(strings.ToLower(str(args[0])), strings.ToLower(str(args[1]))), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(args[0]); err != nil {
		return nil, err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func asList(v any) ([]any, bool) {
	switch l := v.(type) {
	case []any:
		return l, true
	case filtered:
		return l, true
	}
	return nil, false
}

// index is v's property (or element) k; null when it has none. Property
// names compare without case.
func index(v, k any) any {
	if f, ok := v.(filtered); ok {
		var out filtered
		for _, e := range f {
			if x := index(e, k); x != nil {
				out = append(out, x)
			}
		}
		return out
	}
	switch o := v.(type) {
	case map[string]any:
		for key, x := range o {
			if strings.EqualFold(key, str(k)) {
				return x
			}
		}
	case []any:
		if n := number(k); n >= 0 && n < float64(len(o)) && n == math.Trunc(n) {
			return o[int(n)]
		}
	}
	return nil
}

// star is the object filter: an array's elements, an object's values.
func star(v any) any {
	out := filtered{}
	switch o := v.(type) {
	case map[string]any:
		for _, x := range o {
			out = append(out, x)
		}
	case []any:
		out = append(out, o...)
	case filtered:
		for _, e := range o {
			if l, ok := star(e).(filtered); ok {
				out = append(out, l...)
			}
		}
	}
	return out
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

// looseEqual is ==: strings without case, other types of different kinds
// as numbers, objects and arrays only to themselves (never here).
func looseEqual(a, b any) bool {
	s, sok := a.(string)
	t, tok := b.(string)
	switch {
	case sok && tok:
		return strings.EqualFold(s, t)
	case a == nil && b == nil:
		return true
	}
	if _, ok := asList(a); ok {
		return false
	}
	if _, ok := a.(map[string]any); ok {
		return false
	}
	if _, ok := asList(b); ok {
		return false
	}
	if _, ok := b.(map[string]any); ok {
		return false
	}
	return number(a) == number(b)
}

func number(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		if strings.TrimSpace(x) == "" {
			return 0
		}
		if n, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return n
		}
	}
	return math.NaN()
}

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	case map[string]any:
		return "Object"
	}
	return "Array"
}
