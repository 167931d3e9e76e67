package github

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shurcooL/githubv4"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// The GraphQL documents below are githubv4 tagged structs: the struct is the
// selection set. A test validates every document they produce against
// GitHub's schema.

// actor is a comment's or discussion's author. GitHub answers null for a
// deleted account's, which leaves every field empty: see login.
type actor struct {
	Login string
	// Typename is "Bot" for an app's account, whose GraphQL login lacks
	// the "[bot]" suffix REST needs to name it.
	Typename string `graphql:"__typename"`
}

// login is the actor's login, and for a deleted account the login GitHub
// shows for it everywhere else (resume.DeletedAccount).
func (a actor) login() string { return cmp.Or(a.Login, resume.DeletedAccount) }

// commentFields are what recess reads of any comment: a discussion's
// (DiscussionComment) and an issue's or pull request's (IssueComment) share
// them. Embedded in a document's struct, its fields join that selection.
type commentFields struct {
	ID                string
	Body              string
	URL               string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	IsMinimized       bool
	ViewerDidAuthor   bool
	AuthorAssociation string
	Author            actor
}

// commentNode is what recess reads of any discussion comment or reply: in a
// discussion's read, by id (a sweep's candidates for a status comment, a
// save's re-read of the status comment it is about to overwrite), and in a
// mutation's answer. An issue's comment, read by id, fills it too
// (anyComment); flat, it has no reply and no tombstone.
type commentNode struct {
	commentFields
	DeletedAt *time.Time
	ReplyTo   node
	// Discussion is the thread the comment is in (for an issue's or pull
	// request's comment, that issue or pull request).
	Discussion struct {
		ID     string
		Number int
	}
}

type replyConn struct {
	PageInfo pageInfo
	Nodes    []commentNode
}

// topComment is a top-level comment with its first page of replies. The
// shared fields sit behind an inline fragment on the comment's own type:
// githubv4 cannot decode into an embedded unexported struct.
type topComment struct {
	C       commentNode `graphql:"... on DiscussionComment"`
	Replies replyConn   `graphql:"replies(first: 100)"`
}

type commentConn struct {
	PageInfo pageInfo
	Nodes    []topComment
}

// threadFields are what recess reads of a thread of any kind: Discussion,
// Issue and PullRequest share them.
type threadFields struct {
	// Repository carries the repository facts every thread read picks up
	// at no cost (see repoFacts).
	Repository      repoFacts
	ID              string
	Number          int
	Title           string
	Body            string
	URL             string
	CreatedAt       time.Time
	Closed          bool
	Locked          bool
	ViewerDidAuthor bool
	Author          actor
	Labels          struct {
		Nodes []struct{ Name string }
	} `graphql:"labels(first: 100)"`
}

// thread is the thread as the engine sees it, with comments (oldest
// first).
func (f threadFields) thread(kind state.Kind, comments []storedComment) *resume.Thread {
	t := &resume.Thread{
		Kind:      kind,
		ID:        f.ID,
		Number:    f.Number,
		Title:     f.Title,
		Body:      f.Body,
		Author:    f.Author.login(),
		AuthorBot: f.Author.Typename == "Bot",
		CreatedAt: f.CreatedAt,
		URL:       f.URL,
		Closed:    f.Closed,
		Locked:    f.Locked,
		Mine:      f.ViewerDidAuthor,
		Comments:  make([]resume.Comment, len(comments)),
		Repo:      f.Repository.repo(),
	}
	for _, l := range f.Labels.Nodes {
		t.Labels = append(t.Labels, l.Name)
	}
	for i, sc := range comments {
		t.Comments[i] = sc.Comment
	}
	return t
}

type discussionNode struct {
	threadFields
	// Category is the discussion's category, for the categories scope.
	Category struct{ Name, Slug string }
	Comments commentConn `graphql:"comments(first: 100)"`
}

// flatConn is a page of an issue's or pull request's comments: flat, no
// replies, no tombstones (a deleted comment is gone).
type flatConn struct {
	PageInfo pageInfo
	Nodes    []commentFields
}

// flatNode is an issue or a pull request. State is OPEN or CLOSED, and
// MERGED for a merged pull request.
type flatNode struct {
	threadFields
	State    string
	Comments flatConn `graphql:"comments(first: 100)"`
}

// flatRead reads C of an issue or of a pull request: the same fields, of
// Repository.issue or Repository.pullRequest as $pull says (flatVars).
type flatRead[C any] struct {
	Issue       *C `graphql:"issue(number: $number) @skip(if: $pull)"`
	PullRequest *C `graphql:"pullRequest(number: $number) @include(if: $pull)"`
}

func (r flatRead[C]) thread() *C { return cmp.Or(r.Issue, r.PullRequest) }

// repoFacts are what recess needs to know of the repository besides the
// discussion: the default branch a dispatch runs on, and the node ids of the
// labels it puts on discussions. They ride along with every discussion read
// (Discussion.repository): no connection, so GitHub charges nothing for them,
// and the calls that follow on the discussion take them from the read
// (resume.Repo). The label names are the literal values of
// resume.LabelWaiting and resume.LabelEscalated (a struct tag cannot name a
// constant; a test keeps them equal).
type repoFacts struct {
	ID               string
	DefaultBranchRef struct{ Name string }
	Waiting          node `graphql:"waiting: label(name: \"recess:waiting\")"`
	Escalated        node `graphql:"escalated: label(name: \"recess:escalated\")"`
}

// repo is the facts as the engine carries them.
func (f repoFacts) repo() resume.Repo {
	return resume.Repo{ID: f.ID, DefaultBranch: f.DefaultBranchRef.Name, Labels: map[string]string{
		resume.LabelWaiting:   f.Waiting.ID,
		resume.LabelEscalated: f.Escalated.ID,
	}}
}

// discussionQuery reads a discussion, its first 100 comments and the first
// 100 replies of each: GitHub costs it about one point, and most
// discussions need nothing more.
type discussionQuery = repoQuery[struct {
	Discussion *discussionNode `graphql:"discussion(number: $number)"`
}]

// storedComment is a comment as the comment store sees it: with what the
// engine's types do not carry.
type storedComment struct {
	resume.Comment
	UpdatedAt time.Time
}

// Thread returns the thread with every comment and reply, oldest first: a
// discussion, an issue or a pull request's conversation.
//
// GitHub docs: https://docs.github.com/graphql/reference/objects#discussion,
// https://docs.github.com/graphql/reference/objects#issue
func (c *Client) Thread(ctx context.Context, ref resume.ThreadRef) (*resume.Thread, error) {
	t, _, err := c.readThread(ctx, ref)
	return t, err
}

// served refuses a thread of a kind this adapter does not read: it serves
// discussions, issues and pull requests, and a number of any of them
// (resume.AnyKind).
func served(ref resume.ThreadRef) error {
	if !slices.Contains(state.Kinds, ref.Kind) && ref.Kind != resume.AnyKind {
		return fmt.Errorf("github: thread %d: recess reads no %q threads", ref.Number, ref.Kind)
	}
	return nil
}

// readThread reads a thread of any kind completely; see readDiscussion.
func (c *Client) readThread(ctx context.Context, ref resume.ThreadRef) (*resume.Thread, []storedComment, error) {
	if err := served(ref); err != nil {
		return nil, nil, err
	}
	switch ref.Kind {
	case state.KindDiscussion:
		return c.readDiscussion(ctx, ref.Number, nil)
	case resume.AnyKind:
		return c.readAny(ctx, ref.Number)
	}
	return c.readFlat(ctx, ref, nil)
}

// anyFlat is the first page of an issue or a pull request read as
// issueOrPullRequest (see anyVars). The pull request's fragment leaves out
// state, whose type differs from an issue's (GraphQL refuses two types
// under one name): merged says it; its other fields fill the issue's
// fragment too.
type anyFlat struct {
	Typename    string   `graphql:"__typename"`
	Issue       flatNode `graphql:"... on Issue"`
	PullRequest struct {
		threadFields
		Merged   bool
		Comments flatConn `graphql:"comments(first: 100)"`
	} `graphql:"... on PullRequest"`
}

// anyVars sets the variables of a branchThread that reads number n of
// unknown kind (resume.AnyKind) in one request, as the kinds the setup
// serves only: a token may not read the others (GitHub refuses the field
// then), and a number of a kind not served is not found. Issues or pull
// requests alone are asked by their own field, since issueOrPullRequest
// answers either. Numbers never collide, so GitHub answers the kinds n is
// not with null and a NOT_FOUND error naming them, which the returned ctx
// tolerates (absentOK).
func (c *Client) anyVars(ctx context.Context, vars map[string]any, n int) context.Context {
	issue, pull := c.serves(state.KindIssue), c.serves(state.KindPullRequest)
	vars["number"], vars["load"] = githubv4.Int(n), githubv4.Boolean(c.serves(state.KindDiscussion))
	vars["any"] = githubv4.Boolean(issue && pull)
	vars["issue"], vars["pull"] = githubv4.Boolean(issue && !pull), githubv4.Boolean(pull && !issue)
	return absentOK(ctx, "discussion", "issue", "pullRequest", "issueOrPullRequest")
}

// readAny reads thread n of a kind the caller does not know, as one of the
// kinds the setup serves (anyVars): one request, then further pages as
// the kind's own read does. Where discussions alone are served, it is a
// discussion's read.
func (c *Client) readAny(ctx context.Context, n int) (*resume.Thread, []storedComment, error) {
	if !c.serves(state.KindIssue) && !c.serves(state.KindPullRequest) {
		return c.readDiscussion(ctx, n, nil)
	}
	vars := c.repoVars()
	var q repoQuery[branchThread]
	if err := c.query(c.anyVars(ctx, vars, n), &q, vars); err != nil {
		return nil, nil, fmt.Errorf("github: thread %d: %w", n, err)
	}
	t, all, err := q.Repository.thread(ctx, c, n)
	if t == nil && err == nil {
		err = fmt.Errorf("github: thread %d: %w", n, resume.ErrNotFound)
	}
	return t, all, err
}

// read completes the read of issue or pull request n from its first page.
func (f *anyFlat) read(ctx context.Context, c *Client, n int) (*resume.Thread, []storedComment, error) {
	kind := state.KindIssue
	if f.Typename == "PullRequest" {
		kind = state.KindPullRequest
	}
	t, all, err := c.readFlat(ctx, resume.ThreadRef{Kind: kind, Number: n}, &f.Issue)
	if err == nil {
		t.Merged = f.PullRequest.Merged
	}
	return t, all, err
}

// flatVars are the variables of a read of issue or pull request n
// (flatRead).
func (c *Client) flatVars(kind state.Kind, n int) map[string]any {
	vars := c.repoVars()
	vars["number"], vars["pull"] = githubv4.Int(n), githubv4.Boolean(kind == state.KindPullRequest)
	return vars
}

// readFlat reads an issue or a pull request's conversation as
// readDiscussion reads a discussion: one request (unless its first page
// arrived in t), then further pages of comments only where GitHub says
// there are more.
func (c *Client) readFlat(ctx context.Context, ref resume.ThreadRef, t *flatNode) (*resume.Thread, []storedComment, error) {
	vars := c.flatVars(ref.Kind, ref.Number)
	nodes, err := pages(0, func(after *string) ([]commentFields, pageInfo, error) {
		if after == nil && t != nil {
			return t.Comments.Nodes, t.Comments.PageInfo, nil
		}
		if after == nil {
			var q repoQuery[flatRead[flatNode]]
			if err := c.query(ctx, &q, vars); err != nil {
				return nil, pageInfo{}, err
			}
			if t = q.Repository.thread(); t == nil {
				return nil, pageInfo{}, resume.ErrNotFound
			}
			return t.Comments.Nodes, t.Comments.PageInfo, nil
		}
		var pq repoQuery[flatRead[struct {
			Comments flatConn `graphql:"comments(first: 100, after: $after)"`
		}]]
		vars["after"] = githubv4.String(*after)
		if err := c.query(ctx, &pq, vars); err != nil {
			return nil, pageInfo{}, fmt.Errorf("comments after %s: %w", *after, err)
		}
		p := pq.Repository.thread()
		if p == nil {
			return nil, pageInfo{}, resume.ErrNotFound
		}
		return p.Comments.Nodes, p.Comments.PageInfo, nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("github: %s %d: %w", ref.Kind, ref.Number, err)
	}
	all := make([]storedComment, len(nodes))
	for i, n := range nodes {
		all[i] = toStored(commentNode{commentFields: n}, "")
	}
	th := t.thread(ref.Kind, all)
	th.Merged = t.State == "MERGED"
	return th, all, nil
}

// readDiscussion reads a discussion completely: the main query (unless its
// first page arrived in d, as a store's own document that embeds
// discussionNode reads it), then further pages only where GitHub says there
// are more. It returns the comments also as the comment store sees them;
// the discussion carries the repository facts the read brought (repoFacts).
func (c *Client) readDiscussion(ctx context.Context, number int, d *discussionNode) (*resume.Thread, []storedComment, error) {
	what := fmt.Sprintf("github: discussion %d", number)
	vars := c.repoVars()
	vars["number"] = githubv4.Int(number)
	tops, err := pages(0, func(after *string) ([]topComment, pageInfo, error) {
		if after == nil {
			if d == nil {
				var q discussionQuery
				if err := c.query(ctx, &q, vars); err != nil {
					return nil, pageInfo{}, err
				}
				if d = q.Repository.Discussion; d == nil {
					return nil, pageInfo{}, resume.ErrNotFound
				}
			}
			return d.Comments.Nodes, d.Comments.PageInfo, nil
		}
		var pq repoQuery[struct {
			Discussion *struct {
				Comments commentConn `graphql:"comments(first: 100, after: $after)"`
			} `graphql:"discussion(number: $number)"`
		}]
		vars["after"] = githubv4.String(*after)
		if err := c.query(ctx, &pq, vars); err != nil {
			return nil, pageInfo{}, fmt.Errorf("comments after %s: %w", *after, err)
		}
		if pq.Repository.Discussion == nil {
			return nil, pageInfo{}, resume.ErrNotFound
		}
		conn := pq.Repository.Discussion.Comments
		return conn.Nodes, conn.PageInfo, nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	var all []storedComment
	for _, top := range tops {
		all = append(all, toStored(top.C, ""))
		replies, err := c.allReplies(ctx, top.C.ID, top.Replies)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", what, err)
		}
		for _, r := range replies {
			all = append(all, toStored(r, top.C.ID))
		}
	}
	// GitHub lists replies under their comment; the engine wants one
	// timeline. Stable, so equal timestamps keep GitHub's order.
	sort.SliceStable(all, func(i, j int) bool { return all[i].CreatedAt.Before(all[j].CreatedAt) })

	disc := d.thread(state.KindDiscussion, all)
	disc.Category, disc.CategorySlug = d.Category.Name, d.Category.Slug
	return disc, all, nil
}

// allReplies returns a comment's replies, following further pages when the
// first one was not all.
func (c *Client) allReplies(ctx context.Context, commentID string, first replyConn) ([]commentNode, error) {
	return pages(0, func(after *string) ([]commentNode, pageInfo, error) {
		if after == nil {
			return first.Nodes, first.PageInfo, nil
		}
		var q struct {
			Node *struct {
				C struct {
					Replies replyConn `graphql:"replies(first: 100, after: $after)"`
				} `graphql:"... on DiscussionComment"`
			} `graphql:"node(id: $id)"`
		}
		vars := map[string]any{"id": githubv4.ID(commentID), "after": githubv4.String(*after)}
		if err := c.query(ctx, &q, vars); err != nil {
			return nil, pageInfo{}, fmt.Errorf("replies of %s: %w", commentID, err)
		}
		if q.Node == nil {
			return nil, pageInfo{}, fmt.Errorf("replies of %s: %w", commentID, resume.ErrNotFound)
		}
		return q.Node.C.Replies.Nodes, q.Node.C.Replies.PageInfo, nil
	})
}

func toStored(n commentNode, parent string) storedComment {
	parent = cmp.Or(n.ReplyTo.ID, parent)
	return storedComment{
		Comment: resume.Comment{
			ID:          n.ID,
			Root:        parent,
			Author:      n.Author.login(),
			AuthorBot:   n.Author.Typename == "Bot",
			Association: n.AuthorAssociation,
			Body:        n.Body,
			CreatedAt:   n.CreatedAt,
			URL:         n.URL,
			Mine:        n.ViewerDidAuthor,
			Minimized:   n.IsMinimized,
			Deleted:     n.DeletedAt != nil,
		},
		UpdatedAt: n.UpdatedAt,
	}
}

// Reply posts a comment in a thread answering the comment to
// (resume.Threads.Reply). In a discussion it goes under the top-level
// comment to sits in (GitHub refuses a reply to a reply), or at the top
// level when to is "". A flat thread (an issue, a pull request) holds no
// replies: the comment opens with a quote line linking the comment it
// answers (quoted). An id the read does not hold is passed to GitHub as it
// is in a discussion, and quotes nothing in a flat thread.
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#adddiscussioncomment,
// https://docs.github.com/graphql/reference/mutations#addcomment
func (c *Client) Reply(ctx context.Context, t *resume.Thread, to, body string) (*resume.Comment, error) {
	replyTo := to
	if a := t.Comment(to); a != nil {
		replyTo = a.Thread()
		if t.Kind.Flat() {
			body = quoted(*a, body)
		}
	}
	if t.Kind.Flat() {
		replyTo = ""
	}
	n, err := c.addComment(ctx, t.Kind, t.ID, replyTo, body)
	if err != nil {
		return nil, fmt.Errorf("github: %w", err)
	}
	out := toStored(n, replyTo).Comment
	return &out, nil
}

// quoteRunes bounds the answered comment's first line in a quote line.
const quoteRunes = 80

// quoted opens body with a quote line that links the comment it answers,
// as a reply shows in a flat thread: "> [@alice](url): its first line…",
// then a blank line. The quote line is clipped, or left out, so that the
// comment stays within GitHub's 65,536 characters; body never is.
func quoted(c resume.Comment, body string) string {
	who := c.Author
	if c.AuthorBot {
		who += "[bot]"
	}
	line, _ := text.FirstLine(c.Body)
	q := fmt.Sprintf("> [@%s](%s): %s", who, c.URL, text.ClipLine(strings.TrimSpace(line), quoteRunes))
	room := state.MaxCommentBody - utf8.RuneCountInString(body) - len("\n\n")
	switch n := utf8.RuneCountInString(q); {
	case n > room && room < len("> …"):
		return body
	case n > room:
		q = text.Clip(q, room-1)
	}
	return q + "\n\n" + body
}

// Edit replaces the body of one of recess's comments (a comment GitHub says
// is gone is resume.ErrNotFound).
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#updatediscussioncomment
func (c *Client) Edit(ctx context.Context, commentID, body string) error {
	if _, err := c.updateComment(ctx, commentID, body); err != nil {
		return fmt.Errorf("github: %w", err)
	}
	return nil
}

// addComment posts a comment in the thread subjectID of kind kind (in a
// discussion, under replyTo unless it is "") and returns it as GitHub
// stored it.
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#adddiscussioncomment,
// https://docs.github.com/graphql/reference/mutations#addcomment
func (c *Client) addComment(ctx context.Context, kind state.Kind, subjectID, replyTo, body string) (commentNode, error) {
	if kind.Flat() {
		var m struct {
			AddComment struct {
				CommentEdge struct{ Node commentFields }
			} `graphql:"addComment(input: $input)"`
		}
		input := githubv4.AddCommentInput{SubjectID: githubv4.ID(subjectID), Body: githubv4.String(body)}
		if err := c.mutate(ctx, &m, input); err != nil {
			return commentNode{}, fmt.Errorf("add comment to %s: %w", subjectID, err)
		}
		return commentNode{commentFields: m.AddComment.CommentEdge.Node}, nil
	}
	input := githubv4.AddDiscussionCommentInput{
		DiscussionID: githubv4.ID(subjectID),
		Body:         githubv4.String(body),
	}
	if replyTo != "" {
		id := githubv4.ID(replyTo)
		input.ReplyToID = &id
	}
	var m struct {
		AddDiscussionComment struct {
			Comment commentNode
		} `graphql:"addDiscussionComment(input: $input)"`
	}
	if err := c.mutate(ctx, &m, input); err != nil {
		return commentNode{}, fmt.Errorf("add comment to %s: %w", subjectID, err)
	}
	return m.AddDiscussionComment.Comment, nil
}

// issueComment reports whether id names an issue's or pull request's
// comment (IssueComment), not a discussion's: GitHub's node ids open with
// their type ("IC_" for IssueComment, "DC_" for DiscussionComment). The
// calls that change a comment by id alone (Edit takes no thread) tell the
// mutation to use from it without asking GitHub.
func issueComment(id string) bool { return strings.HasPrefix(id, "IC_") }

// updateComment replaces a comment's body.
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#updatediscussioncomment,
// https://docs.github.com/graphql/reference/mutations#updateissuecomment
func (c *Client) updateComment(ctx context.Context, id, body string) (commentNode, error) {
	var (
		out commentNode
		err error
	)
	if issueComment(id) {
		var m struct {
			UpdateIssueComment struct {
				IssueComment commentFields
			} `graphql:"updateIssueComment(input: $input)"`
		}
		err = c.mutate(ctx, &m, githubv4.UpdateIssueCommentInput{ID: githubv4.ID(id), Body: githubv4.String(body)})
		out.commentFields = m.UpdateIssueComment.IssueComment
	} else {
		var m struct {
			UpdateDiscussionComment struct {
				Comment commentNode
			} `graphql:"updateDiscussionComment(input: $input)"`
		}
		err = c.mutate(ctx, &m, githubv4.UpdateDiscussionCommentInput{CommentID: githubv4.ID(id), Body: githubv4.String(body)})
		out = m.UpdateDiscussionComment.Comment
	}
	if err != nil {
		return commentNode{}, fmt.Errorf("update comment %s: %w", id, err)
	}
	return out, nil
}

// deleteComment deletes a comment.
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#deletediscussioncomment,
// https://docs.github.com/graphql/reference/mutations#deleteissuecomment
func (c *Client) deleteComment(ctx context.Context, id string) error {
	if issueComment(id) {
		var m struct {
			DeleteIssueComment mutationResult `graphql:"deleteIssueComment(input: $input)"`
		}
		return c.mutate(ctx, &m, githubv4.DeleteIssueCommentInput{ID: githubv4.ID(id)})
	}
	var m struct {
		DeleteDiscussionComment struct {
			Comment struct{ ID string }
		} `graphql:"deleteDiscussionComment(input: $input)"`
	}
	return c.mutate(ctx, &m, githubv4.DeleteDiscussionCommentInput{ID: githubv4.ID(id)})
}

// nodeIDs are ids as the nodes(ids:) query takes them.
func nodeIDs(ids []string) []githubv4.ID {
	out := make([]githubv4.ID, len(ids))
	for i, id := range ids {
		out[i] = githubv4.ID(id)
	}
	return out
}

// anyComment is a comment read by id, a discussion's or an issue's or pull
// request's: C holds what both share whichever it is (their fields decode
// into both fragments), I the issue or pull request an IssueComment is in.
// A pull request's comment answers no issue in the fake GitHub, so $pull
// leaves it out there (GitHub answers the issue behind the pull request).
type anyComment struct {
	C commentNode `graphql:"... on DiscussionComment"`
	I struct {
		commentFields
		Issue       *numbered `graphql:"issue @skip(if: $pull)"`
		PullRequest *numbered
	} `graphql:"... on IssueComment"`
}

// numbered is a thread as a comment names it.
type numbered struct {
	ID     string
	Number int
}

// node is the comment as a discussion comment's read holds it, in the
// thread it names.
func (a anyComment) node() commentNode {
	n := a.C
	if t := cmp.Or(a.I.PullRequest, a.I.Issue); t != nil {
		n.Discussion = *t
	}
	return n
}

// commentsByID reads comments of threads of kind kind by id, 100 per
// request. A comment deleted since its id was learned voids the whole
// answer (GitHub answers NOT_FOUND): that request's comments are then left
// out.
//
// GitHub docs: https://docs.github.com/graphql/reference/queries#nodes
func (c *Client) commentsByID(ctx context.Context, kind state.Kind, ids []string) (map[string]commentNode, error) {
	out := map[string]commentNode{}
	for chunk := range slices.Chunk(ids, pageSize) {
		var q struct {
			Nodes []*anyComment `graphql:"nodes(ids: $ids)"`
		}
		vars := map[string]any{"ids": nodeIDs(chunk), "pull": githubv4.Boolean(kind == state.KindPullRequest)}
		if err := c.query(ctx, &q, vars); err != nil {
			if errors.Is(err, resume.ErrNotFound) {
				c.logf("github: some comments vanished since they were listed: %v", err)
				continue
			}
			return nil, fmt.Errorf("comments by id: %w", err)
		}
		for _, n := range q.Nodes {
			if n != nil && n.C.ID != "" {
				out[n.C.ID] = n.node()
			}
		}
	}
	return out, nil
}

// reacted is a subject's reaction groups, as Reacted reads them.
type reacted struct {
	ID             string
	ReactionGroups []reactionGroup
}

type reactionGroup struct {
	Content          string
	ViewerHasReacted bool
}

// Reacted is resume.ReactionReader: those of subjects (discussion comments
// or discussions) that carry the token's own reaction r. One request per
// 100 subjects; reaction groups are no connection, so each costs a point.
// A subject deleted since its id was learned voids GitHub's answer
// (NOT_FOUND): the error says so, and the next run, whose read no longer
// shows it, asks again.
//
// GitHub docs: https://docs.github.com/graphql/reference/interfaces#reactable
func (c *Client) Reacted(ctx context.Context, subjects []string, r resume.Reaction) ([]string, error) {
	var out []string
	for chunk := range slices.Chunk(subjects, pageSize) {
		var q struct {
			Nodes []*struct {
				S reacted `graphql:"... on Reactable"`
			} `graphql:"nodes(ids: $ids)"`
		}
		if err := c.query(ctx, &q, map[string]any{"ids": nodeIDs(chunk)}); err != nil {
			return nil, fmt.Errorf("github: reactions: %w", err)
		}
		for _, n := range q.Nodes {
			if n == nil {
				continue
			}
			if n.S.ID != "" && slices.Contains(n.S.ReactionGroups, reactionGroup{Content: string(r), ViewerHasReacted: true}) {
				out = append(out, n.S.ID)
			}
		}
	}
	return out, nil
}

// React adds a reaction to a discussion or comment. GitHub treats adding an
// existing reaction as success.
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#addreaction
func (c *Client) React(ctx context.Context, subjectID string, r resume.Reaction) error {
	var m struct {
		AddReaction mutationResult `graphql:"addReaction(input: $input)"`
	}
	input := githubv4.AddReactionInput{SubjectID: githubv4.ID(subjectID), Content: githubv4.ReactionContent(r)}
	if err := c.mutate(ctx, &m, input); err != nil {
		return fmt.Errorf("github: react %s on %s: %w", r, subjectID, err)
	}
	return nil
}

// Unreact removes recess's reaction from a discussion or comment.
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#removereaction
func (c *Client) Unreact(ctx context.Context, subjectID string, r resume.Reaction) error {
	var m struct {
		RemoveReaction mutationResult `graphql:"removeReaction(input: $input)"`
	}
	input := githubv4.RemoveReactionInput{SubjectID: githubv4.ID(subjectID), Content: githubv4.ReactionContent(r)}
	if err := c.mutate(ctx, &m, input); err != nil {
		return fmt.Errorf("github: remove reaction %s from %s: %w", r, subjectID, err)
	}
	return nil
}

// labelID returns the node id of a repository label, "" when the repository
// has no such label, and the repository's node id: as the read of the
// discussion reported them (r), which knows recess's own labels, else asked
// of GitHub (one request).
//
// GitHub docs: https://docs.github.com/graphql/reference/objects#repository
func (c *Client) labelID(ctx context.Context, r resume.Repo, name string) (id, repoID string, err error) {
	// Label names compare case-insensitively on GitHub; the read knows
	// recess's labels by their own (lower-case) names.
	if id, ok := r.Labels[strings.ToLower(name)]; ok {
		return id, r.ID, nil
	}
	var q repoQuery[struct {
		ID    string
		Label node `graphql:"label(name: $label)"`
	}]
	vars := c.repoVars()
	vars["label"] = githubv4.String(name)
	if err := c.query(ctx, &q, vars); err != nil {
		return "", "", fmt.Errorf("github: label %q: %w", name, err)
	}
	return q.Repository.Label.ID, q.Repository.ID, nil
}

// labelColor and labelDescription are what recess creates its labels with.
const labelColor = "c5def5"

var labelDescriptions = map[string]string{
	resume.LabelWaiting:   "recess waits for people here (kept by recess)",
	resume.LabelEscalated: "recess stopped starting agent runs here (kept by recess)",
}

// createLabel creates a label recess needs in the repository repoID. An
// error wraps resume.ErrLabelUnavailable and says what to do about it.
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#createlabel
func (c *Client) createLabel(ctx context.Context, repoID, name string) (string, error) {
	var m struct {
		CreateLabel struct{ Label node } `graphql:"createLabel(input: $input)"`
	}
	input := githubv4.CreateLabelInput{RepositoryID: githubv4.ID(repoID), Name: githubv4.String(name), Color: githubv4.String(labelColor)}
	if d, ok := labelDescriptions[name]; ok {
		desc := githubv4.String(d)
		input.Description = &desc
	}
	err := c.mutate(ctx, &m, input)
	id := m.CreateLabel.Label.ID
	if err == nil && id == "" {
		err = errors.New("GitHub answered without the label")
	}
	if err != nil {
		return "", fmt.Errorf("github: the label %q does not exist in %s/%s and recess could not create it (%w: %w): create it in the repository (Issues, Labels), or give the workflow issues: write so that recess creates it", name, c.owner, c.repo, resume.ErrLabelUnavailable, err)
	}
	c.logf("github: created the label %q in %s/%s", name, c.owner, c.repo)
	return id, nil
}

// Label adds a repository label to a discussion. A label that does not exist
// yet is created (recess's own labels: recess:waiting, recess:escalated);
// when the token may not create it, the error wraps
// resume.ErrLabelUnavailable and names the label and the fix.
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#addlabelstolabelable
func (c *Client) Label(ctx context.Context, d *resume.Thread, name string) error {
	id, repoID, err := c.labelID(ctx, d.Repo, name)
	if err == nil && id == "" {
		// Missing: recess creates its labels (or says what to do).
		id, err = c.createLabel(ctx, repoID, name)
	}
	if err != nil {
		return err
	}
	var m struct {
		AddLabelsToLabelable mutationResult `graphql:"addLabelsToLabelable(input: $input)"`
	}
	input := githubv4.AddLabelsToLabelableInput{LabelableID: githubv4.ID(d.ID), LabelIDs: []githubv4.ID{githubv4.ID(id)}}
	if err := c.mutate(ctx, &m, input); err != nil {
		return fmt.Errorf("github: label %s with %q: %w", d.ID, name, err)
	}
	return nil
}

// Unlabel removes a label from a discussion; a label that does not exist is
// a no-op.
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#removelabelsfromlabelable
func (c *Client) Unlabel(ctx context.Context, d *resume.Thread, name string) error {
	id, _, err := c.labelID(ctx, d.Repo, name)
	if err != nil || id == "" {
		return err
	}
	var m struct {
		RemoveLabelsFromLabelable mutationResult `graphql:"removeLabelsFromLabelable(input: $input)"`
	}
	input := githubv4.RemoveLabelsFromLabelableInput{LabelableID: githubv4.ID(d.ID), LabelIDs: []githubv4.ID{githubv4.ID(id)}}
	if err := c.mutate(ctx, &m, input); err != nil {
		return fmt.Errorf("github: unlabel %s from %q: %w", d.ID, name, err)
	}
	return nil
}

// activityThreads is how many of the newest threads (top-level comments)
// the probe looks into for their newest reply, besides the threads recess
// asked its questions in, which it reads whatever their place; in an issue
// or a pull request, how many of the newest comments it looks at (a reply
// there is a newer comment). Each thread costs GitHub about a hundredth of
// a point: with the question's own thread read directly, four of them keep
// the probe at what five cost before (about six points per 100 discussions
// with a question each).
const activityThreads = 4

// activityNode is what Activity reads of each discussion: its state, and the
// newest top-level comments with each one's newest reply.
type activityNode struct {
	CreatedAt time.Time
	Closed    bool
	Locked    bool
	Comments  struct {
		Nodes []struct {
			CreatedAt       time.Time
			ViewerDidAuthor bool
			Replies         struct {
				Nodes []activityReply
			} `graphql:"replies(last: 1)"`
		}
	} `graphql:"comments(last: 4)"`
}

// activityFlatNode is what Activity reads of each issue or pull request:
// its state and its newest comments.
type activityFlatNode struct {
	CreatedAt time.Time
	Closed    bool
	Locked    bool
	Comments  struct {
		Nodes []activityReply
	} `graphql:"comments(last: 4)"`
}

// activityThreadNode is what Activity reads of a thread recess asked in
// (node(id:) of its top-level comment): its newest reply.
type activityThreadNode struct {
	Comment struct {
		Replies struct {
			Nodes []activityReply
		} `graphql:"replies(last: 1)"`
	} `graphql:"... on DiscussionComment"`
}

type activityReply struct {
	CreatedAt       time.Time
	ViewerDidAuthor bool
}

var (
	activityNodeType   = reflect.TypeFor[*activityNode]()
	activityFlatType   = reflect.TypeFor[*activityFlatNode]()
	activityThreadType = reflect.TypeFor[*activityThreadNode]()
)

// seen are the creation times Activity vouches for in d: d's own, and its
// newest comments' and replies' by someone else than recess; nil for a
// discussion to visit (gone, closed or locked).
func (d *activityNode) seen() []time.Time {
	if d == nil || d.Closed || d.Locked {
		return nil
	}
	seen := []time.Time{d.CreatedAt}
	for _, cm := range d.Comments.Nodes {
		if !cm.ViewerDidAuthor {
			seen = append(seen, cm.CreatedAt)
		}
		seen = appendReplies(seen, cm.Replies.Nodes)
	}
	return seen
}

// seen is activityNode.seen for an issue or a pull request (closed:
// merged too).
func (d *activityFlatNode) seen() []time.Time {
	if d == nil || d.Closed || d.Locked {
		return nil
	}
	return appendReplies([]time.Time{d.CreatedAt}, d.Comments.Nodes)
}

// activityField is the field of Activity's request that reads the thread
// s names, under its alias ("d12: discussion(number: 12)", "i13: issue…",
// "p14: pullRequest…"), and the type it decodes into.
func activityField(s state.Summary) (alias, field string, typ reflect.Type) {
	n := strconv.Itoa(s.Discussion)
	switch s.Kind {
	case state.KindIssue:
		return "i" + n, "issue", activityFlatType
	case state.KindPullRequest:
		return "p" + n, "pullRequest", activityFlatType
	}
	return "d" + n, "discussion", activityNodeType
}

// Activity tells, for up to 100 waiting threads per request, when each
// last saw a comment by someone else than recess. In a discussion: the
// creation time of the newest of its last activityThreads top-level
// comments, of each one's newest reply, and of the newest reply in each
// thread where its open recesses asked their questions
// (state.Summary.ThreadRoots), wherever that thread stands. In an issue or
// a pull request, which hold no replies (a reply is a newer comment): the
// newest of its last activityThreads comments. Else the thread's own
// creation. Every kind rides in the same request, each thread under its own
// alias, and each question thread too ("t12_0: node(id: $t12_0)"): GitHub
// charges about six points per 100 discussions with a question thread
// each, about one per 100 issues. It implements resume.ActivityProber, so
// that a sweep finds lost events without reading each waiting thread.
// recess's own comments are not activity: they have no event to lose, and
// some (a note posted after the record was written) are newer than what the
// record checked, which would send every sweep back to them.
//
// What it cannot see: in a discussion, a reply under a thread older than
// the last activityThreads top-level comments that is not one recess asked
// in, and a comment just before recess's own newest one in its thread; in
// an issue or a pull request, a comment followed by activityThreads of
// recess's own (GitHub offers no per-thread "last comment by others" field,
// and updatedAt also moves with label and status-comment edits, which would
// make every probe visit every thread); these are caught by the thread's
// next event or due moment. Edits and deletions are not activity. Closed,
// merged, locked and deleted threads are left out of the answer, so that
// the sweep visits them and expires their recesses; a question thread
// whose comment is gone is left out of the look.
//
// GitHub docs: https://docs.github.com/graphql/reference/objects#discussion,
// https://docs.github.com/graphql/reference/objects#issue
func (c *Client) Activity(ctx context.Context, waiting []state.Summary) (map[int]time.Time, error) {
	out := make(map[int]time.Time, len(waiting))
	waiting = slices.CompactFunc(slices.SortedStableFunc(slices.Values(waiting), func(a, b state.Summary) int {
		return cmp.Compare(a.Discussion, b.Discussion)
	}), func(a, b state.Summary) bool { return a.Discussion == b.Discussion })
	for chunk := range slices.Chunk(waiting, pageSize) {
		if err := c.activityPage(ctx, chunk, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// activityPage asks for one page of threads, each under its own alias
// (activityField), and their question threads ("t12_0"). A deleted thread
// or question comment voids GitHub's whole answer with a NOT_FOUND naming
// its alias: the page is asked again without it (a thread left out: the
// sweep visits it and expires its recesses).
func (c *Client) activityPage(ctx context.Context, page []state.Summary, out map[int]time.Time) error {
	page = slices.Clone(page)
	for len(page) > 0 {
		// thread is one thread's alias: of page[i], its root k.
		type thread struct{ i, k int }
		fields := make([]reflect.StructField, len(page))
		repo := reflect.TypeFor[repoQuery[struct{}]]().Field(0)
		top := []reflect.StructField{repo}
		vars := c.repoVars()
		aliases := map[string]thread{}
		var threads []thread
		for i, s := range page {
			n := s.Discussion
			alias, field, typ := activityField(s)
			fields[i] = reflect.StructField{
				Name: "D" + strconv.Itoa(i),
				Type: typ,
				Tag:  reflect.StructTag(fmt.Sprintf(`graphql:"%s: %s(number: %d)"`, alias, field, n)),
			}
			aliases[alias] = thread{i, -1}
			if s.Kind.Flat() {
				continue // no replies: its newest comments are the look
			}
			for k, id := range s.ThreadRoots {
				alias := fmt.Sprintf("t%d_%d", n, k)
				top = append(top, reflect.StructField{
					Name: fmt.Sprintf("T%d_%d", i, k),
					Type: activityThreadType,
					Tag:  reflect.StructTag(fmt.Sprintf(`graphql:"%s: node(id: $%s)"`, alias, alias)),
				})
				vars[alias] = githubv4.ID(id)
				aliases[alias] = thread{i, k}
				threads = append(threads, thread{i, k})
			}
		}
		top[0].Type = reflect.StructOf(fields)
		query := reflect.New(reflect.StructOf(top))
		if err := c.query(ctx, query.Interface(), vars); err != nil {
			gone, ok := notFoundAt(err)
			for _, alias := range gone {
				_, known := aliases[alias]
				ok = ok && known
			}
			if !ok {
				return fmt.Errorf("github: activity of %d thread(s): %w", len(page), err)
			}
			goneRoots := map[int][]string{}
			for _, alias := range gone {
				if t := aliases[alias]; t.k >= 0 {
					goneRoots[t.i] = append(goneRoots[t.i], page[t.i].ThreadRoots[t.k])
				}
			}
			for i, ids := range goneRoots {
				page[i].ThreadRoots = slices.DeleteFunc(slices.Clone(page[i].ThreadRoots), func(id string) bool { return slices.Contains(ids, id) })
			}
			page = slices.DeleteFunc(page, func(s state.Summary) bool {
				alias, _, _ := activityField(s)
				return slices.Contains(gone, alias)
			})
			continue
		}
		answer := query.Elem()
		seen := make([][]time.Time, len(page))
		for i := range page {
			seen[i] = answer.Field(0).Field(i).Interface().(interface{ seen() []time.Time }).seen()
		}
		for j, t := range threads {
			if th, _ := answer.Field(1 + j).Interface().(*activityThreadNode); th != nil && seen[t.i] != nil {
				seen[t.i] = appendReplies(seen[t.i], th.Comment.Replies.Nodes)
			}
		}
		for i, s := range page {
			if seen[i] != nil {
				out[s.Discussion] = slices.MaxFunc(seen[i], time.Time.Compare)
			}
		}
		return nil
	}
	return nil
}

// appendReplies adds the creation times of comments or replies someone
// else than recess wrote.
func appendReplies(seen []time.Time, replies []activityReply) []time.Time {
	for _, r := range replies {
		if !r.ViewerDidAuthor {
			seen = append(seen, r.CreatedAt)
		}
	}
	return seen
}
