package github

import (
	"context"
	"errors"
	"github.com/recess-action/recess/internal/fakeclock"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// fakeDiscussions is how many discussions each fake repository starts with;
// the conformance suite uses numbers below it.
const fakeDiscussions = 80

// fakeRepo is a fake GitHub with one repository, recess's token (the Actions
// bot), the waiting label and fakeDiscussions discussions opened by alice.
type fakeRepo struct {
	gh    *githubfake.GitHub
	clock *fakeclock.Clock
	ids   map[int]string
}

func newFakeRepo(t *testing.T) *fakeRepo {
	t.Helper()
	clock := newFakeClock()
	// The budget is a real GITHUB_TOKEN's ten times over: the racing-writer
	// cases retry a lot, and budgets are not what this suite is about.
	gh := githubfake.New(githubfake.WithClock(clock.Now), githubfake.WithGraphQLBudget(10_000), githubfake.WithRESTBudget(10_000))
	gh.Start()
	t.Cleanup(gh.Close)
	gh.AddRepo("o", "r")
	gh.AddToken(testToken, "github-actions[bot]", githubfake.KindBot)
	if _, err := gh.AddLabel("o/r", resume.LabelWaiting); err != nil {
		t.Fatalf("AddLabel = %v", err)
	}
	f := &fakeRepo{gh: gh, clock: clock, ids: map[int]string{}}
	for range fakeDiscussions {
		d, err := gh.CreateDiscussion("o/r", "alice", "RFC", "Please comment.")
		if err != nil {
			t.Fatalf("CreateDiscussion = %v", err)
		}
		f.ids[d.Number] = d.ID
	}
	return f
}

// client is a client of the fake repository whose setup serves kinds
// (none: discussions alone).
func (f *fakeRepo) client(t *testing.T, kinds ...state.Kind) *Client {
	t.Helper()
	c, err := New(Config{Token: testToken, APIURL: f.gh.URL(), GraphQLURL: f.gh.GraphQLURL(), Owner: "o", Repo: "r",
		Clock: f.clock, Sleep: f.clock.Sleep, Logf: t.Logf, Kinds: kinds})
	if err != nil {
		t.Fatalf("New = %v", err)
	}
	return c
}

// corrupt replaces recess's status comment in discussion n with a marker
// that cannot be decoded (or posts one as recess when there is none), as a
// bad write or a hand edit would leave it.
func (f *fakeRepo) corrupt(t *testing.T, n int) {
	t.Helper()
	const bad = "⏸ status\n\n<!-- recess:state v1\n@@@ not base64 @@@\n-->"
	id, ok := f.ids[n]
	if !ok {
		t.Fatalf("no discussion %d in the fake repository", n)
	}
	comments, err := f.gh.Comments(id)
	if err != nil {
		t.Fatalf("Comments(%d) = %v", n, err)
	}
	for i := len(comments) - 1; i >= 0; i-- {
		c := comments[i]
		if c.Author == "github-actions" && state.HasMarker(c.Body) {
			if err := f.gh.EditComment(c.ID, bad); err != nil {
				t.Fatalf("EditComment = %v", err)
			}
			return
		}
	}
	if _, err := f.gh.Comment(id, "github-actions[bot]", bad); err != nil {
		t.Fatalf("Comment = %v", err)
	}
}

func TestCommentStoreConformance(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	repos := map[storetest.Store]*fakeRepo{}
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T) storetest.Store {
			f := newFakeRepo(t)
			s := NewCommentStore(f.client(t))
			mu.Lock()
			repos[s] = f
			mu.Unlock()
			return s
		},
		Corrupt: func(t *testing.T, s storetest.Store, discussion int) {
			mu.Lock()
			f := repos[s]
			mu.Unlock()
			f.corrupt(t, discussion)
		},
		// Another run: its own client and store over the same repository.
		Another: func(t *testing.T, s storetest.Store) storetest.Store {
			mu.Lock()
			f := repos[s]
			mu.Unlock()
			return NewCommentStore(f.client(t))
		},
		NoCompareAndSwap: true,
		// The status comment's visible text takes part of GitHub's 65,536
		// characters; the suite's largest records carry none. Without
		// visible text a status comment holds a record of at most 48,495
		// bytes (state's TestEncodeCommentSize).
		MaxRecordBytes: 48495,
	})
}

// TestCommentStoreOnFakeGitHub checks what the suite cannot see: identity by
// viewerDidAuthor on a GitHub that renders the bot's login two ways, and the
// request counts the engine's budget depends on.
func TestCommentStoreOnFakeGitHub(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	c := f.client(t)
	store := NewCommentStore(c)
	ctx := context.Background()
	// Someone copies a status comment into their own comment.
	forged, _ := state.EncodeComment("⏸ fake", dueRecord(3, epoch))
	fc, err := f.gh.Comment(f.ids[3], "mallory", forged)
	if err != nil {
		t.Fatalf("Comment = %v", err)
	}
	if _, err := store.Load(ctx, 3); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Load(3) with only a forged marker = %v, want ErrNotFound", err)
	}
	if got := store.ForgedMarkers(); len(got) != 1 || got[0] != fc.ID {
		t.Errorf("ForgedMarkers() = %v, want [%s]", got, fc.ID)
	}

	rec := dueRecord(3, epoch.Add(time.Hour))
	f.gh.ResetLog()
	if err := store.Save(ctx, rec); err != nil {
		t.Fatalf("Save(3) = %v", err)
	}
	t.Logf("Save (create) on the fake: %d GraphQL requests, %d points", f.gh.CountGraphQL(), f.gh.GraphQLPoints())
	d, err := f.gh.Discussion("o/r", 3)
	if err != nil || contains(d.Labels, resume.LabelWaiting) {
		t.Errorf("discussion 3 labels after Save = %v, %v, want none (a store writes only the record)", d.Labels, err)
	}
	// The engine labels a pending record's discussion (resume.LabelFinder).
	if err := f.gh.LabelDiscussion(f.ids[3], resume.LabelWaiting); err != nil {
		t.Fatal(err)
	}

	f.gh.ResetLog()
	loaded, disc, err := store.LoadWith(ctx, resume.DiscussionRef(3))
	if err != nil || disc == nil {
		t.Fatalf("LoadWith(3) = %v, %v", disc, err)
	}
	if got := f.gh.CountGraphQL() + f.gh.CountREST(); got != 1 {
		t.Errorf("LoadWith requests = %d, want 1", got)
	}

	loaded.Applied = []string{"c-1"}
	f.gh.ResetLog()
	if err := store.Save(ctx, loaded); err != nil {
		t.Fatalf("Save(changed) = %v", err)
	}
	if got := f.gh.CountGraphQL() + f.gh.CountREST(); got != 2 {
		t.Errorf("Save(changed) requests = %d, want 2 (the re-read, the update)", got)
	}

	f.gh.ResetLog()
	list, err := store.Pending(ctx)
	if err != nil || len(list) != 1 || list[0].Discussion != 3 || !list[0].Known {
		t.Errorf("Pending() = %+v, %v, want discussion 3, known", list, err)
	}
	t.Logf("Pending on the fake: %d GraphQL requests, %d points", f.gh.CountGraphQL(), f.gh.GraphQLPoints())
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// A pending record without the waiting label (a record
// older than the label, a labelling that failed) in a discussion that 120
// others were updated after is beyond the hourly look at the 100 most
// recently updated open discussions; the day's first sweep reaches it, and
// lists it to be visited (not Known), which puts the label back.
func TestCommentStorePendingFindsOldUnlabelledRecordWithinTheDay(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	ctx := context.Background()
	rec := dueRecord(1, epoch.Add(-time.Hour))
	rec.DiscussionID = f.ids[1]
	if err := NewCommentStore(f.client(t)).Save(ctx, rec); err != nil {
		t.Fatalf("Save(1) = %v", err)
	}
	if err := f.gh.UnlabelDiscussion(f.ids[1], resume.LabelWaiting); err != nil {
		t.Fatalf("UnlabelDiscussion = %v", err)
	}
	f.clock.Step(time.Minute)
	for range 120 {
		if _, err := f.gh.CreateDiscussion("o/r", "bob", "Question", "no recess here"); err != nil {
			t.Fatalf("CreateDiscussion = %v", err)
		}
	}
	listed := func(at time.Time) bool {
		t.Helper()
		f.clock.SetTime(at)
		s := NewCommentStore(f.client(t))
		list, err := s.Pending(ctx)
		if err != nil {
			t.Fatalf("Pending() at %s = %v", at.Format(time.RFC3339), err)
		}
		for _, sum := range list {
			if sum.Discussion == 1 {
				if sum.Known {
					t.Errorf("Pending() at %s lists %+v, want it to be visited (not Known): the visit puts its label back", at.Format(time.RFC3339), sum)
				}
				return true
			}
		}
		return false
	}
	day := epoch.Truncate(24 * time.Hour)
	for _, hour := range []int{11, 12, 23} {
		if at := day.Add(time.Duration(hour)*time.Hour + 2*time.Minute); listed(at) {
			t.Errorf("Pending() at %s found discussion 1 beyond the 100 most recently updated; the test no longer tests the daily look", at.Format(time.RFC3339))
		}
	}
	f.gh.ResetLog()
	if at := day.Add(24*time.Hour + 2*time.Minute); !listed(at) {
		t.Errorf("Pending() at %s (the day's first sweep) did not list discussion 1, a pending record without the label", at.Format(time.RFC3339))
	}
	t.Logf("the day's first Pending over 201 open discussions: %d GraphQL requests, %d points", f.gh.CountGraphQL(), f.gh.GraphQLPoints())
}

// Overlooked, which a sweep asks before it switches itself off, finds a
// pending record whose discussion has no waiting label among the recently
// updated discussions, to be visited, and not a record with nothing
// pending; after a Pending that made that look itself (the hour's first
// slot) it sends nothing.
func TestCommentStoreOverlooked(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	ctx := context.Background()
	pending := dueRecord(1, epoch.Add(2*time.Hour))
	pending.DiscussionID = f.ids[1]
	idle := state.New(2)
	idle.DiscussionID, idle.Status = f.ids[2], "✅ Nothing is pending here."
	for _, rec := range []*state.Record{pending, idle} {
		if err := NewCommentStore(f.client(t)).Save(ctx, rec); err != nil {
			t.Fatalf("Save(%d) = %v", rec.Discussion, err)
		}
	}
	for _, tc := range []struct {
		name string
		at   time.Duration // past 10:00
		want []state.Summary
	}{
		{"outside_the_first_slot", 7 * time.Minute, []state.Summary{{Discussion: 1}}},
		{"after_the_first_slots_look", 62 * time.Minute, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.clock.SetTime(epoch.Add(tc.at))
			s := NewCommentStore(f.client(t))
			list, err := s.Pending(ctx)
			if err != nil {
				t.Fatalf("Pending() = %v", err)
			}
			f.gh.ResetLog()
			got, err := s.Overlooked(ctx)
			if err != nil {
				t.Fatalf("Overlooked() = %v", err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Overlooked() after Pending() listed %+v (-want +got):\n%s", list, d)
			}
			if tc.want == nil && f.gh.CountGraphQL() != 0 {
				t.Errorf("Overlooked() after a Pending() that looked sent %d requests, want none", f.gh.CountGraphQL())
			}
		})
	}
}

// TestCommentStoreLost reads deleted comments as their deletion's event
// gives them: only recess's own status comment of the discussion gives back
// a record, decoded as Load decodes it; a marker costs one request (recess's
// own login), no marker none.
func TestCommentStoreLost(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	ctx := context.Background()
	saved := dueRecord(5, epoch)
	if err := NewCommentStore(f.client(t)).Save(ctx, saved); err != nil {
		t.Fatalf("Save(5) = %v", err)
	}
	comments, err := f.gh.Comments(f.ids[5])
	if err != nil || len(comments) != 1 {
		t.Fatalf("Comments(5) = %d comments, %v; want the status comment", len(comments), err)
	}
	status := comments[0].Body
	want, _, err := state.DecodeComment(status)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := state.EncodeComment("⏸ status", dueRecord(6, epoch))

	tests := []struct {
		name       string
		discussion int
		body       string
		author     string
		want       *state.Record
		wantErr    error
		requests   int
	}{
		{name: "recess_status_comment", discussion: 5, body: status, author: "github-actions[bot]", want: want, requests: 1},
		{name: "login_compared_as_one_account", discussion: 5, body: status, author: " GitHub-Actions[BOT] ", want: want, requests: 1},
		// The person whose login is the app's base name is not the app.
		{name: "person_with_the_apps_base_name", discussion: 5, body: status, author: "github-actions", requests: 1},
		{name: "someone_elses_comment_with_the_marker", discussion: 5, body: status, author: "mallory", requests: 1},
		{name: "no_marker", discussion: 5, body: "Thanks!", author: "github-actions[bot]", requests: 0},
		{name: "record_of_another_discussion", discussion: 5, body: other, author: "github-actions[bot]", requests: 1},
		{name: "record_that_does_not_decode", discussion: 5, body: "⏸ status\n\n<!-- recess:state v1\n@@@ not base64 @@@\n-->", author: "github-actions[bot]", wantErr: state.ErrCorrupt, requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := f.client(t)
			got, err := NewCommentStore(c).Lost(ctx, tt.discussion, resume.DeletedComment{Body: tt.body, Author: tt.author})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Lost = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Lost record (-want +got):\n%s", diff)
			}
			if n := c.Requests(); n != tt.requests {
				t.Errorf("Lost sent %d requests, want %d", n, tt.requests)
			}
		})
	}
}

// Reacted tells recess's own reaction from everyone else's, on comments and
// on the discussion itself, in one request however many subjects.
func TestReactedTellsRecesssOwnReaction(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	c := f.client(t)
	ctx := context.Background()
	disc := f.ids[1]
	acked, err := f.gh.Comment(disc, "bob", "Postgres.")
	if err != nil {
		t.Fatal(err)
	}
	other, err := f.gh.Comment(disc, "carol", "Same.")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{acked.ID, disc, f.ids[2]} {
		if err := c.React(ctx, id, resume.Eyes); err != nil {
			t.Fatalf("React(%s) = %v", id, err)
		}
	}
	// Someone else's 👀, and recess's own 👍, are not recess's 👀.
	if err := f.gh.React(other.ID, "dave", "EYES"); err != nil {
		t.Fatal(err)
	}
	if err := c.React(ctx, other.ID, resume.ThumbsUp); err != nil {
		t.Fatal(err)
	}
	before := c.Requests()
	got, err := c.Reacted(ctx, []string{disc, acked.ID, other.ID}, resume.Eyes)
	if err != nil {
		t.Fatalf("Reacted = %v", err)
	}
	if diff := cmp.Diff([]string{disc, acked.ID}, got); diff != "" {
		t.Errorf("Reacted (-want +got):\n%s", diff)
	}
	if n := c.Requests() - before; n != 1 {
		t.Errorf("Reacted sent %d requests, want 1", n)
	}
}
