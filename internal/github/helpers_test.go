package github

import (
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/recess-action/recess/internal/fakeclock"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"
)

// testToken is the only token the test server accepts.
const testToken = "test-token"

var epoch = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// newFakeClock is the transport's clock in tests: Sleep records the wait
// and steps the clock, so waits cost no real time.
func newFakeClock() *fakeclock.Clock { return fakeclock.New(epoch) }

var (
	schemaOnce sync.Once
	schemaVal  *ast.Schema
	schemaErr  error
)

// loadSchema loads GitHub's public schema once per test binary. The file may
// live in testdata or, once moved there, beside the fake GitHub.
func loadSchema(t *testing.T) *ast.Schema {
	t.Helper()
	schemaOnce.Do(func() {
		var data []byte
		for _, p := range []string{"../../testdata/github/schema.strict.graphql", "../githubfake/schema.strict.graphql"} {
			var err error
			if data, err = os.ReadFile(p); err == nil {
				break
			}
		}
		if data == nil {
			schemaErr = fmt.Errorf("schema.strict.graphql not found")
			return
		}
		schemaVal, schemaErr = gqlparser.LoadSchema(&ast.Source{Name: "schema.strict.graphql", Input: string(data)})
	})
	if schemaErr != nil {
		t.Fatalf("loading GitHub's schema: %v", schemaErr)
	}
	return schemaVal
}

// validate checks one GraphQL request against GitHub's schema: the document
// and the variables' values.
func validate(schema *ast.Schema, query string, vars map[string]any) (*ast.QueryDocument, error) {
	doc, errs := gqlparser.LoadQuery(schema, query)
	if len(errs) > 0 {
		return nil, fmt.Errorf("invalid document: %v", errs)
	}
	if len(doc.Operations) != 1 {
		return nil, fmt.Errorf("want one operation, got %d", len(doc.Operations))
	}
	if _, err := validator.VariableValues(schema, doc.Operations[0], vars); err != nil {
		return nil, fmt.Errorf("invalid variables: %v", err)
	}
	return doc, nil
}

// call is one request the test server received.
type call struct {
	// Kind is "graphql" or "rest".
	Kind   string
	Method string
	// Root is the GraphQL root field, or the REST path under /api/v3.
	Root  string
	Query string
	Vars  map[string]any
	Body  string
	// At is the fake clock's time when the request arrived.
	At time.Time
}

// obj is a node of the hub's object graph; a field's value may be a
// func(args) any resolved lazily.
type obj map[string]any

type resolver = func(args map[string]any) any

type hubComment struct {
	id, parent, author, assoc, body string
	created, updated                time.Time
	mine, minimized, deleted        bool
	disc                            *hubDisc
}

type hubDisc struct {
	id, title, body string
	number          int
	created         time.Time
	closed          bool
	labels          map[string]bool
	comments        []*hubComment
	replies         map[string][]*hubComment
}

// hub is a small scripted GitHub for this package's tests: an object graph
// served by a minimal executor over documents that are first validated
// against GitHub's real schema, plus REST handlers the tests register. It
// fails the test on any invalid document, unknown field or request outside
// the API prefix.
type hub struct {
	t      *testing.T
	schema *ast.Schema
	clock  *fakeclock.Clock
	srv    *httptest.Server
	rest   *http.ServeMux

	mu       sync.Mutex
	seq      int
	discs    map[int]*hubDisc
	comments map[string]*hubComment
	labels   map[string]string
	// defaultBranch is the repository's default branch ("" : main).
	defaultBranch string
	calls         []call
	inflight      int
	maxIn         int
	// fault, when set, may answer a request instead of the hub.
	fault func(w http.ResponseWriter, c call) bool
	// delay is real time each request takes, to expose overlap.
	delay time.Duration
	// noLabelCreation: createLabel answers with no label, as for a token
	// that may not create one.
	noLabelCreation bool
}

func newHub(t *testing.T) *hub {
	t.Helper()
	h := &hub{
		t:        t,
		schema:   loadSchema(t),
		clock:    newFakeClock(),
		rest:     http.NewServeMux(),
		discs:    map[int]*hubDisc{},
		comments: map[string]*hubComment{},
		labels:   map[string]string{},
	}
	h.srv = httptest.NewServer(h)
	t.Cleanup(h.srv.Close)
	return h
}

// client builds a Client on the hub with the fake clock; edit adjusts the
// config.
func (h *hub) client(t *testing.T, edit func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		Token:      testToken,
		APIURL:     h.srv.URL + "/api/v3",
		GraphQLURL: h.srv.URL + "/api/graphql",
		Owner:      "o",
		Repo:       "r",
		Clock:      h.clock,
		Sleep:      h.clock.Sleep,
		Logf:       t.Logf,
	}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v) = %v", cfg, err)
	}
	return c
}

func (h *hub) nextID(prefix string) string {
	h.seq++
	return prefix + strconv.Itoa(h.seq)
}

func (h *hub) addLabel(name string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	id := h.nextID("LA_")
	h.labels[name] = id
	return id
}

func (h *hub) addDiscussion(number int) *hubDisc {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := &hubDisc{id: h.nextID("D_"), number: number, title: "RFC " + strconv.Itoa(number), body: "body",
		created: h.clock.Now(), labels: map[string]bool{}, replies: map[string][]*hubComment{}}
	h.discs[number] = d
	return d
}

// comment adds a top-level comment (parent "") or a reply.
func (h *hub) comment(d *hubDisc, parent, author, body string, mine bool) *hubComment {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.commentLocked(d, parent, author, body, mine)
}

func (h *hub) commentLocked(d *hubDisc, parent, author, body string, mine bool) *hubComment {
	h.clock.Step(time.Second)
	now := h.clock.Now()
	c := &hubComment{id: h.nextID("DC_"), parent: parent, author: author, assoc: "NONE", body: body,
		created: now, updated: now, mine: mine, disc: d}
	if parent == "" {
		d.comments = append(d.comments, c)
	} else {
		d.replies[parent] = append(d.replies[parent], c)
	}
	h.comments[c.id] = c
	return c
}

// edit changes the hub's model under its lock.
func (h *hub) edit(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f()
}

func (h *hub) hasLabel(d *hubDisc, name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return d.labels[name]
}

func (h *hub) Calls() []call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]call(nil), h.calls...)
}

func (h *hub) ResetCalls() {
	h.mu.Lock()
	h.calls = nil
	h.mu.Unlock()
}

func (h *hub) MaxInFlight() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.maxIn
}

func (h *hub) setFault(f func(w http.ResponseWriter, c call) bool) {
	h.mu.Lock()
	h.fault = f
	h.mu.Unlock()
}

func (h *hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.inflight++
	h.maxIn = max(h.maxIn, h.inflight)
	delay := h.delay
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.inflight--
		h.mu.Unlock()
	}()
	if delay > 0 {
		time.Sleep(delay)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
		h.t.Errorf("%s %s: Authorization = %q, want the bearer token", r.Method, r.URL.Path, got)
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"message":"Bad credentials"}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.URL.Path == "/api/graphql":
		h.graphql(w, body)
	case strings.HasPrefix(r.URL.Path, "/api/v3/"):
		c := call{Kind: "rest", Method: r.Method, Root: strings.TrimPrefix(r.URL.Path, "/api/v3"), Body: string(body)}
		if r.URL.RawQuery != "" {
			c.Root += "?" + r.URL.RawQuery
		}
		if h.record(w, c) {
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		h.rest.ServeHTTP(w, r)
	default:
		h.t.Errorf("request outside the API prefix: %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
	}
}

// record logs a call and lets the fault hook answer it.
func (h *hub) record(w http.ResponseWriter, c call) bool {
	c.At = h.clock.Now()
	h.mu.Lock()
	h.calls = append(h.calls, c)
	fault := h.fault
	h.mu.Unlock()
	return fault != nil && fault(w, c)
}

func (h *hub) graphql(w http.ResponseWriter, body []byte) {
	var req struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		h.t.Errorf("graphql request is not JSON: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	doc, err := validate(h.schema, req.Query, req.Variables)
	if err != nil {
		h.t.Errorf("%v\n%s", err, req.Query)
		writeJSON(w, 200, map[string]any{"errors": []any{map[string]any{"message": err.Error()}}})
		return
	}
	op := doc.Operations[0]
	root := ""
	for _, s := range op.SelectionSet {
		if f, ok := s.(*ast.Field); ok {
			root = f.Name
			break
		}
	}
	if h.record(w, call{Kind: "graphql", Method: string(op.Operation), Root: root, Query: req.Query, Vars: req.Variables}) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var errs []any
	var rootObj obj
	if op.Operation == ast.Mutation {
		rootObj = h.mutationRoot()
	} else {
		rootObj = h.queryRoot(&errs)
	}
	data := h.exec(op.SelectionSet, rootObj, req.Variables)
	out := map[string]any{"data": data}
	if len(errs) > 0 {
		out["errors"] = errs
	}
	writeJSON(w, 200, out)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (h *hub) exec(set ast.SelectionSet, v any, vars map[string]any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = h.exec(set, x[i], vars)
		}
		return out
	case obj:
		res := map[string]any{}
		h.collect(set, x, vars, res)
		return res
	}
	return v
}

func (h *hub) collect(set ast.SelectionSet, o obj, vars map[string]any, res map[string]any) {
	for _, s := range set {
		switch f := s.(type) {
		case *ast.Field:
			val, ok := o[f.Name]
			if !ok {
				h.t.Errorf("hub: field %q of %v is not modelled", f.Name, o["__typename"])
				continue
			}
			if fn, isFn := val.(resolver); isFn {
				val = fn(f.ArgumentMap(vars))
			}
			res[f.Alias] = h.exec(f.SelectionSet, val, vars)
		case *ast.InlineFragment:
			if f.TypeCondition == "" || o["__typename"] == f.TypeCondition {
				h.collect(f.SelectionSet, o, vars, res)
			}
		case *ast.FragmentSpread:
			h.collect(f.Definition.SelectionSet, o, vars, res)
		}
	}
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func toInt(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case float64:
		return int(n)
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}

// page serves a connection the way GitHub does: first (1..100) items after
// an opaque cursor, or the last ones.
func page[T any](items []T, args map[string]any, node func(T) any) obj {
	first := toInt(args["first"])
	start := 0
	if a, ok := args["after"].(string); ok && a != "" {
		start, _ = strconv.Atoi(strings.TrimPrefix(a, "cur"))
	}
	if last, ok := args["last"]; ok && last != nil {
		stop := len(items)
		if b, ok := args["before"].(string); ok && b != "" {
			stop, _ = strconv.Atoi(strings.TrimPrefix(b, "cur"))
		}
		start, first = max(stop-toInt(last), 0), min(toInt(last), stop)
	}
	end := min(start+first, len(items))
	nodes := []any{}
	for _, it := range items[start:end] {
		nodes = append(nodes, node(it))
	}
	var cursor, back any
	if end > start {
		// A cursor is a boundary between items: after it, or before it.
		cursor, back = "cur"+strconv.Itoa(end), "cur"+strconv.Itoa(start)
	}
	return obj{
		"__typename": "Connection",
		"totalCount": len(items),
		"pageInfo": obj{"hasNextPage": end < len(items), "endCursor": cursor,
			"hasPreviousPage": start > 0, "startCursor": back},
		"nodes": nodes,
	}
}

func (h *hub) commentObj(c *hubComment) obj {
	var author any = obj{"__typename": "User", "login": c.author}
	if c.mine {
		author = obj{"__typename": "Bot", "login": c.author}
	}
	if c.author == "" {
		author = nil
	}
	var replyTo any
	if c.parent != "" {
		replyTo = obj{"__typename": "DiscussionComment", "id": c.parent}
	}
	var deletedAt any
	if c.deleted {
		deletedAt = ts(c.updated)
	}
	return obj{
		"__typename":        "DiscussionComment",
		"id":                c.id,
		"body":              c.body,
		"url":               "https://github.com/o/r/discussions/" + strconv.Itoa(c.disc.number) + "#" + c.id,
		"createdAt":         ts(c.created),
		"updatedAt":         ts(c.updated),
		"lastEditedAt":      lastEdited(c),
		"isMinimized":       c.minimized,
		"deletedAt":         deletedAt,
		"viewerDidAuthor":   c.mine,
		"authorAssociation": c.assoc,
		"author":            author,
		"replyTo":           replyTo,
		"discussion":        resolver(func(map[string]any) any { return h.discObj(c.disc) }),
		"reactionGroups":    noReactions(),
		"replies": resolver(func(args map[string]any) any {
			return page(c.disc.replies[c.id], args, func(r *hubComment) any { return h.commentObj(r) })
		}),
	}
}

func (h *hub) discObj(d *hubDisc) obj {
	return obj{
		"__typename":      "Discussion",
		"id":              d.id,
		"number":          d.number,
		"title":           d.title,
		"body":            d.body,
		"url":             "https://github.com/o/r/discussions/" + strconv.Itoa(d.number),
		"createdAt":       ts(d.created),
		"closed":          d.closed,
		"locked":          false,
		"viewerDidAuthor": false,
		"author":          obj{"__typename": "User", "login": "alice"},
		"category":        obj{"__typename": "DiscussionCategory", "name": "General", "slug": "general"},
		"repository":      h.repoFacts(),
		"reactionGroups":  noReactions(),
		"labels": resolver(func(args map[string]any) any {
			var names []string
			for n, on := range d.labels {
				if on {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			return page(names, args, func(n string) any { return obj{"name": n, "id": h.labels[n]} })
		}),
		"comments": resolver(func(args map[string]any) any {
			return page(d.comments, args, func(c *hubComment) any { return h.commentObj(c) })
		}),
	}
}

// noReactions is a subject's reaction groups as GitHub answers them when
// nobody reacted: one per content (the hub keeps no reactions).
func noReactions() []any {
	var out []any
	for _, c := range []string{"THUMBS_UP", "THUMBS_DOWN", "LAUGH", "HOORAY", "CONFUSED", "HEART", "ROCKET", "EYES"} {
		out = append(out, obj{"__typename": "ReactionGroup", "content": c, "viewerHasReacted": false})
	}
	return out
}

// repoFacts is what a discussion's repository field answers: the default
// branch and the repository's labels by name.
func (h *hub) repoFacts() obj {
	return obj{
		"__typename":       "Repository",
		"id":               "R_1",
		"defaultBranchRef": obj{"name": cmp.Or(h.defaultBranch, "main")},
		"label": resolver(func(args map[string]any) any {
			id, ok := h.labels[args["name"].(string)]
			if !ok {
				return nil
			}
			return obj{"id": id, "name": args["name"]}
		}),
	}
}

func (h *hub) sortedDiscs(filter func(*hubDisc) bool) []*hubDisc {
	var out []*hubDisc
	for _, d := range h.discs {
		if filter(d) {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].number > out[j].number })
	return out
}

func notFound(errs *[]any, what string) {
	*errs = append(*errs, map[string]any{"type": "NOT_FOUND", "message": "Could not resolve to " + what})
}

func (h *hub) node(id string) any {
	if c, ok := h.comments[id]; ok {
		return h.commentObj(c)
	}
	for _, d := range h.discs {
		if d.id == id {
			return h.discObj(d)
		}
	}
	return nil
}

func (h *hub) queryRoot(errs *[]any) obj {
	return obj{
		"repository": resolver(func(args map[string]any) any {
			if args["owner"] != "o" || args["name"] != "r" {
				notFound(errs, "a Repository")
				return nil
			}
			return obj{
				"__typename": "Repository",
				"id":         "R_1",
				"discussion": resolver(func(args map[string]any) any {
					d := h.discs[toInt(args["number"])]
					if d == nil {
						notFound(errs, "a Discussion")
						return nil
					}
					return h.discObj(d)
				}),
				"label": resolver(func(args map[string]any) any {
					id, ok := h.labels[args["name"].(string)]
					if !ok {
						return nil
					}
					return obj{"id": id, "name": args["name"]}
				}),
				"discussions": resolver(func(args map[string]any) any {
					open := h.sortedDiscs(func(d *hubDisc) bool { return !d.closed })
					return page(open, args, func(d *hubDisc) any { return h.discObj(d) })
				}),
				// The default branch holds the agent workflow, agent.yml.
				"object": resolver(func(args map[string]any) any {
					if args["expression"] != "HEAD:.github/workflows/agent.yml" {
						return nil
					}
					return obj{"__typename": "Blob", "oid": "9d1c4d1f0e2b3a4c5d6e7f8091a2b3c4d5e6f708"}
				}),
			}
		}),
		"node": resolver(func(args map[string]any) any {
			n := h.node(args["id"].(string))
			if n == nil {
				notFound(errs, "a node")
			}
			return n
		}),
		"nodes": resolver(func(args map[string]any) any {
			var out []any
			for _, id := range args["ids"].([]any) {
				n := h.node(id.(string))
				if n == nil {
					notFound(errs, "a node")
				}
				out = append(out, n)
			}
			return out
		}),
		"search": resolver(func(args map[string]any) any {
			q := args["query"].(string)
			if !strings.Contains(q, "repo:o/r") {
				h.t.Errorf("search %q: not limited to the repository", q)
			}
			label := ""
			if i := strings.Index(q, `label:"`); i >= 0 {
				rest := q[i+len(`label:"`):]
				label = rest[:strings.Index(rest, `"`)]
			}
			hits := h.sortedDiscs(func(d *hubDisc) bool { return label == "" || d.labels[label] })
			p := page(hits, args, func(d *hubDisc) any { return h.discObj(d) })
			p["discussionCount"] = len(hits)
			return p
		}),
	}
}

func input(args map[string]any) map[string]any { return args["input"].(map[string]any) }

func (h *hub) mutationRoot() obj {
	ok := obj{"clientMutationId": nil}
	return obj{
		"addDiscussionComment": resolver(func(args map[string]any) any {
			in := input(args)
			var d *hubDisc
			for _, x := range h.discs {
				if x.id == in["discussionId"] {
					d = x
				}
			}
			if d == nil {
				h.t.Errorf("addDiscussionComment: no discussion %v", in["discussionId"])
				return nil
			}
			parent, _ := in["replyToId"].(string)
			if p := h.comments[parent]; parent != "" && (p == nil || p.parent != "") {
				h.t.Errorf("addDiscussionComment: replyToId %q is not a top-level comment", parent)
				return nil
			}
			c := h.commentLocked(d, parent, "github-actions", in["body"].(string), true)
			return obj{"comment": h.commentObj(c)}
		}),
		"updateDiscussionComment": resolver(func(args map[string]any) any {
			in := input(args)
			c := h.comments[in["commentId"].(string)]
			if c == nil || !c.mine {
				h.t.Errorf("updateDiscussionComment: no comment of ours %v", in["commentId"])
				return nil
			}
			h.clock.Step(time.Second)
			c.body, c.updated = in["body"].(string), h.clock.Now()
			return obj{"comment": h.commentObj(c)}
		}),
		"deleteDiscussionComment": resolver(func(args map[string]any) any {
			in := input(args)
			c := h.comments[in["id"].(string)]
			if c == nil || c.deleted {
				h.t.Errorf("deleteDiscussionComment: no comment %v", in["id"])
				return nil
			}
			// GitHub keeps a deleted top-level comment with replies as a
			// tombstone; one without goes.
			c.deleted, c.body = true, ""
			if c.parent == "" && len(c.disc.replies[c.id]) == 0 {
				c.disc.comments = slices.DeleteFunc(c.disc.comments, func(x *hubComment) bool { return x == c })
				delete(h.comments, c.id)
			}
			return obj{"comment": obj{"id": c.id}}
		}),
		"createLabel": resolver(func(args map[string]any) any {
			in := input(args)
			name := in["name"].(string)
			if h.noLabelCreation {
				return nil
			}
			if _, dup := h.labels[name]; dup {
				h.t.Errorf("createLabel: %q exists already", name)
				return nil
			}
			id := h.nextID("LA_")
			h.labels[name] = id
			return obj{"label": obj{"id": id}}
		}),
		"addLabelsToLabelable":      resolver(func(args map[string]any) any { h.setLabels(input(args), true); return ok }),
		"removeLabelsFromLabelable": resolver(func(args map[string]any) any { h.setLabels(input(args), false); return ok }),
		"addReaction":               resolver(func(map[string]any) any { return ok }),
		"removeReaction":            resolver(func(map[string]any) any { return ok }),
		"minimizeComment": resolver(func(args map[string]any) any {
			if c := h.comments[input(args)["subjectId"].(string)]; c != nil {
				c.minimized = true
			}
			return ok
		}),
	}
}

func (h *hub) setLabels(in map[string]any, on bool) {
	for _, d := range h.discs {
		if d.id != in["labelableId"] {
			continue
		}
		for _, id := range in["labelIds"].([]any) {
			for name, lid := range h.labels {
				if lid == id {
					d.labels[name] = on
				}
			}
		}
	}
}

// roots lists the calls as "kind root" strings, for comparing sequences.
func roots(calls []call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Method + " " + c.Root
	}
	return out
}

// failFirst returns a fault that answers the first n calls matching match
// with respond, and lets everything else through.
func failFirst(n int, match func(call) bool, respond func(w http.ResponseWriter)) func(http.ResponseWriter, call) bool {
	var mu sync.Mutex
	return func(w http.ResponseWriter, c call) bool {
		if !match(c) {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		if n == 0 {
			return false
		}
		n--
		respond(w)
		return true
	}
}

func isREST(c call) bool     { return c.Kind == "rest" }
func isQuery(c call) bool    { return c.Kind == "graphql" && c.Method == "query" }
func isMutation(c call) bool { return c.Kind == "graphql" && c.Method == "mutation" }

// serveRun registers GET of one workflow run.
func (h *hub) serveRun(id int64, displayTitle string) {
	h.rest.HandleFunc("GET /api/v3/repos/o/r/actions/runs/"+strconv.FormatInt(id, 10), func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, runJSON(id, displayTitle))
	})
}

func runJSON(id int64, displayTitle string) map[string]any {
	return map[string]any{
		"id": id, "name": "agent", "display_title": displayTitle, "status": "queued", "event": "workflow_dispatch",
		"created_at": ts(epoch), "html_url": "https://github.com/o/r/actions/runs/" + strconv.FormatInt(id, 10),
	}
}

// lastEdited is a comment's lastEditedAt: null until it is edited.
func lastEdited(c *hubComment) any {
	if c.updated.Equal(c.created) {
		return nil
	}
	return ts(c.updated)
}
