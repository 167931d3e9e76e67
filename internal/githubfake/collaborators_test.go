package githubfake

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// permissionSchema is GitHub's schema of the collaborator-permission answer
// (testdata/github/SOURCES.md).
func permissionSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	raw, err := os.ReadFile("../../testdata/github/collaborator-permission.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestCollaboratorPermissionAnswersAsGitHub(t *testing.T) {
	t.Parallel()
	type answer struct {
		Status                     int
		Permission, RoleName, Push any
		Message                    any
	}
	tests := []struct {
		name  string
		setup func(g *GitHub) error
		login string
		want  answer
	}{
		{"owner_is_admin", nil, "octo", answer{200, "admin", "admin", true, nil}},
		{"member_with_read_may_not_push", func(g *GitHub) error {
			if err := g.SetAssociation(testRepo, "mia", "MEMBER"); err != nil {
				return err
			}
			return g.SetPermission(testRepo, "mia", "read")
		}, "mia", answer{200, "read", "read", false, nil}},
		{"maintain_reads_as_write_in_the_legacy_field", func(g *GitHub) error {
			return g.SetPermission(testRepo, "max", "maintain")
		}, "max", answer{200, "write", "maintain", true, nil}},
		{"triage_reads_as_read_in_the_legacy_field", func(g *GitHub) error {
			return g.SetPermission(testRepo, "tri", "triage")
		}, "tri", answer{200, "read", "triage", false, nil}},
		{"collaborator_without_grant_writes", func(g *GitHub) error {
			return g.SetAssociation(testRepo, "cole", "COLLABORATOR")
		}, "cole", answer{200, "write", "write", true, nil}},
		{"stranger_reads_a_public_repository", nil, "alice", answer{200, "read", "read", false, nil}},
		{"app_is_not_a_user", nil, "github-actions[bot]", answer{404, nil, nil, nil, "github-actions[bot] is not a user"}},
		{"unknown_login_is_not_found", nil, "nobody-here", answer{404, nil, nil, nil, "Not Found"}},
		{"deleted_maintainers_login_taken_again_is_a_stranger", func(g *GitHub) error {
			if err := g.SetPermission(testRepo, "maya", "maintain"); err != nil {
				return err
			}
			if err := g.SetAssociation(testRepo, "maya", "MEMBER"); err != nil {
				return err
			}
			if err := g.DeleteAccount("maya"); err != nil {
				return err
			}
			g.AddAccount("maya", KindUser)
			return nil
		}, "maya", answer{200, "read", "read", false, nil}},
	}
	schema := permissionSchema(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			if tt.setup != nil {
				if err := tt.setup(w.g); err != nil {
					t.Fatal(err)
				}
			}
			status, _, body := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello/collaborators/"+tt.login+"/permission", nil)
			got := answer{Status: status, Permission: body["permission"], RoleName: body["role_name"], Message: body["message"]}
			if u, ok := body["user"].(map[string]any); ok {
				got.Push = u["permissions"].(map[string]any)["push"]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if status == http.StatusOK {
				if err := schema.Validate(body); err != nil {
					t.Errorf("the answer does not match GitHub's schema: %v", err)
				}
			}
		})
	}
}

func TestSetPermissionRefusesUnknownRoles(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if err := w.g.SetPermission(testRepo, "mia", "writer"); err == nil {
		t.Error("SetPermission accepted the role \"writer\"")
	}
}

func TestCategoriesMoveDiscussionsByNameOrSlug(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if err := w.g.AddCategory(testRepo, "Ideas & Plans"); err != nil {
		t.Fatal(err)
	}
	if err := w.g.AddCategory(testRepo, "ideas & plans"); err == nil {
		t.Error("a second category of the same name was created")
	}
	d := mustDiscussion(t, w.g, "alice", "rfc")
	read := func() map[string]any {
		t.Helper()
		got := w.graphql(t, botToken, `query($n: Int!) { repository(owner: "octo", name: "hello") { discussion(number: $n) { category { name slug } } } }`,
			map[string]any{"n": d.Number})
		var out struct {
			Repository struct {
				Discussion struct{ Category map[string]any }
			}
		}
		if err := json.Unmarshal(got.Data, &out); err != nil {
			t.Fatalf("%s: %v", got.Data, err)
		}
		return out.Repository.Discussion.Category
	}
	if diff := cmp.Diff(map[string]any{"name": "General", "slug": "general"}, read()); diff != "" {
		t.Errorf("new discussion's category (-want +got):\n%s", diff)
	}
	if err := w.g.MoveDiscussion(d.ID, "IDEAS-PLANS"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"name": "Ideas & Plans", "slug": "ideas-plans"}, read()); diff != "" {
		t.Errorf("moved discussion's category (-want +got):\n%s", diff)
	}
	if err := w.g.MoveDiscussion(d.ID, "Nowhere"); err == nil {
		t.Error("MoveDiscussion accepted a category that does not exist")
	}
}

func TestPermissionSchemaRefusesAnAnswerWithoutRoleName(t *testing.T) {
	t.Parallel()
	if err := permissionSchema(t).Validate(map[string]any{"permission": "write", "user": nil}); err == nil {
		t.Error("the schema accepted an answer without role_name")
	}
}
