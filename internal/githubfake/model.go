package githubfake

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// repo is one repository with its discussions, labels, git objects and
// workflows.
type repo struct {
	owner, name string
	ownerAcct   *identity
	dbID        int64
	nodeID      string
	createdAt   time.Time

	nextNumber  int // shared by issues, pull requests and discussions, as on GitHub
	discussions []*discussion
	issues      []*discussion // issues and pull requests (kind tells them apart)
	labels      []*label
	// category is the default category (General); categories are all of
	// them, the default first.
	category   *category
	categories []*category
	assoc      map[string]string // lower-case login -> association
	// roles are explicit repository permissions (role names as GitHub's
	// role_name: admin, maintain, write, triage, read, none) by lower-case
	// login; see role.
	roles map[string]string

	defaultBranch string
	git           *gitStore
	workflows     map[string]*workflow // by file name
	runNumber     int
	// switchFails is the status every workflow enable and disable answers
	// (0: they work; see FailWorkflowSwitch).
	switchFails int
}

func (r *repo) fullName() string { return r.owner + "/" + r.name }

type category struct {
	dbID   int64
	nodeID string
	name   string
	slug   string
	emoji  string
	desc   string
	at     time.Time
}

type label struct {
	repo        *repo
	dbID        int64
	nodeID      string
	name        string
	color       string
	description string
	createdAt   time.Time
}

type reaction struct {
	content string
	user    *identity
	at      time.Time
}

// threadKind tells the three kinds of conversation apart. They share one
// number space per repository, their labels, reactions, locking and
// comments, so the fake models them with one type; issues and pull
// requests differ from discussions in that their comments (IssueComment)
// are flat: no replies, and a deleted one is gone, with no tombstone.
type threadKind int

const (
	kindDiscussion threadKind = iota
	kindIssue
	kindPullRequest
)

// discussion is a conversation: a discussion, or (kind) an issue or a pull
// request.
type discussion struct {
	kind      threadKind
	repo      *repo
	dbID      int64
	nodeID    string
	number    int
	title     string
	body      string
	author    *identity
	createdAt time.Time
	updatedAt time.Time
	// edited is set by any edit of the body (GitHub's lastEditedAt is set
	// then, even within the second the comment was created in).
	edited   bool
	closed   bool
	closedAt time.Time
	// reason is the state reason: RESOLVED, OUTDATED, DUPLICATE or REOPENED
	// for a discussion; COMPLETED, NOT_PLANNED, DUPLICATE or REOPENED for an
	// issue; a pull request has none.
	reason    string
	merged    bool // a pull request merged (then closed too)
	mergedAt  time.Time
	locked    bool
	deleted   bool
	labels    []*label
	category  *category
	comments  []*comment // top-level, in creation order
	reactions []*reaction
}

type comment struct {
	disc      *discussion
	parent    *comment // nil for a top-level comment
	dbID      int64
	nodeID    string
	author    *identity
	body      string
	createdAt time.Time
	updatedAt time.Time
	// edited is set by any edit of the body: GitHub sets lastEditedAt then,
	// even within the second the comment was created in.
	edited    bool
	deletedAt time.Time // set on a deleted top-level comment kept for its replies
	minimized bool
	minReason string
	replies   []*comment
	reactions []*reaction
}

// typeName is the conversation's GraphQL type.
func (d *discussion) typeName() string {
	return [...]string{"Discussion", "Issue", "PullRequest"}[d.kind]
}

// commentType is the GraphQL type of the conversation's comments.
func (d *discussion) commentType() string {
	if d.kind == kindDiscussion {
		return "DiscussionComment"
	}
	return "IssueComment"
}

// word names the conversation in GitHub's messages, which call a pull
// request's conversation an issue.
func (d *discussion) word() string {
	if d.kind == kindDiscussion {
		return "discussion"
	}
	return "issue"
}

func (d *discussion) url(g *GitHub) string {
	path := [...]string{"discussions", "issues", "pull"}[d.kind]
	return fmt.Sprintf("%s/%s/%s/%d", g.serverURL, d.repo.fullName(), path, d.number)
}

func (c *comment) url(g *GitHub) string {
	anchor := "discussioncomment"
	if c.disc.kind != kindDiscussion {
		anchor = "issuecomment"
	}
	return fmt.Sprintf("%s#%s-%d", c.disc.url(g), anchor, c.dbID)
}

// association is the author association of login with r.
func (r *repo) association(a *identity) string {
	if a == nil {
		return "NONE"
	}
	if v, ok := r.assoc[strings.ToLower(a.login)]; ok {
		return v
	}
	if strings.EqualFold(a.login, r.owner) {
		return "OWNER"
	}
	return "NONE"
}

// role is a person's permission on r, as role_name reports it: the one
// SetPermission gave, or else the one the association stands for in this
// fake (OWNER admin, MEMBER and COLLABORATOR write, anyone else read: the
// fake's repositories are public). A MEMBER may hold read only: set it.
func (r *repo) role(a *identity) string {
	if a == nil {
		return "none"
	}
	if v, ok := r.roles[strings.ToLower(a.login)]; ok {
		return v
	}
	switch r.association(a) {
	case "OWNER":
		return "admin"
	case "MEMBER", "COLLABORATOR":
		return "write"
	}
	return "read"
}

// roleGrants lists, per role, GitHub's user.permissions booleans (pull,
// triage, push, maintain, admin) and the legacy base role of the
// `permission` field (maintain reads as write, triage as read).
var roleGrants = map[string]struct {
	pull, triage, push, maintain, admin bool
	legacy                              string
}{
	"admin":    {true, true, true, true, true, "admin"},
	"maintain": {true, true, true, true, false, "write"},
	"write":    {true, true, true, false, false, "write"},
	"triage":   {true, true, false, false, false, "read"},
	"read":     {true, false, false, false, false, "read"},
	"none":     {false, false, false, false, false, "none"},
}

// canWrite reports whether a may moderate r: a person whose role pushes,
// and a bot, which stands for a GITHUB_TOKEN or app installation with the
// repository's write permissions.
func (r *repo) canWrite(a *identity) bool {
	if a == nil {
		return false
	}
	if a.kind == KindBot {
		return true
	}
	return roleGrants[r.role(a)].push
}

// AddRepo creates a repository with a default branch "main" holding an
// initial commit, a "General" discussion category and the owner's account.
// Adding an existing repository is a no-op.
func (g *GitHub) AddRepo(owner, name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	key := strings.ToLower(owner + "/" + name)
	if _, ok := g.repos[key]; ok {
		return
	}
	now := g.clock()
	r := &repo{
		owner:         owner,
		name:          name,
		ownerAcct:     g.authorFor(owner),
		dbID:          g.newDB() + 500_000_000,
		createdAt:     now,
		nextNumber:    1,
		assoc:         map[string]string{},
		roles:         map[string]string{},
		defaultBranch: "main",
		workflows:     map[string]*workflow{},
	}
	r.nodeID = nodeID("R", uint32(r.dbID))
	cat := &category{dbID: g.newDB(), name: "General", slug: "general", emoji: ":speech_balloon:",
		desc: "Chat about anything and everything here", at: now}
	cat.nodeID = nodeID("DIC", uint32(r.dbID), uint32(cat.dbID))
	r.category = cat
	r.categories = []*category{cat}
	g.nodes[cat.nodeID] = cat
	r.git = newGitStore()
	r.git.initBranch("main", now, g.authorFor(owner))
	g.repos[key] = r
	g.nodes[r.nodeID] = r
}

// repo finds a repository by "owner/name". Callers hold g.mu.
func (g *GitHub) repo(full string) (*repo, error) {
	r, ok := g.repos[strings.ToLower(full)]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownRepo, full)
	}
	return r, nil
}

// SetAssociation sets login's author association with the repository
// (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...). OWNER, MEMBER and
// COLLABORATOR give write access (moderation, commenting on locked
// discussions).
func (g *GitHub) SetAssociation(repoName, login, assoc string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return err
	}
	switch assoc {
	case "OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIMER", "FIRST_TIME_CONTRIBUTOR", "MANNEQUIN", "NONE":
	default:
		return fmt.Errorf("%w: association %q", ErrInvalid, assoc)
	}
	g.authorFor(login)
	r.assoc[strings.ToLower(strings.TrimSuffix(login, "[bot]"))] = assoc
	return nil
}

// SetPermission sets login's permission on the repository, by role name:
// admin, maintain, write, triage, read or none. It is what the REST
// collaborator-permission endpoint reports and what moderation needs
// (write and above); without it the association stands for it (see role).
func (g *GitHub) SetPermission(repoName, login, role string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return err
	}
	if _, ok := roleGrants[role]; !ok {
		return fmt.Errorf("%w: permission %q (admin, maintain, write, triage, read, none)", ErrInvalid, role)
	}
	g.authorFor(login)
	r.roles[strings.ToLower(strings.TrimSuffix(login, "[bot]"))] = role
	return nil
}

// AddCategory creates a discussion category. Its slug is GitHub's: the name
// in lower case, runs of anything but letters and digits as one "-".
// Names compare case-insensitively; an existing one is an error.
func (g *GitHub) AddCategory(repoName, name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return err
	}
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("%w: empty category name", ErrInvalid)
	}
	for _, c := range r.categories {
		if strings.EqualFold(c.name, name) {
			return fmt.Errorf("%w: category %q exists", ErrInvalid, name)
		}
	}
	cat := &category{dbID: g.newDB(), name: name, slug: categorySlug(name), at: g.clock()}
	cat.nodeID = nodeID("DIC", uint32(r.dbID), uint32(cat.dbID))
	r.categories = append(r.categories, cat)
	g.nodes[cat.nodeID] = cat
	return nil
}

func categorySlug(name string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(name) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// MoveDiscussion puts a discussion in another category, named by its name
// or slug (case-insensitive).
func (g *GitHub) MoveDiscussion(discussionID, categoryName string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.threadByID(discussionID, kindDiscussion)
	if err != nil {
		return err
	}
	for _, c := range d.repo.categories {
		if strings.EqualFold(c.name, categoryName) || strings.EqualFold(c.slug, categoryName) {
			d.category = c
			d.updatedAt = g.clock()
			return nil
		}
	}
	return fmt.Errorf("%w: category %q in %s", ErrInvalid, categoryName, d.repo.fullName())
}

// AddLabel creates a label in the repository and returns its node id. An
// existing label (names compare case-insensitively) is returned as is.
func (g *GitHub) AddLabel(repoName, name string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return "", err
	}
	if name == "" {
		return "", fmt.Errorf("%w: empty label name", ErrInvalid)
	}
	if l := r.label(name); l != nil {
		return l.nodeID, nil
	}
	l := &label{repo: r, dbID: g.newDB() + 1_000_000_000, name: name, color: "ededed", createdAt: g.clock()}
	l.nodeID = nodeID("LA", uint32(r.dbID), uint32(l.dbID))
	r.labels = append(r.labels, l)
	g.nodes[l.nodeID] = l
	return l.nodeID, nil
}

func (r *repo) label(name string) *label {
	for _, l := range r.labels {
		if strings.EqualFold(l.name, name) {
			return l
		}
	}
	return nil
}

// Discussion is a snapshot of a discussion, an issue or a pull request, for
// tests.
type Discussion struct {
	// Kind is the GraphQL type: Discussion, Issue or PullRequest.
	Kind       string
	ID         string
	DatabaseID int64
	Number     int
	Repo       string
	Title      string
	Body       string
	Author     string // GraphQL login
	CreatedAt  time.Time
	UpdatedAt  time.Time
	Closed     bool
	// StateReason is GraphQL's stateReason (empty when there is none).
	StateReason string
	Merged      bool // a merged pull request
	Locked      bool
	Labels      []string
	URL         string
	// Reactions maps a reaction content (EYES, THUMBS_UP, ...) to the logins
	// that left it, in order.
	Reactions map[string][]string
}

// Comment is a snapshot of a discussion comment or reply, or of an issue
// or pull request comment, for tests.
type Comment struct {
	ID              string
	DatabaseID      int64
	DiscussionID    string // the node id of its discussion, issue or pull request
	ParentID        string // "" for a top-level comment
	Author          string // GraphQL login
	Body            string
	CreatedAt       time.Time
	UpdatedAt       time.Time
	DeletedAt       time.Time // non-zero for a deleted comment kept for its replies
	Minimized       bool
	MinimizedReason string
	URL             string
	Reactions       map[string][]string
}

func (g *GitHub) snapDiscussion(d *discussion) Discussion {
	s := Discussion{
		Kind: d.typeName(), StateReason: d.reason, Merged: d.merged, ID: d.nodeID, DatabaseID: d.dbID, Number: d.number, Repo: d.repo.fullName(),
		Title: d.title, Body: d.body, Author: loginOf(d.author), CreatedAt: d.createdAt,
		UpdatedAt: d.updatedAt, Closed: d.closed, Locked: d.locked, URL: d.url(g),
		Reactions: snapReactions(d.reactions),
	}
	for _, l := range d.labels {
		s.Labels = append(s.Labels, l.name)
	}
	return s
}

func (g *GitHub) snapComment(c *comment) Comment {
	s := Comment{
		ID: c.nodeID, DatabaseID: c.dbID, DiscussionID: c.disc.nodeID, Author: loginOf(c.author),
		Body: c.body, CreatedAt: c.createdAt, UpdatedAt: c.updatedAt, DeletedAt: c.deletedAt,
		Minimized: c.minimized, MinimizedReason: c.minReason, URL: c.url(g),
		Reactions: snapReactions(c.reactions),
	}
	if c.parent != nil {
		s.ParentID = c.parent.nodeID
	}
	return s
}

func snapReactions(rs []*reaction) map[string][]string {
	m := map[string][]string{}
	for _, r := range rs {
		m[r.content] = append(m[r.content], r.user.graphQLLogin())
	}
	return m
}

func loginOf(a *identity) string {
	if a == nil {
		return ""
	}
	return a.graphQLLogin()
}

// CreateDiscussion opens a discussion in the General category, numbered from
// the repository's shared issue/discussion sequence.
func (g *GitHub) CreateDiscussion(repoName, author, title, body string) (Discussion, error) {
	return g.open(kindDiscussion, repoName, author, title, body)
}

// open opens a conversation of kind, numbered from the repository's
// shared sequence.
func (g *GitHub) open(kind threadKind, repoName, author, title, body string) (Discussion, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return Discussion{}, err
	}
	if strings.TrimSpace(title) == "" {
		return Discussion{}, fmt.Errorf("%w: empty title", ErrInvalid)
	}
	now := g.clock()
	d := &discussion{kind: kind, repo: r, dbID: g.newDB(), number: r.nextNumber, title: title, body: body,
		author: g.authorFor(author), createdAt: now, updatedAt: now}
	r.nextNumber++
	switch kind {
	case kindDiscussion:
		d.category = r.category
		d.nodeID = nodeID("D", uint32(r.dbID), uint32(d.dbID))
		r.discussions = append(r.discussions, d)
	case kindIssue:
		d.nodeID = nodeID("I", uint32(r.dbID), uint32(d.dbID))
		r.issues = append(r.issues, d)
	case kindPullRequest:
		d.nodeID = nodeID("PR", uint32(r.dbID), uint32(d.dbID))
		r.issues = append(r.issues, d)
	}
	g.nodes[d.nodeID] = d
	return g.snapDiscussion(d), nil
}

// SkipNumbers advances the repository's number sequence by n, as issues and
// pull requests opened in between would.
func (g *GitHub) SkipNumbers(repoName string, n int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return err
	}
	r.nextNumber += n
	return nil
}

// discussionByID finds a live discussion, issue or pull request by node id.
// Callers hold g.mu.
func (g *GitHub) discussionByID(id string) (*discussion, error) {
	d, ok := g.nodes[id].(*discussion)
	if !ok || d.deleted {
		return nil, fmt.Errorf("%w: %q", ErrUnknownDiscussion, id)
	}
	return d, nil
}

// threadByID is discussionByID for the kinds given: a conversation of
// another kind is an error that says what it is.
func (g *GitHub) threadByID(id string, kinds ...threadKind) (*discussion, error) {
	d, err := g.discussionByID(id)
	if err == nil && !slices.Contains(kinds, d.kind) {
		err = fmt.Errorf("%w: %q is a %s", ErrInvalid, id, d.typeName())
	}
	return d, err
}

func (g *GitHub) commentByID(id string) (*comment, error) {
	c, ok := g.nodes[id].(*comment)
	if !ok || c.disc.deleted {
		return nil, fmt.Errorf("%w: %q", ErrUnknownComment, id)
	}
	return c, nil
}

// Discussion returns a snapshot of the discussion with that number.
func (g *GitHub) Discussion(repoName string, number int) (Discussion, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return Discussion{}, err
	}
	d := r.discussion(number)
	if d == nil {
		return Discussion{}, fmt.Errorf("%w: #%d in %s", ErrUnknownDiscussion, number, repoName)
	}
	return g.snapDiscussion(d), nil
}

func (r *repo) discussion(number int) *discussion {
	for _, d := range r.discussions {
		if d.number == number && !d.deleted {
			return d
		}
	}
	return nil
}

// Comments returns every visible comment and reply of the discussion
// (deleted ones kept for their replies included), ordered by creation.
func (g *GitHub) Comments(discussionID string) ([]Comment, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.discussionByID(discussionID)
	if err != nil {
		return nil, err
	}
	var all []*comment
	for _, c := range d.comments {
		all = append(all, c)
		all = append(all, c.replies...)
	}
	slices.SortStableFunc(all, func(a, b *comment) int { return compareInt(a.dbID, b.dbID) })
	out := make([]Comment, 0, len(all))
	for _, c := range all {
		out = append(out, g.snapComment(c))
	}
	return out, nil
}

// Comment posts a top-level comment as author (no permission checks: the Go
// API is the test's hand, not a client).
func (g *GitHub) Comment(discussionID, author, body string) (Comment, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.discussionByID(discussionID)
	if err != nil {
		return Comment{}, err
	}
	c := g.addComment(d, nil, g.authorFor(author), body)
	return g.snapComment(c), nil
}

// Reply posts a reply under a top-level comment. Like GitHub, a reply to a
// reply is refused.
func (g *GitHub) Reply(parentCommentID, author, body string) (Comment, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, err := g.commentByID(parentCommentID)
	if err != nil {
		return Comment{}, err
	}
	if p.parent != nil {
		return Comment{}, fmt.Errorf("%w: %s is a reply; GitHub threads only under top-level comments", ErrInvalid, parentCommentID)
	}
	if p.disc.kind != kindDiscussion {
		return Comment{}, fmt.Errorf("%w: %s is an issue comment; issue and pull request comments have no replies", ErrInvalid, parentCommentID)
	}
	c := g.addComment(p.disc, p, g.authorFor(author), body)
	return g.snapComment(c), nil
}

// Repost is another workflow of the repository that holds token (the
// repository's GITHUB_TOKEN, say) reposting comment commentID's body
// verbatim as a new top-level comment of the same discussion, as
// cross-post, translation and summary bots do. The repost is the token's
// identity's comment: GitHub answers viewerDidAuthor true for it to every
// run that holds the same token, recess's own included.
func (g *GitHub) Repost(token, commentID string) (Comment, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	who, ok := g.tokens[token]
	if !ok {
		return Comment{}, fmt.Errorf("%w: no account holds token %q", ErrUnknownLogin, token)
	}
	src, err := g.commentByID(commentID)
	if err != nil {
		return Comment{}, err
	}
	c := g.addComment(src.disc, nil, who, src.body)
	return g.snapComment(c), nil
}

// addComment appends a comment; callers have validated everything.
func (g *GitHub) addComment(d *discussion, parent *comment, author *identity, body string) *comment {
	now := g.clock()
	c := &comment{disc: d, parent: parent, dbID: g.newDB() + 10_000_000, author: author, body: body,
		createdAt: now, updatedAt: now}
	prefix := "DC"
	if d.kind != kindDiscussion {
		prefix = "IC"
	}
	c.nodeID = nodeID(prefix, uint32(d.repo.dbID), uint32(c.dbID))
	if parent != nil {
		parent.replies = append(parent.replies, c)
	} else {
		d.comments = append(d.comments, c)
	}
	d.updatedAt = now
	g.nodes[c.nodeID] = c
	return c
}

// EditComment replaces a comment's body.
func (g *GitHub) EditComment(commentID, body string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, err := g.commentByID(commentID)
	if err != nil {
		return err
	}
	c.body = body
	c.updatedAt, c.edited = g.clock(), true
	return nil
}

// DeleteComment deletes a comment the way GitHub does: a top-level comment
// that has replies stays as a tombstone (deletedAt set, body emptied) so
// its thread survives; any other comment disappears from every connection
// and from node(id:).
func (g *GitHub) DeleteComment(commentID string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, err := g.commentByID(commentID)
	if err != nil {
		return err
	}
	g.deleteComment(c)
	return nil
}

func (g *GitHub) deleteComment(c *comment) {
	now := g.clock()
	if c.deletedAt.IsZero() {
		cp := *c
		g.graveyard[c.nodeID] = &cp
	}
	if c.parent == nil && len(c.replies) > 0 {
		c.deletedAt = now
		c.body = ""
		c.updatedAt = now
		return
	}
	delete(g.nodes, c.nodeID)
	if c.parent != nil {
		p := c.parent
		p.replies = slices.DeleteFunc(p.replies, func(x *comment) bool { return x == c })
		// A tombstone whose last reply went has nothing left to hold up.
		if !p.deletedAt.IsZero() && len(p.replies) == 0 {
			delete(g.nodes, p.nodeID)
			p.disc.comments = slices.DeleteFunc(p.disc.comments, func(x *comment) bool { return x == p })
		}
		return
	}
	c.disc.comments = slices.DeleteFunc(c.disc.comments, func(x *comment) bool { return x == c })
}

// MinimizeComment hides a comment with a classifier (OUTDATED, SPAM, ...).
func (g *GitHub) MinimizeComment(commentID, classifier string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, err := g.commentByID(commentID)
	if err != nil {
		return err
	}
	reason, ok := minimizedReasons[classifier]
	if !ok {
		return fmt.Errorf("%w: classifier %q", ErrInvalid, classifier)
	}
	c.minimized, c.minReason = true, reason
	return nil
}

// minimizedReasons maps the mutation's classifier to the lower-case form the
// minimizedReason field reports.
var minimizedReasons = map[string]string{
	"ABUSE": "abuse", "DUPLICATE": "duplicate", "OFF_TOPIC": "off-topic",
	"OUTDATED": "outdated", "RESOLVED": "resolved", "SPAM": "spam",
}

// CloseDiscussion closes a discussion (reason RESOLVED, OUTDATED or
// DUPLICATE; empty means RESOLVED).
func (g *GitHub) CloseDiscussion(discussionID, reason string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.threadByID(discussionID, kindDiscussion)
	if err != nil {
		return err
	}
	if reason == "" {
		reason = "RESOLVED"
	}
	g.closeThread(d, reason)
	return nil
}

// ReopenDiscussion reopens a closed discussion.
func (g *GitHub) ReopenDiscussion(discussionID string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.threadByID(discussionID, kindDiscussion)
	if err != nil {
		return err
	}
	d.closed, d.closedAt, d.reason, d.updatedAt = false, time.Time{}, "REOPENED", g.clock()
	return nil
}

// LockDiscussion locks (or unlocks) a discussion: only accounts with write
// access can comment on a locked one.
func (g *GitHub) LockDiscussion(discussionID string, locked bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.discussionByID(discussionID)
	if err != nil {
		return err
	}
	d.locked = locked
	d.updatedAt = g.clock()
	return nil
}

// DeleteDiscussion deletes a discussion: it disappears from every query.
func (g *GitHub) DeleteDiscussion(discussionID string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.discussionByID(discussionID)
	if err != nil {
		return err
	}
	d.deleted = true
	delete(g.nodes, d.nodeID)
	return nil
}

// EditDiscussion replaces a discussion's title and body.
func (g *GitHub) EditDiscussion(discussionID, title, body string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.discussionByID(discussionID)
	if err != nil {
		return err
	}
	d.title, d.body, d.updatedAt = title, body, g.clock()
	return nil
}

// LabelDiscussion adds an existing label to a discussion.
func (g *GitHub) LabelDiscussion(discussionID, name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, l, err := g.discussionLabel(discussionID, name)
	if err != nil {
		return err
	}
	g.addLabels(d, []*label{l})
	return nil
}

// UnlabelDiscussion removes a label from a discussion, as a person does by
// hand.
func (g *GitHub) UnlabelDiscussion(discussionID, name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, l, err := g.discussionLabel(discussionID, name)
	if err != nil {
		return err
	}
	g.removeLabels(d, []*label{l})
	return nil
}

// discussionLabel finds a discussion and one of its repository's labels.
func (g *GitHub) discussionLabel(discussionID, name string) (*discussion, *label, error) {
	d, err := g.discussionByID(discussionID)
	if err != nil {
		return nil, nil, err
	}
	l := d.repo.label(name)
	if l == nil {
		return nil, nil, fmt.Errorf("%w: no label %q", ErrInvalid, name)
	}
	return d, l, nil
}

// RenameLabel renames a repository label (GitHub keeps its id), as an owner
// who spells it their own way does.
func (g *GitHub) RenameLabel(repoName, from, to string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return err
	}
	l := r.label(from)
	if l == nil {
		return fmt.Errorf("%w: no label %q", ErrInvalid, from)
	}
	l.name = to
	return nil
}

func (g *GitHub) addLabels(d *discussion, ls []*label) {
	for _, l := range ls {
		if !slices.Contains(d.labels, l) {
			d.labels = append(d.labels, l)
			d.updatedAt = g.clock()
		}
	}
}

func (g *GitHub) removeLabels(d *discussion, ls []*label) {
	for _, l := range ls {
		if slices.Contains(d.labels, l) {
			d.labels = slices.DeleteFunc(d.labels, func(x *label) bool { return x == l })
			d.updatedAt = g.clock()
		}
	}
}

// React adds login's reaction to a discussion or comment; it is idempotent.
func (g *GitHub) React(subjectID, login, content string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	rs, err := g.reactions(subjectID)
	if err != nil {
		return err
	}
	if !slices.Contains(reactionContents, content) {
		return fmt.Errorf("%w: reaction %q", ErrInvalid, content)
	}
	*rs = addReaction(*rs, content, g.authorFor(login), g.clock())
	return nil
}

// reactionContents lists GraphQL's ReactionContent values in GitHub's
// display order.
var reactionContents = []string{"THUMBS_UP", "THUMBS_DOWN", "LAUGH", "HOORAY", "CONFUSED", "HEART", "ROCKET", "EYES"}

func (g *GitHub) reactions(subjectID string) (*[]*reaction, error) {
	switch s := g.nodes[subjectID].(type) {
	case *discussion:
		if !s.deleted {
			return &s.reactions, nil
		}
	case *comment:
		if !s.disc.deleted {
			return &s.reactions, nil
		}
	}
	return nil, fmt.Errorf("%w: no reactable %q", ErrInvalid, subjectID)
}

func addReaction(rs []*reaction, content string, who *identity, at time.Time) []*reaction {
	for _, r := range rs {
		if r.content == content && r.user == who {
			return rs
		}
	}
	return append(rs, &reaction{content: content, user: who, at: at})
}

func removeReaction(rs []*reaction, content string, who *identity) []*reaction {
	return slices.DeleteFunc(rs, func(r *reaction) bool { return r.content == content && r.user == who })
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
