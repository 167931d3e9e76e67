package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// captured is one request seen on the wire.
type captured struct {
	GraphQL bool
	Method  string
	Path    string
	Query   string
	Vars    map[string]any
	Body    map[string]any
}

// capture is a RoundTripper that records every request before passing it
// on, so a test can check the documents a store sends.
type capture struct {
	base http.RoundTripper
	mu   sync.Mutex
	seen []captured
}

func (c *capture) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	x := captured{Method: r.Method, Path: r.URL.Path, GraphQL: strings.HasSuffix(r.URL.Path, "/graphql")}
	if x.GraphQL {
		var req struct {
			Query     string         `json:"query"`
			Variables map[string]any `json:"variables"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, fmt.Errorf("capture: graphql body: %w", err)
		}
		x.Query, x.Vars = req.Query, req.Variables
	} else if len(body) > 0 {
		if err := json.Unmarshal(body, &x.Body); err != nil {
			return nil, fmt.Errorf("capture: rest body: %w", err)
		}
	}
	c.mu.Lock()
	c.seen = append(c.seen, x)
	c.mu.Unlock()
	return c.base.RoundTrip(r)
}

func (c *capture) Seen() []captured {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]captured(nil), c.seen...)
}

// TestBranchStoreDocumentsValidAgainstSchema drives every GraphQL document
// the branch store can send (load, the fallback and rebase read, pending,
// the commit, and the comment page that completes a long discussion)
// against the fake GitHub through a capturing transport, then validates
// each captured document and its variables against GitHub's schema, as
// TestDocumentsValidAgainstSchema does for the rest of the client. The REST
// requests that create the branch are checked against GitHub's documented
// meaning: a tree without base_tree and a commit without parents make an
// orphan branch.
func TestBranchStoreDocumentsValidAgainstSchema(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	rt := &capture{base: http.DefaultTransport}
	c, err := New(Config{Token: testToken, APIURL: f.gh.URL(), GraphQLURL: f.gh.GraphQLURL(), Owner: "o", Repo: "r",
		Clock: f.clock, Sleep: f.clock.Sleep, Logf: t.Logf, HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	for range pageSize + 1 {
		if _, err := f.gh.Comment(f.ids[9], "alice", "me too"); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	s := NewBranchStore(c, "")
	other := NewBranchStore(f.client(t), "")
	steps := []struct {
		name string
		run  func() error
	}{
		{"pending_without_branch", func() error { _, err := s.Pending(ctx); return err }},
		{"load_without_branch", func() error {
			if _, err := s.Load(ctx, 3); !errors.Is(err, state.ErrNotFound) {
				return fmt.Errorf("Load(3) = %v, want ErrNotFound", err)
			}
			return nil
		}},
		{"save_creating_branch", func() error { return s.Save(ctx, dueRecord(3, epoch)) }},
		{"load_paged_discussion", func() error {
			if err := s.Save(ctx, dueRecord(9, epoch)); err != nil {
				return err
			}
			_, err := s.Load(ctx, 9)
			return err
		}},
		{"save_after_head_moved", func() error {
			rec, err := s.Load(ctx, 3)
			if err != nil {
				return err
			}
			if err := other.Save(ctx, dueRecord(4, epoch)); err != nil {
				return err
			}
			rec.Applied = []string{"c-1"}
			return s.Save(ctx, rec)
		}},
		{"load_deleted_discussion", func() error {
			if err := f.gh.DeleteDiscussion(f.ids[3]); err != nil {
				return err
			}
			_, err := s.Load(ctx, 3)
			return err
		}},
		{"pending", func() error { _, err := s.Pending(ctx); return err }},
	}
	for _, st := range steps {
		if err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}

	schema := loadSchema(t)
	docs := map[string]bool{}
	roots := map[string]bool{}
	var rest []string
	for _, x := range rt.Seen() {
		if !x.GraphQL {
			rest = append(rest, x.Method+" "+strings.TrimPrefix(x.Path, "/api/v3"))
			switch {
			case strings.HasSuffix(x.Path, "/git/trees"):
				if _, ok := x.Body["base_tree"]; ok {
					t.Errorf("create tree body = %v, want no base_tree (the tree must hold only recess's README)", x.Body)
				}
			case strings.HasSuffix(x.Path, "/git/commits"):
				if p, ok := x.Body["parents"].([]any); ok && len(p) > 0 {
					t.Errorf("create commit body = %v, want no parents (an orphan branch)", x.Body)
				}
			}
			continue
		}
		doc, err := validate(schema, x.Query, x.Vars)
		if err != nil {
			t.Errorf("%v\n%s", err, x.Query)
			continue
		}
		docs[x.Query] = true
		op := doc.Operations[0]
		for _, sel := range op.SelectionSet {
			if f, ok := sel.(*ast.Field); ok {
				roots[string(op.Operation)+" "+f.Name] = true
				break
			}
		}
	}
	if diff := cmp.Diff([]string{"mutation createCommitOnBranch", "query repository"}, keys(roots)); diff != "" {
		t.Errorf("root fields sent (-want +got):\n%s", diff)
	}
	wantREST := []string{"POST /repos/o/r/git/trees", "POST /repos/o/r/git/commits", "POST /repos/o/r/git/refs"}
	if diff := cmp.Diff(wantREST, rest); diff != "" {
		t.Errorf("REST requests (-want +got):\n%s", diff)
	}
	// The read (load, fallback and rebase: one document, the discussion
	// included when loading), pending, comments page, commit.
	if got, want := len(docs), 4; got != want {
		t.Errorf("distinct documents sent = %d, want %d:\n%s", got, want, strings.Join(keys(docs), "\n"))
	}
}

// TestBranchStoreLoadSharesPagedSnapshot: a long discussion read by Load is
// completed (further pages) and handed to Discussion whole.
func TestBranchStoreLoadSharesPagedSnapshot(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	c := f.client(t)
	ctx := context.Background()
	const comments = pageSize + 5
	for i := range comments {
		if _, err := f.gh.Comment(f.ids[11], "alice", fmt.Sprintf("comment %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	s := NewBranchStore(c, "")
	if err := s.Save(ctx, dueRecord(11, epoch)); err != nil {
		t.Fatal(err)
	}
	n, err := f.step(t, func() error {
		_, d, err := s.LoadWith(ctx, resume.DiscussionRef(11))
		if err == nil && (d == nil || len(d.Comments) != comments) {
			return fmt.Errorf("LoadWith(11) gave %v, want a discussion with %d comments", d, comments)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := (counts{Queries: 2}); n != want {
		t.Errorf("LoadWith(11) with %d comments sent %+v, want %+v", comments, n, want)
	}
}

func TestBranchIndexEncodeParse(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.FixedZone("UTC+2", 2*60*60))
	ix := branchIndex{
		35: {Discussion: 35, Known: true, NextDue: at, Checked: at.Add(-time.Hour)},
		3:  {Discussion: 3, Known: true},
		19: {Discussion: 19, Known: true, Checked: at, ThreadRoots: []string{"DC_q1", "DC_q2"}},
	}
	want := "{\n" +
		`  "3": {"next_due":null,"checked":null},` + "\n" +
		`  "19": {"next_due":null,"checked":"2026-11-21T08:00:00.123456789Z","thread_roots":["DC_q1","DC_q2"]},` + "\n" +
		`  "35": {"next_due":"2026-11-21T08:00:00.123456789Z","checked":"2026-11-21T07:00:00.123456789Z"}` + "\n" +
		"}\n"
	got := string(ix.encode())
	if got != want {
		t.Errorf("encode() =\n%s\nwant\n%s", got, want)
	}
	if got := string(branchIndex{}.encode()); got != "{}\n" {
		t.Errorf("empty encode() = %q, want %q", got, "{}\n")
	}
	s := NewBranchStore(nil, "")
	back, err := s.parseIndex("index/3.json", 3, blobText(got))
	if err != nil {
		t.Fatalf("parseIndex(encode()) = %v", err)
	}
	if diff := cmp.Diff(ix, back, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("parseIndex(encode()) mismatch (-want +got):\n%s", diff)
	}
}

func blobText(s string) *gitObjectNode {
	o := &gitObjectNode{Typename: "Blob", Oid: gitBlobOID([]byte(s))}
	o.Blob.Text = &s
	return o
}

func TestParseIndexRefuses(t *testing.T) {
	t.Parallel()
	s := NewBranchStore(nil, "")
	binary := &gitObjectNode{Typename: "Blob", Oid: strings.Repeat("b", 40)}
	truncated := blobText("{")
	truncated.Blob.IsTruncated = true
	tree := &gitObjectNode{Typename: "Tree", Oid: strings.Repeat("c", 40)}
	tests := []struct {
		name string
		obj  *gitObjectNode
	}{
		{"not_json", blobText("{")},
		{"array", blobText("[]")},
		{"trailing_data", blobText("{} {}")},
		{"not_a_number", blobText(`{"x": {"next_due": null, "checked": null}}`)},
		{"leading_zero", blobText(`{"03": {"next_due": null, "checked": null}}`)},
		{"zero", blobText(`{"0": {"next_due": null, "checked": null}}`)},
		{"wrong_shard", blobText(`{"4": {"next_due": null, "checked": null}}`)},
		{"null_entry", blobText(`{"3": null}`)},
		{"unknown_field", blobText(`{"3": {"next_due": null, "checked": null, "extra": 1}}`)},
		{"bad_time", blobText(`{"3": {"next_due": "tomorrow", "checked": null}}`)},
		{"empty_thread_roots", blobText(`{"3": {"next_due": null, "checked": null, "thread_roots": []}}`)},
		{"empty_thread_root", blobText(`{"3": {"next_due": null, "checked": null, "thread_roots": ["DC_q", ""]}}`)},
		{"thread_roots_not_ids", blobText(`{"3": {"next_due": null, "checked": null, "thread_roots": [1]}}`)},
		{"too_many_thread_roots", blobText(`{"3": {"next_due": null, "checked": null, "thread_roots": ["a","b","c","d","e","f","g","h","i","j","k"]}}`)},
		{"binary", binary},
		{"truncated", truncated},
		{"tree", tree},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := s.parseIndex("index/3.json", 3, tc.obj)
			var fe *wait.FieldError
			if !errors.Is(err, state.ErrCorrupt) || !errors.As(err, &fe) || fe.Field != DefaultStateBranch+":index/3.json" {
				t.Errorf("parseIndex(%s) = %v, want a *wait.FieldError for index/3.json wrapping ErrCorrupt", tc.name, err)
			}
		})
	}
	if ix, err := s.parseIndex("index/3.json", 3, nil); err != nil || len(ix) != 0 {
		t.Errorf("parseIndex(absent) = %v, %v, want an empty index", ix, err)
	}
}

func TestBranchRevBlob(t *testing.T) {
	t.Parallel()
	blob, head := strings.Repeat("a", 40), strings.Repeat("b", 40)
	tests := []struct {
		rev      string
		wantBlob string
		ok       bool
	}{
		{"", "", true},
		{makeBranchRev(blob, head), blob, true},
		{makeBranchRev("", head), "", true},
		{"absent@" + head, "", true},
		{blob + "@", blob, true},
		{"stale", "", false},
		{blob, "", false},
		{"absent", "", false},
		{"no-such-revision", "", false},
		{strings.ToUpper(blob) + "@" + head, "", false},
		{blob + "@" + head[:39], "", false},
		{"absent@" + head[:39], "", false},
		{"DC_1@2026-11-21T10:00:00Z@abcd", "", false},
	}
	for _, tc := range tests {
		blob, ok := branchRevBlob(tc.rev)
		if blob != tc.wantBlob || ok != tc.ok {
			t.Errorf("branchRevBlob(%q) = %q, %v, want %q, %v", tc.rev, blob, ok, tc.wantBlob, tc.ok)
		}
	}
}

// TestGitBlobOID checks the blob id against git's own (git hash-object).
func TestGitBlobOID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
		"hello\n": "ce013625030ba8dba906f756967f9e9ca394464a",
	} {
		if got := gitBlobOID([]byte(in)); got != want {
			t.Errorf("gitBlobOID(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestCommitRetry(t *testing.T) {
	t.Parallel()
	gql := func(typ, msg string) error {
		return &GraphQLError{Errors: []GraphQLErrorItem{{Type: typ, Message: msg, Path: []any{"createCommitOnBranch"}}}}
	}
	tests := []struct {
		name           string
		err            error
		moved, unknown bool
	}{
		{"stale_data", gql("STALE_DATA", `Expected branch to point to "abc" but it did not.  Pull and try again.`), true, false},
		{"stale_message_only", gql("", `Expected branch to point to "abc" but it did not.  Pull and try again.`), true, false},
		{"no_branch", gql("NOT_FOUND", "Could not resolve to a Ref with the name 'refs/heads/recess-state'."), true, false},
		{"forbidden", gql("FORBIDDEN", "Resource not accessible by integration"), false, false},
		{"unprocessable", gql("UNPROCESSABLE", "A commit message headline is required"), false, false},
		{"bad_gateway", &StatusError{StatusCode: 502}, false, true},
		{"unauthorized", &StatusError{StatusCode: 401}, false, false},
		{"rate_limited", &RateLimitError{}, false, false},
		{"canceled", fmt.Errorf("x: %w", context.Canceled), false, false},
		{"connection_reset", &url.Error{Op: "Post", URL: "x", Err: errors.New("connection reset by peer")}, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if moved, unknown := commitRetry(tc.err); moved != tc.moved || unknown != tc.unknown {
				t.Errorf("commitRetry(%v) = %v, %v, want %v, %v", tc.err, moved, unknown, tc.moved, tc.unknown)
			}
		})
	}
}

func TestThreadGone(t *testing.T) {
	t.Parallel()
	item := func(typ string, path ...any) GraphQLErrorItem { return GraphQLErrorItem{Type: typ, Path: path} }
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"discussion", &GraphQLError{Errors: []GraphQLErrorItem{item("NOT_FOUND", "repository", "discussion")}}, true},
		{"issue", &GraphQLError{Errors: []GraphQLErrorItem{item("NOT_FOUND", "repository", "issue")}}, true},
		{"pull_request", &GraphQLError{Errors: []GraphQLErrorItem{item("NOT_FOUND", "repository", "pullRequest")}}, true},
		{"repository", &GraphQLError{Errors: []GraphQLErrorItem{item("NOT_FOUND", "repository")}}, false},
		{"no_path", &GraphQLError{Errors: []GraphQLErrorItem{item("NOT_FOUND")}}, false},
		{"forbidden", &GraphQLError{Errors: []GraphQLErrorItem{item("FORBIDDEN", "repository", "discussion")}}, false},
		{"mixed", &GraphQLError{Errors: []GraphQLErrorItem{item("NOT_FOUND", "repository", "discussion"), item("NOT_FOUND", "repository")}}, false},
		{"other", errors.New("boom"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := threadGone(tc.err); got != tc.want {
				t.Errorf("threadGone(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestRefusedAccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"graphql_forbidden", &GraphQLError{Errors: []GraphQLErrorItem{{Type: "FORBIDDEN", Message: "Resource not accessible by integration"}}}, true},
		{"graphql_message", &GraphQLError{Errors: []GraphQLErrorItem{{Message: "Resource not accessible by integration"}}}, true},
		{"graphql_not_found", &GraphQLError{Errors: []GraphQLErrorItem{{Type: "NOT_FOUND"}}}, false},
		{"graphql_discussion_forbidden", &GraphQLError{Errors: []GraphQLErrorItem{{Type: "FORBIDDEN", Path: []any{"repository", "discussion"}}}}, false},
		{"graphql_ref_forbidden", &GraphQLError{Errors: []GraphQLErrorItem{{Type: "FORBIDDEN", Path: []any{"repository", "ref"}}}}, true},
		{"graphql_status_403", &StatusError{StatusCode: 403}, true},
		{"graphql_status_502", &StatusError{StatusCode: 502}, false},
		{"other", errors.New("boom"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := refusedAccess(tc.err); got != tc.want {
				t.Errorf("refusedAccess(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
