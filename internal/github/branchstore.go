package github

import (
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	gogithub "github.com/google/go-github/v92/github"
	"github.com/shurcooL/githubv4"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

var (
	_ resume.Store       = (*BranchStore)(nil)
	_ resume.ThreadStore = (*BranchStore)(nil)
)

// DefaultStateBranch is the branch the branch store writes when the
// state-branch input is empty.
const DefaultStateBranch = "recess-state"

// indexShards is how many files the index of due moments is split into. A
// sweep reads all of them in one request; writes to different discussions
// rarely touch the same shard, which keeps the files small and their
// history readable.
const indexShards = 16

// branchSaveAttempts bounds how often one Save commits again after the
// branch head moved under it. Every failed attempt means another writer's
// commit landed, so this is only reached under sustained contention.
const branchSaveAttempts = 32

// ErrNeedsContentsWrite means GitHub refused to let the token read or write
// the state branch ("Resource not accessible by integration"): the workflow
// must grant the permission.
var ErrNeedsContentsWrite = errors.New("github: the branch store needs `contents: write` in the workflow's permissions")

// branchReadme is the only file of the branch's first commit, for people who
// come across the branch.
const branchReadme = `# recess state

This branch is written by recess, the GitHub Action that lets an agent
answering Discussions pause until people reply. It is not part of the
project's code and shares no history with it.

- discussions/<number>.json: what recess keeps for one discussion.
- index/<k>.json (k = number mod 16): when each waiting discussion is next
  due, so a scheduled sweep reads 16 small files instead of every discussion.

Do not edit, merge or rebase it by hand: recess writes it with
compare-and-swap commits, and a file it cannot read stops recess for that
discussion until the file is fixed. Deleting the branch forgets every
waiting discussion.
`

// BranchStore keeps each discussion's record as a JSON file on a dedicated
// orphan branch (state-store: branch), with an index of due moments beside
// the records. Every write is one createCommitOnBranch with expectedHeadOid:
// a real compare-and-swap on the branch head. When the head moved because of
// writes to other discussions, Save re-reads its own file and, if that is
// unchanged, commits again on the new head; only a change to the record it
// read is a conflict.
//
// The store remembers, for each discussion, what its last read or save saw
// of the branch (the head, the record file's blob, the index shard), so
// that a Save right after a Load or after its own previous Save is a single
// request. That memory is only a guess about the base to commit on:
// expectedHeadOid makes a wrong guess fail, never succeed.
//
// The token needs contents: write (ErrNeedsContentsWrite otherwise).
type BranchStore struct {
	c      *Client
	branch string
	// err is set when the branch name is unusable; every call returns it.
	err error

	// saveMu serialises saves within the process: they share the branch
	// head, so concurrent ones would only make each other commit again.
	saveMu sync.Mutex

	mu sync.Mutex
	// seen is, by discussion, the base its next save commits on.
	seen map[int]branchSeen
}

// branchSeen is what a read or a save saw of one discussion: the head ("" :
// no branch), the record file's blob ("" : no file) and the index shard.
type branchSeen struct {
	head, file string
	shard      branchIndex
}

// remember records what a read or a save saw of discussion n; forget drops
// it, so that the next save reads the branch.
func (s *BranchStore) remember(n int, seen branchSeen) {
	s.mu.Lock()
	s.seen[n] = seen
	s.mu.Unlock()
}

func (s *BranchStore) forget(n int) {
	s.mu.Lock()
	delete(s.seen, n)
	s.mu.Unlock()
}

// NewBranchStore returns the branch store over c, writing branch (empty:
// DefaultStateBranch; a "refs/heads/" prefix is accepted). It sends no
// request: the branch is created by the first Save that needs it. An
// unusable branch name makes every call fail with a *wait.FieldError.
func NewBranchStore(c *Client, branch string) *BranchStore {
	branch = branchName(branch)
	return &BranchStore{c: c, branch: branch, err: CheckBranchName(branch), seen: map[int]branchSeen{}}
}

// branchName is the branch a state-branch setting names.
func branchName(branch string) string {
	return cmp.Or(strings.TrimPrefix(branch, "refs/heads/"), DefaultStateBranch)
}

// CheckBranchName refuses the state branches git refuses (git
// check-ref-format) and names that would break an object expression
// ("branch:path"), as NewBranchStore's calls would; empty and "refs/heads/"
// are read as NewBranchStore reads them.
func CheckBranchName(name string) error {
	name = branchName(name)
	reason := ""
	switch {
	case name == "@", strings.HasPrefix(name, "-"):
		reason = "is not a branch name"
	case strings.HasPrefix(name, "/"), strings.HasSuffix(name, "/"), strings.Contains(name, "//"):
		reason = "has an empty path component"
	case strings.HasSuffix(name, "."), strings.HasSuffix(name, ".lock"):
		reason = `ends with "." or ".lock"`
	case strings.Contains(name, ".."), strings.Contains(name, "@{"), strings.Contains(name, "/."), strings.HasPrefix(name, "."):
		reason = `contains "..", "@{" or a component starting with "."`
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			reason = fmt.Sprintf("contains %q", r)
		}
	}
	if reason == "" {
		return nil
	}
	return &wait.FieldError{Field: "StateBranch", Reason: fmt.Sprintf("%q %s", name, reason)}
}

// fail is every error the store returns: what it was doing (a discussion
// number, or "pending"), then why, with ErrNeedsContentsWrite added when
// GitHub refused the token access.
func (s *BranchStore) fail(what any, err error) error {
	if n, ok := what.(int); ok {
		what = fmt.Sprintf("discussion %d", n)
	}
	if refusedAccess(err) {
		return fmt.Errorf("github: branch store: %v: %w: %w", what, ErrNeedsContentsWrite, err)
	}
	return fmt.Errorf("github: branch store: %v: %w", what, err)
}

// fileErr says which file on the state branch cannot be used and why: a
// *wait.FieldError naming it as BRANCH:PATH, wrapped with state.ErrCorrupt.
// The file is left as it is, never overwritten, until someone repairs it.
func (s *BranchStore) fileErr(path, reason string, cause error) error {
	fe := &wait.FieldError{Field: s.branch + ":" + path, Reason: reason + " (left as it is)", Err: cause}
	if cause != nil {
		fe.Reason += ": " + cause.Error()
	}
	if errors.Is(cause, state.ErrCorrupt) {
		return fe
	}
	return fmt.Errorf("%w: %w", state.ErrCorrupt, fe)
}

// branchPaths are the record file and index shard of a discussion.
func branchPaths(n int) (file, shard string, k int) {
	k = n % indexShards
	return "discussions/" + strconv.Itoa(n) + ".json", shardPath(k), k
}

func shardPath(k int) string { return "index/" + strconv.Itoa(k) + ".json" }

// gitObjectNode is a file as the decoders read it: its blob oid and text. Text
// is null for a binary blob and cut short (isTruncated) for a large one.
type gitObjectNode struct {
	Typename string `graphql:"__typename"`
	Oid      string
	Blob     struct {
		Text        *string
		IsTruncated bool
	} `graphql:"... on Blob"`
}

// treeFile is a file of a commit (Commit.file(path:)); its Object is nil
// when the file is absent (GitHub answers null, which leaves it zero).
type treeFile struct{ Object *gitObjectNode }

// text is the file's text, or why it cannot be read (a fileErr).
func (s *BranchStore) text(path string, f *gitObjectNode) (string, error) {
	switch {
	case f.Typename != "" && f.Typename != "Blob":
		return "", s.fileErr(path, "is a "+f.Typename+", not a file", nil)
	case f.Blob.Text == nil:
		return "", s.fileErr(path, "is binary", nil)
	case f.Blob.IsTruncated:
		return "", s.fileErr(path, "is too large to read whole (GitHub cuts it short)", nil)
	}
	return *f.Blob.Text, nil
}

// The head and the files are read from one commit: the branch's target and,
// inside it, Commit.file(path:). A query's separate fields are not one
// snapshot, but a commit's tree never changes, so the files read are exactly
// those of the head oid read beside them, and a commit made on that head
// with expectedHeadOid can never land on a version of a file the reader did
// not see.

// branchHead is the branch's head commit with the files C reads in it
// (Commit.file(path:)); all empty when the branch does not exist (GitHub
// answers null for the ref).
type branchHead[C any] struct {
	Target struct {
		Oid    string
		Commit C `graphql:"... on Commit"`
	}
}

// branchReadQuery reads the head, one record file and its index shard, and
// for a Load the thread as Thread reads it, so that the engine's next
// Thread call costs nothing.
type branchReadQuery = repoQuery[struct {
	Ref branchHead[struct {
		File  treeFile `graphql:"file: file(path: $file)"`
		Shard treeFile `graphql:"shard: file(path: $shard)"`
	}] `graphql:"ref(qualifiedName: $ref)"`
	branchThread
}]

// branchThread is the first page of the thread a Load reads beside its
// files (and readAny alone): of the kind it names ($load a discussion,
// $issue an issue, $pull a pull request; of unknown kind: Client.anyVars),
// none for a save's read.
type branchThread struct {
	Discussion  *discussionNode `graphql:"discussion(number: $number) @include(if: $load)"`
	Issue       *flatNode       `graphql:"issue(number: $number) @include(if: $issue)"`
	PullRequest *flatNode       `graphql:"pullRequest(number: $number) @include(if: $pull)"`
	Flat        *anyFlat        `graphql:"issueOrPullRequest(number: $number) @include(if: $any)"`
}

// thread completes the read of thread n, which t holds the first page of
// (nil when it holds none).
func (t *branchThread) thread(ctx context.Context, c *Client, n int) (*resume.Thread, []storedComment, error) {
	switch {
	case t.Discussion != nil:
		return c.readDiscussion(ctx, n, t.Discussion)
	case t.Issue != nil:
		return c.readFlat(ctx, resume.ThreadRef{Kind: state.KindIssue, Number: n}, t.Issue)
	case t.PullRequest != nil:
		return c.readFlat(ctx, resume.ThreadRef{Kind: state.KindPullRequest, Number: n}, t.PullRequest)
	case t.Flat != nil:
		return t.Flat.read(ctx, c, n)
	}
	return nil, nil, nil
}

// branchPendingQuery reads every index shard of the head at once.
type branchPendingQuery = repoQuery[struct {
	Ref branchHead[struct {
		S0  treeFile `graphql:"s0: file(path: $s0)"`
		S1  treeFile `graphql:"s1: file(path: $s1)"`
		S2  treeFile `graphql:"s2: file(path: $s2)"`
		S3  treeFile `graphql:"s3: file(path: $s3)"`
		S4  treeFile `graphql:"s4: file(path: $s4)"`
		S5  treeFile `graphql:"s5: file(path: $s5)"`
		S6  treeFile `graphql:"s6: file(path: $s6)"`
		S7  treeFile `graphql:"s7: file(path: $s7)"`
		S8  treeFile `graphql:"s8: file(path: $s8)"`
		S9  treeFile `graphql:"s9: file(path: $s9)"`
		S10 treeFile `graphql:"s10: file(path: $s10)"`
		S11 treeFile `graphql:"s11: file(path: $s11)"`
		S12 treeFile `graphql:"s12: file(path: $s12)"`
		S13 treeFile `graphql:"s13: file(path: $s13)"`
		S14 treeFile `graphql:"s14: file(path: $s14)"`
		S15 treeFile `graphql:"s15: file(path: $s15)"`
	}] `graphql:"ref(qualifiedName: $ref)"`
}]

func (s *BranchStore) vars() map[string]any {
	vars := s.c.repoVars()
	vars["ref"] = githubv4.String("refs/heads/" + s.branch)
	return vars
}

// branchRead is one look at a discussion's files: what a save builds on,
// the record file itself (nil when there is none), and why the shard is
// unusable, if it is.
type branchRead struct {
	branchSeen
	blob     *gitObjectNode
	shardErr error
}

// read reads the head, a discussion's record file and its shard, and the
// thread of kind load ("": none; resume.AnyKind: of any kind served): one
// request. What it saw is remembered.
func (s *BranchStore) read(ctx context.Context, n int, load state.Kind) (*branchRead, *branchThread, error) {
	file, shard, k := branchPaths(n)
	vars := s.vars()
	vars["file"], vars["shard"] = githubv4.String(file), githubv4.String(shard)
	vars["number"], vars["load"], vars["any"] = githubv4.Int(n), githubv4.Boolean(load == state.KindDiscussion), githubv4.Boolean(false)
	vars["issue"], vars["pull"] = githubv4.Boolean(load == state.KindIssue), githubv4.Boolean(load == state.KindPullRequest)
	if load == resume.AnyKind {
		ctx = s.c.anyVars(ctx, vars, n)
	}
	var q branchReadQuery
	if err := s.c.query(ctx, &q, vars); err != nil {
		return nil, nil, err
	}
	head := q.Repository.Ref.Target
	r := &branchRead{blob: head.Commit.File.Object}
	r.head = head.Oid
	if r.blob != nil {
		r.file = r.blob.Oid
	}
	r.shard, r.shardErr = s.parseIndex(shard, k, head.Commit.Shard.Object)
	if r.shardErr == nil {
		s.remember(n, r.branchSeen)
	}
	return r, &q.Repository.branchThread, nil
}

// Load is LoadWith without the discussion.
func (s *BranchStore) Load(ctx context.Context, discussion int) (*state.Record, error) {
	rec, _, err := s.LoadWith(ctx, resume.ThreadRef{Kind: state.KindDiscussion, Number: discussion})
	return rec, err
}

// LoadWith is resume.ThreadStore: one request reads the branch head, the
// record file, its index shard and the thread (a discussion, an issue or a
// pull request) with its first comments, and returns the record with the
// thread. The record is state.ErrNotFound when the branch or the file does
// not exist, an error wrapping state.ErrCorrupt (naming the file, which is
// left as it is) when the file cannot be decoded. When the thread is
// deleted, or its read cannot be completed, the thread is nil and the error
// is the record's alone: the engine reads the thread itself then (a deleted
// one still has its recesses expired). A deleted thread costs a second
// request for the record, unless its number was of unknown kind
// (resume.AnyKind).
//
// GitHub docs: https://docs.github.com/graphql/reference/objects#repository
func (s *BranchStore) LoadWith(ctx context.Context, ref resume.ThreadRef) (*state.Record, *resume.Thread, error) {
	if err := served(ref); err != nil {
		return nil, nil, err
	}
	n := ref.Number
	if s.err != nil {
		return nil, nil, s.err
	}
	if n <= 0 {
		return nil, nil, s.fail(n, state.ErrInvalid)
	}
	r, t, err := s.read(ctx, n, ref.Kind)
	if threadGone(err) {
		r, t, err = s.read(ctx, n, "")
	}
	if err != nil {
		return nil, nil, s.fail(n, err)
	}
	disc, _, err := t.thread(ctx, s.c, n)
	if err != nil {
		// The record is read; the engine reads the thread.
		s.c.logf("github: branch store: discussion %d: completing the %s read: %v", n, ref.Kind, err)
	}
	switch {
	case r.head == "":
		return nil, disc, s.fail(n, fmt.Errorf("branch %s does not exist yet: %w", s.branch, state.ErrNotFound))
	case r.blob == nil:
		return nil, disc, s.fail(n, state.ErrNotFound)
	}
	rec, err := s.decodeFile(n, r.blob)
	if err != nil {
		return nil, nil, s.fail(n, err)
	}
	rec.Rev = makeBranchRev(r.file, r.head)
	return rec, disc, nil
}

// threadGone reports whether a load failed only because the thread does
// not exist (GitHub answers NOT_FOUND for repository.discussion, issue or
// pullRequest and drops the whole answer).
func threadGone(err error) bool {
	at, ok := notFoundAt(err)
	return ok && !slices.ContainsFunc(at, func(field string) bool {
		return !slices.Contains([]string{"discussion", "issue", "pullRequest"}, field)
	})
}

// decodeFile decodes discussion n's record file, or says why it cannot be
// used.
func (s *BranchStore) decodeFile(n int, f *gitObjectNode) (*state.Record, error) {
	path, _, _ := branchPaths(n)
	text, err := s.text(path, f)
	if err != nil {
		return nil, err
	}
	rec, err := state.Decode([]byte(text))
	if err != nil {
		return nil, s.fileErr(path, "cannot be decoded", err)
	}
	if rec.Discussion != n {
		return nil, s.fileErr(path, fmt.Sprintf("holds the record of discussion %d", rec.Discussion), nil)
	}
	return rec, nil
}

// Save writes rec as discussions/<n>.json and its entry in the index, in one
// commit, if the file is still the one rec.Rev was read from (an empty Rev:
// only if there is no file), and sets rec.Rev. It returns an error wrapping
// state.ErrConflict when the file changed, appeared or disappeared since,
// and state.ErrCorrupt when the stored file (or the index shard) cannot be
// decoded: it is never overwritten.
//
// The commit goes on the head the store last saw (from Load, or its own
// previous Save): one request. When that head moved because of writes to
// other discussions, the commit fails, the store re-reads the file and the
// shard, and commits again on the new head if the file is unchanged (three
// requests). A save that would change neither the file nor the index entry
// sends no commit, only the read that checks Rev. The first save in a
// repository creates the branch as an orphan holding only a README (three
// REST requests).
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#createcommitonbranch
func (s *BranchStore) Save(ctx context.Context, rec *state.Record) error {
	if s.err != nil {
		return s.err
	}
	if rec == nil {
		return s.fail("nil record", state.ErrInvalid)
	}
	n := rec.Discussion
	if n <= 0 {
		return s.fail(n, state.ErrInvalid)
	}
	stamped := s.c.stamped(rec)
	data, err := state.Encode(&stamped)
	if err != nil {
		return s.fail(n, err)
	}
	want := gitBlobOID(data)
	revBlob, ok := branchRevBlob(rec.Rev)
	if !ok {
		return s.fail(n, fmt.Errorf("revision %q is not this store's: %w", rec.Rev, state.ErrConflict))
	}
	filePath, shardFile, _ := branchPaths(n)
	done := func(head string) error {
		rec.Rev, rec.UpdatedAt = makeBranchRev(want, head), stamped.UpdatedAt
		return nil
	}

	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	var (
		verified bool   // a read in this call saw the file at revBlob
		applied  bool   // a commit of this call may have gone through
		staleAt  string // the head a commit of this call failed on
		lag      int
	)
	for range branchSaveAttempts {
		s.mu.Lock()
		base, known := s.seen[n]
		s.mu.Unlock()
		head, shard := base.head, base.shard
		if !known || base.file != revBlob {
			r, _, err := s.read(ctx, n, "")
			if err != nil {
				return s.fail(n, err)
			}
			if r.head != "" && r.head == staleAt && lag < 3 {
				// The read trails the commit that beat ours; give
				// GitHub a moment rather than fail on it again.
				lag++
				if err := s.c.tr.backoffWait(ctx, lag); err != nil {
					return s.fail(n, err)
				}
				s.forget(n)
				continue
			}
			if err := s.judge(n, r, revBlob, want, applied); err != nil {
				return s.fail(n, err)
			}
			if applied && r.file == want {
				revBlob = want
			}
			head, shard, verified = r.head, r.shard, true
		}
		if head == "" {
			if head, err = s.createBranch(ctx); err != nil {
				return s.fail(n, err)
			}
			if head == "" {
				// Another run created it first: use theirs.
				s.forget(n)
				continue
			}
		}

		var adds []githubv4.FileAddition
		if want != revBlob {
			adds = append(adds, fileAddition(filePath, data))
		}
		if next := shard.with(&stamped); next.line(n) != shard.line(n) {
			shard = next
			adds = append(adds, fileAddition(shardFile, shard.encode()))
		}
		if len(adds) == 0 {
			if verified {
				return done(head)
			}
			// Nothing to write, but Rev must still be checked: a record
			// changed or corrupted since the caller read it must not
			// pass as saved.
			s.forget(n)
			continue
		}
		next, err := s.commit(ctx, head, fmt.Sprintf("recess: discussion #%d", n), adds)
		if err == nil {
			s.remember(n, branchSeen{head: next, file: want, shard: shard})
			return done(next)
		}
		switch moved, unknown := commitRetry(err); {
		case moved:
			staleAt = head
		case unknown:
			s.c.logf("github: branch store: discussion %d: the commit may not have gone through (%v); reading the branch again", n, err)
			applied = true
		default:
			return s.fail(n, err)
		}
		s.forget(n)
	}
	return s.fail(n, fmt.Errorf("branch %s kept moving for %d attempts: %w", s.branch, branchSaveAttempts, state.ErrConflict))
}

// judge decides from a fresh read whether a save of the file the caller
// read as revBlob may go on (nil), or why not.
func (s *BranchStore) judge(n int, r *branchRead, revBlob, want string, applied bool) error {
	if r.head == "" {
		if revBlob != "" {
			return fmt.Errorf("the record is gone (branch %s does not exist): %w", s.branch, state.ErrConflict)
		}
		return nil
	}
	path, _, _ := branchPaths(n)
	if r.file == revBlob || applied && r.file == want {
		return r.shardErr
	}
	return judgeChange(path, revBlob, r.file, func() error {
		_, err := s.decodeFile(n, r.blob)
		return err
	})
}

func fileAddition(path string, data []byte) githubv4.FileAddition {
	return githubv4.FileAddition{
		Path:     githubv4.String(path),
		Contents: githubv4.Base64String(base64.StdEncoding.EncodeToString(data)),
	}
}

// commit adds files to the branch on top of expected and returns the new
// head.
func (s *BranchStore) commit(ctx context.Context, expected, headline string, adds []githubv4.FileAddition) (string, error) {
	nwo := githubv4.String(s.c.owner + "/" + s.c.repo)
	branch := githubv4.String(s.branch)
	input := githubv4.CreateCommitOnBranchInput{
		Branch:          githubv4.CommittableBranch{RepositoryNameWithOwner: &nwo, BranchName: &branch},
		ExpectedHeadOid: githubv4.GitObjectID(expected),
		Message:         githubv4.CommitMessage{Headline: githubv4.String(headline)},
		FileChanges:     &githubv4.FileChanges{Additions: &adds},
	}
	var m struct {
		CreateCommitOnBranch struct {
			Commit struct{ Oid string }
		} `graphql:"createCommitOnBranch(input: $input)"`
	}
	err := s.c.mutate(ctx, &m, input)
	// An empty head: applied, but GitHub did not say where the branch is
	// now; the next commit finds out (and fails over to a read).
	return m.CreateCommitOnBranch.Commit.Oid, err
}

// commitRetry says whether a failed commit is worth trying again from a
// fresh read: moved when the head moved or the branch went (GitHub's
// STALE_DATA answer to a stale expectedHeadOid: HTTP 200,
// createCommitOnBranch null, "Expected branch to point to ... but it did
// not.  Pull and try again."; or NOT_FOUND), unknown when no answer came
// (server error, broken connection) and the commit may have been applied.
// Anything else was refused.
func commitRetry(err error) (moved, unknown bool) {
	var (
		ge *GraphQLError
		se *StatusError
		rl *RateLimitError
	)
	switch {
	case errors.As(err, &ge):
		return ge.NotFound() || slices.ContainsFunc(ge.Errors, func(it GraphQLErrorItem) bool {
			return it.Type == "STALE_DATA" || strings.HasPrefix(it.Message, "Expected branch to point to")
		}), false
	case errors.As(err, &se):
		return false, se.StatusCode >= 500
	case errors.As(err, &rl), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false, false
	}
	return false, true
}

// createBranch creates the branch as an orphan: a tree holding only the
// README, a commit without parents, and the ref, and returns its head; ""
// when another run created the branch first (GitHub: 422 "Reference
// already exists"): the commit made here is then left unreferenced, for
// GitHub to collect.
//
// GitHub docs: https://docs.github.com/rest/git/trees#create-a-tree,
// https://docs.github.com/rest/git/commits#create-a-commit,
// https://docs.github.com/rest/git/refs#create-a-reference
func (s *BranchStore) createBranch(ctx context.Context) (string, error) {
	readme := gogithub.TreeEntry{
		Path:    gogithub.Ptr("README.md"),
		Mode:    gogithub.Ptr("100644"),
		Type:    gogithub.Ptr("blob"),
		Content: gogithub.Ptr(branchReadme),
	}
	// No base tree: the tree holds the README and nothing of the project.
	tree, resp, err := s.c.rest.Git.CreateTree(ctx, s.c.owner, s.c.repo, "", []*gogithub.TreeEntry{&readme})
	if err != nil {
		return "", restErr("create tree", resp, err)
	}
	// No parents: a root commit, sharing no history with the project.
	commit, resp, err := s.c.rest.Git.CreateCommit(ctx, s.c.owner, s.c.repo, gogithub.Commit{
		Message: gogithub.Ptr("recess: start the state branch"),
		Tree:    &gogithub.Tree{SHA: tree.SHA},
	}, nil)
	if err != nil {
		return "", restErr("create commit", resp, err)
	}
	_, resp, err = s.c.rest.Git.CreateRef(ctx, s.c.owner, s.c.repo, gogithub.CreateRef{
		Ref: "refs/heads/" + s.branch,
		SHA: commit.GetSHA(),
	})
	var er *gogithub.ErrorResponse
	switch {
	case restStatus(resp, err) == http.StatusUnprocessableEntity && errors.As(err, &er) &&
		strings.Contains(strings.ToLower(er.Message), "already exists"):
		s.c.logf("github: branch store: branch %s was created by another run meanwhile; using it", s.branch)
		return "", nil
	case err != nil:
		return "", restErr("create ref", resp, err)
	}
	return commit.GetSHA(), nil
}

// refusedAccess reports GitHub's "you may not": a GraphQL FORBIDDEN error
// or a REST 403 (rate limits never get here: the transport turns them into
// waits or a *RateLimitError).
func refusedAccess(err error) bool {
	var (
		ge *GraphQLError
		se *StatusError
	)
	switch {
	case errors.As(err, &ge):
		return slices.ContainsFunc(ge.Errors, func(it GraphQLErrorItem) bool {
			// Load also reads the discussion: refusing that is about
			// discussions: read, not the branch.
			return !slices.Contains(it.Path, any("discussion")) &&
				(it.Type == "FORBIDDEN" || strings.Contains(it.Message, "Resource not accessible by integration"))
		})
	case errors.As(err, &se):
		return se.StatusCode == http.StatusForbidden
	}
	return restStatus(nil, err) == http.StatusForbidden
}

// Pending lists every discussion in the index, soonest due first (nothing
// due last, ties by number), each Known with the NextDue and Checked of its
// last save: one request reading the 16 index shards, whatever the number
// of records. No branch yet is an empty list. A shard that cannot be decoded
// is an error wrapping state.ErrCorrupt naming it, as the sweep cannot tell
// which discussions it would miss.
//
// GitHub docs: https://docs.github.com/graphql/reference/objects#repository
func (s *BranchStore) Pending(ctx context.Context) ([]state.Summary, error) {
	if s.err != nil {
		return nil, s.err
	}
	vars := s.vars()
	for k := range indexShards {
		vars["s"+strconv.Itoa(k)] = githubv4.String(shardPath(k))
	}
	var q branchPendingQuery
	if err := s.c.query(ctx, &q, vars); err != nil {
		return nil, s.fail("pending", err)
	}
	head := q.Repository.Ref.Target
	if head.Oid == "" {
		return nil, nil
	}
	c := &head.Commit
	files := []treeFile{c.S0, c.S1, c.S2, c.S3, c.S4, c.S5, c.S6, c.S7, c.S8, c.S9, c.S10, c.S11, c.S12, c.S13, c.S14, c.S15}
	var out []state.Summary
	for k, f := range files {
		ix, err := s.parseIndex(shardPath(k), k, f.Object)
		if err != nil {
			return nil, s.fail("pending", err)
		}
		out = slices.AppendSeq(out, maps.Values(ix))
	}
	state.SortSummaries(out)
	return out, nil
}

// branchIndex is one index shard: discussion number -> the summary of its
// pending record (NextDue and Checked are what the file keeps).
type branchIndex map[int]state.Summary

// with returns a copy with rec's entry: its summary while rec is pending,
// none otherwise.
func (ix branchIndex) with(rec *state.Record) branchIndex {
	out := branchIndex{}
	maps.Copy(out, ix)
	delete(out, rec.Discussion)
	if rec.Pending() {
		out[rec.Discussion] = summaryOf(rec)
	}
	return out
}

// indexFileEntry is an entry's wire form: RFC 3339 times in UTC (with
// nanoseconds when they have them), null for none; blocked only for a
// record whose dispatch waits for the setup to change (state.Summary); and
// the threads of the record's open recesses (Summary.ThreadRoots), left
// out when none; the thread's kind, left out for a discussion.
type indexFileEntry struct {
	Kind        state.Kind `json:"kind,omitempty"`
	NextDue     *time.Time `json:"next_due"`
	Checked     *time.Time `json:"checked"`
	Blocked     string     `json:"blocked,omitempty"`
	ThreadRoots []string   `json:"thread_roots,omitempty"`
}

func wireTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// encode renders the shard with one entry per line in number order, so that
// the branch's history shows each change as a one-line diff.
func (ix branchIndex) encode() []byte {
	if len(ix) == 0 {
		return []byte("{}\n")
	}
	var lines []string
	for _, n := range slices.Sorted(maps.Keys(ix)) {
		lines = append(lines, ix.line(n))
	}
	return []byte("{\n" + strings.Join(lines, ",\n") + "\n}\n")
}

// line is n's entry as the shard's file writes it; "" when it has none.
func (ix branchIndex) line(n int) string {
	e, ok := ix[n]
	if !ok {
		return ""
	}
	line, err := json.Marshal(indexFileEntry{Kind: e.Kind, NextDue: wireTime(e.NextDue), Checked: wireTime(e.Checked), Blocked: e.Blocked, ThreadRoots: e.ThreadRoots})
	if err != nil {
		panic(fmt.Sprintf("github: branch store: encoding an index entry: %v", err))
	}
	return fmt.Sprintf("  %q: %s", strconv.Itoa(n), line)
}

// parseIndex reads shard k; an absent shard is empty. Anything but an
// object of positive discussion numbers that belong in shard k, each with
// exactly next_due and checked (RFC 3339 or null), for a blocked record
// blocked, optionally kind (one of state.Kinds) and thread_roots (1 to
// state.MaxWatchedThreads comment ids), is an error wrapping
// state.ErrCorrupt that names the file.
func (s *BranchStore) parseIndex(path string, k int, obj *gitObjectNode) (branchIndex, error) {
	if obj == nil {
		return branchIndex{}, nil
	}
	text, err := s.text(path, obj)
	if err != nil {
		return nil, err
	}
	var raw map[string]*indexFileEntry
	if err := wait.DecodeJSON([]byte(text), "", &raw, wait.JSONLimits{}); err != nil {
		return nil, s.fileErr(path, "cannot be decoded", err)
	}
	ix := branchIndex{}
	for key, e := range raw {
		n, err := strconv.Atoi(key)
		switch {
		case err != nil || n <= 0 || strconv.Itoa(n) != key:
			return nil, s.fileErr(path, fmt.Sprintf("entry %q is not a discussion number", key), nil)
		case n%indexShards != k:
			return nil, s.fileErr(path, fmt.Sprintf("entry %q belongs in %s", key, shardPath(n%indexShards)), nil)
		case e == nil:
			return nil, s.fileErr(path, fmt.Sprintf("entry %q is null", key), nil)
		case e.ThreadRoots != nil && (len(e.ThreadRoots) == 0 || len(e.ThreadRoots) > state.MaxWatchedThreads || slices.Contains(e.ThreadRoots, "")):
			return nil, s.fileErr(path, fmt.Sprintf("entry %q has thread_roots that are not 1 to %d comment ids", key, state.MaxWatchedThreads), nil)
		case e.Kind != "" && !slices.Contains(state.Kinds, e.Kind):
			return nil, s.fileErr(path, fmt.Sprintf("entry %q has kind %q, not one of %v", key, e.Kind, state.Kinds), nil)
		}
		ie := state.Summary{Discussion: n, Kind: e.Kind, Known: true, Blocked: e.Blocked, ThreadRoots: e.ThreadRoots}
		if e.NextDue != nil {
			ie.NextDue = *e.NextDue
		}
		if e.Checked != nil {
			ie.Checked = *e.Checked
		}
		ix[n] = ie
	}
	return ix, nil
}

// makeBranchRev is a record's version: the blob oid of its file and the
// branch head it was seen at.
func makeBranchRev(blob, head string) string {
	if blob == "" {
		blob = "absent"
	}
	return blob + "@" + head
}

// branchRevBlob is the blob oid a revision names: "" for none (an empty
// revision, or "absent"); ok is false for a revision not of this store.
func branchRevBlob(rev string) (blob string, ok bool) {
	blob, head, found := strings.Cut(rev, "@")
	switch {
	case rev == "" || found && blob == "absent" && (head == "" || isOID(head)):
		return "", true
	case !found || !isOID(blob) || head != "" && !isOID(head):
		return "", false
	}
	return blob, true
}

func isOID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// gitBlobOID is the object id git (and GitHub) gives a file's contents, so
// that a save knows its blob without asking.
func gitBlobOID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
