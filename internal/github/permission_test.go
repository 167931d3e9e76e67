package github

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
)

// TestPermissionReadsGitHubsAnswer: write access is what user.permissions
// grant (push, maintain or admin), whatever the role's name (a custom role,
// maintain shown as legacy "write"), and the role's name where GitHub leaves
// the booleans out; "is not a user" is no permission; a refusal of the
// question is ErrPermissionUnreadable; anything else is another error.
func TestPermissionReadsGitHubsAnswer(t *testing.T) {
	t.Parallel()
	user := func(perms map[string]bool, role string) map[string]any {
		return map[string]any{"login": "someone", "id": 7, "type": "User", "permissions": perms, "role_name": role}
	}
	type kind int
	const (
		none kind = iota
		unreadable
		other
	)
	tests := []struct {
		name   string
		status int
		body   any
		want   resume.Permission
		err    kind
	}{
		{"maintain_reads_as_write_in_the_legacy_field", 200, map[string]any{"permission": "write", "role_name": "maintain",
			"user": user(map[string]bool{"pull": true, "triage": true, "push": true, "maintain": true, "admin": false}, "maintain")},
			resume.Permission{Role: "maintain", Write: true}, none},
		{"custom_role_on_write", 200, map[string]any{"permission": "write", "role_name": "release-manager",
			"user": user(map[string]bool{"pull": true, "triage": true, "push": true, "maintain": false, "admin": false}, "release-manager")},
			resume.Permission{Role: "release-manager", Write: true}, none},
		{"custom_role_on_triage", 200, map[string]any{"permission": "read", "role_name": "issue-wrangler",
			"user": user(map[string]bool{"pull": true, "triage": true, "push": false, "maintain": false, "admin": false}, "issue-wrangler")},
			resume.Permission{Role: "issue-wrangler"}, none},
		{"read", 200, map[string]any{"permission": "read", "role_name": "read",
			"user": user(map[string]bool{"pull": true, "push": false, "admin": false}, "read")},
			resume.Permission{Role: "read"}, none},
		{"no_booleans_goes_by_role", 200, map[string]any{"permission": "admin", "role_name": "admin", "user": nil},
			resume.Permission{Role: "admin", Write: true}, none},
		{"not_a_user", 404, map[string]any{"message": "renovate[bot] is not a user", "documentation_url": "https://docs.github.com/rest"},
			resume.Permission{Role: "none"}, none},
		{"not_found", 404, map[string]any{"message": "Not Found"}, resume.Permission{}, unreadable},
		{"forbidden", 403, map[string]any{"message": "Resource not accessible by integration"}, resume.Permission{}, unreadable},
		{"server_error", 500, map[string]any{"message": "Server Error"}, resume.Permission{}, other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			h.rest.HandleFunc("GET /api/v3/repos/o/r/collaborators/someone/permission", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, tt.status, tt.body)
			})
			got, err := h.client(t, nil).Permission(context.Background(), "someone")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Permission (-want +got):\n%s", diff)
			}
			var gotKind kind
			switch {
			case err == nil:
			case errors.Is(err, resume.ErrPermissionUnreadable):
				gotKind = unreadable
			default:
				gotKind = other
			}
			if gotKind != tt.err {
				t.Errorf("error = %v, want kind %d", err, tt.err)
			}
		})
	}
}
