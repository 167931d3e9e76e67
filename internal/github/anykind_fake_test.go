package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// A thread addressed by its number alone (resume.AnyKind: a
// workflow_dispatch names no kind) is read as what it is, in the one
// request a read of its own kind costs: GitHub answers the kinds it is not
// with null and a NOT_FOUND error naming them, which the read tolerates.
func TestThreadOfAnyKindIsReadAsWhatItIs(t *testing.T) {
	t.Parallel()
	many := make([]string, 230)
	for i := range many {
		many[i] = fmt.Sprintf("alice: comment %d", i)
	}
	tests := []struct {
		name     string
		kind     state.Kind
		comments []string
		change   func(f flatRepo, d githubfake.Discussion) error
		requests int
	}{
		{name: "discussion", kind: state.KindDiscussion, comments: []string{"bob: a question"}, requests: 1},
		{name: "issue", kind: state.KindIssue, comments: []string{"bob: more detail", "renovate[bot]: deps updated"}, requests: 1},
		{name: "closed_issue", kind: state.KindIssue,
			change: func(f flatRepo, d githubfake.Discussion) error { return f.gh.CloseIssue(d.ID, "COMPLETED") }, requests: 1},
		{name: "merged_pull_request", kind: state.KindPullRequest, comments: []string{"carol: LGTM"},
			change: func(f flatRepo, d githubfake.Discussion) error { return f.gh.MergePullRequest(d.ID) }, requests: 1},
		{name: "issue_past_100_comments", kind: state.KindIssue, comments: many, requests: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFlatRepo(t)
			d := f.open(t, tt.kind, "alice", tt.comments...)
			if tt.change != nil {
				if err := tt.change(f, d); err != nil {
					t.Fatal(err)
				}
			}
			want, err := f.client(t).Thread(context.Background(), resume.ThreadRef{Kind: tt.kind, Number: d.Number})
			if err != nil {
				t.Fatalf("Thread(%s) = %v", tt.kind, err)
			}
			c := f.client(t, state.Kinds...)
			got, err := c.Thread(context.Background(), resume.ThreadRef{Kind: resume.AnyKind, Number: d.Number})
			if err != nil {
				t.Fatalf("Thread(any) = %v", err)
			}
			if diff := cmp.Diff(shapeOf(want), shapeOf(got)); diff != "" {
				t.Errorf("Thread(any) (-as its own kind +any):\n%s", diff)
			}
			if got.ID != d.ID || got.Repo.ID == "" {
				t.Errorf("Thread(any) = id %q repo %+v, want %q and the repository's facts", got.ID, got.Repo, d.ID)
			}
			if n := c.Requests(); n != tt.requests {
				t.Errorf("requests = %d, want %d", n, tt.requests)
			}
		})
	}
}

// A number that names no thread is not found (one request), and so is a
// deleted thread; any other error is not tolerated.
func TestThreadOfAnyKindMissingIsNotFound(t *testing.T) {
	t.Parallel()
	f := newFlatRepo(t)
	f.open(t, state.KindIssue, "alice")
	gone := f.open(t, state.KindDiscussion, "bob")
	if err := f.gh.DeleteDiscussion(gone.ID); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{gone.Number, 99} {
		c := f.client(t, state.Kinds...)
		if _, err := c.Thread(context.Background(), resume.ThreadRef{Kind: resume.AnyKind, Number: n}); !errors.Is(err, resume.ErrNotFound) {
			t.Errorf("Thread(any %d) = %v, want resume.ErrNotFound", n, err)
		}
		if got := c.Requests(); got != 1 {
			t.Errorf("Thread(any %d): requests = %d, want 1", n, got)
		}
	}
}

// A number of a kind the setup does not serve is not found, by Thread and
// by the branch store's load alike, in the one request a read of a served
// kind costs: a pull request is no thread of a setup for discussions and
// issues (its token may not even read pull requests), an issue none of one
// for discussions and pull requests. The branch store still returns the
// record, without a thread, as for a deleted one.
func TestThreadOfAnyKindNotServedIsNotFound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		served []state.Kind
		kind   state.Kind
		found  bool
	}{
		{name: "pull_request_where_discussions_and_issues", served: []state.Kind{state.KindDiscussion, state.KindIssue}, kind: state.KindPullRequest},
		{name: "issue_where_discussions_and_pull_requests", served: []state.Kind{state.KindDiscussion, state.KindPullRequest}, kind: state.KindIssue},
		{name: "pull_request_where_issues", served: []state.Kind{state.KindIssue}, kind: state.KindPullRequest},
		{name: "issue_where_pull_requests", served: []state.Kind{state.KindPullRequest}, kind: state.KindIssue},
		{name: "issue_where_discussions_and_issues", served: []state.Kind{state.KindDiscussion, state.KindIssue}, kind: state.KindIssue, found: true},
		{name: "discussion_where_discussions_and_issues", served: []state.Kind{state.KindDiscussion, state.KindIssue}, kind: state.KindDiscussion, found: true},
		{name: "pull_request_where_discussions_and_pull_requests", served: []state.Kind{state.KindDiscussion, state.KindPullRequest}, kind: state.KindPullRequest, found: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFlatRepo(t)
			d := f.open(t, tt.kind, "alice", "bob: hello")
			rec := pendingRecord(d.Number)
			if tt.kind != state.KindDiscussion {
				rec.Kind = tt.kind
			}
			if err := NewBranchStore(f.client(t, state.Kinds...), "").Save(ctx, rec); err != nil {
				t.Fatalf("Save = %v", err)
			}
			ref := resume.ThreadRef{Kind: resume.AnyKind, Number: d.Number}

			c := f.client(t, tt.served...)
			th, err := c.Thread(ctx, ref)
			if tt.found && (err != nil || th.Kind.OrDiscussion() != tt.kind) {
				t.Errorf("Thread = %+v, %v; want the %s", th, err, tt.kind)
			}
			if !tt.found && !errors.Is(err, resume.ErrNotFound) {
				t.Errorf("Thread = %+v, %v; want resume.ErrNotFound", th, err)
			}
			if n := c.Requests(); n != 1 {
				t.Errorf("Thread sent %d requests, want 1", n)
			}

			c = f.client(t, tt.served...)
			got, th, err := NewBranchStore(c, "").LoadWith(ctx, ref)
			if err != nil || got.Kind != rec.Kind {
				t.Fatalf("LoadWith = %+v, %v; want the record of kind %q", got, err, rec.Kind)
			}
			if tt.found != (th != nil) || th != nil && th.Kind.OrDiscussion() != tt.kind {
				t.Errorf("LoadWith thread = %+v, want a thread %v", th, tt.found)
			}
			if n := c.Requests(); n != 1 {
				t.Errorf("LoadWith sent %d requests, want 1", n)
			}
		})
	}
}

// A thread addressed by its number alone is asked of GitHub only as the
// kinds the setup serves: a token that may not read a kind (recess init
// grants no discussions permission to a setup for issues) is never asked
// for it, GitHub would refuse the field. Discussions alone: a
// discussion's own read.
func TestThreadOfAnyKindAsksOnlyForTheKindsServed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		served []state.Kind
		kind   state.Kind
		want   []string // the fields of repository the request selects
	}{
		{name: "issues_and_pull_requests", served: []state.Kind{state.KindIssue, state.KindPullRequest}, kind: state.KindIssue, want: []string{"issueOrPullRequest"}},
		{name: "issues", served: []state.Kind{state.KindIssue}, kind: state.KindIssue, want: []string{"issue"}},
		{name: "discussions_and_pull_requests", served: []state.Kind{state.KindDiscussion, state.KindPullRequest}, kind: state.KindPullRequest, want: []string{"discussion", "pullRequest"}},
		{name: "discussions_alone", kind: state.KindDiscussion, want: []string{"discussion"}},
		{name: "every_kind", served: state.Kinds, kind: state.KindPullRequest, want: []string{"discussion", "issueOrPullRequest"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFlatRepo(t)
			d := f.open(t, tt.kind, "alice", "bob: hello")
			read := func(kinds []state.Kind, ref resume.ThreadRef) []graphqlBody {
				t.Helper()
				rec := &recordingTransport{}
				c, err := New(Config{Token: testToken, APIURL: f.gh.URL(), GraphQLURL: f.gh.GraphQLURL(), Owner: "o", Repo: "r",
					Clock: f.clock, Sleep: f.clock.Sleep, Kinds: kinds, HTTPClient: &http.Client{Transport: rec}})
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.Thread(context.Background(), ref)
				if err != nil || got.Kind.OrDiscussion() != tt.kind {
					t.Fatalf("Thread(%+v) = %+v, %v; want the %s", ref, got, err, tt.kind)
				}
				return rec.bodies
			}
			sent := read(tt.served, resume.ThreadRef{Kind: resume.AnyKind, Number: d.Number})
			if len(sent) != 1 {
				t.Fatalf("sent %d requests, want 1", len(sent))
			}
			if diff := cmp.Diff(tt.want, repositoryFields(t, sent[0])); diff != "" {
				t.Errorf("fields of repository selected (-want +got):\n%s", diff)
			}
			if tt.served == nil {
				own := read(nil, resume.DiscussionRef(d.Number))
				if diff := cmp.Diff(own, sent); diff != "" {
					t.Errorf("read of a number with discussions alone served (-a discussion's read +got):\n%s", diff)
				}
			}
		})
	}
}

// A sweep of a setup that serves no discussions never asks GitHub for one
// (a token granted no discussions permission gets the field refused): not
// the label's search, not the hour's or the day's look at the recently
// updated threads, not Overlooked's, not the activity probe. Its waiting
// issues are listed all the same, and a waiting discussion is not.
func TestCommentStoreSweepAsksOnlyForTheKindsServed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		at   time.Duration // after epoch (10:00)
	}{
		{name: "label_search_and_overlooked", at: 10 * time.Minute},
		{name: "hourly_look", at: 62 * time.Minute},
		{name: "daily_look", at: 14*time.Hour + 2*time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFlatRepo(t)
			writer := f.client(t, state.Kinds...)
			var issue int
			for _, k := range []state.Kind{state.KindDiscussion, state.KindIssue, state.KindDiscussion} {
				d := f.open(t, k, "alice", "bob: hello")
				rec := pendingRecord(d.Number)
				if k == state.KindIssue {
					rec.Kind, issue = k, d.Number
				}
				s := NewCommentStore(writer)
				if err := s.Save(ctx, rec); err != nil {
					t.Fatalf("Save(%s) = %v", k, err)
				}
				_, th, err := s.LoadWith(ctx, resume.ThreadRef{Kind: k, Number: d.Number})
				if err != nil {
					t.Fatalf("LoadWith(%s) = %v", k, err)
				}
				if err := writer.Label(ctx, th, resume.LabelWaiting); err != nil {
					t.Fatalf("Label(%s) = %v", k, err)
				}
			}
			f.clock.SetTime(epoch.Add(tt.at))
			c, sent := f.recorded(t, state.KindIssue)
			s := NewCommentStore(c)
			list, err := s.Pending(ctx)
			if err != nil {
				t.Fatalf("Pending() = %v", err)
			}
			want := []state.Summary{{Discussion: issue, Kind: state.KindIssue, Known: true}}
			if diff := cmp.Diff(want, list, cmpopts.IgnoreFields(state.Summary{}, "NextDue", "Checked")); diff != "" {
				t.Errorf("Pending() (-want +got):\n%s", diff)
			}
			over, err := s.Overlooked(ctx)
			if err != nil {
				t.Fatalf("Overlooked() = %v", err)
			}
			if _, err := c.Activity(ctx, slices.Concat(list, over)); err != nil {
				t.Fatalf("Activity() = %v", err)
			}
			if len(sent.bodies) == 0 {
				t.Fatal("the sweep sent no request")
			}
			for i, b := range sent.bodies {
				if slices.ContainsFunc(repositoryFields(t, b), func(f string) bool { return strings.HasPrefix(f, "discussion") }) ||
					strings.Contains(b.Query, "type: DISCUSSION") {
					t.Errorf("request %d of the sweep asks for discussions:\n%s", i, b.Query)
				}
			}
		})
	}
}

// recorded is a client of the fake repository whose setup serves kinds,
// and the GraphQL requests it sends.
func (f flatRepo) recorded(t *testing.T, kinds ...state.Kind) (*Client, *recordingTransport) {
	t.Helper()
	sent := &recordingTransport{}
	c, err := New(Config{Token: testToken, APIURL: f.gh.URL(), GraphQLURL: f.gh.GraphQLURL(), Owner: "o", Repo: "r",
		Clock: f.clock, Sleep: f.clock.Sleep, Kinds: kinds, HTTPClient: &http.Client{Transport: sent}})
	if err != nil {
		t.Fatal(err)
	}
	return c, sent
}

// A number of unknown kind (resume.AnyKind) costs the branch store's load
// what a known kind costs: the one request that reads the record reads the
// thread too, asking GitHub only for the kinds the setup serves, so the
// engine's read of the thread costs nothing. A number that names no thread
// leaves the record read, in that same request, and no thread.
func TestBranchStoreLoadReadsAThreadOfAnyKindInItsOneRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		kind     state.Kind // "": the thread is deleted
		served   []state.Kind
		comments int
		want     []string // the fields of repository the request selects
		requests int
	}{
		{name: "discussion_among_every_kind", kind: state.KindDiscussion, served: state.Kinds, comments: 2, want: []string{"ref", "discussion", "issueOrPullRequest"}, requests: 1},
		{name: "issue_among_every_kind", kind: state.KindIssue, served: state.Kinds, comments: 2, want: []string{"ref", "discussion", "issueOrPullRequest"}, requests: 1},
		{name: "issue_alone", kind: state.KindIssue, served: []state.Kind{state.KindIssue}, comments: 2, want: []string{"ref", "issue"}, requests: 1},
		{name: "pull_request_among_issues_and_pull_requests", kind: state.KindPullRequest, served: []state.Kind{state.KindIssue, state.KindPullRequest}, comments: 2, want: []string{"ref", "issueOrPullRequest"}, requests: 1},
		{name: "discussions_alone", kind: state.KindDiscussion, comments: 2, want: []string{"ref", "discussion"}, requests: 1},
		// Further pages only where GitHub says there are more.
		{name: "issue_past_100_comments", kind: state.KindIssue, served: state.Kinds, comments: 130, want: []string{"ref", "discussion", "issueOrPullRequest"}, requests: 2},
		{name: "deleted_discussion", served: state.Kinds, want: []string{"ref", "discussion", "issueOrPullRequest"}, requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFlatRepo(t)
			says := make([]string, tt.comments)
			for i := range says {
				says[i] = fmt.Sprintf("bob: comment %d", i)
			}
			d := f.open(t, tt.kind.OrDiscussion(), "alice", says...)
			rec := pendingRecord(d.Number)
			if tt.kind != state.KindDiscussion {
				rec.Kind = tt.kind
			}
			if err := NewBranchStore(f.client(t, state.Kinds...), "").Save(ctx, rec); err != nil {
				t.Fatalf("Save = %v", err)
			}
			if tt.kind == "" {
				if err := f.gh.DeleteDiscussion(d.ID); err != nil {
					t.Fatal(err)
				}
			}
			c, sent := f.recorded(t, tt.served...)
			got, th, err := NewBranchStore(c, "").LoadWith(ctx, resume.ThreadRef{Kind: resume.AnyKind, Number: d.Number})
			if err != nil || got.Kind != rec.Kind {
				t.Fatalf("LoadWith = %+v, %v; want the record of kind %q", got, err, rec.Kind)
			}
			if len(sent.bodies) != tt.requests {
				t.Errorf("LoadWith sent %d requests, want %d", len(sent.bodies), tt.requests)
			}
			if diff := cmp.Diff(tt.want, repositoryFields(t, sent.bodies[0])); diff != "" {
				t.Errorf("fields of repository selected (-want +got):\n%s", diff)
			}
			if tt.kind == "" {
				if th != nil {
					t.Errorf("LoadWith of a deleted thread read %+v, want no thread", th)
				}
				return
			}
			if th == nil || th.Kind.OrDiscussion() != tt.kind || th.ID != d.ID || len(th.Comments) != tt.comments {
				t.Fatalf("LoadWith thread = %+v, want the %s %s with its %d comments", th, tt.kind, d.ID, tt.comments)
			}
		})
	}
}

// graphqlBody is a GraphQL request as sent.
type graphqlBody struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables"`
}

// recordingTransport keeps the GraphQL requests it carries.
type recordingTransport struct{ bodies []graphqlBody }

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.URL.Path, "/graphql") {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		var g graphqlBody
		if err := json.Unmarshal(b, &g); err != nil {
			return nil, err
		}
		r.bodies = append(r.bodies, g)
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	return http.DefaultTransport.RoundTrip(req)
}

// repositoryFields are the fields under repository that b selects, as
// GitHub runs it (@skip and @include applied).
func repositoryFields(t *testing.T, b graphqlBody) []string {
	t.Helper()
	doc, err := validate(loadSchema(t), b.Query, b.Variables)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range doc.Operations[0].SelectionSet {
		if repo, ok := s.(*ast.Field); ok && repo.Name == "repository" {
			for _, s := range repo.SelectionSet {
				f, ok := s.(*ast.Field)
				// is says what directive name's condition is (def when absent).
				is := func(name string, def bool) bool {
					if d := f.Directives.ForName(name); d != nil {
						b, _ := d.ArgumentMap(b.Variables)["if"].(bool)
						return b
					}
					return def
				}
				if ok && !is("skip", false) && is("include", true) && !strings.HasPrefix(f.Name, "__") {
					out = append(out, f.Name)
				}
			}
		}
	}
	return out
}
