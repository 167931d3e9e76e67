package githubfake

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Typed wrappers: the executor needs each value's concrete GraphQL type.

func objDiscussion(d *discussion) object { return object{typ: d.typeName(), v: d} }
func objComment(c *comment) object       { return object{typ: c.disc.commentType(), v: c} }
func objRepo(r *repo) object             { return object{typ: "Repository", v: r} }
func objLabel(l *label) object           { return object{typ: "Label", v: l} }

func objActor(a *identity) any {
	if a == nil {
		return nil
	}
	return object{typ: a.typeName(), v: a}
}

type gitRef struct {
	repo *repo
	name string // fully qualified
}

type gitCommitObj struct {
	repo *repo
	c    *gitCommit
}

type gitBlobObj struct {
	repo *repo
	oid  string
}

// treeEntryObj is a file of a commit's tree (Commit.file).
type treeEntryObj struct {
	repo *repo
	path string
	oid  string
}

type reactionGroup struct {
	subject any // *discussion or *comment
	content string
	rs      []*reaction
}

type reactionObj struct {
	subject any
	r       *reaction
}

// nodeObject wraps anything node(id:) can return.
func (g *GitHub) nodeObject(v any) (object, bool) {
	switch t := v.(type) {
	case *discussion:
		if !t.deleted {
			return objDiscussion(t), true
		}
	case *comment:
		if !t.disc.deleted {
			return objComment(t), true
		}
	case *repo:
		return objRepo(t), true
	case *label:
		return objLabel(t), true
	case *identity:
		return object{typ: t.typeName(), v: t}, true
	case *category:
		return object{typ: "DiscussionCategory", v: t}, true
	}
	return object{}, false
}

func reactableOf(v any) (*[]*reaction, object, bool) {
	switch t := v.(type) {
	case *discussion:
		return &t.reactions, objDiscussion(t), true
	case *comment:
		return &t.reactions, objComment(t), true
	}
	return nil, object{}, false
}

func (x *executor) repoOf(v any) *repo {
	switch t := v.(type) {
	case *discussion:
		return t.repo
	case *comment:
		return t.disc.repo
	}
	return nil
}

func init() {
	register("Query", map[string]resolver{
		"viewer": func(x *executor, _ any, _ map[string]any) (any, error) {
			// GitHub answers viewer with a User even for an app or
			// GITHUB_TOKEN, whose login then carries the [bot] suffix,
			// unlike the Bot that authors its comments.
			v := *x.viewer
			if v.kind == KindBot {
				v.login, v.kind = x.viewer.restLogin(), KindUser
			}
			return object{typ: "User", v: &v}, nil
		},
		"repository": func(x *executor, _ any, args map[string]any) (any, error) {
			owner, _ := argString(args, "owner")
			name, _ := argString(args, "name")
			r, err := x.g.repo(owner + "/" + name)
			if err != nil {
				return nil, errorf("NOT_FOUND", "Could not resolve to a Repository with the name '%s/%s'.", owner, name)
			}
			return objRepo(r), nil
		},
		"node": func(x *executor, _ any, args map[string]any) (any, error) {
			id, _ := argString(args, "id")
			o, ok := x.g.nodeObject(x.g.nodes[id])
			if !ok {
				return nil, errorf("NOT_FOUND", "Could not resolve to a node with the global id of '%s'", id)
			}
			return o, nil
		},
		"nodes": func(x *executor, _ any, args map[string]any) (any, error) {
			ids := argStrings(args, "ids")
			if len(ids) > maxPageSize {
				return nil, errorf("EXCESSIVE_PAGINATION", "You may not request more than %d nodes at once.", maxPageSize)
			}
			out := make([]any, len(ids))
			var missing []string
			for i, id := range ids {
				if o, ok := x.g.nodeObject(x.g.nodes[id]); ok {
					out[i] = o
				} else {
					missing = append(missing, id)
				}
			}
			for _, id := range missing {
				x.errors = append(x.errors, gqlError{Type: "NOT_FOUND", Path: []any{"nodes"},
					Message: fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id)})
			}
			return out, nil
		},
		"rateLimit": func(x *executor, _ any, _ map[string]any) (any, error) {
			return object{typ: "RateLimit", v: x}, nil
		},
		"search": func(x *executor, _ any, args map[string]any) (any, error) {
			return x.search(args)
		},
	})

	register("RateLimit", map[string]resolver{
		"cost":      func(x *executor, _ any, _ map[string]any) (any, error) { return x.cost, nil },
		"limit":     func(x *executor, _ any, _ map[string]any) (any, error) { return x.g.graphqlBudget, nil },
		"nodeCount": func(x *executor, _ any, _ map[string]any) (any, error) { return x.nodes, nil },
		"used":      func(x *executor, _ any, _ map[string]any) (any, error) { return x.g.budget(x.token).graphqlUsed, nil },
		"remaining": func(x *executor, _ any, _ map[string]any) (any, error) {
			return max(0, x.g.graphqlBudget-x.g.budget(x.token).graphqlUsed), nil
		},
		"resetAt": func(x *executor, _ any, _ map[string]any) (any, error) { return x.g.budget(x.token).reset(), nil },
	})

	actor := map[string]resolver{
		"login": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*identity).login, nil },
		"id":    func(x *executor, src any, _ map[string]any) (any, error) { return src.(*identity).nodeID, nil },
		"databaseId": func(x *executor, src any, _ map[string]any) (any, error) {
			return src.(*identity).dbID, nil
		},
		"url": func(x *executor, src any, _ map[string]any) (any, error) {
			a := src.(*identity)
			if a.kind == KindBot {
				return x.g.serverURL + "/apps/" + a.login, nil
			}
			return x.g.serverURL + "/" + a.login, nil
		},
		"resourcePath": func(x *executor, src any, _ map[string]any) (any, error) { return "/" + src.(*identity).login, nil },
		"avatarUrl": func(x *executor, src any, _ map[string]any) (any, error) {
			return fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", src.(*identity).dbID), nil
		},
	}
	register("User", actor)
	register("Bot", actor)

	register("Repository", map[string]resolver{
		"id":            func(x *executor, src any, _ map[string]any) (any, error) { return src.(*repo).nodeID, nil },
		"databaseId":    func(x *executor, src any, _ map[string]any) (any, error) { return src.(*repo).dbID, nil },
		"name":          func(x *executor, src any, _ map[string]any) (any, error) { return src.(*repo).name, nil },
		"nameWithOwner": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*repo).fullName(), nil },
		"url": func(x *executor, src any, _ map[string]any) (any, error) {
			return x.g.serverURL + "/" + src.(*repo).fullName(), nil
		},
		"createdAt": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*repo).createdAt, nil },
		"isPrivate": func(x *executor, src any, _ map[string]any) (any, error) { return false, nil },
		"owner": func(x *executor, src any, _ map[string]any) (any, error) {
			return object{typ: "User", v: src.(*repo).ownerAcct}, nil
		},
		"viewerPermission": func(x *executor, src any, _ map[string]any) (any, error) {
			r := src.(*repo)
			switch {
			case r.association(x.viewer) == "OWNER":
				return "ADMIN", nil
			case r.canWrite(x.viewer):
				return "WRITE", nil
			}
			return "READ", nil
		},
		"hasDiscussionsEnabled": func(x *executor, src any, _ map[string]any) (any, error) { return true, nil },
		"defaultBranchRef": func(x *executor, src any, _ map[string]any) (any, error) {
			r := src.(*repo)
			return object{typ: "Ref", v: &gitRef{repo: r, name: qualify(r.defaultBranch)}}, nil
		},
		"ref": func(x *executor, src any, args map[string]any) (any, error) {
			r := src.(*repo)
			name, _ := argString(args, "qualifiedName")
			full := qualify(name)
			if _, ok := r.git.refs[full]; !ok {
				return nil, nil
			}
			return object{typ: "Ref", v: &gitRef{repo: r, name: full}}, nil
		},
		"object": func(x *executor, src any, args map[string]any) (any, error) {
			return x.gitObject(src.(*repo), args)
		},
		"discussion": func(x *executor, src any, args map[string]any) (any, error) {
			r := src.(*repo)
			n, _ := argInt(args, "number")
			d := r.discussion(n)
			if d == nil {
				return nil, errorf("NOT_FOUND", "Could not resolve to a Discussion with the number of %d.", n)
			}
			return objDiscussion(d), nil
		},
		"discussions": func(x *executor, src any, args map[string]any) (any, error) {
			return x.discussions(src.(*repo), args)
		},
		"hasIssuesEnabled":   func(x *executor, src any, _ map[string]any) (any, error) { return true, nil },
		"issue":              issueByNumber("an Issue", kindIssue),
		"pullRequest":        issueByNumber("a PullRequest", kindPullRequest),
		"issueOrPullRequest": issueByNumber("an issue or pull request", kindIssue, kindPullRequest),
		"label": func(x *executor, src any, args map[string]any) (any, error) {
			name, _ := argString(args, "name")
			if l := src.(*repo).label(name); l != nil {
				return objLabel(l), nil
			}
			return nil, nil
		},
		"labels": func(x *executor, src any, args map[string]any) (any, error) {
			q, _ := argString(args, "query")
			var items []any
			var keys []string
			for _, l := range src.(*repo).labels {
				if q == "" || strings.Contains(strings.ToLower(l.name), strings.ToLower(q)) {
					items = append(items, objLabel(l))
					keys = append(keys, strconv.FormatInt(l.dbID, 10))
				}
			}
			return paginate("LabelConnection", items, keys, args)
		},
	})

	register("DiscussionCategory", map[string]resolver{
		"id":           func(x *executor, src any, _ map[string]any) (any, error) { return src.(*category).nodeID, nil },
		"name":         func(x *executor, src any, _ map[string]any) (any, error) { return src.(*category).name, nil },
		"slug":         func(x *executor, src any, _ map[string]any) (any, error) { return src.(*category).slug, nil },
		"emoji":        func(x *executor, src any, _ map[string]any) (any, error) { return src.(*category).emoji, nil },
		"description":  func(x *executor, src any, _ map[string]any) (any, error) { return src.(*category).desc, nil },
		"isAnswerable": func(x *executor, src any, _ map[string]any) (any, error) { return false, nil },
		"createdAt":    func(x *executor, src any, _ map[string]any) (any, error) { return src.(*category).at, nil },
		"updatedAt":    func(x *executor, src any, _ map[string]any) (any, error) { return src.(*category).at, nil },
	})

	register("Label", map[string]resolver{
		"id":    func(x *executor, src any, _ map[string]any) (any, error) { return src.(*label).nodeID, nil },
		"name":  func(x *executor, src any, _ map[string]any) (any, error) { return src.(*label).name, nil },
		"color": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*label).color, nil },
		"description": func(x *executor, src any, _ map[string]any) (any, error) {
			return nilIfEmpty(src.(*label).description), nil
		},
		"isDefault": func(x *executor, src any, _ map[string]any) (any, error) { return false, nil },
		"createdAt": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*label).createdAt, nil },
		"updatedAt": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*label).createdAt, nil },
		"url": func(x *executor, src any, _ map[string]any) (any, error) {
			l := src.(*label)
			return x.g.serverURL + "/" + l.repo.fullName() + "/labels/" + l.name, nil
		},
		"repository": func(x *executor, src any, _ map[string]any) (any, error) { return objRepo(src.(*label).repo), nil },
	})

	// What discussions, issues and pull requests share.
	thread := map[string]resolver{
		"id":           func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).nodeID, nil },
		"databaseId":   func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).dbID, nil },
		"number":       func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).number, nil },
		"title":        func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).title, nil },
		"body":         func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).body, nil },
		"bodyText":     func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).body, nil },
		"url":          func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).url(x.g), nil },
		"createdAt":    func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).createdAt, nil },
		"publishedAt":  func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).createdAt, nil },
		"updatedAt":    func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).updatedAt, nil },
		"closed":       func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).closed, nil },
		"closedAt":     func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).closedAt, nil },
		"locked":       func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).locked, nil },
		"lastEditedAt": func(x *executor, src any, _ map[string]any) (any, error) { return nil, nil },
		"resourcePath": func(x *executor, src any, _ map[string]any) (any, error) {
			return strings.TrimPrefix(src.(*discussion).url(x.g), x.g.serverURL), nil
		},
		"activeLockReason": func(x *executor, src any, _ map[string]any) (any, error) { return nil, nil },
		"author": func(x *executor, src any, _ map[string]any) (any, error) {
			return objActor(src.(*discussion).author), nil
		},
		"authorAssociation": func(x *executor, src any, _ map[string]any) (any, error) {
			d := src.(*discussion)
			return d.repo.association(d.author), nil
		},
		"viewerDidAuthor": func(x *executor, src any, _ map[string]any) (any, error) {
			return src.(*discussion).author == x.viewer, nil
		},
		"viewerCanUpdate": func(x *executor, src any, _ map[string]any) (any, error) {
			d := src.(*discussion)
			return d.author == x.viewer || d.repo.canWrite(x.viewer), nil
		},
		"viewerCanDelete": func(x *executor, src any, _ map[string]any) (any, error) {
			return src.(*discussion).repo.canWrite(x.viewer), nil
		},
		"viewerCanLabel": func(x *executor, src any, _ map[string]any) (any, error) {
			return src.(*discussion).repo.canWrite(x.viewer), nil
		},
		"repository": func(x *executor, src any, _ map[string]any) (any, error) { return objRepo(src.(*discussion).repo), nil },
		"labels": func(x *executor, src any, args map[string]any) (any, error) {
			d := src.(*discussion)
			items := make([]any, 0, len(d.labels))
			keys := make([]string, 0, len(d.labels))
			for _, l := range d.labels {
				items = append(items, objLabel(l))
				keys = append(keys, strconv.FormatInt(l.dbID, 10))
			}
			return paginate("LabelConnection", items, keys, args)
		},
		"comments": func(x *executor, src any, args map[string]any) (any, error) {
			d := src.(*discussion)
			return commentConnection(d.commentType()+"Connection", d.comments, args)
		},
	}
	for _, t := range []string{"Discussion", "Issue", "PullRequest"} {
		register(t, reactableFields())
		register(t, thread)
	}
	stateReason := func(x *executor, src any, args map[string]any) (any, error) {
		r := src.(*discussion).reason
		// Issue.stateReason answers DUPLICATE only when asked to.
		if dup, _ := argBool(args, "enableDuplicate"); r == "DUPLICATE" && src.(*discussion).kind == kindIssue && !dup {
			r = "NOT_PLANNED"
		}
		return nilIfEmpty(r), nil
	}
	register("Discussion", map[string]resolver{
		"isAnswered":  func(x *executor, src any, _ map[string]any) (any, error) { return false, nil },
		"answer":      func(x *executor, src any, _ map[string]any) (any, error) { return nil, nil },
		"upvoteCount": func(x *executor, src any, _ map[string]any) (any, error) { return 0, nil },
		"stateReason": stateReason,
		"category": func(x *executor, src any, _ map[string]any) (any, error) {
			return object{typ: "DiscussionCategory", v: src.(*discussion).category}, nil
		},
	})
	state := func(x *executor, src any, _ map[string]any) (any, error) {
		d := src.(*discussion)
		switch {
		case d.merged:
			return "MERGED", nil
		case d.closed:
			return "CLOSED", nil
		}
		return "OPEN", nil
	}
	register("Issue", map[string]resolver{"stateReason": stateReason, "state": state})
	register("PullRequest", map[string]resolver{
		"state":    state,
		"merged":   func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).merged, nil },
		"mergedAt": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*discussion).mergedAt, nil },
	})

	// What discussion comments and issue comments share.
	commentFields := map[string]resolver{
		"id":          func(x *executor, src any, _ map[string]any) (any, error) { return src.(*comment).nodeID, nil },
		"databaseId":  func(x *executor, src any, _ map[string]any) (any, error) { return src.(*comment).dbID, nil },
		"body":        func(x *executor, src any, _ map[string]any) (any, error) { return src.(*comment).body, nil },
		"bodyText":    func(x *executor, src any, _ map[string]any) (any, error) { return src.(*comment).body, nil },
		"url":         func(x *executor, src any, _ map[string]any) (any, error) { return src.(*comment).url(x.g), nil },
		"createdAt":   func(x *executor, src any, _ map[string]any) (any, error) { return src.(*comment).createdAt, nil },
		"publishedAt": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*comment).createdAt, nil },
		"updatedAt":   func(x *executor, src any, _ map[string]any) (any, error) { return src.(*comment).updatedAt, nil },
		"isMinimized": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*comment).minimized, nil },
		"author":      func(x *executor, src any, _ map[string]any) (any, error) { return objActor(src.(*comment).author), nil },
		"lastEditedAt": func(x *executor, src any, _ map[string]any) (any, error) {
			return lastEdited(src.(*comment)), nil
		},
		"minimizedReason": func(x *executor, src any, _ map[string]any) (any, error) {
			return nilIfEmpty(src.(*comment).minReason), nil
		},
		"resourcePath": func(x *executor, src any, _ map[string]any) (any, error) {
			return strings.TrimPrefix(src.(*comment).url(x.g), x.g.serverURL), nil
		},
		"authorAssociation": func(x *executor, src any, _ map[string]any) (any, error) {
			c := src.(*comment)
			return c.disc.repo.association(c.author), nil
		},
		"viewerDidAuthor": func(x *executor, src any, _ map[string]any) (any, error) {
			return src.(*comment).author == x.viewer, nil
		},
		"viewerCanUpdate": func(x *executor, src any, _ map[string]any) (any, error) {
			c := src.(*comment)
			return c.author == x.viewer || c.disc.repo.canWrite(x.viewer), nil
		},
		"viewerCanDelete": func(x *executor, src any, _ map[string]any) (any, error) {
			c := src.(*comment)
			return c.author == x.viewer || c.disc.repo.canWrite(x.viewer), nil
		},
		"viewerCanMinimize": func(x *executor, src any, _ map[string]any) (any, error) {
			return src.(*comment).disc.repo.canWrite(x.viewer), nil
		},
	}
	for _, t := range []string{"DiscussionComment", "IssueComment"} {
		register(t, reactableFields())
		register(t, commentFields)
	}
	register("DiscussionComment", map[string]resolver{
		"deletedAt":   func(x *executor, src any, _ map[string]any) (any, error) { return src.(*comment).deletedAt, nil },
		"isAnswer":    func(x *executor, src any, _ map[string]any) (any, error) { return false, nil },
		"upvoteCount": func(x *executor, src any, _ map[string]any) (any, error) { return 0, nil },
		"discussion": func(x *executor, src any, _ map[string]any) (any, error) {
			return objDiscussion(src.(*comment).disc), nil
		},
		"replyTo": func(x *executor, src any, _ map[string]any) (any, error) {
			if p := src.(*comment).parent; p != nil {
				return objComment(p), nil
			}
			return nil, nil
		},
		"replies": func(x *executor, src any, args map[string]any) (any, error) {
			return commentConnection("DiscussionCommentConnection", src.(*comment).replies, args)
		},
	})
	register("IssueComment", map[string]resolver{
		"repository": func(x *executor, src any, _ map[string]any) (any, error) {
			return objRepo(src.(*comment).disc.repo), nil
		},
		"issue": func(x *executor, src any, _ map[string]any) (any, error) {
			if d := src.(*comment).disc; d.kind == kindIssue {
				return objDiscussion(d), nil
			}
			// GitHub answers the issue behind a pull request, a node the
			// fake does not model.
			return nil, errNotImplemented("IssueComment", "issue (of a pull request's comment)")
		},
		"pullRequest": func(x *executor, src any, _ map[string]any) (any, error) {
			if d := src.(*comment).disc; d.kind == kindPullRequest {
				return objDiscussion(d), nil
			}
			return nil, nil
		},
	})

	register("ReactionGroup", map[string]resolver{
		"content": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*reactionGroup).content, nil },
		"createdAt": func(x *executor, src any, _ map[string]any) (any, error) {
			rg := src.(*reactionGroup)
			if len(rg.rs) == 0 {
				return nil, nil
			}
			return rg.rs[0].at, nil
		},
		"viewerHasReacted": func(x *executor, src any, _ map[string]any) (any, error) {
			for _, r := range src.(*reactionGroup).rs {
				if r.user == x.viewer {
					return true, nil
				}
			}
			return false, nil
		},
		"subject": func(x *executor, src any, _ map[string]any) (any, error) {
			_, o, _ := reactableOf(src.(*reactionGroup).subject)
			return o, nil
		},
		"users":    reactors("ReactingUserConnection"),
		"reactors": reactors("ReactorConnection"),
	})

	register("Reaction", map[string]resolver{
		"content":    func(x *executor, src any, _ map[string]any) (any, error) { return src.(*reactionObj).r.content, nil },
		"createdAt":  func(x *executor, src any, _ map[string]any) (any, error) { return src.(*reactionObj).r.at, nil },
		"databaseId": func(x *executor, src any, _ map[string]any) (any, error) { return nil, nil },
		"id": func(x *executor, src any, _ map[string]any) (any, error) {
			r := src.(*reactionObj)
			return nodeID("REA", uint32(r.r.user.dbID), uint32(slices.Index(reactionContents, r.r.content))), nil
		},
		"user": func(x *executor, src any, _ map[string]any) (any, error) {
			// Reaction.user is a User; a bot's reaction has none.
			if u := src.(*reactionObj).r.user; u.kind == KindUser {
				return object{typ: "User", v: u}, nil
			}
			return nil, nil
		},
		"reactable": func(x *executor, src any, _ map[string]any) (any, error) {
			_, o, _ := reactableOf(src.(*reactionObj).subject)
			return o, nil
		},
	})

	register("Ref", map[string]resolver{
		"id": func(x *executor, src any, _ map[string]any) (any, error) {
			r := src.(*gitRef)
			return "REF_" + strings.TrimPrefix(nodeID("", uint32(r.repo.dbID)), "_") + b64(r.name), nil
		},
		"name": func(x *executor, src any, _ map[string]any) (any, error) {
			n := src.(*gitRef).name
			return strings.TrimPrefix(strings.TrimPrefix(n, "refs/heads/"), "refs/tags/"), nil
		},
		"prefix": func(x *executor, src any, _ map[string]any) (any, error) {
			n := src.(*gitRef).name
			if strings.HasPrefix(n, "refs/tags/") {
				return "refs/tags/", nil
			}
			return "refs/heads/", nil
		},
		"repository": func(x *executor, src any, _ map[string]any) (any, error) { return objRepo(src.(*gitRef).repo), nil },
		"target": func(x *executor, src any, _ map[string]any) (any, error) {
			r := src.(*gitRef)
			oid, ok := r.repo.git.refs[r.name]
			if !ok {
				return nil, nil
			}
			return object{typ: "Commit", v: &gitCommitObj{repo: r.repo, c: r.repo.git.commits[oid]}}, nil
		},
	})

	register("Commit", map[string]resolver{
		"oid":            func(x *executor, src any, _ map[string]any) (any, error) { return src.(*gitCommitObj).c.oid, nil },
		"abbreviatedOid": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*gitCommitObj).c.oid[:7], nil },
		"id": func(x *executor, src any, _ map[string]any) (any, error) {
			c := src.(*gitCommitObj)
			return "C_" + strings.TrimPrefix(nodeID("", uint32(c.repo.dbID)), "_") + c.c.oid, nil
		},
		"message": func(x *executor, src any, _ map[string]any) (any, error) {
			c := src.(*gitCommitObj).c
			if c.body == "" {
				return c.headline, nil
			}
			return c.headline + "\n\n" + c.body, nil
		},
		"messageHeadline": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*gitCommitObj).c.headline, nil },
		"messageBody":     func(x *executor, src any, _ map[string]any) (any, error) { return src.(*gitCommitObj).c.body, nil },
		"committedDate":   func(x *executor, src any, _ map[string]any) (any, error) { return src.(*gitCommitObj).c.committed, nil },
		"authoredDate":    func(x *executor, src any, _ map[string]any) (any, error) { return src.(*gitCommitObj).c.committed, nil },
		"url": func(x *executor, src any, _ map[string]any) (any, error) {
			c := src.(*gitCommitObj)
			return x.g.serverURL + "/" + c.repo.fullName() + "/commit/" + c.c.oid, nil
		},
		"repository": func(x *executor, src any, _ map[string]any) (any, error) {
			return objRepo(src.(*gitCommitObj).repo), nil
		},
		// file reads a path in this very commit: with the commit's oid in the
		// same selection, a reader gets a head and a file that belong together.
		"file": func(x *executor, src any, args map[string]any) (any, error) {
			c := src.(*gitCommitObj)
			path, _ := argString(args, "path")
			blob, ok := c.repo.git.file(c.c.oid, path)
			if !ok {
				return nil, nil
			}
			return object{typ: "TreeEntry", v: &treeEntryObj{repo: c.repo, path: path, oid: blob}}, nil
		},
	})

	register("TreeEntry", map[string]resolver{
		"oid":  func(x *executor, src any, _ map[string]any) (any, error) { return src.(*treeEntryObj).oid, nil },
		"path": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*treeEntryObj).path, nil },
		"name": func(x *executor, src any, _ map[string]any) (any, error) {
			p := src.(*treeEntryObj).path
			return p[strings.LastIndex(p, "/")+1:], nil
		},
		"type": func(x *executor, src any, _ map[string]any) (any, error) { return "blob", nil },
		"mode": func(x *executor, src any, _ map[string]any) (any, error) { return 0o100644, nil },
		"size": func(x *executor, src any, _ map[string]any) (any, error) {
			e := src.(*treeEntryObj)
			return len(e.repo.git.blobs[e.oid]), nil
		},
		"object": func(x *executor, src any, _ map[string]any) (any, error) {
			e := src.(*treeEntryObj)
			return object{typ: "Blob", v: &gitBlobObj{repo: e.repo, oid: e.oid}}, nil
		},
	})

	register("Blob", map[string]resolver{
		"oid":            func(x *executor, src any, _ map[string]any) (any, error) { return src.(*gitBlobObj).oid, nil },
		"abbreviatedOid": func(x *executor, src any, _ map[string]any) (any, error) { return src.(*gitBlobObj).oid[:7], nil },
		"id": func(x *executor, src any, _ map[string]any) (any, error) {
			b := src.(*gitBlobObj)
			return "B_" + strings.TrimPrefix(nodeID("", uint32(b.repo.dbID)), "_") + b.oid, nil
		},
		"byteSize": func(x *executor, src any, _ map[string]any) (any, error) {
			b := src.(*gitBlobObj)
			return len(b.repo.git.blobs[b.oid]), nil
		},
		"isBinary": func(x *executor, src any, _ map[string]any) (any, error) {
			b := src.(*gitBlobObj)
			return !utf8.Valid(b.repo.git.blobs[b.oid]), nil
		},
		// GitHub truncates Blob.text of large files; the threshold the fake
		// uses is blobTextLimit.
		"isTruncated": func(x *executor, src any, _ map[string]any) (any, error) {
			b := src.(*gitBlobObj)
			return len(b.repo.git.blobs[b.oid]) > blobTextLimit, nil
		},
		"text": func(x *executor, src any, _ map[string]any) (any, error) {
			b := src.(*gitBlobObj)
			data := b.repo.git.blobs[b.oid]
			if !utf8.Valid(data) {
				return nil, nil
			}
			if len(data) > blobTextLimit {
				data = data[:blobTextLimit]
			}
			return string(data), nil
		},
		"repository": func(x *executor, src any, _ map[string]any) (any, error) { return objRepo(src.(*gitBlobObj).repo), nil },
	})
}

// blobTextLimit is the size past which Blob.text is cut and isTruncated set.
const blobTextLimit = 512 * 1024

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func lastEdited(c *comment) any {
	if c.edited && c.deletedAt.IsZero() {
		return c.updatedAt
	}
	return nil
}

func commentConnection(typ string, cs []*comment, args map[string]any) (any, error) {
	items := make([]any, len(cs))
	keys := make([]string, len(cs))
	for i, c := range cs {
		items[i] = objComment(c)
		keys[i] = strconv.FormatInt(c.dbID, 10)
	}
	return paginate(typ, items, keys, args)
}

// issueByNumber serves Repository.issue, pullRequest and
// issueOrPullRequest: what names a conversation of another kind is not
// found, as on GitHub.
func issueByNumber(what string, kinds ...threadKind) resolver {
	return func(x *executor, src any, args map[string]any) (any, error) {
		n, _ := argInt(args, "number")
		d := src.(*repo).issue(n, kinds...)
		if d == nil {
			return nil, errorf("NOT_FOUND", "Could not resolve to %s with the number of %d.", what, n)
		}
		return objDiscussion(d), nil
	}
}

// reactableFields serves reactionGroups, reactions and viewerCanReact for
// discussions and comments.
func reactableFields() map[string]resolver {
	return map[string]resolver{
		"reactionGroups": func(x *executor, src any, _ map[string]any) (any, error) {
			rs, _, _ := reactableOf(src)
			out := make([]any, 0, len(reactionContents))
			for _, content := range reactionContents {
				rg := &reactionGroup{subject: src, content: content}
				for _, r := range *rs {
					if r.content == content {
						rg.rs = append(rg.rs, r)
					}
				}
				out = append(out, object{typ: "ReactionGroup", v: rg})
			}
			return out, nil
		},
		"reactions": func(x *executor, src any, args map[string]any) (any, error) {
			rs, _, _ := reactableOf(src)
			content, _ := argString(args, "content")
			var items []any
			var keys []string
			for _, r := range *rs {
				if content == "" || r.content == content {
					items = append(items, object{typ: "Reaction", v: &reactionObj{subject: src, r: r}})
					keys = append(keys, r.content+":"+r.user.login)
				}
			}
			return paginate("ReactionConnection", items, keys, args)
		},
		"viewerCanReact": func(x *executor, src any, _ map[string]any) (any, error) { return true, nil },
	}
}

func reactors(typ string) resolver {
	return func(x *executor, src any, args map[string]any) (any, error) {
		rg := src.(*reactionGroup)
		var items []any
		var keys []string
		for _, r := range rg.rs {
			if typ == "ReactingUserConnection" && r.user.kind != KindUser {
				continue
			}
			items = append(items, object{typ: r.user.typeName(), v: r.user})
			keys = append(keys, r.user.login)
		}
		return paginate(typ, items, keys, args)
	}
}

func init() {
	register("ReactionConnection", map[string]resolver{
		"viewerHasReacted": func(x *executor, src any, _ map[string]any) (any, error) {
			for _, n := range src.(*connection).nodes {
				if n.(object).v.(*reactionObj).r.user == x.viewer {
					return true, nil
				}
			}
			return false, nil
		},
	})
}

// gitObject serves Repository.object(expression:|oid:): "rev" gives a
// Commit, "rev:path" a Blob; unknown ones are null, as on GitHub.
func (x *executor) gitObject(r *repo, args map[string]any) (any, error) {
	if oid, ok := argString(args, "oid"); ok {
		if c, ok := r.git.commits[oid]; ok {
			return object{typ: "Commit", v: &gitCommitObj{repo: r, c: c}}, nil
		}
		if _, ok := r.git.blobs[oid]; ok {
			return object{typ: "Blob", v: &gitBlobObj{repo: r, oid: oid}}, nil
		}
		return nil, nil
	}
	expr, _ := argString(args, "expression")
	rev, path, hasPath := strings.Cut(expr, ":")
	if rev == "" || rev == "HEAD" {
		// HEAD is the default branch's head, as on GitHub.
		rev = r.defaultBranch
	}
	oid, ok := r.git.resolve(rev)
	if !ok {
		return nil, nil
	}
	if !hasPath {
		return object{typ: "Commit", v: &gitCommitObj{repo: r, c: r.git.commits[oid]}}, nil
	}
	blob, ok := r.git.file(oid, path)
	if !ok {
		return nil, nil
	}
	return object{typ: "Blob", v: &gitBlobObj{repo: r, oid: blob}}, nil
}

// discussions serves Repository.discussions with states, orderBy and
// answered.
func (x *executor) discussions(r *repo, args map[string]any) (any, error) {
	states := argStrings(args, "states")
	var list []*discussion
	for _, d := range r.discussions {
		if d.deleted {
			continue
		}
		if len(states) > 0 {
			st := "OPEN"
			if d.closed {
				st = "CLOSED"
			}
			if !slices.Contains(states, st) {
				continue
			}
		}
		if a, ok := argBool(args, "answered"); ok && a {
			continue // the fake has no answers
		}
		list = append(list, d)
	}
	field, dir := "UPDATED_AT", "DESC"
	if ob := argObject(args, "orderBy"); ob != nil {
		if f, ok := ob["field"].(string); ok {
			field = f
		}
		if d, ok := ob["direction"].(string); ok {
			dir = d
		}
	}
	sortDiscussions(list, field, dir)
	items := make([]any, len(list))
	keys := make([]string, len(list))
	for i, d := range list {
		items[i] = objDiscussion(d)
		keys[i] = strconv.FormatInt(d.dbID, 10)
	}
	return paginate("DiscussionConnection", items, keys, args)
}

func sortDiscussions(list []*discussion, field, dir string) {
	slices.SortStableFunc(list, func(a, b *discussion) int {
		ta, tb := a.updatedAt, b.updatedAt
		if field == "CREATED_AT" {
			ta, tb = a.createdAt, b.createdAt
		}
		c := ta.Compare(tb)
		if c == 0 {
			c = compareInt(a.dbID, b.dbID)
		}
		if dir == "DESC" {
			c = -c
		}
		return c
	})
}
