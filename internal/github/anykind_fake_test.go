package github

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

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
			c := f.client(t)
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
		c := f.client(t)
		if _, err := c.Thread(context.Background(), resume.ThreadRef{Kind: resume.AnyKind, Number: n}); !errors.Is(err, resume.ErrNotFound) {
			t.Errorf("Thread(any %d) = %v, want resume.ErrNotFound", n, err)
		}
		if got := c.Requests(); got != 1 {
			t.Errorf("Thread(any %d): requests = %d, want 1", n, got)
		}
	}
}
