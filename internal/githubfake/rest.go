package githubfake

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
)

var (
	restMuxOnce sync.Once
	restRoutes  []restRoute
)

type restRoute struct {
	pattern string
	handle  func(g *GitHub, w http.ResponseWriter, r *http.Request)
}

// routes lists the REST operations the fake serves, in ServeMux syntax.
func routes() []restRoute {
	restMuxOnce.Do(func() {
		restRoutes = []restRoute{
			{"GET /rate_limit", (*GitHub).handleRateLimit},
			{"GET /repos/{owner}/{repo}", (*GitHub).handleGetRepo},
			{"POST /repos/{owner}/{repo}/actions/workflows/{workflow}/dispatches", (*GitHub).handleDispatch},
			{"GET /repos/{owner}/{repo}/actions/workflows/{workflow}/runs", (*GitHub).handleListRuns},
			{"GET /repos/{owner}/{repo}/actions/workflows/{workflow}", (*GitHub).handleGetWorkflow},
			{"PUT /repos/{owner}/{repo}/actions/workflows/{workflow}/enable", (*GitHub).handleEnableWorkflow},
			{"PUT /repos/{owner}/{repo}/actions/workflows/{workflow}/disable", (*GitHub).handleDisableWorkflow},
			{"GET /repos/{owner}/{repo}/actions/runs", (*GitHub).handleListRuns},
			{"GET /repos/{owner}/{repo}/actions/runs/{id}", (*GitHub).handleGetRun},
			{"GET /repos/{owner}/{repo}/git/ref/{ref...}", (*GitHub).handleGetRef},
			{"GET /repos/{owner}/{repo}/git/refs/{ref...}", (*GitHub).handleGetRef},
			{"GET /repos/{owner}/{repo}/git/matching-refs/{ref...}", (*GitHub).handleMatchingRefs},
			{"POST /repos/{owner}/{repo}/git/refs", (*GitHub).handleCreateRef},
			{"PATCH /repos/{owner}/{repo}/git/refs/{ref...}", (*GitHub).handleUpdateRef},
			{"DELETE /repos/{owner}/{repo}/git/refs/{ref...}", (*GitHub).handleDeleteRef},
			{"GET /repos/{owner}/{repo}/contents/{path...}", (*GitHub).handleContents},
			{"POST /repos/{owner}/{repo}/git/blobs", (*GitHub).handleCreateBlob},
			{"GET /repos/{owner}/{repo}/git/blobs/{sha}", (*GitHub).handleGetBlob},
			{"POST /repos/{owner}/{repo}/git/trees", (*GitHub).handleCreateTree},
			{"POST /repos/{owner}/{repo}/git/commits", (*GitHub).handleCreateCommit},
			{"GET /repos/{owner}/{repo}/git/commits/{sha}", (*GitHub).handleGetCommit},
			{"GET /repos/{owner}/{repo}/collaborators/{username}/permission", (*GitHub).handlePermission},
		}
	})
	return restRoutes
}

// serveREST charges the token's REST budget, routes the request and adds
// GitHub's rate-limit headers to whatever it answers.
func (g *GitHub) serveREST(w http.ResponseWriter, req *http.Request) {
	tok := info(req).token
	if req.URL.Path != "/rate_limit" { // GitHub does not charge for it
		g.mu.Lock()
		b := g.budget(tok)
		if b.restUsed >= g.restBudget {
			hdr := rateHeaders(g.restBudget, b.restUsed, b.reset(), "core")
			viewer := info(req).viewer
			who := fmt.Sprintf("user ID %d", viewer.dbID)
			if viewer.kind == KindBot {
				who = fmt.Sprintf("installation ID %d", viewer.dbID)
			}
			status := g.limitStatus
			g.mu.Unlock()
			writeJSON(w, status, hdr, restError("API rate limit exceeded for "+who+".",
				"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-rate-limits"))
			return
		}
		b.restUsed++
		g.mu.Unlock()
	}
	g.muxOnce.Do(func() {
		g.mux = http.NewServeMux()
		for _, rt := range routes() {
			h := rt.handle
			g.mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { h(g, w, r) })
		}
		g.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusNotFound, nil, map[string]any{"message": "Not Found",
				"documentation_url": "https://docs.github.com/rest", "status": "404"})
		})
	})
	g.mu.Lock()
	b := g.budget(tok)
	hdr := rateHeaders(g.restBudget, b.restUsed, b.reset(), "core")
	g.mu.Unlock()
	for k, vs := range hdr {
		w.Header()[k] = vs
	}
	g.mux.ServeHTTP(w, req)
}

func (g *GitHub) handleRateLimit(w http.ResponseWriter, req *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	b := g.budget(info(req).token)
	res := func(limit, used int) map[string]any {
		return map[string]any{"limit": limit, "used": used, "remaining": max(0, limit-used), "reset": b.reset().Unix()}
	}
	core := res(g.restBudget, b.restUsed)
	writeJSON(w, http.StatusOK, nil, map[string]any{
		"resources": map[string]any{"core": core, "graphql": res(g.graphqlBudget, b.graphqlUsed),
			"search": res(30, 0)},
		"rate": core,
	})
}

// lockRepo locks g and finds the request's repository, answering 404 when
// there is none. ok false means the answer was written and g is unlocked.
func (g *GitHub) lockRepo(w http.ResponseWriter, req *http.Request) (*repo, bool) {
	g.mu.Lock()
	r, err := g.repo(req.PathValue("owner") + "/" + req.PathValue("repo"))
	if err != nil {
		g.mu.Unlock()
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", ""))
		return nil, false
	}
	return r, true
}

func (g *GitHub) handleGetRepo(w http.ResponseWriter, req *http.Request) {
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	writeJSON(w, http.StatusOK, nil, g.repoJSON(req, r))
}

func refJSON(req *http.Request, r *repo, name, oid string) map[string]any {
	base := apiBase(req) + "/repos/" + r.fullName()
	return map[string]any{
		"ref": name, "node_id": "REF_" + strings.TrimPrefix(nodeID("", uint32(r.dbID)), "_") + b64(name),
		"url":    base + "/git/" + name,
		"object": map[string]any{"sha": oid, "type": "commit", "url": base + "/git/commits/" + oid},
	}
}

func (g *GitHub) handleGetRef(w http.ResponseWriter, req *http.Request) {
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	name := "refs/" + req.PathValue("ref")
	oid, found := r.git.refs[name]
	if !found {
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", "https://docs.github.com/rest/git/refs#get-a-reference"))
		return
	}
	writeJSON(w, http.StatusOK, nil, refJSON(req, r, name, oid))
}

func (g *GitHub) handleMatchingRefs(w http.ResponseWriter, req *http.Request) {
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	prefix := "refs/" + req.PathValue("ref")
	out := []any{}
	for _, name := range sortedKeys(r.git.refs) {
		if strings.HasPrefix(name, prefix) {
			out = append(out, refJSON(req, r, name, r.git.refs[name]))
		}
	}
	writeJSON(w, http.StatusOK, nil, out)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func unprocessable(w http.ResponseWriter, msg, doc string) {
	writeJSON(w, http.StatusUnprocessableEntity, nil, restError(msg, doc))
}

func (g *GitHub) handleCreateRef(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if err := decodeJSONBody(req, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, nil, restError("Problems parsing JSON", ""))
		return
	}
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	const doc = "https://docs.github.com/rest/git/refs#create-a-reference"
	if !validRefName(body.Ref) {
		unprocessable(w, "Reference name must start with 'refs/' and have at least two slashes.", doc)
		return
	}
	if _, ok := r.git.commits[body.SHA]; !ok {
		unprocessable(w, "Object does not exist", doc)
		return
	}
	if _, exists := r.git.refs[body.Ref]; exists {
		unprocessable(w, "Reference already exists", doc)
		return
	}
	r.git.refs[body.Ref] = body.SHA
	writeJSON(w, http.StatusCreated, nil, refJSON(req, r, body.Ref, body.SHA))
}

func (g *GitHub) handleUpdateRef(w http.ResponseWriter, req *http.Request) {
	var body struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if err := decodeJSONBody(req, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, nil, restError("Problems parsing JSON", ""))
		return
	}
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	const doc = "https://docs.github.com/rest/git/refs#update-a-reference"
	name := "refs/" + req.PathValue("ref")
	cur, exists := r.git.refs[name]
	if !exists {
		unprocessable(w, "Reference does not exist", doc)
		return
	}
	if _, ok := r.git.commits[body.SHA]; !ok {
		unprocessable(w, "Object does not exist", doc)
		return
	}
	if !body.Force && !r.git.isAncestor(cur, body.SHA) {
		unprocessable(w, "Update is not a fast forward", doc)
		return
	}
	r.git.refs[name] = body.SHA
	writeJSON(w, http.StatusOK, nil, refJSON(req, r, name, body.SHA))
}

func (g *GitHub) handleDeleteRef(w http.ResponseWriter, req *http.Request) {
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	name := "refs/" + req.PathValue("ref")
	if _, exists := r.git.refs[name]; !exists {
		unprocessable(w, "Reference does not exist", "https://docs.github.com/rest/git/refs#delete-a-reference")
		return
	}
	delete(r.git.refs, name)
	w.WriteHeader(http.StatusNoContent)
}

// wrap64 renders base64 in lines of 60 characters, as the contents API does.
func wrap64(data []byte) string {
	s := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60] + "\n")
		s = s[60:]
	}
	b.WriteString(s + "\n")
	return b.String()
}

func (g *GitHub) handleContents(w http.ResponseWriter, req *http.Request) {
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	const doc = "https://docs.github.com/rest/repos/contents#get-repository-content"
	ref := req.URL.Query().Get("ref")
	if ref == "" {
		ref = r.defaultBranch
	}
	head, found := r.git.resolve(ref)
	if !found {
		writeJSON(w, http.StatusNotFound, nil, restError("No commit found for the ref "+ref, doc))
		return
	}
	p := req.PathValue("path")
	blob, found := r.git.file(head, p)
	if !found {
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", doc))
		return
	}
	data := r.git.blobs[blob]
	name := p[strings.LastIndex(p, "/")+1:]
	base := apiBase(req) + "/repos/" + r.fullName()
	writeJSON(w, http.StatusOK, nil, map[string]any{
		"type": "file", "encoding": "base64", "size": len(data), "name": name, "path": p,
		"content": wrap64(data), "sha": blob,
		"url":          base + "/contents/" + p + "?ref=" + ref,
		"git_url":      base + "/git/blobs/" + blob,
		"html_url":     fmt.Sprintf("%s/%s/blob/%s/%s", g.serverURL, r.fullName(), ref, p),
		"download_url": fmt.Sprintf("https://raw.githubusercontent.com/%s/%s/%s", r.fullName(), ref, p),
		"_links":       map[string]any{"self": base + "/contents/" + p, "git": base + "/git/blobs/" + blob, "html": ""},
	})
}

func (g *GitHub) handleCreateBlob(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if err := decodeJSONBody(req, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, nil, restError("Problems parsing JSON", ""))
		return
	}
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	const doc = "https://docs.github.com/rest/git/blobs#create-a-blob"
	if body.Content == nil {
		unprocessable(w, "Invalid request.\n\n\"content\" wasn't supplied.", doc)
		return
	}
	data := []byte(*body.Content)
	switch body.Encoding {
	case "", "utf-8":
	case "base64":
		d, err := base64.StdEncoding.DecodeString(*body.Content)
		if err != nil {
			unprocessable(w, "Invalid request.\n\ncontent is not valid Base64", doc)
			return
		}
		data = d
	default:
		unprocessable(w, "Invalid request.\n\nencoding must be utf-8 or base64", doc)
		return
	}
	oid := r.git.putBlob(data)
	writeJSON(w, http.StatusCreated, nil, map[string]any{"sha": oid, "url": apiBase(req) + "/repos/" + r.fullName() + "/git/blobs/" + oid})
}

func (g *GitHub) handleGetBlob(w http.ResponseWriter, req *http.Request) {
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	oid := req.PathValue("sha")
	data, found := r.git.blobs[oid]
	if !found {
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", "https://docs.github.com/rest/git/blobs#get-a-blob"))
		return
	}
	writeJSON(w, http.StatusOK, nil, map[string]any{"sha": oid, "node_id": "B_" + oid, "size": len(data),
		"url": apiBase(req) + "/repos/" + r.fullName() + "/git/blobs/" + oid, "content": wrap64(data), "encoding": "base64"})
}

func (g *GitHub) handleCreateTree(w http.ResponseWriter, req *http.Request) {
	var body struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path    string  `json:"path"`
			Mode    string  `json:"mode"`
			Type    string  `json:"type"`
			SHA     *string `json:"sha"`
			Content *string `json:"content"`
		} `json:"tree"`
	}
	if err := decodeJSONBody(req, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, nil, restError("Problems parsing JSON", ""))
		return
	}
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	const doc = "https://docs.github.com/rest/git/trees#create-a-tree"
	entries := map[string]string{}
	if body.BaseTree != "" {
		base, found := r.git.trees[body.BaseTree]
		if !found {
			if c, isCommit := r.git.commits[body.BaseTree]; isCommit {
				base, found = r.git.trees[c.tree], true
			}
		}
		if !found {
			unprocessable(w, "Invalid tree info", doc)
			return
		}
		entries = maps.Clone(base)
	}
	for _, e := range body.Tree {
		switch {
		case e.Content != nil:
			entries[e.Path] = r.git.putBlob([]byte(*e.Content))
		case e.SHA == nil:
			delete(entries, e.Path)
		default:
			if _, found := r.git.blobs[*e.SHA]; !found {
				unprocessable(w, "Invalid tree info", doc)
				return
			}
			entries[e.Path] = *e.SHA
		}
	}
	oid := r.git.putTree(entries)
	tree := []any{}
	for _, p := range sortedKeys(entries) {
		tree = append(tree, map[string]any{"path": p, "mode": "100644", "type": "blob", "sha": entries[p],
			"size": len(r.git.blobs[entries[p]])})
	}
	writeJSON(w, http.StatusCreated, nil, map[string]any{"sha": oid, "url": apiBase(req) + "/repos/" + r.fullName() + "/git/trees/" + oid,
		"tree": tree, "truncated": false})
}

func (g *GitHub) commitJSON(req *http.Request, r *repo, c *gitCommit) map[string]any {
	base := apiBase(req) + "/repos/" + r.fullName()
	parents := []any{}
	for _, p := range c.parents {
		parents = append(parents, map[string]any{"sha": p, "url": base + "/git/commits/" + p})
	}
	msg := c.headline
	if c.body != "" {
		msg += "\n\n" + c.body
	}
	who := map[string]any{"name": c.author.login, "email": c.author.login + "@users.noreply.github.com", "date": ghTime(c.committed)}
	return map[string]any{"sha": c.oid, "node_id": "C_" + c.oid, "url": base + "/git/commits/" + c.oid,
		"html_url": g.serverURL + "/" + r.fullName() + "/commit/" + c.oid, "message": msg,
		"author": who, "committer": who, "tree": map[string]any{"sha": c.tree, "url": base + "/git/trees/" + c.tree},
		"parents": parents, "verification": map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil}}
}

func (g *GitHub) handleCreateCommit(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Message string   `json:"message"`
		Tree    string   `json:"tree"`
		Parents []string `json:"parents"`
	}
	if err := decodeJSONBody(req, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, nil, restError("Problems parsing JSON", ""))
		return
	}
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	const doc = "https://docs.github.com/rest/git/commits#create-a-commit"
	if _, found := r.git.trees[body.Tree]; !found {
		unprocessable(w, "Tree SHA does not exist", doc)
		return
	}
	for _, p := range body.Parents {
		if _, found := r.git.commits[p]; !found {
			unprocessable(w, "Parent SHA does not exist or is not a commit object", doc)
			return
		}
	}
	headline, rest, _ := strings.Cut(body.Message, "\n\n")
	c := r.git.putCommit(body.Tree, body.Parents, headline, rest, info(req).viewer, g.clock())
	writeJSON(w, http.StatusCreated, nil, g.commitJSON(req, r, c))
}

func (g *GitHub) handleGetCommit(w http.ResponseWriter, req *http.Request) {
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	c, found := r.git.commits[req.PathValue("sha")]
	if !found {
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", "https://docs.github.com/rest/git/commits#get-a-commit-object"))
		return
	}
	writeJSON(w, http.StatusOK, nil, g.commitJSON(req, r, c))
}
