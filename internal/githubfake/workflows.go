package githubfake

import (
	"fmt"
	"net/http"
	"slices"
)

// Workflow states, as GitHub's REST API reports them (the workflow schema's
// state enum in testdata/github/rest-subset.openapi.json).
const (
	WorkflowActive             = "active"
	WorkflowDeleted            = "deleted"
	WorkflowDisabledFork       = "disabled_fork"
	WorkflowDisabledInactivity = "disabled_inactivity"
	WorkflowDisabledManually   = "disabled_manually"
)

var workflowStates = []string{WorkflowActive, WorkflowDeleted, WorkflowDisabledFork, WorkflowDisabledInactivity, WorkflowDisabledManually}

const (
	getWorkflowDocs     = "https://docs.github.com/rest/actions/workflows#get-a-workflow"
	enableWorkflowDocs  = "https://docs.github.com/rest/actions/workflows#enable-a-workflow"
	disableWorkflowDocs = "https://docs.github.com/rest/actions/workflows#disable-a-workflow"
)

// WorkflowState returns a workflow's state (file is its file name).
func (g *GitHub) WorkflowState(repoName, file string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	wf, err := g.workflowByFile(repoName, file)
	if err != nil {
		return "", err
	}
	return wf.state, nil
}

// SetWorkflowState puts a workflow in a state, as GitHub itself does (after
// 60 days without activity in a public repository: disabled_inactivity) or
// a person in the web interface.
func (g *GitHub) SetWorkflowState(repoName, file, state string) error {
	if !slices.Contains(workflowStates, state) {
		return fmt.Errorf("%w: workflow state %q", ErrInvalid, state)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	wf, err := g.workflowByFile(repoName, file)
	if err != nil {
		return err
	}
	wf.state, wf.updated = state, g.clock()
	return nil
}

// FailWorkflowSwitch makes every enable and disable of the repository's
// workflows answer status (403: the token lacks actions: write; 5xx: GitHub
// had a bad moment) until it is called again with 0. The state does not
// change while it fails.
func (g *GitHub) FailWorkflowSwitch(repoName string, status int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return err
	}
	r.switchFails = status
	return nil
}

func (g *GitHub) workflowByFile(repoName, file string) (*workflow, error) {
	r, err := g.repo(repoName)
	if err != nil {
		return nil, err
	}
	wf, ok := r.workflows[file]
	if !ok {
		return nil, fmt.Errorf("%w: no workflow %s in %s", ErrInvalid, file, repoName)
	}
	return wf, nil
}

// handleGetWorkflow serves GET /repos/{o}/{r}/actions/workflows/{id}: the
// workflow schema's required fields, by id or file name.
func (g *GitHub) handleGetWorkflow(w http.ResponseWriter, req *http.Request) {
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	wf := g.findWorkflow(r, req.PathValue("workflow"))
	if wf == nil {
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", getWorkflowDocs))
		return
	}
	path := ".github/workflows/" + wf.file
	writeJSON(w, http.StatusOK, nil, map[string]any{
		"id":         wf.id,
		"node_id":    wf.nodeID,
		"name":       wf.name,
		"path":       path,
		"state":      wf.state,
		"created_at": ghTime(wf.created),
		"updated_at": ghTime(wf.updated),
		"url":        fmt.Sprintf("%s/repos/%s/actions/workflows/%d", apiBase(req), r.fullName(), wf.id),
		"html_url":   fmt.Sprintf("%s/%s/blob/main/%s", g.serverURL, r.fullName(), path),
		"badge_url":  fmt.Sprintf("%s/%s/workflows/%s/badge.svg", g.serverURL, r.fullName(), wf.name),
	})
}

// handleEnableWorkflow serves PUT …/actions/workflows/{id}/enable: the
// state becomes active, 204 with no body.
func (g *GitHub) handleEnableWorkflow(w http.ResponseWriter, req *http.Request) {
	g.switchWorkflow(w, req, WorkflowActive, enableWorkflowDocs)
}

// handleDisableWorkflow serves PUT …/actions/workflows/{id}/disable: the
// state becomes disabled_manually, 204 with no body.
func (g *GitHub) handleDisableWorkflow(w http.ResponseWriter, req *http.Request) {
	g.switchWorkflow(w, req, WorkflowDisabledManually, disableWorkflowDocs)
}

func (g *GitHub) switchWorkflow(w http.ResponseWriter, req *http.Request, state, doc string) {
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	wf := g.findWorkflow(r, req.PathValue("workflow"))
	if wf == nil {
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", doc))
		return
	}
	switch status := r.switchFails; {
	case status == http.StatusForbidden:
		// What GitHub answers a GITHUB_TOKEN without actions: write.
		writeJSON(w, status, nil, restError("Resource not accessible by integration", doc))
		return
	case status != 0:
		writeJSON(w, status, nil, restError(http.StatusText(status), doc))
		return
	}
	if wf.state != state {
		wf.state, wf.updated = state, g.clock()
	}
	w.WriteHeader(http.StatusNoContent)
}
