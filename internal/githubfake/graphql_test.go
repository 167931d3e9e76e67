package githubfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shurcooL/githubv4"
)

func TestGraphQLRefusesInvalidDocuments(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	tests := []struct {
		name      string
		query     string
		vars      map[string]any
		wantType  string
		wantInMsg string
	}{
		{name: "undefined_field", query: `query { viewer { login nope } }`, wantInMsg: "Field 'nope' doesn't exist on type 'User'"},
		{name: "parse_error", query: `query { viewer { login }`, wantInMsg: "Parse error"},
		{name: "unknown_argument", query: `query { viewer { login(x: 1) } }`, wantInMsg: "Unknown argument"},
		{name: "missing_first", query: `query { repository(owner:"octo", name:"hello") { discussion(number: 1) { comments { nodes { id } } } } }`,
			wantType: "MISSING_PAGINATION_BOUNDARIES", wantInMsg: "You must provide a `first` or `last` value to properly paginate the `comments` connection."},
		{name: "first_over_100", query: `query { repository(owner:"octo", name:"hello") { discussion(number: 1) { comments(first: 101) { nodes { id } } } } }`,
			wantType: "EXCESSIVE_PAGINATION", wantInMsg: "Requesting 101 records on the `comments` connection exceeds the `first` limit of 100 records."},
		{name: "last_over_100_in_variable", query: `query($n: Int!) { repository(owner:"octo", name:"hello") { discussion(number: 1) { comments(last: $n) { nodes { id } } } } }`,
			vars: map[string]any{"n": 500}, wantType: "EXCESSIVE_PAGINATION", wantInMsg: "`last` limit of 100"},
		{name: "first_and_last", query: `query { repository(owner:"octo", name:"hello") { discussion(number: 1) { comments(first: 5, last: 5) { nodes { id } } } } }`,
			wantType: "EXCESSIVE_PAGINATION", wantInMsg: "Passing both `first` and `last`"},
		{name: "nested_replies_without_first", query: `query { repository(owner:"octo", name:"hello") { discussion(number: 1) { comments(first: 5) { nodes { replies { nodes { id } } } } } } }`,
			wantType: "MISSING_PAGINATION_BOUNDARIES", wantInMsg: "the `replies` connection"},
		{name: "missing_variable", query: `query($n: Int!) { repository(owner:"octo", name:"hello") { discussion(number: $n) { id } } }`,
			wantInMsg: "Variable $n of type Int! was provided invalid value"},
		{name: "wrong_variable_type", query: `mutation($input: AddDiscussionCommentInput!) { addDiscussionComment(input: $input) { comment { id } } }`,
			vars: map[string]any{"input": map[string]any{"discussionId": d.ID}}, wantInMsg: "Variable $input of type AddDiscussionCommentInput! was provided invalid value"},
		{name: "undeclared_variable", query: `query { repository(owner:"octo", name:"hello") { discussion(number: $n) { id } } }`, wantInMsg: "Variable \"$n\" is not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := w.graphql(t, aliceToken, tt.query, tt.vars)
			if got.Status != 200 {
				t.Errorf("status = %d, want 200", got.Status)
			}
			if got.HasKey["data"] {
				t.Errorf("answer has data %s, want none for a refused document", got.Data)
			}
			if len(got.Errors) == 0 {
				t.Fatalf("no errors for %q", tt.query)
			}
			e := got.Errors[0]
			if e.Type != tt.wantType {
				t.Errorf("errors[0].type = %q, want %q", e.Type, tt.wantType)
			}
			if !strings.Contains(e.Message, tt.wantInMsg) {
				t.Errorf("errors[0].message = %q, want it to contain %q", e.Message, tt.wantInMsg)
			}
		})
	}
	// Nothing was charged for refused documents.
	if got := w.g.GraphQLPoints(); got != 0 {
		t.Errorf("GraphQLPoints() = %d after refused documents, want 0", got)
	}
}

func TestGraphQLConnectionForTotalCountOnlyNeedsNoFirst(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	mustComment(t, w.g, d.ID, "bob", "one")
	mustComment(t, w.g, d.ID, "bob", "two")
	got := w.graphql(t, aliceToken, `{ repository(owner:"octo", name:"hello") { discussion(number: 1) { comments { totalCount } } } }`, nil)
	if len(got.Errors) > 0 {
		t.Fatalf("errors = %+v", got.Errors)
	}
	if want := `{"repository":{"discussion":{"comments":{"totalCount":2}}}}`; string(got.Data) != want {
		t.Errorf("data = %s, want %s", got.Data, want)
	}
}

func TestGraphQLUnimplementedFieldIsAnError(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	got := w.graphql(t, aliceToken, `{ viewer { login bio } }`, nil)
	if len(got.Errors) != 1 || got.Errors[0].Message != "githubfake: field User.bio not implemented" {
		t.Fatalf("errors = %+v, want one naming User.bio", got.Errors)
	}
	if diff := cmp.Diff([]any{"viewer", "bio"}, got.Errors[0].Path); diff != "" {
		t.Errorf("path (-want +got):\n%s", diff)
	}
}

func TestGraphQLExecutorFeatures(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	c := mustComment(t, w.g, d.ID, "bob", "hello")
	query := `
query Q($num: Int!, $withBody: Boolean!) {
  r: repository(owner: "octo", name: "hello") {
    nameWithOwner
    __typename
    discussion(number: $num) { ...D }
  }
  n: node(id: "` + c.ID + `") { __typename ... on DiscussionComment { body @include(if: $withBody) author { __typename login } } }
}
fragment D on Discussion { title t2: title number comments(first: 1) { nodes { id ... on Node { id } } } }`
	got := w.graphql(t, aliceToken, query, map[string]any{"num": 1, "withBody": false})
	if len(got.Errors) > 0 {
		t.Fatalf("errors = %+v", got.Errors)
	}
	want := fmt.Sprintf(`{"r":{"nameWithOwner":"octo/hello","__typename":"Repository","discussion":{"title":"rfc","t2":"rfc","number":1,"comments":{"nodes":[{"id":%q}]}}},"n":{"__typename":"DiscussionComment","author":{"__typename":"User","login":"bob"}}}`, c.ID)
	if string(got.Data) != want {
		t.Errorf("data =\n%s\nwant\n%s", got.Data, want)
	}
}

func TestGraphQLNotFound(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tests := []struct {
		name     string
		query    string
		wantData string
		wantMsg  string
	}{
		{name: "repository", query: `{ repository(owner:"octo", name:"nope") { id } }`, wantData: `{"repository":null}`,
			wantMsg: "Could not resolve to a Repository with the name 'octo/nope'."},
		{name: "discussion", query: `{ repository(owner:"octo", name:"hello") { discussion(number: 42) { id } } }`,
			wantData: `{"repository":{"discussion":null}}`, wantMsg: "Could not resolve to a Discussion with the number of 42."},
		{name: "node", query: `{ node(id: "D_nope") { id } }`, wantData: `{"node":null}`,
			wantMsg: "Could not resolve to a node with the global id of 'D_nope'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := w.graphql(t, aliceToken, tt.query, nil)
			if string(got.Data) != tt.wantData {
				t.Errorf("data = %s, want %s", got.Data, tt.wantData)
			}
			if len(got.Errors) != 1 || got.Errors[0].Type != "NOT_FOUND" || got.Errors[0].Message != tt.wantMsg {
				t.Errorf("errors = %+v, want one NOT_FOUND %q", got.Errors, tt.wantMsg)
			}
		})
	}
}

// discussionQuery is the shape an adapter reads: both comment levels,
// paginated.
type discussionQuery struct {
	Repository struct {
		Discussion struct {
			ID              githubv4.ID
			Number          int
			ViewerDidAuthor bool
			Author          struct{ Login string }
			Comments        struct {
				TotalCount int
				PageInfo   struct {
					HasNextPage bool
					EndCursor   githubv4.String
				}
				Nodes []commentNode
			} `graphql:"comments(first: $first, after: $after)"`
		} `graphql:"discussion(number: $number)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

type commentNode struct {
	ID                githubv4.ID
	DatabaseID        int64
	Body              string
	ViewerDidAuthor   bool
	AuthorAssociation string
	Author            struct{ Login string }
	ReplyTo           *struct{ ID githubv4.ID }
	Replies           struct {
		TotalCount int
		PageInfo   struct {
			HasNextPage bool
			EndCursor   githubv4.String
		}
		Nodes []struct {
			ID      githubv4.ID
			Body    string
			ReplyTo *struct{ ID githubv4.ID }
		}
	} `graphql:"replies(first: $replies)"`
}

func TestGraphQLPaginatesBothCommentLevels(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	var top []Comment
	for i := range 7 {
		top = append(top, mustComment(t, w.g, d.ID, "bob", fmt.Sprintf("c%d", i)))
	}
	for i := range 5 {
		mustReply(t, w.g, top[0].ID, "carol", fmt.Sprintf("r%d", i))
	}
	ctx := context.Background()
	var bodies []string
	var after *githubv4.String
	pages := 0
	for {
		var q discussionQuery
		err := w.v4(aliceToken).Query(ctx, &q, map[string]any{
			"owner": githubv4.String("octo"), "name": githubv4.String("hello"), "number": githubv4.Int(1),
			"first": githubv4.Int(3), "after": after, "replies": githubv4.Int(2),
		})
		if err != nil {
			t.Fatalf("Query(page %d) = %v", pages, err)
		}
		pages++
		c := q.Repository.Discussion.Comments
		if c.TotalCount != 7 {
			t.Errorf("totalCount = %d, want 7", c.TotalCount)
		}
		for _, n := range c.Nodes {
			bodies = append(bodies, n.Body)
			if n.Body == "c0" {
				if n.Replies.TotalCount != 5 || len(n.Replies.Nodes) != 2 || !n.Replies.PageInfo.HasNextPage {
					t.Errorf("replies of c0: total %d, %d nodes, hasNext %v; want 5, 2, true",
						n.Replies.TotalCount, len(n.Replies.Nodes), n.Replies.PageInfo.HasNextPage)
				}
				for _, r := range n.Replies.Nodes {
					if r.ReplyTo == nil || r.ReplyTo.ID != n.ID {
						t.Errorf("reply %q replyTo = %v, want %v", r.Body, r.ReplyTo, n.ID)
					}
				}
			}
			if n.ReplyTo != nil {
				t.Errorf("top-level %q has replyTo %v", n.Body, n.ReplyTo.ID)
			}
		}
		if !c.PageInfo.HasNextPage {
			break
		}
		after = &c.PageInfo.EndCursor
	}
	if pages != 3 {
		t.Errorf("pages = %d, want 3", pages)
	}
	if diff := cmp.Diff([]string{"c0", "c1", "c2", "c3", "c4", "c5", "c6"}, bodies); diff != "" {
		t.Errorf("bodies (-want +got):\n%s", diff)
	}

	// The remaining replies, page by page through the comment's node.
	var replyBodies []string
	var cursor *githubv4.String
	for {
		var q struct {
			Node struct {
				Comment struct {
					Replies struct {
						PageInfo struct {
							HasNextPage bool
							EndCursor   githubv4.String
						}
						Nodes []struct{ Body string }
					} `graphql:"replies(first: 2, after: $after)"`
				} `graphql:"... on DiscussionComment"`
			} `graphql:"node(id: $id)"`
		}
		if err := w.v4(aliceToken).Query(ctx, &q, map[string]any{"id": githubv4.ID(top[0].ID), "after": cursor}); err != nil {
			t.Fatalf("Query(replies) = %v", err)
		}
		for _, n := range q.Node.Comment.Replies.Nodes {
			replyBodies = append(replyBodies, n.Body)
		}
		if !q.Node.Comment.Replies.PageInfo.HasNextPage {
			break
		}
		cursor = &q.Node.Comment.Replies.PageInfo.EndCursor
	}
	if diff := cmp.Diff([]string{"r0", "r1", "r2", "r3", "r4"}, replyBodies); diff != "" {
		t.Errorf("reply bodies (-want +got):\n%s", diff)
	}

	// last/before walks backwards.
	got := w.graphql(t, aliceToken, `{ repository(owner:"octo", name:"hello") { discussion(number: 1) { comments(last: 2) { pageInfo { hasPreviousPage startCursor } nodes { body } } } } }`, nil)
	var back struct {
		Repository struct {
			Discussion struct {
				Comments struct {
					PageInfo struct {
						HasPreviousPage bool
						StartCursor     string
					}
					Nodes []struct{ Body string }
				}
			}
		}
	}
	if err := json.Unmarshal(got.Data, &back); err != nil {
		t.Fatal(err)
	}
	cs := back.Repository.Discussion.Comments
	if len(cs.Nodes) != 2 || cs.Nodes[0].Body != "c5" || cs.Nodes[1].Body != "c6" || !cs.PageInfo.HasPreviousPage {
		t.Errorf("last 2 = %+v, want c5, c6 with a previous page", cs)
	}
	got = w.graphql(t, aliceToken, `query($b: String) { repository(owner:"octo", name:"hello") { discussion(number: 1) { comments(last: 2, before: $b) { nodes { body } } } } }`,
		map[string]any{"b": cs.PageInfo.StartCursor})
	if want := `{"repository":{"discussion":{"comments":{"nodes":[{"body":"c3"},{"body":"c4"}]}}}}`; string(got.Data) != want {
		t.Errorf("before page = %s, want %s", got.Data, want)
	}
	bad := w.graphql(t, aliceToken, `{ repository(owner:"octo", name:"hello") { discussion(number: 1) { comments(first: 2, after: "bogus") { nodes { body } } } } }`, nil)
	if diff := cmp.Diff([]string{"INVALID_CURSOR_ARGUMENTS"}, errorTypes(bad.Errors)); diff != "" {
		t.Errorf("bogus cursor error types (-want +got):\n%s", diff)
	}
}

func TestGraphQLIdentities(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	ctx := context.Background()

	var viewer struct{ Viewer struct{ Login string } }
	tests := []struct {
		token string
		want  string
	}{
		{token: aliceToken, want: "alice"},
		// An app or GITHUB_TOKEN is a User named with [bot] as viewer.
		{token: botToken, want: "github-actions[bot]"},
	}
	for _, tt := range tests {
		if err := w.v4(tt.token).Query(ctx, &viewer, nil); err != nil {
			t.Fatalf("Query(viewer) = %v", err)
		}
		if viewer.Viewer.Login != tt.want {
			t.Errorf("viewer.login for %s = %q, want %q", tt.token, viewer.Viewer.Login, tt.want)
		}
	}

	var m struct {
		AddDiscussionComment struct {
			Comment struct {
				ID              githubv4.ID
				ViewerDidAuthor bool
				Author          struct {
					Login    string
					Typename string `graphql:"__typename"`
				}
			}
		} `graphql:"addDiscussionComment(input: $input)"`
	}
	err := w.v4(botToken).Mutate(ctx, &m, githubv4.AddDiscussionCommentInput{DiscussionID: githubv4.ID(d.ID), Body: "status"}, nil)
	if err != nil {
		t.Fatalf("Mutate(addDiscussionComment) = %v", err)
	}
	got := m.AddDiscussionComment.Comment
	if !got.ViewerDidAuthor || got.Author.Login != "github-actions" || got.Author.Typename != "Bot" {
		t.Errorf("posted comment = %+v, want viewerDidAuthor by Bot github-actions", got)
	}
	human := mustComment(t, w.g, d.ID, "alice", "human")
	// Another workflow holding the bot's token reposts alice's comment:
	// the repost is the bot's, whichever run of that token reads it.
	if _, err := w.g.Repost(botToken, human.ID); err != nil {
		t.Fatalf("Repost = %v", err)
	}
	if _, err := w.g.Repost("tok-nobody", human.ID); !errors.Is(err, ErrUnknownLogin) {
		t.Errorf("Repost(unknown token) = %v, want ErrUnknownLogin", err)
	}

	for _, tt := range []struct {
		token string
		want  map[string][]bool
	}{
		{token: botToken, want: map[string][]bool{"status": {true}, "human": {false, true}}},
		{token: aliceToken, want: map[string][]bool{"status": {false}, "human": {true, false}}},
	} {
		var q discussionQuery
		err := w.v4(tt.token).Query(ctx, &q, map[string]any{"owner": githubv4.String("octo"), "name": githubv4.String("hello"),
			"number": githubv4.Int(1), "first": githubv4.Int(10), "after": (*githubv4.String)(nil), "replies": githubv4.Int(1)})
		if err != nil {
			t.Fatalf("Query = %v", err)
		}
		gotMine := map[string][]bool{}
		for _, n := range q.Repository.Discussion.Comments.Nodes {
			gotMine[n.Body] = append(gotMine[n.Body], n.ViewerDidAuthor)
		}
		if diff := cmp.Diff(tt.want, gotMine); diff != "" {
			t.Errorf("viewerDidAuthor for %s (-want +got):\n%s", tt.token, diff)
		}
		if q.Repository.Discussion.ViewerDidAuthor != (tt.token == aliceToken) {
			t.Errorf("discussion viewerDidAuthor for %s = %v", tt.token, q.Repository.Discussion.ViewerDidAuthor)
		}
	}
}

func TestGraphQLPoints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		query string
		want  int
	}{
		{name: "no_connection", query: `{ viewer { login } }`, want: 1},
		{name: "one_level", query: `{ repository(owner:"octo", name:"hello") { discussion(number: 1) { comments(first: 100) { nodes { id } } } } }`, want: 1},
		// 1 request for the comments + 100 for their replies = 101 -> 1.
		{name: "two_levels", query: `{ repository(owner:"octo", name:"hello") { discussion(number: 1) { comments(first: 100) { nodes { replies(first: 100) { nodes { id } } } } } } }`, want: 1},
		// 1 + 40 + 40*100 = 4041 -> 40.
		{name: "three_levels", query: `{ search(query: "repo:octo/hello", type: DISCUSSION, first: 40) { nodes { ... on Discussion { comments(first: 100) { nodes { replies(first: 100) { nodes { id } } } } } } } }`, want: 40},
		// 100 + 100*100 + 100*100*100 nodes is over GitHub's 500,000: refused, free.
		{name: "node_limit", query: `{ search(query: "repo:octo/hello", type: DISCUSSION, first: 100) { nodes { ... on Discussion { comments(first: 100) { nodes { replies(first: 100) { nodes { id } } } } } } } }`, want: 0},
		// 1 + 50 + 50*20 = 1051 -> 10.51 -> 11.
		{name: "rounded", query: `{ search(query: "repo:octo/hello", type: DISCUSSION, first: 50) { nodes { ... on Discussion { comments(first: 20) { nodes { replies(first: 10) { totalCount nodes { id } } } } } } } }`, want: 11},
		{name: "mutation", query: `mutation { addReaction(input: {subjectId: "x", content: EYES}) { clientMutationId } }`, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			mustDiscussion(t, w.g, "alice", "rfc")
			w.graphql(t, aliceToken, tt.query, nil)
			if got := w.g.GraphQLPoints(); got != tt.want {
				t.Errorf("GraphQLPoints() after %s = %d, want %d", tt.name, got, tt.want)
			}
		})
	}

	t.Run("rate_limit_field", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, WithGraphQLBudget(200))
		mustDiscussion(t, w.g, "alice", "rfc")
		q := `{ rateLimit { cost limit remaining used resetAt nodeCount } search(query: "repo:octo/hello", type: DISCUSSION, first: 100) { nodes { ... on Discussion { comments(first: 100) { nodes { id } } } } } }`
		got := w.graphql(t, aliceToken, q, nil)
		var data struct {
			RateLimit struct {
				Cost, Limit, Remaining, Used, NodeCount int
				ResetAt                                 string
			}
		}
		if err := json.Unmarshal(got.Data, &data); err != nil {
			t.Fatal(err)
		}
		// 1 + 100 = 101 requests -> 1 point; 100 + 100*100 nodes.
		want := struct {
			Cost, Limit, Remaining, Used, NodeCount int
			ResetAt                                 string
		}{Cost: 1, Limit: 200, Remaining: 199, Used: 1, NodeCount: 10100, ResetAt: "2026-11-21T11:00:00Z"}
		if diff := cmp.Diff(want, data.RateLimit); diff != "" {
			t.Errorf("rateLimit (-want +got):\n%s", diff)
		}
		if got.Header.Get("X-Ratelimit-Resource") != "graphql" || got.Header.Get("X-Ratelimit-Remaining") != "199" {
			t.Errorf("headers resource=%q remaining=%q, want graphql 199", got.Header.Get("X-Ratelimit-Resource"), got.Header.Get("X-Ratelimit-Remaining"))
		}
	})

	t.Run("budget_exhausted", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, WithGraphQLBudget(2))
		for range 2 {
			if got := w.graphql(t, aliceToken, `{ viewer { login } }`, nil); len(got.Errors) > 0 {
				t.Fatalf("errors within budget: %+v", got.Errors)
			}
		}
		got := w.graphql(t, aliceToken, `{ viewer { login } }`, nil)
		if got.Status != 200 || len(got.Errors) != 1 || got.Errors[0].Type != "RATE_LIMITED" {
			t.Errorf("over budget: status %d errors %+v, want 200 with RATE_LIMITED", got.Status, got.Errors)
		}
		w.clock.Step(61 * 60 * 1e9)
		if got := w.graphql(t, aliceToken, `{ viewer { login } }`, nil); len(got.Errors) > 0 {
			t.Errorf("after the window reset: %+v", got.Errors)
		}
	})
}
