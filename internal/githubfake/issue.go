package githubfake

import (
	"fmt"
	"slices"
	"time"
)

// The Go API of issues and pull requests. What they share with
// discussions goes through the discussions' API, which takes any
// conversation's node id: Comment, Comments, EditComment, DeleteComment,
// MinimizeComment, React, LabelDiscussion, UnlabelDiscussion,
// EditDiscussion. A comment's author may be a person ("alice"), an app
// ("renovate[bot]": a Bot named "renovate" in GraphQL) or the account of a
// token (recess's own identity, "github-actions").

// CreateIssue opens an issue, numbered from the repository's sequence that
// discussions and pull requests share.
func (g *GitHub) CreateIssue(repoName, author, title, body string) (Discussion, error) {
	return g.open(kindIssue, repoName, author, title, body)
}

// CreatePullRequest opens a pull request (its conversation: the fake has
// no diff, commits or reviews), numbered like an issue.
func (g *GitHub) CreatePullRequest(repoName, author, title, body string) (Discussion, error) {
	return g.open(kindPullRequest, repoName, author, title, body)
}

// Issue returns a snapshot of the issue or pull request with that number.
func (g *GitHub) Issue(repoName string, number int) (Discussion, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return Discussion{}, err
	}
	d := r.issue(number, kindIssue, kindPullRequest)
	if d == nil {
		return Discussion{}, fmt.Errorf("%w: no issue or pull request #%d in %s", ErrUnknownDiscussion, number, repoName)
	}
	return g.snapDiscussion(d), nil
}

// issue finds a live issue or pull request of one of kinds by number.
func (r *repo) issue(number int, kinds ...threadKind) *discussion {
	for _, d := range r.issues {
		if d.number == number && !d.deleted && slices.Contains(kinds, d.kind) {
			return d
		}
	}
	return nil
}

// CloseIssue closes an issue with a reason (COMPLETED, NOT_PLANNED or
// DUPLICATE; empty means COMPLETED), or a pull request without merging it
// (reason empty: pull requests have none).
func (g *GitHub) CloseIssue(id, reason string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.threadByID(id, kindIssue, kindPullRequest)
	if err != nil {
		return err
	}
	switch {
	case d.kind == kindPullRequest && reason != "":
		return fmt.Errorf("%w: a pull request closes without a reason, got %q", ErrInvalid, reason)
	case d.kind == kindIssue && reason == "":
		reason = "COMPLETED"
	case d.kind == kindIssue && reason != "COMPLETED" && reason != "NOT_PLANNED" && reason != "DUPLICATE":
		return fmt.Errorf("%w: issue state reason %q (COMPLETED, NOT_PLANNED, DUPLICATE)", ErrInvalid, reason)
	}
	g.closeThread(d, reason)
	return nil
}

func (g *GitHub) closeThread(d *discussion, reason string) {
	now := g.clock()
	d.closed, d.closedAt, d.reason, d.updatedAt = true, now, reason, now
}

// MergePullRequest merges an open pull request, which closes it.
func (g *GitHub) MergePullRequest(id string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.threadByID(id, kindPullRequest)
	if err != nil {
		return err
	}
	if d.closed {
		return fmt.Errorf("%w: pull request #%d is closed", ErrInvalid, d.number)
	}
	g.closeThread(d, "")
	d.merged, d.mergedAt = true, d.closedAt
	return nil
}

// ReopenIssue reopens a closed issue (state reason REOPENED) or a closed
// pull request that was not merged.
func (g *GitHub) ReopenIssue(id string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.threadByID(id, kindIssue, kindPullRequest)
	if err != nil {
		return err
	}
	if d.merged {
		return fmt.Errorf("%w: pull request #%d is merged", ErrInvalid, d.number)
	}
	d.closed, d.closedAt, d.reason, d.updatedAt = false, time.Time{}, "", g.clock()
	if d.kind == kindIssue {
		d.reason = "REOPENED"
	}
	return nil
}

// LockIssue locks (or unlocks) an issue or a pull request's conversation:
// only people with write access may comment then; apps and the
// GITHUB_TOKEN are refused.
func (g *GitHub) LockIssue(id string, locked bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, err := g.threadByID(id, kindIssue, kindPullRequest)
	if err != nil {
		return err
	}
	d.locked, d.updatedAt = locked, g.clock()
	return nil
}
