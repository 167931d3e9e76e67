package github

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	gogithub "github.com/google/go-github/v92/github"

	"github.com/recess-action/recess/resume"
)

// Permission returns login's permission on the repository: the highest
// grant from the repository, its teams, the organisation and the
// enterprise, as GitHub computes it. An account GitHub answers "is not a
// user" for (an app's "name[bot]") has none. A token GitHub refuses the
// question (401, 403, 404) gives an error wrapping
// resume.ErrPermissionUnreadable.
//
// GitHub docs: https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user
func (c *Client) Permission(ctx context.Context, login string) (resume.Permission, error) {
	what := fmt.Sprintf("github: permission of @%s", login)
	p, resp, err := c.rest.Repositories.GetPermissionLevel(ctx, c.owner, c.repo, url.PathEscape(login))
	if err != nil {
		status := restStatus(resp, err)
		var er *gogithub.ErrorResponse
		if status == http.StatusNotFound && errors.As(err, &er) && strings.Contains(er.Message, "is not a user") {
			return resume.Permission{Role: "none"}, nil
		}
		switch status {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
			return resume.Permission{}, fmt.Errorf("%s: %w: %w", what, resume.ErrPermissionUnreadable, err)
		}
		return resume.Permission{}, fmt.Errorf("%s: %w", what, err)
	}
	return permissionOf(p), nil
}

// permissionOf reads GitHub's answer. `permission` is the legacy base role
// (maintain reads as write, triage as read, a custom role as its base);
// `role_name` is the real one; `user.permissions` are the booleans a
// custom role resolves to. Write access is push, maintain or admin in the
// booleans, and where GitHub leaves them out, the role's name.
func permissionOf(p *gogithub.RepositoryPermissionLevel) resume.Permission {
	perm := resume.Permission{Role: cmp.Or(p.GetRoleName(), p.GetPermission(), "none")}
	if u := p.GetUser(); u != nil && u.Permissions != nil {
		b := u.Permissions
		perm.Write = b.GetAdmin() || b.GetMaintain() || b.GetPush()
	} else {
		perm.Write = slices.Contains([]string{"admin", "maintain", "write"}, perm.Role) ||
			p.GetPermission() == "admin" || p.GetPermission() == "write"
	}
	return perm
}

// viewerLogin is the login of the token's own identity.
//
// GitHub docs: https://docs.github.com/graphql/reference/queries#viewer
func (c *Client) viewerLogin(ctx context.Context) (string, error) {
	var q struct{ Viewer struct{ Login string } }
	if err := c.query(ctx, &q, nil); err != nil {
		return "", fmt.Errorf("viewer login: %w", err)
	}
	if q.Viewer.Login == "" {
		return "", errors.New("viewer login: GitHub answered an empty login")
	}
	return q.Viewer.Login, nil
}
