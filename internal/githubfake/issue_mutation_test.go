package githubfake

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIssueMutations(t *testing.T) {
	t.Parallel()
	const (
		addComment    = `mutation($id: ID!, $body: String!) { addComment(input: {subjectId: $id, body: $body}) { subject { __typename } commentEdge { node { body url author { login } } } } }`
		updateComment = `mutation($id: ID!, $body: String!) { updateIssueComment(input: {id: $id, body: $body}) { issueComment { body } } }`
		deleteComment = `mutation($id: ID!) { deleteIssueComment(input: {id: $id}) { clientMutationId } }`
		minimize      = `mutation($id: ID!) { minimizeComment(input: {subjectId: $id, classifier: OUTDATED}) { minimizedComment { isMinimized } } }`
		react         = `mutation($id: ID!) { addReaction(input: {subjectId: $id, content: EYES}) { subject { __typename } } }`
		unreact       = `mutation($id: ID!) { removeReaction(input: {subjectId: $id, content: EYES}) { subject { __typename } } }`
		label         = `mutation($id: ID!, $l: [ID!]!) { addLabelsToLabelable(input: {labelableId: $id, labelIds: $l}) { labelable { __typename } } }`
		unlabel       = `mutation($id: ID!, $l: [ID!]!) { removeLabelsFromLabelable(input: {labelableId: $id, labelIds: $l}) { labelable { __typename } } }`
		discComment   = `mutation($id: ID!) { addDiscussionComment(input: {discussionId: $id, body: "hi"}) { comment { id } } }`
		updateDisc    = `mutation($id: ID!) { updateDiscussionComment(input: {commentId: $id, body: "hi"}) { comment { id } } }`
	)
	// state is what a test reads back: comments, labels, reactions.
	type state struct {
		Comments  []string // author: body
		Labels    []string
		Reactions map[string][]string
		Minimized []bool
	}
	tests := []struct {
		name     string
		token    string
		setup    func(w *issueWorld) // before the call, on the test's own world
		query    string
		vars     func(w *issueWorld) map[string]any
		subject  func(w *issueWorld) string // whose state to read (default the issue)
		want     string                     // data, as JSON ("" to skip)
		wantErr  string
		wantDiff func(s *state) // what the call changed in the subject's state
	}{
		{name: "comment_on_an_issue", token: aliceToken, query: addComment,
			vars: func(w *issueWorld) map[string]any { return map[string]any{"id": w.issue.ID, "body": "v1.2"} },
			want: `{"addComment": {"subject": {"__typename": "Issue"}, "commentEdge": {"node": {"body": "v1.2", "author": {"login": "alice"}, "url": "URL"}}}}`,
			wantDiff: func(s *state) {
				s.Comments = append(s.Comments, "alice: v1.2")
				s.Minimized = append(s.Minimized, false)
			}},
		{name: "comment_on_a_pull_request", token: botToken, query: addComment,
			vars:    func(w *issueWorld) map[string]any { return map[string]any{"id": w.pr.ID, "body": "noted"} },
			subject: func(w *issueWorld) string { return w.pr.ID },
			wantDiff: func(s *state) {
				s.Comments = append(s.Comments, "github-actions: noted")
				s.Minimized = append(s.Minimized, false)
			}},
		{name: "comment_at_the_body_limit", token: aliceToken, query: addComment,
			vars: func(w *issueWorld) map[string]any {
				return map[string]any{"id": w.issue.ID, "body": strings.Repeat("é", MaxBodyLength)}
			},
			wantDiff: func(s *state) {
				s.Comments = append(s.Comments, "alice: "+strings.Repeat("é", MaxBodyLength))
				s.Minimized = append(s.Minimized, false)
			}},
		{name: "comment_over_the_body_limit_refused", token: aliceToken, query: addComment,
			vars: func(w *issueWorld) map[string]any {
				return map[string]any{"id": w.issue.ID, "body": strings.Repeat("a", MaxBodyLength+1)}
			},
			wantErr: "Body is too long (maximum is 65536 characters)"},
		{name: "comment_on_a_locked_issue_refused_for_recess", token: botToken, query: addComment,
			setup: func(w *issueWorld) { _ = w.g.LockIssue(w.issue.ID, true) },
			vars:  func(w *issueWorld) map[string]any { return map[string]any{"id": w.issue.ID, "body": "hi"} },
			want:  `{"addComment": null}`, wantErr: "Unable to create comment because issue is locked."},
		{name: "comment_on_a_locked_issue_refused_for_an_outsider", token: aliceToken, query: addComment,
			setup: func(w *issueWorld) { _ = w.g.LockIssue(w.issue.ID, true) },
			vars:  func(w *issueWorld) map[string]any { return map[string]any{"id": w.issue.ID, "body": "hi"} },
			want:  `{"addComment": null}`, wantErr: "Unable to create comment because issue is locked."},
		{name: "comment_on_a_locked_issue_by_the_owner", token: ownerToken, query: addComment,
			setup: func(w *issueWorld) { _ = w.g.LockIssue(w.issue.ID, true) },
			vars:  func(w *issueWorld) map[string]any { return map[string]any{"id": w.issue.ID, "body": "hi"} },
			wantDiff: func(s *state) {
				s.Comments = append(s.Comments, "octo: hi")
				s.Minimized = append(s.Minimized, false)
			}},
		{name: "add_comment_on_a_discussion_refused", token: aliceToken, query: addComment,
			vars:    func(w *issueWorld) map[string]any { return map[string]any{"id": w.disc.ID, "body": "hi"} },
			subject: func(w *issueWorld) string { return w.disc.ID },
			wantErr: "Could not resolve to a node with the global id of"},
		{name: "add_discussion_comment_on_an_issue_refused", token: aliceToken, query: discComment,
			vars:    func(w *issueWorld) map[string]any { return map[string]any{"id": w.issue.ID} },
			wantErr: "Could not resolve to a node with the global id of"},
		{name: "update_own_comment", token: aliceToken, query: updateComment,
			vars:     func(w *issueWorld) map[string]any { return map[string]any{"id": w.byAlice.ID, "body": "edited"} },
			want:     `{"updateIssueComment": {"issueComment": {"body": "edited"}}}`,
			wantDiff: func(s *state) { s.Comments[0] = "alice: edited" }},
		{name: "update_someone_elses_comment_refused", token: aliceToken, query: updateComment,
			vars:    func(w *issueWorld) map[string]any { return map[string]any{"id": w.byRecess.ID, "body": "edited"} },
			wantErr: "does not have the correct permissions to execute `UpdateIssueComment`"},
		{name: "update_discussion_comment_of_an_issue_refused", token: aliceToken, query: updateDisc,
			vars:    func(w *issueWorld) map[string]any { return map[string]any{"id": w.byAlice.ID} },
			wantErr: "Could not resolve to a node with the global id of"},
		{name: "delete_own_comment_leaves_no_tombstone", token: botToken, query: deleteComment,
			vars: func(w *issueWorld) map[string]any { return map[string]any{"id": w.byRecess.ID} },
			want: `{"deleteIssueComment": {"clientMutationId": null}}`,
			wantDiff: func(s *state) {
				s.Comments = s.Comments[:2]
				s.Minimized = s.Minimized[:2]
			}},
		{name: "minimize_a_comment", token: ownerToken, query: minimize,
			vars:     func(w *issueWorld) map[string]any { return map[string]any{"id": w.byApp.ID} },
			want:     `{"minimizeComment": {"minimizedComment": {"isMinimized": true}}}`,
			wantDiff: func(s *state) { s.Minimized[1] = true }},
		{name: "react_to_an_issue", token: botToken, query: react,
			vars:     func(w *issueWorld) map[string]any { return map[string]any{"id": w.issue.ID} },
			want:     `{"addReaction": {"subject": {"__typename": "Issue"}}}`,
			wantDiff: func(s *state) { s.Reactions["EYES"] = []string{"github-actions"} }},
		{name: "react_to_a_pull_request", token: botToken, query: react,
			vars:    func(w *issueWorld) map[string]any { return map[string]any{"id": w.pr.ID} },
			subject: func(w *issueWorld) string { return w.pr.ID },
			want:    `{"addReaction": {"subject": {"__typename": "PullRequest"}}}`,
			wantDiff: func(s *state) {
				s.Reactions["EYES"] = []string{"github-actions"}
			}},
		{name: "react_to_an_issue_comment", token: botToken, query: react,
			vars: func(w *issueWorld) map[string]any { return map[string]any{"id": w.byAlice.ID} },
			want: `{"addReaction": {"subject": {"__typename": "IssueComment"}}}`},
		{name: "remove_a_reaction", token: botToken, query: unreact,
			setup:    func(w *issueWorld) { _ = w.g.React(w.issue.ID, "github-actions", "EYES") },
			vars:     func(w *issueWorld) map[string]any { return map[string]any{"id": w.issue.ID} },
			want:     `{"removeReaction": {"subject": {"__typename": "Issue"}}}`,
			wantDiff: func(s *state) { delete(s.Reactions, "EYES") }},
		{name: "label_a_pull_request", token: botToken, query: label,
			vars:     func(w *issueWorld) map[string]any { return map[string]any{"id": w.pr.ID, "l": []string{w.waiting(t)}} },
			subject:  func(w *issueWorld) string { return w.pr.ID },
			want:     `{"addLabelsToLabelable": {"labelable": {"__typename": "PullRequest"}}}`,
			wantDiff: func(s *state) { s.Labels = []string{"recess:waiting"} }},
		{name: "unlabel_an_issue", token: botToken, query: unlabel,
			vars: func(w *issueWorld) map[string]any {
				return map[string]any{"id": w.issue.ID, "l": []string{w.waiting(t)}}
			},
			want:     `{"removeLabelsFromLabelable": {"labelable": {"__typename": "Issue"}}}`,
			wantDiff: func(s *state) { s.Labels = nil }},
		{name: "unknown_field_refused", token: botToken, query: `mutation($id: ID!) { addComment(input: {subjectId: $id, body: "x"}) { comment { id } } }`,
			vars:    func(w *issueWorld) map[string]any { return map[string]any{"id": w.issue.ID} },
			wantErr: "Field 'comment' doesn't exist on type 'AddCommentPayload'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newIssueWorld(t)
			if tt.setup != nil {
				tt.setup(w)
			}
			subject := w.issue.ID
			if tt.subject != nil {
				subject = tt.subject(w)
			}
			read := func() *state {
				t.Helper()
				d, err := w.g.snapshotOf(subject)
				if err != nil {
					t.Fatal(err)
				}
				cs, err := w.g.Comments(subject)
				if err != nil {
					t.Fatal(err)
				}
				s := &state{Labels: d.Labels, Reactions: d.Reactions}
				for _, c := range cs {
					s.Comments = append(s.Comments, c.Author+": "+c.Body)
					s.Minimized = append(s.Minimized, c.Minimized)
				}
				return s
			}
			want := read()
			if tt.wantDiff != nil {
				tt.wantDiff(want)
			}
			got := w.graphql(t, tt.token, tt.query, tt.vars(w))
			var msgs []string
			for _, e := range got.Errors {
				msgs = append(msgs, e.Message)
			}
			if all := strings.Join(msgs, "\n"); (tt.wantErr == "") != (all == "") || !strings.Contains(all, tt.wantErr) {
				t.Errorf("errors = %q, want one holding %q", msgs, tt.wantErr)
			}
			if tt.want != "" {
				data := string(got.Data)
				if cs, _ := w.g.Comments(subject); len(cs) > 0 {
					data = strings.ReplaceAll(data, cs[len(cs)-1].URL, "URL")
				}
				if diff := cmp.Diff(jsonOf(t, tt.want), jsonOf(t, data)); diff != "" {
					t.Errorf("data (-want +got):\n%s", diff)
				}
			}
			// A refused call changes nothing.
			if diff := cmp.Diff(want, read()); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
		})
	}
}

// waiting is the node id of the recess:waiting label.
func (w *issueWorld) waiting(t *testing.T) string {
	t.Helper()
	id, err := w.g.AddLabel(testRepo, "recess:waiting")
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// snapshotOf is a snapshot of any conversation by node id, for tests.
func (g *GitHub) snapshotOf(id string) (Discussion, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.discussionByID(id)
	if err != nil {
		return Discussion{}, err
	}
	return g.snapDiscussion(d), nil
}

func TestSearchIssues(t *testing.T) {
	t.Parallel()
	w := newIssueWorld(t)
	g := w.g
	g.AddRepo("octo", "other")
	if _, err := g.CreateIssue("octo/other", "alice", "elsewhere", "x"); err != nil {
		t.Fatal(err)
	}
	if err := g.LabelDiscussion(w.pr.ID, "recess:waiting"); err != nil {
		t.Fatal(err)
	}
	const q = `query($q: String!, $type: SearchType!) { search(type: $type, query: $q, first: 10) { issueCount discussionCount nodes { __typename ... on Issue { number } ... on PullRequest { number } ... on Discussion { number } } } }`
	tests := []struct {
		name, typ, query string
		want             []string
	}{
		{name: "waiting_issues", typ: "ISSUE", query: `repo:octo/hello is:issue label:"recess:waiting"`, want: []string{"Issue 2"}},
		{name: "waiting_pull_requests", typ: "ISSUE", query: `repo:octo/hello is:pr label:"recess:waiting"`, want: []string{"PullRequest 3"}},
		{name: "both_kinds", typ: "ISSUE", query: `repo:octo/hello label:"recess:waiting"`, want: []string{"PullRequest 3", "Issue 2"}},
		{name: "open_ones", typ: "ISSUE", query: `repo:octo/hello is:open`, want: []string{"Issue 2"}},
		{name: "closed_issues", typ: "ISSUE", query: `repo:octo/hello is:closed is:issue`, want: []string{"Issue 4"}},
		{name: "another_repository", typ: "ISSUE", query: `repo:octo/other`, want: []string{"Issue 1"}},
		{name: "discussions_stay_apart", typ: "DISCUSSION", query: `repo:octo/hello label:"recess:waiting"`, want: []string{"Discussion 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := w.graphql(t, botToken, q, map[string]any{"q": tt.query, "type": tt.typ})
			if len(got.Errors) > 0 {
				t.Fatalf("errors = %+v", got.Errors)
			}
			var data struct {
				Search struct {
					IssueCount, DiscussionCount int
					Nodes                       []struct {
						Typename string `json:"__typename"`
						Number   int
					}
				}
			}
			if err := json.Unmarshal(got.Data, &data); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, n := range data.Search.Nodes {
				names = append(names, fmt.Sprint(n.Typename, " ", n.Number))
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			count := data.Search.IssueCount
			if tt.typ == "DISCUSSION" {
				count = data.Search.DiscussionCount
			}
			if count != len(tt.want) {
				t.Errorf("count = %d, want %d", count, len(tt.want))
			}
		})
	}
}
