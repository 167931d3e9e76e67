package githubfake

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// jsonTypes lists every key path of a JSON document with its JSON type;
// array elements share the path "[]".
func jsonTypes(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		out[prefix] = "object"
		for k, child := range t {
			jsonTypes(prefix+"."+k, child, out)
		}
	case []any:
		out[prefix] = "array"
		for _, child := range t {
			jsonTypes(prefix+"[]", child, out)
		}
	case string:
		out[prefix] = "string"
	case float64:
		out[prefix] = "number"
	case bool:
		out[prefix] = "boolean"
	case nil:
		out[prefix] = "null"
	}
}

func typesOf(t *testing.T, b []byte) map[string]string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("payload is not JSON: %v", err)
	}
	out := map[string]string{}
	jsonTypes("", v, out)
	return out
}

// schemaAllows reports whether GitHub's published issue schema (the
// webhooks' common/issue.schema.json) gives the property at path (".a.b"
// under the issue) the JSON type typ. The examples were captured before
// state_reason existed and none is of a pull request's comment, so what
// they lack is checked against the schema.
func schemaAllows(schema map[string]any, path, typ string) bool {
	prop := schema
	for _, k := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		props, _ := prop["properties"].(map[string]any)
		prop, _ = props[k].(map[string]any)
		if prop == nil {
			return false
		}
	}
	var allowed []string
	add := func(p map[string]any) {
		switch t := p["type"].(type) {
		case string:
			allowed = append(allowed, t)
		case []any:
			for _, x := range t {
				allowed = append(allowed, x.(string))
			}
		}
		if _, ok := p["$ref"]; ok {
			allowed = append(allowed, "object")
		}
	}
	add(prop)
	if alts, ok := prop["oneOf"].([]any); ok {
		for _, a := range alts {
			add(a.(map[string]any))
		}
	}
	return slices.Contains(allowed, typ) || (typ == "number" && slices.Contains(allowed, "integer"))
}

func TestIssueWebhookPayloadsHaveGitHubsShape(t *testing.T) {
	t.Parallel()
	w := newIssueWorld(t)
	g := w.g
	if err := g.CloseIssue(w.issue.ID, ""); err != nil {
		t.Fatal(err)
	}
	gone := mustComment(t, g, w.issue.ID, "bob", "to delete")
	if err := g.DeleteComment(gone.ID); err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "github", "issue.schema.json"))
	if err == nil {
		err = json.Unmarshal(raw, &schema)
	}
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		example string
		build   func() ([]byte, error)
	}{
		{name: "issue_opened", example: "issues.opened.json", build: func() ([]byte, error) {
			return g.IssuePayload(w.closed.ID, Event{Action: "opened"})
		}},
		{name: "issue_closed", example: "issues.reopened.json", build: func() ([]byte, error) {
			return g.IssuePayload(w.issue.ID, Event{Action: "closed", Sender: "octo"})
		}},
		{name: "issue_labeled", example: "issues.labeled.json", build: func() ([]byte, error) {
			return g.IssuePayload(w.issue.ID, Event{Action: "labeled", Label: "recess:waiting"})
		}},
		{name: "issue_locked", example: "issues.locked.json", build: func() ([]byte, error) {
			return g.IssuePayload(w.issue.ID, Event{Action: "locked"})
		}},
		{name: "comment_created_by_an_app", example: "issue_comment.created.json", build: func() ([]byte, error) {
			return g.IssueCommentPayload(w.byApp.ID, Event{Action: "created"})
		}},
		{name: "comment_created_on_a_pull_request", example: "issue_comment.created.json", build: func() ([]byte, error) {
			return g.IssueCommentPayload(w.onPull.ID, Event{Action: "created"})
		}},
		{name: "comment_edited", example: "issue_comment.edited.json", build: func() ([]byte, error) {
			return g.IssueCommentPayload(w.byAlice.ID, Event{Action: "edited", Changes: map[string]string{"body": "before"}})
		}},
		{name: "comment_deleted", example: "issue_comment.deleted.json", build: func() ([]byte, error) {
			return g.IssueCommentPayload(gone.ID, Event{Action: "deleted"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.build()
			if err != nil {
				t.Fatalf("build = %v", err)
			}
			ex, err := os.ReadFile(filepath.Join("..", "..", "testdata", "github", "webhooks", tt.example))
			if err != nil {
				t.Fatal(err)
			}
			want, have := typesOf(t, ex), typesOf(t, got)
			for p, typ := range have {
				issuePath, underIssue := strings.CutPrefix(p, ".issue")
				// A label without a description has a null one
				// (common/label.schema.json: ["string", "null"]).
				labelDesc := typ == "null" && (p == ".label.description" || p == ".issue.labels[].description")
				if want[p] != typ && !labelDesc && !(underIssue && schemaAllows(schema, issuePath, typ)) {
					t.Errorf("%s is a %s; %s has %q and GitHub's issue schema does not allow it", p, typ, tt.example, want[p])
				}
			}
			// Every key of the example is sent, but under a value the fake
			// leaves empty (no assignee, no milestone) and the example's app
			// installation.
			for p := range want {
				if _, ok := have[p]; ok || strings.HasPrefix(p, ".installation") {
					continue
				}
				empty := false
				for q := p; strings.ContainsAny(q, ".["); {
					q = q[:max(strings.LastIndex(q, "."), strings.LastIndex(q, "["))]
					empty = empty || have[q] == "null" || have[q] == "array"
				}
				if !empty {
					t.Errorf("the payload lacks %s", p)
				}
			}
		})
	}

	t.Run("values", func(t *testing.T) {
		t.Parallel()
		type user struct{ Login, Type string }
		type payload struct {
			Action string
			Issue  struct {
				Number      int
				NodeID      string `json:"node_id"`
				State       string
				StateReason *string `json:"state_reason"`
				Labels      []struct{ Name string }
				User        user
				PullRequest *struct {
					HTMLURL  string  `json:"html_url"`
					MergedAt *string `json:"merged_at"`
				} `json:"pull_request"`
			}
			Comment struct {
				ID      int64
				NodeID  string `json:"node_id"`
				Body    string
				User    user
				HTMLURL string `json:"html_url"`
			}
			Sender user
		}
		decode := func(b []byte, err error) payload {
			t.Helper()
			var p payload
			if err == nil {
				err = json.Unmarshal(b, &p)
			}
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		app := decode(g.IssueCommentPayload(w.byApp.ID, Event{Action: "created"}))
		if app.Comment.User != (user{"renovate[bot]", "Bot"}) || app.Sender != app.Comment.User || app.Comment.NodeID != w.byApp.ID ||
			app.Comment.ID != w.byApp.DatabaseID || app.Comment.Body != "deps updated" || app.Comment.HTMLURL != w.byApp.URL ||
			app.Issue.Number != 2 || app.Issue.NodeID != w.issue.ID || app.Issue.PullRequest != nil || app.Issue.State != "closed" ||
			app.Issue.StateReason == nil || *app.Issue.StateReason != "completed" || len(app.Issue.Labels) != 1 || app.Issue.Labels[0].Name != "recess:waiting" {
			t.Errorf("an app's comment on an issue = %+v", app)
		}
		pr := decode(g.IssueCommentPayload(w.onPull.ID, Event{Action: "created"}))
		if pr.Issue.PullRequest == nil || pr.Issue.PullRequest.HTMLURL != "https://github.com/octo/hello/pull/3" ||
			pr.Issue.PullRequest.MergedAt == nil || pr.Issue.Number != 3 || pr.Comment.User != (user{"carol", "User"}) {
			t.Errorf("a comment on a pull request = %+v", pr)
		}
		opened := decode(g.IssuePayload(w.closed.ID, Event{Action: "opened", Sender: "alice"}))
		if opened.Action != "opened" || opened.Issue.User.Login != "bob" || opened.Sender.Login != "alice" || opened.Issue.State != "closed" {
			t.Errorf("opened = %+v", opened)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		for name, build := range map[string]func() ([]byte, error){
			"issues_event_of_a_pull_request": func() ([]byte, error) { return g.IssuePayload(w.pr.ID, Event{Action: "opened"}) },
			"issues_event_of_a_discussion":   func() ([]byte, error) { return g.IssuePayload(w.disc.ID, Event{Action: "opened"}) },
			"issue_comment_of_a_discussion": func() ([]byte, error) {
				return g.IssueCommentPayload(mustComment(t, g, w.disc.ID, "bob", "x").ID, Event{Action: "created"})
			},
			"unknown_comment":                   func() ([]byte, error) { return g.IssueCommentPayload("IC_nope", Event{Action: "created"}) },
			"unknown_comment_action":            func() ([]byte, error) { return g.IssueCommentPayload(w.byAlice.ID, Event{Action: "pinned"}) },
			"label_event_without_a_known_label": func() ([]byte, error) { return g.IssuePayload(w.issue.ID, Event{Action: "labeled", Label: "nope"}) },
		} {
			if b, err := build(); !errors.Is(err, ErrUnknownDiscussion) && !errors.Is(err, ErrUnknownComment) && !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: build = %s, %v; want an error", name, b, err)
			}
		}
	})
}
