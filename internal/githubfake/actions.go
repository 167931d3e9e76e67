package githubfake

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// GitHub's limits on a workflow_dispatch.
const (
	// MaxDispatchInputs is how many inputs one dispatch may carry.
	MaxDispatchInputs = 25
	// MaxDispatchInputsChars bounds all input values together.
	MaxDispatchInputsChars = 65535
)

// InputSpec declares one workflow_dispatch input of a workflow.
type InputSpec struct {
	Required bool
	Default  string
}

type workflow struct {
	id      int64
	nodeID  string
	file    string
	name    string
	inputs  map[string]InputSpec
	runName func(map[string]string) string
	// state is GitHub's workflow state (active, disabled_manually, ...);
	// created and updated are its timestamps (see workflows.go).
	state            string
	created, updated time.Time
}

// Run is a snapshot of a workflow run.
type Run struct {
	ID           int64
	Repo         string
	Workflow     string // file name, e.g. agent.yml
	WorkflowID   int64
	Name         string
	DisplayTitle string
	Event        string
	Status       string
	Conclusion   string
	HeadBranch   string
	HeadSHA      string
	Inputs       map[string]string
	RunNumber    int
	Actor        string // REST login
	CreatedAt    time.Time
	UpdatedAt    time.Time
	RunStartedAt time.Time
	HTMLURL      string
}

type run struct {
	Run
	repo *repo
	wf   *workflow
}

// AddWorkflow declares a workflow file (e.g. "agent.yml") with its
// workflow_dispatch inputs, and commits it to the default branch as
// .github/workflows/FILE, as a person pushing it would. runName renders the
// workflow's run-name from the dispatch inputs; nil means the workflow has
// no run-name and its runs are named after the workflow. Adding a file that
// exists pushes a new version of it: the workflow keeps its id and state,
// and takes the new inputs (the file gets a new blob).
func (g *GitHub) AddWorkflow(repoName, file string, inputs map[string]InputSpec, runName func(inputs map[string]string) string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return err
	}
	if len(inputs) > MaxDispatchInputs {
		return fmt.Errorf("%w: a workflow declares at most %d inputs", ErrInvalid, MaxDispatchInputs)
	}
	wf, ok := r.workflows[file]
	if !ok {
		wf = &workflow{id: g.newDB() + 100_000_000, file: file, name: strings.TrimSuffix(strings.TrimSuffix(file, ".yml"), ".yaml"),
			state: WorkflowActive, created: g.clock()}
		wf.nodeID = nodeID("W", uint32(r.dbID), uint32(wf.id))
		r.workflows[file] = wf
	}
	wf.inputs, wf.runName, wf.updated = maps.Clone(inputs), runName, g.clock()
	if wf.inputs == nil {
		wf.inputs = map[string]InputSpec{}
	}
	path := ".github/workflows/" + file
	r.git.commit(qualify(r.defaultBranch), "Update "+path, map[string]string{path: wf.text()}, r.ownerAcct, g.clock())
	return nil
}

// text is the workflow's file as the repository holds it: its name and the
// workflow_dispatch inputs it declares. The fake reads a workflow's inputs
// from its declaration, never from this text; the text gives the file its
// contents, and so its blob.
func (wf *workflow) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\non:\n  workflow_dispatch:\n", wf.name)
	if len(wf.inputs) > 0 {
		b.WriteString("    inputs:\n")
	}
	for _, k := range slices.Sorted(maps.Keys(wf.inputs)) {
		in := wf.inputs[k]
		fmt.Fprintf(&b, "      %s:\n        required: %t\n", k, in.Required)
		if in.Default != "" {
			fmt.Fprintf(&b, "        default: %q\n", in.Default)
		}
	}
	b.WriteString("jobs:\n  run:\n    runs-on: ubuntu-latest\n    steps:\n      - run: true\n")
	return b.String()
}

// Runs returns the repository's workflow runs, oldest first.
func (g *GitHub) Runs(repoName string) ([]Run, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return nil, err
	}
	var out []Run
	for _, ru := range g.sortedRuns() {
		if ru.repo == r {
			out = append(out, ru.snapshot())
		}
	}
	return out, nil
}

func (ru *run) snapshot() Run {
	s := ru.Run
	s.Inputs = make(map[string]string, len(ru.Inputs))
	for k, v := range ru.Inputs {
		s.Inputs[k] = v
	}
	return s
}

// sortedRuns returns every run, oldest first.
func (g *GitHub) sortedRuns() []*run {
	out := make([]*run, 0, len(g.runs))
	for _, r := range g.runs {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// SetRunStatus moves a run along: queued, in_progress, completed (with a
// conclusion: success, failure, cancelled, timed_out, ...).
func (g *GitHub) SetRunStatus(runID int64, status, conclusion string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	ru, ok := g.runs[runID]
	if !ok {
		return fmt.Errorf("%w: %d", ErrUnknownRun, runID)
	}
	switch status {
	case "queued", "in_progress", "completed", "waiting", "requested", "pending":
	default:
		return fmt.Errorf("%w: status %q", ErrInvalid, status)
	}
	if (status == "completed") != (conclusion != "") {
		return fmt.Errorf("%w: a conclusion goes with status completed only", ErrInvalid)
	}
	now := g.clock()
	if status != "queued" && ru.RunStartedAt.IsZero() {
		ru.RunStartedAt = now
	}
	ru.Status, ru.Conclusion, ru.UpdatedAt = status, conclusion, now
	return nil
}

// dispatchBody is what a dispatch request may carry.
type dispatchBody struct {
	Ref              *string         `json:"ref"`
	Inputs           json.RawMessage `json:"inputs"`
	ReturnRunDetails *bool           `json:"return_run_details"`
}

const dispatchDocs = "https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event"

func (g *GitHub) findWorkflow(r *repo, id string) *workflow {
	if wf, ok := r.workflows[id]; ok {
		return wf
	}
	for _, wf := range r.workflows {
		if strconv.FormatInt(wf.id, 10) == id {
			return wf
		}
	}
	return nil
}

// handleDispatch serves POST /repos/{o}/{r}/actions/workflows/{wf}/dispatches.
func (g *GitHub) handleDispatch(w http.ResponseWriter, req *http.Request) {
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(req.Body).Decode(&raw); err != nil {
		writeJSON(w, http.StatusBadRequest, nil, restError("Problems parsing JSON", dispatchDocs))
		return
	}
	var body dispatchBody
	b, _ := json.Marshal(raw)
	if err := json.Unmarshal(b, &body); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, nil, restError("Invalid request.\n\n"+err.Error(), dispatchDocs))
		return
	}
	newAPI := req.Header.Get("X-Github-Api-Version") >= "2026-03-10"

	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(req.PathValue("owner") + "/" + req.PathValue("repo"))
	if err != nil {
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", dispatchDocs))
		return
	}
	wf := g.findWorkflow(r, req.PathValue("workflow"))
	if wf == nil {
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", dispatchDocs))
		return
	}
	if _, has := raw["return_run_details"]; has && g.refuseRunDetails {
		writeJSON(w, http.StatusBadRequest, nil, restError("Invalid request.\n\n\"return_run_details\" is not a permitted key.", dispatchDocs))
		return
	}
	for k := range raw {
		if k != "ref" && k != "inputs" && k != "return_run_details" {
			writeJSON(w, http.StatusUnprocessableEntity, nil, restError(fmt.Sprintf("Invalid request.\n\n%q is not a permitted key.", k), dispatchDocs))
			return
		}
	}
	if body.Ref == nil || *body.Ref == "" {
		writeJSON(w, http.StatusUnprocessableEntity, nil, restError("Invalid request.\n\n\"ref\" wasn't supplied.", dispatchDocs))
		return
	}
	inputs := map[string]any{}
	if len(body.Inputs) > 0 && string(body.Inputs) != "null" {
		if err := json.Unmarshal(body.Inputs, &inputs); err != nil {
			writeJSON(w, http.StatusUnprocessableEntity, nil, restError("Invalid request.\n\nFor 'properties/inputs', the value is not an object.", dispatchDocs))
			return
		}
	}
	if len(inputs) > MaxDispatchInputs {
		writeJSON(w, http.StatusUnprocessableEntity, nil, restError(fmt.Sprintf(
			"Invalid request.\n\nFor 'properties/inputs', the object has %d properties, more than the maximum of %d.", len(inputs), MaxDispatchInputs), dispatchDocs))
		return
	}
	head, ok := r.git.resolve(*body.Ref)
	if !ok {
		writeJSON(w, http.StatusUnprocessableEntity, nil, restError("No ref found for: "+*body.Ref, dispatchDocs))
		return
	}
	values := map[string]string{}
	var unexpected []string
	total := 0
	for _, k := range slices.Sorted(maps.Keys(inputs)) {
		v := inputs[k]
		if _, ok := wf.inputs[k]; !ok {
			unexpected = append(unexpected, k)
			continue
		}
		// GitHub takes only strings, whatever the input's declared type
		// (a boolean input is sent as "true").
		s, ok := v.(string)
		if !ok {
			shown := "nil"
			if v != nil {
				b, _ := json.Marshal(v)
				shown = string(b)
			}
			writeJSON(w, http.StatusUnprocessableEntity, nil, restError(fmt.Sprintf("Invalid request.\n\nFor 'additionalProperties', %s is not a string.", shown), dispatchDocs))
			return
		}
		values[k] = s
		total += utf8.RuneCountInString(s)
	}
	if len(unexpected) > 0 {
		slices.Sort(unexpected)
		list, _ := json.Marshal(unexpected)
		writeJSON(w, http.StatusUnprocessableEntity, nil, restError("Unexpected inputs provided: "+strings.ReplaceAll(string(list), ",", ", "), dispatchDocs))
		return
	}
	names := slices.Sorted(maps.Keys(wf.inputs))
	for _, k := range names {
		spec := wf.inputs[k]
		if _, given := values[k]; given {
			continue
		}
		if spec.Required && spec.Default == "" {
			writeJSON(w, http.StatusUnprocessableEntity, nil, restError(fmt.Sprintf("Required input '%s' not provided", k), dispatchDocs))
			return
		}
		values[k] = spec.Default
	}
	if total > MaxDispatchInputsChars {
		writeJSON(w, http.StatusUnprocessableEntity, nil, restError(fmt.Sprintf(
			"Invalid request.\n\ninputs are too large: %d characters, more than the maximum of %d.", total, MaxDispatchInputsChars), dispatchDocs))
		return
	}

	now := g.clock()
	g.nextRun++
	r.runNumber++
	ru := &run{repo: r, wf: wf}
	ru.Run = Run{ID: g.nextRun, Repo: r.fullName(), Workflow: wf.file, WorkflowID: wf.id, Event: "workflow_dispatch",
		Status: "queued", HeadBranch: strings.TrimPrefix(qualify(*body.Ref), "refs/heads/"), HeadSHA: head, Inputs: values,
		RunNumber: r.runNumber, Actor: info(req).viewer.restLogin(), CreatedAt: now, UpdatedAt: now}
	ru.Name = wf.name
	if wf.runName != nil {
		ru.Name = wf.runName(values)
	}
	ru.DisplayTitle = ru.Name
	ru.HTMLURL = fmt.Sprintf("%s/%s/actions/runs/%d", g.serverURL, r.fullName(), ru.ID)
	g.runs[ru.ID] = ru
	snap := ru.snapshot()
	hooks := slices.Clone(g.onDisp)
	ri := info(req)
	ri.after = append(ri.after, func() {
		for _, h := range hooks {
			h(snap)
		}
	})
	if newAPI || (body.ReturnRunDetails != nil && *body.ReturnRunDetails) {
		writeJSON(w, http.StatusOK, nil, map[string]any{
			"workflow_run_id": ru.ID,
			"run_url":         fmt.Sprintf("%s/repos/%s/actions/runs/%d", apiBase(req), r.fullName(), ru.ID),
			"html_url":        ru.HTMLURL,
		})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// apiBase is the absolute REST root as the client reached it.
func apiBase(req *http.Request) string {
	return "http://" + req.Host + APIPrefix
}

// runJSON renders a run in the REST shape (the workflow-run schema's
// required fields and the ones recess reads).
func (g *GitHub) runJSON(req *http.Request, ru *run) map[string]any {
	base := apiBase(req)
	runURL := fmt.Sprintf("%s/repos/%s/actions/runs/%d", base, ru.repo.fullName(), ru.ID)
	var conclusion, started any
	if ru.Conclusion != "" {
		conclusion = ru.Conclusion
	}
	started = ghTime(ru.CreatedAt)
	if !ru.RunStartedAt.IsZero() {
		started = ghTime(ru.RunStartedAt)
	}
	actor := g.userJSON(req, g.authorFor(ru.Actor))
	repoJSON := g.repoJSON(req, ru.repo)
	commit := ru.repo.git.commits[ru.HeadSHA]
	headCommit := map[string]any{"id": ru.HeadSHA, "tree_id": "", "message": "", "timestamp": ghTime(ru.CreatedAt),
		"author":    map[string]any{"name": ru.repo.owner, "email": ru.repo.owner + "@users.noreply.github.com"},
		"committer": map[string]any{"name": "GitHub", "email": "noreply@github.com"}}
	if commit != nil {
		headCommit["tree_id"], headCommit["message"] = commit.tree, commit.headline
	}
	return map[string]any{
		"id":                   ru.ID,
		"name":                 ru.Name,
		"node_id":              nodeID("WFR", uint32(ru.repo.dbID), uint32(ru.ID%1_000_000_000)),
		"head_branch":          ru.HeadBranch,
		"head_sha":             ru.HeadSHA,
		"path":                 ".github/workflows/" + ru.wf.file,
		"display_title":        ru.DisplayTitle,
		"run_number":           ru.RunNumber,
		"run_attempt":          1,
		"event":                ru.Event,
		"status":               ru.Status,
		"conclusion":           conclusion,
		"workflow_id":          ru.WorkflowID,
		"check_suite_id":       ru.ID + 1,
		"url":                  runURL,
		"html_url":             ru.HTMLURL,
		"pull_requests":        []any{},
		"created_at":           ghTime(ru.CreatedAt),
		"updated_at":           ghTime(ru.UpdatedAt),
		"run_started_at":       started,
		"actor":                actor,
		"triggering_actor":     actor,
		"jobs_url":             runURL + "/jobs",
		"logs_url":             runURL + "/logs",
		"check_suite_url":      fmt.Sprintf("%s/repos/%s/check-suites/%d", base, ru.repo.fullName(), ru.ID+1),
		"artifacts_url":        runURL + "/artifacts",
		"cancel_url":           runURL + "/cancel",
		"rerun_url":            runURL + "/rerun",
		"previous_attempt_url": nil,
		"workflow_url":         fmt.Sprintf("%s/repos/%s/actions/workflows/%d", base, ru.repo.fullName(), ru.WorkflowID),
		"head_commit":          headCommit,
		"repository":           repoJSON,
		"head_repository":      repoJSON,
	}
}

// handleListRuns serves the run lists (per workflow, or the whole
// repository when no workflow is in the path) with GitHub's filters.
func (g *GitHub) handleListRuns(w http.ResponseWriter, req *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(req.PathValue("owner") + "/" + req.PathValue("repo"))
	if err != nil {
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", ""))
		return
	}
	var wf *workflow
	if id := req.PathValue("workflow"); id != "" {
		if wf = g.findWorkflow(r, id); wf == nil {
			writeJSON(w, http.StatusNotFound, nil, restError("Not Found", ""))
			return
		}
	}
	q := req.URL.Query()
	created, err := parseCreated(q.Get("created"))
	if err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, nil, restError("Validation Failed: "+err.Error(), ""))
		return
	}
	perPage, page := 30, 1
	if v := q.Get("per_page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeJSON(w, http.StatusUnprocessableEntity, nil, restError("Validation Failed: per_page", ""))
			return
		}
		perPage = min(n, 100)
	}
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeJSON(w, http.StatusUnprocessableEntity, nil, restError("Validation Failed: page", ""))
			return
		}
		page = n
	}
	var list []*run
	for _, ru := range g.sortedRuns() {
		if ru.repo != r || (wf != nil && ru.wf != wf) {
			continue
		}
		if e := q.Get("event"); e != "" && ru.Event != e {
			continue
		}
		if s := q.Get("status"); s != "" && ru.Status != s && ru.Conclusion != s {
			continue
		}
		if b := q.Get("branch"); b != "" && ru.HeadBranch != b {
			continue
		}
		if a := q.Get("actor"); a != "" && !strings.EqualFold(ru.Actor, a) {
			continue
		}
		if h := q.Get("head_sha"); h != "" && ru.HeadSHA != h {
			continue
		}
		if !created(ru.CreatedAt) {
			continue
		}
		list = append(list, ru)
	}
	slices.Reverse(list) // newest first
	total := len(list)
	lo := min((page-1)*perPage, len(list))
	hi := min(lo+perPage, len(list))
	runs := make([]any, 0, hi-lo)
	for _, ru := range list[lo:hi] {
		runs = append(runs, g.runJSON(req, ru))
	}
	hdr := http.Header{}
	if hi < total {
		u := *req.URL
		qq := u.Query()
		qq.Set("page", strconv.Itoa(page+1))
		qq.Set("per_page", strconv.Itoa(perPage))
		u.RawQuery = qq.Encode()
		hdr.Set("Link", fmt.Sprintf("<http://%s%s%s?%s>; rel=\"next\"", req.Host, APIPrefix, u.Path, u.RawQuery))
	}
	writeJSON(w, http.StatusOK, hdr, map[string]any{"total_count": total, "workflow_runs": runs})
}

// parseCreated understands GitHub's date filters: ">=T", ">T", "<=T",
// "<T", "A..B" and a bare date or date-time.
func parseCreated(s string) (func(time.Time) bool, error) {
	if s == "" {
		return func(time.Time) bool { return true }, nil
	}
	parse := func(v string) (time.Time, bool, error) {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t, false, nil
		}
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("created: %q is not a date", v)
		}
		return t, true, nil
	}
	if a, b, ok := strings.Cut(s, ".."); ok {
		lo, _, err := parse(a)
		if err != nil {
			return nil, err
		}
		hi, day, err := parse(b)
		if err != nil {
			return nil, err
		}
		if day {
			hi = hi.Add(24*time.Hour - time.Second)
		}
		return func(t time.Time) bool { return !t.Before(lo) && !t.After(hi) }, nil
	}
	for _, op := range []string{">=", "<=", ">", "<"} {
		if v, ok := strings.CutPrefix(s, op); ok {
			at, day, err := parse(v)
			if err != nil {
				return nil, err
			}
			end := at
			if day {
				end = at.Add(24*time.Hour - time.Second)
			}
			switch op {
			case ">=":
				return func(t time.Time) bool { return !t.Before(at) }, nil
			case "<=":
				return func(t time.Time) bool { return !t.After(end) }, nil
			case ">":
				return func(t time.Time) bool { return t.After(end) }, nil
			default:
				return func(t time.Time) bool { return t.Before(at) }, nil
			}
		}
	}
	at, day, err := parse(s)
	if err != nil {
		return nil, err
	}
	if day {
		return func(t time.Time) bool { return !t.Before(at) && t.Before(at.Add(24*time.Hour)) }, nil
	}
	return func(t time.Time) bool { return t.Equal(at) }, nil
}

func (g *GitHub) handleGetRun(w http.ResponseWriter, req *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(req.PathValue("owner") + "/" + req.PathValue("repo"))
	id, perr := strconv.ParseInt(req.PathValue("id"), 10, 64)
	ru, ok := g.runs[id]
	if err != nil || perr != nil || !ok || ru.repo != r {
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", "https://docs.github.com/rest/actions/workflow-runs#get-a-workflow-run"))
		return
	}
	writeJSON(w, http.StatusOK, nil, g.runJSON(req, ru))
}

func (g *GitHub) userJSON(req *http.Request, a *identity) map[string]any {
	return g.userJSONAt(apiBase(req), a)
}

// userJSONAt renders an account in the REST and webhook shape, with API
// URLs under base.
func (g *GitHub) userJSONAt(base string, a *identity) map[string]any {
	if a == nil {
		a = ghost
	}
	login := a.restLogin()
	typ := "User"
	if a.kind == KindBot {
		typ = "Bot"
	}
	return map[string]any{
		"login": login, "id": a.dbID, "node_id": a.nodeID,
		"avatar_url":          fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", a.dbID),
		"gravatar_id":         "",
		"url":                 base + "/users/" + login,
		"html_url":            g.serverURL + "/" + path.Clean(login),
		"followers_url":       base + "/users/" + login + "/followers",
		"following_url":       base + "/users/" + login + "/following{/other_user}",
		"gists_url":           base + "/users/" + login + "/gists{/gist_id}",
		"starred_url":         base + "/users/" + login + "/starred{/owner}{/repo}",
		"subscriptions_url":   base + "/users/" + login + "/subscriptions",
		"organizations_url":   base + "/users/" + login + "/orgs",
		"repos_url":           base + "/users/" + login + "/repos",
		"events_url":          base + "/users/" + login + "/events{/privacy}",
		"received_events_url": base + "/users/" + login + "/received_events",
		"type":                typ,
		"site_admin":          false,
	}
}

func (g *GitHub) repoJSON(req *http.Request, r *repo) map[string]any {
	base := apiBase(req) + "/repos/" + r.fullName()
	return map[string]any{
		"id": r.dbID, "node_id": r.nodeID, "name": r.name, "full_name": r.fullName(), "private": false,
		"owner": g.userJSON(req, r.ownerAcct), "html_url": g.serverURL + "/" + r.fullName(),
		"description": nil, "fork": false, "url": base, "default_branch": r.defaultBranch,
		"created_at": ghTime(r.createdAt), "updated_at": ghTime(r.createdAt), "pushed_at": ghTime(r.createdAt),
		"has_discussions": true, "visibility": "public", "archived": false, "disabled": false,
	}
}
