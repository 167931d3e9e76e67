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

const addComment = `mutation($input: AddDiscussionCommentInput!) { addDiscussionComment(input: $input) { clientMutationId comment { id body replyTo { id } } } }`

func TestAddDiscussionComment(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if err := w.g.SetAssociation(testRepo, "maint", "MEMBER"); err != nil {
		t.Fatal(err)
	}
	w.g.AddToken("tok-maint", "maint", KindUser)
	open := mustDiscussion(t, w.g, "alice", "open")
	locked := mustDiscussion(t, w.g, "alice", "locked")
	if err := w.g.LockDiscussion(locked.ID, true); err != nil {
		t.Fatal(err)
	}
	top := mustComment(t, w.g, open.ID, "bob", "top")
	reply := mustReply(t, w.g, top.ID, "bob", "reply")
	other := mustDiscussion(t, w.g, "alice", "other")
	otherTop := mustComment(t, w.g, other.ID, "bob", "elsewhere")

	tests := []struct {
		name     string
		token    string
		input    map[string]any
		wantType string
		wantMsg  string
	}{
		{name: "top_level", token: aliceToken, input: map[string]any{"discussionId": open.ID, "body": "hi", "clientMutationId": "m1"}},
		{name: "reply_to_top_level", token: aliceToken, input: map[string]any{"discussionId": open.ID, "body": "hi", "replyToId": top.ID}},
		{name: "reply_to_reply_refused", token: aliceToken, input: map[string]any{"discussionId": open.ID, "body": "hi", "replyToId": reply.ID},
			wantType: "UNPROCESSABLE", wantMsg: "Reply to can not be a reply"},
		{name: "reply_across_discussions_refused", token: aliceToken, input: map[string]any{"discussionId": open.ID, "body": "hi", "replyToId": otherTop.ID},
			wantType: "UNPROCESSABLE"},
		{name: "unknown_discussion", token: aliceToken, input: map[string]any{"discussionId": "D_kwDOnope", "body": "hi"},
			wantType: "NOT_FOUND", wantMsg: "Could not resolve to a node with the global id of 'D_kwDOnope'"},
		{name: "blank_body", token: aliceToken, input: map[string]any{"discussionId": open.ID, "body": " \n"},
			wantType: "UNPROCESSABLE", wantMsg: "Body can't be blank"},
		{name: "body_at_limit", token: aliceToken, input: map[string]any{"discussionId": open.ID, "body": strings.Repeat("é", MaxBodyLength)}},
		{name: "body_over_limit", token: aliceToken, input: map[string]any{"discussionId": open.ID, "body": strings.Repeat("a", MaxBodyLength+1)},
			wantType: "UNPROCESSABLE", wantMsg: "Body is too long (maximum is 65536 characters)"},
		{name: "locked_refused_for_outsider", token: aliceToken, input: map[string]any{"discussionId": locked.ID, "body": "hi"},
			wantType: "FORBIDDEN"},
		{name: "locked_allowed_for_member", token: "tok-maint", input: map[string]any{"discussionId": locked.ID, "body": "hi"}},
		{name: "locked_allowed_for_bot", token: botToken, input: map[string]any{"discussionId": locked.ID, "body": "hi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := w.graphql(t, tt.token, addComment, map[string]any{"input": tt.input})
			if tt.wantType == "" {
				if len(got.Errors) > 0 {
					t.Fatalf("errors = %+v", got.Errors)
				}
				var data struct {
					AddDiscussionComment struct {
						ClientMutationID *string
						Comment          struct {
							ID, Body string
							ReplyTo  *struct{ ID string }
						}
					}
				}
				if err := json.Unmarshal(got.Data, &data); err != nil {
					t.Fatal(err)
				}
				c := data.AddDiscussionComment.Comment
				if !strings.HasPrefix(c.ID, "DC_kwDO") || c.Body != tt.input["body"] {
					t.Errorf("comment = %+v", c)
				}
				if want, _ := tt.input["replyToId"].(string); (c.ReplyTo == nil) != (want == "") || (c.ReplyTo != nil && c.ReplyTo.ID != want) {
					t.Errorf("replyTo = %+v, want %q", c.ReplyTo, want)
				}
				if want, _ := tt.input["clientMutationId"].(string); want != "" && (data.AddDiscussionComment.ClientMutationID == nil || *data.AddDiscussionComment.ClientMutationID != want) {
					t.Errorf("clientMutationId = %v, want %q", data.AddDiscussionComment.ClientMutationID, want)
				}
				return
			}
			if string(got.Data) != `{"addDiscussionComment":null}` {
				t.Errorf("data = %s, want a null payload", got.Data)
			}
			if len(got.Errors) != 1 || got.Errors[0].Type != tt.wantType || !strings.Contains(got.Errors[0].Message, tt.wantMsg) {
				t.Errorf("errors = %+v, want one %s containing %q", got.Errors, tt.wantType, tt.wantMsg)
			}
			if diff := cmp.Diff([]any{"addDiscussionComment"}, got.Errors[0].Path); diff != "" {
				t.Errorf("path (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAddDiscussionCommentWithGithubv4RefusesReplyToReply(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	top := mustComment(t, w.g, d.ID, "bob", "top")
	reply := mustReply(t, w.g, top.ID, "bob", "reply")
	var m struct {
		AddDiscussionComment struct {
			Comment struct{ ID githubv4.ID }
		} `graphql:"addDiscussionComment(input: $input)"`
	}
	replyTo := githubv4.ID(reply.ID)
	err := w.v4(botToken).Mutate(context.Background(), &m,
		githubv4.AddDiscussionCommentInput{DiscussionID: githubv4.ID(d.ID), Body: "answer", ReplyToID: &replyTo}, nil)
	if err == nil {
		t.Fatalf("Mutate(reply to a reply) = nil, want an error")
	}
	cs, err := w.g.Comments(d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Errorf("Comments() has %d entries after a refused reply, want 2", len(cs))
	}
}

func TestUpdateAndDeleteDiscussionComment(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	mine := mustComment(t, w.g, d.ID, "alice", "mine")
	bobs := mustComment(t, w.g, d.ID, "bob", "bob's")
	w.clock.Step(60e9)

	up := w.graphql(t, aliceToken, `mutation($i: UpdateDiscussionCommentInput!) { updateDiscussionComment(input: $i) { comment { body updatedAt lastEditedAt createdAt } } }`,
		map[string]any{"i": map[string]any{"commentId": mine.ID, "body": "edited"}})
	if want := `{"updateDiscussionComment":{"comment":{"body":"edited","updatedAt":"2026-11-21T10:01:00Z","lastEditedAt":"2026-11-21T10:01:00Z","createdAt":"2026-11-21T10:00:00Z"}}}`; string(up.Data) != want {
		t.Errorf("update = %s %+v, want %s", up.Data, up.Errors, want)
	}
	forbidden := w.graphql(t, aliceToken, `mutation($i: UpdateDiscussionCommentInput!) { updateDiscussionComment(input: $i) { comment { body } } }`,
		map[string]any{"i": map[string]any{"commentId": bobs.ID, "body": "hijack"}})
	if diff := cmp.Diff([]string{"FORBIDDEN"}, errorTypes(forbidden.Errors)); diff != "" {
		t.Errorf("editing someone else's comment (-want +got):\n%s", diff)
	}
	// The owner moderates.
	del := w.graphql(t, ownerToken, `mutation($i: DeleteDiscussionCommentInput!) { deleteDiscussionComment(input: $i) { comment { id } } }`,
		map[string]any{"i": map[string]any{"id": bobs.ID}})
	if len(del.Errors) > 0 {
		t.Fatalf("delete errors = %+v", del.Errors)
	}
	cs, _ := w.g.Comments(d.ID)
	if len(cs) != 1 || cs[0].Body != "edited" {
		t.Errorf("Comments() = %+v, want only the edited one", cs)
	}
	gone := w.graphql(t, aliceToken, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": bobs.ID})
	if diff := cmp.Diff([]string{"NOT_FOUND"}, errorTypes(gone.Errors)); diff != "" {
		t.Errorf("node(deleted) error types (-want +got):\n%s", diff)
	}
}

func TestDeletedCommentsFollowGitHub(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	lonely := mustComment(t, w.g, d.ID, "bob", "lonely")
	parent := mustComment(t, w.g, d.ID, "bob", "parent")
	r1 := mustReply(t, w.g, parent.ID, "carol", "r1")
	mustReply(t, w.g, parent.ID, "carol", "r2")
	w.clock.Step(30e9)
	for _, id := range []string{lonely.ID, parent.ID, r1.ID} {
		if err := w.g.DeleteComment(id); err != nil {
			t.Fatalf("DeleteComment(%s) = %v", id, err)
		}
	}
	got := w.graphql(t, aliceToken, `{ repository(owner:"octo", name:"hello") { discussion(number: 1) { comments(first: 10) { totalCount nodes { body deletedAt replies(first: 10) { totalCount nodes { body deletedAt } } } } } } }`, nil)
	// A comment without replies vanishes; one with replies stays as a
	// tombstone holding its thread; a deleted reply vanishes.
	want := `{"repository":{"discussion":{"comments":{"totalCount":1,"nodes":[{"body":"","deletedAt":"2026-11-21T10:00:30Z","replies":{"totalCount":1,"nodes":[{"body":"r2","deletedAt":null}]}}]}}}}`
	if string(got.Data) != want || len(got.Errors) > 0 {
		t.Errorf("data = %s (errors %+v), want %s", got.Data, got.Errors, want)
	}
	reply := w.graphql(t, aliceToken, addComment, map[string]any{"input": map[string]any{"discussionId": d.ID, "body": "x", "replyToId": parent.ID}})
	if diff := cmp.Diff([]string{"UNPROCESSABLE"}, errorTypes(reply.Errors)); diff != "" {
		t.Errorf("reply to a tombstone (-want +got):\n%s", diff)
	}
}

func TestReactionsLabelsAndMinimize(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	c := mustComment(t, w.g, d.ID, "alice", "hello")
	lid, err := w.g.AddLabel(testRepo, "recess:waiting")
	if err != nil {
		t.Fatal(err)
	}
	react := `mutation($i: AddReactionInput!) { addReaction(input: $i) { reaction { content } subject { id } } }`
	for range 2 { // idempotent
		got := w.graphql(t, botToken, react, map[string]any{"i": map[string]any{"subjectId": c.ID, "content": "EYES"}})
		if len(got.Errors) > 0 {
			t.Fatalf("addReaction errors = %+v", got.Errors)
		}
	}
	q := `query($id: ID!) { node(id: $id) { ... on DiscussionComment { reactionGroups { content viewerHasReacted reactors(first: 5) { totalCount } } } } }`
	got := w.graphql(t, botToken, q, map[string]any{"id": c.ID})
	var data struct {
		Node struct {
			ReactionGroups []struct {
				Content          string
				ViewerHasReacted bool
				Reactors         struct{ TotalCount int }
			}
		}
	}
	if err := json.Unmarshal(got.Data, &data); err != nil {
		t.Fatal(err)
	}
	for _, rg := range data.Node.ReactionGroups {
		wantCount := 0
		if rg.Content == "EYES" {
			wantCount = 1
		}
		if rg.Reactors.TotalCount != wantCount || rg.ViewerHasReacted != (wantCount == 1) {
			t.Errorf("group %s = %+v, want %d reactors", rg.Content, rg, wantCount)
		}
	}
	if len(data.Node.ReactionGroups) != len(reactionContents) {
		t.Errorf("%d reaction groups, want %d", len(data.Node.ReactionGroups), len(reactionContents))
	}
	for range 2 {
		rm := w.graphql(t, botToken, `mutation($i: RemoveReactionInput!) { removeReaction(input: $i) { subject { id } } }`,
			map[string]any{"i": map[string]any{"subjectId": c.ID, "content": "EYES"}})
		if len(rm.Errors) > 0 {
			t.Fatalf("removeReaction errors = %+v", rm.Errors)
		}
	}
	cs, _ := w.g.Comments(d.ID)
	if len(cs[0].Reactions["EYES"]) != 0 {
		t.Errorf("reactions after removal = %v", cs[0].Reactions)
	}

	label := `mutation($i: AddLabelsToLabelableInput!) { addLabelsToLabelable(input: $i) { labelable { ... on Discussion { labels(first: 5) { nodes { name } } } } } }`
	if got := w.graphql(t, aliceToken, label, map[string]any{"i": map[string]any{"labelableId": d.ID, "labelIds": []string{lid}}}); fmt.Sprint(errorTypes(got.Errors)) != "[FORBIDDEN]" {
		t.Errorf("labeling without write access: errors %+v, want FORBIDDEN", got.Errors)
	}
	got = w.graphql(t, botToken, label, map[string]any{"i": map[string]any{"labelableId": d.ID, "labelIds": []string{lid}}})
	if want := `{"addLabelsToLabelable":{"labelable":{"labels":{"nodes":[{"name":"recess:waiting"}]}}}}`; string(got.Data) != want {
		t.Errorf("addLabels = %s %+v, want %s", got.Data, got.Errors, want)
	}
	lookup := w.graphql(t, botToken, `{ repository(owner:"octo", name:"hello") { label(name: "recess:waiting") { id } missing: label(name: "nope") { id } } }`, nil)
	if want := fmt.Sprintf(`{"repository":{"label":{"id":%q},"missing":null}}`, lid); string(lookup.Data) != want {
		t.Errorf("label lookup = %s, want %s", lookup.Data, want)
	}
	got = w.graphql(t, botToken, `mutation($i: RemoveLabelsFromLabelableInput!) { removeLabelsFromLabelable(input: $i) { clientMutationId } }`,
		map[string]any{"i": map[string]any{"labelableId": d.ID, "labelIds": []string{lid}}})
	snap, _ := w.g.Discussion(testRepo, 1)
	if len(got.Errors) > 0 || len(snap.Labels) != 0 {
		t.Errorf("after removeLabels: errors %+v labels %v", got.Errors, snap.Labels)
	}

	min := w.graphql(t, botToken, `mutation($i: MinimizeCommentInput!) { minimizeComment(input: $i) { minimizedComment { isMinimized minimizedReason } } }`,
		map[string]any{"i": map[string]any{"subjectId": c.ID, "classifier": "OUTDATED"}})
	if want := `{"minimizeComment":{"minimizedComment":{"isMinimized":true,"minimizedReason":"outdated"}}}`; string(min.Data) != want {
		t.Errorf("minimize = %s %+v, want %s", min.Data, min.Errors, want)
	}
}

func TestSearchDiscussions(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.g.AddRepo("octo", "other")
	if _, err := w.g.AddLabel(testRepo, "recess:waiting"); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 5 {
		d := mustDiscussion(t, w.g, "alice", fmt.Sprintf("d%d", i))
		w.clock.Step(1e9)
		if i%2 == 0 {
			if err := w.g.LabelDiscussion(d.ID, "recess:waiting"); err != nil {
				t.Fatal(err)
			}
			if i != 4 {
				want = append([]string{d.Title}, want...)
			}
		}
		if i == 4 {
			if err := w.g.CloseDiscussion(d.ID, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := w.g.CreateDiscussion("octo/other", "alice", "elsewhere", ""); err != nil {
		t.Fatal(err)
	}
	q := `query($q: String!, $after: String) { search(query: $q, type: DISCUSSION, first: 1, after: $after) { discussionCount pageInfo { hasNextPage endCursor } nodes { ... on Discussion { title } } } }`
	var titles []string
	var after any
	for {
		got := w.graphql(t, botToken, q, map[string]any{"q": `repo:octo/hello label:"recess:waiting" is:open`, "after": after})
		var data struct {
			Search struct {
				DiscussionCount int
				PageInfo        struct {
					HasNextPage bool
					EndCursor   string
				}
				Nodes []struct{ Title string }
			}
		}
		if err := json.Unmarshal(got.Data, &data); err != nil || len(got.Errors) > 0 {
			t.Fatalf("search: %v %+v", err, got.Errors)
		}
		if data.Search.DiscussionCount != 2 {
			t.Errorf("discussionCount = %d, want 2", data.Search.DiscussionCount)
		}
		for _, n := range data.Search.Nodes {
			titles = append(titles, n.Title)
		}
		if !data.Search.PageInfo.HasNextPage {
			break
		}
		after = data.Search.PageInfo.EndCursor
	}
	if diff := cmp.Diff(want, titles); diff != "" {
		t.Errorf("search results, newest first (-want +got):\n%s", diff)
	}
	bad := w.graphql(t, botToken, `{ search(query: "repo:octo/hello reactions:>5", type: DISCUSSION, first: 5) { discussionCount } }`, nil)
	if len(bad.Errors) != 1 || !strings.Contains(bad.Errors[0].Message, "not implemented") {
		t.Errorf("unknown qualifier errors = %+v, want a not implemented error", bad.Errors)
	}
}

func TestDiscussionsConnection(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for i := range 3 {
		d := mustDiscussion(t, w.g, "alice", fmt.Sprintf("d%d", i))
		w.clock.Step(1e9)
		if i == 1 {
			if err := w.g.CloseDiscussion(d.ID, "OUTDATED"); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := w.graphql(t, aliceToken, `{ repository(owner:"octo", name:"hello") { open: discussions(first: 10, states: [OPEN], orderBy: {field: CREATED_AT, direction: ASC}) { totalCount nodes { title closed } } all: discussions(first: 10) { nodes { title stateReason } } } }`, nil)
	want := `{"repository":{"open":{"totalCount":2,"nodes":[{"title":"d0","closed":false},{"title":"d2","closed":false}]},"all":{"nodes":[{"title":"d2","stateReason":null},{"title":"d1","stateReason":"OUTDATED"},{"title":"d0","stateReason":null}]}}}`
	if string(got.Data) != want || len(got.Errors) > 0 {
		t.Errorf("discussions = %s (errors %+v), want %s", got.Data, got.Errors, want)
	}
}

func TestDiscussionStateAndNumbers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	first := mustDiscussion(t, w.g, "alice", "first")
	if err := w.g.SkipNumbers(testRepo, 3); err != nil { // issues #2..#4
		t.Fatal(err)
	}
	second := mustDiscussion(t, w.g, "alice", "second")
	if first.Number != 1 || second.Number != 5 || !strings.HasPrefix(first.ID, "D_kwDO") {
		t.Errorf("numbers %d, %d ids %s; want 1, 5 and a D_kwDO id", first.Number, second.Number, first.ID)
	}
	if err := w.g.CloseDiscussion(first.ID, "DUPLICATE"); err != nil {
		t.Fatal(err)
	}
	if err := w.g.LockDiscussion(first.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := w.g.DeleteDiscussion(second.ID); err != nil {
		t.Fatal(err)
	}
	got := w.graphql(t, aliceToken, `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Discussion { number closed locked stateReason closedAt } } }`,
		map[string]any{"ids": []string{first.ID, second.ID}})
	if want := `{"nodes":[{"number":1,"closed":true,"locked":true,"stateReason":"DUPLICATE","closedAt":"2026-11-21T10:00:00Z"},null]}`; string(got.Data) != want {
		t.Errorf("nodes = %s, want %s", got.Data, want)
	}
	if diff := cmp.Diff([]string{"NOT_FOUND"}, errorTypes(got.Errors)); diff != "" {
		t.Errorf("deleted discussion error types (-want +got):\n%s", diff)
	}
	if _, err := w.g.Discussion(testRepo, 5); !errors.Is(err, ErrUnknownDiscussion) {
		t.Errorf("Discussion(deleted) = %v, want ErrUnknownDiscussion", err)
	}
	if _, err := w.g.CreateDiscussion("octo/nope", "alice", "x", ""); !errors.Is(err, ErrUnknownRepo) {
		t.Errorf("CreateDiscussion(unknown repo) = %v, want ErrUnknownRepo", err)
	}
	if _, err := w.g.Reply(first.ID, "bob", "x"); !errors.Is(err, ErrUnknownComment) {
		t.Errorf("Reply(to a discussion id) = %v, want ErrUnknownComment", err)
	}
}
