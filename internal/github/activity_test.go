package github

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

func TestActivityOnFakeGitHub(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	ctx := context.Background()
	say := func(n int, parent, author string) time.Time {
		t.Helper()
		f.clock.Step(time.Minute)
		var err error
		if parent != "" {
			_, err = f.gh.Reply(parent, author, "words")
		} else {
			_, err = f.gh.Comment(f.ids[n], author, "words")
		}
		if err != nil {
			t.Fatalf("comment on %d: %v", n, err)
		}
		return f.clock.Now().UTC()
	}
	created := epoch // every discussion of the fake repository
	topLevel := func(n int) string {
		t.Helper()
		cs, err := f.gh.Comments(f.ids[n])
		if err != nil || len(cs) == 0 {
			t.Fatalf("Comments(%d) = %v, %v", n, cs, err)
		}
		return cs[0].ID
	}

	want := map[int]time.Time{1: created}
	want[2] = say(2, "", "alice")
	say(3, "", "alice")
	want[3] = say(3, topLevel(3), "bob") // a reply in the newest thread
	say(4, "", "alice")
	say(4, "", "carol")
	// A reply in an older thread (recess's question,
	// typically) while a newer top-level comment exists is seen.
	want[4] = say(4, topLevel(4), "bob")
	want[5] = say(5, "", "alice")
	say(5, "", "github-actions[bot]") // recess's own: not activity, and it hides nothing
	// Six newer threads bury the first one's reply: out of view.
	say(11, "", "alice")
	say(11, topLevel(11), "bob")
	for range activityThreads {
		want[11] = say(11, "", "carol")
	}
	// The same, under a thread recess asked in: seen, however deep.
	say(12, "", "github-actions[bot]")
	question := topLevel(12)
	for range activityThreads + 1 {
		say(12, "", "carol")
	}
	want[12] = say(12, question, "bob")
	// A question thread that is gone (deleted without replies) is left
	// out of the look; the discussion is still answered.
	say(13, "", "github-actions[bot]")
	goneQuestion := topLevel(13)
	want[13] = say(13, "", "carol")
	if err := f.gh.DeleteComment(goneQuestion); err != nil {
		t.Fatalf("DeleteComment = %v", err)
	}
	say(9, "", "github-actions[bot]")
	want[10] = say(10, "", "github-actions[bot]")
	want[10] = say(10, topLevel(10), "bob") // a reply to recess's question
	if err := f.gh.CloseDiscussion(f.ids[6], "RESOLVED"); err != nil {
		t.Fatalf("CloseDiscussion = %v", err)
	}
	if err := f.gh.LockDiscussion(f.ids[7], true); err != nil {
		t.Fatalf("LockDiscussion = %v", err)
	}
	if err := f.gh.DeleteDiscussion(f.ids[8]); err != nil {
		t.Fatalf("DeleteDiscussion = %v", err)
	}
	waiting := []state.Summary{{Discussion: 1}, {Discussion: 2}, {Discussion: 3}, {Discussion: 4}, {Discussion: 5}, {Discussion: 6},
		{Discussion: 7}, {Discussion: 8}, {Discussion: 12, ThreadRoots: []string{question}}, {Discussion: 13, ThreadRoots: []string{goneQuestion}}}
	for n := 9; n <= 60; n++ {
		if n != 12 && n != 13 {
			waiting = append(waiting, state.Summary{Discussion: n})
		}
		if _, ok := want[n]; !ok {
			want[n] = created
		}
	}

	c := f.client(t)
	f.gh.ResetLog()
	got, err := c.Activity(ctx, waiting)
	if err != nil {
		t.Fatalf("Activity(%d discussions) = %v", len(waiting), err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Activity() (-want +got):\n%s", diff)
	}
	// One page, asked again without the deleted discussion and the gone
	// question.
	if got, want := f.gh.CountGraphQL(), 2; got != want {
		t.Errorf("Activity() requests = %d, want %d", got, want)
	}
	t.Logf("Activity over %d discussions, one deleted: %d requests, %d points", len(waiting), f.gh.CountGraphQL(), f.gh.GraphQLPoints())

	t.Run("pages_of_100", func(t *testing.T) {
		t.Parallel()
		f := newFakeRepo(t)
		for range 150 - fakeDiscussions {
			if _, err := f.gh.CreateDiscussion("o/r", "alice", "RFC", "more"); err != nil {
				t.Fatalf("CreateDiscussion = %v", err)
			}
		}
		c := f.client(t)
		var waiting []state.Summary
		for n := 1; n <= 150; n++ {
			waiting = append(waiting, state.Summary{Discussion: n}, state.Summary{Discussion: n}) // a discussion asked twice is read once
		}
		f.gh.ResetLog()
		got, err := c.Activity(context.Background(), waiting)
		if err != nil {
			t.Fatalf("Activity = %v", err)
		}
		if len(got) != 150 {
			t.Errorf("Activity() answered %d discussions, want 150", len(got))
		}
		if n, points := f.gh.CountGraphQL(), f.gh.GraphQLPoints(); n != 2 || points > 10 {
			t.Errorf("Activity(150 discussions) = %d requests, %d points; want 2 requests (100 a page), at most about 7 points for a full page", n, points)
		}
	})
}

// TestRepoFactsLabelsAreRecessLabels keeps the label names written into the
// repoFacts document equal to the engine's constants.
func TestRepoFactsLabelsAreRecessLabels(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeFor[repoFacts]()
	for _, tt := range []struct{ field, label string }{
		{"Waiting", resume.LabelWaiting},
		{"Escalated", resume.LabelEscalated},
	} {
		f, ok := typ.FieldByName(tt.field)
		if !ok {
			t.Fatalf("repoFacts has no field %s", tt.field)
		}
		if tag := f.Tag.Get("graphql"); !strings.Contains(tag, `label(name: "`+tt.label+`")`) {
			t.Errorf("repoFacts.%s tag = %q, want the label %q", tt.field, tag, tt.label)
		}
	}
}

// TestDispatchAndLabelsTakeTheRepositoryFromTheDiscussionRead checks that a
// dispatch carrying what a discussion's read reported of the repository
// needs no default-branch lookup, and labelling that discussion no label
// lookup.
func TestDispatchAndLabelsTakeTheRepositoryFromTheDiscussionRead(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.addLabel("recess:escalated")
	h.addDiscussion(4)
	var dispatched map[string]any
	h.rest.HandleFunc("POST /api/v3/repos/o/r/actions/workflows/agent.yml/dispatches", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("dispatch body: %v", err)
		}
		dispatched = body
		writeJSON(w, 200, map[string]any{"workflow_run_id": 7})
	})
	ctx := context.Background()
	read, err := h.client(t, nil).Thread(ctx, resume.DiscussionRef(4))
	if err != nil {
		t.Fatalf("Discussion(4) = %v", err)
	}
	// Another client: the facts travel with the discussion, not in it.
	c := h.client(t, nil)
	h.ResetCalls()
	if _, err := c.Dispatch(ctx, resume.DispatchRequest{CorrelationID: "c-1", Discussion: 4, Repo: read.Repo}); err != nil {
		t.Fatalf("Dispatch = %v", err)
	}
	if err := c.Label(ctx, read, "recess:escalated"); err != nil {
		t.Fatalf("Label = %v", err)
	}
	if err := c.Label(ctx, read, "recess:waiting"); err != nil { // missing: created
		t.Fatalf("Label(missing) = %v", err)
	}
	// The read told the default branch, the label ids and the repository
	// id: no lookup before the dispatch or the labels.
	wantCalls := []string{"POST /repos/o/r/actions/workflows/agent.yml/dispatches", "mutation addLabelsToLabelable",
		"mutation createLabel", "mutation addLabelsToLabelable"}
	if diff := cmp.Diff(wantCalls, roots(h.Calls())); diff != "" {
		t.Errorf("requests after a discussion read (-want +got):\n%s", diff)
	}
	if dispatched["ref"] != "main" {
		t.Errorf("dispatch ref = %v, want main (the default branch the read reported)", dispatched["ref"])
	}
}

// The probe looks at issues and pull requests in the same request as
// discussions: the newest comment by someone else than recess, the thread's
// own creation when there is none; a closed, merged or locked one, and a
// number that names a thread of another kind, are left out, to be visited.
func TestActivityOnIssuesAndPullRequests(t *testing.T) {
	t.Parallel()
	f := newFlatRepo(t)
	ctx := context.Background()
	type thread struct {
		kind     state.Kind
		comments []string // "author: body", a minute apart
		change   func(id string) error
		// as is the kind the summary names (default kind).
		as   state.Kind
		seen bool // the probe vouches for it
		// newest is the index of the comment whose time it reports (-1:
		// the thread's creation).
		newest int
	}
	threads := []thread{
		{kind: state.KindDiscussion, comments: []string{"bob: hi"}, seen: true, newest: 0},
		{kind: state.KindIssue, seen: true, newest: -1},
		{kind: state.KindIssue, comments: []string{"bob: Postgres.", "carol: MySQL?"}, seen: true, newest: 1},
		// recess's own comments are not activity, however many follow.
		{kind: state.KindIssue, comments: []string{"bob: Postgres.", "github-actions[bot]: noted", "github-actions[bot]: status"}, seen: true, newest: 0},
		// A bot's comment is activity: the visit notes that it looked.
		{kind: state.KindPullRequest, comments: []string{"carol: LGTM", "ci[bot]: green"}, seen: true, newest: 1},
		{kind: state.KindIssue, comments: []string{"bob: done"}, change: func(id string) error { return f.gh.CloseIssue(id, "COMPLETED") }},
		{kind: state.KindPullRequest, change: f.gh.MergePullRequest},
		{kind: state.KindIssue, change: func(id string) error { return f.gh.LockIssue(id, true) }},
		{kind: state.KindPullRequest, as: state.KindIssue},
	}
	var waiting []state.Summary
	want := map[int]time.Time{}
	for _, th := range threads {
		d := f.open(t, th.kind, "alice")
		times := []time.Time{d.CreatedAt.UTC()}
		for _, c := range th.comments {
			f.clock.Step(time.Minute)
			who, body, _ := strings.Cut(c, ": ")
			if _, err := f.gh.Comment(d.ID, who, body); err != nil {
				t.Fatal(err)
			}
			times = append(times, f.clock.Now().UTC())
		}
		if th.change != nil {
			if err := th.change(d.ID); err != nil {
				t.Fatal(err)
			}
		}
		s := state.Summary{Discussion: d.Number, Kind: th.as}
		if th.as == "" && th.kind.Flat() {
			s.Kind = th.kind
		}
		if th.kind.Flat() {
			s.ThreadRoots = []string{"IC_question"} // no thread to look into in a flat thread
		}
		waiting = append(waiting, s)
		if th.seen {
			want[d.Number] = times[th.newest+1]
		}
	}
	c := f.client(t)
	f.gh.ResetLog()
	got, err := c.Activity(ctx, waiting)
	if err != nil {
		t.Fatalf("Activity = %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Activity (-want +got):\n%s", diff)
	}
	// One request, asked again without the number of the wrong kind.
	if n, points := f.gh.CountGraphQL(), f.gh.GraphQLPoints(); n != 2 || points > 2 {
		t.Errorf("Activity = %d requests, %d points; want 2 requests (one page, asked again without the thread not found), a point each", n, points)
	}
}
