package githubfake

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// issueWorld holds discussion #1, issue #2 (labelled, with comments by a
// person, an app and recess's own token), pull request #3 (merged) and
// issue #4 (closed as not planned).
type issueWorld struct {
	*world
	disc, issue, pr, closed          Discussion
	byAlice, byApp, byRecess, onPull Comment
}

func newIssueWorld(t *testing.T) *issueWorld {
	t.Helper()
	w := &issueWorld{world: newWorld(t)}
	g := w.g
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var err error
	w.disc = mustDiscussion(t, g, "alice", "rfc")
	w.issue, err = g.CreateIssue(testRepo, "alice", "crash", "it crashes @lead")
	must(err)
	w.pr, err = g.CreatePullRequest(testRepo, "bob", "fix", "fixes #2")
	must(err)
	w.closed, err = g.CreateIssue(testRepo, "bob", "wontfix", "nah")
	must(err)
	_, err = g.AddLabel(testRepo, "recess:waiting")
	must(err)
	must(g.LabelDiscussion(w.issue.ID, "recess:waiting"))
	must(g.LabelDiscussion(w.disc.ID, "recess:waiting"))
	w.byAlice = mustComment(t, g, w.issue.ID, "alice", "more detail")
	w.byApp = mustComment(t, g, w.issue.ID, "renovate[bot]", "deps updated")
	w.byRecess = mustComment(t, g, w.issue.ID, "github-actions", "what version?")
	w.onPull = mustComment(t, g, w.pr.ID, "carol", "LGTM")
	must(g.MergePullRequest(w.pr.ID))
	must(g.CloseIssue(w.closed.ID, "NOT_PLANNED"))
	return w
}

// jsonOf decodes a JSON document for comparison.
func jsonOf(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s is not JSON: %v", s, err)
	}
	return v
}

func TestGraphQLReadsIssuesAndPullRequests(t *testing.T) {
	t.Parallel()
	w := newIssueWorld(t)
	repo := func(sel string) string { return `query { repository(owner: "octo", name: "hello") { ` + sel + ` } }` }
	tests := []struct {
		name    string
		query   string
		vars    map[string]any
		want    string // the data, as JSON
		wantErr string // a message the errors hold
	}{
		{name: "issue_with_flat_comments_seen_by_recess", query: repo(`issue(number: 2) { __typename number title body state stateReason closed locked url
			author { __typename login } authorAssociation labels(first: 10) { nodes { name } }
			comments(first: 10) { totalCount nodes { __typename author { __typename login } body isMinimized viewerDidAuthor url } } }`),
			want: `{"repository": {"issue": {"__typename": "Issue", "number": 2, "title": "crash", "body": "it crashes @lead", "state": "OPEN",
				"stateReason": null, "closed": false, "locked": false, "url": "https://github.com/octo/hello/issues/2",
				"author": {"__typename": "User", "login": "alice"}, "authorAssociation": "NONE", "labels": {"nodes": [{"name": "recess:waiting"}]},
				"comments": {"totalCount": 3, "nodes": [
					{"__typename": "IssueComment", "author": {"__typename": "User", "login": "alice"}, "body": "more detail", "isMinimized": false, "viewerDidAuthor": false, "url": "` + w.byAlice.URL + `"},
					{"__typename": "IssueComment", "author": {"__typename": "Bot", "login": "renovate"}, "body": "deps updated", "isMinimized": false, "viewerDidAuthor": false, "url": "` + w.byApp.URL + `"},
					{"__typename": "IssueComment", "author": {"__typename": "Bot", "login": "github-actions"}, "body": "what version?", "isMinimized": false, "viewerDidAuthor": true, "url": "` + w.byRecess.URL + `"}]}}}}`},
		{name: "closed_issue_state_reason", query: repo(`issue(number: 4) { state stateReason closed }`),
			want: `{"repository": {"issue": {"state": "CLOSED", "stateReason": "NOT_PLANNED", "closed": true}}}`},
		{name: "merged_pull_request", query: repo(`pullRequest(number: 3) { __typename number state closed merged url comments(first: 5) { nodes { body pullRequest { number } } } }`),
			want: `{"repository": {"pullRequest": {"__typename": "PullRequest", "number": 3, "state": "MERGED", "closed": true, "merged": true,
				"url": "https://github.com/octo/hello/pull/3", "comments": {"nodes": [{"body": "LGTM", "pullRequest": {"number": 3}}]}}}}`},
		{name: "issue_or_pull_request", query: repo(`a: issueOrPullRequest(number: 2) { __typename ... on Issue { number } }
			b: issueOrPullRequest(number: 3) { __typename ... on PullRequest { merged } }`),
			want: `{"repository": {"a": {"__typename": "Issue", "number": 2}, "b": {"__typename": "PullRequest", "merged": true}}}`},
		{name: "comment_pages", query: repo(`issue(number: 2) { comments(first: 2) { pageInfo { hasNextPage } nodes { body } } }`),
			want: `{"repository": {"issue": {"comments": {"pageInfo": {"hasNextPage": true}, "nodes": [{"body": "more detail"}, {"body": "deps updated"}]}}}}`},
		{name: "issue_comment_by_node_id", query: `query($id: ID!) { node(id: $id) { __typename ... on IssueComment { body issue { number } pullRequest { number } } } }`,
			vars: map[string]any{"id": w.byAlice.ID},
			want: `{"node": {"__typename": "IssueComment", "body": "more detail", "issue": {"number": 2}, "pullRequest": null}}`},
		{name: "nodes_of_every_kind", query: `query($ids: [ID!]!) { nodes(ids: $ids) { __typename } }`,
			vars: map[string]any{"ids": []string{w.disc.ID, w.issue.ID, w.pr.ID, w.onPull.ID}},
			want: `{"nodes": [{"__typename": "Discussion"}, {"__typename": "Issue"}, {"__typename": "PullRequest"}, {"__typename": "IssueComment"}]}`},
		{name: "issue_number_of_a_pull_request", query: repo(`issue(number: 3) { number }`),
			want: `{"repository": {"issue": null}}`, wantErr: "Could not resolve to an Issue with the number of 3."},
		{name: "pull_request_number_of_an_issue", query: repo(`pullRequest(number: 2) { number }`),
			want: `{"repository": {"pullRequest": null}}`, wantErr: "Could not resolve to a PullRequest with the number of 2."},
		{name: "issue_number_of_a_discussion", query: repo(`issueOrPullRequest(number: 1) { __typename }`),
			want: `{"repository": {"issueOrPullRequest": null}}`, wantErr: "Could not resolve to an issue or pull request with the number of 1."},
		{name: "discussion_number_of_an_issue", query: repo(`discussion(number: 2) { number }`),
			want: `{"repository": {"discussion": null}}`, wantErr: "Could not resolve to a Discussion with the number of 2."},
		{name: "issue_comments_have_no_replies", query: repo(`issue(number: 2) { comments(first: 1) { nodes { replies(first: 1) { totalCount } } } }`),
			wantErr: "Field 'replies' doesn't exist on type 'IssueComment'"},
		{name: "issue_comments_have_no_tombstones", query: repo(`issue(number: 2) { comments(first: 1) { nodes { deletedAt } } }`),
			wantErr: "Field 'deletedAt' doesn't exist on type 'IssueComment'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := w.graphql(t, botToken, tt.query, tt.vars)
			if tt.want != "" {
				if diff := cmp.Diff(jsonOf(t, tt.want), jsonOf(t, string(got.Data))); diff != "" {
					t.Errorf("data (-want +got):\n%s", diff)
				}
			}
			var msgs []string
			for _, e := range got.Errors {
				msgs = append(msgs, e.Message)
			}
			if all := strings.Join(msgs, "\n"); (tt.wantErr == "") != (all == "") || !strings.Contains(all, tt.wantErr) {
				t.Errorf("errors = %q, want one holding %q", msgs, tt.wantErr)
			}
		})
	}
}

func TestIssueGoAPI(t *testing.T) {
	t.Parallel()
	w := newIssueWorld(t)
	g := w.g
	tests := []struct {
		name string
		do   func() error
	}{
		{name: "reply_under_an_issue_comment", do: func() error { _, err := g.Reply(w.byAlice.ID, "bob", "nested"); return err }},
		{name: "close_a_discussion_as_an_issue", do: func() error { return g.CloseIssue(w.disc.ID, "") }},
		{name: "close_an_issue_as_a_discussion", do: func() error { return g.CloseDiscussion(w.issue.ID, "") }},
		{name: "close_an_issue_as_resolved", do: func() error { return g.CloseIssue(w.issue.ID, "RESOLVED") }},
		{name: "close_a_pull_request_with_a_reason", do: func() error { return g.CloseIssue(w.pr.ID, "COMPLETED") }},
		{name: "merge_an_issue", do: func() error { return g.MergePullRequest(w.issue.ID) }},
		{name: "merge_a_merged_pull_request", do: func() error { return g.MergePullRequest(w.pr.ID) }},
		{name: "reopen_a_merged_pull_request", do: func() error { return g.ReopenIssue(w.pr.ID) }},
		{name: "lock_a_discussion_as_an_issue", do: func() error { return g.LockIssue(w.disc.ID, true) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.do(); !errors.Is(err, ErrInvalid) {
				t.Errorf("= %v, want ErrInvalid", err)
			}
		})
	}
	t.Run("one_number_space", func(t *testing.T) {
		t.Parallel()
		var got []string
		for _, d := range []Discussion{w.disc, w.issue, w.pr, w.closed} {
			got = append(got, d.Kind+" "+d.ID[:strings.Index(d.ID, "_")])
		}
		want := []string{"Discussion D", "Issue I", "PullRequest PR", "Issue I"}
		if diff := cmp.Diff(want, got); diff != "" || w.disc.Number != 1 || w.issue.Number != 2 || w.pr.Number != 3 || w.closed.Number != 4 {
			t.Errorf("kinds (-want +got):\n%s; numbers %d %d %d %d", diff, w.disc.Number, w.issue.Number, w.pr.Number, w.closed.Number)
		}
	})
	t.Run("snapshots", func(t *testing.T) {
		t.Parallel()
		pr, err := g.Issue(testRepo, 3)
		if err != nil || !pr.Merged || !pr.Closed || pr.Kind != "PullRequest" {
			t.Errorf("Issue(3) = %+v, %v; want a merged pull request", pr, err)
		}
		closed, err := g.Issue(testRepo, 4)
		if err != nil || closed.StateReason != "NOT_PLANNED" {
			t.Errorf("Issue(4) = %+v, %v; want closed as not planned", closed, err)
		}
		if _, err := g.Issue(testRepo, 1); !errors.Is(err, ErrUnknownDiscussion) {
			t.Errorf("Issue(1) of a discussion = %v, want ErrUnknownDiscussion", err)
		}
		cs, err := g.Comments(w.issue.ID)
		if err != nil || len(cs) != 3 || cs[1].Author != "renovate" || !strings.Contains(cs[1].URL, "/issues/2#issuecomment-") || !strings.HasPrefix(cs[1].ID, "IC_") {
			t.Errorf("Comments(issue) = %+v, %v", cs, err)
		}
	})
}
