package githubfake

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// gitStore holds a repository's objects and refs. Trees are kept flat
// (path -> blob oid) and hashed from their sorted entries: enough for a
// branch-based store, and every oid is a real-looking 40-hex SHA-1.
type gitStore struct {
	blobs   map[string][]byte
	trees   map[string]map[string]string
	commits map[string]*gitCommit
	refs    map[string]string // fully qualified name -> commit oid
}

type gitCommit struct {
	oid       string
	tree      string
	parents   []string
	headline  string
	body      string
	author    *identity
	committed time.Time
}

func newGitStore() *gitStore {
	return &gitStore{
		blobs:   map[string][]byte{},
		trees:   map[string]map[string]string{},
		commits: map[string]*gitCommit{},
		refs:    map[string]string{},
	}
}

func hashObject(kind string, data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func (s *gitStore) putBlob(data []byte) string {
	oid := hashObject("blob", data)
	s.blobs[oid] = slices.Clone(data)
	return oid
}

func (s *gitStore) putTree(entries map[string]string) string {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(entries)) {
		b.WriteString("100644 " + p + "\x00" + entries[p])
	}
	oid := hashObject("tree", []byte(b.String()))
	s.trees[oid] = maps.Clone(entries)
	return oid
}

func (s *gitStore) putCommit(tree string, parents []string, headline, body string, author *identity, at time.Time) *gitCommit {
	text := fmt.Sprintf("tree %s\nparents %s\nauthor %s %d\n\n%s\n\n%s", tree, strings.Join(parents, " "),
		author.login, at.Unix(), headline, body)
	c := &gitCommit{oid: hashObject("commit", []byte(text)), tree: tree, parents: parents,
		headline: headline, body: body, author: author, committed: at}
	s.commits[c.oid] = c
	return c
}

// initBranch creates a branch with an initial commit holding a README.
func (s *gitStore) initBranch(name string, at time.Time, author *identity) {
	blob := s.putBlob([]byte("# repository\n"))
	tree := s.putTree(map[string]string{"README.md": blob})
	c := s.putCommit(tree, nil, "Initial commit", "", author, at)
	s.refs["refs/heads/"+name] = c.oid
}

// qualify turns "main" or "heads/main" into "refs/heads/main".
func qualify(ref string) string {
	switch {
	case strings.HasPrefix(ref, "refs/"):
		return ref
	case strings.HasPrefix(ref, "heads/"), strings.HasPrefix(ref, "tags/"):
		return "refs/" + ref
	}
	return "refs/heads/" + ref
}

// resolve finds the commit a branch, tag, full ref or commit oid names.
func (s *gitStore) resolve(rev string) (string, bool) {
	if oid, ok := s.refs[qualify(rev)]; ok {
		return oid, true
	}
	if oid, ok := s.refs["refs/tags/"+rev]; ok {
		return oid, true
	}
	if _, ok := s.commits[rev]; ok {
		return rev, true
	}
	return "", false
}

// file returns the blob oid of path at a commit.
func (s *gitStore) file(commitOID, path string) (string, bool) {
	c, ok := s.commits[commitOID]
	if !ok {
		return "", false
	}
	oid, ok := s.trees[c.tree][strings.TrimPrefix(path, "/")]
	return oid, ok
}

// isAncestor reports whether anc is reachable from oid.
func (s *gitStore) isAncestor(anc, oid string) bool {
	seen := map[string]bool{}
	stack := []string{oid}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cur == anc {
			return true
		}
		if seen[cur] {
			continue
		}
		seen[cur] = true
		if c, ok := s.commits[cur]; ok {
			stack = append(stack, c.parents...)
		}
	}
	return false
}

// Ref returns the commit oid a branch (or fully qualified ref) points to.
func (g *GitHub) Ref(repoName, ref string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return "", err
	}
	oid, ok := r.git.refs[qualify(ref)]
	if !ok {
		return "", fmt.Errorf("%w: %s in %s", ErrUnknownRef, ref, repoName)
	}
	return oid, nil
}

// File returns the contents of path on a branch; ok is false when the branch
// or the file does not exist.
func (g *GitHub) File(repoName, branch, path string) (contents string, ok bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return "", false, err
	}
	oid, found := r.git.refs[qualify(branch)]
	if !found {
		return "", false, nil
	}
	blob, found := r.git.file(oid, path)
	if !found {
		return "", false, nil
	}
	return string(r.git.blobs[blob]), true, nil
}

// Commit writes files (path -> contents; an empty contents with delete
// semantics is not offered: use the API for deletions) on a branch as a new
// commit, creating the branch from the default branch if it does not exist.
// It returns the new commit oid. Tests use it to move a branch under a client.
func (g *GitHub) Commit(repoName, branch, message string, files map[string]string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.repo(repoName)
	if err != nil {
		return "", err
	}
	ref := qualify(branch)
	if _, ok := r.git.refs[ref]; !ok {
		r.git.refs[ref] = r.git.refs[qualify(r.defaultBranch)]
	}
	return r.git.commit(ref, message, files, r.ownerAcct, g.clock()), nil
}

// commit writes files (path -> contents) on the branch ref (fully
// qualified, existing) as a new commit and returns its oid.
func (s *gitStore) commit(ref, message string, files map[string]string, author *identity, at time.Time) string {
	head := s.refs[ref]
	entries := maps.Clone(s.trees[s.commits[head].tree])
	for p, c := range files {
		entries[p] = s.putBlob([]byte(c))
	}
	c := s.putCommit(s.putTree(entries), []string{head}, message, "", author, at)
	s.refs[ref] = c.oid
	return c.oid
}
