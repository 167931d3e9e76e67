package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/shurcooL/githubv4"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// branchOpts compare records as the branch store keeps them (Rev aside).
var branchOpts = cmp.Options{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(state.Record{}, "Rev")}

// plantFile commits a file on the state branch behind every store's back,
// as a hand edit or a broken writer would.
func (f *fakeRepo) plantFile(t *testing.T, path, contents string) {
	t.Helper()
	if _, err := f.gh.Commit("o/r", DefaultStateBranch, "hand edit", map[string]string{path: contents}); err != nil {
		t.Fatalf("Commit(%s) = %v", path, err)
	}
}

// counts is what one step sent, by the fake's log.
type counts struct {
	Queries, Mutations, REST int
}

func (f *fakeRepo) counts() counts {
	var c counts
	for _, r := range f.gh.Requests() {
		switch {
		case !r.GraphQL:
			c.REST++
		case r.Mutation:
			c.Mutations++
		default:
			c.Queries++
		}
	}
	return c
}

// step resets the fake's log, runs do and returns what it sent.
func (f *fakeRepo) step(t *testing.T, do func() error) (counts, error) {
	t.Helper()
	f.gh.ResetLog()
	err := do()
	return f.counts(), err
}

func TestBranchStoreConformance(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	repos := map[storetest.Store]*fakeRepo{}
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T) storetest.Store {
			f := newFakeRepo(t)
			s := NewBranchStore(f.client(t), "")
			mu.Lock()
			repos[s] = f
			mu.Unlock()
			return s
		},
		Corrupt: func(t *testing.T, s storetest.Store, discussion int) {
			mu.Lock()
			f := repos[s]
			mu.Unlock()
			path, _, _ := branchPaths(discussion)
			f.plantFile(t, path, `{"schema":1,"discussion":`)
		},
		// Another run: its own client and store over the same repository.
		Another: func(t *testing.T, s storetest.Store) storetest.Store {
			mu.Lock()
			f := repos[s]
			mu.Unlock()
			return NewBranchStore(f.client(t), "")
		},
	})
}

// TestBranchStoreRequestCounts pins what each operation costs on a fresh
// repository and after, which is what the engine's budget depends on.
func TestBranchStoreRequestCounts(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	c := f.client(t)
	s := NewBranchStore(c, "")
	ctx := context.Background()

	var list []state.Summary
	got, err := f.step(t, func() (err error) { list, err = s.Pending(ctx); return err })
	if err != nil || len(list) != 0 {
		t.Fatalf("Pending() without the branch = %v, %v, want none", list, err)
	}
	if want := (counts{Queries: 1}); got != want {
		t.Errorf("Pending() without the branch sent %+v, want %+v", got, want)
	}

	got, err = f.step(t, func() error { _, err := s.Load(ctx, 3); return err })
	if !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Load(3) without the branch = %v, want ErrNotFound", err)
	}
	if want := (counts{Queries: 1}); got != want {
		t.Errorf("Load(3) without the branch sent %+v, want %+v", got, want)
	}

	// The first save creates the branch: tree, commit and ref over REST,
	// then the record's commit.
	rec := dueRecord(3, epoch.Add(time.Hour))
	got, err = f.step(t, func() error { return s.Save(ctx, rec) })
	if err != nil {
		t.Fatalf("Save(3) creating the branch = %v", err)
	}
	if want := (counts{REST: 3, Mutations: 1}); got != want {
		t.Errorf("Save(3) creating the branch sent %+v, want %+v", got, want)
	}

	var loaded *state.Record
	got, err = f.step(t, func() error {
		var err error
		var d *resume.Thread
		if loaded, d, err = s.LoadWith(ctx, resume.DiscussionRef(3)); err == nil && d == nil {
			err = errors.New("no discussion")
		}
		return err
	})
	if err != nil {
		t.Fatalf("LoadWith(3) = %v", err)
	}
	if want := (counts{Queries: 1}); got != want {
		t.Errorf("LoadWith(3) sent %+v, want %+v", got, want)
	}

	loaded.Applied = []string{"c-1"}
	got, err = f.step(t, func() error { return s.Save(ctx, loaded) })
	if err != nil {
		t.Fatalf("Save(changed 3) = %v", err)
	}
	if want := (counts{Mutations: 1}); got != want {
		t.Errorf("Save(changed 3), head unmoved, sent %+v, want %+v", got, want)
	}

	got, err = f.step(t, func() error { return s.Save(ctx, loaded) })
	if err != nil {
		t.Fatalf("Save(unchanged 3) = %v", err)
	}
	if want := (counts{Queries: 1}); got != want {
		t.Errorf("Save(unchanged 3) sent %+v, want %+v (the read that checks Rev, no commit)", got, want)
	}

	// Another run writes discussion 4: the head moves under this store.
	other := NewBranchStore(f.client(t), "")
	got, err = f.step(t, func() error { return other.Save(ctx, dueRecord(4, epoch)) })
	if err != nil {
		t.Fatalf("Save(4) by another store = %v", err)
	}
	if want := (counts{Queries: 1, Mutations: 1}); got != want {
		t.Errorf("Save(4) by a store that read nothing sent %+v, want %+v", got, want)
	}

	loaded.Applied = append(loaded.Applied, "c-2")
	got, err = f.step(t, func() error { return s.Save(ctx, loaded) })
	if err != nil {
		t.Fatalf("Save(3) after the head moved = %v, want nil (another discussion changed)", err)
	}
	if want := (counts{Queries: 1, Mutations: 2}); got != want {
		t.Errorf("Save(3) after the head moved sent %+v, want %+v (stale commit, read, commit)", got, want)
	}

	got, err = f.step(t, func() (err error) { list, err = s.Pending(ctx); return err })
	if err != nil || len(list) != 2 || !list[0].Known {
		t.Fatalf("Pending() = %+v, %v, want two known entries", list, err)
	}
	if want := (counts{Queries: 1}); got != want {
		t.Errorf("Pending() sent %+v, want %+v", got, want)
	}
	t.Logf("points: %d for the last Pending", f.gh.GraphQLPoints())
}

// TestBranchStoreOrphanBranch checks the branch the first save creates:
// no history shared with the project, only recess's files, exactly the
// bytes state.Encode produces and the index layout.
func TestBranchStoreOrphanBranch(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	c := f.client(t)
	s := NewBranchStore(c, "refs/heads/recess-state")
	ctx := context.Background()
	rec := dueRecord(19, epoch.Add(2*time.Hour))
	rec.Checked = epoch.Add(-time.Minute)
	if err := s.Save(ctx, rec); err != nil {
		t.Fatalf("Save(19) = %v", err)
	}

	readme, ok, err := f.gh.File("o/r", "recess-state", "README.md")
	if err != nil || !ok || readme != branchReadme {
		t.Errorf("README.md on the state branch = %q, %v, %v, want recess's README", readme, ok, err)
	}
	want, err := state.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	file, ok, err := f.gh.File("o/r", "recess-state", "discussions/19.json")
	if err != nil || !ok || file != string(want) {
		t.Errorf("discussions/19.json = %q, %v, %v, want exactly state.Encode's %q", file, ok, err, want)
	}
	index, ok, err := f.gh.File("o/r", "recess-state", "index/3.json")
	wantIndex := "{\n  \"19\": {\"next_due\":\"2026-11-21T12:00:00Z\",\"checked\":\"2026-11-21T09:59:00Z\"}\n}\n"
	if err != nil || !ok || index != wantIndex {
		t.Errorf("index/3.json = %q, %v, %v, want %q", index, ok, err, wantIndex)
	}

	// Walk the branch back to its root: it must not reach main's history.
	mainHead, err := f.gh.Ref("o/r", "main")
	if err != nil {
		t.Fatal(err)
	}
	head, err := f.gh.Ref("o/r", "recess-state")
	if err != nil {
		t.Fatal(err)
	}
	var messages []string
	for sha := head; sha != ""; {
		if sha == mainHead {
			t.Fatalf("the state branch reaches main's commit %s, want an orphan branch", mainHead)
		}
		commit, _, err := c.rest.Git.GetCommit(ctx, "o", "r", sha)
		if err != nil {
			t.Fatalf("GetCommit(%s) = %v", sha, err)
		}
		messages = append(messages, commit.GetMessage())
		sha = ""
		if len(commit.Parents) > 1 {
			t.Fatalf("commit %s has %d parents, want at most one", commit.GetSHA(), len(commit.Parents))
		}
		if len(commit.Parents) == 1 {
			sha = commit.Parents[0].GetSHA()
		}
	}
	if diff := cmp.Diff([]string{"recess: discussion #19", "recess: start the state branch"}, messages); diff != "" {
		t.Errorf("state branch history (-want +got):\n%s", diff)
	}
}

// TestBranchStoreCreateRace has two runs create the branch at once: both
// saves must land, on one branch.
func TestBranchStoreCreateRace(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	ctx := context.Background()
	a, b := NewBranchStore(f.client(t), ""), NewBranchStore(f.client(t), "")
	// Both see no branch, each for the discussion it writes.
	for n, s := range map[int]*BranchStore{1: a, 2: b} {
		if _, err := s.Load(ctx, n); !errors.Is(err, state.ErrNotFound) {
			t.Fatalf("Load(%d) = %v, want ErrNotFound", n, err)
		}
	}
	if err := a.Save(ctx, dueRecord(1, epoch)); err != nil {
		t.Fatalf("Save(1) by the first run = %v", err)
	}
	// b still believes there is no branch: its creation meets 422
	// "Reference already exists" and it commits on a's branch instead.
	got, err := f.step(t, func() error { return b.Save(ctx, dueRecord(2, epoch)) })
	if err != nil {
		t.Fatalf("Save(2) by the second run = %v, want nil", err)
	}
	if want := (counts{REST: 3, Queries: 1, Mutations: 1}); got != want {
		t.Errorf("Save(2) racing the branch creation sent %+v, want %+v", got, want)
	}
	list, err := a.Pending(ctx)
	if err != nil {
		t.Fatalf("Pending() = %v", err)
	}
	var nums []int
	for _, x := range list {
		nums = append(nums, x.Discussion)
	}
	if diff := cmp.Diff([]int{1, 2}, nums); diff != "" {
		t.Errorf("Pending() discussions (-want +got):\n%s", diff)
	}

	// And truly at once, many runs on a fresh repository.
	g := newFakeRepo(t)
	const runs = 4
	var wg sync.WaitGroup
	errs := make([]error, runs)
	for i := range runs {
		s := NewBranchStore(g.client(t), "")
		wg.Go(func() { errs[i] = s.Save(ctx, dueRecord(10+i, epoch)) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent first Save(%d) = %v, want nil", 10+i, err)
		}
	}
	s := NewBranchStore(g.client(t), "")
	for i := range runs {
		if _, err := s.Load(ctx, 10+i); err != nil {
			t.Errorf("Load(%d) after concurrent first saves = %v", 10+i, err)
		}
	}
}

// appendMoment is the engine's retry loop: read, change, write, and on a
// conflict start again from a fresh read.
func appendMoment(ctx context.Context, s *BranchStore, n int, at time.Time, conflicts *int) error {
	for range 200 {
		rec, err := s.Load(ctx, n)
		if err != nil {
			return err
		}
		rec.Dispatches = append(rec.Dispatches, at)
		err = s.Save(ctx, rec)
		if !errors.Is(err, state.ErrConflict) {
			return err
		}
		*conflicts++
	}
	return fmt.Errorf("discussion %d: still conflicting after 200 attempts", n)
}

// TestBranchStoreRacingWriters runs writers in separate "processes" (a
// client and store each) against one repository. Writers on different
// discussions only ever move each other's head: they must never see a
// conflict. Writers on one discussion do conflict, and with the engine's
// retry loop lose nothing.
func TestBranchStoreRacingWriters(t *testing.T) {
	t.Parallel()
	const writers, each = 4, 5
	tests := []struct {
		name       string
		discussion func(w int) int
		conflicts  bool
	}{
		{"different_discussions", func(w int) int { return 20 + w }, false},
		{"same_discussion", func(int) int { return 30 }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeRepo(t)
			ctx := context.Background()
			seed := NewBranchStore(f.client(t), "")
			seeded := map[int]bool{}
			for w := range writers {
				n := tc.discussion(w)
				if seeded[n] {
					continue
				}
				seeded[n] = true
				rec := state.New(n)
				rec.UpdatedAt = epoch
				if err := seed.Save(ctx, rec); err != nil {
					t.Fatalf("seed Save(%d) = %v", n, err)
				}
			}
			moment := func(w, i int) time.Time { return epoch.Add(time.Duration(w*100+i) * time.Second) }
			conflicts := make([]int, writers)
			errs := make([]error, writers)
			var wg sync.WaitGroup
			for w := range writers {
				s := NewBranchStore(f.client(t), "")
				wg.Go(func() {
					for i := range each {
						if err := appendMoment(ctx, s, tc.discussion(w), moment(w, i), &conflicts[w]); err != nil {
							errs[w] = err
							return
						}
					}
				})
			}
			wg.Wait()
			total := 0
			for w := range writers {
				if errs[w] != nil {
					t.Errorf("writer %d: %v", w, errs[w])
				}
				total += conflicts[w]
			}
			commits := 0
			for _, r := range f.gh.Requests() {
				if r.Mutation {
					commits++
				}
			}
			// Every commit beyond one per save (seeds included) was a
			// retry on a moved head.
			t.Logf("%d conflicts and %d commits for %d saves", total, commits-len(seeded), writers*each)
			if !tc.conflicts && total > 0 {
				t.Errorf("writers on different discussions saw %d conflicts, want 0", total)
			}
			check := NewBranchStore(f.client(t), "")
			for w := range writers {
				rec, err := check.Load(ctx, tc.discussion(w))
				if err != nil {
					t.Fatalf("Load(%d) = %v", tc.discussion(w), err)
				}
				for i := range each {
					if !containsTime(rec.Dispatches, moment(w, i)) {
						t.Errorf("discussion %d lost writer %d's moment %d", rec.Discussion, w, i)
					}
				}
			}
		})
	}
}

func containsTime(list []time.Time, t time.Time) bool {
	for _, x := range list {
		if x.Equal(t) {
			return true
		}
	}
	return false
}

// TestBranchStoreConflictsAndRebase pins both outcomes of a moved head
// deterministically.
func TestBranchStoreConflictsAndRebase(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	ctx := context.Background()
	a, b := NewBranchStore(f.client(t), ""), NewBranchStore(f.client(t), "")
	for _, n := range []int{1, 2} {
		if err := a.Save(ctx, dueRecord(n, epoch.Add(time.Duration(n)*time.Hour))); err != nil {
			t.Fatalf("Save(%d) = %v", n, err)
		}
	}
	a1, _ := a.Load(ctx, 1)
	b1, _ := b.Load(ctx, 1)
	b2, _ := b.Load(ctx, 2)

	a1.Applied = []string{"c-a"}
	if err := a.Save(ctx, a1); err != nil {
		t.Fatalf("Save(1) by a = %v", err)
	}
	// Same discussion: b's read is stale.
	b1.Applied = []string{"c-b"}
	staleRev := b1.Rev
	if err := b.Save(ctx, b1); !errors.Is(err, state.ErrConflict) {
		t.Errorf("Save(1) by b after a wrote it = %v, want ErrConflict", err)
	}
	if b1.Rev != staleRev {
		t.Errorf("refused Save changed Rev from %q to %q", staleRev, b1.Rev)
	}
	// Other discussion: b commits again on the new head, and the index
	// keeps a's entry.
	b2.OpenRFCs["c-2"].DueAt = ptrTime(epoch.Add(-time.Hour))
	if err := b.Save(ctx, b2); err != nil {
		t.Errorf("Save(2) by b after a wrote discussion 1 = %v, want nil", err)
	}
	for _, want := range []*state.Record{a1, b2} {
		got, err := a.Load(ctx, want.Discussion)
		if err != nil {
			t.Fatalf("Load(%d) = %v", want.Discussion, err)
		}
		if diff := cmp.Diff(want, got, branchOpts); diff != "" {
			t.Errorf("Load(%d) mismatch (-want +got):\n%s", want.Discussion, diff)
		}
	}
	list, err := b.Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []state.Summary{
		{Discussion: 2, NextDue: epoch.Add(-time.Hour), Known: true, Checked: epoch.Add(-time.Minute)},
		{Discussion: 1, NextDue: epoch.Add(time.Hour), Known: true, Checked: epoch.Add(-time.Minute)},
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("Pending() after the rebase (-want +got):\n%s", diff)
	}
}

func ptrTime(t time.Time) *time.Time { return &t }

// TestBranchStoreStaleHeadShape checks that the fake answers a stale
// expectedHeadOid the way GitHub does (HTTP 200, type STALE_DATA, path
// createCommitOnBranch, "Expected branch to point to ..."), and that the
// store reads it as a moved head.
func TestBranchStoreStaleHeadShape(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	ctx := context.Background()
	s := NewBranchStore(f.client(t), "")
	if err := s.Save(ctx, dueRecord(1, epoch)); err != nil {
		t.Fatal(err)
	}
	main, _ := f.gh.Ref("o/r", "main")
	_, err := s.commit(ctx, main, "stale", []githubv4.FileAddition{fileAddition("x.json", []byte("{}"))})
	var ge *GraphQLError
	if !errors.As(err, &ge) || len(ge.Errors) != 1 {
		t.Fatalf("commit(stale head) = %v, want one GraphQL error", err)
	}
	e := ge.Errors[0]
	if e.Type != "STALE_DATA" || !strings.HasPrefix(e.Message, "Expected branch to point to ") ||
		!cmp.Equal(e.Path, []any{"createCommitOnBranch"}) {
		t.Errorf("commit(stale head) error = %+v, want GitHub's STALE_DATA at path [createCommitOnBranch]", e)
	}
	if moved, unknown := commitRetry(err); !moved || unknown {
		t.Errorf("commitRetry(%v) = %v, %v, want a moved head", err, moved, unknown)
	}
}

// TestBranchStoreCorruptFiles plants every kind of unusable record file:
// Load reports it naming the file, Save never overwrites it.
func TestBranchStoreCorruptFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		path     string
		contents string
	}{
		{"not_json", "discussions/5.json", "{not json"},
		{"binary", "discussions/5.json", "\xff\xfe\x00binary"},
		{"truncated", "discussions/5.json", `{"schema":1,"discussion":5,"closed":"` + strings.Repeat("x", 600<<10) + `"}`},
		{"other_discussion", "discussions/5.json", `{"schema":1,"discussion":6,"seen":{"at":"2026-11-21T10:00:00Z"},"commands":{"at":"0001-01-01T00:00:00Z"},"updated_at":"2026-11-21T10:00:00Z"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeRepo(t)
			ctx := context.Background()
			s := NewBranchStore(f.client(t), "")
			if err := s.Save(ctx, dueRecord(21, epoch)); err != nil {
				t.Fatal(err)
			}
			f.plantFile(t, tc.path, tc.contents)
			_, err := s.Load(ctx, 5)
			var fe *wait.FieldError
			if !errors.Is(err, state.ErrCorrupt) || !errors.As(err, &fe) || fe.Field != DefaultStateBranch+":discussions/5.json" {
				t.Fatalf("Load(5) = %v, want a *wait.FieldError for discussions/5.json wrapping ErrCorrupt", err)
			}
			head, _ := f.gh.Ref("o/r", DefaultStateBranch)
			for _, rev := range []string{"", makeBranchRev(strings.Repeat("a", 40), head)} {
				rec := dueRecord(5, epoch)
				rec.Rev = rev
				if err := s.Save(ctx, rec); !errors.Is(err, state.ErrCorrupt) || errors.Is(err, state.ErrConflict) {
					t.Errorf("Save(5, Rev %q) over the planted file = %v, want ErrCorrupt only", rev, err)
				}
			}
			if after, _ := f.gh.Ref("o/r", DefaultStateBranch); after != head {
				t.Errorf("a refused Save moved the branch from %s to %s", head, after)
			}
			// Other discussions are unaffected.
			if _, err := s.Load(ctx, 21); err != nil {
				t.Errorf("Load(21) beside the planted file = %v", err)
			}
		})
	}
}

// TestBranchStoreCorruptIndex: a shard that cannot be read stops the sweep
// and the saves that would rewrite it, naming it; it is never rebuilt
// behind people's backs.
func TestBranchStoreCorruptIndex(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	ctx := context.Background()
	s := NewBranchStore(f.client(t), "")
	if err := s.Save(ctx, dueRecord(2, epoch)); err != nil {
		t.Fatal(err)
	}
	f.plantFile(t, "index/3.json", `{"3": {"next_due": "tomorrow", "checked": null}}`)
	_, err := s.Pending(ctx)
	var fe *wait.FieldError
	if !errors.Is(err, state.ErrCorrupt) || !errors.As(err, &fe) || fe.Field != DefaultStateBranch+":index/3.json" {
		t.Errorf("Pending() with a corrupt shard = %v, want a *wait.FieldError for index/3.json", err)
	}
	if err := s.Save(ctx, dueRecord(19, epoch)); !errors.As(err, &fe) || fe.Field != DefaultStateBranch+":index/3.json" {
		t.Errorf("Save(19) into the corrupt shard = %v, want a *wait.FieldError for index/3.json", err)
	}
	if err := s.Save(ctx, dueRecord(4, epoch)); err != nil {
		t.Errorf("Save(4) into another shard = %v, want nil", err)
	}
}

// TestBranchStoreDeletedDiscussion: the record outlives its discussion, so
// the engine can expire its recesses.
func TestBranchStoreDeletedDiscussion(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	c := f.client(t)
	ctx := context.Background()
	s := NewBranchStore(c, "")
	rec := dueRecord(6, epoch)
	if err := s.Save(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := f.gh.DeleteDiscussion(f.ids[6]); err != nil {
		t.Fatal(err)
	}
	var got *state.Record
	n, err := f.step(t, func() (err error) { got, err = s.Load(ctx, 6); return err })
	if err != nil {
		t.Fatalf("Load(6) of a deleted discussion = %v, want the record", err)
	}
	if diff := cmp.Diff(rec, got, branchOpts); diff != "" {
		t.Errorf("Load(6) mismatch (-want +got):\n%s", diff)
	}
	if want := (counts{Queries: 2}); n != want {
		t.Errorf("Load(6) of a deleted discussion sent %+v, want %+v", n, want)
	}
	if _, err := c.Thread(ctx, resume.DiscussionRef(6)); !errors.Is(err, resume.ErrNotFound) {
		t.Errorf("Discussion(6) after Load = %v, want ErrNotFound", err)
	}
}

// TestBranchStoreAmbiguousCommit: a commit whose answer is lost (502 after
// GitHub applied it) is found by the re-read, not committed twice nor
// reported as a failure.
func TestBranchStoreAmbiguousCommit(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	ctx := context.Background()
	s := NewBranchStore(f.client(t), "")
	rec := dueRecord(7, epoch)
	if err := s.Save(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Applied = []string{"c-1"}
	f.gh.Fail(githubfake.Fault{Field: "createCommitOnBranch", Count: 1, Status: http.StatusBadGateway, AfterApply: true})
	n, err := f.step(t, func() error { return s.Save(ctx, rec) })
	if err != nil {
		t.Fatalf("Save(7) with the answer lost = %v, want nil", err)
	}
	if want := (counts{Mutations: 1, Queries: 1}); n != want {
		t.Errorf("Save(7) with the answer lost sent %+v, want %+v", n, want)
	}
	got, err := s.Load(ctx, 7)
	if err != nil || got.Rev != rec.Rev {
		t.Fatalf("Load(7) = %v, %v, want Rev %q", got, err, rec.Rev)
	}
	if diff := cmp.Diff(rec, got, branchOpts); diff != "" {
		t.Errorf("Load(7) mismatch (-want +got):\n%s", diff)
	}
}

// TestBranchStorePermissions: a token without contents: write is told so.
func TestBranchStorePermissions(t *testing.T) {
	t.Parallel()
	denied := `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/git/trees#create-a-tree","status":"403"}`
	tests := []struct {
		name  string
		seed  bool
		fault githubfake.Fault
	}{
		{"graphql_commit", true, githubfake.Fault{Field: "createCommitOnBranch",
			GraphQLErrors: []githubfake.GraphQLError{{Type: "FORBIDDEN", Message: "Resource not accessible by integration"}}}},
		{"rest_branch_creation", false, githubfake.Fault{Method: http.MethodPost, Path: "/repos/o/r/git/", Status: http.StatusForbidden, Body: denied}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeRepo(t)
			ctx := context.Background()
			s := NewBranchStore(f.client(t), "")
			if tc.seed {
				if err := s.Save(ctx, dueRecord(1, epoch)); err != nil {
					t.Fatal(err)
				}
			}
			f.gh.Fail(tc.fault)
			err := s.Save(ctx, dueRecord(2, epoch))
			if !errors.Is(err, ErrNeedsContentsWrite) {
				t.Errorf("Save(2) refused by GitHub = %v, want ErrNeedsContentsWrite", err)
			}
			if errors.Is(err, state.ErrConflict) {
				t.Errorf("Save(2) refused by GitHub = %v, want no ErrConflict (retrying cannot help)", err)
			}
		})
	}
}

// TestBranchStoreBranchName: unusable names fail every call with a
// *wait.FieldError, before any request.
func TestBranchStoreBranchName(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	c := f.client(t)
	for label, name := range map[string]string{
		"colon": "a:b", "space": "a b", "double_dot": "a..b", "leading_dash": "-x", "trailing_slash": "x/",
		"lock_suffix": "x.lock", "leading_dot": ".x", "dot_component": "a/.b", "reflog": "x@{1}", "nul": "a\x00b", "at": "@",
	} {
		t.Run(label, func(t *testing.T) {
			t.Parallel()
			s := NewBranchStore(c, name)
			var ce *wait.FieldError
			if _, err := s.Load(context.Background(), 1); !errors.As(err, &ce) {
				t.Errorf("Load with branch %q = %v, want *wait.FieldError", name, err)
			}
			if err := s.Save(context.Background(), dueRecord(1, epoch)); !errors.As(err, &ce) {
				t.Errorf("Save with branch %q = %v, want *wait.FieldError", name, err)
			}
			if _, err := s.Pending(context.Background()); !errors.As(err, &ce) {
				t.Errorf("Pending with branch %q = %v, want *wait.FieldError", name, err)
			}
		})
	}
	for name, want := range map[string]string{"": DefaultStateBranch, "refs/heads/ops/recess": "ops/recess", "state": "state"} {
		if got := NewBranchStore(c, name).branch; got != want {
			t.Errorf("NewBranchStore(%q) writes branch %q, want %q", name, got, want)
		}
	}
}

// TestBranchStoreOtherBranch writes a configured branch and nothing else.
func TestBranchStoreOtherBranch(t *testing.T) {
	t.Parallel()
	f := newFakeRepo(t)
	ctx := context.Background()
	s := NewBranchStore(f.client(t), "ops/recess")
	rec := dueRecord(8, epoch)
	if err := s.Save(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := f.gh.Ref("o/r", DefaultStateBranch); !errors.Is(err, githubfake.ErrUnknownRef) {
		t.Errorf("Ref(%s) = %v, want ErrUnknownRef (only ops/recess written)", DefaultStateBranch, err)
	}
	raw, ok, err := f.gh.File("o/r", "ops/recess", "discussions/8.json")
	var stored state.Record
	if err != nil || !ok || json.Unmarshal([]byte(raw), &stored) != nil || stored.Discussion != 8 {
		t.Errorf("discussions/8.json on ops/recess = %q, %v, %v", raw, ok, err)
	}
}
