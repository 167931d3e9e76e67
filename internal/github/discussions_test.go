package github

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
)

func TestDiscussionPaginatesBothLevels(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	d := h.addDiscussion(3)
	// Comments and replies are written interleaved, so the timeline is not
	// GitHub's grouping of replies under their comment.
	replies := map[int]int{0: 230, 150: 120, 249: 1}
	var created, tops []*hubComment
	for i := range 250 {
		top := h.comment(d, "", "alice", "top", false)
		tops = append(tops, top)
		created = append(created, top)
		for range replies[i] / 2 {
			created = append(created, h.comment(d, top.id, "bob", "reply", false))
		}
	}
	// The other half of each comment's replies, after every comment.
	for i, top := range tops {
		for range replies[i] - replies[i]/2 {
			created = append(created, h.comment(d, top.id, "carol", "late reply", false))
		}
	}

	c := h.client(t, nil)
	got, err := c.Thread(context.Background(), resume.DiscussionRef(3))
	if err != nil {
		t.Fatalf("Discussion(3) = %v", err)
	}
	sort.SliceStable(created, func(i, j int) bool { return created[i].created.Before(created[j].created) })
	var wantIDs, gotIDs []string
	wantParent := map[string]string{}
	for _, c := range created {
		wantIDs = append(wantIDs, c.id)
		wantParent[c.id] = c.parent
	}
	for _, cm := range got.Comments {
		gotIDs = append(gotIDs, cm.ID)
		if cm.Root != wantParent[cm.ID] {
			t.Errorf("comment %s ParentID = %q, want %q", cm.ID, cm.Root, wantParent[cm.ID])
		}
	}
	if len(gotIDs) != 250+351 {
		t.Errorf("Discussion(3) has %d comments, want %d", len(gotIDs), 250+351)
	}
	if diff := cmp.Diff(wantIDs, gotIDs); diff != "" {
		t.Errorf("Discussion(3) comment order (-want +got):\n%s", diff)
	}
	// The main query, two more reply pages of comment 0, comment pages 2
	// and 3, one more reply page of comment 150; comment 249's single
	// reply came with its comment.
	if got := len(h.Calls()); got != 6 {
		t.Errorf("requests = %d, want 6:\n%v", got, roots(h.Calls()))
	}
}

func TestDiscussionMapsFields(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.addLabel("rfc")
	escalated := h.addLabel(resume.LabelEscalated)
	d := h.addDiscussion(5)
	top := h.comment(d, "", "alice", "question", false)
	ours := h.comment(d, top.id, "github-actions", "answer", true)
	gone := h.comment(d, "", "", "deleted", false)
	h.edit(func() {
		d.labels["rfc"] = true
		top.assoc = "MEMBER"
		ours.minimized = true
		gone.deleted = true
	})

	got, err := h.client(t, nil).Thread(context.Background(), resume.DiscussionRef(5))
	if err != nil {
		t.Fatalf("Discussion(5) = %v", err)
	}
	url := "https://github.com/o/r/discussions/5"
	want := &resume.Thread{
		Kind: "discussion",
		ID:   d.id, Number: 5, Title: "RFC 5", Body: "body", Author: "alice", CreatedAt: d.created, URL: url,
		Labels: []string{"rfc"}, Category: "General", CategorySlug: "general",
		Comments: []resume.Comment{
			{ID: top.id, Author: "alice", Association: "MEMBER", Body: "question", CreatedAt: top.created, URL: url + "#" + top.id},
			{ID: ours.id, Root: top.id, Author: "github-actions", AuthorBot: true, Association: "NONE", Body: "answer", CreatedAt: ours.created,
				URL: url + "#" + ours.id, Mine: true, Minimized: true},
			// GitHub answers null for the author: the login it shows for a deleted account.
			{ID: gone.id, Author: resume.DeletedAccount, Association: "NONE", Body: "deleted", CreatedAt: gone.created, URL: url + "#" + gone.id, Deleted: true},
		},
		// What the read tells of the repository; "": no such label.
		Repo: resume.Repo{ID: "R_1", DefaultBranch: "main", Labels: map[string]string{resume.LabelEscalated: escalated, resume.LabelWaiting: ""}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discussion(5) (-want +got):\n%s", diff)
	}
}

func TestDiscussionNotFound(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	_, err := h.client(t, nil).Thread(context.Background(), resume.DiscussionRef(404))
	if !errors.Is(err, resume.ErrNotFound) {
		t.Errorf("Discussion(404) = %v, want ErrNotFound", err)
	}
}

// Reply posts where it is told, in one request: the caller names the
// thread (GitHub refuses a reply to a reply, and the hub fails the test on
// one).
func TestReplyIsPlacedInTheThreadOfWhatItAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer func(top, reply *hubComment) string // the comment answered
	}{
		{"the_discussion", func(_, _ *hubComment) string { return "" }},
		{"a_top_level_comment", func(top, _ *hubComment) string { return top.id }},
		{"a_reply", func(_, reply *hubComment) string { return reply.id }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			d := h.addDiscussion(1)
			top := h.comment(d, "", "alice", "q", false)
			reply := h.comment(d, top.id, "bob", "r", false)
			read := &resume.Thread{Kind: resume.DiscussionRef(1).Kind, ID: d.id, Number: 1,
				Comments: []resume.Comment{{ID: top.id}, {ID: reply.id, Root: top.id}}}
			to, want := tt.answer(top, reply), ""
			if to != "" {
				want = top.id // GitHub threads one level deep
			}
			got, err := h.client(t, nil).Reply(context.Background(), read, to, "answer")
			if err != nil {
				t.Fatalf("Reply = %v", err)
			}
			if got.Root != want || !got.Mine || got.Body != "answer" {
				t.Errorf("Reply = %+v, want Root %q, Mine, body %q", got, want, "answer")
			}
			if diff := cmp.Diff([]string{"mutation addDiscussionComment"}, roots(h.Calls())); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLabels(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.addLabel("recess:escalated")
	d := h.addDiscussion(1)
	c := h.client(t, nil)
	ctx := context.Background()
	read, err := c.Thread(ctx, resume.DiscussionRef(1))
	if err != nil {
		t.Fatalf("Discussion(1) = %v", err)
	}
	h.ResetCalls()
	steps := []struct {
		name string
		do   func() error
	}{
		{"label", func() error { return c.Label(ctx, read, "recess:escalated") }},
		{"label_again", func() error { return c.Label(ctx, read, "recess:escalated") }},
		{"missing_label", func() error { return c.Label(ctx, read, "no-such-label") }},
		{"unlabel_where_absent", func() error { return c.Unlabel(ctx, &resume.Thread{ID: d.id}, "no-such-label") }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s = %v, want nil", s.name, err)
		}
	}
	if !h.hasLabel(d, "recess:escalated") {
		t.Errorf("label recess:escalated not on the discussion")
	}
	// recess's own labels are known from the discussion's read; another
	// label is looked up each time (the repository's id comes with the
	// lookup), and a missing one is created; removing a label from a
	// discussion that lacks it is GitHub's no-op.
	want := []string{
		"mutation addLabelsToLabelable", "mutation addLabelsToLabelable",
		"query repository", "mutation createLabel", "mutation addLabelsToLabelable",
		"query repository", "mutation removeLabelsFromLabelable",
	}
	if diff := cmp.Diff(want, roots(h.Calls())); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	// A discussion may show recess's label in another case (label names
	// compare case-insensitively): the read's id serves, no lookup.
	h.ResetCalls()
	if err := c.Unlabel(ctx, read, "Recess:Escalated"); err != nil || h.hasLabel(d, "recess:escalated") {
		t.Errorf("Unlabel = %v; label still on: %v", err, h.hasLabel(d, "recess:escalated"))
	}
	if diff := cmp.Diff([]string{"mutation removeLabelsFromLabelable"}, roots(h.Calls())); diff != "" {
		t.Errorf("requests of an unlabel in another case (-want +got):\n%s", diff)
	}
}

// A label recess needs that the token may not create
// fails the run with an error that names the label and the fix.
func TestLabelCannotBeCreated(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.noLabelCreation = true
	d := h.addDiscussion(1)
	c := h.client(t, nil)
	read, err := c.Thread(context.Background(), resume.DiscussionRef(d.number))
	if err != nil {
		t.Fatalf("Discussion = %v", err)
	}
	err = c.Label(context.Background(), read, "recess:waiting")
	if !errors.Is(err, resume.ErrLabelUnavailable) || !strings.Contains(err.Error(), `"recess:waiting"`) || !strings.Contains(err.Error(), "issues: write") {
		t.Errorf("Label(missing, may not create) = %v, want resume.ErrLabelUnavailable naming the label and the fix", err)
	}
}

func TestThreadOfAKindNotServedIsRefusedWithoutARequest(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	h.addDiscussion(4)
	c := h.client(t, nil)
	ref := resume.ThreadRef{Kind: "commit", Number: 4}
	if _, err := c.Thread(context.Background(), ref); err == nil || !strings.Contains(err.Error(), `"commit"`) {
		t.Errorf("Thread(commit 4) = %v, want a refusal naming the kind", err)
	}
	if _, _, err := NewCommentStore(c).LoadWith(context.Background(), ref); err == nil {
		t.Error("comment store LoadWith(commit 4) = nil error, want a refusal")
	}
	if calls := h.Calls(); len(calls) != 0 {
		t.Errorf("requests = %v, want none", roots(calls))
	}
}
