package githubfake

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// examples are GitHub's own webhook payload examples (octokit/webhooks, see
// testdata/github/SOURCES.md): discussion, discussion_comment, issues,
// issue_comment and workflow_dispatch, copied here because go:embed cannot reach
// outside the package. Payloads are built from them so that every key
// GitHub sends is there, with the fake's values substituted.
//
//go:embed webhooks/*.json
var examples embed.FS

// Event says which webhook delivery to build.
type Event struct {
	// Action is the payload's action: created, edited, deleted, closed,
	// reopened, locked, unlocked, labeled, unlabeled, ... for discussion
	// (opened, not created, for issues); created, edited, deleted for
	// discussion_comment and issue_comment.
	Action string
	// Sender is the login that caused the event; empty means the author.
	Sender string
	// Changes maps an edited field (body, title) to its previous value.
	Changes map[string]string
	// Label names the label of a labeled/unlabeled event.
	Label string
}

// exampleFor picks the real example closest to the event.
func exampleFor(event, action string) (map[string]any, error) {
	name := event + "." + action + ".json"
	if action == "" {
		name = event + ".json"
	}
	if _, err := examples.Open("webhooks/" + name); err != nil {
		switch {
		case event == "discussion" && (action == "unlabeled"):
			name = "discussion.labeled.json"
		case event == "discussion" && action == "unlocked":
			name = "discussion.locked.json"
		case event == "discussion":
			name = "discussion.created.json"
		// There is no example of a closed issue: a reopened one has its
		// shape (closed_at set).
		case event == "issues" && action == "closed":
			name = "issues.reopened.json"
		case event == "issues" && action == "unlabeled":
			name = "issues.labeled.json"
		case event == "issues" && action == "unlocked":
			name = "issues.locked.json"
		case event == "issues":
			name = "issues.opened.json"
		default:
			return nil, fmt.Errorf("%w: no %s event with action %q", ErrInvalid, event, action)
		}
	}
	b, err := examples.ReadFile("webhooks/" + name)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// webAPIRoot is the API base webhook URLs point to.
func (g *GitHub) webAPIRoot() string {
	if g.srv != nil {
		return g.srv.URL + APIPrefix
	}
	return "https://api.github.com"
}

// DiscussionPayload builds the JSON GitHub delivers for a `discussion`
// event from the fake's current state of the discussion (which may be
// deleted, for action "deleted").
func (g *GitHub) DiscussionPayload(discussionID string, ev Event) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	d := g.anyDiscussion(discussionID)
	if d == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownDiscussion, discussionID)
	}
	m, err := exampleFor("discussion", ev.Action)
	if err != nil {
		return nil, err
	}
	m["action"] = ev.Action
	if err := g.fillCommon(m, d, d.author, ev); err != nil {
		return nil, err
	}
	if err := g.fillLabel(m, d, ev); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// fillLabel sets the label of a labeled or unlabeled event.
func (g *GitHub) fillLabel(m map[string]any, d *discussion, ev Event) error {
	if _, ok := m["label"]; ok || ev.Label != "" {
		l := d.repo.label(ev.Label)
		if l == nil {
			return fmt.Errorf("%w: a %s event needs an existing label, got %q", ErrInvalid, ev.Action, ev.Label)
		}
		m["label"] = g.labelJSON(l)
	}
	return nil
}

func (g *GitHub) labelJSON(l *label) map[string]any {
	return map[string]any{"id": l.dbID, "node_id": l.nodeID,
		"url":  g.webAPIRoot() + "/repos/" + l.repo.fullName() + "/labels/" + l.name,
		"name": l.name, "color": l.color, "default": false, "description": nilIfEmpty(l.description)}
}

// IssuePayload builds the JSON GitHub delivers for an `issues` event
// (opened, edited, closed, reopened, labeled, locked, ...) from the fake's
// current state of the issue. A pull request has no `issues` events.
func (g *GitHub) IssuePayload(issueID string, ev Event) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	d := g.anyDiscussion(issueID)
	if d == nil || d.kind != kindIssue {
		return nil, fmt.Errorf("%w: no issue %q", ErrUnknownDiscussion, issueID)
	}
	m, err := exampleFor("issues", ev.Action)
	if err != nil {
		return nil, err
	}
	m["action"] = ev.Action
	// The example of a reopened issue comes from an app's installation;
	// the fake has none.
	delete(m, "installation")
	g.fillIssue(m, d)
	if err := g.fillEnvelope(m, d.repo, d.author, ev); err != nil {
		return nil, err
	}
	if err := g.fillLabel(m, d, ev); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// IssueCommentPayload builds the JSON GitHub delivers for an
// `issue_comment` event (created, edited, deleted) on an issue or a pull
// request (then issue.pull_request is set) from the fake's state of the
// comment; a deleted comment is rendered as it was.
func (g *GitHub) IssueCommentPayload(commentID string, ev Event) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.nodes[commentID].(*comment)
	if !ok {
		c, ok = g.graveyard[commentID]
	}
	if !ok || c.disc.kind == kindDiscussion {
		return nil, fmt.Errorf("%w: no issue comment %q", ErrUnknownComment, commentID)
	}
	m, err := exampleFor("issue_comment", ev.Action)
	if err != nil {
		return nil, err
	}
	m["action"] = ev.Action
	g.fillIssue(m, c.disc)
	if err := g.fillEnvelope(m, c.disc.repo, c.author, ev); err != nil {
		return nil, err
	}
	api := g.webAPIRoot() + "/repos/" + c.disc.repo.fullName() + "/issues"
	cm := m["comment"].(map[string]any)
	cm["url"] = fmt.Sprintf("%s/comments/%d", api, c.dbID)
	cm["html_url"] = c.url(g)
	cm["issue_url"] = fmt.Sprintf("%s/%d", api, c.disc.number)
	cm["id"] = c.dbID
	cm["node_id"] = c.nodeID
	cm["user"] = g.userJSONAt(g.webAPIRoot(), c.author)
	cm["created_at"] = ghTime(c.createdAt)
	cm["updated_at"] = ghTime(c.updatedAt)
	cm["author_association"] = c.disc.repo.association(c.author)
	cm["body"] = c.body
	cm["reactions"] = reactionsJSON(fmt.Sprintf("%s/comments/%d/reactions", api, c.dbID), c.reactions)
	return json.Marshal(m)
}

// fillIssue substitutes the payload's issue: an issue's or a pull
// request's (pull_request set) state in the fake.
func (g *GitHub) fillIssue(m map[string]any, d *discussion) {
	root := g.webAPIRoot()
	r := d.repo
	api := fmt.Sprintf("%s/repos/%s/issues/%d", root, r.fullName(), d.number)
	is := m["issue"].(map[string]any)
	state, closedAt := "open", any(nil)
	if d.closed {
		state, closedAt = "closed", ghTime(d.closedAt)
	}
	labels := []any{}
	for _, l := range d.labels {
		labels = append(labels, g.labelJSON(l))
	}
	is["url"] = api
	is["repository_url"] = root + "/repos/" + r.fullName()
	is["labels_url"] = api + "/labels{/name}"
	is["comments_url"] = api + "/comments"
	is["events_url"] = api + "/events"
	is["html_url"] = d.url(g)
	is["id"] = d.dbID
	is["node_id"] = d.nodeID
	is["number"] = d.number
	is["title"] = d.title
	is["body"] = d.body
	is["user"] = g.userJSONAt(root, d.author)
	is["labels"] = labels
	is["state"] = state
	is["state_reason"] = nilIfEmpty(strings.ToLower(d.reason))
	is["locked"] = d.locked
	is["active_lock_reason"] = nil
	is["assignee"], is["assignees"], is["milestone"] = nil, []any{}, nil
	is["comments"] = len(d.comments)
	is["created_at"] = ghTime(d.createdAt)
	is["updated_at"] = ghTime(d.updatedAt)
	is["closed_at"] = closedAt
	is["author_association"] = r.association(d.author)
	is["reactions"] = reactionsJSON(api+"/reactions", d.reactions)
	if d.kind == kindPullRequest {
		var mergedAt any
		if d.merged {
			mergedAt = ghTime(d.mergedAt)
		}
		is["pull_request"] = map[string]any{"url": fmt.Sprintf("%s/repos/%s/pulls/%d", root, r.fullName(), d.number),
			"html_url": d.url(g), "diff_url": d.url(g) + ".diff", "patch_url": d.url(g) + ".patch", "merged_at": mergedAt}
	}
}

// DiscussionCommentPayload builds the JSON GitHub delivers for a
// `discussion_comment` event (created, edited, deleted) from the fake's
// state of the comment; a deleted comment is rendered as it was.
func (g *GitHub) DiscussionCommentPayload(commentID string, ev Event) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.nodes[commentID].(*comment)
	if !ok || !c.deletedAt.IsZero() {
		c, ok = g.graveyard[commentID]
	}
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownComment, commentID)
	}
	m, err := exampleFor("discussion_comment", ev.Action)
	if err != nil {
		return nil, err
	}
	m["action"] = ev.Action
	if err := g.fillCommon(m, c.disc, c.author, ev); err != nil {
		return nil, err
	}
	r := c.disc.repo
	var parent any
	if c.parent != nil {
		parent = c.parent.dbID
	}
	comment := m["comment"].(map[string]any)
	comment["id"] = c.dbID
	comment["node_id"] = c.nodeID
	comment["html_url"] = c.url(g)
	comment["parent_id"] = parent
	comment["child_comment_count"] = len(c.replies)
	comment["repository_url"] = r.fullName()
	comment["discussion_id"] = c.disc.dbID
	comment["author_association"] = r.association(c.author)
	comment["user"] = g.userJSONAt(g.webAPIRoot(), c.author)
	comment["created_at"] = ghTime(c.createdAt)
	comment["updated_at"] = ghTime(c.updatedAt)
	comment["body"] = c.body
	comment["reactions"] = reactionsJSON(g.webAPIRoot()+"/repos/"+r.fullName()+fmt.Sprintf("/discussions/comments/%d/reactions", c.dbID), c.reactions)
	return json.Marshal(m)
}

// WorkflowDispatchPayload builds the JSON GitHub delivers to a run that a
// `workflow_dispatch` started: the run's inputs, its ref, the repository
// and the account that dispatched it.
func (g *GitHub) WorkflowDispatchPayload(runID int64) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	ru, ok := g.runs[runID]
	if !ok {
		return nil, fmt.Errorf("%w: %d", ErrUnknownRun, runID)
	}
	sender, err := g.lookupAccount(ru.Actor)
	if err != nil {
		return nil, err
	}
	m, err := exampleFor("workflow_dispatch", "")
	if err != nil {
		return nil, err
	}
	delete(m, "organization") // the fake's owners are accounts, not organizations
	m["inputs"] = ru.Inputs
	m["ref"] = "refs/heads/" + ru.HeadBranch
	m["repository"] = g.repoPayload(m["repository"].(map[string]any), ru.repo)
	m["sender"] = g.userJSONAt(g.webAPIRoot(), sender)
	m["workflow"] = ".github/workflows/" + ru.Workflow
	return json.Marshal(m)
}

// anyDiscussion finds a discussion, issue or pull request by id, deleted
// ones included.
func (g *GitHub) anyDiscussion(id string) *discussion {
	for _, r := range g.repos {
		for _, d := range slices.Concat(r.discussions, r.issues) {
			if d.nodeID == id {
				return d
			}
		}
	}
	return nil
}

// fillCommon substitutes discussion, repository, sender and changes.
func (g *GitHub) fillCommon(m map[string]any, d *discussion, author *identity, ev Event) error {
	root := g.webAPIRoot()
	r := d.repo
	disc := m["discussion"].(map[string]any)
	state := "open"
	if d.closed {
		state = "closed"
	}
	n := 0
	for _, c := range d.comments {
		n += 1 + len(c.replies)
	}
	disc["repository_url"] = root + "/repos/" + r.fullName()
	disc["html_url"] = d.url(g)
	disc["id"] = d.dbID
	disc["node_id"] = d.nodeID
	disc["number"] = d.number
	disc["title"] = d.title
	disc["body"] = d.body
	disc["user"] = g.userJSONAt(root, d.author)
	disc["state"] = state
	disc["locked"] = d.locked
	disc["comments"] = n
	disc["created_at"] = ghTime(d.createdAt)
	disc["updated_at"] = ghTime(d.updatedAt)
	disc["author_association"] = r.association(d.author)
	disc["active_lock_reason"] = nil
	if _, ok := disc["state_reason"]; ok {
		disc["state_reason"] = nilIfEmpty(strings.ToLower(d.reason))
	}
	if cat, ok := disc["category"].(map[string]any); ok {
		c := d.category
		cat["id"], cat["node_id"], cat["repository_id"] = c.dbID, c.nodeID, r.dbID
		cat["name"], cat["slug"], cat["emoji"], cat["description"] = c.name, c.slug, c.emoji, c.desc
		cat["created_at"], cat["updated_at"] = ghTime(c.at), ghTime(c.at)
	}
	return g.fillEnvelope(m, r, author, ev)
}

// fillEnvelope substitutes repository, sender (the author unless the event
// names another) and changes.
func (g *GitHub) fillEnvelope(m map[string]any, r *repo, author *identity, ev Event) error {
	sender := author
	if ev.Sender != "" {
		a, err := g.lookupAccount(ev.Sender)
		if err != nil {
			return err
		}
		sender = a
	}
	m["repository"] = g.repoPayload(m["repository"].(map[string]any), r)
	m["sender"] = g.userJSONAt(g.webAPIRoot(), sender)
	if _, ok := m["changes"]; ok || len(ev.Changes) > 0 {
		ch := map[string]any{}
		for k, v := range ev.Changes {
			ch[k] = map[string]any{"from": v}
		}
		m["changes"] = ch
	}
	return nil
}

// repoPayload rewrites the example repository for r: every URL is moved to
// r's paths and the identifying fields are replaced.
func (g *GitHub) repoPayload(ex map[string]any, r *repo) map[string]any {
	root := g.webAPIRoot()
	exName, _ := ex["full_name"].(string) // the example's repository
	out := map[string]any{}
	for k, v := range ex {
		if s, ok := v.(string); ok {
			s = strings.ReplaceAll(s, "https://api.github.com/repos/"+exName, root+"/repos/"+r.fullName())
			s = strings.ReplaceAll(s, "https://github.com/"+exName, g.serverURL+"/"+r.fullName())
			s = strings.ReplaceAll(s, "git://github.com/"+exName, "git://"+strings.TrimPrefix(strings.TrimPrefix(g.serverURL, "https://"), "http://")+"/"+r.fullName())
			s = strings.ReplaceAll(s, "git@github.com:"+exName, "git@github.com:"+r.fullName())
			v = s
		}
		out[k] = v
	}
	out["id"] = r.dbID
	out["node_id"] = r.nodeID
	out["name"] = r.name
	out["full_name"] = r.fullName()
	out["owner"] = g.userJSONAt(root, r.ownerAcct)
	out["default_branch"] = r.defaultBranch
	out["created_at"] = ghTime(r.createdAt)
	out["pushed_at"] = ghTime(r.createdAt)
	out["updated_at"] = ghTime(r.createdAt)
	return out
}

// reactionsJSON is the REST reaction rollup.
func reactionsJSON(url string, rs []*reaction) map[string]any {
	names := map[string]string{"THUMBS_UP": "+1", "THUMBS_DOWN": "-1", "LAUGH": "laugh", "HOORAY": "hooray",
		"CONFUSED": "confused", "HEART": "heart", "ROCKET": "rocket", "EYES": "eyes"}
	m := map[string]any{"url": url, "total_count": len(rs)}
	for _, n := range names {
		m[n] = 0
	}
	for _, r := range rs {
		m[names[r.content]] = m[names[r.content]].(int) + 1
	}
	return m
}
