package github

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// flatRepo is a fake GitHub with one repository, recess's token and the
// waiting label, and no thread yet.
type flatRepo struct{ *fakeRepo }

func newFlatRepo(t *testing.T) flatRepo {
	t.Helper()
	clock := newFakeClock()
	gh := githubfake.New(githubfake.WithClock(clock.Now))
	gh.Start()
	t.Cleanup(gh.Close)
	gh.AddRepo("o", "r")
	gh.AddToken(testToken, "github-actions[bot]", githubfake.KindBot)
	if _, err := gh.AddLabel("o/r", resume.LabelWaiting); err != nil {
		t.Fatalf("AddLabel = %v", err)
	}
	return flatRepo{&fakeRepo{gh: gh, clock: clock, ids: map[int]string{}}}
}

// open opens a thread of kind k by author, and comments on it as each
// of comments says ("author: body").
func (f flatRepo) open(t *testing.T, k state.Kind, author string, comments ...string) githubfake.Discussion {
	t.Helper()
	open := map[state.Kind]func(repo, author, title, body string) (githubfake.Discussion, error){
		state.KindDiscussion:  f.gh.CreateDiscussion,
		state.KindIssue:       f.gh.CreateIssue,
		state.KindPullRequest: f.gh.CreatePullRequest,
	}[k]
	d, err := open("o/r", author, "crash", "it crashes @lead")
	if err != nil {
		t.Fatalf("open %s = %v", k, err)
	}
	for _, c := range comments {
		who, body, _ := strings.Cut(c, ": ")
		if _, err := f.gh.Comment(d.ID, who, body); err != nil {
			t.Fatalf("Comment(%q) = %v", c, err)
		}
	}
	f.ids[d.Number] = d.ID
	return d
}

// shape is what a test compares of a thread read.
type shape struct {
	Kind                            state.Kind
	Author                          string
	AuthorBot, Closed, Merged, Mine bool
	Labels                          []string
	Comments                        []string // "author bot mine root: body"
}

func shapeOf(th *resume.Thread) shape {
	s := shape{Kind: th.Kind, Author: th.Author, AuthorBot: th.AuthorBot, Closed: th.Closed, Merged: th.Merged, Mine: th.Mine, Labels: th.Labels}
	for _, c := range th.Comments {
		s.Comments = append(s.Comments, fmt.Sprintf("%s %t %t %q: %s", c.Author, c.AuthorBot, c.Mine, c.Root, c.Body))
	}
	return s
}

func TestThreadReadsIssuesAndPullRequests(t *testing.T) {
	t.Parallel()
	many := make([]string, 230)
	for i := range many {
		many[i] = fmt.Sprintf("alice: comment %d", i)
	}
	tests := []struct {
		name     string
		kind     state.Kind
		author   string
		comments []string
		change   func(f flatRepo, d githubfake.Discussion) error
		want     shape
		requests int
	}{
		{
			name: "issue_with_a_person_a_bot_and_recess", kind: state.KindIssue, author: "alice",
			comments: []string{"alice: more detail", "renovate[bot]: deps updated", "github-actions[bot]: what version?"},
			change: func(f flatRepo, d githubfake.Discussion) error {
				return f.gh.LabelDiscussion(d.ID, resume.LabelWaiting)
			},
			want: shape{Kind: state.KindIssue, Author: "alice", Labels: []string{resume.LabelWaiting}, Comments: []string{
				`alice false false "": more detail`,
				`renovate true false "": deps updated`,
				`github-actions true true "": what version?`,
			}},
			requests: 1,
		},
		{
			name: "issue_opened_by_a_bot", kind: state.KindIssue, author: "dependabot[bot]",
			want: shape{Kind: state.KindIssue, Author: "dependabot", AuthorBot: true}, requests: 1,
		},
		{
			name: "closed_issue", kind: state.KindIssue, author: "alice",
			change:   func(f flatRepo, d githubfake.Discussion) error { return f.gh.CloseIssue(d.ID, "NOT_PLANNED") },
			want:     shape{Kind: state.KindIssue, Author: "alice", Closed: true},
			requests: 1,
		},
		{
			name: "merged_pull_request", kind: state.KindPullRequest, author: "bob", comments: []string{"carol: LGTM"},
			change: func(f flatRepo, d githubfake.Discussion) error { return f.gh.MergePullRequest(d.ID) },
			want: shape{Kind: state.KindPullRequest, Author: "bob", Closed: true, Merged: true,
				Comments: []string{`carol false false "": LGTM`}},
			requests: 1,
		},
		{
			name: "closed_pull_request_not_merged", kind: state.KindPullRequest, author: "bob",
			change:   func(f flatRepo, d githubfake.Discussion) error { return f.gh.CloseIssue(d.ID, "") },
			want:     shape{Kind: state.KindPullRequest, Author: "bob", Closed: true},
			requests: 1,
		},
		{
			name: "pull_request_opened_by_recess", kind: state.KindPullRequest, author: "github-actions[bot]",
			want: shape{Kind: state.KindPullRequest, Author: "github-actions", AuthorBot: true, Mine: true}, requests: 1,
		},
		{
			name: "issue_past_100_comments", kind: state.KindIssue, author: "alice", comments: many,
			want: func() shape {
				s := shape{Kind: state.KindIssue, Author: "alice"}
				for i := range many {
					s.Comments = append(s.Comments, fmt.Sprintf(`alice false false "": comment %d`, i))
				}
				return s
			}(),
			requests: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFlatRepo(t)
			d := f.open(t, tt.kind, tt.author, tt.comments...)
			if tt.change != nil {
				if err := tt.change(f, d); err != nil {
					t.Fatal(err)
				}
			}
			c := f.client(t)
			th, err := c.Thread(context.Background(), resume.ThreadRef{Kind: tt.kind, Number: d.Number})
			if err != nil {
				t.Fatalf("Thread = %v", err)
			}
			if diff := cmp.Diff(tt.want, shapeOf(th)); diff != "" {
				t.Errorf("Thread (-want +got):\n%s", diff)
			}
			if th.ID != d.ID || th.Number != d.Number || th.URL != d.URL || th.Repo.ID == "" || th.Repo.DefaultBranch == "" {
				t.Errorf("Thread = id %q number %d url %q repo %+v, want %q %d %q and the repository's facts", th.ID, th.Number, th.URL, th.Repo, d.ID, d.Number, d.URL)
			}
			if got := c.Requests(); got != tt.requests {
				t.Errorf("requests = %d, want %d", got, tt.requests)
			}
		})
	}
}

func TestThreadOfTheWrongKindIsNotFound(t *testing.T) {
	t.Parallel()
	f := newFlatRepo(t)
	issue := f.open(t, state.KindIssue, "alice")
	pull := f.open(t, state.KindPullRequest, "bob")
	disc := f.open(t, state.KindDiscussion, "carol")
	c := f.client(t)
	for _, ref := range []resume.ThreadRef{
		{Kind: state.KindPullRequest, Number: issue.Number},
		{Kind: state.KindIssue, Number: pull.Number},
		{Kind: state.KindIssue, Number: disc.Number},
		{Kind: state.KindDiscussion, Number: issue.Number},
	} {
		if _, err := c.Thread(context.Background(), ref); !errors.Is(err, resume.ErrNotFound) {
			t.Errorf("Thread(%s %d) = %v, want resume.ErrNotFound", ref.Kind, ref.Number, err)
		}
	}
}

func TestReplyOnAFlatThreadQuotesTheCommentItAnswers(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", state.MaxCommentBody-20)
	tests := []struct {
		name  string
		kind  state.Kind
		to    string // the answered comment's author, "" for none, "?" for an id the thread does not hold
		body  string
		quote string // the quote line the posted comment opens with ("" for none); {url} is the answered comment's
		// clipped: the quote line is cut to fill GitHub's limit exactly, and
		// quote is what it starts with.
		clipped bool
	}{
		{name: "answers_a_person", kind: state.KindIssue, to: "alice", body: "the answer",
			quote: "> [@alice]({url}): more detail"},
		{name: "answers_a_bot_by_its_account", kind: state.KindPullRequest, to: "renovate[bot]", body: "thanks",
			quote: "> [@renovate[bot]]({url}): deps updated"},
		{name: "answers_the_thread", kind: state.KindIssue, body: "to everyone"},
		{name: "unknown_comment_quotes_nothing", kind: state.KindIssue, to: "?", body: "hm"},
		{name: "long_body_clips_the_quote", kind: state.KindIssue, to: "alice", body: long,
			quote: "> [@alice](", clipped: true},
		{name: "full_body_leaves_the_quote_out", kind: state.KindIssue, to: "alice", body: strings.Repeat("x", state.MaxCommentBody)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFlatRepo(t)
			d := f.open(t, tt.kind, "bob", "alice: more detail\nand more", "renovate[bot]: deps updated")
			c := f.client(t)
			ref := resume.ThreadRef{Kind: tt.kind, Number: d.Number}
			th, err := c.Thread(context.Background(), ref)
			if err != nil {
				t.Fatal(err)
			}
			to, url := "", ""
			for _, cm := range th.Comments {
				if login := cm.Author + map[bool]string{true: "[bot]"}[cm.AuthorBot]; login == tt.to {
					to, url = cm.ID, cm.URL
				}
			}
			if tt.to == "?" {
				to = "IC_unknown"
			}
			want := tt.body
			if tt.quote != "" {
				want = strings.ReplaceAll(tt.quote, "{url}", url) + "\n\n" + tt.body
			}
			got, err := c.Reply(context.Background(), th, to, tt.body)
			if err != nil {
				t.Fatalf("Reply = %v", err)
			}
			if got.Root != "" || got.ID == "" || !got.Mine {
				t.Errorf("Reply = %+v, want recess's top-level comment", got)
			}
			comments, err := f.gh.Comments(d.ID)
			if err != nil {
				t.Fatal(err)
			}
			posted := comments[len(comments)-1]
			if posted.ID != got.ID || posted.ParentID != "" {
				t.Errorf("posted %+v, want comment %s at the top level", posted, got.ID)
			}
			if tt.clipped {
				line, _, _ := strings.Cut(posted.Body, "\n")
				if !strings.HasPrefix(line, tt.quote) || !strings.HasSuffix(line, "…") || utf8.RuneCountInString(posted.Body) != state.MaxCommentBody {
					t.Errorf("posted body opens with %q and has %d characters, want a quote line clipped to fill %d", line, utf8.RuneCountInString(posted.Body), state.MaxCommentBody)
				}
			} else if posted.Body != want {
				t.Errorf("posted body = %.200q…, want %.200q…", posted.Body, want)
			}
			if !strings.HasSuffix(posted.Body, tt.body) || utf8.RuneCountInString(posted.Body) > state.MaxCommentBody {
				t.Errorf("posted body of %d characters does not end with the whole body, or is over GitHub's limit", utf8.RuneCountInString(posted.Body))
			}
		})
	}
}

// kinds are the kinds of thread the adapter serves.
var kinds = []state.Kind{state.KindDiscussion, state.KindIssue, state.KindPullRequest}

func TestEditReactAndLabelOnEveryKind(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFlatRepo(t)
			d := f.open(t, k, "alice", "alice: hello")
			c := f.client(t)
			th, err := c.Thread(ctx, resume.ThreadRef{Kind: k, Number: d.Number})
			if err != nil {
				t.Fatal(err)
			}
			mine, err := c.Reply(ctx, th, "", "asking")
			if err != nil {
				t.Fatalf("Reply = %v", err)
			}
			if err := c.Edit(ctx, mine.ID, "asked"); err != nil {
				t.Fatalf("Edit = %v", err)
			}
			hello := th.Comments[0].ID
			for _, id := range []string{hello, d.ID} {
				if err := c.React(ctx, id, resume.Eyes); err != nil {
					t.Fatalf("React(%s) = %v", id, err)
				}
			}
			if err := c.Unreact(ctx, d.ID, resume.Eyes); err != nil {
				t.Fatalf("Unreact = %v", err)
			}
			reacted, err := c.Reacted(ctx, []string{hello, d.ID}, resume.Eyes)
			if err != nil {
				t.Fatalf("Reacted = %v", err)
			}
			for _, name := range []string{resume.LabelWaiting, resume.LabelEscalated} {
				if err := c.Label(ctx, th, name); err != nil {
					t.Fatalf("Label(%s) = %v", name, err)
				}
			}
			if err := c.Unlabel(ctx, th, resume.LabelWaiting); err != nil {
				t.Fatalf("Unlabel = %v", err)
			}

			comments, err := f.gh.Comments(d.ID)
			if err != nil {
				t.Fatal(err)
			}
			after, err := c.Thread(ctx, resume.ThreadRef{Kind: k, Number: d.Number})
			if err != nil {
				t.Fatal(err)
			}
			got := struct {
				Bodies, Labels, Reacted []string
				Eyes                    []string
			}{Labels: after.Labels, Reacted: reacted, Eyes: comments[0].Reactions[string(resume.Eyes)]}
			for _, cm := range comments {
				got.Bodies = append(got.Bodies, cm.Body)
			}
			want := got
			want.Bodies, want.Labels, want.Reacted, want.Eyes = []string{"hello", "asked"}, []string{resume.LabelEscalated}, []string{hello}, []string{"github-actions"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("after edit, reactions and labels (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommentStoreKeepsTheRecordInEveryKind(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFlatRepo(t)
			d := f.open(t, k, "alice", "alice: hello", "renovate[bot]: deps")
			ref := resume.ThreadRef{Kind: k, Number: d.Number}
			c := f.client(t)
			s := NewCommentStore(c)
			var requests []int
			count := func() {
				requests = append(requests, c.Requests()-sum(requests))
			}

			_, th, err := s.LoadWith(ctx, ref)
			count()
			if !errors.Is(err, state.ErrNotFound) || th == nil || th.Kind != k {
				t.Fatalf("LoadWith(no record) = %v, thread %v, want state.ErrNotFound with the %s", err, th, k)
			}
			rec := pendingRecord(d.Number)
			rec.Kind = k
			if err := s.Save(ctx, rec); err != nil {
				t.Fatalf("first Save = %v", err)
			}
			count()
			got, th, err := s.LoadWith(ctx, ref)
			count()
			if err != nil || th == nil || got.Rev != rec.Rev || got.Kind != k {
				t.Fatalf("LoadWith = %+v, %v, want the saved record (rev %q, kind %s) with the thread", got, err, rec.Rev, k)
			}
			got.Active.Attempt = 3
			if err := s.Save(ctx, got); err != nil {
				t.Fatalf("second Save = %v", err)
			}
			count()
			again, _, err := s.LoadWith(ctx, ref)
			count()
			if err != nil || again.Active == nil || again.Active.Attempt != 3 {
				t.Fatalf("LoadWith after the update = %+v, %v, want attempt 3", again, err)
			}
			stale := *rec
			if err := s.Save(ctx, &stale); !errors.Is(err, state.ErrConflict) {
				t.Errorf("Save(stale rev) = %v, want state.ErrConflict", err)
			}

			comments, err := f.gh.Comments(d.ID)
			if err != nil {
				t.Fatal(err)
			}
			var status []string
			for _, cm := range comments {
				if state.HasMarker(cm.Body) {
					status = append(status, cm.Author)
				}
			}
			if diff := cmp.Diff([]string{"github-actions"}, status); diff != "" {
				t.Errorf("status comments' authors (-want +got):\n%s", diff)
			}
			// A load is one read of the thread; a first save reads it again
			// and posts; an update re-reads the status comment and edits it.
			if diff := cmp.Diff([]int{1, 2, 1, 2, 1}, requests); diff != "" {
				t.Errorf("requests of load, save, load, save, load (-want +got):\n%s", diff)
			}
		})
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// A sweep's listing finds the waiting threads of each kind the store is
// told it serves, each with its kind, and asks for no other kind: a default
// store sends exactly the discussions' requests.
func TestCommentStorePendingListsTheKindsItServes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		served   []state.Kind
		want     []state.Kind // of the summaries, in number order
		requests int
	}{
		// The search, the candidates' bodies.
		{name: "discussions_by_default", want: []state.Kind{""}, requests: 2},
		// A search of type ISSUE in place of the discussions'.
		{name: "issues", served: []state.Kind{state.KindIssue}, want: []state.Kind{state.KindIssue}, requests: 2},
		{name: "pull_requests", served: []state.Kind{state.KindPullRequest}, want: []state.Kind{state.KindPullRequest}, requests: 2},
		// A pull request's comments are read apart.
		{name: "issues_and_pull_requests", served: []state.Kind{state.KindIssue, state.KindPullRequest}, want: []state.Kind{state.KindIssue, state.KindPullRequest}, requests: 3},
		// Both searches.
		{name: "every_kind", served: state.Kinds, want: []state.Kind{"", state.KindIssue, state.KindPullRequest}, requests: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFlatRepo(t)
			c := f.client(t)
			for _, k := range kinds {
				d := f.open(t, k, "alice", "alice: hello")
				rec := pendingRecord(d.Number)
				if k != state.KindDiscussion {
					rec.Kind = k
				}
				s := NewCommentStore(c)
				if err := s.Save(ctx, rec); err != nil {
					t.Fatalf("Save(%s) = %v", k, err)
				}
				_, th, err := s.LoadWith(ctx, resume.ThreadRef{Kind: k, Number: d.Number})
				if err != nil {
					t.Fatalf("LoadWith(%s) = %v", k, err)
				}
				if err := c.Label(ctx, th, resume.LabelWaiting); err != nil {
					t.Fatalf("Label(%s) = %v", k, err)
				}
			}
			// Past the hour's first slot: the label's searches alone.
			f.clock.SetTime(epoch.Add(10 * time.Minute))
			lister := f.client(t, tt.served...)
			list, err := NewCommentStore(lister).Pending(ctx)
			if err != nil {
				t.Fatalf("Pending() = %v", err)
			}
			var got []state.Kind
			for _, sum := range list {
				if !sum.Known {
					t.Errorf("Pending() lists %+v, want its record read (Known)", sum)
				}
				got = append(got, sum.Kind)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("kinds listed (-want +got):\n%s", diff)
			}
			if n := lister.Requests(); n != tt.requests {
				t.Errorf("requests = %d, want %d", n, tt.requests)
			}
		})
	}
}

// The branch store's load reads the thread in the same request as the
// record, whatever its kind: the engine's read of the thread then costs
// nothing. A thread that is not there (here: a number of another kind)
// leaves the record read, with a second request, and no thread.
func TestBranchStoreLoadReadsTheThreadOfEveryKindInItsOneRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		kind     state.Kind
		as       state.Kind // the kind the load names (default kind)
		comments int
		requests int
	}{
		{name: "discussion", kind: state.KindDiscussion, comments: 2, requests: 1},
		{name: "issue", kind: state.KindIssue, comments: 2, requests: 1},
		{name: "pull_request", kind: state.KindPullRequest, comments: 2, requests: 1},
		// Further pages only where GitHub says there are more.
		{name: "issue_past_100_comments", kind: state.KindIssue, comments: 130, requests: 2},
		{name: "number_of_another_kind", kind: state.KindPullRequest, as: state.KindIssue, requests: 2},
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
			d := f.open(t, tt.kind, "alice", says...)
			as := tt.as
			if as == "" {
				as = tt.kind
			}
			rec := pendingRecord(d.Number)
			if as != state.KindDiscussion {
				rec.Kind = as
			}
			c := f.client(t)
			s := NewBranchStore(c, "")
			if err := s.Save(ctx, rec); err != nil {
				t.Fatalf("Save = %v", err)
			}
			before := c.Requests()
			got, th, err := NewBranchStore(c, "").LoadWith(ctx, resume.ThreadRef{Kind: as, Number: d.Number})
			if err != nil || got.Kind != rec.Kind {
				t.Fatalf("LoadWith = %+v, %v; want the record of kind %q", got, err, rec.Kind)
			}
			if n := c.Requests() - before; n != tt.requests {
				t.Errorf("LoadWith sent %d requests, want %d", n, tt.requests)
			}
			if tt.as != "" {
				if th != nil {
					t.Errorf("LoadWith of a %s as a %s read %+v, want no thread", tt.kind, tt.as, th)
				}
				return
			}
			if th == nil || th.Kind != tt.kind || th.ID != d.ID || len(th.Comments) != tt.comments {
				t.Fatalf("LoadWith thread = %+v, want the %s %s with its %d comments", th, tt.kind, d.ID, tt.comments)
			}
		})
	}
}

// The comment store's listing holds for issues and pull requests what it
// holds for discussions: a pending record whose label is missing is found
// by the hour's first look at the recently updated threads, to be visited
// (which puts the label back), and not by the other sweeps' listing; a
// status comment between an issue's first and last 100 comments is found
// by paging back from the last ones (scanDeeper), its record read.
func TestCommentStorePendingLooksHourlyAndDeeperOnFlatThreads(t *testing.T) {
	t.Parallel()
	for _, k := range []state.Kind{state.KindIssue, state.KindPullRequest} {
		t.Run(string(k)+"/hourly_look_finds_a_missing_label", func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFlatRepo(t)
			c := f.client(t, k)
			d := f.open(t, k, "alice", "bob: hello")
			rec := dueRecord(d.Number, epoch.Add(time.Hour))
			rec.Kind = k
			if err := NewCommentStore(c).Save(ctx, rec); err != nil {
				t.Fatalf("Save = %v", err)
			}
			listed := func(at time.Duration) []state.Summary {
				t.Helper()
				f.clock.SetTime(epoch.Add(at))
				list, err := NewCommentStore(c).Pending(ctx)
				if err != nil {
					t.Fatalf("Pending() at +%s = %v", at, err)
				}
				return list
			}
			if got := listed(10 * time.Minute); len(got) != 0 {
				t.Errorf("Pending() outside the hour's first slot = %+v, want nothing (no label)", got)
			}
			want := []state.Summary{{Discussion: d.Number, Kind: k}}
			if diff := cmp.Diff(want, listed(62*time.Minute)); diff != "" {
				t.Errorf("Pending() in the hour's first slot (-want +got):\n%s", diff)
			}
		})
		t.Run(string(k)+"/scan_deeper_finds_the_status_comment", func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFlatRepo(t)
			c := f.client(t, k)
			d := f.open(t, k, "alice")
			say := func(n int) {
				for i := range n {
					if _, err := f.gh.Comment(d.ID, "bob", fmt.Sprintf("comment %d", i)); err != nil {
						t.Fatal(err)
					}
				}
			}
			say(scanFirst + 5)
			rec := dueRecord(d.Number, epoch.Add(time.Hour))
			rec.Kind = k
			if err := NewCommentStore(c).Save(ctx, rec); err != nil {
				t.Fatalf("Save = %v", err)
			}
			say(scanLast + 5)
			if err := f.gh.LabelDiscussion(d.ID, resume.LabelWaiting); err != nil {
				t.Fatal(err)
			}
			f.clock.SetTime(epoch.Add(10 * time.Minute))
			before := c.Requests()
			list, err := NewCommentStore(c).Pending(ctx)
			if err != nil {
				t.Fatalf("Pending() = %v", err)
			}
			want := []state.Summary{{Discussion: d.Number, Kind: k, Known: true, NextDue: epoch.Add(time.Hour)}}
			if diff := cmp.Diff(want, list, cmpopts.IgnoreFields(state.Summary{}, "Checked")); diff != "" {
				t.Errorf("Pending() (-want +got):\n%s", diff)
			}
			// The issues' search (no candidate among the first and last
			// 100 comments: no bodies to read), a page back and the
			// candidate's body there.
			if n := c.Requests() - before; n != 3 {
				t.Errorf("Pending() sent %d requests, want 3", n)
			}
		})
	}
}
