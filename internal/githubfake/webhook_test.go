package githubfake

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// keyPaths lists every key path of a JSON document (objects only; arrays
// and scalars are leaves), so two payloads can be compared by shape.
func keyPaths(prefix string, v any, out map[string]bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, child := range m {
		p := prefix + "." + k
		out[p] = true
		keyPaths(p, child, out)
	}
}

func shape(t *testing.T, b []byte) map[string]bool {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("payload is not JSON: %v", err)
	}
	out := map[string]bool{}
	keyPaths("", v, out)
	return out
}

func TestWebhookPayloadsHaveGitHubsShape(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if err := w.g.SetAssociation(testRepo, "alice", "CONTRIBUTOR"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.g.AddLabel(testRepo, "bug"); err != nil {
		t.Fatal(err)
	}
	d := mustDiscussion(t, w.g, "alice", "rfc")
	top := mustComment(t, w.g, d.ID, "alice", "top")
	reply := mustReply(t, w.g, top.ID, "github-actions[bot]", "bot reply")
	gone := mustComment(t, w.g, d.ID, "bob", "to delete")
	if err := w.g.DeleteComment(gone.ID); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		example string
		build   func() ([]byte, error)
	}{
		{name: "discussion_created", example: "discussion.created.json", build: func() ([]byte, error) {
			return w.g.DiscussionPayload(d.ID, Event{Action: "created"})
		}},
		{name: "discussion_edited", example: "discussion.edited.json", build: func() ([]byte, error) {
			return w.g.DiscussionPayload(d.ID, Event{Action: "edited", Changes: map[string]string{"title": "old"}})
		}},
		{name: "discussion_labeled", example: "discussion.labeled.json", build: func() ([]byte, error) {
			return w.g.DiscussionPayload(d.ID, Event{Action: "labeled", Label: "bug", Sender: "octo"})
		}},
		{name: "discussion_locked", example: "discussion.locked.json", build: func() ([]byte, error) {
			return w.g.DiscussionPayload(d.ID, Event{Action: "locked", Sender: "octo"})
		}},
		{name: "discussion_closed", example: "discussion.created.json", build: func() ([]byte, error) {
			return w.g.DiscussionPayload(d.ID, Event{Action: "closed"})
		}},
		{name: "comment_created", example: "discussion_comment.created.json", build: func() ([]byte, error) {
			return w.g.DiscussionCommentPayload(reply.ID, Event{Action: "created"})
		}},
		{name: "comment_edited", example: "discussion_comment.edited.json", build: func() ([]byte, error) {
			return w.g.DiscussionCommentPayload(top.ID, Event{Action: "edited", Changes: map[string]string{"body": "before"}})
		}},
		{name: "comment_deleted", example: "discussion_comment.deleted.json", build: func() ([]byte, error) {
			return w.g.DiscussionCommentPayload(gone.ID, Event{Action: "deleted"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.build()
			if err != nil {
				t.Fatalf("build = %v", err)
			}
			// The real example in testdata, not the embedded copy.
			ex, err := os.ReadFile(filepath.Join("..", "..", "testdata", "github", "webhooks", tt.example))
			if err != nil {
				t.Fatal(err)
			}
			want, have := shape(t, ex), shape(t, got)
			// answer_chosen_by is null in the examples; a user object
			// would add keys, which never happens without answers.
			if diff := cmp.Diff(slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(have))); diff != "" {
				t.Errorf("key paths differ from %s (-example +built):\n%s", tt.example, diff)
			}
		})
	}

	t.Run("values", func(t *testing.T) {
		t.Parallel()
		b, err := w.g.DiscussionCommentPayload(reply.ID, Event{Action: "created"})
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Action  string
			Comment struct {
				ID                int64  `json:"id"`
				NodeID            string `json:"node_id"`
				ParentID          *int64 `json:"parent_id"`
				DiscussionID      int64  `json:"discussion_id"`
				Body              string
				AuthorAssociation string `json:"author_association"`
				User              struct{ Login, Type string }
				CreatedAt         string `json:"created_at"`
			}
			Discussion struct {
				Number   int
				NodeID   string `json:"node_id"`
				Comments int
				User     struct{ Login string }
			}
			Repository struct {
				FullName string `json:"full_name"`
				HTMLURL  string `json:"html_url"`
			}
			Sender struct{ Login string }
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		c := p.Comment
		if c.ID != reply.DatabaseID || c.NodeID != reply.ID || c.ParentID == nil || *c.ParentID != top.DatabaseID ||
			c.DiscussionID != d.DatabaseID || c.Body != "bot reply" || c.User.Login != "github-actions[bot]" || c.User.Type != "Bot" ||
			c.CreatedAt != "2026-11-21T10:00:00Z" || c.AuthorAssociation != "NONE" {
			t.Errorf("comment = %+v", c)
		}
		if p.Action != "created" || p.Discussion.Number != 1 || p.Discussion.NodeID != d.ID || p.Discussion.Comments != 2 ||
			p.Discussion.User.Login != "alice" || p.Repository.FullName != testRepo || p.Repository.HTMLURL != "https://github.com/octo/hello" ||
			p.Sender.Login != "github-actions[bot]" {
			t.Errorf("payload = %+v", p)
		}
		b, err = w.g.DiscussionCommentPayload(top.ID, Event{Action: "created"})
		if err != nil {
			t.Fatal(err)
		}
		var top struct {
			Comment struct {
				ParentID          *int64 `json:"parent_id"`
				ChildCommentCount int    `json:"child_comment_count"`
				AuthorAssociation string `json:"author_association"`
			}
		}
		if err := json.Unmarshal(b, &top); err != nil {
			t.Fatal(err)
		}
		if top.Comment.ParentID != nil || top.Comment.ChildCommentCount != 1 || top.Comment.AuthorAssociation != "CONTRIBUTOR" {
			t.Errorf("top-level comment = %+v", top.Comment)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		for _, build := range []func() ([]byte, error){
			func() ([]byte, error) { return w.g.DiscussionPayload("D_nope", Event{Action: "created"}) },
			func() ([]byte, error) { return w.g.DiscussionCommentPayload("DC_nope", Event{Action: "created"}) },
			func() ([]byte, error) { return w.g.DiscussionCommentPayload(top.ID, Event{Action: "pinned"}) },
			func() ([]byte, error) { return w.g.DiscussionPayload(d.ID, Event{Action: "labeled", Label: "nope"}) },
		} {
			if b, err := build(); err == nil {
				t.Errorf("build = %s, want an error", b)
			}
		}
	})
}

func ExampleGitHub_DiscussionCommentPayload() {
	g := New()
	g.AddRepo("octo", "hello")
	d, _ := g.CreateDiscussion("octo/hello", "alice", "RFC", "body")
	c, _ := g.Comment(d.ID, "bob", "question")
	payload, _ := g.DiscussionCommentPayload(c.ID, Event{Action: "created"})
	var p struct {
		Action  string
		Comment struct{ Body string }
	}
	_ = json.Unmarshal(payload, &p)
	fmt.Println(p.Action, p.Comment.Body)
	// Output: created question
}

// The embedded copies must stay GitHub's published files, byte for byte.
func TestEmbeddedDataIsGitHubs(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256([]byte(SchemaSource()))
	// The checksum recorded in testdata/github/SOURCES.md.
	if got, want := hex.EncodeToString(sum[:]), "d6baef9dde0df38adaca8def663468c1a819817a763cab6fabc88c605b1773fc"; got != want {
		t.Errorf("sha256(schema) = %s, want %s", got, want)
	}
	if _, err := Schema(); err != nil {
		t.Errorf("Schema() = %v", err)
	}
	entries, err := examples.ReadDir("webhooks")
	if err != nil || len(entries) == 0 {
		t.Fatalf("embedded webhooks: %v, %d files", err, len(entries))
	}
	for _, e := range entries {
		embedded, _ := examples.ReadFile("webhooks/" + e.Name())
		original, err := os.ReadFile(filepath.Join("..", "..", "testdata", "github", "webhooks", e.Name()))
		if err != nil || !bytes.Equal(embedded, original) {
			t.Errorf("webhooks/%s differs from testdata/github/webhooks (%v)", e.Name(), err)
		}
	}
}

// The run recess dispatched is handed GitHub's workflow_dispatch payload:
// the run's inputs, ref, workflow, repository and the dispatching account.
func TestWorkflowDispatchPayload(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	agentWorkflow(t, w.g)
	inputs := map[string]any{"correlation_id": "c-1", "discussion_number": "12"}
	if status, _, body := w.restCall(t, botToken, http.MethodPost, dispatchPath, map[string]any{"ref": "main", "inputs": inputs}); status != http.StatusNoContent {
		t.Fatalf("dispatch status = %d (%v)", status, body)
	}
	runs, _ := w.g.Runs(testRepo)
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	b, err := w.g.WorkflowDispatchPayload(runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	type payload struct {
		Inputs     map[string]string
		Ref        string
		Workflow   string
		Repository struct {
			FullName      string `json:"full_name"`
			HTMLURL       string `json:"html_url"`
			DefaultBranch string `json:"default_branch"`
			Owner         struct{ Login string }
		}
		Sender struct{ Login, Type string }
	}
	var got payload
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := payload{Inputs: map[string]string{"correlation_id": "c-1", "discussion_number": "12", "mode": "normal", "resume_context": ""},
		Ref: "refs/heads/main", Workflow: ".github/workflows/agent.yml"}
	want.Repository.FullName, want.Repository.HTMLURL, want.Repository.DefaultBranch = testRepo, "https://github.com/octo/hello", "main"
	want.Repository.Owner.Login = "octo"
	want.Sender.Login, want.Sender.Type = "github-actions[bot]", "Bot"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("payload (-want +got):\n%s", diff)
	}
	// Every key GitHub's example has, but the example's own inputs and
	// the organization of an organization-owned repository.
	ex, err := os.ReadFile(filepath.Join("..", "..", "testdata", "github", "webhooks", "workflow_dispatch.json"))
	if err != nil {
		t.Fatal(err)
	}
	have := shape(t, b)
	for p := range shape(t, ex) {
		if !have[p] && !strings.HasPrefix(p, ".inputs.") && !strings.HasPrefix(p, ".organization") {
			t.Errorf("the payload lacks %s", p)
		}
	}
	if _, err := w.g.WorkflowDispatchPayload(987654); !errors.Is(err, ErrUnknownRun) {
		t.Errorf("WorkflowDispatchPayload(unknown run) = %v, want ErrUnknownRun", err)
	}
}
