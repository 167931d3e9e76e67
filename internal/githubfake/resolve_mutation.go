package githubfake

import (
	"encoding/base64"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxBodyLength is GitHub's limit on a comment body, in characters.
const MaxBodyLength = 65536

// payload is a mutation payload: clientMutationId plus named fields.
type payload struct {
	clientMutationID any
	fields           map[string]any
}

func newPayload(input map[string]any, fields map[string]any) object {
	return object{v: &payload{clientMutationID: input["clientMutationId"], fields: fields}}
}

func payloadResolvers(typ string, names ...string) {
	m := map[string]resolver{
		"clientMutationId": func(x *executor, src any, _ map[string]any) (any, error) {
			return src.(*payload).clientMutationID, nil
		},
	}
	for _, n := range names {
		m[n] = func(x *executor, src any, _ map[string]any) (any, error) { return src.(*payload).fields[n], nil }
	}
	register(typ, m)
}

func typed(typ string, o object) object { o.typ = typ; return o }

func checkBody(body string) error {
	if strings.TrimSpace(body) == "" {
		return errorf("UNPROCESSABLE", "Body can't be blank")
	}
	if utf8.RuneCountInString(body) > MaxBodyLength {
		return errorf("UNPROCESSABLE", "Body is too long (maximum is %d characters)", MaxBodyLength)
	}
	return nil
}

func notFoundNode(id string) error {
	return errorf("NOT_FOUND", "Could not resolve to a node with the global id of '%s'", id)
}

func forbidden(who *identity, mutation string) error {
	return errorf("FORBIDDEN", "%s does not have the correct permissions to execute `%s`", who.restLogin(), mutation)
}

var zeroOID = strings.Repeat("0", 40)

var oidPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)

func init() {
	payloadResolvers("AddDiscussionCommentPayload", "comment")
	payloadResolvers("UpdateDiscussionCommentPayload", "comment")
	payloadResolvers("DeleteDiscussionCommentPayload", "comment")
	payloadResolvers("AddCommentPayload", "commentEdge", "subject")
	payloadResolvers("UpdateIssueCommentPayload", "issueComment")
	payloadResolvers("DeleteIssueCommentPayload")
	payloadResolvers("AddReactionPayload", "reaction", "subject", "reactionGroups")
	payloadResolvers("RemoveReactionPayload", "reaction", "subject", "reactionGroups")
	payloadResolvers("AddLabelsToLabelablePayload", "labelable")
	payloadResolvers("CreateLabelPayload", "label")
	payloadResolvers("RemoveLabelsFromLabelablePayload", "labelable")
	payloadResolvers("MinimizeCommentPayload", "minimizedComment")
	payloadResolvers("UnminimizeCommentPayload", "unminimizedComment")
	payloadResolvers("CreateCommitOnBranchPayload", "commit", "ref")
	payloadResolvers("CreateRefPayload", "ref")
	payloadResolvers("UpdateRefsPayload")

	register("Mutation", map[string]resolver{
		"addDiscussionComment":      mutAddDiscussionComment,
		"updateDiscussionComment":   mutUpdateDiscussionComment,
		"deleteDiscussionComment":   mutDeleteDiscussionComment,
		"addComment":                mutAddComment,
		"updateIssueComment":        mutUpdateIssueComment,
		"deleteIssueComment":        mutDeleteIssueComment,
		"addReaction":               mutReaction(true),
		"removeReaction":            mutReaction(false),
		"createLabel":               mutCreateLabel,
		"addLabelsToLabelable":      mutLabels(true),
		"removeLabelsFromLabelable": mutLabels(false),
		"minimizeComment":           mutMinimize(true),
		"unminimizeComment":         mutMinimize(false),
		"createCommitOnBranch":      mutCreateCommitOnBranch,
		"createRef":                 mutCreateRef,
		"updateRefs":                mutUpdateRefs,
	})
}

func mutAddDiscussionComment(x *executor, _ any, args map[string]any) (any, error) {
	in := argObject(args, "input")
	id, _ := in["discussionId"].(string)
	d, ok := x.g.nodes[id].(*discussion)
	if !ok || d.deleted || d.kind != kindDiscussion {
		return nil, notFoundNode(id)
	}
	body, _ := in["body"].(string)
	if err := checkBody(body); err != nil {
		return nil, err
	}
	if d.locked && !d.repo.canWrite(x.viewer) {
		return nil, errorf("FORBIDDEN", "Unable to create comment because discussion is locked.")
	}
	var parent *comment
	if rid, ok := in["replyToId"].(string); ok && rid != "" {
		p, ok := x.g.nodes[rid].(*comment)
		if !ok {
			return nil, notFoundNode(rid)
		}
		if p.disc != d {
			return nil, errorf("UNPROCESSABLE", "Reply to must belong to the same discussion")
		}
		if p.parent != nil {
			// GitHub threads one level deep only.
			return nil, errorf("UNPROCESSABLE", "Reply to can not be a reply to another comment; reply to its top-level comment instead")
		}
		if !p.deletedAt.IsZero() {
			return nil, errorf("UNPROCESSABLE", "Reply to can not be a deleted comment")
		}
		parent = p
	}
	c := x.g.addComment(d, parent, x.viewer, body)
	return typed("AddDiscussionCommentPayload", newPayload(in, map[string]any{"comment": objComment(c)})), nil
}

// mutAddComment posts an issue or pull request comment. A locked one takes
// comments only from people with write access: GitHub refuses apps and the
// GITHUB_TOKEN there, unlike on a locked discussion.
func mutAddComment(x *executor, _ any, args map[string]any) (any, error) {
	in := argObject(args, "input")
	id, _ := in["subjectId"].(string)
	d, ok := x.g.nodes[id].(*discussion)
	if !ok || d.deleted || d.kind == kindDiscussion {
		return nil, notFoundNode(id)
	}
	body, _ := in["body"].(string)
	if err := checkBody(body); err != nil {
		return nil, err
	}
	if d.locked && (x.viewer.kind == KindBot || !d.repo.canWrite(x.viewer)) {
		return nil, errorf("FORBIDDEN", "Unable to create comment because issue is locked.")
	}
	c := x.g.addComment(d, nil, x.viewer, body)
	node := objComment(c)
	return typed("AddCommentPayload", newPayload(in, map[string]any{
		"commentEdge": object{typ: "IssueCommentEdge", v: &edge{typ: "IssueCommentEdge", node: node, cursor: encodeCursor(strconv.FormatInt(c.dbID, 10))}},
		"subject":     objDiscussion(d),
	})), nil
}

// editableComment finds a comment of type typ (DiscussionComment or
// IssueComment) the viewer may change.
func (x *executor) editableComment(id, typ, mutation string) (*comment, error) {
	c, ok := x.g.nodes[id].(*comment)
	if !ok || c.disc.deleted || !c.deletedAt.IsZero() || c.disc.commentType() != typ {
		return nil, notFoundNode(id)
	}
	r := c.disc.repo
	if c.author != x.viewer && !r.canWrite(x.viewer) {
		return nil, forbidden(x.viewer, mutation)
	}
	if c.disc.locked && !r.canWrite(x.viewer) {
		return nil, errorf("FORBIDDEN", "Unable to update comment because %s is locked.", c.disc.word())
	}
	return c, nil
}

// editComment replaces a comment's body; the same body is no edit.
func (x *executor) editComment(c *comment, body string) error {
	if err := checkBody(body); err != nil {
		return err
	}
	if c.body != body {
		c.body = body
		c.updatedAt, c.edited = x.g.clock(), true
	}
	return nil
}

func mutUpdateIssueComment(x *executor, _ any, args map[string]any) (any, error) {
	in := argObject(args, "input")
	id, _ := in["id"].(string)
	c, err := x.editableComment(id, "IssueComment", "UpdateIssueComment")
	if err != nil {
		return nil, err
	}
	body, _ := in["body"].(string)
	if err := x.editComment(c, body); err != nil {
		return nil, err
	}
	return typed("UpdateIssueCommentPayload", newPayload(in, map[string]any{"issueComment": objComment(c)})), nil
}

func mutDeleteIssueComment(x *executor, _ any, args map[string]any) (any, error) {
	in := argObject(args, "input")
	id, _ := in["id"].(string)
	c, err := x.editableComment(id, "IssueComment", "DeleteIssueComment")
	if err != nil {
		return nil, err
	}
	x.g.deleteComment(c)
	return typed("DeleteIssueCommentPayload", newPayload(in, nil)), nil
}

func mutUpdateDiscussionComment(x *executor, _ any, args map[string]any) (any, error) {
	in := argObject(args, "input")
	id, _ := in["commentId"].(string)
	c, err := x.editableComment(id, "DiscussionComment", "UpdateDiscussionComment")
	if err != nil {
		return nil, err
	}
	body, _ := in["body"].(string)
	if err := x.editComment(c, body); err != nil {
		return nil, err
	}
	return typed("UpdateDiscussionCommentPayload", newPayload(in, map[string]any{"comment": objComment(c)})), nil
}

func mutDeleteDiscussionComment(x *executor, _ any, args map[string]any) (any, error) {
	in := argObject(args, "input")
	id, _ := in["id"].(string)
	c, err := x.editableComment(id, "DiscussionComment", "DeleteDiscussionComment")
	if err != nil {
		return nil, err
	}
	snap := *c
	x.g.deleteComment(c)
	return typed("DeleteDiscussionCommentPayload", newPayload(in, map[string]any{"comment": objComment(&snap)})), nil
}

func mutReaction(add bool) resolver {
	return func(x *executor, _ any, args map[string]any) (any, error) {
		in := argObject(args, "input")
		id, _ := in["subjectId"].(string)
		content, _ := in["content"].(string)
		v := x.g.nodes[id]
		if c, ok := v.(*comment); ok && !c.deletedAt.IsZero() {
			v = nil
		}
		rs, subject, ok := reactableOf(v)
		if !ok || x.repoOf(v) == nil || (isDeleted(v)) {
			return nil, notFoundNode(id)
		}
		var r *reaction
		if add {
			*rs = addReaction(*rs, content, x.viewer, x.g.clock())
			for _, it := range *rs {
				if it.content == content && it.user == x.viewer {
					r = it
				}
			}
		} else {
			for _, it := range *rs {
				if it.content == content && it.user == x.viewer {
					r = it
				}
			}
			*rs = removeReaction(*rs, content, x.viewer)
			if r == nil {
				// Removing a reaction that is not there succeeds as a no-op.
				r = &reaction{content: content, user: x.viewer, at: x.g.clock()}
			}
		}
		groups, _ := reactableFields()["reactionGroups"](x, v, nil)
		typ := "AddReactionPayload"
		if !add {
			typ = "RemoveReactionPayload"
		}
		return typed(typ, newPayload(in, map[string]any{
			"reaction":       object{typ: "Reaction", v: &reactionObj{subject: v, r: r}},
			"subject":        subject,
			"reactionGroups": groups,
		})), nil
	}
}

func isDeleted(v any) bool {
	switch t := v.(type) {
	case *discussion:
		return t.deleted
	case *comment:
		return t.disc.deleted
	}
	return true
}

func mutLabels(add bool) resolver {
	return func(x *executor, _ any, args map[string]any) (any, error) {
		in := argObject(args, "input")
		id, _ := in["labelableId"].(string)
		d, ok := x.g.nodes[id].(*discussion)
		if !ok || d.deleted {
			return nil, notFoundNode(id)
		}
		name := "AddLabelsToLabelable"
		if !add {
			name = "RemoveLabelsFromLabelable"
		}
		if !d.repo.canWrite(x.viewer) {
			return nil, forbidden(x.viewer, name)
		}
		var ls []*label
		for _, lid := range argStrings(in, "labelIds") {
			l, ok := x.g.nodes[lid].(*label)
			if !ok || l.repo != d.repo {
				return nil, notFoundNode(lid)
			}
			ls = append(ls, l)
		}
		if add {
			x.g.addLabels(d, ls)
		} else {
			x.g.removeLabels(d, ls)
		}
		typ := name + "Payload"
		return typed(typ, newPayload(in, map[string]any{"labelable": objDiscussion(d)})), nil
	}
}

func mutMinimize(minimize bool) resolver {
	return func(x *executor, _ any, args map[string]any) (any, error) {
		in := argObject(args, "input")
		id, _ := in["subjectId"].(string)
		c, ok := x.g.nodes[id].(*comment)
		if !ok || c.disc.deleted {
			return nil, notFoundNode(id)
		}
		name := "MinimizeComment"
		if !minimize {
			name = "UnminimizeComment"
		}
		if !c.disc.repo.canWrite(x.viewer) {
			return nil, forbidden(x.viewer, name)
		}
		if minimize {
			classifier, _ := in["classifier"].(string)
			c.minimized, c.minReason = true, minimizedReasons[classifier]
		} else {
			c.minimized, c.minReason = false, ""
		}
		if minimize {
			return typed("MinimizeCommentPayload", newPayload(in, map[string]any{"minimizedComment": objComment(c)})), nil
		}
		return typed("UnminimizeCommentPayload", newPayload(in, map[string]any{"unminimizedComment": objComment(c)})), nil
	}
}

// refRepo finds the repository and ref a CommittableBranch names.
func (x *executor) refRepo(branch map[string]any) (*repo, string, error) {
	if id, ok := branch["id"].(string); ok && id != "" {
		for _, r := range x.g.repos {
			for name := range r.git.refs {
				ref := &gitRef{repo: r, name: name}
				rid, _ := resolvers["Ref"]["id"](x, ref, nil)
				if rid == id {
					return r, name, nil
				}
			}
		}
		return nil, "", notFoundNode(id)
	}
	nwo, _ := branch["repositoryNameWithOwner"].(string)
	name, _ := branch["branchName"].(string)
	if nwo == "" || name == "" {
		return nil, "", errorf("UNPROCESSABLE", "A branch must be specified by id or by repositoryNameWithOwner and branchName")
	}
	r, err := x.g.repo(nwo)
	if err != nil {
		return nil, "", errorf("NOT_FOUND", "Could not resolve to a Repository with the name '%s'.", nwo)
	}
	return r, "refs/heads/" + strings.TrimPrefix(name, "refs/heads/"), nil
}

func mutCreateCommitOnBranch(x *executor, _ any, args map[string]any) (any, error) {
	in := argObject(args, "input")
	r, ref, err := x.refRepo(argObject(in, "branch"))
	if err != nil {
		return nil, err
	}
	if !r.canWrite(x.viewer) {
		return nil, forbidden(x.viewer, "CreateCommitOnBranch")
	}
	head, ok := r.git.refs[ref]
	if !ok {
		return nil, errorf("NOT_FOUND", "Could not resolve to a Ref with the name '%s'.", ref)
	}
	expected, _ := in["expectedHeadOid"].(string)
	if !oidPattern.MatchString(expected) {
		return nil, errorf("UNPROCESSABLE", "expectedHeadOid %q is not a valid git object id", expected)
	}
	if expected != head {
		return nil, errorf("STALE_DATA", "Expected branch to point to %q but it did not. Pull and try again.", expected)
	}
	msg := argObject(in, "message")
	headline, _ := msg["headline"].(string)
	if strings.TrimSpace(headline) == "" {
		return nil, errorf("UNPROCESSABLE", "A commit message headline is required")
	}
	msgBody, _ := msg["body"].(string)
	entries := maps.Clone(r.git.trees[r.git.commits[head].tree])
	changes := argObject(in, "fileChanges")
	if dels, ok := changes["deletions"].([]any); ok {
		for _, it := range dels {
			p, _ := it.(map[string]any)["path"].(string)
			if _, ok := entries[p]; !ok {
				return nil, errorf("UNPROCESSABLE", "A path was requested for deletion which does not exist as of commit oid `%s`", head)
			}
			delete(entries, p)
		}
	}
	if adds, ok := changes["additions"].([]any); ok {
		for _, it := range adds {
			m := it.(map[string]any)
			p, _ := m["path"].(string)
			raw, _ := m["contents"].(string)
			data, err := base64.StdEncoding.DecodeString(raw)
			if err != nil {
				return nil, errorf("UNPROCESSABLE", "The contents of %s are not valid base64", p)
			}
			if p == "" || strings.HasPrefix(p, "/") || slices.Contains(strings.Split(p, "/"), "..") {
				return nil, errorf("UNPROCESSABLE", "Invalid path %q", p)
			}
			entries[p] = r.git.putBlob(data)
		}
	}
	c := r.git.putCommit(r.git.putTree(entries), []string{head}, headline, msgBody, x.viewer, x.g.clock())
	r.git.refs[ref] = c.oid
	return typed("CreateCommitOnBranchPayload", newPayload(in, map[string]any{
		"commit": object{typ: "Commit", v: &gitCommitObj{repo: r, c: c}},
		"ref":    object{typ: "Ref", v: &gitRef{repo: r, name: ref}},
	})), nil
}

func (x *executor) repoByNode(id string) (*repo, error) {
	r, ok := x.g.nodes[id].(*repo)
	if !ok {
		return nil, notFoundNode(id)
	}
	return r, nil
}

// validRefName is a fully qualified ref with at least two slashes, as
// GitHub requires of createRef.
func validRefName(name string) bool {
	return strings.HasPrefix(name, "refs/") && strings.Count(name, "/") >= 2 && !strings.Contains(name, "..") &&
		!strings.HasSuffix(name, "/") && !strings.ContainsAny(name, " ~^:?*[\\")
}

func mutCreateRef(x *executor, _ any, args map[string]any) (any, error) {
	in := argObject(args, "input")
	rid, _ := in["repositoryId"].(string)
	r, err := x.repoByNode(rid)
	if err != nil {
		return nil, err
	}
	if !r.canWrite(x.viewer) {
		return nil, forbidden(x.viewer, "CreateRef")
	}
	name, _ := in["name"].(string)
	oid, _ := in["oid"].(string)
	if !validRefName(name) {
		return nil, errorf("UNPROCESSABLE", "Reference name %q is not a valid fully qualified ref name", name)
	}
	if !oidPattern.MatchString(oid) {
		return nil, errorf("UNPROCESSABLE", "oid %q is not a valid git object id", oid)
	}
	if _, ok := r.git.refs[name]; ok {
		return nil, errorf("UNPROCESSABLE", "A ref named %q already exists in the repository.", name)
	}
	if _, ok := r.git.commits[oid]; !ok {
		return nil, errorf("UNPROCESSABLE", "Object does not exist")
	}
	r.git.refs[name] = oid
	return typed("CreateRefPayload", newPayload(in, map[string]any{"ref": object{typ: "Ref", v: &gitRef{repo: r, name: name}}})), nil
}

// mutUpdateRefs applies every update or none: each beforeOid must match,
// and without force an update must be a fast-forward.
func mutUpdateRefs(x *executor, _ any, args map[string]any) (any, error) {
	in := argObject(args, "input")
	rid, _ := in["repositoryId"].(string)
	r, err := x.repoByNode(rid)
	if err != nil {
		return nil, err
	}
	if !r.canWrite(x.viewer) {
		return nil, forbidden(x.viewer, "UpdateRefs")
	}
	updates, _ := in["refUpdates"].([]any)
	type change struct{ name, after string }
	var plan []change
	for _, it := range updates {
		u := it.(map[string]any)
		name, _ := u["name"].(string)
		after, _ := u["afterOid"].(string)
		before, hasBefore := u["beforeOid"].(string)
		force, _ := u["force"].(bool)
		if !validRefName(name) {
			return nil, errorf("UNPROCESSABLE", "Reference name %q is not a valid fully qualified ref name", name)
		}
		cur, exists := r.git.refs[name]
		if hasBefore {
			if (before == zeroOID && exists) || (before != zeroOID && before != cur) {
				return nil, errorf("STALE_DATA", "Expected %s to point to %q but it did not. Pull and try again.", name, before)
			}
		}
		if after != zeroOID {
			if _, ok := r.git.commits[after]; !ok {
				return nil, errorf("UNPROCESSABLE", "Object %s does not exist", after)
			}
			if exists && !force && !r.git.isAncestor(cur, after) {
				return nil, errorf("UNPROCESSABLE", "Update of %s is not a fast forward", name)
			}
		} else if !exists {
			return nil, errorf("NOT_FOUND", "Could not resolve to a Ref with the name '%s'.", name)
		}
		plan = append(plan, change{name, after})
	}
	for _, c := range plan {
		if c.after == zeroOID {
			delete(r.git.refs, c.name)
		} else {
			r.git.refs[c.name] = c.after
		}
	}
	return typed("UpdateRefsPayload", newPayload(in, nil)), nil
}

// mutCreateLabel creates a repository label. GitHub refuses a name that is
// taken (case-insensitively), a color that is not six hex digits, and a
// token without write permission on issues or pull requests.
func mutCreateLabel(x *executor, _ any, args map[string]any) (any, error) {
	in := argObject(args, "input")
	id, _ := in["repositoryId"].(string)
	r, ok := x.g.nodes[id].(*repo)
	if !ok {
		return nil, notFoundNode(id)
	}
	if x.g.noLabelCreation || !r.canWrite(x.viewer) {
		return nil, forbidden(x.viewer, "CreateLabel")
	}
	name, _ := in["name"].(string)
	color, _ := in["color"].(string)
	if strings.TrimSpace(name) == "" || len(name) > 50 {
		return nil, errorf("UNPROCESSABLE", "Name is invalid")
	}
	if len(color) != 6 || strings.Trim(strings.ToLower(color), "0123456789abcdef") != "" {
		return nil, errorf("UNPROCESSABLE", "Color is invalid")
	}
	if r.label(name) != nil {
		return nil, errorf("UNPROCESSABLE", "Name has already been taken")
	}
	desc, _ := in["description"].(string)
	if len(desc) > 100 {
		return nil, errorf("UNPROCESSABLE", "Description is too long (maximum is 100 characters)")
	}
	l := &label{repo: r, dbID: x.g.newDB() + 1_000_000_000, name: name, color: strings.ToLower(color), description: desc, createdAt: x.g.clock()}
	l.nodeID = nodeID("LA", uint32(r.dbID), uint32(l.dbID))
	r.labels = append(r.labels, l)
	x.g.nodes[l.nodeID] = l
	return typed("CreateLabelPayload", newPayload(in, map[string]any{"label": objLabel(l)})), nil
}
