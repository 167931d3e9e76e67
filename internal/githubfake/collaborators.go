package githubfake

import (
	"net/http"
	"strings"
)

// handlePermission answers GET
// /repos/{owner}/{repo}/collaborators/{username}/permission as GitHub does:
// `permission` the legacy base role, `role_name` the role, and the user with
// its permission booleans. An app's account ("name[bot]", or its login
// without the suffix) is "not a user"; an unknown login is Not Found.
//
// GitHub docs: https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user
func (g *GitHub) handlePermission(w http.ResponseWriter, req *http.Request) {
	r, ok := g.lockRepo(w, req)
	if !ok {
		return
	}
	defer g.mu.Unlock()
	const doc = "https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user"
	name := req.PathValue("username")
	a, err := g.lookupAccount(name)
	if err != nil {
		writeJSON(w, http.StatusNotFound, nil, restError("Not Found", doc))
		return
	}
	if a.kind == KindBot || strings.HasSuffix(name, "[bot]") {
		writeJSON(w, http.StatusNotFound, nil, restError(name+" is not a user", doc))
		return
	}
	role := r.role(a)
	grant := roleGrants[role]
	user := g.userJSON(req, a)
	user["permissions"] = map[string]any{"pull": grant.pull, "triage": grant.triage, "push": grant.push,
		"maintain": grant.maintain, "admin": grant.admin}
	user["role_name"] = role
	writeJSON(w, http.StatusOK, nil, map[string]any{"permission": grant.legacy, "role_name": role, "user": user})
}
