package github

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// dueRecord is a pending record whose only open recess is due at due.
func dueRecord(n int, due time.Time) *state.Record {
	rec := state.New(n)
	rec.OpenRFCs = map[string]*state.RFC{"c-" + fmt.Sprint(n): {
		Trigger:     storetest.MustTrigger(`{"kind":"elapsed","elapsed":"P1D"}`),
		OpenedAt:    due.Add(-24 * time.Hour),
		DueAt:       &due,
		RecessCount: 1,
	}}
	rec.Checked = epoch.Add(-time.Minute)
	rec.UpdatedAt = epoch
	rec.Status = "⏸ Waiting until " + due.Format(time.RFC3339)
	return rec
}

// plant writes a status comment directly into the hub, as recess (mine) or
// as someone else.
func plant(t *testing.T, h *hub, d *hubDisc, rec *state.Record, mine bool) *hubComment {
	t.Helper()
	body, err := state.EncodeComment(rec.Status, rec)
	if err != nil {
		t.Fatalf("EncodeComment = %v", err)
	}
	author := "mallory"
	if mine {
		author = "github-actions"
	}
	return h.comment(d, "", author, body, mine)
}

func (h *hub) body(c *hubComment) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return c.body
}

func TestCommentStoreRoundTripAndRequestCounts(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.addLabel(resume.LabelWaiting)
	d := h.addDiscussion(7)
	h.comment(d, "", "alice", "Which backend?", false)
	c := h.client(t, nil)
	store := NewCommentStore(c)
	ctx := context.Background()

	count := func(name string, want []string, f func() error) {
		t.Helper()
		h.ResetCalls()
		if err := f(); err != nil {
			t.Fatalf("%s = %v", name, err)
		}
		if diff := cmp.Diff(want, roots(h.Calls()), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s requests (-want +got):\n%s", name, diff)
		}
		t.Logf("%s: %d requests", name, len(h.Calls()))
	}

	rec := dueRecord(7, epoch.Add(time.Hour))
	// No Load before: the store reads the discussion to make sure there is
	// no status comment yet. A store writes no label: the waiting label is
	// the engine's effect.
	count("Save (create)", []string{"query repository", "mutation addDiscussionComment"},
		func() error { return store.Save(ctx, rec) })
	if rec.Rev == "" {
		t.Fatalf("Save did not set Rev")
	}
	if h.hasLabel(d, resume.LabelWaiting) {
		t.Errorf("Save put the waiting label on; a store writes only the record")
	}
	h.edit(func() { d.labels[resume.LabelWaiting] = true })

	var loaded *state.Record
	var disc *resume.Thread
	count("LoadWith", []string{"query repository"}, func() error {
		var err error
		loaded, disc, err = store.LoadWith(ctx, resume.DiscussionRef(7))
		return err
	})
	if diff := cmp.Diff(rec, loaded); diff != "" {
		t.Errorf("Load(7) (-saved +loaded):\n%s", diff)
	}
	if len(disc.Comments) != 2 || !disc.Comments[1].Mine {
		t.Errorf("LoadWith(7) discussion = %d comments, want the question and recess's status comment", len(disc.Comments))
	}

	// Every update is preceded by one small re-read of the status comment.
	loaded.Applied = append(loaded.Applied, "c-a")
	count("Save (changed)", []string{"query nodes", "mutation updateDiscussionComment"}, func() error { return store.Save(ctx, loaded) })

	// The client keeps no discussion for later: Discussion reads.
	count("Discussion", []string{"query repository"}, func() error { _, err := c.Thread(ctx, resume.DiscussionRef(7)); return err })

	loaded.OpenRFCs = nil
	count("Save (no longer pending)", []string{"query nodes", "mutation updateDiscussionComment"},
		func() error { return store.Save(ctx, loaded) })
	if !h.hasLabel(d, resume.LabelWaiting) {
		t.Errorf("Save took the waiting label off; a store writes only the record")
	}

	again, err := store.Load(ctx, 7)
	if err != nil {
		t.Fatalf("Load(7) = %v", err)
	}
	if diff := cmp.Diff(loaded, again); diff != "" {
		t.Errorf("Load(7) after updates (-saved +loaded):\n%s", diff)
	}

	// A revision this store has not seen (read by another run) is checked
	// with one small re-read before the write.
	other := NewCommentStore(h.client(t, nil))
	again.Applied = append(again.Applied, "c-b")
	count("Save (revision read elsewhere)", []string{"query nodes", "mutation updateDiscussionComment"}, func() error { return other.Save(ctx, again) })
}

func TestCommentStoreConflicts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// act interferes between the Load and the Save.
		act func(t *testing.T, h *hub, status *hubComment, store *CommentStore)
		// rev makes the Rev the Save carries from the loaded one.
		rev func(loaded string) string
		// elsewhere: the Save is made by a store that did not read the
		// record (another run holding a revision read earlier), which
		// re-reads before writing. The store that read it trusts its own
		// read (see TestCommentStoreTrustsItsOwnRead).
		elsewhere bool
		want      error
	}{
		{
			name: "stale_rev_after_another_save",
			act: func(t *testing.T, h *hub, _ *hubComment, store *CommentStore) {
				other, err := store.Load(context.Background(), 7)
				if err != nil {
					t.Fatalf("Load = %v", err)
				}
				other.Applied = []string{"c-other"}
				if err := store.Save(context.Background(), other); err != nil {
					t.Fatalf("Save (other writer) = %v", err)
				}
			},
			want: state.ErrConflict,
		},
		{
			name: "edited_by_someone_with_access",
			act: func(t *testing.T, h *hub, status *hubComment, _ *CommentStore) {
				h.edit(func() { status.body += "\n(edited by an admin)" })
			},
			elsewhere: true,
			want:      state.ErrConflict,
		},
		{
			name: "status_comment_deleted",
			act: func(t *testing.T, h *hub, status *hubComment, _ *CommentStore) {
				h.edit(func() { delete(h.comments, status.id) })
			},
			elsewhere: true,
			want:      state.ErrConflict,
		},
		{
			name: "create_over_existing",
			rev:  func(string) string { return "" },
			want: state.ErrConflict,
		},
		{
			name: "foreign_rev",
			rev:  func(string) string { return "not-a-rev" },
			want: state.ErrConflict,
		},
		{
			name: "overwritten_with_a_corrupt_record",
			act: func(t *testing.T, h *hub, status *hubComment, _ *CommentStore) {
				h.edit(func() { status.body = "x\n\n<!-- recess:state v1\n!!!not base64!!!\n-->" })
			},
			elsewhere: true,
			want:      state.ErrCorrupt,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			h.addLabel(resume.LabelWaiting)
			d := h.addDiscussion(7)
			status := plant(t, h, d, dueRecord(7, epoch), true)
			store := NewCommentStore(h.client(t, nil))
			ctx := context.Background()
			rec, err := store.Load(ctx, 7)
			if err != nil {
				t.Fatalf("Load(7) = %v", err)
			}
			if tt.act != nil {
				tt.act(t, h, status, store)
			}
			if tt.rev != nil {
				rec.Rev = tt.rev(rec.Rev)
			}
			before := h.body(status)
			rec.Applied = append(rec.Applied, "c-mine")
			if tt.elsewhere {
				store = NewCommentStore(h.client(t, nil))
			}
			err = store.Save(ctx, rec)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Save = %v, want %v", err, tt.want)
			}
			if got := h.body(status); got != before {
				t.Errorf("status comment changed by a refused Save:\n%s", got)
			}
		})
	}
}

// TestCommentStoreRereadsBeforeEveryUpdate: no request counting, no
// remembered knowledge: every update is preceded by one small re-read of the
// status comment, and any change since the caller's Load (an edit by hand,
// another run's write) is a conflict, whatever else went through the client
// meanwhile.
func TestCommentStoreRereadsBeforeEveryUpdate(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.addLabel(resume.LabelWaiting)
	d := h.addDiscussion(7)
	status := plant(t, h, d, dueRecord(7, epoch), true)
	h.edit(func() { d.labels[resume.LabelWaiting] = true })
	c := h.client(t, nil)
	store := NewCommentStore(c)
	ctx := context.Background()
	load := func() *state.Record {
		t.Helper()
		rec, err := store.Load(ctx, 7)
		if err != nil {
			t.Fatalf("Load(7) = %v", err)
		}
		return rec
	}
	save := func(name string, rec *state.Record, wantErr error, wantCalls []string) {
		t.Helper()
		h.ResetCalls()
		rec.Applied = append(rec.Applied, "c-"+name)
		if err := store.Save(ctx, rec); !errors.Is(err, wantErr) {
			t.Errorf("Save(%s) = %v, want %v", name, err, wantErr)
		}
		if diff := cmp.Diff(wantCalls, roots(h.Calls()), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Save(%s) requests (-want +got):\n%s", name, diff)
		}
	}

	first := load()
	stale := load()
	save("right_after_the_read", first, nil, []string{"query nodes", "mutation updateDiscussionComment"})
	save("older_than_the_stores_write", stale, state.ErrConflict, []string{"query nodes"})

	// An admin saves it from the web editor unchanged: GitHub then keeps
	// it with CRLF line breaks, still recess's body (state.ReadStatus),
	// but no longer the revision this run read.
	edited := load()
	h.edit(func() { status.body = strings.ReplaceAll(status.body, "\n", "\r\n") })
	save("after_an_edit_by_hand", edited, state.ErrConflict, []string{"query nodes"})

	// Reactions and other requests in between change nothing of this.
	again := load()
	if err := c.React(ctx, status.id, resume.Eyes); err != nil {
		t.Fatalf("React = %v", err)
	}
	save("after_a_reaction", again, nil, []string{"query nodes", "mutation updateDiscussionComment"})

	got := load()
	if diff := cmp.Diff([]string{"c-right_after_the_read", "c-after_a_reaction"}, got.Applied); diff != "" {
		t.Errorf("Applied after the refused Saves (-want +got):\n%s", diff)
	}
}

func TestCommentStoreTrust(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// setup plants comments and returns the record Load must find
		// (nil: none) and the forged comment ids.
		setup   func(t *testing.T, h *hub, d *hubDisc) (*state.Record, []string)
		wantErr error
	}{
		{
			name: "forged_marker_only",
			setup: func(t *testing.T, h *hub, d *hubDisc) (*state.Record, []string) {
				forged := plant(t, h, d, dueRecord(7, epoch), false)
				return nil, []string{forged.id}
			},
			wantErr: state.ErrNotFound,
		},
		{
			name: "forged_marker_newer_than_ours",
			setup: func(t *testing.T, h *hub, d *hubDisc) (*state.Record, []string) {
				ours := dueRecord(7, epoch)
				plant(t, h, d, ours, true)
				forged := plant(t, h, d, dueRecord(7, epoch.Add(-time.Hour)), false)
				return ours, []string{forged.id}
			},
		},
		{
			name: "forged_marker_in_a_reply",
			setup: func(t *testing.T, h *hub, d *hubDisc) (*state.Record, []string) {
				ours := dueRecord(7, epoch)
				st := plant(t, h, d, ours, true)
				body, _ := state.EncodeComment("", dueRecord(7, epoch.Add(-time.Hour)))
				forged := h.comment(d, st.id, "mallory", body, false)
				return ours, []string{forged.id}
			},
		},
		{
			name: "newest_of_two_trusted",
			setup: func(t *testing.T, h *hub, d *hubDisc) (*state.Record, []string) {
				plant(t, h, d, dueRecord(7, epoch), true)
				newer := dueRecord(7, epoch.Add(time.Hour))
				plant(t, h, d, newer, true)
				return newer, nil
			},
		},
		{
			// Another workflow with recess's token reposts someone's
			// comment that ends with a copy of the record: recess's
			// identity, but not recess's body for that record.
			name: "copy_reposted_with_our_identity",
			setup: func(t *testing.T, h *hub, d *hubDisc) (*state.Record, []string) {
				ours := dueRecord(7, epoch)
				plant(t, h, d, ours, true)
				copied := dueRecord(7, epoch.Add(-time.Hour))
				body, _ := state.EncodeComment("I agree. Where things stand:", copied)
				repost := h.comment(d, "", "github-actions", body, true)
				return ours, []string{repost.id}
			},
		},
		{
			name: "status_with_words_added_by_our_identity",
			setup: func(t *testing.T, h *hub, d *hubDisc) (*state.Record, []string) {
				ours := dueRecord(7, epoch)
				plant(t, h, d, ours, true)
				body, _ := state.StatusBody(dueRecord(7, epoch.Add(-time.Hour)))
				repost := h.comment(d, "", "github-actions", "Cross-posted from #3:\n\n"+body, true)
				return ours, []string{repost.id}
			},
		},
		{
			name: "status_saved_unchanged_from_the_web_editor",
			setup: func(t *testing.T, h *hub, d *hubDisc) (*state.Record, []string) {
				ours := dueRecord(7, epoch)
				body, _ := state.StatusBody(ours)
				h.comment(d, "", "github-actions", strings.ReplaceAll(body, "\n", "\r\n"), true)
				return ours, nil
			},
		},
		{
			name: "our_marker_corrupt",
			setup: func(t *testing.T, h *hub, d *hubDisc) (*state.Record, []string) {
				h.comment(d, "", "github-actions", "status\n\n<!-- recess:state v1\nnot-base64\n-->", true)
				return nil, nil
			},
			wantErr: state.ErrCorrupt,
		},
		{
			// A status comment that came with a
			// discussion transferred from another repository is foreign,
			// not corrupt: this discussion starts a fresh record.
			name: "record_of_another_discussion",
			setup: func(t *testing.T, h *hub, d *hubDisc) (*state.Record, []string) {
				plant(t, h, d, dueRecord(8, epoch), true)
				return nil, nil
			},
			wantErr: state.ErrNotFound,
		},
		{
			name: "deleted_status_comment_is_not_trusted",
			setup: func(t *testing.T, h *hub, d *hubDisc) (*state.Record, []string) {
				gone := plant(t, h, d, dueRecord(7, epoch), true)
				h.edit(func() { gone.deleted = true })
				return nil, nil
			},
			wantErr: state.ErrNotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			d := h.addDiscussion(7)
			want, forged := tt.setup(t, h, d)
			store := NewCommentStore(h.client(t, nil))
			got, err := store.Load(context.Background(), 7)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Load(7) = %v, want %v", err, tt.wantErr)
				}
			} else {
				if err != nil {
					t.Fatalf("Load(7) = %v", err)
				}
				if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(state.Record{}, "Rev")); diff != "" {
					t.Errorf("Load(7) (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(forged, store.ForgedMarkers(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ForgedMarkers() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommentStoreCorruptNeverOverwritten(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	d := h.addDiscussion(7)
	bad := h.comment(d, "", "github-actions", "status\n\n<!-- recess:state v1\nnot-base64\n-->", true)
	store := NewCommentStore(h.client(t, nil))
	ctx := context.Background()
	if _, err := store.Load(ctx, 7); !errors.Is(err, state.ErrCorrupt) || !strings.Contains(err.Error(), bad.id) {
		t.Errorf("Load(7) = %v, want ErrCorrupt naming comment %s", err, bad.id)
	}
	if err := store.Save(ctx, dueRecord(7, epoch)); !errors.Is(err, state.ErrCorrupt) {
		t.Errorf("Save over a corrupt record = %v, want ErrCorrupt", err)
	}
	if _, err := store.Load(ctx, 7); !errors.Is(err, state.ErrCorrupt) {
		t.Errorf("Load(7) after the refused Save = %v, want ErrCorrupt still", err)
	}
	for _, cl := range h.Calls() {
		if cl.Method == "mutation" {
			t.Errorf("sent %s over a corrupt record", cl.Root)
		}
	}
}

func TestCommentStoreDeletedDiscussion(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	_, err := NewCommentStore(h.client(t, nil)).Load(context.Background(), 9)
	if !errors.Is(err, state.ErrNotFound) || !errors.Is(err, resume.ErrNotFound) {
		t.Errorf("Load(9) of a missing discussion = %v, want state.ErrNotFound and resume.ErrNotFound", err)
	}
}

func TestCommentStoreRacingWriters(t *testing.T) {
	t.Parallel()
	for _, writers := range []int{2, 8} {
		t.Run(fmt.Sprintf("writers_%d", writers), func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			h.addLabel(resume.LabelWaiting)
			d := h.addDiscussion(7)
			store := NewCommentStore(h.client(t, nil))
			ctx := context.Background()
			var wg sync.WaitGroup
			for i := range writers {
				wg.Go(func() {
					for {
						rec, err := store.Load(ctx, 7)
						if errors.Is(err, state.ErrNotFound) {
							rec, err = dueRecord(7, epoch), nil
							rec.Rev = ""
						}
						if err != nil {
							t.Errorf("Load = %v", err)
							return
						}
						rec.Applied = append(rec.Applied, fmt.Sprintf("c-w%d", i))
						err = store.Save(ctx, rec)
						if errors.Is(err, state.ErrConflict) {
							continue
						}
						if err != nil {
							t.Errorf("Save = %v", err)
						}
						return
					}
				})
			}
			wg.Wait()
			rec, err := store.Load(ctx, 7)
			if err != nil {
				t.Fatalf("Load = %v", err)
			}
			if len(rec.Applied) != writers {
				t.Errorf("Applied = %v, want all %d writers' ids (no lost update)", rec.Applied, writers)
			}
			statuses := 0
			h.edit(func() {
				for _, c := range d.comments {
					if c.mine && !c.deleted && state.HasMarker(c.body) {
						statuses++
					}
				}
			})
			if statuses != 1 {
				t.Errorf("status comments = %d, want 1 (no writer created a second)", statuses)
			}
		})
	}
}

func TestCommentStorePending(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.addLabel(resume.LabelWaiting)
	var want []state.Summary
	// 250 waiting discussions, due in reverse order of their numbers.
	for n := 1; n <= 250; n++ {
		d := h.addDiscussion(n)
		h.comment(d, "", "alice", "question", false)
		due := epoch.Add(time.Duration(300-n) * time.Minute)
		plant(t, h, d, dueRecord(n, due), true)
		h.edit(func() { d.labels[resume.LabelWaiting] = true })
		want = append([]state.Summary{{Discussion: n, NextDue: due, Known: true, Checked: epoch.Add(-time.Minute)}}, want...)
	}
	// A stale label over a record with nothing pending: left out.
	stale := h.addDiscussion(251)
	idle := state.New(251)
	idle.UpdatedAt = epoch
	plant(t, h, stale, idle, true)
	// A status comment beyond the first comments is found
	// among the last ones, and another workflow's comment with recess's
	// token before it changes nothing.
	late := h.addDiscussion(252)
	h.comment(late, "", "github-actions", "Welcome! A bot that shares the token says hello.", true)
	for range 10 {
		h.comment(late, "", "alice", "chatter", false)
	}
	plant(t, h, late, dueRecord(252, epoch.Add(-time.Minute)), true)
	// A status comment after a dozen comments and before
	// a dozen more, among neither the first 10 nor the last 10, with
	// another of recess's comments before it: found, not visited on every
	// sweep.
	buried := h.addDiscussion(255)
	h.comment(buried, "", "github-actions", "Welcome! (another workflow, same token)", true)
	for range 12 {
		h.comment(buried, "", "alice", "chatter", false)
	}
	edited := plant(t, h, buried, dueRecord(255, epoch), true)
	for range 12 {
		h.comment(buried, "", "bob", "more chatter", false)
	}
	// Past the first 100 comments and before the last 100: found by paging
	// back through that discussion alone.
	deep := h.addDiscussion(256)
	for range scanFirst + 5 {
		h.comment(deep, "", "alice", "chatter", false)
	}
	plant(t, h, deep, dueRecord(256, epoch.Add(time.Minute)), true)
	for range scanLast + 1 {
		h.comment(deep, "", "bob", "more chatter", false)
	}
	h.edit(func() { edited.updated = edited.updated.Add(time.Second) })
	// Nothing due by time alone: known, after every due one.
	waiting := h.addDiscussion(253)
	active := pendingRecord(253)
	active.Active.State = state.RunEscalated
	plant(t, h, waiting, active, true)
	// Not labelled: not found by the search.
	unlabelled := h.addDiscussion(254)
	plant(t, h, unlabelled, dueRecord(254, epoch), true)
	h.edit(func() {
		stale.labels[resume.LabelWaiting] = true
		late.labels[resume.LabelWaiting] = true
		buried.labels[resume.LabelWaiting] = true
		deep.labels[resume.LabelWaiting] = true
		waiting.labels[resume.LabelWaiting] = true
	})
	want = append([]state.Summary{
		{Discussion: 252, NextDue: epoch.Add(-time.Minute), Known: true, Checked: epoch.Add(-time.Minute)},
		{Discussion: 255, NextDue: epoch, Known: true, Checked: epoch.Add(-time.Minute)},
		{Discussion: 256, NextDue: epoch.Add(time.Minute), Known: true, Checked: epoch.Add(-time.Minute)},
	}, want...)
	want = append(want, state.Summary{Discussion: 253, Known: true})

	store := NewCommentStore(h.client(t, nil))
	got, err := store.Pending(context.Background())
	if err != nil {
		t.Fatalf("Pending() = %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Pending() (-want +got):\n%s", diff)
	}
	// Three search pages, three batches of status bodies (the label is known
	// to exist since the search found it), and for the one discussion whose
	// status comment stands past its first 100 and last 100 comments, its
	// previous page of comments and its candidate's body.
	wantCalls := []string{"query search", "query search", "query search", "query nodes", "query nodes", "query nodes",
		"query repository", "query nodes"}
	if diff := cmp.Diff(wantCalls, roots(h.Calls())); diff != "" {
		t.Errorf("Pending() requests (-want +got):\n%s", diff)
	}
	t.Logf("Pending over %d waiting discussions: %d requests", 253, len(h.Calls()))
}

// Without the waiting label the sweep does not list every open discussion
// (with 120 of them a token's points would run out within the hour):
// nothing carries the label, so nothing is listed: one search, no
// fallback; the label is created by the first save that needs it.
func TestCommentStorePendingWithoutTheLabel(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	for n := 1; n <= 120; n++ {
		d := h.addDiscussion(n)
		h.comment(d, "", "alice", "hello", false)
	}
	// A sweep at 10:07: the search only.
	h.clock.Step(7 * time.Minute)
	got, err := NewCommentStore(h.client(t, nil)).Pending(context.Background())
	if err != nil || len(got) != 0 {
		t.Fatalf("Pending() = %v, %v; want nothing", got, err)
	}
	if diff := cmp.Diff([]string{"query search"}, roots(h.Calls())); diff != "" {
		t.Errorf("Pending() requests (-want +got):\n%s", diff)
	}
	// The sweep in the hour's first slot also looks at the 100 most
	// recently updated discussions, one request, whatever their number.
	h.clock.Step(55 * time.Minute)
	h.ResetCalls()
	if got, err := NewCommentStore(h.client(t, nil)).Pending(context.Background()); err != nil || len(got) != 0 {
		t.Fatalf("Pending() at 11:02 = %v, %v; want nothing", got, err)
	}
	if diff := cmp.Diff([]string{"query search", "query repository"}, roots(h.Calls())); diff != "" {
		t.Errorf("Pending() at 11:02 requests (-want +got):\n%s", diff)
	}
}

// A status comment past a discussion's first 100 top-level comments and its
// last 100 is where a sweep's scan does not look: the next save moves the
// record to a new status comment at the end (written, edited as every
// status comment is after its second save, the old one deleted), and the
// sweeps after it find it without paging through the discussion.
func TestCommentStoreSaveMovesAStatusCommentTheScanCannotSee(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		before int // top-level comments before the status comment
		after  int // and after it
		moved  bool
	}{
		{"among_the_first_comments", 3, scanLast + 50, false},
		{"among_the_last_comments", scanFirst + 5, scanLast - 1, false},
		{"between_them", scanFirst + 5, scanLast + 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			h.addLabel(resume.LabelWaiting)
			d := h.addDiscussion(9)
			for range tc.before {
				h.comment(d, "", "alice", "chatter", false)
			}
			old := plant(t, h, d, dueRecord(9, epoch.Add(time.Hour)), true)
			for range tc.after {
				h.comment(d, "", "bob", "more chatter", false)
			}
			h.edit(func() { d.labels[resume.LabelWaiting] = true })
			store := NewCommentStore(h.client(t, nil))
			rec, err := store.Load(context.Background(), 9)
			if err != nil {
				t.Fatalf("Load = %v", err)
			}
			rec.Applied = append(rec.Applied, "c-9")
			h.ResetCalls()
			if err := store.Save(context.Background(), rec); err != nil {
				t.Fatalf("Save = %v", err)
			}
			want := []string{"query nodes", "mutation updateDiscussionComment"}
			if tc.moved {
				want = []string{"query nodes", "mutation addDiscussionComment", "mutation updateDiscussionComment", "mutation deleteDiscussionComment"}
			}
			if diff := cmp.Diff(want, roots(h.Calls())); diff != "" {
				t.Errorf("Save requests (-want +got):\n%s", diff)
			}
			var status []string
			for _, c := range d.comments {
				if c.mine && !c.deleted && state.HasMarker(c.body) {
					status = append(status, c.id)
				}
			}
			last := d.comments[len(d.comments)-1].id
			if len(status) != 1 || (status[0] == old.id) == tc.moved || (status[0] == last) != tc.moved {
				t.Errorf("status comments after the save = %v (old %s, last %s); moved to the end: want %v", status, old.id, last, tc.moved)
			}
			got, err := store.Load(context.Background(), 9)
			if err != nil || !cmp.Equal(got.Applied, rec.Applied) {
				t.Fatalf("Load after the save = %v, %v; want applied %v", got, err, rec.Applied)
			}
			// A sweep off the hour's first slot: the search and the bodies.
			h.clock.Step(7 * time.Minute)
			h.ResetCalls()
			if _, err := NewCommentStore(h.client(t, nil)).Pending(context.Background()); err != nil {
				t.Fatalf("Pending = %v", err)
			}
			if tc.moved {
				if diff := cmp.Diff([]string{"query search", "query nodes"}, roots(h.Calls())); diff != "" {
					t.Errorf("Pending requests after the move (-want +got):\n%s", diff)
				}
			}
		})
	}
}
