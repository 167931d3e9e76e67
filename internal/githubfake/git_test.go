package githubfake

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shurcooL/githubv4"
)

// branchStore plays the branch store: create the branch, then commit with
// compare-and-swap, the way a githubv4 client does.
func TestCreateCommitOnBranchCAS(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	client := w.v4(botToken)

	var repoQ struct {
		Repository struct {
			ID               githubv4.ID
			DefaultBranchRef struct {
				Name   string
				Target struct{ Oid githubv4.GitObjectID } `graphql:"target"`
			}
			Ref *struct {
				Target struct{ Oid githubv4.GitObjectID }
			} `graphql:"ref(qualifiedName: $ref)"`
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	vars := map[string]any{"owner": githubv4.String("octo"), "name": githubv4.String("hello"), "ref": githubv4.String("refs/heads/recess-state")}
	if err := client.Query(ctx, &repoQ, vars); err != nil {
		t.Fatalf("Query(repository) = %v", err)
	}
	if repoQ.Repository.Ref != nil || repoQ.Repository.DefaultBranchRef.Name != "main" || len(repoQ.Repository.DefaultBranchRef.Target.Oid) != 40 {
		t.Fatalf("repository = %+v, want no state branch and main at a 40-hex oid", repoQ.Repository)
	}

	var create struct {
		CreateRef struct {
			Ref struct{ Name string }
		} `graphql:"createRef(input: $input)"`
	}
	err := client.Mutate(ctx, &create, githubv4.CreateRefInput{RepositoryID: repoQ.Repository.ID,
		Name: "refs/heads/recess-state", Oid: repoQ.Repository.DefaultBranchRef.Target.Oid}, nil)
	if err != nil || create.CreateRef.Ref.Name != "recess-state" {
		t.Fatalf("createRef = %v, %+v", err, create)
	}
	if err := client.Mutate(ctx, &create, githubv4.CreateRefInput{RepositoryID: repoQ.Repository.ID,
		Name: "refs/heads/recess-state", Oid: repoQ.Repository.DefaultBranchRef.Target.Oid}, nil); err == nil {
		t.Errorf("createRef of an existing ref = nil, want an error")
	}

	head := repoQ.Repository.DefaultBranchRef.Target.Oid
	commit := func(expected githubv4.GitObjectID, path, contents string) (githubv4.GitObjectID, error) {
		var m struct {
			CreateCommitOnBranch struct {
				Commit struct{ Oid githubv4.GitObjectID }
				Ref    struct{ Name string }
			} `graphql:"createCommitOnBranch(input: $input)"`
		}
		branch := githubv4.String("recess-state")
		nwo := githubv4.String("octo/hello")
		err := client.Mutate(ctx, &m, githubv4.CreateCommitOnBranchInput{
			Branch:          githubv4.CommittableBranch{RepositoryNameWithOwner: &nwo, BranchName: &branch},
			ExpectedHeadOid: expected,
			Message:         githubv4.CommitMessage{Headline: "recess: update"},
			FileChanges: &githubv4.FileChanges{Additions: &[]githubv4.FileAddition{{
				Path: githubv4.String(path), Contents: githubv4.Base64String(base64.StdEncoding.EncodeToString([]byte(contents)))}}},
		}, nil)
		return m.CreateCommitOnBranch.Commit.Oid, err
	}
	first, err := commit(head, "discussions/12.json", `{"schema":1}`)
	if err != nil {
		t.Fatalf("createCommitOnBranch(head) = %v", err)
	}
	if _, err := commit(head, "discussions/12.json", `{"schema":1,"stale":true}`); err == nil {
		t.Fatalf("createCommitOnBranch(stale head) = nil, want a conflict")
	}
	// The raw answer carries GitHub's STALE_DATA type.
	raw := w.graphql(t, botToken, `mutation($i: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $i) { commit { oid } } }`,
		map[string]any{"i": map[string]any{"branch": map[string]any{"repositoryNameWithOwner": "octo/hello", "branchName": "recess-state"},
			"expectedHeadOid": string(head), "message": map[string]any{"headline": "x"}}})
	if diff := cmp.Diff([]string{"STALE_DATA"}, errorTypes(raw.Errors)); diff != "" {
		t.Errorf("stale commit error types (-want +got):\n%s", diff)
	}
	if got, err := w.g.Ref(testRepo, "recess-state"); err != nil || got != string(first) {
		t.Errorf("Ref() = %q, %v; want %q", got, err, first)
	}

	var read struct {
		Repository struct {
			Object *struct {
				Blob struct {
					Text        *string
					Oid         githubv4.GitObjectID
					ByteSize    int
					IsTruncated bool
				} `graphql:"... on Blob"`
			} `graphql:"object(expression: $expr)"`
			Missing *struct {
				Typename string `graphql:"__typename"`
			} `graphql:"missing: object(expression: $missing)"`
			Ref *struct {
				Target struct{ Oid githubv4.GitObjectID }
			} `graphql:"ref(qualifiedName: $ref)"`
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	err = client.Query(ctx, &read, map[string]any{"owner": githubv4.String("octo"), "name": githubv4.String("hello"),
		"expr": githubv4.String("recess-state:discussions/12.json"), "missing": githubv4.String("recess-state:nope.json"),
		"ref": githubv4.String("refs/heads/recess-state")})
	if err != nil {
		t.Fatalf("Query(object) = %v", err)
	}
	o := read.Repository.Object
	if o == nil || o.Blob.Text == nil || *o.Blob.Text != `{"schema":1}` || o.Blob.ByteSize != 12 || o.Blob.IsTruncated || len(o.Blob.Oid) != 40 {
		t.Errorf("object = %+v", o)
	}
	if read.Repository.Missing != nil {
		t.Errorf("missing object = %+v, want null", read.Repository.Missing)
	}
	if read.Repository.Ref == nil || read.Repository.Ref.Target.Oid != first {
		t.Errorf("ref target = %+v, want %s", read.Repository.Ref, first)
	}
	if got, ok, err := w.g.File(testRepo, "recess-state", "discussions/12.json"); err != nil || !ok || got != `{"schema":1}` {
		t.Errorf("File() = %q, %v, %v", got, ok, err)
	}

	// updateRefs with beforeOid is the other compare-and-swap.
	second, err := commit(first, "index.json", "{}")
	if err != nil {
		t.Fatal(err)
	}
	upd := `mutation($i: UpdateRefsInput!) { updateRefs(input: $i) { clientMutationId } }`
	stale := w.graphql(t, botToken, upd, map[string]any{"i": map[string]any{"repositoryId": repoQ.Repository.ID,
		"refUpdates": []any{map[string]any{"name": "refs/heads/recess-state", "beforeOid": string(first), "afterOid": string(first), "force": true}}}})
	if diff := cmp.Diff([]string{"STALE_DATA"}, errorTypes(stale.Errors)); diff != "" {
		t.Errorf("updateRefs with a stale beforeOid (-want +got):\n%s", diff)
	}
	ok := w.graphql(t, botToken, upd, map[string]any{"i": map[string]any{"repositoryId": repoQ.Repository.ID,
		"refUpdates": []any{map[string]any{"name": "refs/heads/recess-state", "beforeOid": string(second), "afterOid": string(first), "force": true}}}})
	if len(ok.Errors) > 0 {
		t.Errorf("updateRefs = %+v", ok.Errors)
	}
	nonFF := w.graphql(t, botToken, upd, map[string]any{"i": map[string]any{"repositoryId": repoQ.Repository.ID,
		"refUpdates": []any{map[string]any{"name": "refs/heads/recess-state", "afterOid": string(head)}}}})
	if len(nonFF.Errors) != 1 || !strings.Contains(nonFF.Errors[0].Message, "not a fast forward") {
		t.Errorf("non fast-forward update errors = %+v", nonFF.Errors)
	}
}

func TestGitREST(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	main, _ := w.g.Ref(testRepo, "main")
	status, _, body := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello/git/ref/heads/main", nil)
	if status != 200 || body["ref"] != "refs/heads/main" || body["object"].(map[string]any)["sha"] != main {
		t.Errorf("GET ref = %d %v", status, body)
	}
	if status, _, _ := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello/git/ref/heads/nope", nil); status != 404 {
		t.Errorf("GET missing ref = %d, want 404", status)
	}
	if status, _, body := w.restCall(t, botToken, http.MethodPost, "repos/octo/hello/git/refs", map[string]any{"ref": "refs/heads/state", "sha": main}); status != 201 {
		t.Fatalf("POST ref = %d %v", status, body)
	}
	if status, _, body := w.restCall(t, botToken, http.MethodPost, "repos/octo/hello/git/refs", map[string]any{"ref": "refs/heads/state", "sha": main}); status != 422 || body["message"] != "Reference already exists" {
		t.Errorf("POST existing ref = %d %v", status, body)
	}
	// blob -> tree -> commit -> PATCH ref, the REST way.
	_, _, blob := w.restCall(t, botToken, http.MethodPost, "repos/octo/hello/git/blobs", map[string]any{"content": "hello", "encoding": "utf-8"})
	_, _, tree := w.restCall(t, botToken, http.MethodPost, "repos/octo/hello/git/trees", map[string]any{"base_tree": main,
		"tree": []any{map[string]any{"path": "a.txt", "mode": "100644", "type": "blob", "sha": blob["sha"]}}})
	status, _, commit := w.restCall(t, botToken, http.MethodPost, "repos/octo/hello/git/commits", map[string]any{"message": "add a", "tree": tree["sha"], "parents": []string{main}})
	if status != 201 {
		t.Fatalf("POST commit = %d %v", status, commit)
	}
	if status, _, body := w.restCall(t, botToken, http.MethodPatch, "repos/octo/hello/git/refs/heads/state", map[string]any{"sha": commit["sha"]}); status != 200 {
		t.Errorf("PATCH ref = %d %v", status, body)
	}
	if status, _, body := w.restCall(t, botToken, http.MethodPatch, "repos/octo/hello/git/refs/heads/state", map[string]any{"sha": main}); status != 422 || body["message"] != "Update is not a fast forward" {
		t.Errorf("PATCH backwards = %d %v", status, body)
	}
	status, _, file := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello/contents/a.txt?ref=state", nil)
	content, _ := base64.StdEncoding.DecodeString(strings.ReplaceAll(file["content"].(string), "\n", ""))
	if status != 200 || string(content) != "hello" || file["sha"] != blob["sha"] || file["encoding"] != "base64" {
		t.Errorf("GET contents = %d %v", status, file)
	}
	if status, _, _ := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello/contents/a.txt", nil); status != 404 {
		t.Errorf("GET contents on main = %d, want 404", status)
	}
}

// TestCommitFile reads files of one commit with Commit.file(path:): the
// head oid and the files belong together, whatever commits come after.
func TestCommitFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	first, err := w.g.Commit(testRepo, "state", "one", map[string]string{"dir/a.json": "A1"})
	if err != nil {
		t.Fatal(err)
	}
	var q struct {
		Repository struct {
			Ref *struct {
				Target struct {
					Oid    githubv4.GitObjectID
					Commit struct {
						File *struct {
							Oid    githubv4.GitObjectID
							Name   string
							Path   string
							Object *struct {
								Blob struct{ Text *string } `graphql:"... on Blob"`
							}
						} `graphql:"file(path: $path)"`
						Missing *struct{ Oid githubv4.GitObjectID } `graphql:"missing: file(path: $missing)"`
					} `graphql:"... on Commit"`
				}
			} `graphql:"ref(qualifiedName: $ref)"`
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	vars := map[string]any{"owner": githubv4.String("octo"), "name": githubv4.String("hello"),
		"ref": githubv4.String("refs/heads/state"), "path": githubv4.String("dir/a.json"), "missing": githubv4.String("nope.json")}
	if err := w.v4(botToken).Query(ctx, &q, vars); err != nil {
		t.Fatalf("Query(Commit.file) = %v", err)
	}
	ref := q.Repository.Ref
	if ref == nil || string(ref.Target.Oid) != first {
		t.Fatalf("ref = %+v, want the head %s", ref, first)
	}
	f := ref.Target.Commit.File
	if f == nil || f.Name != "a.json" || f.Path != "dir/a.json" || len(f.Oid) != 40 || f.Object == nil || f.Object.Blob.Text == nil || *f.Object.Blob.Text != "A1" {
		t.Errorf("file = %+v, want dir/a.json holding A1", f)
	}
	if ref.Target.Commit.Missing != nil {
		t.Errorf("missing file = %+v, want null", ref.Target.Commit.Missing)
	}
}

// A workflow is a file on the default branch: declaring it commits
// .github/workflows/FILE, and declaring it again pushes a new version (a new
// blob) of the same workflow, which keeps its id and state.
func TestWorkflowIsAFileOnTheDefaultBranch(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const path = ".github/workflows/agent.yml"
	if _, ok, _ := w.g.File(testRepo, "main", path); ok {
		t.Fatalf("%s exists before the workflow is declared", path)
	}
	if err := w.g.AddWorkflow(testRepo, "agent.yml", map[string]InputSpec{"correlation_id": {Required: true}}, nil); err != nil {
		t.Fatal(err)
	}
	first, ok, _ := w.g.File(testRepo, "main", path)
	if !ok || !strings.Contains(first, "workflow_dispatch") || !strings.Contains(first, "correlation_id") {
		t.Fatalf("%s after AddWorkflow = %q, %v; want the file with its dispatch inputs", path, first, ok)
	}
	before, _ := w.g.workflowByFile(testRepo, "agent.yml")
	id := before.id
	if err := w.g.SetWorkflowState(testRepo, "agent.yml", WorkflowDisabledManually); err != nil {
		t.Fatal(err)
	}
	if err := w.g.AddWorkflow(testRepo, "agent.yml", map[string]InputSpec{"correlation_id": {Required: true}, "resume_context": {}}, nil); err != nil {
		t.Fatal(err)
	}
	second, _, _ := w.g.File(testRepo, "main", path)
	after, _ := w.g.workflowByFile(testRepo, "agent.yml")
	if second == first || !strings.Contains(second, "resume_context") || after.id != id || after.state != WorkflowDisabledManually {
		t.Errorf("a new version: file changed %v, id %d (was %d), state %s; want a new file, the same id and state", second != first, after.id, id, after.state)
	}
}
